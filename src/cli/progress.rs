//! The command line's progress bars (indicatif), as observers of the training runner.

use crate::error::Result;
use crate::train::{Observer, StepRecord};

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
