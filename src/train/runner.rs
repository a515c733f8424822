//! The one training loop. Everything that trains in mibound — a critic through a staircase, the
//! critics and conditional models of a held-out estimate, contrastive encoders, flows — is a
//! [`Trainable`] driven by [`Runner::run`], which gives every caller the same observers,
//! stopping rules (step limit, early stopping on the EMA of the value, patience on validation),
//! divergence handling, best-on-validation selection and resumable checkpoints.
//!
//! The loop is a plain `for` over steps. (Earlier versions drove it with argmin's `Executor`;
//! with no line search and a cost argmin could not use, that was a for-loop with a NaN cost,
//! and its observer and checkpoint traits could not express validation-based selection.)

use super::results::StepRecord;
use crate::error::{Error, Result};
use crate::real::Real;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Something the runner trains: one optimisation step at a time on a flat parameter vector.
pub trait Trainable<T: Real>: Send {
    /// One step: draw a batch, compute the objective and its gradient, update `params`. A
    /// non-finite objective, gradient or parameter is [`Error::Diverged`] naming the step.
    fn step(&mut self, params: &mut [T], step: u64) -> Result<StepRecord>;

    /// The training objective (higher is better) on held-out validation rows, for choosing
    /// parameters. The default says there are none.
    fn validate(&mut self, _params: &[T]) -> Result<f64> {
        Err(Error::param("validation", "(none)", "this model has no validation data"))
    }

    /// Everything besides the parameters that a checkpoint must hold to resume bit for bit
    /// (optimiser moments, generator, data cursor, bound state). The default: not resumable.
    fn save(&self) -> Result<serde_json::Value> {
        Err(Error::Format { context: "checkpoint".into(), msg: "this model cannot be checkpointed".into() })
    }

    /// Restores what [`Trainable::save`] returned.
    fn restore(&mut self, _state: serde_json::Value) -> Result<()> {
        Err(Error::Format { context: "checkpoint".into(), msg: "this model cannot be checkpointed".into() })
    }
}

/// Sees every step of a run (and every validation check).
pub trait Observer: Send {
    /// Called after each step with its record.
    fn step(&mut self, record: &StepRecord) -> Result<()>;
    /// Called after each validation check with the step count and the validation objective.
    fn validated(&mut self, _step: u64, _objective: f64) -> Result<()> {
        Ok(())
    }
    /// Called once when the run ends.
    fn finish(&mut self) -> Result<()> {
        Ok(())
    }
}

/// Stop when the EMA of the bound's value has not risen by `min_delta` for `patience` steps.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EarlyStop {
    /// Steps without improvement before stopping.
    pub patience: u64,
    /// Smallest rise of the EMA that counts as improvement, in nats.
    pub min_delta: f64,
    /// EMA span in steps.
    pub span: f64,
}

/// Check the validation objective every `every` steps (and before the first step: the initial
/// parameters are a candidate), keep the best parameters, stop after `patience` steps without
/// improvement. A non-finite validation objective ends the run as a divergence (an error when it
/// is the initial one).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Validation {
    /// Steps between checks (≥ 1).
    pub every: u64,
    /// Steps without a better validation objective before stopping.
    pub patience: u64,
}

/// Where and how often to checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckpointConfig {
    /// The checkpoint file (JSON); an existing one is resumed from.
    pub path: PathBuf,
    /// Save every this many steps.
    pub every: u64,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "stop", rename_all = "kebab-case")]
pub enum Termination {
    /// The step limit.
    MaxSteps,
    /// The EMA of the value stopped rising ([`EarlyStop`]).
    EarlyStop {
        /// In words.
        why: String,
    },
    /// No validation improvement for [`Validation::patience`] steps.
    Patience {
        /// The step of the best validation objective.
        best_step: u64,
    },
    /// A step produced a non-finite value.
    Diverged {
        /// The step.
        step: usize,
        /// What became non-finite.
        what: String,
    },
}

