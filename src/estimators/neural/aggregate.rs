//! Stage 3 of a neural estimate: the folds' held-out values of each bound become one
//! [`Estimate`]: their mean, a Nadeau–Bengio-corrected t-interval, the warnings of its folds and
//! the settings that reproduce it.

use super::candidates::{Candidate, CandidateKind, Candidates, Neighbours};
use super::config::{LabelColumns, NeuralConfig};
use super::fold::GroupOutcome;
use super::plan::Plan;
use crate::bounds::{Bound, BoundSpec};
use crate::critics::CriticSpec;
use crate::error::{Error, Result};
use crate::estimators::{Diagnostics, Estimate, Interval, Kind, SettingsUsed, Warning, WarningCode};
use crate::optim::AdamConfig;
use crate::train::mean_std;
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// What the folds gave for one bound.
#[derive(Clone, Debug, Default)]
pub(super) struct BoundFolds {
    /// Held-out value of each fold.
    pub values: Vec<f64>,
    pub warnings: Vec<Warning>,
    pub steps: u64,
    pub diverged: bool,
    /// Conditional models: log-likelihood gain over the marginal model, per fold.
    pub q_gain: Vec<f64>,
    /// The candidate each fold kept.
    pub choices: Vec<Candidate>,
}

impl BoundFolds {
    /// Collects, per requested bound, what every fold's critic groups gave.
    pub fn collect(bounds: usize, folds: Vec<Vec<GroupOutcome>>) -> (Vec<BoundFolds>, Vec<super::TraceRow>) {
        let mut per = vec![BoundFolds::default(); bounds];
        let mut trace = Vec::new();
        for fold in folds {
            for o in fold {
                for &(m, v) in &o.values {
                    let b = &mut per[m];
                    b.values.push(v);
                    b.warnings.extend(o.warnings.iter().cloned());
                    b.steps += o.steps;
                    b.diverged |= o.diverged;
                    b.q_gain.extend(o.q_gain);
                    b.choices.push(o.choice.clone());
                }
                trace.extend(o.trace);
            }
        }
        (per, trace)
    }
}

/// The settings that produced a neural estimate, enough to reproduce it (`settings` of its
/// [`Estimate`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NeuralSettings {
    /// The bound.
    pub bound: String,
    /// The label of the objective its critic trained.
    pub trained_with: String,
    /// The configured critic.
    pub critic: CriticSpec,
    /// The candidates each fold compared beside it ([`Candidates::none`] for a conditional
    /// model).
    pub candidates: Candidates,
    /// The candidate each fold kept.
    pub chosen_per_fold: Vec<Candidate>,
    /// Training batch N.
    pub batch: usize,
    /// Rows per test batch (InfoNCE's N).
    pub eval_batch: usize,
    /// Steps per critic at most.
    pub max_steps: u64,
    /// Folds.
    pub folds: usize,
    /// Steps between validation checks.
    pub eval_every: u64,
    /// Steps without validation improvement before stopping.
    pub patience: u64,
    /// Optimiser.
    pub adam: AdamConfig,
    /// The marginal map.
    pub transform: String,
    /// The seed.
    pub seed: u64,
    /// The gemm backend.
    pub backend: &'static str,
    /// Columns read as class labels (one-hot); absent from the JSON when there are none.
    #[serde(skip_serializing_if = "LabelColumns::is_empty")]
    pub labels: LabelColumns,
}

impl NeuralSettings {
    /// The settings of bound `spec`'s estimate with `cfg` as `plan` ran it, each fold having
    /// kept `chosen`.
    fn new(spec: &BoundSpec, cfg: &NeuralConfig, plan: &Plan, chosen: Vec<Candidate>, seed: u64) -> Result<Self> {
        let trainer = spec.trainer();
        let candidates = if trainer.needs_log_density() { Candidates::none() } else { cfg.candidates.clone() };
        Ok(NeuralSettings {
            bound: spec.to_string(),
            trained_with: super::scoring::objective_bound(cfg, trainer)?.label(),
            critic: cfg.critic_for(spec).clone(),
            candidates,
            chosen_per_fold: chosen,
            batch: plan.batch,
            eval_batch: plan.eval_batch,
            max_steps: cfg.max_steps,
            folds: cfg.folds,
            eval_every: plan.eval_every,
            patience: cfg.patience,
            adam: cfg.adam.clone(),
            transform: cfg.transform.to_string(),
            seed,
            backend: cfg.compute.backend.name(),
            labels: cfg.labels.clone(),
        })
    }

