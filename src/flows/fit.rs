//! Fitting a flow model with the crate's one training loop ([`crate::train::Runner`]):
//! validate every `k` steps, keep the best validated parameters, stop after `patience` steps
//! without improvement, and on divergence (or a non-finite validation) stop with the best
//! validated parameters so far. [`FitConfig`] and [`FitReport`] are the flows' view of it.

use crate::error::{Error, Result};
use crate::real::Real;
use crate::train::{Runner, StepRecord, Termination, Validation};
use serde::{Deserialize, Serialize};

pub use crate::train::Trainable;

/// When to validate and when to stop.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitConfig {
    /// Steps to run at most.
    pub max_steps: u64,
    /// Validate every this many steps (and before the first step).
    pub validate_every: u64,
    /// Stop after this many steps without a better validation objective.
    pub patience: u64,
}

/// Why the loop stopped.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Stop {
    /// `max_steps` reached.
    MaxSteps,
    /// `patience` steps without improvement.
    Patience,
    /// A step diverged; the parameters are the best validated ones before it.
    Diverged {
        /// The step.
        step: u64,
        /// What was non-finite.
        what: String,
    },
}

/// What a [`fit`] run did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitReport {
    /// Steps taken.
    pub steps: u64,
    /// The step whose parameters were kept (0 = the initialisation).
    pub best_step: u64,
    /// Their validation objective.
    pub best_validation: f64,
    /// Why it stopped.
    pub stop: Stop,
    /// `(step, validation objective)` of every validation.
    pub validations: Vec<(u64, f64)>,
    /// The last step's record.
    pub last: Option<StepRecord>,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// Trains `problem` from `params` with the crate's one training loop
/// ([`crate::train::Runner`], with validation and patience), leaving the best validated
/// parameters in `params`. Errors when the configuration is invalid or the initial validation is
/// not finite.
pub fn fit<T: Real>(problem: &mut dyn Trainable<T>, params: &mut [T], cfg: &FitConfig) -> Result<FitReport> {
    if cfg.validate_every == 0 {
        return Err(Error::param("validate_every", 0, "must be at least 1"));
    }
    let mut runner =
        Runner::new(cfg.max_steps).validate(Validation { every: cfg.validate_every, patience: cfg.patience });
    let out = runner.run(problem, params.to_vec())?;
    if let Some(&(0, v0)) = out.validations.first()
        && !v0.is_finite()
    {
        return Err(Error::Diverged { step: 0, what: format!("initial validation objective {v0}") });
    }
    params.copy_from_slice(&out.params);
    let best_step = out.best_step.unwrap_or(0);
    let best_validation = out.validations.iter().find(|v| v.0 == best_step).map_or(f64::NAN, |v| v.1);
    let stop = match out.termination {
        Termination::MaxSteps => Stop::MaxSteps,
        Termination::Patience { .. } | Termination::EarlyStop { .. } => Stop::Patience,
        Termination::Diverged { step, what } => Stop::Diverged { step: step as u64, what },
    };
    Ok(FitReport {
        steps: out.records.len() as u64,
        best_step,
        best_validation,
        stop,
        validations: out.validations,
        last: out.records.last().copied(),
        seconds: out.wall_seconds,
    })
}
