//! Flow-based estimators behind the [`Estimator`] interface: `flow` is Butakov et al.'s
//! flow-Gaussianisation (see [`crate::flows`] and docs/flows.md) — two normalizing flows map x
//! and y so that the pair is jointly Gaussian, and the MI is read off the canonical correlations
//! of held-out latents. Not capped at log N; not a bound.

use super::{Diagnostics, Estimate, Estimator, Interval, Kind, check_inputs};
use crate::error::Result;
use crate::flows::{FitConfig, GaussianisationConfig, Stop, estimate};
use nalgebra::DMatrixView;

/// Flow-Gaussianisation (`flow`, `flow:steps=N`).
#[derive(Clone, Debug, PartialEq)]
pub struct FlowGaussian {
    /// The model, training and split settings (the seed is the estimate's).
    pub config: GaussianisationConfig,
}

impl FlowGaussian {
    /// The default configuration with at most `steps` joint training steps.
    pub fn new(steps: u64) -> Result<Self> {
        if steps == 0 {
            return Err(crate::Error::param("flow steps", 0, "must be at least 1"));
        }
        let d = GaussianisationConfig::default();
        Ok(FlowGaussian { config: GaussianisationConfig { fit: FitConfig { max_steps: steps, ..d.fit }, ..d } })
    }
}

impl Estimator for FlowGaussian {
    fn name(&self) -> String {
        let default = GaussianisationConfig::default().fit.max_steps;
        match self.config.fit.max_steps {
            s if s == default => "flow".into(),
            s => format!("flow:steps={s}"),
        }
    }

    fn kind(&self) -> Kind {
        Kind::Estimate
    }

    fn estimate(&self, x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, seed: u64) -> Result<Estimate> {
        let started = std::time::Instant::now();
        check_inputs(x, y, 10)?;
        let cfg = GaussianisationConfig { seed, ..self.config.clone() };
        let r = estimate(&x.clone_owned(), &y.clone_owned(), &cfg)?;
        let (low, high) = r.interval.unwrap_or((r.mi, r.mi));
        let mut d = Diagnostics { steps: Some(r.fit.steps), ..Default::default() };
        if let Stop::Diverged { step, what } = &r.fit.stop {
            d.diverged = true;
            d.warnings.push(format!(
                "diverged at step {step} ({what}); the last validated parameters (step {}) are used",
                r.fit.best_step
            ));
        }
        if r.train_mi - r.mi > (high - low).max(0.05) {
            d.warnings.push(format!(
                "the flows overfit: the training rows read {:.3}, the held-out rows {:.3}",
                r.train_mi, r.mi
            ));
        }
        for (k, v) in [
            ("initial_mi", r.initial_mi),
            ("train_mi", r.train_mi),
            ("model_mi", r.model_mi),
            ("test_log_likelihood", r.test_log_likelihood),
        ] {
            d.values.insert(k.into(), v);
        }
        if let Some(b) = r.bias_corrected {
            d.values.insert("bias_corrected".into(), b);
        }
        let method = format!("basic bootstrap of the held-out read-off ({} resamples; training fixed)", cfg.bootstrap);
        let mut e = Estimate::new(
            self.name(),
            "Flow (Gaussianisation)",
            r.mi,
            Interval::new(low, high, method),
            Kind::Estimate,
            (x.nrows(), x.ncols(), y.ncols()),
        )
        .with_settings(serde_json::to_value(&cfg).unwrap_or_default())
        .with_diagnostics(d);
        e.wall_seconds = started.elapsed().as_secs_f64();
        Ok(e)
    }
}
