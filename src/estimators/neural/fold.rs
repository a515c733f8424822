//! Stage 2 of a neural estimate: one fold. Its coordinates are mapped by marginal maps fitted
//! on its training rows; for each critic group the candidate critics train on its fit rows and
//! are compared on its validation rows (all to the end, or each for a pilot of a few hundred
//! steps, after which only the best trains on); the kept critic's parameters are those that
//! validated best; the group's bounds are then evaluated on the fold's test rows, which
//! neither training nor any choice saw.

use super::TraceRow;
use super::config::{
    BLOCK_LINK_Z, Candidate, MAX_BLOCK_COLUMNS, MAX_BLOCKS, NeighbourPlan, NeuralConfig, whole_fold_batches,
};
use super::plan::{CriticGroup, FoldRows, Plan};
use crate::blocks::{Block, dependent_blocks};
use crate::bounds::{Bound, BoundSpec};
use crate::critics::{Critic, Init, KnnSum, LinearGaussian};
use crate::error::Result;
use crate::estimators::marginal::MarginalTransform;
use crate::estimators::{Warning, WarningCode};
use crate::optim::Adam;
use crate::rng::Stream;
use crate::train::{
    CriticTrainer, Data, Dataset, Observer, PlateauDecay, Progress, ProgressCounter, RunState, Runner, StepRecord,
    Termination, TrainStep, Validation, evaluate_batches, random_batches,
};
use nalgebra::{DMatrix, DMatrixView};
use std::sync::Arc;

/// Random validation batches per check.
const VALIDATION_BATCHES: usize = 8;
/// Random batches per held-out evaluation of a test fold.
const TEST_BATCHES: usize = 32;
/// The kinds of nearest-neighbour candidates, `(on the coordinates as given, summed over
/// blocks)`, in candidate order; the random walks of one kind share their graphs and batches.
const NEIGHBOUR_KINDS: [(bool, bool); 4] = [(false, false), (false, true), (true, false), (true, true)];

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
    /// Which candidate critic the fold kept (0 = the configured critic, i = alternative i).
    pub choice: usize,
}

/// One fold, ready to train: the settings, the plan, the fold's transformed data and rows.
pub(super) struct Fold<'a> {
    cfg: &'a NeuralConfig,
    plan: &'a Plan,
    data: Data,
    /// The data with the squares of the coordinates ([`NeuralConfig::squares`]).
    wide: Option<Data>,
    /// The coordinates as given, label columns one-hot, for the nearest-neighbour candidates
    /// that see them ([`NeuralConfig::knn_given`]); none where the map leaves them as given.
    given: Option<Data>,
    /// The fold's rows, numbered as the rows of its data.
    rows: FoldRows,
    index: usize,
    progress: Option<&'a dyn Progress>,
}

impl<'a> Fold<'a> {
    /// Fold `index` of `plan`: its marginal maps fitted on its training rows, applied to all rows.
    pub fn new(
        cfg: &'a NeuralConfig,
        plan: &'a Plan,
        (x, y): (DMatrixView<'_, f64>, DMatrixView<'_, f64>),
        index: usize,
        progress: Option<&'a dyn Progress>,
    ) -> Result<Self> {
        // The fold keeps only the rows it uses (plan.rs bounds them), renumbered in order.
        let rows = renumbered(&plan.folds[index]);
        let training = rows.training();
        let (x, y) = (x.select_rows(&rows.used), y.select_rows(&rows.used));
        let rows = rows.fold;
        let mx = cfg.transform.fit_with_labels(&x, &training, "x", &cfg.labels.x)?;
        let my = cfg.transform.fit_with_labels(&y, &training, "y", &cfg.labels.y)?;
        // The runner's data set: it draws training batches from `train` (here the fit rows);
        // validation and test rows are passed explicitly.
        let dataset = |x, y| Data::Dataset(Dataset { x, y, train: rows.fit.clone(), test: rows.val.clone() });
        let (fx, fy) = (mx.apply(&x), my.apply(&y));
        let wide = cfg.squares.then(|| dataset(mx.with_squares(&fx), my.with_squares(&fy)));
        let given_candidates =
            cfg.knn_given && cfg.transform != MarginalTransform::None && !cfg.neighbour_candidates().is_empty();
        let given = if given_candidates {
            let gx = MarginalTransform::None.fit_with_labels(&x, &training, "x", &cfg.labels.x)?.apply(&x);
            let gy = MarginalTransform::None.fit_with_labels(&y, &training, "y", &cfg.labels.y)?.apply(&y);
            Some(dataset(gx, gy))
        } else {
            None
        };
        let data = dataset(fx, fy);
        Ok(Fold { cfg, plan, data, wide, given, rows, index, progress })
    }

