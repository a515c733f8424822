//! The settings of the neural estimates: [`NeuralConfig`] and the candidate critics
//! ([`Alternative`]) each fold chooses among.

use super::plan::trainer_bound;
use crate::bounds::BoundSpec;
use crate::compute::Compute;
use crate::critics::CriticSpec;
pub use crate::data::kinds::LabelColumns;
use crate::error::{Error, Result};
use crate::estimators::marginal::MarginalTransform;
use crate::optim::AdamConfig;
use serde::{Deserialize, Serialize};

/// Neighbours per reference row in the graphs of the random-walk candidates
/// ([`NeuralConfig::knn_walks`]), and per query in their start distributions.
pub const WALK_NEIGHBOURS: usize = 10;
/// The most fit rows for which a fold compares random-walk candidates: their distributions over
/// the fit rows are dense (a test fold of `n/K` rows holds `n/K × M` of them per side).
pub const MAX_WALK_ROWS: usize = 8000;
/// The most fit rows a fold's nearest-neighbour candidates take as reference rows (a random
/// subset of more): each query's neighbours are searched among them all, so the search's
/// time is linear in them and its memory a block of 512 queries by them.
pub const MAX_KNN_REFERENCE: usize = 1 << 14;
/// Threads one training step of an estimate may use (from rayon's pool). The folds and the
/// candidates already run in parallel; with 2, a step's independent halves (the two encoders,
/// Adam's halves) run on a second core whenever one is idle — while the pilot's last
/// candidate or the last fold trains alone — and one after the other otherwise. The numbers do
/// not depend on it (tests/parallel_steps.rs). The demo's estimate, 5000 rows of 20 + 20
/// dims on 2 cores, median of 5 interleaved runs: 14.45 s with one thread, 13.36 s with two
/// (docs/results.md, section 17).
pub const STEP_THREADS: usize = 2;

/// Rows per test batch at most where a whole test fold is asked for
/// ([`NeuralConfig::test_batch`] `Some(0)`): a larger fold is split into disjoint batches of
/// nearly equal size, each evaluated exactly (one `N × N` score matrix and its gradient, 34 MB
/// in `f32` at 2048 rows). InfoNCE's held-out ceiling is then `log 2048 = 7.62` nats; the
/// task suite's folds (at most 2000 test rows) are each still one batch.
pub const MAX_TEST_BATCH: usize = 2048;

pub use crate::blocks::BLOCK_LINK_Z;
/// The most blocks a blocked candidate sums: every block costs its own graphs and walks.
/// With more blocks found, there is no blocked candidate.
pub const MAX_BLOCKS: usize = 8;
/// The most columns (`dx + dy`) for which a fold looks for blocks: their correlations cost
/// `(dx + dy)²·M` (at 1024 columns and 3200 fit rows, 3.4·10⁹ multiply-adds).
pub const MAX_BLOCK_COLUMNS: usize = 1024;

/// A nearest-neighbour candidate critic ([`crate::critics::Knn`]) of a fold, as the settings
/// name it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Neighbours {
    /// Counts in `k = factor·√M` neighbours ([`NeuralConfig::knn`]).
    Counted {
        /// `k/√M`.
        factor: f64,
        /// Summed over the blocks of dependent columns ([`NeuralConfig::knn_blocks`]).
        blocks: bool,
        /// On the coordinates as given, not mapped ([`NeuralConfig::knn_given`]).
        given: bool,
    },
    /// A random walk on the [`WALK_NEIGHBOURS`]-nearest-neighbour graphs
    /// ([`NeuralConfig::knn_walks`]).
    Walk {
        /// Its steps.
        steps: usize,
        /// Summed over the blocks of dependent columns ([`NeuralConfig::knn_blocks`]).
        blocks: bool,
        /// On the coordinates as given, not mapped ([`NeuralConfig::knn_given`]).
        given: bool,
    },
}

impl Neighbours {
    /// Whether the critic is summed over blocks of dependent columns.
    pub fn blocks(&self) -> bool {
        match *self {
            Neighbours::Counted { blocks, .. } | Neighbours::Walk { blocks, .. } => blocks,
        }
    }

    /// Whether the critic sees the coordinates as given instead of the fold's mapped ones.
    pub fn given(&self) -> bool {
        match *self {
            Neighbours::Counted { given, .. } | Neighbours::Walk { given, .. } => given,
        }
    }
}

