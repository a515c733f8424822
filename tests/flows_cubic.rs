//! Acceptance (issue #18): the flow-Gaussianisation estimator on the 20-d cubic-transformed
//! Gaussian (`y ↦ y³`), n = 20 000 samples, true MI 2, 4, 6, 8, 10 nats, must read within
//! 10 % of the truth at every level (InfoNCE with N = 64 reads 1.3 / 2.5 / 3.3 / 3.8 / 4.0 here,
//! capped at log 64 ≈ 4.16). The 10 % is the criterion, not a tuned tolerance.
//!
//! Release mode, one level per test (≈ 20–40 s each on a shared 2-core machine):
//! `cargo test --release --test suite flows_cubic:: -- --test-threads=1`.
//! The estimate is also checked against its own diagnostics: the fitted model's correlations
//! and the held-out read-off must agree to within the same 10 %.

use mibound::data::{CorrelatedGaussian, Sampler, Transformed, rng};
use mibound::flows::{GaussianisationConfig, estimate};
use mibound::train::Validation;

fn level(mi: f64) {
    let task = Transformed::cubic_y(CorrelatedGaussian::with_mi(20, mi).unwrap());
    let (x, y) = task.sample(20_000, &mut rng(1000));
    let cfg = GaussianisationConfig {
        max_steps: 1000,
        validation: Validation { every: 100, patience: 1000 },
        ..GaussianisationConfig::default()
    };
    let e = estimate(&x, &y, &cfg).unwrap();
    let (lo, hi) = e.interval.unwrap();
    eprintln!(
        "true {mi}: estimate {:.3} [{lo:.3}, {hi:.3}], initial {:.3}, model {:.3}, train {:.3}, \
         test ll {:.3}, steps {} (best {}), {:.1} s",
        e.mi, e.initial_mi, e.model_mi, e.train_mi, e.test_log_likelihood, e.fit.steps, e.fit.best_step, e.fit.seconds
    );
    assert!((e.mi - mi).abs() <= 0.1 * mi, "estimate {} vs true {mi}", e.mi);
    assert!((e.model_mi - e.mi).abs() <= 0.1 * mi, "model {} vs read-off {}", e.model_mi, e.mi);
    assert!(lo <= e.mi && e.mi <= hi);
}

#[test]
#[ignore = "acceptance (minutes): run by .ci/run with --ignored"]
fn cubic_20d_mi_2() {
    level(2.0);
}

#[test]
#[ignore = "acceptance (minutes): run by .ci/run with --ignored"]
fn cubic_20d_mi_4() {
    level(4.0);
}

#[test]
#[ignore = "acceptance (minutes): run by .ci/run with --ignored"]
fn cubic_20d_mi_6() {
    level(6.0);
}

#[test]
#[ignore = "acceptance (minutes): run by .ci/run with --ignored"]
fn cubic_20d_mi_8() {
    level(8.0);
}

#[test]
#[ignore = "acceptance (minutes): run by .ci/run with --ignored"]
fn cubic_20d_mi_10() {
    level(10.0);
}
