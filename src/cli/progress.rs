//! The command line's progress bars (indicatif): an observer of the training runner (`train`)
//! and the [`Progress`] of an estimate (`estimate`, `estimate --given`, `demo`).

use crate::error::Result;
use crate::train::{Observer, Phase, Progress, StepRecord};

/// A progress bar on stderr (hidden when stderr is not a terminal) showing the EMA (span 100)
/// of the bound's value and the true MI when known.
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

impl Observer for ProgressObserver {
    fn step(&mut self, r: &StepRecord) -> Result<()> {
        self.ema = Some(self.ema.map_or(r.value, |e| 0.02 * r.value + 0.98 * e));
        self.bar.inc(1);
        if self.bar.position() % 50 == 0 {
            let mi = r.true_mi.map_or(String::new(), |m| format!(" (true {m:.2})"));
            self.bar.set_message(format!("estimate {:.3}{mi}", self.ema.unwrap_or(f64::NAN)));
        }
        Ok(())
    }
    fn finish(&mut self) -> Result<()> {
        self.bar.finish_and_clear();
        Ok(())
    }
}

/// The progress of an estimate on stderr (hidden when stderr is not a terminal, or with
/// `--quiet`): while training, a bar over the training steps with the elapsed time and an
/// estimate of the time left; in the other phases (checking the data, the classical
/// estimators, the permutation test) a spinner naming the phase, with the elapsed time. It
/// ticks by itself, so the elapsed time moves while nothing is counted.
pub struct EstimateProgress {
    bar: indicatif::ProgressBar,
}

/// The training bar: `training ██░░ 1200/15000 steps 00:00:27 elapsed, about 11s left`.
const TRAINING: &str = "{spinner} training {bar:30} {pos}/{len} steps {elapsed_precise} elapsed, {left}";
/// The other phases: `⠙ the permutation test of independence 00:00:31 elapsed`.
const OTHER: &str = "{spinner} {msg} {elapsed_precise} elapsed";

impl EstimateProgress {
    /// A spinner that says the data are being checked (made before the library checks them).
    pub fn new(quiet: bool) -> Self {
        let bar = if quiet {
            indicatif::ProgressBar::hidden()
        } else {
            indicatif::ProgressBar::with_draw_target(Some(0), indicatif::ProgressDrawTarget::stderr())
        };
        let p = EstimateProgress { bar };
        p.show(OTHER, "checking the data and choosing the estimators");
        p.bar.enable_steady_tick(std::time::Duration::from_millis(200));
        p
    }

    /// The training steps the run takes at most (the bar's length).
    pub fn set_steps(&self, total: u64) {
        self.bar.set_length(total);
    }

    /// Runs `f` (which writes to stderr) with the progress line cleared.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.bar.suspend(f)
    }

    /// Clears the progress line.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }

    fn show(&self, template: &str, message: &'static str) {
        if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
            self.bar.set_style(style.with_key("left", time_left));
        }
        self.bar.set_message(message);
    }
}

impl Drop for EstimateProgress {
    /// A run that stops with an error leaves no progress line above the error.
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

impl Progress for EstimateProgress {
    fn advance(&self, steps: u64) {
        self.bar.inc(steps);
    }

    fn phase(&self, phase: Phase) {
        match phase {
            Phase::Training => self.show(TRAINING, ""),
            Phase::Estimating => self.show(OTHER, "the estimators that do not train"),
            Phase::Testing => self.show(OTHER, "the permutation test of independence"),
        }
    }
}

/// The time left at the rate so far (indicatif's estimate), once a step was counted.
fn time_left(state: &indicatif::ProgressState, out: &mut dyn std::fmt::Write) {
    let _ = if state.pos() == 0 {
        write!(out, "time left not known yet")
    } else {
        write!(out, "about {:#} left", indicatif::HumanDuration(state.eta()))
    };
}