impl std::fmt::Display for Neighbours {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Neighbours::Counted { factor, .. } => write!(f, "nearest neighbours (k = {factor}·√M)")?,
            Neighbours::Walk { steps, .. } => {
                write!(f, "a {steps}-step random walk on the {WALK_NEIGHBOURS}-nearest-neighbour graphs")?
            }
        }
        if self.blocks() {
            write!(f, ", summed over blocks of dependent columns")?;
        }
        if self.given() {
            write!(f, ", on the coordinates as given")?;
        }
        Ok(())
    }
}

/// The nearest-neighbour candidates of factors `knn` and walks of `walks` steps, in candidate
/// order: the counted ones, the walks, then (with `blocks`) the same again summed over blocks;
/// then (with `given`) all of these again on the coordinates as given.
pub(super) fn neighbour_candidates(knn: &[f64], walks: &[usize], blocks: bool, given: bool) -> Vec<Neighbours> {
    let sides: &[bool] = if blocks { &[false, true] } else { &[false] };
    let inputs: &[bool] = if given { &[false, true] } else { &[false] };
    inputs
        .iter()
        .flat_map(|&given| sides.iter().map(move |&blocks| (given, blocks)))
        .flat_map(|(given, blocks)| {
            let counted = knn.iter().map(move |&factor| Neighbours::Counted { factor, blocks, given });
            counted.chain(walks.iter().map(move |&steps| Neighbours::Walk { steps, blocks, given }))
        })
        .collect()
}

/// A nearest-neighbour candidate as a fold with `M` fit rows builds it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct NeighbourPlan {
    /// Its position in [`NeuralConfig::neighbour_candidates`].
    pub position: usize,
    /// Neighbours k.
    pub k: usize,
    /// Walk steps (0: counts).
    pub steps: usize,
    /// Summed over blocks of dependent columns.
    pub blocks: bool,
    /// On the coordinates as given ([`NeuralConfig::knn_given`]).
    pub given: bool,
}

/// A critic, with its own L2 weight decay, that each fold trains beside the configured one
/// ([`NeuralConfig::alternatives`]); the fold keeps whichever validates highest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Alternative {
    /// The critic.
    pub critic: CriticSpec,
    /// Its L2 weight decay (the rest of the optimiser is [`NeuralConfig::adam`]).
    pub weight_decay: f64,
}

impl Alternative {
    /// The first default alternative: a separable critic with two hidden layers of 256 (ReLU)
    /// and 32-d embeddings, with weight decay 0.01 (docs/results.md, section 7, has the
    /// measurements behind it).
    pub fn regularised() -> Self {
        Alternative {
            critic: CriticSpec::Separable {
                hidden: vec![256, 256],
                embed: 32,
                activation: crate::critics::Activation::Relu,
                similarity: crate::critics::Similarity::Dot,
            },
            weight_decay: 0.01,
        }
    }

    /// The second default alternative: [`Alternative::regularised`] with softplus instead of
    /// ReLU units. A smooth unit represents the squared norms on which benchmark-mi's spiral
    /// depends with fewer units than a ReLU does: on `spiral-multinormal-sparse-25-25-2-2.0`
    /// (n = 5000, true MI 1.02), as the only alternative, it reads 0.80 over three seeds where
    /// the ReLU critics read 0.72–0.73, while on the 3 + 3 and 5 + 5 spirals the ReLU one is
    /// better (docs/results.md, section 7).
    pub fn smooth() -> Self {
        let mut a = Alternative::regularised();
        if let CriticSpec::Separable { activation, .. } = &mut a.critic {
            *activation = crate::critics::Activation::Softplus;
        }
        a
    }

    /// The alternatives of `--critic auto`: [`Alternative::regularised`] and
    /// [`Alternative::smooth`].
    pub fn defaults() -> Vec<Self> {
        vec![Alternative::regularised(), Alternative::smooth()]
    }
}

/// A critic a fold trains, with its optimiser settings and the inputs it sees.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Candidate {
    pub critic: CriticSpec,
    pub adam: AdamConfig,
    /// It sees the coordinates and their squares ([`NeuralConfig::squares`]).
    pub squares: bool,
}

