//! Stage 2 of a neural estimate: one fold. For each critic group the fold's candidates
//! ([`NeuralConfig::candidates_for`]) are compared on its validation rows: the trained ones
//! race on its fit rows (`race`), the untrained ones (`untrained`) are built on its reference
//! rows meanwhile, and the best validated is kept; the group's bounds are then evaluated on the
//! fold's test rows, which neither training nor any choice saw, through the same interface for
//! every kind of critic (`scoring::Scoring`).

use super::TraceRow;
use super::candidates::{Candidate, CandidateId};
use super::config::{NeuralConfig, whole_fold_batches};
use super::fold_data::FoldData;
use super::plan::CriticGroup;
use super::race::{self, TrainedCritic};
use super::scoring::Scoring;
use super::untrained::{self, Untrained};
use crate::bounds::Bound;
use crate::error::Result;
use crate::estimators::{Warning, WarningCode};
use crate::rng::Stream;
use crate::train::{Outcome, Termination, random_batches};
use nalgebra::DMatrix;

/// Random batches per held-out evaluation of a test fold.
const TEST_BATCHES: usize = 32;

/// What one critic group of one fold gave.
pub(super) struct GroupOutcome {
    /// `(bound index, held-out value)`.
    pub values: Vec<(usize, f64)>,
    pub trace: Vec<TraceRow>,
    pub warnings: Vec<Warning>,
    pub steps: u64,
    pub diverged: bool,
    /// For a conditional model: held-out mean `log q(y|x)` minus that of the marginal model.
    pub q_gain: Option<f64>,
    /// The candidate the fold kept.
    pub choice: Candidate,
}

/// The critic a fold keeps: a trained one or one that needs no training.
enum Kept {
    Trained(TrainedCritic),
    Untrained(Untrained),
}

impl Kept {
    fn scoring(&mut self) -> &mut dyn Scoring {
        match self {
            Kept::Trained(t) => t,
            Kept::Untrained(u) => u,
        }
    }
}

/// Trains the group's critic (choosing among its candidates, or candidate `only` when the
/// choice was made on another fold) and evaluates its bounds on the test rows.
pub(super) fn run_group(
    fold: &FoldData,
    group: &CriticGroup,
    seed: u64,
    only: Option<CandidateId>,
) -> Result<GroupOutcome> {
    let cfg = fold.cfg;
    let trainer = group.trainer;
    let mut candidates = cfg.candidates_for(&trainer);
    if let Some(id) = only {
        candidates.retain(|c| c.id == id);
    }
    let (trained, untrained): (Vec<Candidate>, Vec<Candidate>) =
        candidates.into_iter().partition(Candidate::is_trained);
    // The untrained candidates are built and validated while the trained ones run their
    // pilot (each on its own seed and state, so running them side by side changes no number):
    // the best of them is the floor the trained candidates must beat after the pilot. When the
    // untrained side fails, its error is returned once the pilot has run, and the pilot's runs
    // are dropped unfinished (their last few progress steps are not reported); neither side
    // checks for cancellation between the two.
    let (best_untrained, pilot) = rayon::join(
        || untrained::best(fold, &untrained, only.is_some(), trainer, seed),
        || race::start(fold, trainer, &trained, seed),
    );
    let best_untrained = best_untrained?;
    let floor = best_untrained.as_ref().map_or(f64::NEG_INFINITY, |b| b.2);
    let (best_trained, steps) = race::keep_best(fold, pilot?, floor)?;
    let (choice, mut kept) = match (best_trained, best_untrained) {
        (Some((c, t)), _) => (c, Kept::Trained(t)),
        (None, Some((c, u, _))) => (c, Kept::Untrained(u)),
        (None, None) => unreachable!("a fold has at least one candidate"),
    };
    if let Some(f) = fold.progress {
        // The steps not taken (early stops, candidates dropped after the pilot), so the bar
        // reaches its end. The bar planned every trained candidate, or the one chosen elsewhere
        // (when that needs no training, its steps are never taken).
        let planned = if only.is_some() { 1 } else { trained.len() };
        f.advance(cfg.steps_per_fold(planned).saturating_sub(steps));
    }
    let label = trainer.build::<f32>()?.label();
    let (warnings, diverged) = match &kept {
        Kept::Trained(t) => training_warnings(&t.outcome, &label, fold),
        Kept::Untrained(_) => (Vec::new(), false),
    };
    let (values, q_gain) = evaluate(fold, &choice, &mut kept, group, seed)?;
    let trace = match kept {
        Kept::Trained(t) => t.trace,
        Kept::Untrained(_) => Vec::new(),
    };
    Ok(GroupOutcome { values, trace, warnings, steps, diverged, q_gain, choice })
}