    fn dataset(&self) -> &Dataset {
        Self::dataset_of(&self.data)
    }

    fn dataset_of(data: &Data) -> &Dataset {
        let Data::Dataset(d) = data else { unreachable!("a fold's data is a data set") };
        d
    }

    /// The data a nearest-neighbour candidate sees: the mapped coordinates, or with `given`
    /// the coordinates as given.
    fn neighbour_data(&self, given: bool) -> &Dataset {
        debug_assert!(!given || self.given.is_some(), "a candidate on the coordinates as given without them");
        match &self.given {
            Some(g) if given => Self::dataset_of(g),
            _ => self.dataset(),
        }
    }

    /// The data a trained candidate sees: the coordinates, and with `squares` their squares.
    fn trained_data(&self, squares: bool) -> &Data {
        match &self.wide {
            Some(wide) if squares => wide,
            _ => &self.data,
        }
    }

    /// Trains the group's critic (choosing among its candidates, or candidate `only` when the
    /// choice was made on another fold) and evaluates its bounds on the test rows.
    ///
    /// Candidates `0..C` are the trained critics of [`NeuralConfig::candidates_for`]; candidates
    /// `C..C + K` the nearest-neighbour critics of [`NeuralConfig::knn_neighbours`], which need
    /// no training and are compared on the same validation objective.
    pub fn run_group(&self, group: &CriticGroup, seed: u64, only: Option<usize>) -> Result<GroupOutcome> {
        let cfg = self.cfg;
        let trainer = group.trainer;
        let label = trainer.build::<f32>()?.label();
        let mut candidates: Vec<_> = cfg.candidates_for(&trainer).into_iter().enumerate().collect();
        let trained_count = candidates.len();
        let (mut neighbours, blocks) = self.neighbour_plans(trainer, trained_count, only);
        // The Gaussian critic's position follows every nearest-neighbour candidate's.
        let gaussian_position = trained_count + cfg.neighbour_candidates().len();
        let mut gaussian = cfg.gaussian && !trainer.needs_log_density();
        if let Some(c) = only {
            candidates.retain(|(i, _)| *i == c);
            neighbours.retain(|p| p.position == c);
            gaussian &= c == gaussian_position;
        }
        // The nearest-neighbour candidates are built and validated while the trained ones run
        // their pilot (each on its own seed and state, so running them side by side changes no
        // number): the best of them is the floor the trained candidates must beat after the
        // pilot. When the neighbour side fails, its error is returned once the pilot has run,
        // and the pilot's runs are dropped unfinished (their last few progress steps are not
        // reported); neither side checks for cancellation between the two.
        let alone = candidates.is_empty() && neighbours.len() + usize::from(gaussian) == 1;
        let (untrained, pilot) = rayon::join(
            || -> Result<Option<(usize, Kept, f64)>> {
                let knn = self.best_knn(&neighbours, blocks, alone, trainer, seed)?;
                let knn = knn.map(|(c, v)| (c.position, Kept::Knn(c), v));
                let gauss = if gaussian { Some(self.gaussian(gaussian_position, alone, trainer, seed)?) } else { None };
                // Ties go to the earlier candidate.
                Ok(match (knn, gauss) {
                    (Some(k), Some(g)) => Some(if g.2 > k.2 { g } else { k }),
                    (k, g) => k.or(g),
                })
            },
            || self.start_candidates(trainer, &candidates, seed),
        );
        let untrained = untrained?;
        let floor = untrained.as_ref().map_or(f64::NEG_INFINITY, |b| b.2);
        let (trained, steps) = self.keep_best(pilot?, &candidates, floor)?;
        let (choice, mut kept) = match (trained, untrained) {
            (Some((c, t)), _) => (c, Kept::Trained(t)),
            (None, Some((position, critic, _))) => (position, critic),
            (None, None) => unreachable!("a fold has at least one candidate"),
        };
        if let Some(f) = self.progress {
            // The steps not taken (early stops, candidates dropped after the pilot), so the bar
            // reaches its end.
            // What the bar planned for this fold: every trained candidate, or the one chosen
            // elsewhere (when that is a nearest-neighbour critic, its steps are never taken).
            let planned = if only.is_some() { trained_count.min(1) } else { trained_count };
            f.advance(cfg.steps_per_fold(planned).saturating_sub(steps));
        }
        let mut warnings = Vec::new();
        let mut diverged = false;
        if let Kept::Trained(t) = &kept {
            let out = &t.outcome;
            let best_step = out.best_step.unwrap_or(0);
            diverged = matches!(out.termination, Termination::Diverged { .. });
            if let Termination::Diverged { step, what } = &out.termination {
                let message = format!(
                    "diverged: the {label} critic of fold {} diverged at step {step} ({what}); its last validated parameters (step {best_step}) are used",
                    self.index + 1
                );
                warnings.push(Warning::new(WarningCode::Diverged, message).with("step", *step as f64));
            }
            if out.termination == Termination::MaxSteps && best_step + self.plan.eval_every >= cfg.max_steps {
                let message = format!(
                    "not converged: the {label} critic of fold {} was still improving on validation data at the step limit ({}); raise --steps",
                    self.index + 1,
                    cfg.max_steps
                );
                warnings.push(Warning::new(WarningCode::NotConverged, message).with("max_steps", cfg.max_steps as f64));
            }
        }
        let (values, q_gain) = self.evaluate(&mut kept, group, seed)?;
        let trace = match kept {
            Kept::Trained(t) => t.trace,
            Kept::Knn(_) | Kept::Gaussian(_) => Vec::new(),
        };
        Ok(GroupOutcome { values, trace, warnings, steps, diverged, q_gain, choice })
    }