/// Settings of the neural estimators (everything but the bound and the seed).
///
/// Fields missing from a serialised form take [`NeuralConfig::default`]'s values (one place for
/// every default).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct NeuralConfig {
    /// Critic for the lower bounds and estimates.
    pub critic: CriticSpec,
    /// Conditional model for CLUB, L1Out and BA.
    pub conditional: CriticSpec,
    /// Batch size N.
    pub batch: usize,
    /// Maximum training steps per critic and fold.
    pub max_steps: u64,
    /// Optimiser.
    pub adam: AdamConfig,
    /// Number of folds K ≥ 2.
    pub folds: usize,
    /// The map each coordinate goes through, fitted on each fold's training rows
    /// ([`MarginalTransform`]; default: ranks → normal scores).
    pub transform: MarginalTransform,
    /// Validation check interval in steps; `0` checks once per epoch of the training rows
    /// (at least every 5 and at most every 100 steps).
    pub eval_every: u64,
    /// Steps without a validation improvement before stopping (or before a learning-rate
    /// decay, [`NeuralConfig::lr_decays`]).
    pub patience: u64,
    /// Learning-rate decays on validation plateaus ([`crate::train::PlateauDecay`]): when
    /// `patience` steps pass without improvement, a critic goes back to its best validated
    /// parameters and trains on at [`NeuralConfig::lr_decay`] times the learning rate, up to
    /// this many times, before a plateau stops it. `0`: a plateau stops it at once.
    pub lr_decays: u32,
    /// The factor in (0, 1) of each learning-rate decay.
    pub lr_decay: f64,
    /// Further critics for the lower bounds and estimates (not the conditional model), each
    /// trained on every fold beside [`NeuralConfig::critic`]; a fold keeps the critic with the
    /// highest validation objective. Empty: `critic` alone.
    pub alternatives: Vec<Alternative>,
    /// With alternatives, the steps every candidate trains before the fold keeps the one with
    /// the best validation objective so far and trains only it on, up to `max_steps`
    /// (successive halving in one round); `0`, or at least `max_steps`, trains every candidate
    /// to the end and chooses then.
    pub pilot_steps: u64,
    /// With alternatives: choose the critic once per estimate, on the first fold (its
    /// candidates trained on its fit rows and compared on its validation rows), and train only
    /// that one on the other folds; `false` chooses in every fold.
    pub choose_once: bool,
    /// The gemm backend and the threads one training step may use ([`STEP_THREADS`] by
    /// default).
    pub compute: Compute,
    /// Columns of x and of y that are class labels: each is one-hot encoded on each fold (one
    /// indicator per level of its training rows), so the critic's first layer learns one
    /// vector per level, an embedding ([`MarginalTransform::fit_with_labels`]). Empty (the
    /// default): every column is a number.
    pub labels: LabelColumns,
    /// Rows per test batch at most (`0`: every test row of the fold in one batch, or in
    /// disjoint batches of at most [`MAX_TEST_BATCH`] rows); `None`: the training batch.
    /// InfoNCE's ceiling is the log of the rows per test batch.
    pub test_batch: Option<usize>,
    /// The memory an estimate may take, in MB (10⁶ bytes): an estimate whose planned peak
    /// (`estimators::neural` estimates it from the rows, dimensions and settings before any
    /// work) exceeds it is refused with [`crate::error::Error::Memory`], which names the
    /// setting to change. `None`: the memory the system reports available at the start
    /// (unchecked where it reports none).
    pub max_memory_mb: Option<u64>,
    /// The trained candidates of the lower bounds are trained a second time on each mapped
    /// coordinate and its square
    /// ([`crate::estimators::marginal::FittedTransform::with_squares`]), and compared
    /// with the others on validation; the conditional models of the log-density bounds and
    /// the nearest-neighbour critics see the coordinates alone.
    pub squares: bool,
    /// Standard deviation of Gaussian noise added to every training batch's inputs (after the
    /// marginal map; never to validation or test rows): a regulariser (Bishop 1995). `0`: none.
    pub input_noise: f64,
    /// Train (and validate) lower-bound critics on the symmetrised objective
    /// `½ (B(S) + B(Sᵀ))` ([`crate::bounds::Symmetrised`]); the estimate is still `B` on the
    /// test rows.
    pub symmetric: bool,
    /// Nearest-neighbour critics ([`crate::critics::Knn`]) compared beside the trained
    /// candidates of the lower bounds, one per factor `c`: `k = c·√M` neighbours among a fold's
    /// `M` fit rows. Empty: none.
    pub knn: Vec<f64>,
    /// Random-walk critics ([`crate::critics::Knn::walks`]) compared beside them, one per
    /// number of steps on the graphs of the fit rows' [`WALK_NEIGHBOURS`] nearest neighbours
    /// (only with at most [`MAX_WALK_ROWS`] fit rows). Empty: none.
    pub knn_walks: Vec<usize>,
    /// The nearest-neighbour candidates again, each summed over the blocks of dependent
    /// columns of a fold's fit rows ([`crate::blocks::dependent_blocks`] at
    /// [`BLOCK_LINK_Z`]), when there are 2 to [`MAX_BLOCKS`] blocks or they leave columns out.
    pub knn_blocks: bool,
    /// The nearest-neighbour candidates again on the coordinates as given (label columns
    /// one-hot), where the marginal map changes them: normal scores give every coordinate the
    /// same spread, which on images lets rarely inked border pixels weigh as much as the
    /// strokes in a distance (docs/results.md, section 27).
    pub knn_given: bool,
    /// The closed-form Gaussian critic ([`crate::critics::LinearGaussian`]: the log density
    /// ratio of a jointly Gaussian model of the mapped coordinates, its covariance shrunk by
    /// Ledoit–Wolf, fitted on a fold's fit rows) is a candidate beside the others, after the
    /// nearest-neighbour ones.
    pub gaussian: bool,
}