/// What a trained critic's run says: a divergence (and whether it diverged), or a critic still
/// improving at the step limit.
fn training_warnings(out: &Outcome<f32>, label: &str, fold: &FoldData) -> (Vec<Warning>, bool) {
    let (cfg, mut warnings) = (fold.cfg, Vec::new());
    let best_step = out.best_step.unwrap_or(0);
    let diverged = matches!(out.termination, Termination::Diverged { .. });
    if let Termination::Diverged { step, what } = &out.termination {
        let message = format!(
            "diverged: the {label} critic of fold {} diverged at step {step} ({what}); its last validated parameters (step {best_step}) are used",
            fold.index + 1
        );
        warnings.push(Warning::new(WarningCode::Diverged, message).with("step", *step as f64));
    }
    if out.termination == Termination::MaxSteps && best_step + fold.plan.eval_every >= cfg.max_steps {
        let message = format!(
            "not converged: the {label} critic of fold {} was still improving on validation data at the step limit ({}); raise --steps",
            fold.index + 1,
            cfg.max_steps
        );
        warnings.push(Warning::new(WarningCode::NotConverged, message).with("max_steps", cfg.max_steps as f64));
    }
    (warnings, diverged)
}

/// The group's bounds on the kept critic (candidate `choice`), over batches of the fold's test
/// rows, and for a conditional model its log-likelihood gain over the marginal model.
fn evaluate(fold: &FoldData, choice: &Candidate, kept: &mut Kept, group: &CriticGroup, seed: u64) -> Result<Evaluated> {
    let mut bounds: Vec<Box<dyn Bound<f32>>> =
        group.members.iter().map(|(_, b)| b.build::<f32>()).collect::<Result<_>>()?;
    let batches = test_batches(fold.cfg, fold, seed);
    let vals = kept.scoring().mean_values(fold.seen_by(&choice.kind), &mut bounds, &batches)?;
    // A conditional model's objective is its mean log-likelihood log q(y_i|x_i): compare it
    // with the marginal model's on the same rows.
    let q_gain = group.trainer.needs_log_density().then(|| {
        let d = fold.dataset();
        let test_rows: Vec<usize> = batches.iter().flatten().copied().collect();
        vals[0].1 - marginal_log_likelihood(&d.y, &d.train, &test_rows)
    });
    Ok((group.members.iter().map(|m| m.0).zip(vals.into_iter().map(|v| v.0)).collect(), q_gain))
}

/// The held-out values `(bound index, value)` of a group and a conditional model's
/// log-likelihood gain.
type Evaluated = (Vec<(usize, f64)>, Option<f64>);

/// The batches of the fold's test rows the bounds are evaluated on, drawn from `seed`: with
/// [`NeuralConfig::test_batch`] `Some(0)` the whole test fold, as one batch (N = its rows) or
/// disjoint batches of nearly equal size, every row in one of them; else random batches.
fn test_batches(cfg: &NeuralConfig, fold: &FoldData, seed: u64) -> Vec<Vec<usize>> {
    let test = &fold.rows.test;
    if cfg.test_batch == Some(0) {
        let order = random_batches(test, test.len(), 1, Stream::TestBatches.seed(seed)).remove(0);
        let parts = whole_fold_batches(order.len());
        let (size, longer) = (order.len() / parts, order.len() % parts);
        let mut rest = order.as_slice();
        (0..parts)
            .map(|p| {
                let (batch, after) = rest.split_at(size + usize::from(p < longer));
                rest = after;
                batch.to_vec()
            })
            .collect()
    } else {
        let eval_batch = fold.plan.eval_batch;
        let count = if eval_batch >= test.len() { 1 } else { TEST_BATCHES };
        random_batches(test, eval_batch, count, Stream::TestBatches.seed(seed))
    }
}

/// Mean log-likelihood, on the rows `test`, of the marginal model of `y`: independent Gaussians
/// per coordinate with the mean and variance of the rows `train` — what a conditional model
/// `q(y|x)` must beat for its upper bounds to mean anything.
fn marginal_log_likelihood(y: &DMatrix<f64>, train: &[usize], test: &[usize]) -> f64 {
    const LN_2PI: f64 = 1.837_877_066_409_345_5;
    let mut ll = 0.0;
    for c in y.column_iter() {
        let n = train.len() as f64;
        let mean = train.iter().map(|&i| c[i]).sum::<f64>() / n;
        let var = (train.iter().map(|&i| (c[i] - mean).powi(2)).sum::<f64>() / n).max(1e-12);
        ll += test.iter().map(|&i| -0.5 * (LN_2PI + var.ln() + (c[i] - mean).powi(2) / var)).sum::<f64>()
            / test.len() as f64;
    }
    ll
}