    /// The nearest-neighbour candidates of the group (positions after the `trained` ones) and
    /// the blocks their blocked ones sum over. Blocks are looked for only where a blocked
    /// candidate may be compared or was chosen (`only`, by another fold); a fold that keeps
    /// such a choice keeps it even where its own columns fall into no blocks (it then reads
    /// every column as one block).
    fn neighbour_plans(
        &self,
        trainer: BoundSpec,
        trained: usize,
        only: Option<usize>,
    ) -> (Vec<NeighbourPlan>, Option<Arc<Vec<Block>>>) {
        let cfg = self.cfg;
        if trainer.needs_log_density() {
            return (Vec::new(), None);
        }
        let blocked_choice = |c: usize| {
            let neighbour = c.checked_sub(trained).and_then(|i| cfg.neighbour_candidates().get(i).copied());
            neighbour.is_some_and(|n| n.blocks())
        };
        let blocks = if cfg.knn_blocks && only.is_none_or(blocked_choice) { self.blocks() } else { None };
        let mut plans = cfg.knn_neighbours(self.rows.reference.len(), blocks.is_some() || only.is_some());
        // Where the map leaves the coordinates as given, those candidates would repeat others.
        plans.retain(|p| !p.given || self.given.is_some());
        plans.iter_mut().for_each(|p| p.position += trained);
        (plans, blocks)
    }

    /// The blocks of dependent columns of the fold's fit rows ([`dependent_blocks`] at
    /// [`BLOCK_LINK_Z`]) when a critic summed over them differs from one of every column: two to
    /// [`MAX_BLOCKS`] blocks, or one that leaves columns out. None with more than
    /// [`MAX_BLOCK_COLUMNS`] columns (the correlations cost `(dx + dy)²·M`).
    fn blocks(&self) -> Option<Arc<Vec<Block>>> {
        let d = self.dataset();
        let (dx, dy) = (d.x.ncols(), d.y.ncols());
        if dx + dy > MAX_BLOCK_COLUMNS {
            return None;
        }
        let (x, y) = (d.x.select_rows(&self.rows.reference), d.y.select_rows(&self.rows.reference));
        let blocks = dependent_blocks(x.as_view(), y.as_view(), BLOCK_LINK_Z);
        let whole = blocks.len() == 1 && blocks[0].0.len() == dx && blocks[0].1.len() == dy;
        (!blocks.is_empty() && blocks.len() <= MAX_BLOCKS && !whole).then(|| Arc::new(blocks))
    }

