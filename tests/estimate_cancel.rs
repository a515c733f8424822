//! Cancellation through [`Progress::cancelled`]: an estimate stops within a training step with
//! `Error::Cancelled` (how the Python bindings stop on Ctrl-C), and a `Progress` that never
//! cancels changes nothing.

use mibound::data::{CorrelatedGaussian, Sampler, rng};
use mibound::error::Error;
use mibound::estimators::{EstimatorSpec, Settings, compare};
use mibound::train::Progress;
use std::sync::atomic::{AtomicU64, Ordering};

/// Counts steps and cancels once `after` steps were reported.
struct CancelAfter {
    steps: AtomicU64,
    after: u64,
}

impl Progress for CancelAfter {
    fn advance(&self, steps: u64) {
        self.steps.fetch_add(steps, Ordering::Relaxed);
    }
    fn cancelled(&self) -> bool {
        self.steps.load(Ordering::Relaxed) >= self.after
    }
}

fn settings(steps: u64) -> Settings {
    let mut s = Settings::default();
    s.neural.max_steps = steps;
    s.neural.batch = 32;
    s.neural.patience = steps;
    s.neural.critic = mibound::critics::CriticSpec::parse("concat").unwrap();
    s
}

#[test]
fn a_cancelled_estimate_stops_early_with_cancelled() {
    let (x, y) = CorrelatedGaussian::with_mi(2, 0.5).unwrap().sample(400, &mut rng(0));
    let specs = EstimatorSpec::parse_list("infonce,ksg").unwrap();
    let p = CancelAfter { steps: AtomicU64::new(0), after: 100 };
    let started = std::time::Instant::now();
    let r = compare(&specs, &settings(1_000_000), x.as_view(), y.as_view(), 0, Some(&p));
    assert!(matches!(r, Err(Error::Cancelled)), "{r:?}");
    // 5 folds × a million steps would take hours; each fold stops within 50 steps of the flag.
    assert!(p.steps.load(Ordering::Relaxed) < 100 + 5 * 50, "{} steps", p.steps.load(Ordering::Relaxed));
    assert!(started.elapsed().as_secs() < 60);
    assert_eq!(Error::Cancelled.to_string(), "cancelled");
}

#[test]
fn classical_estimators_are_checked_between_estimators() {
    let (x, y) = CorrelatedGaussian::with_mi(2, 0.5).unwrap().sample(300, &mut rng(1));
    let specs = EstimatorSpec::parse_list("ksg,gaussian").unwrap();
    let p = CancelAfter { steps: AtomicU64::new(0), after: 0 };
    let r = compare(&specs, &Settings::default(), x.as_view(), y.as_view(), 0, Some(&p));
    assert!(matches!(r, Err(Error::Cancelled)), "{r:?}");
}

#[test]
fn a_progress_that_never_cancels_gives_the_same_numbers() {
    let (x, y) = CorrelatedGaussian::with_mi(2, 0.5).unwrap().sample(300, &mut rng(2));
    let specs = EstimatorSpec::parse_list("infonce,ksg").unwrap();
    let p = CancelAfter { steps: AtomicU64::new(0), after: u64::MAX };
    let a = compare(&specs, &settings(120), x.as_view(), y.as_view(), 3, Some(&p)).unwrap();
    let b = compare(&specs, &settings(120), x.as_view(), y.as_view(), 3, None).unwrap();
    let values = |c: &mibound::estimators::Comparison| c.estimates.iter().map(|e| e.value).collect::<Vec<_>>();
    assert_eq!(values(&a), values(&b));
    // Every step of every critic is counted: 120 steps for each candidate of the first fold
    // (which chooses the critic: the configured one and the alternatives, each also on the
    // squares) and for the chosen critic on each of the other 4 folds.
    let total = settings(120).neural.max_training_steps(&[specs[0].bound().unwrap()]);
    let candidates = 2 * (1 + Settings::default().neural.candidates.alternatives.len() as u64);
    assert_eq!(total, 120 * (candidates + 4));
    assert_eq!(p.steps.load(Ordering::Relaxed), total);
}
