//! The self-consistency checks (`--selfcheck`, `estimators::selfcheck`): they pass for an
//! estimator that has the three properties and name the property an estimator lacks.

use mibound::estimators::{EstimatorSpec, Settings, WarningCode, compare};

fn cheap() -> Settings {
    let mut s = Settings::default();
    s.neural.batch = 128;
    s.neural.max_steps = 300;
    s.neural.candidates.alternatives.clear();
    s.neural.candidates.squares = false;
    s
}

/// The copula estimate on a 1 + 1 Gaussian (I = 0.41): additivity within 2 ± 0.4, invariance
/// (rank-based, so exactly), independence under a shuffle. A check that always failed would
/// fail here.
#[test]
fn copula_passes_on_a_gaussian_pair() {
    let task = mibound::tasks::get("1v1-normal-0.75").unwrap();
    let (x, y) = task.draw(4000, 3).unwrap();
    let specs = EstimatorSpec::parse_list("copula").unwrap();
    let c = compare(&specs, &cheap(), x.as_view(), y.as_view(), 3, None)
        .unwrap()
        .with_self_check(&specs, &cheap(), (x.as_view(), y.as_view()), 3, None)
        .unwrap();
    let sc = c.selfcheck.as_ref().unwrap();
    println!("{sc:?}");
    assert!(sc.passed(), "{:?}", sc.failures);
    assert!((sc.additivity_ratio - 2.0).abs() < 0.4);
    assert!(c.warnings.iter().all(|w| w.code != WarningCode::SelfCheck));
}

/// The Gaussian (CCA) estimate reads only linear dependence: a monotone map of every coordinate
/// changes it, and the invariance check must say so (with a warning). At correlation 0.99
/// (I = 1.96) the map lowers the linear correlation far beyond the estimate's interval.
#[test]
fn gaussian_estimate_fails_invariance() {
    let task = mibound::tasks::get("1v1-normal-0.99").unwrap();
    let (x, y) = task.draw(4000, 4).unwrap();
    let specs = EstimatorSpec::parse_list("gaussian").unwrap();
    let c = compare(&specs, &cheap(), x.as_view(), y.as_view(), 4, None)
        .unwrap()
        .with_self_check(&specs, &cheap(), (x.as_view(), y.as_view()), 4, None)
        .unwrap();
    let sc = c.selfcheck.as_ref().unwrap();
    println!("{sc:?}");
    assert_eq!(sc.failures.len(), 1, "{:?}", sc.failures);
    assert!(sc.failures[0].starts_with("invariance"));
    assert!(c.warnings.iter().any(|w| w.code == WarningCode::SelfCheck
        && w.message.starts_with("self-check of")
        && w.message.contains("invariance")));
}

/// The neural headline on a 2 + 2 Gaussian passes all three (one cheap critic).
#[test]
fn infonce_passes_on_a_gaussian_pair() {
    let task = mibound::tasks::get("multinormal-sparse-2-2-2-2.0").unwrap();
    let (x, y) = task.draw(3000, 5).unwrap();
    let specs = EstimatorSpec::parse_list("infonce").unwrap();
    let c = compare(&specs, &cheap(), x.as_view(), y.as_view(), 5, None)
        .unwrap()
        .with_self_check(&specs, &cheap(), (x.as_view(), y.as_view()), 5, None)
        .unwrap();
    let sc = c.selfcheck.as_ref().unwrap();
    println!("{sc:?}");
    assert!(sc.passed(), "{:?}", sc.failures);
}

/// The self-check's four neural estimates report their steps to the progress given, no more
/// than `self_check_steps` says, and stop when it cancels (Ctrl-C in Python, a closed bar).
#[test]
fn the_self_check_reports_progress_and_can_be_cancelled() {
    use mibound::estimators::self_check_steps;
    use mibound::train::Progress;
    use std::sync::atomic::{AtomicU64, Ordering};
    struct Count(AtomicU64, u64);
    impl Progress for Count {
        fn advance(&self, steps: u64) {
            self.0.fetch_add(steps, Ordering::Relaxed);
        }
        fn cancelled(&self) -> bool {
            self.0.load(Ordering::Relaxed) >= self.1
        }
    }
    let task = mibound::tasks::get("1v1-normal-0.75").unwrap();
    let (x, y) = task.draw(1000, 3).unwrap();
    let specs = EstimatorSpec::parse_list("infonce").unwrap();
    let s = cheap();
    let c = compare(&specs, &s, x.as_view(), y.as_view(), 3, None).unwrap();
    let total = self_check_steps(&specs, &s, x.as_view(), y.as_view());
    assert_eq!(total, 6 * 5 * 300, "six estimates (four on the data, two on the reference) of 5 folds × 300 steps");
    let all = Count(AtomicU64::new(0), u64::MAX);
    c.clone().with_self_check(&specs, &s, (x.as_view(), y.as_view()), 3, Some(&all)).unwrap();
    let counted = all.0.load(Ordering::Relaxed);
    assert!(counted > 0 && counted <= total, "{counted} of {total}");
    let stop = Count(AtomicU64::new(0), 100);
    let err = c.with_self_check(&specs, &s, (x.as_view(), y.as_view()), 3, Some(&stop)).unwrap_err();
    assert!(matches!(err, mibound::error::Error::Cancelled), "{err}");
}
