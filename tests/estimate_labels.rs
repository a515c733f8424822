//! Declared class labels (`--discrete`, Python's `discrete_x`/`discrete_y`,
//! `NeuralConfig::labels`) through the estimators that read them as categories: a label's codes
//! mean nothing, so relabelling them must not move an estimate. Release mode, fixed seeds.

mod common;

use common::{mibound, temp_dir};
use mibound::data::kinds::LabelColumns;
use mibound::data::rng;
use mibound::estimators::classical::{digamma, mixed_ksg_mi, ross_mi};
use mibound::estimators::{EstimatorSpec, Settings};
use mibound::rng::shuffle;
use nalgebra::DMatrix;
use rand::RngExt;

/// `n` rows of a continuous x whose mean depends on a label y with `levels` levels (codes
/// `0..levels` in the order of their means, each row's label uniform), and the same labels
/// under a random permutation of the codes (spread out to `7 c + 3`, so even the spacing
/// changes): (x, y, y relabelled).
fn labelled(n: usize, levels: usize, seed: u64) -> (DMatrix<f64>, DMatrix<f64>, DMatrix<f64>) {
    let mut g = rng(seed);
    // Codes in the order of their means: read as numbers, the codes themselves carry x.
    let mut means: Vec<f64> = (0..levels).map(|_| g.random::<f64>() * 4.0).collect();
    means.sort_by(f64::total_cmp);
    let mut perm: Vec<usize> = (0..levels).collect();
    shuffle(&mut perm, &mut g);
    let lab: Vec<usize> = (0..n).map(|_| g.random_range(0..levels)).collect();
    let x = DMatrix::from_fn(n, 1, |i, _| means[lab[i]] + 0.2 * (g.random::<f64>() - 0.5));
    let y = DMatrix::from_fn(n, 1, |i, _| lab[i] as f64);
    let relabelled = DMatrix::from_fn(n, 1, |i, _| 7.0 * perm[lab[i]] as f64 + 3.0);
    (x, y, relabelled)
}

fn with_labels(labels: LabelColumns) -> Settings {
    let mut s = Settings::default();
    s.neural.labels = labels;
    s
}

/// Gao et al.'s mixed KSG reads a declared label with the discrete metric: permuting the codes
/// leaves the estimate (and its subsampling interval) bit for bit unchanged, on many small
/// classes (300 of about 3 rows, where a k-NN ball reaches other codes) and on a few large ones.
/// Read as numbers (no label declared), the same permutation moves it by more than 0.1 nats:
/// what the test would see if the labels were ignored.
#[test]
fn relabelling_a_declared_label_leaves_mixed_ksg_unchanged() {
    let spec = EstimatorSpec::parse("mixed-ksg").unwrap();
    let labelled_y = spec.build(&with_labels(LabelColumns { x: vec![], y: vec![0] })).unwrap();
    let as_numbers = spec.build(&Settings::default()).unwrap();
    for (levels, seed) in [(300, 1), (4, 2)] {
        let (x, y, relabelled) = labelled(1000, levels, seed);
        let a = labelled_y.estimate(x.as_view(), y.as_view(), 0).unwrap();
        let b = labelled_y.estimate(x.as_view(), relabelled.as_view(), 0).unwrap();
        println!("{levels} levels: {:.4} [{:.4}, {:.4}]", a.value, a.interval.low, a.interval.high);
        assert_eq!((a.value, a.interval.low, a.interval.high), (b.value, b.interval.low, b.interval.high));
        if levels == 300 {
            let (c, d) = (
                as_numbers.estimate(x.as_view(), y.as_view(), 0).unwrap().value,
                as_numbers.estimate(x.as_view(), relabelled.as_view(), 0).unwrap().value,
            );
            println!("read as numbers: {c:.4} and {d:.4} relabelled");
            assert!((c - d).abs() > 0.1, "{c} {d}");
        }
    }
}

/// With one label against one measured column, every class larger than k and no ties, the
/// discrete metric makes the mixed KSG Ross's estimate with `ln N` for `ψ(N)`: the same
/// neighbour counts, term by term (module docs of `classical::mixed`). An identity, so the
/// tolerance is rounding (the sums run in different orders).
#[test]
fn mixed_ksg_on_one_label_is_ross_with_ln_n() {
    let (x, y, _) = labelled(800, 5, 3);
    let codes: Vec<u32> = y.iter().map(|&v| v as u32).collect();
    for k in [3, 5] {
        let ross = ross_mi(x.as_view(), &codes, k).unwrap();
        let mixed = mixed_ksg_mi(x.as_view(), y.as_view(), &LabelColumns { x: vec![], y: vec![0] }, k).unwrap();
        let n = 800.0_f64;
        assert!((mixed - (ross + n.ln() - digamma(n))).abs() < 1e-12, "k = {k}: mixed {mixed}, ross {ross}");
    }
}

