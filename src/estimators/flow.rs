//! Flow-based estimators behind the [`Estimator`] interface (see [`crate::flows`] and
//! docs/flows.md). Neither is capped at log N; neither is a bound.
//!
//! - `flow` ([`FlowGaussian`]) is Butakov et al.'s (2024) flow-Gaussianisation: two normalizing
//!   flows map x and y so that the pair is jointly Gaussian, and the MI is read off the canonical
//!   correlations of held-out latents.
//! - `flow-entropy` ([`FlowEntropy`]) is the difference of entropies `H(X) + H(Y) − H(X, Y)`
//!   with three flows fitted by maximum likelihood, each entropy a held-out cross-entropy (in the
//!   spirit of McAllester & Stratos 2020). It sees dependence that no pair of per-variable maps
//!   turns into a Gaussian correlation (a shared scale, as in a multivariate Student-t).

use super::{Diagnostics, Estimate, Estimator, Interval, Kind, SettingsUsed, Warning, WarningCode, check_inputs};
use crate::error::Result;
use crate::flows::{FitReport, GaussianisationConfig, entropy_difference, estimate};
use crate::train::Termination;
use nalgebra::{DMatrix, DMatrixView};

/// Flow-Gaussianisation (`flow`, `flow:steps=N`).
#[derive(Clone, Debug, PartialEq)]
pub struct FlowGaussian {
    /// The model, training and split settings (the seed is the estimate's).
    pub config: GaussianisationConfig,
}

impl FlowGaussian {
    /// The default configuration with at most `steps` joint training steps.
    pub fn new(steps: u64) -> Result<Self> {
        Ok(FlowGaussian { config: with_steps("flow", steps, GaussianisationConfig::default())? })
    }
}

/// `base` with at most `steps` training steps (an error for 0, naming `family`).
fn with_steps(family: &str, steps: u64, base: GaussianisationConfig) -> Result<GaussianisationConfig> {
    if steps == 0 {
        return Err(crate::Error::param(&format!("{family} steps"), 0, "must be at least 1"));
    }
    Ok(GaussianisationConfig { max_steps: steps, ..base })
}

/// The canonical name of a flow estimator: `family` at the default step limit,
/// `family:steps=N` otherwise.
pub(crate) fn canonical_name(family: &str, steps: u64) -> String {
    if steps == GaussianisationConfig::default().max_steps { family.into() } else { format!("{family}:steps={steps}") }
}

impl Estimator for FlowGaussian {
    fn name(&self) -> String {
        canonical_name("flow", self.config.max_steps)
    }

    fn kind(&self) -> Kind {
        Kind::Estimate
    }

    fn estimate(&self, x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, seed: u64) -> Result<Estimate> {
        let run = Run::start(x, y, seed, &self.config)?;
        let (cfg, r) = (&run.cfg, estimate(&run.x, &run.y, &run.cfg)?);
        let (low, high) = r.interval.unwrap_or((r.mi, r.mi));
        let mut d = Diagnostics { steps: Some(r.fit.steps), ..Default::default() };
        if let Termination::Diverged { step, what } = &r.fit.stop {
            d.diverged = true;
            let message = format!(
                "diverged at step {step} ({what}); the last validated parameters (step {}) are used",
                r.fit.best_step
            );
            d.warnings.push(Warning::new(WarningCode::Diverged, message).with("step", *step as f64));
        }
        if r.train_mi - r.mi > (high - low).max(0.05) {
            d.warnings.push(overfit(r.train_mi, r.mi));
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
        Ok(run.finish(self.name(), "Flow (Gaussianisation)", r.mi, Interval::new(low, high, method), d))
    }
}

/// The three-flow entropy difference (`flow-entropy`, `flow-entropy:steps=N`): flows `q_x`,
/// `q_y` and `q_xy` with standard-normal bases are fitted by maximum likelihood on the training
/// rows (model selection on the validation rows), and the estimate is the held-out mean of
/// `log q_xy(x, y) − log q_x(x) − log q_y(y)`, i.e. `Ĥ(X) + Ĥ(Y) − Ĥ(X, Y)` with each `Ĥ` a
/// held-out cross-entropy ([`crate::flows::entropy_difference`]).
///
/// Each cross-entropy upper-bounds its entropy, so the estimate is the true MI plus
/// `KL(p_x‖q_x) + KL(p_y‖q_y) − KL(p_xy‖q_xy)`: **not a bound** in either direction
/// (McAllester & Stratos 2020). The interval is `Î ± 1.96·sd/√n_test` over the test rows'
/// pointwise values, with the flows fixed.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowEntropy {
    /// Architecture, training and split settings, of the same type as `flow`'s (its `cca_init`
    /// and `bootstrap` do not apply; the seed is the estimate's).
    pub config: GaussianisationConfig,
}