impl Default for NeuralConfig {
    /// The defaults of `mibound estimate`: critics with one hidden layer of 512 (a separable
    /// critic with 32-d embeddings, a Gaussian q), no weight decay, and as an alternative each
    /// fold chooses by validation among it and [`Alternative::defaults`] (two hidden layers of
    /// 256 with weight decay 0.01, with ReLU and with softplus units); N = 256; 5 folds; at most
    /// 3000 steps. The critic is chosen once per estimate, on the first fold, after a pilot of
    /// 500 steps per candidate (docs/results.md, section 8: on the tuning half the same mean
    /// absolute error as training every candidate to the end, at three seeds, and the demo's
    /// estimate in half the time). Lower-bound critics train on the bound symmetrised over both
    /// orientations of the scores, each test fold is one test batch, and three nearest-neighbour
    /// critics (k = √M, 2√M, 4√M) are candidates beside the trained ones (docs/results.md,
    /// section 9), five random walks too (section 12), and, where a fold's columns fall into
    /// blocks, all eight again summed over the blocks (section 20). The three trained critics
    /// are candidates a second time on the coordinates with their squares
    /// ([`NeuralConfig::squares`]; section 26), and the nearest-neighbour critics a second
    /// time on the coordinates as given ([`NeuralConfig::knn_given`]; section 27), and the
    /// closed-form Gaussian critic ([`NeuralConfig::gaussian`]) after them. A critic
    /// stops after 120 steps without a validation improvement (section 28).
    ///
    /// No one critic is best everywhere (docs/results.md, section 7). The single wide layer
    /// suits dependence spread thinly over many coordinates (a 20-d Gaussian with 2 nats: 1.82,
    /// where the regularised critic reads 0.87). On benchmark-mi's sparse and spiral tasks in
    /// up to 25 + 25 dimensions it memorises its training rows within ~150 steps (validation
    /// InfoNCE 0.65, training 1.3, truth 1.02), where the regularised ReLU critic reads
    /// 0.72–0.89, and the softplus one 0.80 on the 25 + 25 spiral (ReLU: 0.72).
    fn default() -> Self {
        NeuralConfig {
            critic: CriticSpec::Separable {
                hidden: vec![512],
                embed: 32,
                activation: crate::critics::Activation::Relu,
                similarity: crate::critics::Similarity::Dot,
            },
            conditional: CriticSpec::Gaussian {
                hidden: vec![512],
                activation: crate::critics::Activation::Relu,
                variance: Default::default(),
            },
            batch: 256,
            max_steps: 3000,
            adam: AdamConfig::default(),
            folds: 5,
            transform: MarginalTransform::Copula,
            eval_every: 0,
            patience: 120,
            lr_decays: 0,
            lr_decay: 0.1,
            alternatives: Alternative::defaults(),
            pilot_steps: 500,
            choose_once: true,
            compute: Compute { threads: STEP_THREADS, ..Compute::default() },
            labels: LabelColumns::default(),
            test_batch: Some(0),
            max_memory_mb: None,
            squares: true,
            input_noise: 0.0,
            symmetric: true,
            knn: vec![1.0, 2.0, 4.0],
            knn_walks: vec![1, 2, 4, 8, 16],
            knn_blocks: true,
            knn_given: true,
            gaussian: true,
        }
    }
}

