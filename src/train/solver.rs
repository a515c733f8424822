//! The step loop as an argmin solver: argmin's `Executor` drives [`Trainer`] (one Adam step of
//! the critic per iteration), calls the observers and writes checkpoints.
//!
//! argmin's own "best parameter" bookkeeping is switched off by leaving the cost `NaN`: the
//! best of noisy mini-batch bound values is an upward-biased selection, not an estimate, and
//! copying the parameters on every improvement would cost a memcpy per step.

use super::problem::{Cursor, Data};
use super::results::StepRecord;
use super::step::TrainStep;
use crate::rng::Xoshiro;
use crate::error::{Error, Result};
use crate::real::Real;
use argmin::core::checkpointing::{Checkpoint, CheckpointingFrequency};
use argmin::core::observers::Observe;
use argmin::core::{IterState, KV, Problem, Solver, State, TerminationReason, TerminationStatus};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// argmin's state for a run: the flat parameter vector.
pub type TrainState<T> = IterState<Vec<T>, (), (), (), (), f64>;

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

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct EarlyState {
    ema: Option<f64>,
    best: Option<f64>,
    since_best: u64,
}

/// The solver: a [`TrainStep`] plus everything that must survive a checkpoint.
pub struct Trainer<T: Real> {
    /// The step (critic, bound, Adam and their buffers).
    pub step: TrainStep<T>,
    pub(crate) rng: Xoshiro,
    pub(crate) cursor: Cursor,
    pub(crate) records: Vec<StepRecord>,
    /// Monitor values, `steps × monitors`, row after row.
    pub(crate) monitor_trace: Vec<f64>,
    early_stop: Option<EarlyStop>,
    early: EarlyState,
    emit_kv: bool,
    /// Set when a step diverged: `(step, what)`; the run then stops.
    pub(crate) diverged: Option<(usize, String)>,
}

impl<T: Real> Trainer<T> {
    /// A trainer drawing data with `rng`; `emit_kv` makes each iteration report its values to
    /// argmin's observers.
    pub fn new(step: TrainStep<T>, rng: Xoshiro, early_stop: Option<EarlyStop>, emit_kv: bool, capacity: usize) -> Self {
        let monitor_trace = Vec::with_capacity(capacity * step.monitors.len());
        Trainer {
            step,
            rng,
            cursor: Cursor::default(),
            records: Vec::with_capacity(capacity),
            monitor_trace,
            early_stop,
            early: EarlyState::default(),
            emit_kv,
            diverged: None,
        }
    }

    /// The records so far.
    pub fn records(&self) -> &[StepRecord] {
        &self.records
    }

    fn track(&mut self, value: f64) {
        let Some(es) = self.early_stop else { return };
        let a = 2.0 / (es.span + 1.0);
        let e = self.early.ema.map_or(value, |p| a * value + (1.0 - a) * p);
        self.early.ema = Some(e);
        match self.early.best {
            Some(b) if e < b + es.min_delta => self.early.since_best += 1,
            _ => {
                self.early.best = Some(e);
                self.early.since_best = 0;
            }
        }
    }
}

impl<'a, T: Real> Solver<&'a Data, TrainState<T>> for Trainer<T> {
    fn name(&self) -> &str {
        "mibound-adam"
    }

    fn next_iter(
        &mut self,
        problem: &mut Problem<&'a Data>,
        mut state: TrainState<T>,
    ) -> Result<(TrainState<T>, Option<KV>), argmin::core::Error> {
        let iter = state.get_iter();
        let mut params = state
            .take_param()
            .ok_or_else(|| Error::Format { context: "trainer".into(), msg: "no parameters in the state".into() })?;
        let (step, rng, cursor) = (&mut self.step, &mut self.rng, &mut self.cursor);
        let rec = match problem.problem("batches", |data| Ok(step.run(&mut params, data, rng, cursor, iter)?)) {
            Ok(r) => r,
            Err(e) => match e.downcast::<Error>() {
                // Divergence ends the run; the trace so far is kept (see `TrainConfig::keep_diverged`).
                Ok(Error::Diverged { step, what }) => {
                    let why = format!("diverged at step {step}: {what}");
                    self.diverged = Some((step, what));
                    let state = state.param(params).terminate_with(TerminationReason::SolverExit(why));
                    return Ok((state, None));
                }
                Ok(other) => return Err(other.into()),
                Err(other) => return Err(other),
            },
        };
        self.records.push(rec);
        self.monitor_trace.extend_from_slice(&self.step.monitor_values);
        self.track(rec.value);
        state = state.param(params);
        state.cost = f64::NAN;
        let kv = self.emit_kv.then(|| {
            let mut kv = KV::new();
            kv.insert("value", rec.value.into());
            kv.insert("objective", rec.objective.into());
            if let Some(mi) = rec.true_mi {
                kv.insert("true_mi", mi.into());
            }
            kv
        });
        Ok((state, kv))
    }

