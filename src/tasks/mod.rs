//! The benchmark task suite: all 40 tasks of benchmark-mi (Czyż et al. 2023, "Beyond Normal: On
//! the Evaluation of Mutual Information Estimators", `bmi` 0.1.3) under bmi's task ids, and the
//! harder tasks a researcher needs to see an estimator fail (high MI, small n, heavy tails,
//! independent pairs), each with its true MI and optimal critic. `docs/tasks.md` has every
//! family's definition, MI formula and source.
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
//!
//! | prefix | map |
//! | --- | --- |
//! | `normal_cdf-`, `half_cube-`, `asinh-`, `wiggly-` | element-wise on `x` and `y` |
//! | `spiral-` | bmi's spiral on `x` (plane 0,1) and `y` (plane 1,2), speed `1/dim` |
//! | `swissroll_x-` | swiss-roll embedding of `x ∈ (0, 1)` into the plane |
//! | `cubic-` | `y ↦ y³` (Poole et al.'s cubic task) |
//! | `indep-` | the product of the task's marginals (`I = 0`) |
//! | `small_n-N-` | the same distribution with suggested sample size `N` |

pub mod conditional;
mod maps;
mod normal;
mod student;
mod uniform;

pub use maps::{Bijection, Mapped, NormalMixture, normal_cdf, normal_quantile, wiggly_x, wiggly_y};
pub use normal::{bivariate, dense, dense_covariance, sparse, sparse_correlation};
pub use student::{SplitStudentT, student_correction, student_entropy};
pub use uniform::AdditiveUniform;

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
    /// The sample size the task is meant to be estimated from.
    pub suggested_n: usize,
    /// Where the definition comes from.
    pub source: String,
    /// Whether [`Sampler::optimal_critic`] is available.
    pub has_optimal_critic: bool,
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

/// The task with id `id` (see the module docs for the grammar of ids).
pub fn get(id: &str) -> Result<BenchmarkTask> {
    build(id).map_err(|e| match e {
        Error::Unknown { .. } => Error::Unknown {
            kind: "task",
            name: id.into(),
            known: "the ids of `mibound tasks` (bmi's 40, e.g. 1v1-normal-0.75, multinormal-sparse-5-5-2-2.0, \
                    spiral-normal_cdf-multinormal-sparse-3-3-2-2.0; staircase-D-I; student-identity-DX-DY-DF; \
                    prefixes normal_cdf-, half_cube-, asinh-, wiggly-, spiral-, swissroll_x-, cubic-, indep-, \
                    small_n-N-)"
                .into(),
        },
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
}

fn task(id: &str, sampler: Box<dyn Sampler>, parts: Parts, chain: Option<MapChain>) -> BenchmarkTask {
    let info = TaskInfo {
        id: id.to_string(),
        name: parts.name,
        family: parts.family,
        description: parts.description,
        dim_x: sampler.dim_x(),
        dim_y: sampler.dim_y(),
        true_mi: sampler.true_mi(),
        suggested_n: parts.suggested_n,
        source: parts.source,
        has_optimal_critic: true,
    };
    BenchmarkTask { info, sampler, chain }
}

fn parts(name: String, family: &str, description: String, source: String) -> Parts {
    Parts { name, family: family.into(), description, source, suggested_n: DEFAULT_N }
}

fn build(id: &str) -> Result<BenchmarkTask> {
    if let Some(rest) = id.strip_prefix("indep-") {
        let inner = build(rest)?;
        let p = Parts {
            name: format!("Independent @ {}", inner.info.name),
            family: format!("independent ({})", inner.info.family),
            description: format!("x and y from two independent draws of {rest}: its marginals, I = 0"),
            source: "mibound (independent twin of a task)".into(),
            suggested_n: inner.info.suggested_n,
        };
        return Ok(task(id, Box::new(Independent::new(inner)), p, None));
    }
    if let Some(rest) = id.strip_prefix("small_n-") {
        let f = fields(id, rest, 2)?;
        let n: usize = num(id, f[0])?;
        if n == 0 {
            return Err(Error::param("small_n sample size", 0, "must be at least 1"));
        }
        let mut inner = build(f[1])?;
        inner.info.id = id.to_string();
        inner.info.name = format!("{} (n = {n})", inner.info.name);
        inner.info.family = format!("small n ({})", inner.info.family);
        inner.info.description = format!("{} — estimated from only n = {n} samples", inner.info.description);
        inner.info.suggested_n = n;
        return Ok(inner);
    }
    let prefixes = ["normal_cdf-", "half_cube-", "asinh-", "wiggly-", "spiral-", "swissroll_x-", "cubic-"];
    for p in prefixes {
        if let Some(rest) = id.strip_prefix(p) {
            return build_mapped(id, p.trim_end_matches('-'), build(rest)?);
        }
    }
    build_base(id)
}

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
    let p = Parts {
        name,
        family: format!("{prefix} ∘ {}", inner.info.family),
        description: format!("{} ↦ {what}; MI unchanged", inner.info.id),
        source: if prefix == "cubic" {
            "Poole et al. 2019 (cubic task); mibound".into()
        } else {
            format!("{BMI} bmi.benchmark.tasks ({prefix}), bmi.transforms")
        },
        suggested_n: inner.info.suggested_n,
    };
    let sampler = Mapped::new(inner, xm, ym)?;
    Ok(task(id, Box::new(sampler), p, Some(chain)))
}

fn build_base(id: &str) -> Result<BenchmarkTask> {
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
    Err(unknown(id))
}
