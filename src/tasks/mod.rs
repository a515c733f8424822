//! The benchmark task suite: all 40 tasks of benchmark-mi (Czyż et al. 2023, "Beyond Normal: On
//! the Evaluation of Mutual Information Estimators", `bmi` 0.1.3) under bmi's task ids, the
//! harder tasks a researcher needs to see an estimator fail (high MI, small n, heavy tails,
//! independent pairs) and the families the 40 lack (mixtures, discrete and mixed coordinates,
//! images, …), each with its true MI and optimal critic, split into a tuning and a held-out half
//! ([`Split`], [`split_ids`]). `docs/tasks.md` has every family's definition, MI formula and
//! source.
//!
//! ```
//! use mibound::data::{rng, Sampler};
//! let task = mibound::tasks::get("half_cube-multinormal-sparse-3-3-2-2.0").unwrap();
//! assert_eq!((task.dim_x(), task.dim_y()), (3, 3));
//! assert!((task.true_mi() - 1.0216512475319819).abs() < 1e-12);
//! let (x, y) = task.draw(100, 7).unwrap();
//! assert_eq!((x.nrows(), y.ncols()), (100, 3));
//! ```
//!
//! ## The one registry
//! Every built-in task is reached from here. [`Parametric`] holds the families indexed by their
//! true MI at any dimension (`gaussian`, `cubic`, `asinh-cubic`: `mibound train`'s staircase, the
//! figures); [`get`] builds a suite task from its id (below). [`named`] is what `mibound sample`
//! and Python's `sample` take: a family's name (at a dimension and an MI) or an id, with one
//! error listing both when the name is neither.
//!
//! ## Ids
//! A task id is a base id with optional prefixes, read from the left (each prefix wraps the
//! task named by the rest of the id, as bmi composes its transforms):
//!
//! | base id | task |
//! | --- | --- |
//! | `1v1-normal-ρ` | bivariate normal, correlation ρ |
//! | `1v1-additive-ε` | `X ~ U(0,1)`, `Y = X + U(−ε, ε)` |
//! | `1v1-bimodal-ρ` | the bivariate normal mapped to bimodal mixture marginals |
//! | `multinormal-dense-DX-DY-C` | normal, all correlations `C` |
//! | `multinormal-sparse-DX-DY-K-S` | normal, `K` correlated pairs of strength `S` |
//! | `student-identity-DX-DY-ν` | multivariate Student-t, identity dispersion |
//! | `student-sparse-DX-DY-ν-K-S` | multivariate Student-t, sparse dispersion |
//! | `staircase-D-I` | `D`-dimensional correlated Gaussian with `I` nats (Poole et al. 2019) |
//! | `mixture-cross-ρ` | `½ N(0, [[1, ρ], [ρ, 1]]) + ½ N(0, [[1, −ρ], [−ρ, 1]])` (MI by Monte Carlo) |
//! | `mixture-diag-DX-DY-K-σ`, `mixture-ring-DX-DY-K-σ` | `K` isotropic Gaussian components (MI by Monte Carlo) |
//! | `additive-normal-D-ε`, `additive-uniform-D-ε` | `D` pairs `y_j = x_j + U(−ε, ε)`, `x` normal or uniform |
//! | `classes-K-D-σ` | `x` a class label, `y | x ~ N(μ_x, σ² I_D)` (MI by Monte Carlo) |
//! | `gao-uniform-m` | `x` uniform on `{0, …, m−1}`, `y | x ~ U[x, x + 2]` (Gao et al. 2017) |
//! | `digits-ε`, `digits_x2-ε` | digit images through a label channel flipping with probability `ε` |
//! | `student-staircase-D-ν-I` | `D + D` Student-t, staircase dispersion (normal part `I`) |
//! | `embed-K-D-I` | `staircase-K-I` embedded in `D + D` dims by random injective maps |
//!
//! | prefix | map |
//! | --- | --- |
//! | `normal_cdf-`, `half_cube-`, `asinh-`, `wiggly-` | element-wise on `x` and `y` |
//! | `spiral-` | bmi's spiral on `x` (plane 0,1) and `y` (plane 1,2), speed `1/dim` |
//! | `swissroll_x-` | swiss-roll embedding of `x ∈ (0, 1)` into the plane |
//! | `cubic-` | `y ↦ y³` (Poole et al.'s cubic task) |
//! | `rotate-`, `exp-` | a fixed random orthogonal matrix on `x` and on `y`; `exp` element-wise |
//! | `zero_inflated-P-` | `y` set to 0 with probability `P` (`I` times `1 − P`) |
//! | `indep-` | the product of the task's marginals (`I = 0`) |
//! | `small_n-N-` | the same distribution with suggested sample size `N` |
//! | `scale-N-` | the same distribution at representation scale: `N` rows, group `scale` |
//!
//! ## Representation scale
//! [`SCALE_IDS`] lists tasks of 64 to 1024 dimensions per side and 10⁴ to 10⁶ rows (rotated
//! Gaussians and Student-t, embedded latent pairs), each with its own row count. They are a
//! group of their own, split into halves of their own ([`scale_split_ids`]), and are not part
//! of the suite's halves ([`split_ids`]) nor of [`all_ids`].

pub mod conditional;
mod digits;
mod discrete;
mod maps;
mod mixture;
mod normal;
mod parametric;
mod scale;
mod split;
mod student;
pub mod trust;
mod truth;
mod uniform;

pub use digits::{DigitImages, Digits, digit_images, label_channel_mi};
pub use discrete::{GaoUniform, ZeroInflated};
pub use maps::{
    Bijection, Mapped, NormalMixture, normal_cdf, normal_quantile, random_linear, random_orthogonal, wiggly_x, wiggly_y,
};
pub use normal::{bivariate, dense, dense_covariance, sparse, sparse_correlation};
pub use parametric::Parametric;
pub use scale::{EMBED_GAIN, EMBED_SEED, SCALE_IDS, scale_ids};
pub use split::{Group, Split};
pub use student::{SplitStudentT, student_correction, student_entropy};
pub use truth::{MC_N, MC_SEED, MC_TRUTHS};
pub use uniform::{AdditiveNoise, AdditiveUniform, NoiseBase, normal_plus_uniform_entropy};

