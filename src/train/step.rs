//! One training step — critic forward, bound, backward, Adam — with every buffer allocated up
//! front, so the steady-state step does not touch the heap (tested with a counting allocator).

use super::problem::{Cursor, Data};
use super::results::StepRecord;
use crate::bounds::Bound;
use crate::critics::Critic;
use crate::error::{Error, Result};
use crate::optim::Adam;
use crate::real::Real;
use crate::rng::Xoshiro;
use nalgebra::DMatrix;

/// How often (in steps) the parameters are scanned for NaN/Inf; the loss and the gradient norm
/// are checked every step.
pub const PARAM_CHECK_EVERY: u64 = 50;

/// A quantity evaluated on every step's scores without being trained: another bound on the
/// same score matrix, or the critic's closed-form variational upper bound.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "monitor", rename_all = "lowercase")]
pub enum Monitor {
    /// A bound evaluated on the same scores.
    Bound {
        /// Which bound.
        spec: crate::bounds::BoundSpec,
    },
    /// `E_x KL(q(y|x) ‖ r)` of a conditional critic (see [`Critic::variational_upper_bound`]).
    Vub,
}

/// The state and workspace of one training step.
pub struct TrainStep<T: Real> {
    /// The critic.
    pub critic: Box<dyn Critic<T>>,
    /// The bound whose objective is maximised.
    pub bound: Box<dyn Bound<T>>,
    /// Bounds evaluated on the same scores each step (`None` = the critic's VUB).
    pub monitors: Vec<Option<Box<dyn Bound<T>>>>,
    /// The monitors' values at the last step.
    pub monitor_values: Vec<f64>,
    scratch: DMatrix<T>,
    /// The optimiser state.
    pub adam: Adam<T>,
    x64: DMatrix<f64>,
    y64: DMatrix<f64>,
    x: DMatrix<T>,
    y: DMatrix<T>,
    s: DMatrix<T>,
    ds: DMatrix<T>,
    grads: Vec<T>,
    /// A learned log-baseline `ln a(y)` feeding the bound (TUBA, I_α), trained on the same steps.
    pub baseline: Option<super::baseline::LearnedBaseline<T>>,
}

impl<T: Real> TrainStep<T> {
    /// A step for batches of `batch` samples of dimensions `dims`.
    pub fn new(
        critic: Box<dyn Critic<T>>,
        bound: Box<dyn Bound<T>>,
        adam: Adam<T>,
        batch: usize,
        dims: (usize, usize),
    ) -> Self {
        let np = critic.n_params();
        TrainStep {
            critic,
            bound,
            adam,
            x64: DMatrix::zeros(batch, dims.0),
            y64: DMatrix::zeros(batch, dims.1),
            x: DMatrix::zeros(batch, dims.0),
            y: DMatrix::zeros(batch, dims.1),
            s: DMatrix::zeros(batch, batch),
            ds: DMatrix::zeros(batch, batch),
            monitors: Vec::new(),
            monitor_values: Vec::new(),
            scratch: DMatrix::zeros(batch, batch),
            grads: vec![T::zero(); np],
            baseline: None,
        }
    }

    /// Adds a learned log-baseline; an error if the bound takes none.
    pub fn with_baseline(mut self, baseline: super::baseline::LearnedBaseline<T>) -> Result<Self> {
        if !self.bound.takes_log_baseline() {
            return Err(Error::param("learned baseline", self.bound.name(), "only TUBA and I_α take a baseline"));
        }
        self.baseline = Some(baseline);
        Ok(self)
    }

    /// Adds monitors (built for this scalar type).
    pub fn with_monitors(mut self, monitors: &[Monitor]) -> crate::error::Result<Self> {
        for m in monitors {
            self.monitors.push(match m {
                Monitor::Bound { spec } => Some(spec.build::<T>()?),
                Monitor::Vub => None,
            });
        }
        self.monitor_values = vec![f64::NAN; self.monitors.len()];
        Ok(self)
    }

    /// The score matrix of the last step.
    pub fn scores(&self) -> &DMatrix<T> {
        &self.s
    }

    /// Runs step `step` on `params`: draws a batch, evaluates the bound on the critic's scores
    /// and takes one Adam step on `−objective`. Returns the step's record; a non-finite bound,
    /// gradient or parameter is an [`Error::Diverged`] naming the step.
    pub fn run(
        &mut self,
        params: &mut [T],
        data: &Data,
        rng: &mut Xoshiro,
        cursor: &mut Cursor,
        step: u64,
    ) -> Result<StepRecord> {
        data.fill(step, rng, cursor, &mut self.x64, &mut self.y64);
        self.x.zip_apply(&self.x64, |a, b| *a = T::of(b));
        self.y.zip_apply(&self.y64, |a, b| *a = T::of(b));
        self.critic.scores(params, &self.x, &self.y, &mut self.s)?;
        if let Some(b) = &mut self.baseline {
            b.forward(&self.y, self.bound.as_mut())
                .map_err(|e| Error::Diverged { step: step as usize, what: format!("learned baseline: {e}") })?;
        }
        let v = self.bound.evaluate(&self.s, &mut self.ds)?;
        if !v.value.is_finite() || !v.objective.is_finite() {
            return Err(Error::Diverged {
                step: step as usize,
                what: format!("bound value {} (objective {})", v.value, v.objective),
            });
        }
        for (m, out) in self.monitors.iter_mut().zip(self.monitor_values.iter_mut()) {
            *out = match m {
                Some(b) => b.evaluate(&self.s, &mut self.scratch)?.value,
                None => self.critic.variational_upper_bound().unwrap_or(f64::NAN),
            };
        }
        // The bound returns ∂objective/∂S; backprop is linear in it, so the parameter gradient
        // is that of the objective, which Adam ascends.
        self.critic.backward(params, &self.ds, &mut self.grads)?;
        self.adam
            .ascend(params, &self.grads)
            .map_err(|_| Error::Diverged { step: step as usize, what: "gradient norm is not finite".into() })?;
        self.critic.after_step(params);
        if let Some(b) = &mut self.baseline {
            b.step(&self.y, self.bound.as_ref()).map_err(|_| Error::Diverged {
                step: step as usize,
                what: "learned baseline: gradient norm is not finite".into(),
            })?;
        }
        if step % PARAM_CHECK_EVERY == 0
            && let Some(k) = params.iter().position(|p| !p.finite())
        {
            return Err(Error::Diverged { step: step as usize, what: format!("parameter {k} is not finite") });
        }
        Ok(StepRecord { step, value: v.value, objective: v.objective, true_mi: data.true_mi(step) })
    }
}
