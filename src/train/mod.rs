//! Training: problem (the data) → step (critic forward, bound, backward, Adam) → runner
//! (argmin's `Executor`: stopping, observers, checkpoints) → results.
//!
//! ```no_run
//! use mibound::bounds::BoundSpec;
//! use mibound::critics::CriticSpec;
//! use mibound::data::Task;
//! use mibound::train::{train, Data, Schedule, TrainConfig};
//!
//! let data = Data::stream(Task::Gaussian { dim: 20 }, Schedule::poole(4000)).unwrap();
//! let cfg = TrainConfig::new(CriticSpec::poole_separable(), BoundSpec::InfoNce, 64, 20_000);
//! let run = train::<f32>(&data, &cfg).unwrap();
//! for level in run.levels(4000, 0.2) {
//!     println!("true {:?}: {:.2} ± {:.2}", level.true_mi, level.mean, level.std);
//! }
//! ```

mod problem;
mod results;
mod sandwich;
mod solver;
mod step;

pub use problem::{Cursor, Data, Dataset, Schedule};
pub use results::{MonitorTrace, RunMeta, StepRecord, TrainResult, Window, ema, mean_std};
pub use sandwich::{SandwichResult, sandwich};
pub use solver::{EarlyStop, FileCheckpoint, ProgressObserver, TraceObserver, TrainState, Trainer};

pub use step::{Monitor, PARAM_CHECK_EVERY, TrainStep};

use crate::bounds::BoundSpec;
use crate::critics::{CriticSpec, Init};
use crate::error::{Error, Result};
use crate::optim::{Adam, AdamConfig};
use crate::real::Real;
use argmin::core::observers::ObserverMode;
use argmin::core::{Executor, State, TerminationReason, TerminationStatus};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Where and how often to checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckpointConfig {
    /// The checkpoint file (JSON); an existing one is resumed from.
    pub path: PathBuf,
    /// Save every this many steps.
    pub every: u64,
}

/// Everything a training run needs besides the data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainConfig {
    /// The critic architecture.
    pub critic: CriticSpec,
    /// The bound trained and reported.
    pub bound: BoundSpec,
    /// Batch size N.
    pub batch: usize,
    /// Steps to run (at most).
    pub steps: u64,
    /// Optimiser.
    pub adam: AdamConfig,
    /// Seed for the initialisation and the data stream.
    pub seed: u64,
    /// Weight initialisation.
    pub init: Init,
    /// Show a progress bar on stderr.
    pub progress: bool,
    /// Stream the per-step trace to this file (CSV, or JSON lines for `.jsonl`).
    pub trace: Option<PathBuf>,
    /// Checkpointing, for resumable runs.
    pub checkpoint: Option<CheckpointConfig>,
    /// Early stopping on the EMA of the bound.
    pub early_stop: Option<EarlyStop>,
    /// Quantities evaluated on every step's scores without being trained.
    #[serde(default)]
    pub monitors: Vec<Monitor>,
    /// When a step diverges, return the run up to that step (its `termination` says so)
    /// instead of [`Error::Diverged`] — for figures that show divergence.
    #[serde(default)]
    pub keep_diverged: bool,
}

impl TrainConfig {
    /// A configuration with the defaults: Adam 5e-4, seed 0, PyTorch initialisation, no
    /// progress bar, trace, checkpoint or early stopping.
    pub fn new(critic: CriticSpec, bound: BoundSpec, batch: usize, steps: u64) -> Self {
        TrainConfig {
            critic,
            bound,
            batch,
            steps,
            adam: AdamConfig::default(),
            seed: 0,
            init: Init::Torch,
            progress: false,
            trace: None,
            checkpoint: None,
            early_stop: None,
            monitors: Vec::new(),
            keep_diverged: false,
        }
    }

    /// Identifies what a checkpoint belongs to: everything except the run length, the display
    /// options and the checkpoint itself.
    fn fingerprint(&self, scalar: &str) -> String {
        let mut c = self.clone();
        c.steps = 0;
        c.progress = false;
        c.trace = None;
        c.checkpoint = None;
        format!("{scalar}:{}", serde_json::to_string(&c).unwrap_or_default())
    }
}

/// The data generator's seed, kept apart from the initialisation's.
fn data_seed(seed: u64) -> u64 {
    seed ^ 0x9E37_79B9_7F4A_7C15
}

/// Checks that the critic can feed the bound.
fn check_pairing(cfg: &TrainConfig) -> Result<()> {
    if cfg.bound.needs_log_density() && !matches!(cfg.critic, CriticSpec::Gaussian { .. }) {
        return Err(Error::param(
            "critic",
            format!("{:?}", cfg.critic).split_whitespace().next().unwrap_or("?"),
            "this bound needs the log-density log q(y|x) of a conditional model: use the gaussian critic",
        ));
    }
    Ok(())
}

