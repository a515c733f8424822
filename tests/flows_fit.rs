//! The local training loop over [`Trainable`] (best-validated parameters kept, patience,
//! divergence), typed errors on bad input, and reproducibility of the flow estimator.

use mibound::data::{CorrelatedGaussian, Sampler, Transformed, rng};
use mibound::flows::{GaussianisationConfig, Trainable, estimate, fit};
use mibound::train::{StepRecord, Termination, Validation};
use mibound::{Error, Result};
use nalgebra::DMatrix;

/// A scripted problem: the parameter counts steps; validation returns `script[p]`; the step
/// with index `diverge_at` fails.
struct Scripted {
    script: Vec<f64>,
    diverge_at: Option<u64>,
}

impl Trainable<f64> for Scripted {
    fn step(&mut self, params: &mut [f64], step: u64) -> Result<StepRecord> {
        if Some(step) == self.diverge_at {
            return Err(Error::Diverged { step: step as usize, what: "scripted".into() });
        }
        params[0] += 1.0;
        Ok(StepRecord { step, value: 0.0, objective: 0.0, true_mi: None })
    }
    fn validate(&mut self, params: &[f64]) -> Result<f64> {
        Ok(self.script[params[0] as usize])
    }
}

#[test]
fn keeps_the_best_validated_parameters_and_stops_on_patience() {
    // Validation every step: improves until step 3, then worse for ever.
    let mut p = Scripted { script: vec![0.0, 1.0, 2.0, 5.0, 4.0, 3.0, 2.0, 1.0, 0.0, -1.0], diverge_at: None };
    let mut params = vec![0.0];
    let r = fit(&mut p, &mut params, 9, Validation { every: 1, patience: 3 }).unwrap();
    assert_eq!((r.best_step, r.best_validation, params[0]), (3, 5.0, 3.0));
    assert_eq!((r.steps, r.stop), (6, Termination::Patience { best_step: 3 }));
}

#[test]
fn divergence_stops_with_the_last_best_parameters() {
    let mut p = Scripted { script: vec![0.0, 1.0, 2.0, 3.0, 4.0], diverge_at: Some(3) };
    let mut params = vec![0.0];
    let r = fit(&mut p, &mut params, 4, Validation { every: 2, patience: 10 }).unwrap();
    assert_eq!(params[0], 2.0, "parameters validated at step 2 are kept");
    assert!(matches!(r.stop, Termination::Diverged { step: 3, .. }), "{:?}", r.stop);
    // A non-finite validation is divergence too.
    let mut nan = Scripted { script: vec![0.0, f64::NAN], diverge_at: None };
    let mut params = vec![0.0];
    let r = fit(&mut nan, &mut params, 5, Validation { every: 1, patience: 10 }).unwrap();
    assert!(matches!(r.stop, Termination::Diverged { step: 1, .. }));
    assert_eq!(params[0], 0.0);
}

fn small_cfg(seed: u64) -> GaussianisationConfig {
    GaussianisationConfig {
        blocks: 1,
        hidden: vec![8],
        tanh_k: 2,
        batch: 64,
        seed,
        bootstrap: 20,
        marginal_steps: 20,
        max_steps: 20,
        validation: Validation { every: 5, patience: 20 },
        ..GaussianisationConfig::default()
    }
}

#[test]
fn same_seed_same_numbers_other_seed_other_numbers() {
    let task = Transformed::cubic_y(CorrelatedGaussian::with_mi(3, 1.0).unwrap());
    let (x, y) = task.sample(600, &mut rng(5));
    let a = estimate(&x, &y, &small_cfg(1)).unwrap();
    let b = estimate(&x, &y, &small_cfg(1)).unwrap();
    let c = estimate(&x, &y, &small_cfg(2)).unwrap();
    assert_eq!((a.mi, a.interval, a.model_mi), (b.mi, b.interval, b.model_mi));
    assert_ne!(a.mi, c.mi);
}