    /// The nearest-neighbour critic of `neighbours` with the highest validation objective, with
    /// that objective (none without such candidates). A lone candidate when no trained
    /// candidate runs beside it is not validated (the choice was made on another fold).
    fn best_knn(
        &self,
        neighbours: &[NeighbourPlan],
        blocks: Option<Arc<Vec<Block>>>,
        alone: bool,
        trainer: BoundSpec,
        seed: u64,
    ) -> Result<Option<(NeighbourCritic, f64)>> {
        let critics = self.knn_critics(neighbours, blocks)?;
        let validated = if alone && critics.len() == 1 {
            vec![f64::NEG_INFINITY]
        } else {
            self.knn_validation(&critics, trainer, seed)?
        };
        let mut best: Option<(NeighbourCritic, f64)> = None;
        for (critic, v) in critics.into_iter().zip(validated) {
            if best.as_ref().is_none_or(|b| v > b.1) {
                best = Some((critic, v));
            }
        }
        Ok(best)
    }

    /// The Gaussian critic ([`LinearGaussian`]) fitted on the fold's reference rows (its mapped
    /// coordinates), with its validation objective, computed as a candidate at `position`
    /// computes it (not when it is the only candidate: the choice was made on another fold).
    fn gaussian(&self, position: usize, alone: bool, trainer: BoundSpec, seed: u64) -> Result<(usize, Kept, f64)> {
        let d = self.dataset();
        let reference = &self.rows.reference;
        let critic = LinearGaussian::fit(d.x.select_rows(reference).as_view(), d.y.select_rows(reference).as_view())?;
        if alone {
            return Ok((position, Kept::Gaussian(critic), f64::NEG_INFINITY));
        }
        let mut bound = objective_bound(self.cfg, trainer)?;
        let mut total = 0.0;
        for rows in self.untrained_validation_batches(position, trainer, seed) {
            let s = critic.scores(d.x.select_rows(&rows).as_view(), d.y.select_rows(&rows).as_view());
            total += bound.evaluate(&s.map(|v| v as f32), &mut DMatrix::zeros(0, 0))?.objective;
        }
        Ok((position, Kept::Gaussian(critic), total / self.validation_count() as f64))
    }

    /// The validation batches of the untrained candidate at `position`: those a trained
    /// candidate of that index draws, counted without the candidates on the squares
    /// (`NeuralConfig::squares`), so that adding those changes no untrained candidate's batches.
    fn untrained_validation_batches(&self, position: usize, trainer: BoundSpec, seed: u64) -> Vec<Vec<usize>> {
        let squared = self.cfg.candidates_for(&trainer).iter().filter(|c| c.squares).count();
        let position = Stream::Candidate((position - squared) as u64).seed(seed);
        self.validation_batches(Stream::ValidationBatches.seed(position))
    }

