//! The settings of the neural estimates: [`NeuralConfig`], with the candidate critics each
//! fold chooses among in one sub-structure ([`Candidates`]).

use super::candidates::{Candidate, Candidates};
use crate::bounds::BoundSpec;
use crate::compute::Compute;
use crate::critics::CriticSpec;
pub use crate::data::kinds::LabelColumns;
use crate::error::{Error, Result};
use crate::estimators::marginal::MarginalTransform;
use crate::optim::AdamConfig;
use serde::{Deserialize, Serialize};

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
    /// Steps without a validation improvement before a critic stops.
    pub patience: u64,
    /// The candidates each fold compares beside [`NeuralConfig::critic`] for the lower bounds,
    /// and how it chooses among them.
    pub candidates: Candidates,
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
    /// Train (and validate) lower-bound critics on the symmetrised objective
    /// `½ (B(S) + B(Sᵀ))` ([`crate::bounds::Symmetrised`]); the estimate is still `B` on the
    /// test rows.
    pub symmetric: bool,
}

impl Default for NeuralConfig {
    /// The defaults of `mibound estimate`: critics with one hidden layer of 512 (a separable
    /// critic with 32-d embeddings, a Gaussian q), no weight decay, N = 256, 5 folds, at most
    /// 3000 steps, and every fold choosing by validation among the candidates of
    /// [`Candidates::default`] (deeper critics with weight decay, each trained critic again on
    /// the squares, nearest-neighbour, random-walk and elliptical critics; chosen once, on the
    /// first fold, after a pilot of 500 steps). Lower-bound critics train on the bound
    /// symmetrised over both orientations of the scores, each test fold is one test batch, and
    /// a critic stops after 120 steps without a validation improvement (docs/results.md,
    /// section 28).
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
            candidates: Candidates::default(),
            compute: Compute { threads: STEP_THREADS, ..Compute::default() },
            labels: LabelColumns::default(),
            test_batch: Some(0),
            max_memory_mb: None,
            symmetric: true,
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
    /// patience ≥ 1, the optimiser's ranges, the critics' sizes and the candidates'.
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
        let c = &self.candidates;
        if let Some(f) = c.knn.iter().find(|f| !(f.is_finite() && **f > 0.0)) {
            return Err(Error::param("knn factor", f, "must be positive and finite (k = factor · √rows)"));
        }
        for t in &c.elliptical {
            t.checked()?;
        }
        if c.walks.contains(&0) {
            return Err(Error::param("random-walk steps", 0, "must be at least 1"));
        }
        if self.max_memory_mb == Some(0) {
            return Err(Error::param("max_memory_mb", 0, "must be at least 1 (MB)"));
        }
        self.adam.validate()?;
        // Building on 1 × 1 inputs checks the critics' sizes (hidden width 0, embedding 0).
        self.critic.build::<f32>(1, 1)?;
        self.conditional.build::<f32>(1, 1)?;
        for a in &c.alternatives {
            AdamConfig { weight_decay: a.weight_decay, ..self.adam.clone() }.validate()?;
            a.critic.build::<f32>(1, 1)?;
        }
        Ok(())
    }

    /// The critic that trains `bound`'s objective.
    pub(super) fn critic_for(&self, bound: &BoundSpec) -> &CriticSpec {
        if bound.needs_log_density() { &self.conditional } else { &self.critic }
    }

    /// Every candidate a fold compares for `bound`'s training objective ([`BoundSpec::trainer`]),
    /// in order ([`Candidates::list`]): the configured critic (the conditional model for a
    /// bound that needs a log density, alone), then those of [`NeuralConfig::candidates`].
    pub fn candidates_for(&self, bound: &BoundSpec) -> Vec<Candidate> {
        let trainer = bound.trainer();
        self.candidates.list(self.critic_for(&trainer), self.adam.weight_decay, trainer.needs_log_density())
    }

    /// Critics trained per fold for `bound`'s training objective.
    pub fn critics_per_fold(&self, bound: &BoundSpec) -> usize {
        self.candidates_for(bound).iter().filter(|c| c.is_trained()).count()
    }

    /// The most training steps an estimate of `bounds` can take (bounds sharing a training
    /// objective share critics): the total of a progress bar.
    pub fn max_training_steps(&self, bounds: &[BoundSpec]) -> u64 {
        let mut trainers: Vec<BoundSpec> = Vec::new();
        for b in bounds {
            let t = b.trainer();
            if !trainers.contains(&t) {
                trainers.push(t);
            }
        }
        let folds = self.folds as u64;
        trainers
            .iter()
            .map(|t| {
                let c = self.critics_per_fold(t);
                if self.candidates.choose_once && c > 1 {
                    self.steps_per_fold(c) + (folds - 1) * self.steps_per_fold(1)
                } else {
                    folds * self.steps_per_fold(c)
                }
            })
            .sum()
    }

    /// The most steps one fold takes to train `candidates` critics for one objective: every
    /// candidate to the end, or (with [`Candidates::pilot_steps`]) each for the pilot's steps
    /// and the one kept on for the rest.
    pub(super) fn steps_per_fold(&self, candidates: usize) -> u64 {
        let (c, pilot) = (candidates as u64, self.candidates.pilot_steps);
        if c > 1 && pilot > 0 && pilot < self.max_steps {
            c * pilot + (self.max_steps - pilot)
        } else {
            c * self.max_steps
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::critics::Tails;

    #[test]
    fn missing_fields_read_as_the_defaults() {
        let empty: NeuralConfig = serde_json::from_str("{}").unwrap();
        assert_eq!(empty, NeuralConfig::default());
        let batch: NeuralConfig = serde_json::from_str(r#"{"batch": 64, "candidates": {"knn": [2.0]}}"#).unwrap();
        assert_eq!(batch.batch, 64);
        assert_eq!((batch.symmetric, batch.test_batch, &batch.candidates.knn), (true, Some(0), &vec![2.0]));
        assert_eq!((&batch.candidates.walks, batch.candidates.blocks), (&vec![1, 2, 4, 8, 16], true));
    }

    #[test]
    fn bad_candidates_are_refused() {
        let with = |candidates| NeuralConfig { candidates, ..NeuralConfig::default() }.validate();
        assert!(with(Candidates { walks: vec![0], ..Candidates::default() }).is_err());
        assert!(with(Candidates { knn: vec![f64::NAN], ..Candidates::default() }).is_err());
        let student = |dof| Candidates { elliptical: vec![Tails::Student { dof }], ..Candidates::default() };
        assert!(with(student(2.0)).is_err() && with(student(f64::INFINITY)).is_err() && with(student(3.0)).is_ok());
        assert!(with(Candidates::none()).is_ok());
    }

    #[test]
    fn only_lower_bounds_have_more_than_one_candidate() {
        let cfg = NeuralConfig::default();
        // 3 trained critics, again on the squares; 8 neighbour critics, again summed over
        // blocks, all again on the coordinates as given; the elliptical critics.
        assert_eq!(cfg.candidates_for(&BoundSpec::InfoNce).len(), 6 + 32 + 3);
        assert_eq!(cfg.critics_per_fold(&BoundSpec::InfoNce), 6);
        assert_eq!(cfg.candidates_for(&BoundSpec::Club).len(), 1);
        assert_eq!(cfg.candidates_for(&BoundSpec::Loo)[0].kind, cfg.candidates_for(&BoundSpec::Club)[0].kind);
    }
}
