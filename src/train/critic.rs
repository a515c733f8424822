//! A critic and its bound as a [`Trainable`]: what the runner trains for the staircase
//! figures, `mibound train` and the held-out neural estimates.

use super::problem::{Cursor, Data};
use super::results::StepRecord;
use super::runner::Trainable;
use super::step::TrainStep;
use crate::bounds::Bound;
use crate::critics::Critic;
use crate::error::{Error, Result};
use crate::real::Real;
use crate::rng::{Xoshiro, rng, shuffle};
use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

/// Held-out rows on which the training objective is checked.
struct ValidationSet<T: Real> {
    bound: Box<dyn Bound<T>>,
    batches: Vec<Vec<usize>>,
}

/// A [`TrainStep`] with its data, generator and cursor: one runner step is one Adam step of
/// the critic on a fresh batch.
pub struct CriticTrainer<'d, T: Real> {
    /// The step (critic, bound, Adam and their buffers).
    pub step: TrainStep<T>,
    data: &'d Data,
    rng: Xoshiro,
    cursor: Cursor,
    /// Monitor values, `steps × monitors`, row after row.
    pub monitor_trace: Vec<f64>,
    validation: Option<ValidationSet<T>>,
}

/// What a checkpoint holds besides the parameters.
#[derive(Serialize, Deserialize)]
struct State<T> {
    adam: crate::optim::Adam<T>,
    rng: Xoshiro,
    cursor: Cursor,
    bound_state: Vec<f64>,
    monitor_states: Vec<Vec<f64>>,
    monitor_trace: Vec<f64>,
}

impl<'d, T: Real> CriticTrainer<'d, T> {
    /// A trainer drawing batches from `data` with `rng`; `capacity` steps are expected.
    pub fn new(step: TrainStep<T>, data: &'d Data, rng: Xoshiro, capacity: usize) -> Self {
        let monitor_trace = Vec::with_capacity(capacity * step.monitors.len());
        CriticTrainer { step, data, rng, cursor: Cursor::default(), monitor_trace, validation: None }
    }

    /// Validates with `bound`'s objective on `batches` of rows of the data set (the same rows at
    /// every check, so checks are paired comparisons of parameters).
    pub fn with_validation(mut self, bound: Box<dyn Bound<T>>, batches: Vec<Vec<usize>>) -> Result<Self> {
        if !matches!(self.data, Data::Dataset(_)) || batches.is_empty() {
            return Err(Error::param("validation", "(none)", "needs a data set and at least one batch of rows"));
        }
        self.validation = Some(ValidationSet { bound, batches });
        Ok(self)
    }
}

impl<T: Real> Trainable<T> for CriticTrainer<'_, T> {
    fn step(&mut self, params: &mut [T], step: u64) -> Result<StepRecord> {
        let rec = self.step.run(params, self.data, &mut self.rng, &mut self.cursor, step)?;
        self.monitor_trace.extend_from_slice(&self.step.monitor_values);
        Ok(rec)
    }

    fn validate(&mut self, params: &[T]) -> Result<f64> {
        let (Some(v), Data::Dataset(d)) = (&mut self.validation, self.data) else {
            return Err(Error::param("validation", "(none)", "no validation rows were given"));
        };
        let bounds = std::slice::from_mut(&mut v.bound);
        Ok(evaluate_batches(self.step.critic.as_mut(), params, bounds, &d.x, &d.y, &v.batches)?[0].1)
    }

    fn save(&self) -> Result<serde_json::Value> {
        let st = State {
            adam: self.step.adam.clone(),
            rng: self.rng.clone(),
            cursor: self.cursor.clone(),
            bound_state: self.step.bound.state(),
            monitor_states: self.step.monitors.iter().map(|m| m.as_ref().map_or(Vec::new(), |b| b.state())).collect(),
            monitor_trace: self.monitor_trace.clone(),
        };
        serde_json::to_value(st).map_err(|e| Error::Format { context: "checkpoint".into(), msg: e.to_string() })
    }

    fn restore(&mut self, state: serde_json::Value) -> Result<()> {
        let st: State<T> = serde_json::from_value(state)
            .map_err(|e| Error::Format { context: "checkpoint".into(), msg: e.to_string() })?;
        if st.monitor_states.len() != self.step.monitors.len() {
            return Err(Error::Format { context: "checkpoint".into(), msg: "monitor count does not match".into() });
        }
        let threads = self.step.adam.threads();
        self.step.adam = st.adam;
        self.step.adam.set_threads(threads);
        self.step.bound.restore(&st.bound_state)?;
        for (m, s) in self.step.monitors.iter_mut().zip(&st.monitor_states) {
            if let Some(b) = m {
                b.restore(s)?;
            }
        }
        self.rng = st.rng;
        self.cursor = st.cursor;
        self.monitor_trace = st.monitor_trace;
        Ok(())
    }
}

/// `count` random subsets of `batch` rows of `idx` (each without repeats), drawn once from
/// `seed`. For validation every check compares parameters on the same rows (paired); for a test
/// fold the mean over many random batches uses every row, where disjoint batches of N would
/// leave up to N − 1 rows unused. Each batch is an i.i.d. sample of held-out pairs, so the mean
/// is unbiased for the bound at batch size N.
pub fn random_batches(idx: &[usize], batch: usize, count: usize, seed: u64) -> Vec<Vec<usize>> {
    let mut g = rng(seed);
    let mut pool = idx.to_vec();
    (0..count)
        .map(|_| {
            shuffle(&mut pool, &mut g);
            pool[..batch.min(pool.len())].to_vec()
        })
        .collect()
}

/// Mean `(value, objective)` of each bound on the critic's scores over the given batches of
/// rows of `x` and `y`.
pub fn evaluate_batches<T: Real>(
    critic: &mut dyn Critic<T>,
    params: &[T],
    bounds: &mut [Box<dyn Bound<T>>],
    x: &DMatrix<f64>,
    y: &DMatrix<f64>,
    batches: &[Vec<usize>],
) -> Result<Vec<(f64, f64)>> {
    let mut sums = vec![(0.0, 0.0); bounds.len()];
    let (mut s, mut g) = (DMatrix::zeros(0, 0), DMatrix::zeros(0, 0));
    for rows in batches {
        let xb = x.select_rows(rows).map(T::of);
        let yb = y.select_rows(rows).map(T::of);
        critic.scores(params, &xb, &yb, &mut s)?;
        for (b, sum) in bounds.iter_mut().zip(sums.iter_mut()) {
            let v = b.evaluate(&s, &mut g)?;
            sum.0 += v.value;
            sum.1 += v.objective;
        }
    }
    let k = batches.len().max(1) as f64;
    Ok(sums.into_iter().map(|(v, o)| (v / k, o / k)).collect())
}