#[test]
fn bad_input_is_a_typed_error() {
    let x = DMatrix::from_element(100, 2, 1.0);
    let mut y = DMatrix::from_fn(100, 2, |i, j| (i * 3 + j) as f64);
    let cfg = small_cfg(0);
    assert!(matches!(estimate(&x, &y.rows(0, 50).into_owned(), &cfg), Err(Error::Shape { .. })));
    y[(7, 1)] = f64::NAN;
    assert!(matches!(
        estimate(&DMatrix::from_fn(100, 2, |i, j| (i + j) as f64), &y, &cfg),
        Err(Error::NonFinite { .. })
    ));
    let ok = DMatrix::from_fn(100, 2, |i, j| ((i * 7 + j * 3) % 11) as f64);
    let bad = GaussianisationConfig { test_fraction: 1.5, ..cfg.clone() };
    assert!(matches!(estimate(&ok, &ok, &bad), Err(Error::Parameter { .. })));
    assert!(matches!(
        estimate(&ok.rows(0, 3).into_owned(), &ok.rows(0, 3).into_owned(), &cfg),
        Err(Error::Parameter { .. })
    ));
}

/// Independence: 5 + 5-d independent Gaussians with a cubed y, n = 4000 (800 test rows). Flows
/// fitted on training rows must not read dependence off the held-out rows: the basic-bootstrap
/// interval must reach down to 0 and the raw read-off must stay below the CCA's own
/// small-sample bias scale d_x·d_y/n_test (twice the ≈ d_x·d_y/(2n) expected at independence).
#[test]
fn independent_variables_read_near_zero() {
    let task = Transformed::cubic_y(CorrelatedGaussian::with_mi(5, 0.0).unwrap());
    let (x, y) = task.sample(4000, &mut rng(31));
    let cfg = GaussianisationConfig {
        blocks: 2,
        bootstrap: 200,
        max_steps: 300,
        validation: Validation { every: 50, patience: 300 },
        ..GaussianisationConfig::default()
    };
    let e = estimate(&x, &y, &cfg).unwrap();
    let (lo, hi) = e.interval.unwrap();
    eprintln!("independent: {:.4} [{lo:.4}, {hi:.4}], bias-corrected {:?}", e.mi, e.bias_corrected);
    assert_eq!(lo, 0.0, "interval [{lo}, {hi}] excludes 0");
    assert!(e.mi < 25.0 / e.rows.2 as f64, "read-off {} at independence", e.mi);
}

/// Unequal dimensions (d_x = 3, d_y = 2: the CCA initialisation completes a thin singular basis)
/// run end to end and read the two correlated pairs. The data are Gaussian (the 3-d correlated
/// Gaussian with 0.5 nat per pair, y's last coordinate dropped: I = 1.0), so the Gaussian read-off
/// of the raw rows is already right up to sampling, and the flows must not move the estimate away
/// from it by more than the read-off's own 95 % interval width. (A first version asked the
/// interval to cover the true 1.0; at this seed it does not — [0.816, 0.990] — because this
/// sample's own Gaussian MI is 0.957 and the interval covers only the test rows' resampling.)
#[test]
fn unequal_dimensions_run_end_to_end() {
    let task = CorrelatedGaussian::with_mi(3, 1.5).unwrap();
    let (x, y3) = task.sample(3000, &mut rng(8));
    let y = y3.columns(0, 2).into_owned();
    let cfg = GaussianisationConfig {
        blocks: 1,
        hidden: vec![8],
        max_steps: 200,
        validation: Validation { every: 50, patience: 200 },
        ..GaussianisationConfig::default()
    };
    let e = estimate(&x, &y, &cfg).unwrap();
    let raw = mibound::cca::gaussian_fit(x.as_view(), y.as_view()).unwrap().plugin;
    let (lo, hi) = e.interval.unwrap();
    eprintln!("unequal dimensions: {:.3} [{lo:.3}, {hi:.3}], raw rows {raw:.3}, canonical {:?}", e.mi, e.canonical);
    assert_eq!(e.canonical.len(), 2);
    assert!((e.mi - raw).abs() <= hi - lo, "flow read-off {} vs raw Gaussian read-off {raw}", e.mi);
}
