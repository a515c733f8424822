//! The [`Trainable`] trait and a tiny training loop over it (to be replaced by the crate's
//! runner at merge): validate every `k` steps, keep the best validated parameters, stop after
//! `patience` steps without improvement, and on divergence stop with the best validated
//! parameters so far.

use crate::error::{Error, Result};
use crate::real::Real;
use crate::train::StepRecord;
use serde::{Deserialize, Serialize};

/// Something the runner trains: one optimisation step at a time on a flat parameter vector.
pub trait Trainable<T: Real>: Send {
    /// One step: draw a batch (from its own seeded generator), compute objective and gradient,
    /// update `params` (Adam). A non-finite objective, gradient or parameter is
    /// `Err(Error::Diverged { step, what })`.
    fn step(&mut self, params: &mut [T], step: u64) -> Result<StepRecord>;
    /// The objective (higher is better, e.g. mean held-out log-likelihood) on validation rows,
    /// for model selection.
    fn validate(&mut self, params: &[T]) -> Result<f64>;
}

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

/// Trains `problem` from `params`, leaving the best validated parameters in `params`.
/// Errors when the configuration is invalid or the initial validation is not finite.
pub fn fit<T: Real, P: Trainable<T> + ?Sized>(problem: &mut P, params: &mut [T], cfg: &FitConfig) -> Result<FitReport> {
    if cfg.validate_every == 0 {
        return Err(Error::param("validate_every", 0, "must be at least 1"));
    }
    let start = std::time::Instant::now();
    let v0 = problem.validate(params)?;
    if !v0.is_finite() {
        return Err(Error::Diverged { step: 0, what: format!("initial validation objective {v0}") });
    }
    let mut best = params.to_vec();
    let (mut best_step, mut best_v) = (0u64, v0);
    let mut validations = vec![(0, v0)];
    let mut last = None;
    let mut stop = Stop::MaxSteps;
    let mut step = 0u64;
    while step < cfg.max_steps {
        match problem.step(params, step) {
            Ok(r) => last = Some(r),
            Err(Error::Diverged { step: s, what }) => {
                stop = Stop::Diverged { step: s as u64, what };
                break;
            }
            Err(e) => return Err(e),
        }
        step += 1;
        if step % cfg.validate_every == 0 || step == cfg.max_steps {
            let v = problem.validate(params)?;
            validations.push((step, v));
            if !v.is_finite() {
                stop = Stop::Diverged { step, what: format!("validation objective {v}") };
                break;
            }
            if v > best_v {
                best_v = v;
                best_step = step;
                best.copy_from_slice(params);
            } else if step - best_step >= cfg.patience {
                stop = Stop::Patience;
                break;
            }
        }
    }
    params.copy_from_slice(&best);
    Ok(FitReport {
        steps: step,
        best_step,
        best_validation: best_v,
        stop,
        validations,
        last,
        seconds: start.elapsed().as_secs_f64(),
    })
}