    /// The nearest-neighbour critics of `which` among the fold's fit rows, in candidate order:
    /// on the mapped coordinates, then on the coordinates as given; of each, those of every
    /// column, then those summed over `blocks` (of every column when there are none). The
    /// random walks of each kind share their graphs.
    fn knn_critics(&self, which: &[NeighbourPlan], blocks: Option<Arc<Vec<Block>>>) -> Result<Vec<NeighbourCritic>> {
        let mut out = Vec::with_capacity(which.len());
        for (given, blocked) in NEIGHBOUR_KINDS {
            let kind: Vec<&NeighbourPlan> = which.iter().filter(|p| (p.given, p.blocks) == (given, blocked)).collect();
            if kind.is_empty() {
                continue;
            }
            let d = self.neighbour_data(given);
            let (x, y) = (d.x.select_rows(&self.rows.reference), d.y.select_rows(&self.rows.reference));
            let blocks = if blocked { blocks.clone() } else { None };
            let critic = |p: &NeighbourPlan, critic| NeighbourCritic { position: p.position, given, critic };
            for p in kind.iter().filter(|p| p.steps == 0) {
                out.push(critic(p, KnnSum::counted(&x, &y, blocks.clone(), p.k)?));
            }
            let walks: Vec<&&NeighbourPlan> = kind.iter().filter(|p| p.steps > 0).collect();
            if let Some(first) = walks.first() {
                let steps: Vec<usize> = walks.iter().map(|p| p.steps).collect();
                let sums = KnnSum::walks(&x, &y, blocks.clone(), first.k, &steps)?;
                out.extend(walks.iter().zip(sums).map(|(p, s)| critic(p, s)));
            }
        }
        // Counted candidates precede walks, critics of every column the blocked ones and those
        // on the mapped coordinates those on the given ones, in candidate order already; ties
        // go to the earlier.
        debug_assert!(out.windows(2).all(|w| w[0].position < w[1].position));
        Ok(out)
    }

    /// The validation objectives of critics `(index, critic)` that need no training: the
    /// trainer's objective (symmetrised as for the trained candidates) on validation batches. A
    /// counting critic's batches are drawn as a trained candidate of its index draws them; the
    /// random walks of each kind (of every column, summed over blocks) share the batches of the
    /// first of them, so that their walks are shared.
    fn knn_validation(&self, critics: &[NeighbourCritic], trainer: BoundSpec, seed: u64) -> Result<Vec<f64>> {
        let batches = |i: usize| self.untrained_validation_batches(i, trainer, seed);
        let mut bound = objective_bound(self.cfg, trainer)?;
        let mut totals = vec![0.0; critics.len()];
        let mut add = |j: usize, scored: Vec<DMatrix<f64>>| -> Result<()> {
            for s in scored {
                totals[j] += bound.evaluate(&s.map(|v| v as f32), &mut DMatrix::zeros(0, 0))?.objective;
            }
            Ok(())
        };
        let seen = |c: &NeighbourCritic| {
            let d = self.neighbour_data(c.given);
            (d.x.as_view(), d.y.as_view())
        };
        for (j, c) in critics.iter().enumerate().filter(|(_, c)| c.critic.steps() == 0) {
            let (x, y) = seen(c);
            add(j, KnnSum::scores_batches(std::slice::from_ref(&c.critic), x, y, &batches(c.position)).remove(0))?;
        }
        for (given, blocked) in NEIGHBOUR_KINDS {
            let walks: Vec<usize> = (0..critics.len())
                .filter(|&j| {
                    let c = &critics[j];
                    c.critic.steps() > 0 && (c.given, c.critic.blocks().is_some()) == (given, blocked)
                })
                .collect();
            let Some(&first) = walks.first() else { continue };
            let family: Vec<KnnSum> = walks.iter().map(|&j| critics[j].critic.clone()).collect();
            let (x, y) = seen(&critics[first]);
            for (&j, scored) in
                walks.iter().zip(KnnSum::scores_batches(&family, x, y, &batches(critics[first].position)))
            {
                add(j, scored)?;
            }
        }
        let count = self.validation_count() as f64;
        Ok(totals.into_iter().map(|t| t / count).collect())
    }

    /// The batches of validation rows a candidate is checked on, drawn from `seed`:
    /// [`VALIDATION_BATCHES`] random batches, or one of every validation row when a batch holds
    /// them all (as a test fold's evaluation does): more would be the same rows again in other
    /// orders, and every bound is a function of the set of rows.
    fn validation_batches(&self, seed: u64) -> Vec<Vec<usize>> {
        random_batches(&self.rows.val, self.plan.batch, self.validation_count(), seed)
    }

    /// How many batches [`Fold::validation_batches`] draws.
    fn validation_count(&self) -> usize {
        if self.plan.batch >= self.rows.val.len() { 1 } else { VALIDATION_BATCHES }
    }