use crate::data::{CorrelatedGaussian, Sampler};
use crate::error::{Error, Result};
use crate::rng::{Rng, rng};
use nalgebra::DMatrix;
use serde::Serialize;

/// The 40 task ids of bmi 0.1.3's benchmark (`bmi.benchmark.task_list.BENCHMARK_TASKS_LIST`), in
/// bmi's order.
pub const BMI_IDS: [&str; 40] = [
    "1v1-normal-0.75",
    "normal_cdf-1v1-normal-0.75",
    "1v1-additive-0.1",
    "1v1-additive-0.75",
    "1v1-bimodal-0.75",
    "wiggly-1v1-normal-0.75",
    "half_cube-1v1-normal-0.75",
    "student-identity-1-1-1",
    "asinh-student-identity-1-1-1",
    "swissroll_x-normal_cdf-1v1-normal-0.75",
    "multinormal-dense-2-2-0.5",
    "multinormal-dense-3-3-0.5",
    "multinormal-dense-5-5-0.5",
    "multinormal-dense-25-25-0.5",
    "multinormal-dense-50-50-0.5",
    "multinormal-sparse-2-2-2-2.0",
    "multinormal-sparse-3-3-2-2.0",
    "multinormal-sparse-5-5-2-2.0",
    "multinormal-sparse-25-25-2-2.0",
    "student-identity-2-2-1",
    "student-identity-2-2-2",
    "student-identity-3-3-2",
    "student-identity-3-3-3",
    "student-identity-5-5-2",
    "student-identity-5-5-3",
    "normal_cdf-multinormal-sparse-3-3-2-2.0",
    "normal_cdf-multinormal-sparse-5-5-2-2.0",
    "normal_cdf-multinormal-sparse-25-25-2-2.0",
    "half_cube-multinormal-sparse-3-3-2-2.0",
    "half_cube-multinormal-sparse-5-5-2-2.0",
    "half_cube-multinormal-sparse-25-25-2-2.0",
    "spiral-multinormal-sparse-3-3-2-2.0",
    "spiral-multinormal-sparse-5-5-2-2.0",
    "spiral-multinormal-sparse-25-25-2-2.0",
    "spiral-normal_cdf-multinormal-sparse-3-3-2-2.0",
    "spiral-normal_cdf-multinormal-sparse-5-5-2-2.0",
    "spiral-normal_cdf-multinormal-sparse-25-25-2-2.0",
    "asinh-student-identity-2-2-1",
    "asinh-student-identity-3-3-2",
    "asinh-student-identity-5-5-2",
];

/// The tasks beyond bmi's 40 that `mibound tasks` lists (the `indep-` twin of every bmi task and
/// of the extra high-MI and heavy-tailed tasks comes on top, see [`all_ids`]).
pub const EXTRA_IDS: &[&str] = &[
    // High MI: the Poole et al. 2019 staircase (20-d correlated Gaussian), plain and cubic.
    "staircase-20-2",
    "staircase-20-4",
    "staircase-20-6",
    "staircase-20-8",
    "staircase-20-10",
    "staircase-20-12",
    "staircase-20-16",
    "cubic-staircase-20-10",
    "cubic-staircase-20-16",
    // High MI in bmi's own parametrisation: 5 pairs of correlation 100/101.
    "multinormal-sparse-5-5-5-10.0",
    "half_cube-multinormal-sparse-5-5-5-10.0",
    // Heavy tails in higher dimension.
    "student-identity-10-10-1",
    "student-identity-10-10-2",
    "student-identity-10-10-3",
    "student-identity-20-20-1",
    "student-identity-20-20-2",
    "student-identity-20-20-3",
    "asinh-student-identity-10-10-1",
    "student-sparse-5-5-1-2-2.0",
    "student-sparse-5-5-2-2-2.0",
    "student-sparse-5-5-3-2-2.0",
    // Small n: bmi distributions with a suggested sample size far below mibound's default 10 000 (DEFAULT_N).
    "small_n-64-1v1-normal-0.75",
    "small_n-100-multinormal-sparse-5-5-2-2.0",
    "small_n-100-student-identity-5-5-2",
    "small_n-250-half_cube-multinormal-sparse-25-25-2-2.0",
    // Multimodal Gaussian mixtures in low dimension (MI by Monte Carlo, MC_TRUTHS): an X shape,
    // components on the diagonal, on a ring; thin components (σ = 0.1, 0.2); one above 1.3 nats in 2 + 1.
    "mixture-cross-0.9",
    "mixture-cross-0.99",
    "mixture-diag-1-1-3-0.3",
    "mixture-ring-1-1-6-0.3",
    "mixture-ring-1-1-8-0.1",
    "mixture-diag-1-1-5-0.3",
    "mixture-ring-2-1-5-0.2",
    "mixture-diag-2-1-4-0.25",
    "mixture-diag-2-2-3-0.5",
    "mixture-ring-2-2-5-0.5",
    "mixture-ring-2-2-8-0.3",
    // Additive uniform noise beyond bmi's 1v1: Gaussian or uniform x, several dimensions.
    "additive-normal-1-0.5",
    "additive-normal-1-0.1",
    "additive-normal-2-1.0",
    "additive-normal-3-2.0",
    "additive-normal-5-2.0",
    "additive-uniform-3-0.75",
    // Discrete and mixed coordinates: class labels with class-conditional Gaussians (Monte
    // Carlo), Gao et al. 2017's uniform example, a zero-inflated y.
    "classes-2-1-1.0",
    "classes-4-1-0.5",
    "classes-10-2-0.5",
    "classes-3-3-1.0",
    "classes-5-5-1.0",
    "gao-uniform-2",
    "gao-uniform-5",
    "zero_inflated-0.3-1v1-normal-0.9",
    "zero_inflated-0.5-multinormal-sparse-3-3-2-2.0",
    // Orthogonal and strong monotone maps (MI unchanged).
    "rotate-multinormal-sparse-5-5-2-2.0",
    "rotate-half_cube-multinormal-sparse-5-5-2-2.0",
    "rotate-mixture-ring-2-2-8-0.3",
    "exp-1v1-normal-0.75",
    "exp-multinormal-dense-3-3-0.5",
    "exp-mixture-diag-1-1-3-0.3",
    // Digit images with a controlled MI (Lee & Rhee 2024): 64 + 64 pixels, and two pairs side by
    // side (128 + 128, twice the MI).
    "digits-0.05",
    "digits-0.3",
    "digits-0.5",
    "digits-0.6",
    "digits_x2-0.5",
    "digits_x2-0.6",
    // High MI and heavy tails in low dimension.
    "1v1-normal-0.99",
    "1v1-normal-0.999",
    "multinormal-sparse-5-5-5-3.0",
    "student-sparse-1-1-1-1-3.0",
    "student-sparse-2-2-2-2-2.0",
];