/// The command line declares the label with `--discrete`: the same data with permuted codes
/// prints the same mixed KSG estimate.
#[test]
fn the_cli_reads_a_declared_label_as_categories_in_mixed_ksg() {
    let dir = temp_dir("estimate-labels", "relabel");
    let (x, y, relabelled) = labelled(600, 200, 4);
    let mut values = Vec::new();
    for (name, lab) in [("codes.csv", &y), ("permuted.csv", &relabelled)] {
        let mut s = String::from("x,lab\n");
        for i in 0..x.nrows() {
            s += &format!("{:?},{}\n", x[(i, 0)], lab[(i, 0)]);
        }
        let p = dir.join(name);
        std::fs::write(&p, s).unwrap();
        let args = ["--x-cols", "x", "--y-cols", "lab", "--discrete", "lab", "--estimators", "mixed-ksg", "--json"];
        let out = mibound().arg("estimate").arg("--x").arg(&p).args(args).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        values.push(v["estimates"][0]["value"].as_f64().unwrap());
    }
    assert_eq!(values[0], values[1]);
    std::fs::remove_dir_all(&dir).ok();
}

/// `auto` with declared labels resolves to estimators that read them: the estimator for labels
/// of the kinds alone up to `LOW_DIMENSION` joint dimensions, InfoNCE (which embeds them) with
/// it as cross-check above; without labels, what `auto` always was.
#[test]
fn auto_with_labels_resolves_to_estimators_for_labels() {
    use mibound::estimators::LOW_DIMENSION;
    let p = |s: &str| EstimatorSpec::parse(s).unwrap();
    let auto = [EstimatorSpec::Auto];
    let labels = |x: &[usize], y: &[usize]| LabelColumns { x: x.to_vec(), y: y.to_vec() };
    let cases = [
        ((1, 1), labels(&[], &[0]), vec![p("ross:k=3")]),
        ((1, 1), labels(&[0], &[]), vec![p("ross:k=3:discrete=x")]),
        ((1, 2), labels(&[0], &[0, 1]), vec![p("discrete")]),
        ((2, 1), labels(&[0], &[]), vec![p("mixed-ksg:k=5")]),
        ((LOW_DIMENSION, 1), labels(&[], &[0]), vec![p("infonce"), p("ross:k=3")]),
        ((LOW_DIMENSION, 2), labels(&[1], &[0]), vec![p("infonce"), p("mixed-ksg:k=5")]),
    ];
    for ((dx, dy), l, want) in cases {
        assert_eq!(EstimatorSpec::resolve_with_labels(&auto, dx, dy, &l), want, "{dx} + {dy}, {l:?}");
        mibound::estimators::classical::check_label_columns(&auto, &l, dx, dy).unwrap();
    }
    for (dx, dy) in [(1, 1), (10, 10)] {
        let none = LabelColumns::default();
        assert_eq!(EstimatorSpec::resolve_with_labels(&auto, dx, dy, &none), EstimatorSpec::resolve(&auto, dx, dy));
    }
}

/// `mibound estimate --discrete target` with the default estimators estimates (Ross's headline
/// on one measured column and a label) instead of refusing `auto`; an estimator named beside it
/// that cannot read the label is the one the refusal names.
#[test]
fn the_default_estimators_take_a_declared_label() {
    let dir = temp_dir("estimate-labels", "auto");
    let (x, y, _) = labelled(400, 3, 5);
    let mut s = String::from("x,target\n");
    for i in 0..x.nrows() {
        s += &format!("{:?},{}\n", x[(i, 0)], y[(i, 0)]);
    }
    let p = dir.join("data.csv");
    std::fs::write(&p, s).unwrap();
    let base = ["--x-cols", "x", "--y-cols", "target", "--discrete", "target", "--json"];
    let out = mibound().arg("estimate").arg("--x").arg(&p).args(base).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["estimates"][0]["estimator"], "ross:k=3", "{v}");
    let out =
        mibound().arg("estimate").arg("--x").arg(&p).args(base).args(["--estimators", "auto,ksg"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("error: ksg:k=5 cannot use column 0 of y"), "{err}");
    assert!(!err.contains("auto cannot"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
