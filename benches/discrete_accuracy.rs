//! `cargo bench --bench discrete_accuracy -- --dir DIR [--n N] [--seeds S]`
//!
//! Draws `S` samples of `N` rows of every task of `tasks::conditional` (`MIXED_IDS`,
//! `TRIPLE_IDS`), writes each to `DIR/<task>-<seed>.bin` (raw little-endian f64, row-major,
//! columns x, y, z) for the Python side, and prints one JSON line per (task, seed, estimator):
//! `{"task", "seed", "estimator", "value", "truth", "kind"}` with `kind` `"mi"` or `"cmi"`. Used
//! by `benches/compare_discrete.sh`, which computes scikit-learn's and ennemi's estimates on the
//! same files.

use mibound::data::kinds::LabelColumns;
use mibound::data::{Sampler, VarKind, rng};
use mibound::estimators::classical::{
    ConditionalSpec, Discrete, DiscreteCorrection, Ksg, KsgVariant, MixedKsg, Ross, Side, check_kinds,
};
use mibound::estimators::{Estimator, EstimatorSpec};
use mibound::tasks::conditional::{GaussianTriple, MIXED_IDS, MixedTask, TRIPLE_IDS};
use nalgebra::DMatrix;

fn write(path: &str, parts: &[&DMatrix<f64>]) {
    let n = parts[0].nrows();
    let mut bytes = Vec::new();
    for i in 0..n {
        for m in parts {
            for j in 0..m.ncols() {
                bytes.extend_from_slice(&m[(i, j)].to_le_bytes());
            }
        }
    }
    std::fs::write(path, bytes).expect("write sample");
}

fn line(task: &str, seed: u64, estimator: &str, value: f64, truth: f64, kind: &str) {
    println!(
        "{}",
        serde_json::json!({ "task": task, "seed": seed, "estimator": estimator, "value": value, "truth": truth, "kind": kind })
    );
}

/// The estimator of `spec` with no interval (the table is about the values); the mixed KSG
/// reads the task's discrete sides as labels (`labels`), as `--discrete` declares them.
fn without_interval(spec: &EstimatorSpec, labels: &LabelColumns) -> Box<dyn Estimator> {
    match *spec {
        EstimatorSpec::Discrete { miller_madow } => {
            let mut e =
                Discrete::new(if miller_madow { DiscreteCorrection::MillerMadow } else { DiscreteCorrection::None });
            e.subsamples = 0;
            Box::new(e)
        }
        EstimatorSpec::Ross { k, discrete_x } => {
            let mut e = Ross::new(k, if discrete_x { Side::X } else { Side::Y }).expect("ross");
            e.subsamples = 0;
            Box::new(e)
        }
        EstimatorSpec::MixedKsg { k } => {
            let mut e = MixedKsg::new(k).expect("mixed-ksg").with_labels(labels.clone());
            e.subsamples = 0;
            Box::new(e)
        }
        EstimatorSpec::Ksg { k, .. } => {
            let mut e = Ksg::new(k, KsgVariant::Ksg1).expect("ksg");
            e.subsamples = 0;
            Box::new(e)
        }
        _ => panic!("no such estimator in this table"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let value = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let dir = value("--dir").expect("--dir DIR");
    let n: usize = value("--n").map_or(1000, |v| v.parse().expect("--n"));
    let seeds: u64 = value("--seeds").map_or(20, |v| v.parse().expect("--seeds"));
    std::fs::create_dir_all(&dir).expect("create --dir");
    for id in MIXED_IDS {
        let task = MixedTask::parse(id).expect("task id");
        let (kx, ky) = task.kinds();
        let label = |k: VarKind| if k == VarKind::Discrete { vec![0] } else { vec![] };
        let labels = LabelColumns { x: label(kx), y: label(ky) };
        let names: &[&str] = match (kx, ky) {
            (VarKind::Discrete, VarKind::Discrete) => &["discrete", "discrete:correction=none", "mixed-ksg:k=5"],
            (VarKind::Discrete, VarKind::Continuous) => &["ross:k=3:discrete=x", "mixed-ksg:k=5"],
            _ => &["mixed-ksg:k=5", "ksg:k=3"],
        };
        for seed in 0..seeds {
            let (x, y) = task.sample(n, &mut rng(seed));
            write(&format!("{dir}/{id}-{seed}.bin"), &[&x, &y]);
            for name in names {
                let spec = EstimatorSpec::parse(name).expect("estimator name");
                check_kinds(&spec, &[kx], &[ky]).expect("kinds fit");
                let e = without_interval(&spec, &labels).estimate(x.as_view(), y.as_view(), seed).expect("estimate");
                line(id, seed, name, e.value, task.true_mi(), "mi");
            }
        }
    }
    for id in TRIPLE_IDS {
        let task = GaussianTriple::parse(id).expect("task id");
        for seed in 0..seeds {
            let (x, y, z) = task.sample(n, &mut rng(seed));
            write(&format!("{dir}/{id}-{seed}.bin"), &[&x, &y, &z]);
            for spec in [ConditionalSpec::Ksg { k: 3 }, ConditionalSpec::Gaussian] {
                let mut est = spec.build().expect("build");
                est.subsamples = 0;
                let e = est.estimate(x.as_view(), y.as_view(), z.as_view(), seed).expect("estimate");
                line(id, seed, &format!("{spec}|z"), e.value, task.true_cmi(), "cmi");
            }
        }
    }
}