    /// Trains `candidates` (`(index, critic)` pairs) in parallel through the pilot
    /// ([`NeuralConfig::pilot_steps`]), or to the end when there is no pilot (one candidate,
    /// or `pilot_steps = 0`). Candidate `i` trains from the same seed whether or not the others
    /// train beside it, so the order they run in changes nothing.
    fn start_candidates(
        &self,
        trainer: BoundSpec,
        candidates: &[(usize, Candidate)],
        seed: u64,
    ) -> Result<Vec<CandidateRun<'_>>> {
        use rayon::prelude::*;
        let cfg = self.cfg;
        let pilot = if candidates.len() > 1 && cfg.pilot_steps > 0 { cfg.pilot_steps } else { cfg.max_steps };
        let start = |&(i, ref c): &(usize, Candidate)| -> Result<CandidateRun<'_>> {
            // The first candidate keeps the seed a single critic has.
            let s = Stream::Candidate(i as u64).seed(seed);
            let mut run = CandidateRun::start(self, trainer, c, s)?;
            run.advance(pilot)?;
            Ok(run)
        };
        // Started last first: the default alternatives (`Alternative::defaults`) follow the
        // configured critic and are larger than the default critic, so the longest runs start
        // first and the shorter ones, and the nearest-neighbour candidates beside them, fill
        // in. (With other settings the order may not be the best; it never changes a number.)
        let mut runs: Vec<CandidateRun<'_>> = candidates.par_iter().rev().map(start).collect::<Result<_>>()?;
        runs.reverse();
        Ok(runs)
    }

    /// After [`Fold::start_candidates`]: keeps the run with the highest validation objective
    /// and trains it on to [`NeuralConfig::max_steps`]. When that objective is below `floor` (a
    /// critic that needs no training validated that high), every run ends there and no trained
    /// critic is returned. Returns the kept candidate's index and trained critic, and the steps
    /// taken by all candidates.
    fn keep_best(
        &self,
        mut runs: Vec<CandidateRun<'_>>,
        candidates: &[(usize, Candidate)],
        floor: f64,
    ) -> Result<(Option<(usize, Trained)>, u64)> {
        let mut steps: u64 = runs.iter().map(|r| r.state.steps()).sum();
        let Some(best) = (0..runs.len())
            .reduce(|b, i| if runs[i].state.best_objective() > runs[b].state.best_objective() { i } else { b })
        else {
            return Ok((None, 0));
        };
        if runs[best].state.best_objective() < floor {
            for dropped in runs {
                dropped.finish()?;
            }
            return Ok((None, steps));
        }
        let choice = candidates[best].0;
        let mut kept = runs.swap_remove(best);
        for dropped in runs {
            // Ends the dropped candidates' runs, so their observers report their last steps.
            dropped.finish()?;
        }
        let before = kept.state.steps();
        kept.advance(self.cfg.max_steps)?;
        steps += kept.state.steps() - before;
        Ok((Some((choice, kept.finish()?)), steps))
    }

    /// The group's bounds on the kept critic, over random batches of the fold's test rows, and
    /// for a conditional model its log-likelihood gain over the marginal model.
    fn evaluate(&self, kept: &mut Kept, group: &CriticGroup, seed: u64) -> Result<Evaluated> {
        let d = self.dataset();
        let mut bounds: Vec<Box<dyn Bound<f32>>> =
            group.members.iter().map(|(_, b)| b.build::<f32>()).collect::<Result<_>>()?;
        let test = &self.rows.test;
        let test_batches = if self.cfg.test_batch == Some(0) {
            // The whole test fold: one batch (N = its rows), or disjoint batches of nearly equal
            // size, every row in one of them.
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
            let eval_batch = self.plan.eval_batch;
            let count = if eval_batch >= test.len() { 1 } else { TEST_BATCHES };
            random_batches(test, eval_batch, count, Stream::TestBatches.seed(seed))
        };
        let vals = match kept {
            Kept::Trained(t) => {
                let seen = Self::dataset_of(self.trained_data(t.squares));
                evaluate_batches(t.critic.as_mut(), &t.outcome.params, &mut bounds, &seen.x, &seen.y, &test_batches)?
            }
            Kept::Knn(knn) => {
                let seen = self.neighbour_data(knn.given);
                let scored = KnnSum::scores_batches(
                    std::slice::from_ref(&knn.critic),
                    seen.x.as_view(),
                    seen.y.as_view(),
                    &test_batches,
                );
                mean_values(&mut bounds, scored.into_iter().next().expect("one critic's scores"))?
            }
            Kept::Gaussian(critic) => {
                let scored = test_batches
                    .iter()
                    .map(|rows| critic.scores(d.x.select_rows(rows).as_view(), d.y.select_rows(rows).as_view()));
                mean_values(&mut bounds, scored)?
            }
        };
        // A conditional model's objective is its mean log-likelihood log q(y_i|x_i): compare it
        // with the marginal model's on the same rows.
        let q_gain = group.trainer.needs_log_density().then(|| {
            let test_rows: Vec<usize> = test_batches.iter().flatten().copied().collect();
            vals[0].1 - marginal_log_likelihood(&d.y, &d.train, &test_rows)
        });
        Ok((group.members.iter().map(|m| m.0).zip(vals.into_iter().map(|v| v.0)).collect(), q_gain))
    }
}

