//! The memory a neural estimate plans to take, checked before any work against
//! [`NeuralConfig::max_memory_mb`] (or the memory the system reports available).
//!
//! The estimate adds what the folds running at once hold: each its copies of the rows it keeps
//! (bounded by [`super::plan::MAX_TRAINING_ROWS`] and [`super::plan::MAX_TEST_ROWS`]), the
//! score matrix of its largest test batch with its gradient (bounded by
//! [`super::config::MAX_TEST_BATCH`] rows by default), its candidates' training batches and
//! its nearest-neighbour searches. The data the caller passed is not counted: it exists already.
//! So the planned peak grows linearly in the rows up to the caps and not at all beyond them.

use super::candidates::MAX_KNN_REFERENCE;
use super::config::NeuralConfig;
use super::plan::Plan;
use crate::critics::CriticSpec;
use crate::error::{Error, Result};
use crate::estimators::marginal::MarginalTransform;

/// Query rows per block of a nearest-neighbour search (`critics::knn`'s block).
const KNN_QUERY_BLOCK: usize = 512;
/// Bytes per MB.
const MB: f64 = 1e6;

/// The planned peak of an estimate, in bytes, by part.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Planned {
    /// Folds that run at once.
    pub folds_at_once: usize,
    /// One fold's copies of its rows (mapped, with squares, as given).
    pub data: f64,
    /// Rows of the largest test batch.
    pub test_rows: usize,
    /// One fold's test batch: scores, gradient, a critic's per-pair caches.
    pub test_batch: f64,
    /// One fold's candidates' training batches.
    pub training: f64,
    /// One fold's untrained candidates: nearest-neighbour searches, the elliptical critics' fit.
    pub neighbours: f64,
}

impl Planned {
    /// The whole planned peak, bytes.
    pub fn total(&self) -> f64 {
        self.folds_at_once as f64 * (self.data + self.test_batch + self.training + self.neighbours)
    }
}

/// Bytes per pair of rows a critic keeps while scoring (its scores and their gradient, in
/// `f32`, and a concatenating critic's activations of every pair).
fn per_pair(critic: &CriticSpec) -> f64 {
    let caches = match critic {
        CriticSpec::Concat { hidden, .. } => 8.0 * hidden.iter().sum::<usize>() as f64,
        _ => 0.0,
    };
    8.0 + caches
}

/// The planned peak of `plan` for `cfg` on data of `dims` columns.
pub(super) fn planned(cfg: &NeuralConfig, plan: &Plan, (dx, dy): (usize, usize)) -> Planned {
    let threads = rayon::current_num_threads().max(1);
    let folds_at_once = if cfg.candidates.choose_once { (cfg.folds - 1).max(1) } else { cfg.folds }.min(threads);
    let rows = plan.folds.iter().map(|f| f.fit.len() + f.val.len() + f.test.len()).max().unwrap_or(0) as f64;
    let width = (dx + dy) as f64;
    let c = &cfg.candidates;
    let neighbours = !c.knn.is_empty() || !c.walks.is_empty();
    let given = c.given && neighbours && cfg.transform != MarginalTransform::None;
    // The rows as kept and as mapped, twice as wide with squares, and as given.
    let copies = 2.0 + if c.squares { 2.0 } else { 0.0 } + if given { 1.0 } else { 0.0 };
    let data = rows * width * 8.0 * copies;
    let max_test = plan.folds.iter().map(|f| f.test.len()).max().unwrap_or(0);
    let test_rows = match cfg.test_batch {
        Some(0) => max_test.div_ceil(super::config::whole_fold_batches(max_test)),
        _ => plan.eval_batch,
    };
    let critic = per_pair(&cfg.critic).max(per_pair(&cfg.conditional));
    // A nearest-neighbour critic's scores in f64, its counts, and their f32 copy.
    let knn_pair = if neighbours { 20.0 } else { 0.0 };
    let test_batch = (test_rows * test_rows) as f64 * (critic + knn_pair);
    let candidates = cfg.critics_per_fold(&crate::bounds::BoundSpec::InfoNce).max(1) as f64;
    let batch = plan.batch as f64;
    // Scores, gradient and the symmetrised objective's transposes of each candidate.
    let training = candidates * batch * batch * (critic + 8.0);
    let reference = plan.folds.iter().map(|f| f.reference.len()).max().unwrap_or(0).min(MAX_KNN_REFERENCE) as f64;
    let mut neighbour_bytes =
        if neighbours { 2.0 * KNN_QUERY_BLOCK as f64 * reference * 8.0 + reference * width * 8.0 } else { 0.0 };
    if !c.elliptical.is_empty() {
        // Their reference rows side by side, and the covariance, its shrunk form, inverse and
        // factor; then the fit's five blocks of it (`1.25·width²` where the sides are equal),
        // which the critics of every tail share.
        neighbour_bytes += 2.0 * reference * width * 8.0 + 6.25 * width * width * 8.0;
    }
    Planned { folds_at_once, data, test_rows, test_batch, training, neighbours: neighbour_bytes }
}