/// An untrained trainer (critic, bound, Adam, data generator) for inputs of dimensions `dims`.
fn build_trainer<T: Real>(dims: (usize, usize), cfg: &TrainConfig) -> Result<Trainer<T>> {
    check_pairing(cfg)?;
    let critic = cfg.critic.build::<T>(dims.0, dims.1)?;
    let adam = Adam::new(cfg.adam.clone(), critic.n_params())?;
    let bound = cfg.bound.build::<T>()?;
    let step = TrainStep::new(critic, bound, adam, cfg.batch, dims).with_monitors(&cfg.monitors)?;
    let emit = cfg.progress || cfg.trace.is_some();
    Ok(Trainer::new(step, crate::rng::rng(data_seed(cfg.seed)), cfg.early_stop, emit, cfg.steps as usize))
}

/// A fresh trainer for `cfg` on `data` and the critic's initial parameters.
pub fn trainer<T: Real>(data: &Data, cfg: &TrainConfig) -> Result<(Trainer<T>, Vec<T>)> {
    data.check_batch(cfg.batch)?;
    let t = build_trainer::<T>(data.dims(), cfg)?;
    let params = t.step.critic.init_params(cfg.init, cfg.seed);
    Ok((t, params))
}

/// Trains `cfg.critic` with `cfg.bound` on `data` and returns the trace and final parameters.
///
/// A NaN or infinite bound, gradient or parameter stops the run with [`Error::Diverged`]
/// naming the step. With a checkpoint configured, an existing checkpoint file of the same
/// configuration is resumed from, and the result is bit-identical to an uninterrupted run.
pub fn train<T: Real>(data: &Data, cfg: &TrainConfig) -> Result<TrainResult<T>> {
    crate::parallel::on_pool(|| run(data, cfg))
}

fn run<T: Real>(data: &Data, cfg: &TrainConfig) -> Result<TrainResult<T>> {
    if cfg.steps == 0 {
        return Err(Error::param("steps", 0, "must be at least 1"));
    }
    if let BoundSpec::Ba { entropy_y: None } = cfg.bound {
        // BA's H(Y) from the task when it is analytic (a staircase changes only ρ, not H(Y)).
        let h = data.entropy_y(0).ok_or_else(|| {
            Error::param("BA entropy H(Y)", "(unknown)", "this data has no analytic H(Y): give ba:<nats>")
        })?;
        let cfg = TrainConfig { bound: BoundSpec::Ba { entropy_y: Some(h) }, ..cfg.clone() };
        return run(data, &cfg);
    }
    let (solver, params) = trainer::<T>(data, cfg)?;
    let bound_label = solver.step.bound.label();
    let steps = cfg.steps;
    let mut exec = Executor::new(data, solver).configure(|s| s.param(params).max_iters(steps)).timer(false);
    if cfg.progress {
        exec = exec.add_observer(ProgressObserver::new(steps, &bound_label), ObserverMode::Always);
    }
    if let Some(path) = &cfg.trace {
        exec = exec.add_observer(TraceObserver::create(path)?, ObserverMode::Always);
    }
    if let Some(ck) = &cfg.checkpoint {
        let (cfg2, fingerprint) = (cfg.clone(), cfg.fingerprint(T::type_name()));
        let dims = data.dims();
        let fresh = move || build_trainer::<T>(dims, &cfg2);
        exec = exec.checkpointing(FileCheckpoint::new(ck.path.clone(), ck.every, fingerprint, steps, Box::new(fresh)));
    }
    let started = std::time::Instant::now();
    let res = exec.run().map_err(from_argmin)?;
    let wall_seconds = started.elapsed().as_secs_f64();
    let termination = match res.state.get_termination_status() {
        TerminationStatus::Terminated(TerminationReason::MaxItersReached) => "max steps".to_string(),
        TerminationStatus::Terminated(TerminationReason::SolverExit(why)) => why.clone(),
        other => format!("{other:?}"),
    };
    if let (Some((step, what)), false) = (res.solver.diverged.clone(), cfg.keep_diverged) {
        return Err(Error::Diverged { step, what });
    }
    let params = res.state.param.unwrap_or_default();
    let trace = res.solver.records;
    let k = cfg.monitors.len();
    let monitors = cfg
        .monitors
        .iter()
        .enumerate()
        .map(|(m, mon)| {
            let label = match mon {
                Monitor::Bound { spec } => spec.build::<T>().map(|b| b.label()).unwrap_or_default(),
                Monitor::Vub => "VUB".to_string(),
            };
            MonitorTrace { label, values: res.solver.monitor_trace.iter().skip(m).step_by(k).copied().collect() }
        })
        .collect();
    let meta = RunMeta {
        critic: cfg.critic.clone(),
        bound: cfg.bound,
        bound_label,
        batch: cfg.batch,
        steps: cfg.steps,
        seed: cfg.seed,
        adam: cfg.adam.clone(),
        scalar: T::type_name().into(),
        backend: crate::gemm::backend().name().into(),
    };
    Ok(TrainResult { params, trace, monitors, meta, wall_seconds, termination })
}

/// Recovers the crate's error from argmin's (`anyhow`) error.
fn from_argmin(e: argmin::core::Error) -> Error {
    match e.downcast::<Error>() {
        Ok(err) => err,
        Err(other) => Error::Format { context: "training loop".into(), msg: other.to_string() },
    }
}