/// The sample size suggested for a task without a `small_n-` prefix.
pub const DEFAULT_N: usize = 10_000;

/// Every listed id: bmi's 40, the extra tasks, and the `indep-` twin of each of those that has
/// no `small_n-` prefix.
pub fn all_ids() -> Vec<String> {
    let mut ids: Vec<String> = BMI_IDS.iter().chain(EXTRA_IDS).map(|s| s.to_string()).collect();
    let twins: Vec<String> =
        ids.iter().filter(|id| !id.starts_with("small_n-")).map(|id| format!("indep-{id}")).collect();
    ids.extend(twins);
    ids
}

/// What `mibound tasks` prints for one task.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TaskInfo {
    /// The id (bmi's task id for bmi's tasks).
    pub id: String,
    /// A display name (bmi's `task_name` for bmi's tasks).
    pub name: String,
    /// The family: the base distribution and the maps composed on it.
    pub family: String,
    /// One line: the definition with its parameters.
    pub description: String,
    /// Dimension of `x`.
    pub dim_x: usize,
    /// Dimension of `y`.
    pub dim_y: usize,
    /// The true MI in nats.
    pub true_mi: f64,
    /// The Monte-Carlo standard error of `true_mi` (0 for a closed form or a quadrature).
    pub true_mi_se: f64,
    /// The sample size the task is meant to be estimated from.
    pub suggested_n: usize,
    /// Where the definition comes from.
    pub source: String,
    /// Whether [`Sampler::optimal_critic`] is available.
    pub has_optimal_critic: bool,
    /// The stratum of the split: the outermost prefix of a transformed task, else the family.
    pub stratum: String,
    /// The half of the suite (`None` for an id outside the listed suite).
    pub split: Option<Split>,
    /// Low dimension, images, high dimension or representation scale.
    pub group: Group,
}

/// The maps of a transformed task and the id of the task they are applied to.
#[derive(Clone, Debug, PartialEq)]
pub struct MapChain {
    /// The id of the untransformed task.
    pub base_id: String,
    /// Maps of `x`, first map first.
    pub x: Vec<Bijection>,
    /// Maps of `y`, first map first.
    pub y: Vec<Bijection>,
}

impl MapChain {
    /// Maps samples of the base task to samples of the transformed task (an error when a map
    /// does not apply to the width it receives).
    pub fn forward(&self, x: &DMatrix<f64>, y: &DMatrix<f64>) -> Result<(DMatrix<f64>, DMatrix<f64>)> {
        Ok((maps::apply_chain(&self.x, x, false)?, maps::apply_chain(&self.y, y, false)?))
    }

    /// Maps samples of the transformed task back to the base task's space.
    pub fn inverse(&self, x: &DMatrix<f64>, y: &DMatrix<f64>) -> Result<(DMatrix<f64>, DMatrix<f64>)> {
        Ok((maps::apply_chain(&self.x, x, true)?, maps::apply_chain(&self.y, y, true)?))
    }
}

/// One task of the suite: a [`Sampler`] with its id, description and provenance.
pub struct BenchmarkTask {
    info: TaskInfo,
    sampler: Box<dyn Sampler>,
    chain: Option<MapChain>,
}

impl std::fmt::Debug for BenchmarkTask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BenchmarkTask").field("info", &self.info).field("sampler", &self.sampler.name()).finish()
    }
}

impl BenchmarkTask {
    /// The id.
    pub fn id(&self) -> &str {
        &self.info.id
    }

    /// Id, name, family, description, dimensions, true MI, suggested n and source.
    pub fn info(&self) -> &TaskInfo {
        &self.info
    }

    /// The one-line description.
    pub fn description(&self) -> &str {
        &self.info.description
    }

    /// The sample size the task is meant to be estimated from.
    pub fn suggested_n(&self) -> usize {
        self.info.suggested_n
    }

    /// For a transformed task, its base task's id and the maps (`None` otherwise).
    pub fn chain(&self) -> Option<&MapChain> {
        self.chain.as_ref()
    }

    /// `n ≥ 1` joint samples from a generator seeded with `seed` (an error for `n = 0`).
    pub fn draw(&self, n: usize, seed: u64) -> Result<(DMatrix<f64>, DMatrix<f64>)> {
        if n == 0 {
            return Err(Error::param("n", 0, "must be at least 1"));
        }
        Ok(self.sample(n, &mut rng(seed)))
    }
}

impl Sampler for BenchmarkTask {
    fn name(&self) -> String {
        format!("{} [{}]", self.info.id, self.sampler.name())
    }
    fn dim_x(&self) -> usize {
        self.sampler.dim_x()
    }
    fn dim_y(&self) -> usize {
        self.sampler.dim_y()
    }
    fn true_mi(&self) -> f64 {
        self.sampler.true_mi()
    }
    fn sample_into(&self, rng: &mut dyn Rng, x: &mut DMatrix<f64>, y: &mut DMatrix<f64>) {
        self.sampler.sample_into(rng, x, y)
    }
    fn optimal_critic(&self, x: &DMatrix<f64>, y: &DMatrix<f64>) -> Option<DMatrix<f64>> {
        self.sampler.optimal_critic(x, y)
    }
    fn entropy_y(&self) -> Option<f64> {
        self.sampler.entropy_y()
    }
    fn log_marginal_y(&self, y: &DMatrix<f64>) -> Option<Vec<f64>> {
        self.sampler.log_marginal_y(y)
    }
}