impl FlowEntropy {
    /// The default configuration with at most `steps` training steps per flow: `flow`'s
    /// settings except the couplings, 8 blocks of `[16, 16]` instead of 4 of `[64, 64]`. Each
    /// flow here is fitted alone on 72 % of the rows, and the wide couplings overfit (the
    /// training rows read far above the held-out ones on bmi's Student-t and spiral tasks,
    /// which pulls the estimate down, since the joint flow overfits most); fewer, deeper
    /// parameters overfit less. See docs/flows.md for the measured comparison.
    pub fn new(steps: u64) -> Result<Self> {
        let base = GaussianisationConfig { blocks: 8, hidden: vec![16, 16], ..GaussianisationConfig::default() };
        Ok(FlowEntropy { config: with_steps("flow-entropy", steps, base)? })
    }
}

impl Estimator for FlowEntropy {
    fn name(&self) -> String {
        canonical_name("flow-entropy", self.config.max_steps)
    }

    fn kind(&self) -> Kind {
        Kind::Estimate
    }

    fn estimate(&self, x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, seed: u64) -> Result<Estimate> {
        let run = Run::start(x, y, seed, &self.config)?;
        let (cfg, r) = (&run.cfg, entropy_difference(&run.x, &run.y, &run.cfg)?);
        let half = 1.96 * r.se;
        let mut d =
            Diagnostics { steps: Some(r.fits.iter().map(|f| f.steps).sum()), folds: vec![r.mi], ..Default::default() };
        for (which, f) in ["x", "y", "joint"].iter().zip(&r.fits) {
            note_fit(&mut d, which, f, cfg.max_steps);
        }
        if r.train_mi - r.mi > (2.0 * half).max(0.05) {
            d.warnings.push(overfit(r.train_mi, r.mi));
        }
        let (hx, hy, hxy) = r.cross_entropies;
        for (k, v) in [("train_mi", r.train_mi), ("se", r.se), ("h_x", hx), ("h_y", hy), ("h_xy", hxy)] {
            d.values.insert(k.into(), v);
        }
        let method = format!(
            "normal, ±1.96 × sd of the {} held-out pointwise log-ratios / √{0} (flows fixed; training spread not included)",
            r.rows.2
        );
        let interval = Interval::new(r.mi - half, r.mi + half, method);
        Ok(run.finish(self.name(), "Flow (entropy difference)", r.mi, interval, d))
    }
}

/// What both flow estimators do around their fit: check the input, put the estimate's seed in
/// the configuration, time it, and wrap the result with its settings and diagnostics.
struct Run {
    started: std::time::Instant,
    cfg: GaussianisationConfig,
    x: DMatrix<f64>,
    y: DMatrix<f64>,
}

impl Run {
    fn start(
        x: DMatrixView<'_, f64>,
        y: DMatrixView<'_, f64>,
        seed: u64,
        config: &GaussianisationConfig,
    ) -> Result<Run> {
        let started = std::time::Instant::now();
        check_inputs(x, y, 10)?;
        let cfg = GaussianisationConfig { seed, ..config.clone() };
        Ok(Run { started, cfg, x: x.clone_owned(), y: y.clone_owned() })
    }

    fn finish(self, name: String, label: &str, value: f64, interval: Interval, d: Diagnostics) -> Estimate {
        let mut e = Estimate::new(
            name,
            label,
            value,
            interval,
            Kind::Estimate,
            (self.x.nrows(), self.x.ncols(), self.y.ncols()),
        )
        .with_settings(SettingsUsed::Flow(Box::new(self.cfg.clone())))
        .with_diagnostics(d);
        e.wall_seconds = self.started.elapsed().as_secs_f64();
        e
    }
}

/// The flows read more on their training rows than on the held-out rows.
fn overfit(train_mi: f64, held_out: f64) -> Warning {
    let message = format!("the flows overfit: the training rows read {train_mi:.3}, the held-out rows {held_out:.3}");
    Warning::new(WarningCode::Overfit, message).with("train_mi", train_mi).with("held_out_mi", held_out)
}

/// Warnings for one of the three fits: divergence, and a fit still improving at its last step.
fn note_fit(d: &mut Diagnostics, which: &str, f: &FitReport, max_steps: u64) {
    if let Termination::Diverged { step, what } = &f.stop {
        d.diverged = true;
        let message = format!(
            "the {which} flow diverged at step {step} ({what}); its last validated parameters (step {}) are used",
            f.best_step
        );
        d.warnings.push(Warning::new(WarningCode::Diverged, message).with("step", *step as f64));
    } else if f.stop == Termination::MaxSteps && f.best_step == max_steps {
        let message = format!(
            "the {which} flow was still improving at its last step ({max_steps}); more steps may change the estimate"
        );
        d.warnings.push(Warning::new(WarningCode::NotConverged, message).with("max_steps", max_steps as f64));
    }
}