impl std::fmt::Display for Termination {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Termination::MaxSteps => write!(f, "max steps"),
            Termination::EarlyStop { why } => write!(f, "{why}"),
            Termination::Patience { best_step } => write!(f, "no validation improvement since step {best_step}"),
            Termination::Diverged { step, what } => write!(f, "diverged at step {step}: {what}"),
        }
    }
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct Outcome<T> {
    /// With validation, the best validated parameters; otherwise the last ones.
    pub params: Vec<T>,
    /// One record per step taken.
    pub records: Vec<StepRecord>,
    /// `(step, objective)` of each validation check (step 0 = the initial parameters).
    pub validations: Vec<(u64, f64)>,
    /// The step whose parameters were kept, with validation.
    pub best_step: Option<u64>,
    /// Why it stopped.
    pub termination: Termination,
    /// Wall-clock seconds in the loop.
    pub wall_seconds: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct EarlyState {
    ema: Option<f64>,
    best: Option<f64>,
    since_best: u64,
}

impl EarlyState {
    fn track(&mut self, es: &EarlyStop, value: f64) -> bool {
        let a = 2.0 / (es.span + 1.0);
        let e = self.ema.map_or(value, |p| a * value + (1.0 - a) * p);
        self.ema = Some(e);
        match self.best {
            Some(b) if e < b + es.min_delta => self.since_best += 1,
            _ => {
                self.best = Some(e);
                self.since_best = 0;
            }
        }
        self.since_best >= es.patience
    }
}

/// The best validated parameters so far.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Best<T> {
    objective: f64,
    step: u64,
    params: Vec<T>,
}

/// What a checkpoint file holds.
#[derive(Serialize, Deserialize)]
struct Snapshot<T> {
    format: u32,
    fingerprint: String,
    next_step: u64,
    params: Vec<T>,
    model: serde_json::Value,
    records: Vec<StepRecord>,
    validations: Vec<(u64, f64)>,
    best: Option<Best<T>>,
    early: EarlyState,
}

/// A run in progress between [`Runner::start`] and [`Runner::finish`]: what the loop carries
/// from one step to the next.
#[derive(Clone, Debug)]
pub struct RunState<T> {
    next_step: u64,
    params: Vec<T>,
    records: Vec<StepRecord>,
    validations: Vec<(u64, f64)>,
    best: Option<Best<T>>,
    early: EarlyState,
    termination: Option<Termination>,
    seconds: f64,
}

impl<T> RunState<T> {
    /// Steps taken so far.
    pub fn steps(&self) -> u64 {
        self.next_step
    }

    /// The best validation objective so far (with validation; −∞ before any finite check).
    pub fn best_objective(&self) -> f64 {
        self.best.as_ref().map_or(f64::NEG_INFINITY, |b| b.objective)
    }

    /// Why the run stopped, once it has.
    pub fn stopped(&self) -> Option<&Termination> {
        self.termination.as_ref()
    }
}

/// Drives a [`Trainable`]: see the module docs.
pub struct Runner<'o> {
    /// Steps to run at most.
    pub max_steps: u64,
    /// Validation-based selection and stopping.
    pub validation: Option<Validation>,
    /// Early stopping on the EMA of the training value.
    pub early_stop: Option<EarlyStop>,
    /// Resumable checkpoints, with a fingerprint of the configuration they belong to.
    pub checkpoint: Option<(CheckpointConfig, String)>,
    observers: Vec<Box<dyn Observer + 'o>>,
}

impl<'o> Runner<'o> {
    /// A runner for at most `max_steps` steps, with no validation, early stopping, checkpoint
    /// or observer.
    pub fn new(max_steps: u64) -> Self {
        Runner { max_steps, validation: None, early_stop: None, checkpoint: None, observers: Vec::new() }
    }

    /// Adds an observer.
    pub fn observe(mut self, o: impl Observer + 'o) -> Self {
        self.observers.push(Box::new(o));
        self
    }

