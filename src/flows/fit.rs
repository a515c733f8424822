//! Fitting a flow model with the crate's one training loop ([`crate::train::Runner`]):
//! validate every `k` steps, keep the best validated parameters, stop after `patience` steps
//! without improvement, and on divergence (or a non-finite validation) stop with the best
//! validated parameters so far. The limits are the runner's own ([`Validation`], a step
//! limit), and so is the reason it stopped ([`Termination`]); [`FitReport`] is the flows' summary
//! of the run.

use crate::error::Result;
use crate::real::Real;
use crate::train::{Runner, StepRecord, Termination, Validation};
use serde::{Deserialize, Serialize};

pub use crate::train::Trainable;

/// What a [`fit`] run did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitReport {
    /// Steps taken.
    pub steps: u64,
    /// The step whose parameters were kept (0 = the initialisation).
    pub best_step: u64,
    /// Their validation objective.
    pub best_validation: f64,
    /// Why it stopped: the step limit, patience ([`Termination::Patience`]) or a divergence
    /// (the parameters are then the best validated ones before it).
    pub stop: Termination,
    /// `(step, validation objective)` of every validation.
    pub validations: Vec<(u64, f64)>,
    /// The last step's record.
    pub last: Option<StepRecord>,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// Trains `problem` from `params` with the crate's one training loop
/// ([`crate::train::Runner`]) for at most `max_steps` steps, with `validation`, leaving the best
/// validated parameters in `params`. Errors when the limits are invalid (no steps, a validation
/// interval of 0) or the initial validation is not finite.
pub fn fit<T: Real>(
    problem: &mut dyn Trainable<T>,
    params: &mut [T],
    max_steps: u64,
    validation: Validation,
) -> Result<FitReport> {
    let out = Runner::new(max_steps).validate(validation).run(problem, params.to_vec())?;
    params.copy_from_slice(&out.params);
    let best_step = out.best_step.unwrap_or(0);
    let best_validation = out.validations.iter().find(|v| v.0 == best_step).map_or(f64::NAN, |v| v.1);
    Ok(FitReport {
        steps: out.records.len() as u64,
        best_step,
        best_validation,
        stop: out.termination,
        validations: out.validations,
        last: out.records.last().copied(),
        seconds: out.wall_seconds,
    })
}
