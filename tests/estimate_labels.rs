//! Declared class labels (`--discrete`, Python's `discrete_x`/`discrete_y`,
//! `NeuralConfig::labels`) through the estimators that read them as categories: a label's codes
//! mean nothing, so relabelling them must not move an estimate. Release mode, fixed seeds.

use crate::common;

use common::{mibound, temp_dir};
use mibound::data::kinds::LabelColumns;
use mibound::data::{Sampler, rng};
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

/// The permutation test reads declared labels as categories. A continuous x whose mean swings
/// with the code (`sin(1.13 c)`, about 5.6 codes a period; 600 labels of about 3.3 rows each,
/// within-label noise sd 0.17), as in the reviewer's data: Ross's estimate reads over 1 nat and
/// the test with Ross's statistic rejects at its smallest p-value, where KSG on normal scores of
/// the codes (the statistic without labels), whose neighbourhoods span a period of codes, does
/// not see the dependence. Both sides labels (a 4-symbol channel): the plug-in statistic rejects.
#[test]
fn a_strong_label_dependence_is_detected() {
    use mibound::estimators::compare;
    use mibound::estimators::significance::dependence_test;
    let mut g = rng(6);
    let codes: Vec<f64> = (0..2000).map(|_| g.random_range(0..600) as f64).collect();
    let x = DMatrix::from_fn(2000, 1, |i, _| (1.13 * codes[i]).sin() + 0.6 * (g.random::<f64>() - 0.5));
    let y = DMatrix::from_column_slice(2000, 1, &codes);
    let labels = LabelColumns { x: vec![], y: vec![0] };
    let c = compare(&[EstimatorSpec::parse("ross").unwrap()], &with_labels(labels), x.as_view(), y.as_view(), 0, None)
        .unwrap();
    let t = c.dependence_test.unwrap();
    println!("ross {:.3}; test: {} p = {}", c.estimates[0].value, t.statistic, t.p_value);
    assert!(c.estimates[0].value > 1.0 && c.significant && t.p_value == 0.01, "{t:?}");
    assert!(t.statistic.starts_with("ross:k=3"), "{t:?}");
    let numbers = dependence_test(x.as_view(), y.as_view(), &LabelColumns::default(), 0).unwrap();
    println!("without labels: {} p = {}", numbers.statistic, numbers.p_value);
    assert!(!numbers.significant(0.05), "{numbers:?}");
    let channel = mibound::tasks::conditional::MixedTask::parse("channel-4-0.1").unwrap();
    let (a, b) = channel.sample(300, &mut rng(7));
    let t = dependence_test(a.as_view(), b.as_view(), &LabelColumns { x: vec![0], y: vec![0] }, 0).unwrap();
    assert!(t.statistic.starts_with("plug-in") && t.p_value == 0.01, "{t:?}");
}

/// The label statistics keep the test exact: on 300 independent data sets (100 for each
/// statistic: two label sides, a label against a measured column, a mixed side), n = 200, the
/// test rejects at 5 % in at most 5 % + 2 binomial standard errors of them (the bound of
/// `tests/estimate_independence.rs`).
#[test]
fn the_label_statistics_hold_the_level_on_independent_data() {
    use mibound::estimators::significance::dependence_test;
    let n = 200;
    let mut rejected = 0;
    let sets = 100;
    for s in 0..sets {
        let mut g = rng(9000 + s);
        let lab = |g: &mut mibound::rng::Xoshiro, m: usize| g.random_range(0..m) as f64;
        let l1 = DMatrix::from_fn(n, 1, |_, _| lab(&mut g, 4));
        let l2 = DMatrix::from_fn(n, 1, |_, _| lab(&mut g, 3));
        let c = DMatrix::from_fn(n, 1, |_, _| g.random::<f64>());
        let mixed = DMatrix::from_fn(n, 2, |_, j| if j == 0 { lab(&mut g, 5) } else { g.random::<f64>() });
        for (a, b, labels) in [
            (&l1, &l2, LabelColumns { x: vec![0], y: vec![0] }),
            (&c, &l1, LabelColumns { x: vec![], y: vec![0] }),
            (&mixed, &c, LabelColumns { x: vec![0], y: vec![] }),
        ] {
            rejected += dependence_test(a.as_view(), b.as_view(), &labels, s).unwrap().significant(0.05) as usize;
        }
    }
    let total = 3.0 * sets as f64;
    let bound = 0.05 + 2.0 * (0.05 * 0.95 / total).sqrt();
    println!("{rejected} of {total} rejected (bound {:.1})", bound * total);
    assert!(rejected as f64 <= bound * total, "{rejected} of {total}");
}

/// The labels' entropy ceiling is checked for every estimate, classical ones included, end to end:
/// three classes of 50 rows whose measurement is rounded to 0.1 (`round(3 c + ε, 1)`, so ties
/// sit at the k-th distance and the strict counts come out small) make the mixed KSG read above
/// `H(Y) = ln 3 + 1/150` (Miller–Madow), and the command line's JSON carries its `above-entropy`
/// warning; Ross's estimate, below the ceiling, has none.
#[test]
fn an_estimate_above_the_label_entropy_is_warned_about_end_to_end() {
    let dir = temp_dir("estimate-labels", "ceiling");
    let e = common::splitmix_normals(21, 150, 1);
    let mut s = String::from("x,c\n");
    for i in 0..150 {
        let c = i / 50;
        s += &format!("{:?},{c}\n", ((3.0 * c as f64 + e[(i, 0)]) * 10.0).round() / 10.0);
    }
    let p = dir.join("classes.csv");
    std::fs::write(&p, s).unwrap();
    let args = ["--x-cols", "x", "--y-cols", "c", "--discrete", "c", "--estimators", "mixed-ksg,ross", "--json"];
    let out = mibound().arg("estimate").arg("--x").arg(&p).args(args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ceiling = 3f64.ln() + 2.0 / 300.0;
    let codes = |i: usize| -> Vec<String> {
        let w = v["estimates"][i]["diagnostics"]["warnings"].as_array().unwrap();
        w.iter().map(|w| w["code"].as_str().unwrap().to_string()).collect()
    };
    let (mixed, ross) = (v["estimates"][0]["value"].as_f64().unwrap(), v["estimates"][1]["value"].as_f64().unwrap());
    println!("mixed KSG {mixed:.4}, Ross {ross:.4}, ceiling {ceiling:.4}");
    assert!(mixed > ceiling && codes(0).contains(&"above-entropy".to_string()), "{v}");
    assert!(ross < ceiling && !codes(1).contains(&"above-entropy".to_string()), "{v}");
    let w = &v["estimates"][0]["diagnostics"]["warnings"].as_array().unwrap();
    let entropy = w.iter().find(|w| w["code"] == "above-entropy").unwrap()["values"]["entropy"].as_f64().unwrap();
    assert!((entropy - ceiling).abs() < 1e-12, "{entropy}");
    std::fs::remove_dir_all(&dir).ok();
}
