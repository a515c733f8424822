//! The estimator benchmark: every estimator on every task, as one resumable, shardable list of
//! runs (`mibound benchmark`), and the comparison table and figures made from its results
//! (`mibound benchmark report`). docs/benchmark.md has the results and how to run it on Slurm.
//!
//! - A [`Config`] (TOML or JSON, or [`Config::default_full`] / [`Config::quick`]) lists tasks,
//!   estimators, sample sizes and seeds; [`Config::plan`] checks every name and expands it into
//!   runs sorted by [`RunKey`] (task, estimator, n, seed).
//! - [`run`] does the runs of one [`Shard`] that are not yet in the results file, in parallel
//!   (rayon across runs), appending one JSON line ([`RunRecord`]) per finished run with a
//!   single write, so a killed runner loses at most the runs in flight.
//! - [`report::merge`] reads any number of results files (duplicates removed, conflicts
//!   reported) and [`report::write`] makes the markdown table and the figures.
//!
//! The samples of a run depend only on (task, n, seed) through [`sample_seed`], so every
//! estimator sees the same data and a run gives the same numbers on any shard or thread count.

mod config;
pub mod report;
mod runner;

pub use config::{Config, DEFAULT_CLASSICAL, DEFAULT_NEURAL, Plan, PlannedRun, expand_tasks};
pub use runner::{RunOptions, RunSummary, read_results, run, run_one};

use crate::error::{Error, Result};
use crate::estimators::Kind;
use crate::rng::{Stream, fnv1a, splitmix64};
use serde::{Deserialize, Serialize};

/// What identifies a run: the task id, the canonical estimator name, the sample size and the
/// seed. Runs are sorted by key (task, then estimator, then n, then seed).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct RunKey {
    /// Task id.
    pub task: String,
    /// Canonical estimator name (`ksg:k=5`, `smile:5`).
    pub estimator: String,
    /// Sample size.
    pub n: usize,
    /// Seed.
    pub seed: u64,
}

impl std::fmt::Display for RunKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} · {} · n={} · seed={}", self.task, self.estimator, self.n, self.seed)
    }
}

/// A 95 % interval as stored in a results file (`null` ends when not finite).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordInterval {
    /// Lower end in nats.
    pub low: Option<f64>,
    /// Upper end in nats.
    pub high: Option<f64>,
    /// Nominal coverage.
    pub level: f64,
    /// How it was computed.
    pub method: String,
}

/// One line of a results file: one finished run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// Task id.
    pub task: String,
    /// Canonical estimator name.
    pub estimator: String,
    /// Sample size.
    pub n: usize,
    /// Seed.
    pub seed: u64,
    /// The seed the samples were drawn with ([`sample_seed`]).
    pub sample_seed: u64,
    /// The estimate in nats (`null` when the run failed or gave a non-finite value).
    pub estimate: Option<f64>,
    /// Its 95 % interval.
    pub interval: Option<RecordInterval>,
    /// What the estimate is (lower, upper-if-exact, estimate).
    pub kind: Option<Kind>,
    /// The task's true MI in nats.
    pub true_mi: f64,
    /// `estimate − true_mi` in nats.
    pub error: Option<f64>,
    /// Wall-clock seconds of the estimate (sampling excluded).
    pub wall_seconds: f64,
    /// Training steps (summed over folds), for estimators that train.
    #[serde(default)]
    pub steps: Option<u64>,
    /// The estimator's warnings.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// Why the run failed (the estimator's error), if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// Dimension of x.
    pub dim_x: usize,
    /// Dimension of y.
    pub dim_y: usize,
    /// The settings not in the estimator's name ([`PlannedRun::settings`]).
    #[serde(default)]
    pub settings: String,
}

impl RunRecord {
    /// The run's key.
    pub fn key(&self) -> RunKey {
        RunKey { task: self.task.clone(), estimator: self.estimator.clone(), n: self.n, seed: self.seed }
    }

    /// Whether two records of one key hold the same result: everything but the wall time.
    pub fn same_result(&self, other: &RunRecord) -> bool {
        let strip = |r: &RunRecord| RunRecord { wall_seconds: 0.0, ..r.clone() };
        strip(self) == strip(other)
    }
}

/// A deterministic `i`-th of `n` part of a plan: after sorting by key, run `j` (0-based) belongs
/// to shard `j mod n + 1`. Written `i/n` with `1 ≤ i ≤ n` (Slurm's `--array=1-N` gives `i`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 1-based index.
    pub index: usize,
    /// Number of shards.
    pub count: usize,
}

impl Default for Shard {
    /// The whole plan (`1/1`).
    fn default() -> Self {
        Shard { index: 1, count: 1 }
    }
}

impl Shard {
    /// Whether the `j`-th run (0-based, in key order) belongs to this shard.
    pub fn contains(&self, j: usize) -> bool {
        j % self.count == self.index - 1
    }
}

impl std::str::FromStr for Shard {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let bad = || Error::param("shard", s, "expected i/n with 1 ≤ i ≤ n, e.g. 1/4");
        let (i, n) = s.trim().split_once('/').ok_or_else(bad)?;
        let (index, count): (usize, usize) =
            (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if count == 0 || index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The seed a run's samples are drawn with: a hash (FNV-1a, then SplitMix64) of the task id,
/// n and the seed — the same on every platform, and the same for every estimator.
pub fn sample_seed(task: &str, n: usize, seed: u64) -> u64 {
    splitmix64(fnv1a(task.bytes().chain([0]).chain((n as u64).to_le_bytes()).chain(seed.to_le_bytes())))
}

/// The seed the estimator is given (folds, critic initialisation, batches): derived from the
/// sample seed, so also the same for every estimator of a (task, n, seed).
pub fn estimator_seed(sample_seed: u64) -> u64 {
    splitmix64(Stream::Estimator.seed(sample_seed))
}
