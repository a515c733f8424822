//! Neural bounds with class labels (`NeuralConfig::labels`: each label column one-hot encoded on
//! each fold, an embedding in the critic's first layer) on the mixed tasks of
//! `tasks::conditional` with closed-form MI: an 8-ary symmetric channel (both sides labels)
//! and Gao et al.'s uniform task (a label x, a continuous y). Release mode, fixed seeds,
//! n = 2000 rows, short training (below).

use mibound::data::{Sampler, VarKind, rng};
use mibound::estimators::neural::LabelColumns;
use mibound::estimators::{EstimatorSpec, Settings};
use mibound::tasks::conditional::MixedTask;

const N: usize = 2000;

/// Short training: one critic per fold (no alternatives), 600 steps, batch 128.
fn settings(labels: LabelColumns) -> Settings {
    let mut s = Settings::default();
    s.neural.candidates.alternatives.clear();
    s.neural.max_steps = 600;
    s.neural.batch = 128;
    s.neural.labels = labels;
    s
}

/// InfoNCE on `task` drawn with `seed`, its labels declared: (estimate, truth).
fn estimate(task: &str, seed: u64) -> (f64, f64) {
    let t = MixedTask::parse(task).unwrap();
    let (x, y) = t.sample(N, &mut rng(seed));
    let (kx, ky) = t.kinds();
    let col = |k: VarKind| if k == VarKind::Discrete { vec![0] } else { vec![] };
    let labels = LabelColumns { x: col(kx), y: col(ky) };
    let e = EstimatorSpec::parse("infonce").unwrap().build(&settings(labels)).unwrap();
    let v = e.estimate(x.as_view(), y.as_view(), seed).unwrap().value;
    println!("{task} seed {seed}: {v:.4} truth {:.4}", t.true_mi());
    (v, t.true_mi())
}

/// Over sample seeds 0–9 (the lines `--nocapture` prints, measured 2026-11-25) the error
/// against the truth had mean −0.030 and sd 0.039 on the channel (largest 0.090), mean −0.069
/// and sd 0.008 on Gao's task (largest 0.086). The bounds are |mean| + 4 sd, rounded up: 0.19
/// and 0.11. Seeds 0–2 run here.
#[test]
fn infonce_with_embedded_labels_reads_the_truth_of_a_channel_and_a_mixture() {
    for (task, tolerance) in [("channel-8-0.3", 0.19), ("gao-uniform-4", 0.11)] {
        for seed in 0..3 {
            let (v, truth) = estimate(task, seed);
            assert!((v - truth).abs() < tolerance, "{task} seed {seed}: {v} against {truth}");
        }
    }
}

/// A conditional model q(y|x) is a Gaussian density: a label y is refused with a sentence, and
/// a label column out of range is named.
#[test]
fn what_cannot_use_labels_is_refused() {
    let t = MixedTask::parse("channel-8-0.3").unwrap();
    let (x, y) = t.sample(200, &mut rng(0));
    let club = EstimatorSpec::parse("club").unwrap();
    let e = club.build(&settings(LabelColumns { x: vec![], y: vec![0] })).unwrap();
    let err = e.estimate(x.as_view(), y.as_view(), 0).unwrap_err().to_string();
    assert!(err.contains("cannot model a label in y"), "{err}");
    let infonce = EstimatorSpec::parse("infonce").unwrap();
    let e = infonce.build(&settings(LabelColumns { x: vec![3], y: vec![] })).unwrap();
    let err = e.estimate(x.as_view(), y.as_view(), 0).unwrap_err().to_string();
    assert!(err.contains("label column of x") && err.contains("has 1 columns"), "{err}");
}

/// The self-check's side-by-side copy declares the second copy's label columns too: on the
/// channel, two independent copies read about twice one copy, where the second copy's labels
/// read as numbers gave a ratio of 0.77.
///
/// Tolerance from the measured spread: over sample (and estimator) seeds 0–9 with these short
/// settings (a temporary loop over the seeds, `-- --nocapture`, 2026-11-26) the additivity ratio
/// was 2.075, 1.919, 1.875, 1.847, 1.921, 1.866, 1.770, 1.785, 1.878, 1.797: mean 1.873, sd
/// 0.088 (InfoNCE under-reads the doubled pair a little). The bound is that mean ± 4 sd,
/// [1.52, 2.23]; seed 0 runs here.
#[test]
fn the_self_check_doubles_the_label_columns() {
    use mibound::estimators::compare;
    let t = MixedTask::parse("channel-8-0.3").unwrap();
    let (x, y) = t.sample(N, &mut rng(0));
    let specs = [EstimatorSpec::parse("infonce").unwrap()];
    let s = settings(LabelColumns { x: vec![0], y: vec![0] });
    let c = compare(&specs, &s, x.as_view(), y.as_view(), 0, None).unwrap();
    let c = c.with_self_check(&specs, &s, (x.as_view(), y.as_view()), 0, None).unwrap();
    let sc = c.selfcheck.unwrap();
    println!("single {:.3} doubled {:.3} ratio {:.2}", sc.single, sc.doubled, sc.additivity_ratio);
    assert!((1.52..=2.23).contains(&sc.additivity_ratio), "{sc:?}");
}
