//! Training: problem (the data) → step (critic forward, bound, backward, Adam) → the one
//! [`Runner`] (stopping rules, validation, observers, checkpoints) → results.
//!
//! ```no_run
//! use mibound::bounds::BoundSpec;
//! use mibound::critics::CriticSpec;
//! use mibound::tasks::Parametric;
//! use mibound::train::{train, Data, Schedule, TrainConfig};
//!
//! let data = Data::stream(Parametric::Gaussian { dim: 20 }, Schedule::poole(4000)).unwrap();
//! let cfg = TrainConfig::new(CriticSpec::poole_separable(), BoundSpec::InfoNce, 64, 20_000);
//! let run = train::<f32>(&data, &cfg).unwrap();
//! for level in run.levels(4000, 0.2) {
//!     println!("true {:?}: {:.2} ± {:.2}", level.true_mi, level.mean, level.std);
//! }
//! ```

mod baseline;
mod critic;
mod problem;
mod results;
mod runner;
mod sandwich;
mod step;

pub use baseline::{BaselineSpec, LearnedBaseline};
pub use critic::{CriticTrainer, evaluate_batches, random_batches};
pub use problem::{Cursor, Data, Dataset, Schedule};
pub use results::{MonitorTrace, RunMeta, StepRecord, TrainResult, Window, ema, mean_std};
pub use runner::{
    CheckpointConfig, EarlyStop, Observer, Outcome, Phase, Progress, ProgressCounter, RunState, Runner, Termination,
    TraceObserver, Trainable, Validation,
};
pub use sandwich::{SandwichResult, sandwich};

pub use step::{Monitor, PARAM_CHECK_EVERY, TrainStep};

use crate::bounds::BoundSpec;
use crate::compute::Compute;
use crate::critics::{CriticSpec, Init};
use crate::error::{Error, Result};
use crate::optim::{Adam, AdamConfig};
use crate::real::Real;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

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
    /// The gemm backend and the threads one step may use.
    #[serde(default)]
    pub compute: Compute,
    /// A learned log-baseline `ln a(y)` (an MLP on y) for TUBA and I_α, trained with the
    /// critic (Poole et al.'s baseline); `None`: the bound's constant baseline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learned_baseline: Option<BaselineSpec>,
}

impl TrainConfig {
    /// A configuration with the defaults: Adam 5e-4, seed 0, PyTorch initialisation, no trace,
    /// checkpoint or early stopping, the default [`Compute`].
    pub fn new(critic: CriticSpec, bound: BoundSpec, batch: usize, steps: u64) -> Self {
        TrainConfig {
            critic,
            bound,
            batch,
            steps,
            adam: AdamConfig::default(),
            seed: 0,
            init: Init::Torch,
            trace: None,
            checkpoint: None,
            early_stop: None,
            monitors: Vec::new(),
            keep_diverged: false,
            compute: Compute::default(),
            learned_baseline: None,
        }
    }

    /// Identifies what a checkpoint belongs to: everything except the run length, the display
    /// options, the thread count (it changes the speed, never the numbers) and the checkpoint.
    fn fingerprint(&self, scalar: &str) -> String {
        let mut c = self.clone();
        c.steps = 0;
        c.trace = None;
        c.checkpoint = None;
        c.compute.threads = 1;
        format!("{scalar}:{}", serde_json::to_string(&c).unwrap_or_default())
    }

    /// Checks that the critic can feed the bound.
    fn check_pairing(&self) -> Result<()> {
        if self.bound.needs_log_density() && !matches!(self.critic, CriticSpec::Gaussian { .. }) {
            return Err(Error::param(
                "critic",
                format!("{:?}", self.critic).split_whitespace().next().unwrap_or("?"),
                "this bound needs the log-density log q(y|x) of a conditional model: use the gaussian critic",
            ));
        }
        Ok(())
    }
}

/// The data generator's seed, kept apart from the initialisation's.
fn data_seed(seed: u64) -> u64 {
    crate::rng::Stream::TaskData.seed(seed)
}