/// The memory the system reports available, in bytes (Linux's `MemAvailable`); `None` where
/// it reports none.
fn available() -> Option<f64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024.0)
}

/// The limit's setting as the Rust API and Python name it, and as the command line does.
const LIMIT: &str = "max_memory_mb / --max-memory-mb";
/// Naming one critic leaves out the other candidates: the settings of `candidates` as the
/// surfaces set them.
const ONE_CRITIC: &str = "name one critic, such as separable, with critic / --critic";

/// Refuses `plan` when its planned peak exceeds the limit (see the module docs), naming the
/// setting that would bring it down the most, as every surface spells it (the library's name,
/// which Python shares, / the command line's flag).
pub(super) fn check(cfg: &NeuralConfig, plan: &Plan, dims: (usize, usize)) -> Result<()> {
    let (limit, limit_from) = match cfg.max_memory_mb {
        Some(mb) => (mb as f64 * MB, LIMIT.to_string()),
        None => match available() {
            Some(b) => (b, format!("the memory the system reports available; set {LIMIT} to change it")),
            None => return Ok(()),
        },
    };
    let p = planned(cfg, plan, dims);
    let needed = p.total();
    if needed <= limit {
        return Ok(());
    }
    Err(Error::Memory {
        needed_mb: (needed / MB).ceil() as u64,
        limit_mb: (limit / MB).floor() as u64,
        limit_from,
        change: change(cfg, plan, &p, dims),
    })
}

/// What to change: the largest part of `p` and the settings that bring it down.
fn change(cfg: &NeuralConfig, plan: &Plan, p: &Planned, dims: (usize, usize)) -> String {
    let largest = [p.data, p.test_batch, p.training, p.neighbours].into_iter().fold(0.0, f64::max);
    let c = &cfg.candidates;
    let neighbours = !c.knn.is_empty() || !c.walks.is_empty();
    if largest == p.test_batch {
        let fewer =
            if neighbours { format!(", {ONE_CRITIC} (no nearest-neighbour candidates),") } else { String::new() };
        format!(
            "most of it is the score matrices of test batches of up to {} rows; lower test_batch (rows per test batch){fewer} or raise {LIMIT}",
            p.test_rows
        )
    } else if largest == p.training {
        format!("most of it is the training batches of {} rows; lower batch / --batch, or raise {LIMIT}", plan.batch)
    } else if largest == p.data {
        let copies = if c.squares || c.given {
            format!(", turn candidates.squares and candidates.given off ({ONE_CRITIC})")
        } else {
            String::new()
        };
        format!(
            "most of it is each fold's copies of its rows ({} columns); estimate on fewer columns or rows{copies}, or raise {LIMIT}",
            dims.0 + dims.1
        )
    } else {
        format!(
            "most of it is the untrained candidates (nearest-neighbour searches, the elliptical critics' covariance); set candidates.knn, candidates.walks and candidates.elliptical empty ({ONE_CRITIC}), or raise {LIMIT}"
        )
    }
}