    /// Adds a boxed observer.
    pub fn observe_boxed(mut self, o: Box<dyn Observer + 'o>) -> Self {
        self.observers.push(o);
        self
    }

    /// Validation every `every` steps with `patience`.
    pub fn validate(mut self, v: Validation) -> Self {
        self.validation = Some(v);
        self
    }

    fn ck_err(path: &std::path::Path, msg: impl std::fmt::Display) -> Error {
        Error::Data { path: path.to_path_buf(), msg: format!("checkpoint: {msg}") }
    }

    /// Trains `model` from `params` and returns the outcome. A divergence ends the run and is
    /// reported in [`Outcome::termination`] (with validation, the best validated parameters are
    /// returned; without, the parameters at the diverged step); other errors are returned.
    pub fn run<T: Real>(&mut self, model: &mut dyn Trainable<T>, params: Vec<T>) -> Result<Outcome<T>> {
        let mut state = self.start(model, params)?;
        self.advance(model, &mut state, self.max_steps)?;
        self.finish(state)
    }

    /// Starts a run from `params` (or from the checkpoint, when there is one): the initial
    /// parameters are validated (with validation). [`Runner::advance`] then takes the steps and
    /// [`Runner::finish`] ends it: [`Runner::run`] in three parts, so that a caller can pause a
    /// run, look at it (several candidates trained a few steps each, say) and resume it.
    pub fn start<T: Real>(&mut self, model: &mut dyn Trainable<T>, params: Vec<T>) -> Result<RunState<T>> {
        if self.max_steps == 0 {
            return Err(Error::param("steps", 0, "must be at least 1"));
        }
        if let Some(v) = self.validation
            && v.every == 0
        {
            return Err(Error::param("validation interval", 0, "must be at least 1"));
        }
        let mut state = RunState {
            next_step: 0,
            records: Vec::with_capacity(self.max_steps as usize),
            params,
            validations: Vec::new(),
            best: None,
            early: EarlyState::default(),
            termination: None,
            seconds: 0.0,
        };
        if let Some((ck, fingerprint)) = &self.checkpoint {
            match std::fs::read_to_string(&ck.path) {
                Ok(text) => {
                    let snap: Snapshot<T> = serde_json::from_str(&text).map_err(|e| Self::ck_err(&ck.path, e))?;
                    if snap.fingerprint != *fingerprint {
                        return Err(Self::ck_err(
                            &ck.path,
                            "it was written by a run with a different configuration; delete it or change --checkpoint",
                        ));
                    }
                    if snap.params.len() != state.params.len() {
                        return Err(Self::ck_err(&ck.path, "parameter count does not match the model"));
                    }
                    model.restore(snap.model)?;
                    state.params = snap.params;
                    state.records = snap.records;
                    state.validations = snap.validations;
                    state.best = snap.best;
                    state.early = snap.early;
                    state.next_step = snap.next_step;
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => return Err(Error::Io { path: ck.path.clone(), source }),
            }
        }
        if let (Some(_), 0) = (self.validation, state.next_step) {
            let objective = model.validate(&state.params)?;
            state.validations.push((0, objective));
            if !objective.is_finite() {
                return Err(Error::Diverged { step: 0, what: format!("initial validation objective {objective}") });
            }
            state.best = Some(Best { objective, step: 0, params: state.params.clone() });
            for o in &mut self.observers {
                o.validated(0, objective)?;
            }
        }
        Ok(state)
    }

    /// Takes steps until `until` steps (at most [`Runner::max_steps`]) are done or a stopping
    /// rule ends the run ([`RunState::stopped`]).
    pub fn advance<T: Real>(
        &mut self,
        model: &mut dyn Trainable<T>,
        state: &mut RunState<T>,
        until: u64,
    ) -> Result<()> {
        let started = std::time::Instant::now();
        let until = until.min(self.max_steps);
        while state.termination.is_none() && state.next_step < until {
            let k = state.next_step;
            state.termination = self.step(model, state, k)?;
            state.next_step = k + 1;
        }
        if state.termination.is_none() && state.next_step >= self.max_steps {
            state.termination = Some(Termination::MaxSteps);
        }
        state.seconds += started.elapsed().as_secs_f64();
        Ok(())
    }

    /// Step `k` with its validation check, stopping rules and checkpoint; the termination, if
    /// the run ends here.
    fn step<T: Real>(
        &mut self,
        model: &mut dyn Trainable<T>,
        state: &mut RunState<T>,
        k: u64,
    ) -> Result<Option<Termination>> {
        let rec = match model.step(&mut state.params, k) {
            Ok(r) => r,
            Err(Error::Diverged { step, what }) => return Ok(Some(Termination::Diverged { step, what })),
            Err(e) => return Err(e),
        };
        state.records.push(rec);
        for o in &mut self.observers {
            o.step(&rec)?;
        }
        if let Some(v) = self.validation
            && ((k + 1) % v.every == 0 || k + 1 == self.max_steps)
        {
            let objective = model.validate(&state.params)?;
            state.validations.push((k + 1, objective));
            for o in &mut self.observers {
                o.validated(k + 1, objective)?;
            }
            if !objective.is_finite() {
                return Ok(Some(Termination::Diverged {
                    step: k as usize + 1,
                    what: format!("validation objective {objective}"),
                }));
            }
            match &mut state.best {
                Some(b) if objective <= b.objective => {}
                Some(b) => {
                    b.objective = objective;
                    b.step = k + 1;
                    b.params.copy_from_slice(&state.params);
                }
                None => state.best = Some(Best { objective, step: k + 1, params: state.params.clone() }),
            }
        }
        if let Some(es) = &self.early_stop
            && state.early.track(es, rec.value)
        {
            return Ok(Some(Termination::EarlyStop {
                why: format!("early stopping: no EMA rise of {} nats in {} steps", es.min_delta, es.patience),
            }));
        }
        if let (Some(v), Some(b)) = (self.validation, &state.best)
            && k + 1 >= b.step + v.patience
        {
            return Ok(Some(Termination::Patience { best_step: b.step }));
        }
        if let Some((ck, fingerprint)) = &self.checkpoint
            && (k + 1) % ck.every.max(1) == 0
        {
            let snap = Snapshot {
                format: 2,
                fingerprint: fingerprint.clone(),
                next_step: k + 1,
                params: state.params.clone(),
                model: model.save()?,
                records: state.records.clone(),
                validations: state.validations.clone(),
                best: state.best.clone(),
                early: state.early.clone(),
            };
            let text = serde_json::to_string(&snap).map_err(|e| Self::ck_err(&ck.path, e))?;
            // Write then rename: an interruption never leaves a half-written checkpoint.
            let tmp = ck.path.with_extension("tmp");
            std::fs::write(&tmp, text).map_err(|source| Error::Io { path: tmp.clone(), source })?;
            std::fs::rename(&tmp, &ck.path).map_err(|source| Error::Io { path: ck.path.clone(), source })?;
        }
        Ok(None)
    }

    /// Ends the run: tells the observers and returns the outcome, with the best validated
    /// parameters (with validation) or the last ones.
    pub fn finish<T: Real>(&mut self, state: RunState<T>) -> Result<Outcome<T>> {
        for o in &mut self.observers {
            o.finish()?;
        }
        let RunState { mut params, records, validations, best, termination, seconds, .. } = state;
        let best_step = best.as_ref().map(|b| b.step);
        if let Some(b) = best {
            params = b.params;
        }
        Ok(Outcome {
            params,
            records,
            validations,
            best_step,
            termination: termination.unwrap_or(Termination::MaxSteps),
            wall_seconds: seconds,
        })
    }
}

/// Streams each step's record to a file as the run goes: CSV (`step,value,objective,true_mi`)
/// or, for a path ending in `.jsonl`, one JSON [`StepRecord`] per line.
pub struct TraceObserver {
    out: std::io::BufWriter<std::fs::File>,
    jsonl: bool,
    path: PathBuf,
}

impl TraceObserver {
    /// Creates (truncates) the file and writes the CSV header.
    pub fn create(path: &std::path::Path) -> Result<Self> {
        use std::io::Write;
        let io = |source| Error::Io { path: path.to_path_buf(), source };
        let mut out = std::io::BufWriter::new(std::fs::File::create(path).map_err(io)?);
        let jsonl = path.extension().is_some_and(|e| e == "jsonl");
        if !jsonl {
            writeln!(out, "step,value,objective,true_mi").map_err(io)?;
        }
        Ok(TraceObserver { out, jsonl, path: path.to_path_buf() })
    }
}

impl Observer for TraceObserver {
    fn step(&mut self, rec: &StepRecord) -> Result<()> {
        use std::io::Write;
        let io = |source| Error::Io { path: self.path.clone(), source };
        if self.jsonl {
            let line = serde_json::to_string(rec)
                .map_err(|e| Error::Format { context: "trace".into(), msg: e.to_string() })?;
            writeln!(self.out, "{line}").map_err(io)
        } else {
            let mi = rec.true_mi.map_or(String::new(), |m| m.to_string());
            writeln!(self.out, "{},{},{},{}", rec.step, rec.value, rec.objective, mi).map_err(io)
        }
    }
    fn finish(&mut self) -> Result<()> {
        use std::io::Write;
        self.out.flush().map_err(|source| Error::Io { path: self.path.clone(), source })
    }
}

/// What a long run is doing, told to [`Progress::phase`] as it starts each part, so that a
/// display can name it where no training step is counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Phase {
    /// Training critics: the steps [`Progress::advance`] counts.
    Training,
    /// Estimators that do not train (the classical ones, a neural bound's cross-check and what
    /// it reads on a reference Gaussian).
    Estimating,
    /// The permutation test of independence (or of conditional independence).
    Testing,
}