/// The disjoint batches a test fold of `rows` rows is split into when the whole fold is asked
/// for: the fewest of at most [`MAX_TEST_BATCH`] rows (of nearly equal size, the smallest
/// `rows / count`).
pub fn whole_fold_batches(rows: usize) -> usize {
    rows.div_ceil(MAX_TEST_BATCH).max(1)
}

/// A [`NeuralConfig`] that passed [`NeuralConfig::validate`], made only by
/// [`NeuralConfig::check`]: the proof travels with the settings (linfa's `ParamGuard`), so the
/// stages that take it ([`super::estimate_bounds`], [`super::Neural`]) do not check again. It
/// reads as the [`NeuralConfig`] it holds.
#[derive(Clone, Debug, PartialEq)]
pub struct ValidNeuralConfig(NeuralConfig);

impl std::ops::Deref for ValidNeuralConfig {
    type Target = NeuralConfig;
    fn deref(&self) -> &NeuralConfig {
        &self.0
    }
}

impl ValidNeuralConfig {
    /// The settings, to change them (they are checked again by [`NeuralConfig::check`]).
    pub fn into_inner(self) -> NeuralConfig {
        self.0
    }
}

impl NeuralConfig {
    /// Rows per test batch with training batch `batch` and a smallest test fold of `min_test`
    /// rows: [`NeuralConfig::test_batch`] (`Some(0)`: the whole test fold, or the smallest of
    /// its [`whole_fold_batches`]; `None`: the training batch), never more than the test fold.
    /// InfoNCE's held-out ceiling is its log.
    pub fn eval_batch(&self, batch: usize, min_test: usize) -> usize {
        match self.test_batch {
            None => batch.min(min_test),
            Some(0) => min_test / whole_fold_batches(min_test),
            Some(b) => b.min(min_test),
        }
    }

    /// The settings with the proof that they passed [`NeuralConfig::validate`]: where settings
    /// enter an estimate, once.
    pub fn check(&self) -> Result<ValidNeuralConfig> {
        self.validate()?;
        Ok(ValidNeuralConfig(self.clone()))
    }

    /// Checks every setting that does not depend on the data: batch ≥ 2, steps ≥ 1, folds ≥ 2,
    /// patience ≥ 1, the optimiser's ranges and the critics' sizes.
    pub fn validate(&self) -> Result<()> {
        if self.batch < 2 {
            return Err(Error::param("batch", self.batch, "must be at least 2"));
        }
        if self.max_steps == 0 {
            return Err(Error::param("steps", 0, "must be at least 1"));
        }
        if self.folds < 2 {
            return Err(Error::param("folds", self.folds, "need at least 2"));
        }
        if self.patience == 0 {
            return Err(Error::param("patience", 0, "must be at least 1"));
        }
        if !(self.lr_decay > 0.0 && self.lr_decay < 1.0) {
            return Err(Error::param("learning-rate decay", self.lr_decay, "must lie in (0, 1)"));
        }
        if let Some(c) = self.knn.iter().find(|c| !(c.is_finite() && **c > 0.0)) {
            return Err(Error::param("knn factor", c, "must be positive and finite (k = factor · √rows)"));
        }
        if self.knn_walks.contains(&0) {
            return Err(Error::param("random-walk steps", 0, "must be at least 1"));
        }
        if self.max_memory_mb == Some(0) {
            return Err(Error::param("max_memory_mb", 0, "must be at least 1 (MB)"));
        }
        if !(self.input_noise.is_finite() && self.input_noise >= 0.0) {
            return Err(Error::param("input noise", self.input_noise, "must be finite and at least 0"));
        }
        self.adam.validate()?;
        // Building on 1 × 1 inputs checks the critics' sizes (hidden width 0, embedding 0).
        self.critic.build::<f32>(1, 1)?;
        self.conditional.build::<f32>(1, 1)?;
        for a in &self.alternatives {
            AdamConfig { weight_decay: a.weight_decay, ..self.adam.clone() }.validate()?;
            a.critic.build::<f32>(1, 1)?;
        }
        Ok(())
    }

