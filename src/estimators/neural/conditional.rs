//! Neural conditional MI by the chain rule: `I(X; Y | Z) = I(X; (Y, Z)) − I(X; Z)`.
//!
//! Both terms are estimated by the same held-out neural bound with the same settings and seed,
//! on the same folds: those of `(x, (y, z))`, whose identical rows stay together in both. The
//! estimate is the mean over folds of the per-fold differences, and its 95 % interval the
//! Nadeau–Bengio corrected t-interval of those differences ([`super::aggregate::fold_interval`]): pairing by
//! fold removes the fold-to-fold variation the two terms share. This is the "MI-Diff" estimator
//! of Mukherjee, Asnani & Kannan 2019 (*CCMI: Classifier based conditional mutual information
//! estimation*, UAI), with any of this crate's bounds in place of their classifier.
//!
//! A difference of two lower bounds is no bound: when the joint term is further below its truth
//! than the marginal term (the joint has more dimensions, and InfoNCE's ceiling `log N` binds
//! it first), the difference reads low, and it can be negative. Both happen, and are warned
//! about: a difference below zero is reported as it is, with a warning when its whole interval
//! lies below zero, and the warnings of both terms (the ceiling's among them) are carried over.

use super::{ValidNeuralConfig, estimate_bounds_grouped};
use crate::bounds::BoundSpec;
use crate::error::{Error, Result};
use crate::estimators::{
    Diagnostics, Estimate, Interval, Kind, Warning, WarningCode, check_given, check_inputs, side_by_side,
};
use crate::train::Progress;
use nalgebra::DMatrixView;

/// `I(X; Y | Z)` from the neural bound `bound` by the chain rule (module docs). `progress`, when
/// given, counts the training steps of both terms.
pub fn conditional_estimate(
    bound: BoundSpec,
    cfg: &ValidNeuralConfig,
    (x, y, z): (DMatrixView<'_, f64>, DMatrixView<'_, f64>, DMatrixView<'_, f64>),
    seed: u64,
    progress: Option<&dyn Progress>,
) -> Result<Estimate> {
    let started = std::time::Instant::now();
    check_inputs(x, y, 2)?;
    check_given(x, z)?;
    if !cfg.labels.is_empty() {
        return Err(Error::param(
            "labels",
            "declared",
            "the neural chain rule reads every column as a number: estimate I(X; Y | Z) without labels",
        ));
    }
    let yz = side_by_side(y, z);
    // Both terms on the folds of (x, (y, z)), so their fold values pair exactly.
    let term = |b: DMatrixView<'_, f64>| -> Result<Estimate> {
        let run = estimate_bounds_grouped(&[bound], cfg, (x, b), yz.as_view(), seed, progress)?;
        Ok(run.estimates.into_iter().next().expect("one estimate per bound"))
    };
    let joint = term(yz.as_view())?;
    let given = term(z)?;
    let diffs: Vec<f64> = joint.diagnostics.folds.iter().zip(&given.diagnostics.folds).map(|(a, b)| a - b).collect();
    let (mean, half) = super::aggregate::fold_interval(&diffs)?;
    let mut warnings = Vec::new();
    for (what, e) in [("I(X; (Y, Z))", &joint), ("I(X; Z)", &given)] {
        for w in &e.diagnostics.warnings {
            let mut w = w.clone();
            w.message = format!("{what}: {}", w.message);
            if !warnings.iter().any(|o: &Warning| o.message == w.message) {
                warnings.push(w);
            }
        }
    }
    if mean + half < 0.0 {
        let message = format!(
            "the difference of the two held-out terms is below zero, interval included ({mean:.3} = {:.3} − {:.3}): conditional MI is never negative, so the joint term is underestimated; read it as no evidence of conditional dependence",
            joint.value, given.value
        );
        warnings
            .push(Warning::new(WarningCode::Negative, message).with("joint", joint.value).with("given", given.value));
    }
    let diagnostics = Diagnostics {
        warnings,
        steps: Some(joint.diagnostics.steps.unwrap_or(0) + given.diagnostics.steps.unwrap_or(0)),
        diverged: joint.diagnostics.diverged || given.diagnostics.diverged,
        folds: diffs,
        values: [("joint".to_string(), joint.value), ("given".to_string(), given.value)].into_iter().collect(),
    };
    let interval =
        Interval::new(mean - half, mean + half, format!("t over {} paired folds, Nadeau-Bengio corrected", cfg.folds));
    let mut e = Estimate::new(
        format!("{bound}|z"),
        format!("{} chain rule", joint.label),
        mean,
        interval,
        Kind::Estimate,
        (x.nrows(), x.ncols(), y.ncols()),
    )
    .with_settings(joint.settings)
    .with_diagnostics(diagnostics);
    e.wall_seconds = started.elapsed().as_secs_f64();
    Ok(e)
}