    fn terminate(&mut self, _state: &TrainState<T>) -> TerminationStatus {
        match self.early_stop {
            Some(es) if self.early.since_best >= es.patience => {
                TerminationStatus::Terminated(TerminationReason::SolverExit(format!(
                    "early stopping: no EMA rise of {} nats in {} steps",
                    es.min_delta, es.patience
                )))
            }
            _ => TerminationStatus::NotTerminated,
        }
    }
}

/// What a checkpoint file holds.
#[derive(Serialize, Deserialize)]
struct Snapshot<T> {
    format: u32,
    fingerprint: String,
    iter: u64,
    params: Vec<T>,
    adam: crate::optim::Adam<T>,
    rng: Xoshiro,
    cursor: Cursor,
    bound_state: Vec<f64>,
    monitor_states: Vec<Vec<f64>>,
    records: Vec<StepRecord>,
    monitor_trace: Vec<f64>,
    early: EarlyState,
}

/// Saves the whole training state (parameters, Adam moments, random generator, data cursor,
/// bound state, trace) as JSON every `every` steps, and restores it when a run starts, so an
/// interrupted run resumes bit for bit.
pub struct FileCheckpoint<T: Real> {
    path: PathBuf,
    every: u64,
    fingerprint: String,
    max_iters: u64,
    fresh: Box<dyn Fn() -> Result<Trainer<T>>>,
}

impl<T: Real> FileCheckpoint<T> {
    /// A checkpoint at `path`; `fingerprint` identifies the configuration (a checkpoint of a
    /// different configuration is refused); `fresh` builds an untrained trainer to restore into.
    pub fn new(
        path: PathBuf,
        every: u64,
        fingerprint: String,
        max_iters: u64,
        fresh: Box<dyn Fn() -> Result<Trainer<T>>>,
    ) -> Self {
        FileCheckpoint { path, every: every.max(1), fingerprint, max_iters, fresh }
    }

    fn err(&self, msg: impl std::fmt::Display) -> Error {
        Error::Data { path: self.path.clone(), msg: format!("checkpoint: {msg}") }
    }
}

impl<T: Real> Checkpoint<Trainer<T>, TrainState<T>> for FileCheckpoint<T> {
    fn save(&self, solver: &Trainer<T>, state: &TrainState<T>) -> Result<(), argmin::core::Error> {
        let snap = Snapshot {
            format: 1,
            fingerprint: self.fingerprint.clone(),
            iter: state.get_iter(),
            params: state.get_param().cloned().unwrap_or_default(),
            adam: solver.step.adam.clone(),
            rng: solver.rng.clone(),
            cursor: solver.cursor.clone(),
            bound_state: solver.step.bound.state(),
            monitor_states: solver.step.monitors.iter().map(|m| m.as_ref().map_or(Vec::new(), |b| b.state())).collect(),
            records: solver.records.clone(),
            monitor_trace: solver.monitor_trace.clone(),
            early: solver.early.clone(),
        };
        let text = serde_json::to_string(&snap).map_err(|e| self.err(e))?;
        // Write then rename: an interruption never leaves a half-written checkpoint.
        let tmp = self.path.with_extension("tmp");
        std::fs::write(&tmp, text).map_err(|source| Error::Io { path: tmp.clone(), source })?;
        std::fs::rename(&tmp, &self.path).map_err(|source| Error::Io { path: self.path.clone(), source })?;
        Ok(())
    }