/// `x` and `y` drawn independently from the marginals of a task: `x` from one joint draw, `y`
/// from a second one. `I = 0`, the optimal critic is identically zero, and the marginals are
/// exactly the base task's.
pub struct Independent<S> {
    base: S,
}

impl<S: Sampler> Independent<S> {
    /// The product of `base`'s marginals.
    pub fn new(base: S) -> Self {
        Independent { base }
    }
}

impl<S: Sampler> Sampler for Independent<S> {
    fn name(&self) -> String {
        format!("independent({})", self.base.name())
    }
    fn dim_x(&self) -> usize {
        self.base.dim_x()
    }
    fn dim_y(&self) -> usize {
        self.base.dim_y()
    }
    fn true_mi(&self) -> f64 {
        0.0
    }
    /// Two joint draws of the base task (allocating one scratch pair): `x` from the first and
    /// `y` from the second.
    fn sample_into(&self, rng: &mut dyn Rng, x: &mut DMatrix<f64>, y: &mut DMatrix<f64>) {
        let mut scratch_x = DMatrix::zeros(x.nrows(), self.base.dim_x());
        let mut scratch_y = DMatrix::zeros(y.nrows(), self.base.dim_y());
        self.base.sample_into(rng, x, &mut scratch_y);
        self.base.sample_into(rng, &mut scratch_x, y);
    }
    fn optimal_critic(&self, x: &DMatrix<f64>, y: &DMatrix<f64>) -> Option<DMatrix<f64>> {
        Some(DMatrix::zeros(x.nrows(), y.nrows()))
    }
    fn entropy_y(&self) -> Option<f64> {
        self.base.entropy_y()
    }
    fn log_marginal_y(&self, y: &DMatrix<f64>) -> Option<Vec<f64>> {
        self.base.log_marginal_y(y)
    }
}

/// The diagonal `log p(y_i | x_i) − log p(y_i)` of the optimal critic on joint samples (the
/// pointwise MI, whose mean is `I`), computed in blocks of 256 rows so memory stays `O(n)`.
pub fn pointwise_mi(task: &dyn Sampler, x: &DMatrix<f64>, y: &DMatrix<f64>) -> Option<Vec<f64>> {
    const BLOCK: usize = 256;
    let n = x.nrows();
    let mut out = Vec::with_capacity(n);
    let mut start = 0;
    while start < n {
        let len = BLOCK.min(n - start);
        let s = task.optimal_critic(&x.rows(start, len).into_owned(), &y.rows(start, len).into_owned())?;
        out.extend((0..len).map(|i| s[(i, i)]));
        start += len;
    }
    Some(out)
}

/// The listed suite without the independent twins: bmi's 40 and [`EXTRA_IDS`], in order. These
/// are the tasks split into the tuning and the held-out half.
pub fn suite_ids() -> Vec<String> {
    BMI_IDS.iter().chain(EXTRA_IDS).map(|s| s.to_string()).collect()
}

/// The ids of one half of the suite, in suite order (see [`Split`]).
pub fn split_ids(split: Split) -> Vec<String> {
    let h = halves(false);
    suite_ids().into_iter().filter(|id| h.get(id) == Some(&split)).collect()
}

/// The ids of one half of the representation-scale tasks ([`SCALE_IDS`], split by the same rule
/// among themselves), in their order.
pub fn scale_split_ids(split: Split) -> Vec<String> {
    let h = halves(true);
    scale_ids().into_iter().filter(|id| h.get(id) == Some(&split)).collect()
}

/// The half of every suite id, or of every scale id (each list built once, when first asked
/// for: the scale tasks' random maps take a second to build). The two lists are split
/// separately, so the scale tasks move no task of the suite.
fn halves(scale: bool) -> &'static std::collections::HashMap<String, Split> {
    type Halves = std::sync::OnceLock<std::collections::HashMap<String, Split>>;
    static SUITE: Halves = Halves::new();
    static SCALE: Halves = Halves::new();
    let (cell, ids) = if scale { (&SCALE, scale_ids as fn() -> Vec<String>) } else { (&SUITE, suite_ids as _) };
    cell.get_or_init(|| {
        let ids = ids();
        let strata: Vec<String> =
            ids.iter().map(|id| build(id).expect("every listed id builds (tested)").info.stratum).collect();
        let halves = split::assign(ids.iter().map(String::as_str).zip(strata.iter().map(String::as_str)));
        ids.into_iter().zip(halves).collect()
    })
}

/// The half of `id`: its own if listed, its task's for an `indep-` twin, else none.
fn split_of(id: &str) -> Option<Split> {
    if id.starts_with("scale-") {
        return halves(true).get(id).copied();
    }
    let h = halves(false);
    h.get(id).or_else(|| id.strip_prefix("indep-").and_then(|base| h.get(base))).copied()
}

/// The task with id `id` (see the module docs for the grammar of ids).
pub fn get(id: &str) -> Result<BenchmarkTask> {
    let mut t = build(id)?;
    t.info.split = split_of(id);
    Ok(t)
}

fn build(id: &str) -> Result<BenchmarkTask> {
    build_any(id).map_err(|e| match e {
        Error::Unknown { .. } => Error::Unknown {
            kind: "task",
            name: id.into(),
            known: "the ids of `mibound tasks` (bmi's 40, e.g. 1v1-normal-0.75, multinormal-sparse-5-5-2-2.0, \
                    spiral-normal_cdf-multinormal-sparse-3-3-2-2.0; staircase-D-I; student-identity-DX-DY-DF; \
                    mixture-diag-DX-DY-K-S, mixture-ring-DX-DY-K-S, mixture-cross-R; classes-K-D-S; \
                    gao-uniform-M; additive-normal-D-E, additive-uniform-D-E; digits-E, digits_x2-E; \
                    student-staircase-D-DF-I; embed-K-D-I; \
                    prefixes normal_cdf-, half_cube-, asinh-, wiggly-, spiral-, swissroll_x-, cubic-, rotate-, \
                    exp-, zero_inflated-P-, indep-, small_n-N-, scale-N-)"
                .into(),
        },
        other => other,
    })
}

