//! The self-consistency checks (`--selfcheck`, `estimators::selfcheck`): they pass for an
//! estimator that has the three properties and name the property an estimator lacks.

use mibound::estimators::{EstimatorSpec, Settings, WarningCode, compare};

fn cheap() -> Settings {
    let mut s = Settings::default();
    s.neural.batch = 128;
    s.neural.max_steps = 300;
    s.neural.alternatives.clear();
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
        .with_self_check(&specs, &cheap(), x.as_view(), y.as_view(), 3)
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
        .with_self_check(&specs, &cheap(), x.as_view(), y.as_view(), 4)
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
        .with_self_check(&specs, &cheap(), x.as_view(), y.as_view(), 5)
        .unwrap();
    let sc = c.selfcheck.as_ref().unwrap();
    println!("{sc:?}");
    assert!(sc.passed(), "{:?}", sc.failures);
}