/// A fold's rows renumbered as the rows of its own data (`used`, the rows of the whole data it
/// keeps, in order).
struct Renumbered {
    fold: FoldRows,
    used: Vec<usize>,
}

impl Renumbered {
    fn training(&self) -> Vec<usize> {
        self.fold.training()
    }
}

/// `rows` renumbered in the order of the data's rows (which keeps every choice the same).
fn renumbered(rows: &FoldRows) -> Renumbered {
    let mut used: Vec<usize> = rows.fit.iter().chain(&rows.val).chain(&rows.test).copied().collect();
    used.sort_unstable();
    used.dedup();
    let at = |r: &Vec<usize>| r.iter().map(|i| used.binary_search(i).expect("a used row")).collect();
    let fold =
        FoldRows { fit: at(&rows.fit), val: at(&rows.val), test: at(&rows.test), reference: at(&rows.reference) };
    Renumbered { fold, used }
}

/// The mean `(value, objective)` of each of `bounds` over the score matrices `scored` of an
/// untrained critic.
fn mean_values(
    bounds: &mut [Box<dyn Bound<f32>>],
    scored: impl IntoIterator<Item = DMatrix<f64>>,
) -> Result<Vec<(f64, f64)>> {
    let mut sums = vec![(0.0, 0.0); bounds.len()];
    let (mut g, mut count) = (DMatrix::zeros(0, 0), 0usize);
    for s in scored {
        let s = s.map(|v| v as f32);
        for (b, sum) in bounds.iter_mut().zip(sums.iter_mut()) {
            let v = b.evaluate(&s, &mut g)?;
            sum.0 += v.value;
            sum.1 += v.objective;
        }
        count += 1;
    }
    let k = count as f64;
    Ok(sums.into_iter().map(|(v, o)| (v / k, o / k)).collect())
}

/// The critic a fold keeps: a trained one, a nearest-neighbour critic or the Gaussian critic.
enum Kept {
    Trained(Trained),
    Knn(NeighbourCritic),
    Gaussian(LinearGaussian),
}

/// A nearest-neighbour candidate critic of a fold, built on its fit rows.
struct NeighbourCritic {
    /// Its candidate position.
    position: usize,
    /// It sees the coordinates as given ([`NeuralConfig::knn_given`]), not the mapped ones.
    given: bool,
    critic: KnnSum,
}

/// The objective a lower-bound critic trains and validates on: the trainer's bound, symmetrised
/// with [`NeuralConfig::symmetric`].
pub(super) fn objective_bound(cfg: &NeuralConfig, trainer: BoundSpec) -> Result<Box<dyn Bound<f32>>> {
    let b = trainer.build::<f32>()?;
    Ok(if cfg.symmetric && b.kind() == crate::bounds::BoundKind::Lower {
        Box::new(crate::bounds::Symmetrised::new(b))
    } else {
        b
    })
}

/// The held-out values `(bound index, value)` of a group and a conditional model's
/// log-likelihood gain.
type Evaluated = (Vec<(usize, f64)>, Option<f64>);

/// A trained critic with its outcome and trace.
struct Trained {
    critic: Box<dyn Critic<f32>>,
    /// It saw the coordinates' squares too.
    squares: bool,
    outcome: crate::train::Outcome<f32>,
    trace: Vec<TraceRow>,
}