/// A task as `mibound sample` and Python's `sample` name it: a [`Parametric`] family at a
/// dimension and an MI, or a suite task ([`get`]).
pub enum Named {
    /// A family at `dim` and `mi`.
    Parametric {
        /// The family with its dimension.
        family: Parametric,
        /// Its sampler at the MI asked for.
        sampler: Box<dyn Sampler>,
    },
    /// A task of the suite (the dimension and MI asked for do not apply).
    Suite(Box<BenchmarkTask>),
}

impl Named {
    /// `n ≥ 1` joint samples from a generator seeded with `seed` (an error for `n = 0`).
    pub fn draw(&self, n: usize, seed: u64) -> Result<(DMatrix<f64>, DMatrix<f64>)> {
        match self {
            Named::Parametric { sampler, .. } => {
                if n == 0 {
                    return Err(Error::param("n", 0, "must be at least 1"));
                }
                Ok(sampler.sample(n, &mut rng(seed)))
            }
            Named::Suite(t) => t.draw(n, seed),
        }
    }
}

/// The task called `name`: a [`Parametric`] family at `dim` and `mi` when `name` is a family's,
/// else the suite task with that id (`dim` and `mi` unused). An unknown name is an error listing
/// the families and the suite's ids.
pub fn named(name: &str, dim: usize, mi: f64) -> Result<Named> {
    if Parametric::is_name(name) {
        let family = Parametric::parse(name, dim)?;
        return Ok(Named::Parametric { family, sampler: family.at_mi(mi)? });
    }
    get(name).map(|t| Named::Suite(Box::new(t))).map_err(|e| match e {
        Error::Unknown { kind, name, known } => {
            Error::Unknown { kind, name, known: format!("{} (with --dim, --mi), or {known}", Parametric::names()) }
        }
        other => other,
    })
}

/// [`TaskInfo`] of every id of [`all_ids`].
pub fn catalogue() -> Result<Vec<TaskInfo>> {
    all_ids().iter().map(|id| get(id).map(|t| t.info)).collect()
}

fn unknown(id: &str) -> Error {
    Error::Unknown { kind: "task", name: id.into(), known: String::new() }
}

fn num<T: std::str::FromStr>(id: &str, s: &str) -> Result<T> {
    s.parse().map_err(|_| unknown(id))
}

/// Splits `rest` into `k` fields at `-`; the last field keeps any further `-` (a negative
/// number).
fn fields<'a>(id: &str, rest: &'a str, k: usize) -> Result<Vec<&'a str>> {
    let f: Vec<&str> = rest.splitn(k, '-').collect();
    if f.len() != k || f.iter().any(|s| s.is_empty()) { Err(unknown(id)) } else { Ok(f) }
}

const BMI: &str = "bmi 0.1.3";

struct Parts {
    name: String,
    family: String,
    description: String,
    source: String,
    suggested_n: usize,
    /// The Monte-Carlo standard error of the MI (0 when exact).
    se: f64,
    /// The stratum, when it is not the family.
    stratum: Option<String>,
    /// A digit-image task (or one built on it).
    images: bool,
}

fn task(id: &str, sampler: Box<dyn Sampler>, parts: Parts, chain: Option<MapChain>) -> BenchmarkTask {
    let (dim_x, dim_y) = (sampler.dim_x(), sampler.dim_y());
    let info = TaskInfo {
        id: id.to_string(),
        name: parts.name,
        stratum: parts.stratum.unwrap_or_else(|| parts.family.clone()),
        family: parts.family,
        description: parts.description,
        dim_x,
        dim_y,
        true_mi: sampler.true_mi(),
        true_mi_se: parts.se,
        suggested_n: parts.suggested_n,
        source: parts.source,
        has_optimal_critic: true,
        split: None,
        group: Group::of(dim_x, dim_y, parts.images),
    };
    BenchmarkTask { info, sampler, chain }
}

fn parts(name: String, family: &str, description: String, source: String) -> Parts {
    Parts {
        name,
        family: family.into(),
        description,
        source,
        suggested_n: DEFAULT_N,
        se: 0.0,
        stratum: None,
        images: false,
    }
}

/// The [`Parts`] of a task wrapped around `inner` (same sample size, error and group).
fn wrapper_parts(inner: &TaskInfo, name: String, family: String, description: String, source: String) -> Parts {
    Parts {
        name,
        family,
        description,
        source,
        suggested_n: inner.suggested_n,
        se: inner.true_mi_se,
        stratum: None,
        images: inner.group == Group::Images,
    }
}

/// `N-ID` after a row-count prefix (`small_n-`, `scale-`): the task `ID` renamed `id`, its name
/// carrying `n = N` and its suggested sample size `N ≥ 1` (`what` names `N` in the error).
fn with_rows(id: &str, rest: &str, what: &str) -> Result<(BenchmarkTask, usize)> {
    let f = fields(id, rest, 2)?;
    let n: usize = num(id, f[0])?;
    if n == 0 {
        return Err(Error::param(what, 0, "must be at least 1"));
    }
    let mut inner = build_any(f[1])?;
    inner.info.id = id.to_string();
    inner.info.name = format!("{} (n = {n})", inner.info.name);
    inner.info.suggested_n = n;
    Ok((inner, n))
}