/// An untrained critic trainer for `cfg` on `data` and the critic's initial parameters.
pub fn trainer<'d, T: Real>(data: &'d Data, cfg: &TrainConfig) -> Result<(CriticTrainer<'d, T>, Vec<T>)> {
    data.check_batch(cfg.batch)?;
    cfg.check_pairing()?;
    let dims = data.dims();
    let critic = cfg.critic.build_with::<T>(dims.0, dims.1, cfg.compute)?;
    let mut adam = Adam::new(cfg.adam.clone(), critic.n_params())?;
    adam.set_compute(cfg.compute);
    let bound = cfg.bound.build::<T>()?;
    let mut step = TrainStep::new(critic, bound, adam, cfg.batch, dims).with_monitors(&cfg.monitors)?;
    if let Some(spec) = &cfg.learned_baseline {
        if cfg.checkpoint.is_some() {
            return Err(Error::param("learned baseline", "checkpoint", "a learned baseline is not checkpointed"));
        }
        step = step.with_baseline(LearnedBaseline::new(spec, dims.1, cfg.adam.clone(), cfg.seed)?)?;
    }
    let params = step.critic.init_params(cfg.init, cfg.seed);
    Ok((CriticTrainer::new(step, data, crate::rng::rng(data_seed(cfg.seed)), cfg.steps as usize), params))
}

/// Trains `cfg.critic` with `cfg.bound` on `data` and returns the trace and final parameters.
///
/// A NaN or infinite bound, gradient or parameter stops the run with [`Error::Diverged`]
/// naming the step (or, with [`TrainConfig::keep_diverged`], returns the run so far). With a
/// checkpoint configured, an existing checkpoint file of the same configuration is resumed
/// from, and the result is bit-identical to an uninterrupted run.
pub fn train<T: Real>(data: &Data, cfg: &TrainConfig) -> Result<TrainResult<T>> {
    train_observed(data, cfg, Vec::new())
}

/// [`train`] with extra observers (a progress bar, say).
pub fn train_observed<'o, T: Real>(
    data: &Data,
    cfg: &TrainConfig,
    observers: Vec<Box<dyn Observer + 'o>>,
) -> Result<TrainResult<T>> {
    cfg.compute.on_pool(|| run(data, cfg, observers))
}

fn run<'o, T: Real>(data: &Data, cfg: &TrainConfig, observers: Vec<Box<dyn Observer + 'o>>) -> Result<TrainResult<T>> {
    if cfg.steps == 0 {
        return Err(Error::param("steps", 0, "must be at least 1"));
    }
    if let BoundSpec::Ba { entropy_y: None } = cfg.bound {
        // BA's H(Y) from the task when it is analytic (a staircase changes only ρ, not H(Y)).
        let h = data.entropy_y(0).ok_or_else(|| {
            Error::param("BA entropy H(Y)", "(unknown)", "this data has no analytic H(Y): give ba:<nats>")
        })?;
        let cfg = TrainConfig { bound: BoundSpec::Ba { entropy_y: Some(h) }, ..cfg.clone() };
        return run(data, &cfg, observers);
    }
    let (mut model, params) = trainer::<T>(data, cfg)?;
    let mut bound_label = model.step.bound.label();
    if cfg.learned_baseline.is_some() {
        bound_label += " + learned a(y)";
    }
    let mut runner = Runner::new(cfg.steps);
    runner.early_stop = cfg.early_stop;
    runner.checkpoint = cfg.checkpoint.clone().map(|ck| (ck, cfg.fingerprint(T::type_name())));
    if let Some(path) = &cfg.trace {
        runner = runner.observe(TraceObserver::create(path)?);
    }
    for o in observers {
        runner = runner.observe_boxed(o);
    }
    let out = runner.run(&mut model, params)?;
    if let (Termination::Diverged { step, what }, false) = (&out.termination, cfg.keep_diverged) {
        return Err(Error::Diverged { step: *step, what: what.clone() });
    }
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
            MonitorTrace { label, values: model.monitor_trace.iter().skip(m).step_by(k).copied().collect() }
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
        backend: cfg.compute.backend.name().into(),
    };
    Ok(TrainResult {
        params: out.params,
        trace: out.records,
        monitors,
        meta,
        wall_seconds: out.wall_seconds,
        termination: out.termination.to_string(),
    })
}
