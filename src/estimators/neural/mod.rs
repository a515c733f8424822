//! Neural bounds as estimators: any bound × any critic, trained and evaluated on held-out rows.
//!
//! 1. The rows are split into `K` folds; identical rows (the same x and y) always fall into the
//!    same fold, so a duplicated row can never be trained on and tested on.
//! 2. For each fold, each coordinate goes through a map fitted on the fold's training rows
//!    ([`super::marginal::MarginalTransform`]; default: ranks → normal scores, which tames heavy tails and odd
//!    marginals — MI is unchanged by invertible maps of each coordinate). A critic is trained
//!    on the training rows
//!    with the bound's training objective (JS and SMILE share a JS-trained critic; CLUB,
//!    CLUB-sample, L1Out and BA share a conditional `q(y|x)` fitted by maximum likelihood), with
//!    10 % of the training rows held back for validation: the runner keeps the parameters with
//!    the best validation objective (checked once per epoch by default; training stops after
//!    `patience` steps without improvement). The untrained, information-free critic is a
//!    candidate too. With [`Candidates::alternatives`] (by default two: deeper critics with
//!    weight decay, with ReLU and with softplus units), each fold also trains those critics
//!    and keeps the one whose best validation objective is highest — chosen on the fold's
//!    validation rows, so its test rows still see nothing of the choice.
//! 3. The bound is evaluated on the fold's **test** rows (random batches of size N), which
//!    neither training nor the choice of parameters saw. Selecting the best value *on the test
//!    set*, as benchmark-mi does, would bias the estimate upward.
//! 4. The estimate is the mean over folds. The 95 % interval is Nadeau & Bengio's corrected
//!    resampled t-interval, `mean ± t_{0.975, K−1}·sd·√(1/K + n_test/n_train)`: the folds'
//!    training sets overlap, so their values are correlated and the naive `sd/√K` understates
//!    the variance (Nadeau & Bengio 2003, "Inference for the generalization error").
//!
//! Small data sets adapt: when a fold's training rows are fewer than the batch, the batch is
//! lowered (to a power of two, at least 8) with a warning. Bounds are evaluated on test batches
//! (by default the whole test fold, split into disjoint batches of at most
//! [`MAX_TEST_BATCH`] rows) — the size reported as `eval_batch`, which is also the N of
//! InfoNCE's `log N` ceiling.
//!
//! Large data sets are bounded: a fold trains on at most [`MAX_TRAINING_ROWS`] rows and is
//! tested on at most [`MAX_TEST_ROWS`] (random subsets, with a note), its
//! nearest-neighbour and Gaussian candidates take at most [`MAX_KNN_REFERENCE`] reference
//! rows, and at most as many folds run at once as the thread pool has threads. Before any work
//! the planned peak memory is checked against [`NeuralConfig::max_memory_mb`] (`memory`): an
//! estimate that would not fit is refused with [`crate::error::Error::Memory`], naming the
//! setting to change.
//!
//! Several bounds asked for together ([`estimate_bounds`]) share the critics they can share;
//! each critic's seed depends only on the estimate's seed, the fold and the training objective,
//! so a bound estimated alone ([`Neural`]) gives exactly the number it gives in company.

mod aggregate;
mod candidates;
mod conditional;
mod config;
mod fold;
mod fold_data;
mod memory;
mod plan;
mod race;
mod scoring;
mod untrained;

pub use aggregate::NeuralSettings;
pub use candidates::{
    Alternative, BLOCK_LINK_Z, Candidate, CandidateId, CandidateKind, Candidates, MAX_BLOCK_COLUMNS, MAX_BLOCKS,
    MAX_KNN_REFERENCE, MAX_WALK_ROWS, Neighbours, WALK_NEIGHBOURS, default_tails,
};
pub use conditional::conditional_estimate;
pub use config::{LabelColumns, MAX_TEST_BATCH, NeuralConfig, STEP_THREADS, ValidNeuralConfig, whole_fold_batches};
pub use plan::{MAX_TEST_ROWS, MAX_TRAINING_ROWS};

use super::{Estimate, Estimator, Kind};
use crate::bounds::BoundSpec;
use crate::error::Result;
use crate::train::Progress;
use nalgebra::DMatrixView;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// One bound of a critic, trained and evaluated held-out: an [`Estimator`].
#[derive(Clone, Debug, PartialEq)]
pub struct Neural {
    /// The bound.
    pub bound: BoundSpec,
    /// Critic, training and fold settings, checked.
    pub config: ValidNeuralConfig,
}

impl Neural {
    /// `bound` with `config` (checked here, once).
    pub fn new(bound: BoundSpec, config: NeuralConfig) -> Result<Self> {
        Self::checked(bound, config.check()?)
    }

    /// `bound` with settings already checked.
    pub fn checked(bound: BoundSpec, config: ValidNeuralConfig) -> Result<Self> {
        bound.build::<f32>()?;
        Ok(Neural { bound, config })
    }
}

impl Estimator for Neural {
    fn name(&self) -> String {
        self.bound.to_string()
    }

    fn kind(&self) -> Kind {
        self.bound.build::<f32>().map_or(Kind::Estimate, |b| b.kind())
    }

    fn estimate(&self, x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, seed: u64) -> Result<Estimate> {
        self.estimate_with_progress(x, y, seed, None)
    }

    fn estimate_with_progress(
        &self,
        x: DMatrixView<'_, f64>,
        y: DMatrixView<'_, f64>,
        seed: u64,
        progress: Option<&dyn Progress>,
    ) -> Result<Estimate> {
        let run = estimate_bounds(&[self.bound], &self.config, x, y, seed, progress)?;
        Ok(run.estimates.into_iter().next().expect("one estimate per bound"))
    }
}