fn build_any(id: &str) -> Result<BenchmarkTask> {
    if let Some(rest) = id.strip_prefix("indep-") {
        let inner = build_any(rest)?;
        let mut p = wrapper_parts(
            &inner.info,
            format!("Independent @ {}", inner.info.name),
            format!("independent ({})", inner.info.family),
            format!("x and y from two independent draws of {rest}: its marginals, I = 0"),
            "mibound (independent twin of a task)".into(),
        );
        p.se = 0.0;
        p.stratum = Some(inner.info.stratum.clone());
        return Ok(task(id, Box::new(Independent::new(inner)), p, None));
    }
    if let Some(rest) = id.strip_prefix("scale-") {
        return scale::prefixed(id, rest);
    }
    if let Some(rest) = id.strip_prefix("small_n-") {
        let (mut inner, n) = with_rows(id, rest, "small_n sample size")?;
        inner.info.family = format!("small n ({})", inner.info.family);
        inner.info.description = format!("{} — estimated from only n = {n} samples", inner.info.description);
        inner.info.stratum = "small_n".into();
        return Ok(inner);
    }
    if let Some(rest) = id.strip_prefix("zero_inflated-") {
        let f = fields(id, rest, 2)?;
        let p: f64 = num(id, f[0])?;
        let inner = build_any(f[1])?;
        let mut parts = wrapper_parts(
            &inner.info,
            format!("Zero-inflated @ {}", inner.info.name),
            format!("zero_inflated ∘ {}", inner.info.family),
            format!("{} with y set to 0 with probability {p}; I = (1 − {p})·I({})", inner.info.id, inner.info.id),
            "mibound (a mixed coordinate with an atom, after Gao et al. 2017)".into(),
        );
        parts.se *= 1.0 - p;
        parts.stratum = Some("zero_inflated".into());
        let sampler = ZeroInflated::new(inner, p)?;
        return Ok(task(id, Box::new(sampler), parts, None));
    }
    let prefixes =
        ["normal_cdf-", "half_cube-", "asinh-", "wiggly-", "spiral-", "swissroll_x-", "cubic-", "rotate-", "exp-"];
    for p in prefixes {
        if let Some(rest) = id.strip_prefix(p) {
            return build_mapped(id, p.trim_end_matches('-'), build_any(rest)?);
        }
    }
    build_base(id)
}

// Long because each transform prefix (one arm each) names its map of x and of y side by side.
fn build_mapped(id: &str, prefix: &str, inner: BenchmarkTask) -> Result<BenchmarkTask> {
    let (dx, dy) = (inner.dim_x(), inner.dim_y());
    let (xm, ym, label, what): (Vec<Bijection>, Vec<Bijection>, &str, String) = match prefix {
        "normal_cdf" => {
            (vec![Bijection::NormalCdf], vec![Bijection::NormalCdf], "Normal CDF", "Φ on every coordinate".into())
        }
        "half_cube" => {
            (vec![Bijection::HalfCube], vec![Bijection::HalfCube], "Half-cube", "v ↦ v·√|v| on every coordinate".into())
        }
        "asinh" => (vec![Bijection::Asinh], vec![Bijection::Asinh], "Asinh", "asinh on every coordinate".into()),
        "wiggly" => (
            vec![Bijection::WigglyX],
            vec![Bijection::WigglyY],
            "Wiggly",
            "bmi's wiggly_x on x and wiggly_y on y, coordinate-wise".into(),
        ),
        "cubic" => (vec![], vec![Bijection::Cubic], "Cubic", "y ↦ y³ (Poole et al. 2019)".into()),
        "exp" => (vec![Bijection::Exp], vec![Bijection::Exp], "Exp", "exp on every coordinate".into()),
        "rotate" => (
            vec![Bijection::Orthogonal(random_orthogonal(dx, ROTATE_SEED_X + dx as u64))],
            vec![Bijection::Orthogonal(random_orthogonal(dy, ROTATE_SEED_Y + dy as u64))],
            "Rotated",
            format!(
                "x ↦ Q_x x, y ↦ Q_y y, Q Haar-random orthogonal (seeds {} + dim_x, {} + dim_y)",
                ROTATE_SEED_X, ROTATE_SEED_Y
            ),
        ),
        "spiral" => {
            if dx < 2 || dy < 3 {
                return Err(Error::param(
                    "spiral task dimensions",
                    format!("{dx} × {dy}"),
                    "needs dim_x ≥ 2 and dim_y ≥ 3 (bmi's rotation planes (0, 1) and (1, 2))",
                ));
            }
            let (sx, sy) = (1.0 / dx as f64, 1.0 / dy as f64);
            (
                vec![Bijection::Spiral { i: 0, j: 1, speed: sx }],
                vec![Bijection::Spiral { i: 1, j: 2, speed: sy }],
                "Spiral",
                format!("x rotated in plane (0,1) by ‖x‖²/{dx}, y in plane (1,2) by ‖y‖²/{dy}"),
            )
        }
        "swissroll_x" => {
            let unit_x = inner.chain.as_ref().is_some_and(|c| c.x.last() == Some(&Bijection::NormalCdf))
                || inner.id().starts_with("1v1-additive-");
            if dx != 1 || !unit_x {
                return Err(Error::param(
                    "swiss roll base task",
                    inner.id(),
                    "needs a one-dimensional x in (0, 1) (a normal_cdf- task or 1v1-additive-)",
                ));
            }
            (vec![Bijection::SwissRoll], vec![], "Swiss roll", "x ∈ (0,1) embedded as a swiss roll in the plane".into())
        }
        _ => unreachable!("prefix list"),
    };
    let chain = match &inner.chain {
        Some(c) => MapChain {
            base_id: c.base_id.clone(),
            x: c.x.iter().chain(&xm).cloned().collect(),
            y: c.y.iter().chain(&ym).cloned().collect(),
        },
        None => MapChain { base_id: inner.id().to_string(), x: xm.clone(), y: ym.clone() },
    };
    let name = if prefix == "swissroll_x" {
        format!("Swiss roll {} × {dy}", dx + 1)
    } else {
        format!("{label} @ {}", inner.info.name)
    };
    let mut p = wrapper_parts(
        &inner.info,
        name,
        format!("{prefix} ∘ {}", inner.info.family),
        format!("{} ↦ {what}; MI unchanged", inner.info.id),
        match prefix {
            "cubic" => "Poole et al. 2019 (cubic task); mibound".into(),
            "exp" | "rotate" => "mibound (an MI-preserving map)".into(),
            _ => format!("{BMI} bmi.benchmark.tasks ({prefix}), bmi.transforms"),
        },
    );
    p.stratum = Some(prefix.into());
    let sampler = Mapped::new(inner, xm, ym)?;
    Ok(task(id, Box::new(sampler), p, Some(chain)))
}