    /// The critic that trains `bound`'s objective.
    pub(super) fn critic_for(&self, bound: &BoundSpec) -> &CriticSpec {
        if bound.needs_log_density() { &self.conditional } else { &self.critic }
    }

    /// The critics (with their optimiser settings) a fold trains for `bound`'s training
    /// objective: the configured one first, then the alternatives (not for conditional models);
    /// with [`NeuralConfig::squares`], for a lower bound, all of them again on the coordinates
    /// and their squares.
    pub(super) fn candidates_for(&self, bound: &BoundSpec) -> Vec<Candidate> {
        let plain = |critic: &CriticSpec, adam: AdamConfig| Candidate { critic: critic.clone(), adam, squares: false };
        let mut c = vec![plain(self.critic_for(bound), self.adam.clone())];
        if !bound.needs_log_density() {
            c.extend(
                self.alternatives
                    .iter()
                    .map(|a| plain(&a.critic, AdamConfig { weight_decay: a.weight_decay, ..self.adam.clone() })),
            );
            if self.squares {
                let squared: Vec<Candidate> = c.iter().map(|p| Candidate { squares: true, ..p.clone() }).collect();
                c.extend(squared);
            }
        }
        c
    }

    /// Every nearest-neighbour candidate, in candidate order: [`NeuralConfig::knn`]'s, then
    /// [`NeuralConfig::knn_walks`]'s, then with [`NeuralConfig::knn_blocks`] both again summed
    /// over blocks, then with [`NeuralConfig::knn_given`] all of them on the coordinates as given.
    pub fn neighbour_candidates(&self) -> Vec<Neighbours> {
        neighbour_candidates(&self.knn, &self.knn_walks, self.knn_blocks, self.knn_given)
    }

    /// The nearest-neighbour candidates a fold with `m` fit rows compares, with `blocks` when
    /// its columns fall into blocks (else the blocked candidates are left out). Counted
    /// candidates have `k = factor·√m` (at least 1, at most `m`; one per distinct k); walks
    /// have [`WALK_NEIGHBOURS`] (at most `m − 1`) and need more than one and at most
    /// [`MAX_WALK_ROWS`] fit rows.
    pub(super) fn knn_neighbours(&self, m: usize, blocks: bool) -> Vec<NeighbourPlan> {
        let mut out: Vec<NeighbourPlan> = Vec::new();
        for (position, c) in self.neighbour_candidates().into_iter().enumerate() {
            let (k, steps) = match c {
                Neighbours::Counted { factor, .. } => {
                    (((factor * (m as f64).sqrt()).round() as usize).clamp(1, m.max(1)), 0)
                }
                Neighbours::Walk { steps, .. } if m > 1 && m <= MAX_WALK_ROWS => (WALK_NEIGHBOURS.min(m - 1), steps),
                Neighbours::Walk { .. } => continue,
            };
            if c.blocks() && !blocks {
                continue;
            }
            let key = (k, steps, c.blocks(), c.given());
            if !out.iter().any(|o| (o.k, o.steps, o.blocks, o.given) == key) {
                out.push(NeighbourPlan { position, k, steps, blocks: c.blocks(), given: c.given() });
            }
        }
        out
    }

    /// Critics trained per fold for `bound`'s training objective (1 + the alternatives, twice
    /// with [`NeuralConfig::squares`], or 1 for a conditional model).
    pub fn critics_per_fold(&self, bound: &BoundSpec) -> usize {
        self.candidates_for(&trainer_bound(bound)).len()
    }

    /// The most training steps an estimate of `bounds` can take (bounds sharing a training
    /// objective share critics): the total of a progress bar.
    pub fn max_training_steps(&self, bounds: &[BoundSpec]) -> u64 {
        let mut trainers: Vec<BoundSpec> = Vec::new();
        for b in bounds {
            let t = trainer_bound(b);
            if !trainers.contains(&t) {
                trainers.push(t);
            }
        }
        let folds = self.folds as u64;
        trainers
            .iter()
            .map(|t| {
                let c = self.critics_per_fold(t);
                if self.choose_once && c > 1 {
                    self.steps_per_fold(c) + (folds - 1) * self.steps_per_fold(1)
                } else {
                    folds * self.steps_per_fold(c)
                }
            })
            .sum()
    }