/// One step of one critic's training, for `--trace` and `--plot`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceRow {
    /// Fold index.
    pub fold: usize,
    /// The trained bound's label.
    pub bound: String,
    /// Step.
    pub step: u64,
    /// Value on the training batch.
    pub train: f64,
    /// Validation objective at checks (NaN otherwise).
    pub validation: f64,
}

/// The estimates of [`estimate_bounds`] with the training trace of every critic.
#[derive(Clone, Debug)]
pub struct NeuralRun {
    /// One estimate per requested bound, in order.
    pub estimates: Vec<Estimate>,
    /// Per-step training values and validation checks of every critic and fold.
    pub trace: Vec<TraceRow>,
}

/// `run` of every fold of `folds`, in order, at most as many at once as the thread pool has
/// threads (which `memory` counts on: a fold waiting for its steps' halves would otherwise
/// start another fold, and its memory, beside it).
fn at_most_threads<T: Send>(folds: std::ops::Range<usize>, run: impl Fn(usize) -> Result<T> + Sync) -> Result<Vec<T>> {
    let all: Vec<usize> = folds.collect();
    let mut out = Vec::with_capacity(all.len());
    for chunk in all.chunks(rayon::current_num_threads().max(1)) {
        out.extend(chunk.par_iter().map(|&f| run(f)).collect::<Result<Vec<T>>>()?);
    }
    Ok(out)
}

/// A seed for the critic of one training objective in one fold: it depends on the estimate's
/// seed, the fold and the objective only (FNV-1a), so a bound gets the same critic alone or in
/// company.
fn critic_seed(seed: u64, fold: usize, trainer: &BoundSpec) -> u64 {
    crate::rng::fnv1a(trainer.to_string().bytes().chain(fold.to_le_bytes()).chain(seed.to_le_bytes()))
}

/// Estimates `I(X; Y)` with each of `bounds` (see the module docs), sharing critics between
/// bounds with the same training objective: the plan (`plan::plan`), each fold trained and
/// evaluated (`fold::run_group`; with [`Candidates::choose_once`] the first fold chooses the
/// critic, then the others run in parallel), then one estimate per bound
/// (`aggregate::estimate`). `progress`, when given, is told the counts of training steps as
/// they are taken (from several threads), and stops the run with
/// [`crate::error::Error::Cancelled`] when it says so.
pub fn estimate_bounds(
    bounds: &[BoundSpec],
    cfg: &ValidNeuralConfig,
    x: DMatrixView<'_, f64>,
    y: DMatrixView<'_, f64>,
    seed: u64,
    progress: Option<&dyn Progress>,
) -> Result<NeuralRun> {
    estimate_bounds_grouped(bounds, cfg, (x, y), y, seed, progress)
}

/// [`estimate_bounds`], with the rows' folds decided by `(x, group_y)` instead of `(x, y)`:
/// identical rows of those stay together. The chain rule of [`conditional_estimate`] gives both
/// of its terms `group_y = (y, z)`, so that they share their folds exactly.
fn estimate_bounds_grouped(
    bounds: &[BoundSpec],
    cfg: &ValidNeuralConfig,
    (x, y): (DMatrixView<'_, f64>, DMatrixView<'_, f64>),
    group_y: DMatrixView<'_, f64>,
    seed: u64,
    progress: Option<&dyn Progress>,
) -> Result<NeuralRun> {
    let started = std::time::Instant::now();
    if let Some(p) = progress {
        p.phase(crate::train::Phase::Training);
    }
    let plan = plan::plan(bounds, cfg, (x, y), group_y, seed)?;
    // Before any work: the planned peak memory against the limit.
    memory::check(cfg, &plan, (x.ncols(), y.ncols()))?;
    let cfg = &NeuralConfig { batch: plan.batch, ..NeuralConfig::clone(cfg) };
    let run_fold = |f: usize, only: Option<&[CandidateId]>| -> Result<Vec<fold::GroupOutcome>> {
        let data = fold_data::FoldData::new(cfg, &plan, (x, y), f, progress)?;
        let seeded = |(i, g): (usize, &plan::CriticGroup)| {
            fold::run_group(&data, g, critic_seed(seed, f, &g.trainer), only.map(|o| o[i]))
        };
        plan.groups.iter().enumerate().map(seeded).collect()
    };
    let outcomes: Vec<Vec<fold::GroupOutcome>> = if cfg.candidates.choose_once {
        // The first fold chooses each group's critic (its candidates in parallel); the other
        // folds, in parallel, train only the chosen ones.
        let first = run_fold(0, None)?;
        let chosen: Vec<CandidateId> = first.iter().map(|o| o.choice.id).collect();
        let rest = at_most_threads(1..cfg.folds, |f| run_fold(f, Some(&chosen)))?;
        std::iter::once(first).chain(rest).collect()
    } else {
        at_most_threads(0..cfg.folds, |f| run_fold(f, None))?
    };
    let (per_bound, trace) = aggregate::BoundFolds::collect(bounds.len(), outcomes);
    let wall = started.elapsed().as_secs_f64();
    let shape = (x.nrows(), x.ncols(), y.ncols());
    let estimates = bounds
        .iter()
        .zip(per_bound)
        .map(|(spec, folds)| {
            let mut e = aggregate::estimate(spec, folds, cfg, &plan, shape, seed)?;
            // The critics of several bounds train together: each reports the whole wall time.
            e.wall_seconds = wall;
            Ok(e)
        })
        .collect::<Result<_>>()?;
    Ok(NeuralRun { estimates, trace })
}