// Long because it is the registry: one short arm per task family, id → sampler and truth, kept
// in one place so that a reader finds every family by its id prefix.
fn build_base(id: &str) -> Result<BenchmarkTask> {
    if let Some(t) = scale::base(id)? {
        return Ok(t);
    }
    if let Some(r) = id.strip_prefix("1v1-normal-") {
        let rho: f64 = num(id, r)?;
        let s = bivariate(rho)?;
        let p = parts(
            "Bivariate normal 1 × 1".into(),
            "bivariate-normal",
            format!("(x, y) normal, unit variances, correlation {rho}; I = −½ log(1 − ρ²)"),
            format!("{BMI} bmi.benchmark.tasks.bivariate_normal"),
        );
        return Ok(task(id, Box::new(s), p, None));
    }
    if let Some(r) = id.strip_prefix("1v1-additive-") {
        let eps: f64 = num(id, r)?;
        let p = parts(
            format!("Uniform 1 × 1 (additive noise={r})"),
            "additive-uniform",
            format!("x ~ U(0,1), y = x + U(−{eps}, {eps}); I = ε − log 2ε (ε ≤ ½), 1/(4ε) (ε > ½)"),
            format!("{BMI} bmi.benchmark.tasks.additive_noise, bmi.samplers._additive_uniform"),
        );
        return Ok(task(id, Box::new(AdditiveUniform::new(eps)?), p, None));
    }
    if let Some(r) = id.strip_prefix("1v1-bimodal-") {
        let rho: f64 = num(id, r)?;
        let base_id = format!("1v1-normal-{r}");
        let (xm, ym) = (
            vec![Bijection::NormalToMixture(NormalMixture::bimodal_x())],
            vec![Bijection::NormalToMixture(NormalMixture::bimodal_y())],
        );
        let s = Mapped::new(bivariate(rho)?, xm.clone(), ym.clone())?;
        let p = parts(
            "Bimodal 1 × 1".into(),
            "bimodal",
            format!(
                "{base_id} with x ↦ F⁻¹(Φ(x)), F = 0.3 N(0,1) + 0.7 N(5,1), and y ↦ G⁻¹(Φ(y)), \
                 G = 0.5 N(−1,1) + 0.5 N(3,1); MI unchanged"
            ),
            format!("{BMI} bmi.benchmark.tasks.bimodal_gaussians"),
        );
        return Ok(task(id, Box::new(s), p, Some(MapChain { base_id, x: xm, y: ym })));
    }
    if let Some(r) = id.strip_prefix("multinormal-dense-") {
        let f = fields(id, r, 3)?;
        let (dx, dy, c): (usize, usize, f64) = (num(id, f[0])?, num(id, f[1])?, num(id, f[2])?);
        let p = parts(
            format!("Multinormal {dx} × {dy} (dense)"),
            "multinormal-dense",
            format!("normal, unit variances, every pair of the {} coordinates correlated by {c}", dx + dy),
            format!("{BMI} bmi.benchmark.tasks.multinormal.task_multinormal_dense"),
        );
        return Ok(task(id, Box::new(dense(dx, dy, c)?), p, None));
    }
    if let Some(r) = id.strip_prefix("multinormal-sparse-") {
        let f = fields(id, r, 4)?;
        let (dx, dy, k, s): (usize, usize, usize, f64) =
            (num(id, f[0])?, num(id, f[1])?, num(id, f[2])?, num(id, f[3])?);
        let kind = if k == 2 { "2-pair".to_string() } else { "sparse".to_string() };
        let rho = s * s / (1.0 + s * s);
        let p = parts(
            format!("Multinormal {dx} × {dy} ({kind})"),
            "multinormal-sparse",
            format!("normal, unit variances, corr(x_i, y_i) = λ²/(1+λ²) = {rho:.4} for i < {k}, all else 0 (λ = {s})"),
            format!("{BMI} bmi.benchmark.tasks.multinormal.task_multinormal_sparse"),
        );
        return Ok(task(id, Box::new(sparse(dx, dy, k, s)?), p, None));
    }
    if let Some(r) = id.strip_prefix("student-identity-") {
        let f = fields(id, r, 3)?;
        let (dx, dy, df): (usize, usize, f64) = (num(id, f[0])?, num(id, f[1])?, num(id, f[2])?);
        let p = parts(
            format!("Student-t {dx} × {dy} (dof={df})"),
            "student-identity",
            format!("multivariate t, ν = {df}, identity dispersion; I = Student-t correction (X, Y uncorrelated)"),
            format!("{BMI} bmi.benchmark.tasks.student, bmi.samplers._split_student_t"),
        );
        return Ok(task(id, Box::new(SplitStudentT::identity(dx, dy, df)?), p, None));
    }
    if let Some(r) = id.strip_prefix("student-sparse-") {
        let f = fields(id, r, 5)?;
        let (dx, dy, df, k, s): (usize, usize, f64, usize, f64) =
            (num(id, f[0])?, num(id, f[1])?, num(id, f[2])?, num(id, f[3])?, num(id, f[4])?);
        normal::check_dims(dx, dy)?;
        normal::check_pairs(dx, dy, k, s)?;
        let p = parts(
            format!("Student-t {dx} × {dy} (dof={df}, {})", if k == 2 { "2-pair" } else { "sparse" }),
            "student-sparse",
            format!("multivariate t, ν = {df}, dispersion = multinormal-sparse-{dx}-{dy}-{k}-{s}'s"),
            format!("{BMI} bmi.benchmark.tasks.student.task_student_sparse (not in bmi's 40)"),
        );
        let t = SplitStudentT::new(sparse_correlation(dx, dy, k, s), dx, df)?;
        return Ok(task(id, Box::new(t), p, None));
    }
    if let Some(r) = id.strip_prefix("staircase-") {
        let f = fields(id, r, 2)?;
        let (d, mi): (usize, f64) = (num(id, f[0])?, num(id, f[1])?);
        let g = CorrelatedGaussian::with_mi(d, mi)?;
        let p = parts(
            format!("Staircase {d} × {d} ({mi} nats)"),
            "staircase",
            format!("x ~ N(0, I), y = ρx + √(1−ρ²)ε, ρ = {:.6}; I = −d/2 log(1 − ρ²) = {mi}", g.rho()),
            "Poole et al. 2019 (On variational bounds of MI), staircase levels; mibound".into(),
        );
        return Ok(task(id, Box::new(g), p, None));
    }
    if let Some(sampler) = pointwise_base(id)? {
        let m = truth::Measured::new(id, sampler);
        let mut p = if id.starts_with("mixture-") {
            parts(
                format!("Gaussian mixture {} × {}", m.dim_x(), m.dim_y()),
                "gaussian-mixture",
                format!("{}; I by Monte Carlo (2·10⁶ samples)", m.inner().name()),
                "mibound (multimodal mixtures in low dimension)".into(),
            )
        } else {
            parts(
                format!("Classes 1 × {}", m.dim_y()),
                "classes",
                format!("x uniform class label, y | x normal: {}; I by Monte Carlo (2·10⁶ samples)", m.inner().name()),
                "mibound (discrete x, continuous y)".into(),
            )
        };
        p.se = m.se();
        return Ok(task(id, Box::new(m), p, None));
    }
    if let Some(r) = id.strip_prefix("gao-uniform-") {
        let m: usize = num(id, r)?;
        let p = parts(
            format!("Gao uniform (m = {m})"),
            "gao-uniform",
            format!("x uniform on {{0, …, {}}}, y | x ~ U[x, x + 2]; I = log m − (m−1)/m · log 2", m.max(1) - 1),
            "Gao, Kannan, Oh & Viswanath 2017, Estimating MI for discrete-continuous mixtures, §5".into(),
        );
        return Ok(task(id, Box::new(GaoUniform::new(m)?), p, None));
    }
    for (prefix, base, what) in
        [("additive-normal-", NoiseBase::Normal, "N(0, 1)"), ("additive-uniform-", NoiseBase::Uniform, "U(0, 1)")]
    {
        if let Some(r) = id.strip_prefix(prefix) {
            let f = fields(id, r, 2)?;
            let (d, eps): (usize, f64) = (num(id, f[0])?, num(id, f[1])?);
            let p = parts(
                format!("Additive noise {d} × {d} (x ~ {what}, ε = {eps})"),
                prefix.trim_end_matches('-'),
                format!("{d} independent pairs x_j ~ {what}, y_j = x_j + U(−{eps}, {eps}); I = {d}·(H(y_1) − log 2ε)"),
                "mibound (bmi's additive uniform noise in several dimensions)".into(),
            );
            return Ok(task(id, Box::new(AdditiveNoise::new(d, eps, base)?), p, None));
        }
    }
    for (prefix, pairs) in [("digits-", 1), ("digits_x2-", 2)] {
        if let Some(r) = id.strip_prefix(prefix) {
            let eps: f64 = num(id, r)?;
            let d = Digits::new(eps, pairs)?;
            let mut p = parts(
                format!("Digits {} × {} (ε = {eps})", d.dim_x(), d.dim_y()),
                "digits",
                format!(
                    "{} pair(s) of 8×8 digit images, classes through a label channel flipping with \
                     probability {eps}; I = {}·I(C; C')",
                    pairs, pairs
                ),
                "Lee & Rhee 2024 (images with a controlled MI); scikit-learn's digits (BSD-3-Clause)".into(),
            );
            p.images = true;
            return Ok(task(id, Box::new(d), p, None));
        }
    }
    Err(unknown(id))
}

