//! What a critic is trained on: a stream of fresh batches from samplers following an MI
//! schedule, or a fixed data set with a train/test split and shuffled epochs.

use crate::data::Sampler;
use crate::error::{Error, Result};
use crate::rng::{Xoshiro, shuffle};
use crate::tasks::Parametric;
use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

/// How the true MI of a stream changes with the step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "schedule", rename_all = "lowercase")]
pub enum Schedule {
    /// One level for the whole run.
    Constant {
        /// True MI in nats.
        mi: f64,
    },
    /// Levels held for `steps_per_level` steps each (Poole et al.'s staircase: 2, 4, 6, 8, 10
    /// nats × 4000 steps); the last level continues if the run is longer.
    Staircase {
        /// True MI of each level, in nats.
        levels: Vec<f64>,
        /// Steps per level.
        steps_per_level: u64,
    },
}

impl Schedule {
    /// Poole et al. 2019's staircase: 2, 4, 6, 8, 10 nats.
    pub fn poole(steps_per_level: u64) -> Self {
        Schedule::Staircase { levels: vec![2.0, 4.0, 6.0, 8.0, 10.0], steps_per_level }
    }

    /// The levels (one for a constant schedule).
    pub fn levels(&self) -> Vec<f64> {
        match self {
            Schedule::Constant { mi } => vec![*mi],
            Schedule::Staircase { levels, .. } => levels.clone(),
        }
    }

    /// Total steps of the full schedule, if it has a natural length.
    pub fn natural_steps(&self) -> Option<u64> {
        match self {
            Schedule::Constant { .. } => None,
            Schedule::Staircase { levels, steps_per_level } => Some(levels.len() as u64 * steps_per_level),
        }
    }

    /// The level index in force at `step`.
    pub fn level_at(&self, step: u64) -> usize {
        match self {
            Schedule::Constant { .. } => 0,
            Schedule::Staircase { levels, steps_per_level } => {
                ((step / (*steps_per_level).max(1)) as usize).min(levels.len().saturating_sub(1))
            }
        }
    }
}

/// A fixed data set (rows = samples) split into a training and a test part.
#[derive(Clone, Debug)]
pub struct Dataset {
    /// All `x` samples, `n × dim_x`.
    pub x: DMatrix<f64>,
    /// All `y` samples, `n × dim_y`.
    pub y: DMatrix<f64>,
    /// Row indices of the training part.
    pub train: Vec<usize>,
    /// Row indices of the held-out part.
    pub test: Vec<usize>,
}

impl Dataset {
    /// Splits `n` rows at random (seeded) into `1 − test_fraction` for training and the rest for
    /// testing.
    pub fn split(x: DMatrix<f64>, y: DMatrix<f64>, test_fraction: f64, seed: u64) -> Result<Self> {
        if x.nrows() != y.nrows() {
            return Err(Error::Shape {
                what: "data set".into(),
                expected: format!("{} rows in y", x.nrows()),
                got: format!("{}", y.nrows()),
            });
        }
        if !(0.0..1.0).contains(&test_fraction) {
            return Err(Error::param("test fraction", test_fraction, "must lie in [0, 1)"));
        }
        let n = x.nrows();
        let mut idx: Vec<usize> = (0..n).collect();
        shuffle(&mut idx, &mut crate::rng::rng(seed));
        let n_test = (n as f64 * test_fraction).round() as usize;
        let test = idx.split_off(n - n_test);
        Ok(Dataset { x, y, train: idx, test })
    }

    /// Gathers the rows `idx` of `x` and `y`.
    pub fn rows(&self, idx: &[usize]) -> (DMatrix<f64>, DMatrix<f64>) {
        (self.x.select_rows(idx), self.y.select_rows(idx))
    }
}

/// Position in the shuffled epochs of a [`Dataset`]; part of a checkpoint.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Cursor {
    order: Vec<usize>,
    pos: usize,
    /// Completed epochs.
    pub epochs: u64,
}

/// The data a run trains on (it never changes during a run).
pub enum Data {
    /// A fresh batch from the sampler of the level in force each step.
    Stream {
        /// One sampler per schedule level.
        samplers: Vec<Box<dyn Sampler>>,
        /// The schedule.
        schedule: Schedule,
    },
    /// Shuffled epochs over the training rows of a data set.
    Dataset(Dataset),
}

impl Data {
    /// A stream of `task` following `schedule`.
    pub fn stream(task: Parametric, schedule: Schedule) -> Result<Self> {
        let samplers = schedule.levels().iter().map(|&mi| task.at_mi(mi)).collect::<Result<Vec<_>>>()?;
        if samplers.is_empty() {
            return Err(Error::param("schedule", "[]", "needs at least one level"));
        }
        Ok(Data::Stream { samplers, schedule })
    }

    /// A stream from one sampler.
    pub fn from_sampler(sampler: Box<dyn Sampler>) -> Self {
        let mi = sampler.true_mi();
        Data::Stream { samplers: vec![sampler], schedule: Schedule::Constant { mi } }
    }

    /// `(dim_x, dim_y)`.
    pub fn dims(&self) -> (usize, usize) {
        match self {
            Data::Stream { samplers, .. } => (samplers[0].dim_x(), samplers[0].dim_y()),
            Data::Dataset(d) => (d.x.ncols(), d.y.ncols()),
        }
    }

    /// The true MI at `step`, when known.
    pub fn true_mi(&self, step: u64) -> Option<f64> {
        match self {
            Data::Stream { samplers, schedule } => Some(samplers[schedule.level_at(step)].true_mi()),
            Data::Dataset(_) => None,
        }
    }

    /// `H(Y)` at `step`, when the data's distribution has an analytic one.
    pub fn entropy_y(&self, step: u64) -> Option<f64> {
        match self {
            Data::Stream { samplers, schedule } => samplers[schedule.level_at(step)].entropy_y(),
            Data::Dataset(_) => None,
        }
    }

    /// Checks that batches of `batch` rows can be drawn.
    pub fn check_batch(&self, batch: usize) -> Result<()> {
        if batch < 2 {
            return Err(Error::param("batch size", batch, "must be at least 2"));
        }
        if let Data::Dataset(d) = self
            && d.train.len() < batch
        {
            return Err(Error::param(
                "batch size",
                batch,
                &format!("exceeds the {} training rows (lower --batch or use more data)", d.train.len()),
            ));
        }
        Ok(())
    }

    /// Fills `x`, `y` (`batch × dim`) with the batch of `step`. No allocation in steady state.
    pub fn fill(&self, step: u64, rng: &mut Xoshiro, cursor: &mut Cursor, x: &mut DMatrix<f64>, y: &mut DMatrix<f64>) {
        match self {
            Data::Stream { samplers, schedule } => samplers[schedule.level_at(step)].sample_into(rng, x, y),
            Data::Dataset(d) => {
                let n = x.nrows();
                for r in 0..n {
                    if cursor.pos >= cursor.order.len() {
                        if cursor.order.len() != d.train.len() {
                            cursor.order = d.train.clone();
                        }
                        shuffle(&mut cursor.order, rng);
                        cursor.pos = 0;
                        cursor.epochs += 1;
                    }
                    let src = cursor.order[cursor.pos];
                    cursor.pos += 1;
                    for k in 0..x.ncols() {
                        x[(r, k)] = d.x[(src, k)];
                    }
                    for k in 0..y.ncols() {
                        y[(r, k)] = d.y[(src, k)];
                    }
                }
            }
        }
    }
}