/// One candidate critic's training, which can pause after the pilot and resume.
struct CandidateRun<'f> {
    compute: crate::compute::Compute,
    model: CriticTrainer<'f, f32>,
    runner: Runner<'f>,
    state: RunState<f32>,
    trace: std::sync::Arc<std::sync::Mutex<Vec<TraceRow>>>,
    squares: bool,
}

impl<'f> CandidateRun<'f> {
    /// Builds `spec` with `adam` on the fold's fit rows (validated on its validation rows) and
    /// starts its run from a critic that carries no information.
    fn start(fold: &'f Fold<'f>, trainer: BoundSpec, candidate: &Candidate, seed: u64) -> Result<Self> {
        let cfg = fold.cfg;
        let (spec, adam) = (&candidate.critic, &candidate.adam);
        let data = fold.trained_data(candidate.squares);
        let d = Fold::dataset_of(data);
        let dims = (d.x.ncols(), d.y.ncols());
        let critic = spec.build_with::<f32>(dims.0, dims.1, cfg.compute)?;
        let mut params = critic.init_params(Init::Torch, seed);
        // Start from a critic that carries no information (every bound at 0): on independent
        // data nothing trained beats it on validation, and the estimate stays at 0 instead of
        // the negative value of a critic fitted to noise.
        critic.zero_output(&mut params);
        let mut opt = Adam::new(adam.clone(), params.len())?;
        opt.set_compute(cfg.compute);
        let objective = || objective_bound(cfg, trainer);
        let bound = objective()?;
        let label = trainer.build::<f32>()?.label();
        let step = TrainStep::new(critic, bound, opt, fold.plan.batch, dims).with_input_noise(cfg.input_noise);
        let mut model = CriticTrainer::new(step, data, Stream::CriticInit.rng(seed), cfg.max_steps as usize)
            .with_validation(objective()?, fold.validation_batches(Stream::ValidationBatches.seed(seed)))?;
        let trace = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut runner = Runner::new(cfg.max_steps)
            .validate(Validation { every: fold.plan.eval_every, patience: cfg.patience })
            .decay_on_plateau(PlateauDecay { factor: cfg.lr_decay, times: cfg.lr_decays })
            .observe(TraceRecorder { rows: trace.clone(), fold: fold.index, label });
        if let Some(f) = fold.progress {
            runner = runner.observe(ProgressCounter::new(f, 50));
        }
        let state = cfg.compute.on_pool(|| runner.start(&mut model, params))?;
        Ok(CandidateRun { compute: cfg.compute, model, runner, state, trace, squares: candidate.squares })
    }

    /// Trains on until `until` steps or a stop.
    fn advance(&mut self, until: u64) -> Result<()> {
        let CandidateRun { compute, model, runner, state, .. } = self;
        compute.on_pool(|| runner.advance(model, state, until))
    }

    /// Ends the run: the critic with its best validated parameters.
    fn finish(self) -> Result<Trained> {
        let CandidateRun { model, mut runner, state, trace, squares, .. } = self;
        let outcome = runner.finish(state)?;
        drop(runner);
        let trace = std::mem::take(&mut *trace.lock().expect("trace lock"));
        Ok(Trained { critic: model.step.critic, squares, outcome, trace })
    }
}

/// Records training values and validation checks of one critic for the trace.
struct TraceRecorder {
    rows: std::sync::Arc<std::sync::Mutex<Vec<TraceRow>>>,
    fold: usize,
    label: String,
}

impl Observer for TraceRecorder {
    fn step(&mut self, r: &StepRecord) -> Result<()> {
        let (fold, bound) = (self.fold, self.label.clone());
        self.rows.lock().expect("trace lock").push(TraceRow {
            fold,
            bound,
            step: r.step,
            train: r.value,
            validation: f64::NAN,
        });
        Ok(())
    }
    fn validated(&mut self, step: u64, objective: f64) -> Result<()> {
        if let Some(last) = self.rows.lock().expect("trace lock").last_mut().filter(|r| r.step + 1 == step) {
            last.validation = objective;
        }
        Ok(())
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