/// The raw sampler of a base id whose MI is measured by Monte Carlo (`mixture-…`, `classes-…`),
/// `None` for any other id.
fn pointwise_base(id: &str) -> Result<Option<Box<dyn truth::Pointwise>>> {
    if let Some(r) = id.strip_prefix("mixture-cross-") {
        return Ok(Some(Box::new(mixture::GaussianMixture::cross(num(id, r)?)?)));
    }
    for (prefix, ring) in [("mixture-diag-", false), ("mixture-ring-", true)] {
        if let Some(r) = id.strip_prefix(prefix) {
            let f = fields(id, r, 4)?;
            let (dx, dy, k, s): (usize, usize, usize, f64) =
                (num(id, f[0])?, num(id, f[1])?, num(id, f[2])?, num(id, f[3])?);
            let m = if ring {
                mixture::GaussianMixture::ring(dx, dy, k, s)?
            } else {
                mixture::GaussianMixture::diag(dx, dy, k, s)?
            };
            return Ok(Some(Box::new(m)));
        }
    }
    if let Some(r) = id.strip_prefix("classes-") {
        let f = fields(id, r, 3)?;
        let (k, d, s): (usize, usize, f64) = (num(id, f[0])?, num(id, f[1])?, num(id, f[2])?);
        return Ok(Some(Box::new(discrete::Classes::new(k, d, s)?)));
    }
    Ok(None)
}

/// The Monte-Carlo MI of a base id without a closed form (`mixture-…`, `classes-…`): mean and
/// standard error of the exact pointwise MI over `n` joint samples drawn with `seed`. With
/// [`MC_N`] and [`MC_SEED`] this is the computation behind [`MC_TRUTHS`]
/// (`examples/task_truths.rs`). An error for any other id.
pub fn monte_carlo_truth(id: &str, n: usize, seed: u64) -> Result<(f64, f64)> {
    if n < 2 {
        return Err(Error::param("n", n, "must be at least 2"));
    }
    match pointwise_base(id)? {
        Some(s) => Ok(truth::monte_carlo(s.as_ref(), n, seed)),
        None => Err(Error::param("Monte-Carlo task", id, "must be a mixture-… or classes-… base id")),
    }
}

/// Seeds of the `rotate-` prefix's orthogonal matrices: `Q_x` from `ROTATE_SEED_X + dim_x`, `Q_y`
/// from `ROTATE_SEED_Y + dim_y`.
pub const ROTATE_SEED_X: u64 = 1_000;
/// See [`ROTATE_SEED_X`].
pub const ROTATE_SEED_Y: u64 = 2_000;