    fn load(&self) -> Result<Option<(Trainer<T>, TrainState<T>)>, argmin::core::Error> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(Error::Io { path: self.path.clone(), source }.into()),
        };
        let snap: Snapshot<T> = serde_json::from_str(&text).map_err(|e| self.err(e))?;
        if snap.fingerprint != self.fingerprint {
            return Err(self
                .err("it was written by a run with a different configuration; delete it or change --checkpoint")
                .into());
        }
        let mut t = (self.fresh)()?;
        if snap.params.len() != t.step.critic.n_params() {
            return Err(self.err("parameter count does not match the critic").into());
        }
        t.step.adam = snap.adam;
        t.step.bound.restore(&snap.bound_state)?;
        if snap.monitor_states.len() != t.step.monitors.len() {
            return Err(self.err("monitor count does not match").into());
        }
        for (m, st) in t.step.monitors.iter_mut().zip(&snap.monitor_states) {
            if let Some(b) = m {
                b.restore(st)?;
            }
        }
        t.monitor_trace = snap.monitor_trace;
        t.rng = snap.rng;
        t.cursor = snap.cursor;
        t.records = snap.records;
        t.early = snap.early;
        let mut state = TrainState::<T>::new().param(snap.params).max_iters(self.max_iters);
        state.iter = snap.iter;
        state.cost = f64::NAN;
        Ok(Some((t, state)))
    }

    fn frequency(&self) -> CheckpointingFrequency {
        CheckpointingFrequency::Every(self.every)
    }
}

/// A progress bar on stderr (indicatif), hidden when stderr is not a terminal. Shows the EMA
/// (span 100) of the bound's value and the true MI when known.
pub struct ProgressObserver {
    bar: indicatif::ProgressBar,
    ema: Option<f64>,
}

impl ProgressObserver {
    /// A bar for `steps` steps labelled `label`.
    pub fn new(steps: u64, label: &str) -> Self {
        let bar = indicatif::ProgressBar::with_draw_target(Some(steps), indicatif::ProgressDrawTarget::stderr());
        if let Ok(style) = indicatif::ProgressStyle::with_template("{prefix} {bar:30} {pos}/{len} {per_sec} {msg}") {
            bar.set_style(style);
        }
        bar.set_prefix(label.to_string());
        ProgressObserver { bar, ema: None }
    }
}

impl<I: State> Observe<I> for ProgressObserver {
    fn observe_iter(&mut self, _state: &I, kv: &KV) -> Result<(), argmin::core::Error> {
        if let Some(v) = kv.get("value").and_then(|v| v.get_float()) {
            self.ema = Some(self.ema.map_or(v, |e| 0.02 * v + 0.98 * e));
        }
        self.bar.inc(1);
        if self.bar.position() % 50 == 0 {
            let mi = kv.get("true_mi").and_then(|v| v.get_float()).map_or(String::new(), |m| format!(" (true {m:.2})"));
            self.bar.set_message(format!("estimate {:.3}{mi}", self.ema.unwrap_or(f64::NAN)));
        }
        Ok(())
    }
    fn observe_final(&mut self, _state: &I) -> Result<(), argmin::core::Error> {
        self.bar.finish_and_clear();
        Ok(())
    }
}

/// Streams each step's record to a file as the run goes: CSV (`step,value,objective,true_mi`)
/// or, for a path ending in `.jsonl`, one JSON [`StepRecord`] per line.
pub struct TraceObserver {
    out: std::io::BufWriter<std::fs::File>,
    jsonl: bool,
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
        Ok(TraceObserver { out, jsonl })
    }
}

impl<I: State> Observe<I> for TraceObserver {
    fn observe_iter(&mut self, state: &I, kv: &KV) -> Result<(), argmin::core::Error> {
        use std::io::Write;
        let f = |k: &str| kv.get(k).and_then(|v| v.get_float());
        // The state's counter is incremented after observers run: this is the step just taken.
        let rec = StepRecord {
            step: state.get_iter(),
            value: f("value").unwrap_or(f64::NAN),
            objective: f("objective").unwrap_or(f64::NAN),
            true_mi: f("true_mi"),
        };
        if self.jsonl {
            serde_json::to_writer(&mut self.out, &rec)?;
            writeln!(self.out)?;
        } else {
            let mi = rec.true_mi.map_or(String::new(), |m| m.to_string());
            writeln!(self.out, "{},{},{},{}", rec.step, rec.value, rec.objective, mi)?;
        }
        Ok(())
    }
    fn observe_final(&mut self, _state: &I) -> Result<(), argmin::core::Error> {
        use std::io::Write;
        self.out.flush()?;
        Ok(())
    }
}