    /// The nearest-neighbour critic every fold kept ([`NeuralSettings::chosen_per_fold`]), as
    /// the settings name it; `None` when a fold kept another critic or folds differ.
    pub fn nearest_neighbour_kept(&self) -> Option<Neighbours> {
        let first = self.chosen_per_fold.first()?;
        let CandidateKind::Neighbours(kept) = first.kind else { return None };
        self.chosen_per_fold.iter().all(|c| c == first).then_some(kept)
    }
}

/// The mean of the folds' held-out `values` and the half-width of its 95 % interval: Student's
/// t over the folds with Nadeau & Bengio's correction `√(1/K + n_test/n_train)` (the folds'
/// training sets overlap; `n_test/n_train = 1/(K − 1)` for K equal folds).
pub(super) fn fold_interval(values: &[f64]) -> Result<(f64, f64)> {
    let folds = values.len();
    let t = StudentsT::new(0.0, 1.0, folds.saturating_sub(1) as f64)
        .map_err(|e| Error::param("folds", folds, &e.to_string()))?;
    let q = t.inverse_cdf(0.975);
    let k = folds as f64;
    let correction = (1.0 / k + 1.0 / (k - 1.0)).sqrt();
    let (mean, sd) = mean_std(values.iter().copied());
    Ok((mean, q * sd * correction))
}

/// The estimate of bound `spec` from its folds' values.
pub(super) fn estimate(
    spec: &BoundSpec,
    folds: BoundFolds,
    cfg: &NeuralConfig,
    plan: &Plan,
    shape: (usize, usize, usize),
    seed: u64,
) -> Result<Estimate> {
    let b = spec.build::<f32>()?;
    let (mean, half) = fold_interval(&folds.values)?;
    // A lowered batch caps InfoNCE at its log: said only where the interval comes within half a
    // nat of that cap, where it may be what holds the estimate down.
    let capped = |w: &&Warning| w.code != WarningCode::FewRows || mean + half > (plan.batch as f64).ln() - 0.5;
    let mut w: Vec<Warning> = plan.notes.iter().filter(capped).cloned().collect();
    w.extend(folds.warnings);
    w.extend(bound_warnings(spec, b.as_ref(), &folds.q_gain, mean, plan));
    let settings = NeuralSettings::new(spec, cfg, plan, folds.choices, seed)?;
    let mut diagnostics = Diagnostics {
        warnings: w,
        steps: Some(folds.steps),
        diverged: folds.diverged,
        folds: folds.values,
        ..Default::default()
    };
    if plan.repeats > 0 {
        diagnostics.values.insert("repeated_rows".into(), plan.repeats as f64);
    }
    Ok(Estimate::new(
        spec.to_string(),
        b.label(),
        mean,
        Interval::new(mean - half, mean + half, format!("t over {} folds, Nadeau-Bengio corrected", cfg.folds)),
        b.kind(),
        shape,
    )
    .with_settings(SettingsUsed::Neural(Box::new(settings)))
    .with_diagnostics(diagnostics))
}

/// What the folds' mean says about bound `spec` (built as `b`): an upper bound whose
/// conditional model fits worse than the marginal one (`q_gain`: its log-likelihood gains per
/// fold), a value that is not finite, InfoNCE at its ceiling `log eval_batch`.
fn bound_warnings(spec: &BoundSpec, b: &dyn Bound<f32>, q_gain: &[f64], mean: f64, plan: &Plan) -> Vec<Warning> {
    let (mut w, eval_batch) = (Vec::new(), plan.eval_batch);
    if let Some(g) = (!q_gain.is_empty()).then(|| q_gain.iter().sum::<f64>() / q_gain.len() as f64)
        && g <= 0.0
        && b.kind() == Kind::UpperIfExact
    {
        let message = format!(
            "{}: upper bound not valid here: q(y|x) fits the held-out rows worse than the marginal model q(y) (log-likelihood gain {g:.3} nats per row); it is not an upper bound on this data",
            b.label()
        );
        w.push(Warning::new(WarningCode::InvalidUpperBound, message).with("log_likelihood_gain", g));
    }
    if !mean.is_finite() {
        let message = format!(
            "{}: the held-out value is not finite (the critic overfits or diverged); it is not an estimate",
            b.label()
        );
        w.push(Warning::new(WarningCode::NotFinite, message));
    }
    let log_n = (eval_batch as f64).ln();
    if *spec == BoundSpec::InfoNce && mean > log_n - 0.5 {
        let message = format!(
            "InfoNCE ({mean:.3}) is at its ceiling log N = {log_n:.3} (N = {} rows per test batch): the true MI may be much higher; raise --batch, add data or rely on the other estimators",
            eval_batch
        );
        w.push(Warning::new(WarningCode::AtCeiling, message).with("value", mean).with("ceiling", log_n));
    }
    w
}