    /// The most steps one fold takes to train `candidates` critics for one objective: every
    /// candidate to the end, or (with [`NeuralConfig::pilot_steps`]) each for the pilot's steps
    /// and the one kept to the end.
    pub(super) fn steps_per_fold(&self, candidates: usize) -> u64 {
        let c = candidates as u64;
        if c > 1 && self.pilot_steps > 0 && self.pilot_steps < self.max_steps {
            (c - 1) * self.pilot_steps + self.max_steps
        } else {
            c * self.max_steps
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_fields_read_as_the_defaults() {
        let empty: NeuralConfig = serde_json::from_str("{}").unwrap();
        assert_eq!(empty, NeuralConfig::default());
        let batch: NeuralConfig = serde_json::from_str(r#"{"batch": 64}"#).unwrap();
        assert_eq!(batch.batch, 64);
        assert_eq!((batch.symmetric, batch.test_batch, &batch.knn), (true, Some(0), &vec![1.0, 2.0, 4.0]));
        assert_eq!((&batch.knn_walks, batch.knn_blocks), (&vec![1, 2, 4, 8, 16], true));
        assert_eq!((batch.lr_decays, batch.lr_decay), (0, 0.1));
    }

    #[test]
    fn a_learning_rate_decay_outside_0_1_is_refused() {
        for bad in [0.0, 1.0, -0.5, f64::NAN] {
            let e = NeuralConfig { lr_decay: bad, lr_decays: 1, ..NeuralConfig::default() }.validate().unwrap_err();
            assert!(e.to_string().contains("learning-rate decay"), "{e}");
        }
        assert!(NeuralConfig { lr_decay: 0.5, lr_decays: 2, ..NeuralConfig::default() }.validate().is_ok());
    }

    #[test]
    fn neighbour_candidates_keep_their_positions() {
        let given = NeuralConfig { knn: vec![1.0, 2.0], knn_walks: vec![2, 8], ..NeuralConfig::default() };
        let cfg = NeuralConfig { knn_given: false, ..given.clone() };
        let plans = |m: usize, blocks: bool| -> Vec<(usize, usize, usize, bool)> {
            cfg.knn_neighbours(m, blocks).iter().map(|p| (p.position, p.k, p.steps, p.blocks)).collect()
        };
        // 3200 fit rows: k = 57 and 113 counted, the walks on 10 neighbours; the blocked ones
        // follow at positions 4..8 only when the fold has blocks.
        let whole = vec![(0, 57, 0, false), (1, 113, 0, false), (2, 10, 2, false), (3, 10, 8, false)];
        assert_eq!(plans(3200, false), whole);
        let blocked: Vec<_> = whole.iter().map(|&(p, k, t, _)| (p + 4, k, t, true)).collect();
        assert_eq!(plans(3200, true), [whole.clone(), blocked].concat());
        assert_eq!(cfg.neighbour_candidates()[5], Neighbours::Counted { factor: 2.0, blocks: true, given: false });
        // With knn_given all of them again, on the coordinates as given, after the others.
        let with_given: Vec<_> = given.knn_neighbours(3200, true).iter().map(|p| (p.position, p.given)).collect();
        assert_eq!(with_given, (0..16).map(|p| (p, p >= 8)).collect::<Vec<_>>());
        assert_eq!(given.neighbour_candidates()[11], Neighbours::Walk { steps: 8, blocks: false, given: true });
        // Above MAX_WALK_ROWS no walk; with 4 rows k = 2 and 4, walks on 3 neighbours.
        assert_eq!(plans(MAX_WALK_ROWS + 1, false).len(), 2);
        assert_eq!(plans(4, false), vec![(0, 2, 0, false), (1, 4, 0, false), (2, 3, 2, false), (3, 3, 8, false)]);
        // One row: k = 1 once (the second factor repeats it), and no graph to walk on.
        assert_eq!(plans(1, false), vec![(0, 1, 0, false)]);
        // Without knn_blocks the blocked candidates do not exist, blocks or not.
        let off = NeuralConfig { knn_blocks: false, ..cfg.clone() };
        assert_eq!(off.knn_neighbours(3200, true).len(), 4);
        assert!(NeuralConfig { knn_walks: vec![0], ..NeuralConfig::default() }.validate().is_err());
    }
}
