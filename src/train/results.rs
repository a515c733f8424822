//! The one results format: per-step records, a run's metadata, and summaries over windows.

use crate::bounds::BoundSpec;
use crate::critics::CriticSpec;
use crate::error::{Error, Result};
use crate::optim::AdamConfig;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::Path;

/// One training step: the bound's value (the MI estimate), the objective that was maximised,
/// and the true MI when the data has one.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    /// Step index, from 0.
    pub step: u64,
    /// The bound's value on this step's batch, in nats.
    pub value: f64,
    /// The training objective on this batch.
    pub objective: f64,
    /// The true MI of the batch's distribution, when known.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub true_mi: Option<f64>,
}

/// What a run was: enough to reproduce it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunMeta {
    /// The critic.
    pub critic: CriticSpec,
    /// The bound.
    pub bound: BoundSpec,
    /// The bound's label (`"SMILE(τ=5)"`).
    pub bound_label: String,
    /// Batch size N.
    pub batch: usize,
    /// Steps requested.
    pub steps: u64,
    /// Seed.
    pub seed: u64,
    /// Optimiser settings.
    pub adam: AdamConfig,
    /// `"f32"` or `"f64"`.
    pub scalar: String,
    /// The gemm backend used.
    pub backend: String,
}

/// Mean and standard deviation of a window of steps.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Window {
    /// First step (inclusive).
    pub from: u64,
    /// Last step (exclusive).
    pub to: u64,
    /// Mean of the bound's value.
    pub mean: f64,
    /// Standard deviation of the bound's value.
    pub std: f64,
    /// True MI (of the window's last step), when known.
    pub true_mi: Option<f64>,
}

/// Mean and (sample) standard deviation.
pub fn mean_std(v: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    let n = v.clone().count() as f64;
    let m = v.clone().sum::<f64>() / n;
    let var = if n > 1.0 { v.map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0) } else { 0.0 };
    (m, var.sqrt())
}

/// Exponential moving average with span `s` (`α = 2/(s + 1)`, as pandas' `ewm(span=s)` with
/// `adjust=False`).
pub fn ema(values: &[f64], span: f64) -> Vec<f64> {
    let a = 2.0 / (span + 1.0);
    let mut out = Vec::with_capacity(values.len());
    let mut acc = None;
    for &v in values {
        let next = match acc {
            None => v,
            Some(p) => a * v + (1.0 - a) * p,
        };
        acc = Some(next);
        out.push(next);
    }
    out
}

/// The per-step values of one monitor (a bound evaluated but not trained).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MonitorTrace {
    /// Label (`"L1Out"`, `"VUB"`).
    pub label: String,
    /// One value per step.
    pub values: Vec<f64>,
}

/// A finished run: final parameters, the full trace and metadata.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TrainResult<T> {
    /// Final parameters.
    pub params: Vec<T>,
    /// One record per step taken.
    pub trace: Vec<StepRecord>,
    /// Monitors evaluated every step, if any.
    pub monitors: Vec<MonitorTrace>,
    /// The configuration.
    pub meta: RunMeta,
    /// Wall-clock seconds spent in the step loop.
    pub wall_seconds: f64,
    /// Why the run stopped (`"max steps"`, `"early stopping: …"`).
    pub termination: String,
}

impl<T> TrainResult<T> {
    /// Steps per second of the run.
    pub fn steps_per_second(&self) -> f64 {
        self.trace.len() as f64 / self.wall_seconds.max(1e-12)
    }

    /// Mean and std of the value over steps `from..to`.
    pub fn window(&self, from: u64, to: u64) -> Option<Window> {
        self.window_of(from, to, |k| self.trace[k].value)
    }

    /// The same window of monitor `m`.
    pub fn monitor_window(&self, m: usize, from: u64, to: u64) -> Option<Window> {
        let values = &self.monitors.get(m)?.values;
        self.window_of(from, to, |k| values[k])
    }

    fn window_of(&self, from: u64, to: u64, value: impl Fn(usize) -> f64) -> Option<Window> {
        let idx: Vec<usize> =
            (0..self.trace.len()).filter(|&k| self.trace[k].step >= from && self.trace[k].step < to).collect();
        let last = self.trace[*idx.last()?];
        let (mean, std) = mean_std(idx.iter().map(|&k| value(k)));
        Some(Window { from, to, mean, std, true_mi: last.true_mi })
    }

    /// The last `fraction` of the run.
    pub fn tail(&self, fraction: f64) -> Option<Window> {
        let n = self.trace.len() as u64;
        let k = ((n as f64 * fraction).round() as u64).clamp(1, n.max(1));
        self.window(n - k, n)
    }

    /// The last `fraction` of each block of `steps_per_level` steps (one window per level).
    pub fn levels(&self, steps_per_level: u64, fraction: f64) -> Vec<Window> {
        let n = self.trace.len() as u64;
        let k = ((steps_per_level as f64 * fraction).round() as u64).max(1);
        (0..n.div_ceil(steps_per_level))
            .filter_map(|l| {
                let end = ((l + 1) * steps_per_level).min(n);
                self.window(end.saturating_sub(k).max(l * steps_per_level), end)
            })
            .collect()
    }

    /// Writes the trace as CSV (`step,value,objective,true_mi`).
    pub fn write_trace_csv(&self, path: &Path) -> Result<()> {
        let io = |source| Error::Io { path: path.to_path_buf(), source };
        let mut f = std::io::BufWriter::new(std::fs::File::create(path).map_err(io)?);
        writeln!(f, "step,value,objective,true_mi").map_err(io)?;
        for r in &self.trace {
            let mi = r.true_mi.map_or(String::new(), |m| m.to_string());
            writeln!(f, "{},{},{},{}", r.step, r.value, r.objective, mi).map_err(io)?;
        }
        f.flush().map_err(io)
    }
}
