//! Neural conditional MI by the chain rule (`estimators::neural::conditional_estimate`, reached
//! through `compare_given` with a neural bound): on Gaussian triples of `tasks::conditional`
//! with closed-form `I(X; Y | Z)`, InfoNCE's chain-rule estimate must read near zero for a
//! common cause (`I(X; Y) > 0`, `I(X; Y | Z) = 0`) and near the truth for a collider and a chain
//! (`I(X; Y | Z) > 0`). Release mode, fixed seeds, n = 2000 rows, short training (below).
//!
//! Tolerances: from the spread of the estimates over sample seeds 0–9, measured with
//! `cargo test --release --test suite neural_conditional:: -- --nocapture` (the printed lines, with the
//! loop over seeds 0–9); the test runs seeds 0 and 1 (0–2 until 2026-11-27: 47 s of the quick
//! suite's 136, the longest test in it). See the comment at the bounds.

use mibound::data::rng;
use mibound::estimators::classical::{CiTestConfig, ConditionalSpec};
use mibound::estimators::{EstimatorSpec, Settings, compare_given};
use mibound::tasks::conditional::GaussianTriple;

const N: usize = 2000;

/// Short training: one critic per fold (no alternatives), 600 steps, batch 128.
fn settings() -> Settings {
    let mut s = Settings::default();
    s.neural.candidates.alternatives.clear();
    s.neural.max_steps = 600;
    s.neural.batch = 128;
    s
}

/// InfoNCE's chain-rule estimate on `task` drawn with `seed`: (estimate, truth, interval).
fn estimate(task: &str, seed: u64) -> (f64, f64, (f64, f64)) {
    let t = GaussianTriple::parse(task).unwrap();
    let (x, y, z) = t.sample(N, &mut rng(seed));
    let spec = ConditionalSpec::from_spec(&EstimatorSpec::parse("infonce").unwrap()).unwrap();
    let test = CiTestConfig { permutations: 19, ..CiTestConfig::default() };
    let c = compare_given(&[spec], &settings(), x.as_view(), y.as_view(), z.as_view(), &test, seed, None).unwrap();
    let e = &c.estimates[0];
    println!(
        "{task} seed {seed}: {:.4} [{:.4}, {:.4}] truth {:.4}",
        e.value,
        e.interval.low,
        e.interval.high,
        t.true_cmi()
    );
    (e.value, t.true_cmi(), (e.interval.low, e.interval.high))
}

/// Over sample seeds 0–9 (the lines `--nocapture` prints with the loop over seeds 0–9, measured
/// 2026-11-28 with the default patience of 120 steps, docs/results.md §28), the error against
/// the truth had mean −0.0112 and sd 0.0037 on the common cause (truth 0), mean −0.0060 and sd
/// 0.0159 on the collider (0.144), mean −0.0171 and sd 0.0168 on the chain (0.112); largest
/// |error| 0.018, 0.026, 0.048. (With patience 200 the same day: sd 0.0040, 0.0147, 0.0138; on
/// 2026-11-26, before the candidates on the squares, 0.0035, 0.0106, 0.0113.) Each error must
/// lie within its task's mean ± 4 sd, rounded outward to 0.005: the chain rule reads low here
/// (InfoNCE's joint term is further below its truth), so the bounds are not centred on 0.
#[test]
fn chain_rule_reads_zero_given_a_common_cause_and_the_truth_otherwise() {
    let tasks =
        [("common-cause-1", (-0.030, 0.005)), ("collider-1", (-0.070, 0.060)), ("chain-2-0.5", (-0.085, 0.055))];
    for (task, (low, high)) in tasks {
        for seed in 0..2 {
            let (v, truth, _) = estimate(task, seed);
            assert!((low..=high).contains(&(v - truth)), "{task} seed {seed}: {v} against {truth}");
        }
    }
}

/// A neural upper bound has no conditional form (a difference of two upper bounds is neither),
/// and a classical build of a neural spec is refused with a sentence, not a panic.
#[test]
fn only_lower_bounds_have_a_chain_rule_form() {
    let e = ConditionalSpec::from_spec(&EstimatorSpec::parse("club").unwrap()).unwrap_err();
    assert!(e.to_string().contains("no conditional form"), "{e}");
    let infonce = ConditionalSpec::from_spec(&EstimatorSpec::parse("infonce").unwrap()).unwrap();
    let e = infonce.build().unwrap_err();
    assert!(e.to_string().contains("compare_given"), "{e}");
}

/// A z with fewer rows than x, and declared labels, are refused with a sentence (no panic).
#[test]
fn the_chain_rule_refuses_mismatched_rows_and_labels() {
    let (x, y, z) = GaussianTriple::parse("collider-1").unwrap().sample(300, &mut rng(0));
    let spec = ConditionalSpec::from_spec(&EstimatorSpec::parse("infonce").unwrap()).unwrap();
    let test = CiTestConfig { permutations: 19, ..CiTestConfig::default() };
    let short = z.rows(0, 50);
    let e = compare_given(&[spec], &settings(), x.as_view(), y.as_view(), short, &test, 0, None).unwrap_err();
    assert!(e.to_string().contains("z"), "{e}");
    let mut labelled = settings();
    labelled.neural.labels.x = vec![0];
    let e = compare_given(&[spec], &labelled, x.as_view(), y.as_view(), z.as_view(), &test, 0, None).unwrap_err();
    assert!(e.to_string().contains("without labels"), "{e}");
}