/// Where a long run reports the training steps it takes (and the phase it is in) and learns
/// that its caller wants it to stop. Any `Fn(u64) + Sync` closure is a `Progress` that is never
/// cancelled and ignores the phases; the Python bindings implement `cancelled` to stop an
/// estimate on Ctrl-C.
pub trait Progress: Sync {
    /// `steps` more training steps were taken.
    fn advance(&self, steps: u64);
    /// The run starts `phase`.
    fn phase(&self, _phase: Phase) {}
    /// Whether the run should stop now with [`Error::Cancelled`] (checked every step).
    fn cancelled(&self) -> bool {
        false
    }
}

impl<F: Fn(u64) + Sync> Progress for F {
    fn advance(&self, steps: u64) {
        self(steps)
    }
}

/// Calls `f.advance(steps)` every `every` steps and once at the end with the rest: how progress
/// bars (the command line's, or a caller's) follow runs, including several running in parallel.
/// Ends the run with [`Error::Cancelled`] as soon as `f.cancelled()`.
pub struct ProgressCounter<'f> {
    f: &'f dyn Progress,
    every: u64,
    pending: u64,
}

impl<'f> ProgressCounter<'f> {
    /// Reports every `every` steps to `f`.
    pub fn new(f: &'f dyn Progress, every: u64) -> Self {
        ProgressCounter { f, every: every.max(1), pending: 0 }
    }
}

impl Observer for ProgressCounter<'_> {
    fn step(&mut self, _rec: &StepRecord) -> Result<()> {
        if self.f.cancelled() {
            return Err(Error::Cancelled);
        }
        self.pending += 1;
        if self.pending >= self.every {
            self.f.advance(self.pending);
            self.pending = 0;
        }
        Ok(())
    }
    fn finish(&mut self) -> Result<()> {
        if self.pending > 0 {
            self.f.advance(self.pending);
            self.pending = 0;
        }
        Ok(())
    }
}
