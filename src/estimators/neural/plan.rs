//! Stage 1 of a neural estimate: the plan. From the bounds asked for, the settings and the
//! data's shape it decides, before anything trains, which rows each fold trains, validates and
//! tests on, the batch sizes, how often validation is checked and which critics are trained
//! for which bounds.

use super::candidates::MAX_KNN_REFERENCE;
use super::config::{LabelColumns, NeuralConfig};
use crate::bounds::BoundSpec;
use crate::data::kinds::{MAX_LABEL_LEVELS, codes};
use crate::error::{Error, Result};
use crate::estimators::{Warning, WarningCode, check_inputs};
use crate::rng::{derive_seed, rng, shuffle};
use nalgebra::DMatrixView;

/// The rows of one fold: the critic trains on `fit`, chooses its parameters (and candidate) on
/// `val`, and the bounds are evaluated on `test`, which neither saw.
#[derive(Clone, Debug)]
pub(super) struct FoldRows {
    pub fit: Vec<usize>,
    pub val: Vec<usize>,
    pub test: Vec<usize>,
    /// The fit rows the nearest-neighbour candidates take as reference rows (and look for
    /// blocks of dependent columns in): all of them, or a random [`MAX_KNN_REFERENCE`].
    pub reference: Vec<usize>,
}

impl FoldRows {
    /// The rows the fold's marginal maps are fitted on: its training rows, fit and validation.
    pub fn training(&self) -> Vec<usize> {
        self.fit.iter().chain(&self.val).copied().collect()
    }
}

/// The bounds that share one trained critic: those with the same training objective.
#[derive(Clone, Debug)]
pub(super) struct CriticGroup {
    /// The objective the critic trains.
    pub trainer: BoundSpec,
    /// `(index in the request, bound)` of every bound read off it.
    pub members: Vec<(usize, BoundSpec)>,
}

/// Everything decided before training.
#[derive(Clone, Debug)]
pub(super) struct Plan {
    pub folds: Vec<FoldRows>,
    /// Training batch N (the configured one, or lowered for small data).
    pub batch: usize,
    /// Rows per test batch: `min(batch, smallest test fold)`, the N of InfoNCE's ceiling.
    pub eval_batch: usize,
    /// Steps between validation checks.
    pub eval_every: u64,
    pub groups: Vec<CriticGroup>,
    /// Notes for every estimate (a lowered batch).
    pub notes: Vec<Warning>,
    /// Rows equal to an earlier row, kept in its fold.
    pub repeats: usize,
}

/// The most training rows (fit and validation) a fold uses: a random subset of larger folds. A
/// critic trains for at most `max_steps` batches (3000 of 256 rows by default, 12 passes over
/// this many rows), so more rows would cost memory and the marginal maps' fitting time without
/// a step more of training; the held-out value's precision rests on the test rows.
pub const MAX_TRAINING_ROWS: usize = 1 << 16;
/// The most test rows a fold evaluates its bounds on: a random subset of larger test folds. A
/// held-out mean over 65536 rows has a standard error of `sd/256`, a few thousandths of a nat
/// for InfoNCE's per-row terms (whose spread is of the order of a nat).
pub const MAX_TEST_ROWS: usize = 1 << 16;

/// What every fold needs, as messages say it.
const FOLD_NEEDS: &str = "each fold needs 2 test rows, and 8 training and 2 validation rows outside it";

/// The fewest rows that `folds` folds of equal size split as [`FOLD_NEEDS`] asks (the test
/// rows of a fold, and the rest split 90 % training and 10 % validation rows).
fn min_rows(folds: usize) -> usize {
    (2..)
        .find(|&n: &usize| {
            let outside = n - n.div_ceil(folds);
            let fit = (outside as f64 * 0.9) as usize;
            n / folds >= 2 && fit >= 8 && outside - fit >= 2
        })
        .expect("some number of rows is enough")
}

/// Checks the request against the data and plans the folds (see the module docs).
/// The folds keep identical rows of `(x, group_y)` together (`group_y` is `y`, except for the
/// chain rule's terms, which share the folds of `(x, (y, z))`).
pub(super) fn plan(
    bounds: &[BoundSpec],
    cfg: &NeuralConfig,
    (x, y): (DMatrixView<'_, f64>, DMatrixView<'_, f64>),
    group_y: DMatrixView<'_, f64>,
    seed: u64,
) -> Result<Plan> {
    check_inputs(x, y, 2)?;
    if bounds.is_empty() {
        return Err(Error::param("bounds", "(none)", "ask for at least one bound"));
    }
    for b in bounds {
        if matches!(b, BoundSpec::Ba { entropy_y: None }) {
            return Err(Error::param("ba", "(no H(Y))", "for data files give H(Y) in nats: ba:<nats>"));
        }
        b.build::<f32>()?;
    }
    check_labels(bounds, cfg, x, y)?;
    let n = x.nrows();
    if n < min_rows(cfg.folds) {
        let fitting: Vec<usize> = (2..=n / 2).filter(|&k| min_rows(k) <= n).collect();
        return Err(match (fitting.first(), fitting.last()) {
            (Some(lo), Some(hi)) => {
                let range = if lo == hi { format!("{lo}") } else { format!("{lo} to {hi}") };
                Error::param("folds", cfg.folds, &format!("{n} rows allow {range} folds ({FOLD_NEEDS})"))
            }
            _ => {
                let (fewest, at) = (2..=10).map(|k| (min_rows(k), k)).min().expect("a fold count");
                Error::param(
                    "rows",
                    n,
                    &format!(
                        "too few rows for a held-out neural estimate: it needs at least {fewest} (at {at} folds; {FOLD_NEEDS}); the classical estimators (ksg, gaussian) need fewer"
                    ),
                )
            }
        });
    }
    let (groups_of_rows, repeats) = folds_by_groups(x, group_y, &cfg.labels, cfg.folds, seed);
    // Identical rows share a fold, so a held-out row is never a copy of a training row: the
    // count is reported with the estimate (`repeated_rows`), not warned of. Whether repeats are
    // copies to drop is the data rules' question (`data::repeats`), asked on every surface.
    let mut notes = Vec::new();
    // The smallest fold's training part (90 % of the rows outside it) and test part.
    let min_test = groups_of_rows.iter().map(Vec::len).min().unwrap_or(0);
    let max_test = groups_of_rows.iter().map(Vec::len).max().unwrap_or(0);
    let min_fit = ((n - max_test) as f64 * 0.9) as usize;
    let min_val = (n - max_test) - min_fit;
    if min_test < 2 || min_fit < 8 || min_val < 2 {
        return Err(Error::param("rows", n, &format!("too few rows for {} folds: {FOLD_NEEDS}", cfg.folds)));
    }
    let mut batch = cfg.batch;
    if min_fit < batch {
        batch = 1 << min_fit.ilog2();
        let message = format!(
            "small data set: {n} rows leave {min_fit} training rows per fold, fewer than the batch {}; batch lowered to {batch} (InfoNCE ≤ log N, so estimates above log {batch} = {:.2} nats are out of reach)",
            cfg.batch,
            (batch as f64).ln()
        );
        notes.push(Warning::new(WarningCode::FewRows, message).with("batch", batch as f64));
    }
    let folds = bounded_folds(&groups_of_rows, cfg, batch, seed, &mut notes);
    let min_test = folds.iter().map(|f| f.test.len()).min().unwrap_or(0);
    let eval_every = if cfg.eval_every == 0 { ((min_fit / batch) as u64).clamp(5, 100) } else { cfg.eval_every };
    Ok(Plan {
        folds,
        batch,
        eval_batch: cfg.eval_batch(batch, min_test),
        eval_every,
        groups: groups(bounds),
        notes,
        repeats,
    })
}

/// Each fold's rows from the folds' row groups: the rows outside it (at most a random
/// [`MAX_TRAINING_ROWS`]) split 90 % fit and 10 % validation, its own as test rows (at most a
/// random [`MAX_TEST_ROWS`]), and its nearest-neighbour reference rows; a note where a fold
/// kept a subset.
fn bounded_folds(
    groups_of_rows: &[Vec<usize>],
    cfg: &NeuralConfig,
    batch: usize,
    seed: u64,
    notes: &mut Vec<Warning>,
) -> Vec<FoldRows> {
    let n: usize = groups_of_rows.iter().map(Vec::len).sum();
    let min_test = groups_of_rows.iter().map(Vec::len).min().unwrap_or(0);
    let max_test = groups_of_rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut g = rng(derive_seed(seed, "fold row subsets"));
    let folds: Vec<FoldRows> = (0..cfg.folds)
        .map(|f| {
            let mut fit: Vec<usize> =
                (0..cfg.folds).filter(|&g| g != f).flat_map(|g| groups_of_rows[g].iter().copied()).collect();
            subset_in_order(&mut fit, MAX_TRAINING_ROWS, &mut g);
            let val = fit.split_off((fit.len() as f64 * 0.9) as usize);
            let mut test = groups_of_rows[f].clone();
            subset_in_order(&mut test, MAX_TEST_ROWS, &mut g);
            let mut reference = fit.clone();
            subset_in_order(&mut reference, MAX_KNN_REFERENCE, &mut g);
            FoldRows { fit, val, test, reference }
        })
        .collect();
    if n - min_test > MAX_TRAINING_ROWS || max_test > MAX_TEST_ROWS {
        let message = format!(
            "large data set: each fold trains on at most a random {MAX_TRAINING_ROWS} of the rows outside it ({} steps of {batch} rows draw each about {:.0} times) and is tested on at most a random {MAX_TEST_ROWS} of its own, so that time and memory stay bounded",
            cfg.max_steps,
            (cfg.max_steps as f64 * batch as f64 / MAX_TRAINING_ROWS as f64).max(1.0)
        );
        notes.push(
            Warning::new(WarningCode::Subsampled, message)
                .with("training_rows", MAX_TRAINING_ROWS as f64)
                .with("test_rows", MAX_TEST_ROWS as f64),
        );
    }
    folds
}

/// Keeps a random `cap` of `rows` (in their order) when there are more.
fn subset_in_order(rows: &mut Vec<usize>, cap: usize, g: &mut dyn crate::rng::Rng) {
    if rows.len() > cap {
        let mut keep: Vec<usize> = (0..rows.len()).collect();
        shuffle(&mut keep, g);
        keep.truncate(cap);
        keep.sort_unstable();
        *rows = keep.into_iter().map(|i| rows[i]).collect();
    }
}

/// The critics: one per distinct training objective, in order of first appearance.
fn groups(bounds: &[BoundSpec]) -> Vec<CriticGroup> {
    let mut groups: Vec<CriticGroup> = Vec::new();
    for (i, b) in bounds.iter().enumerate() {
        let t = b.trainer();
        match groups.iter_mut().find(|g| g.trainer == t) {
            Some(g) => g.members.push((i, *b)),
            None => groups.push(CriticGroup { trainer: t, members: vec![(i, *b)] }),
        }
    }
    groups
}

/// Checks [`NeuralConfig::labels`] against the data and the bounds. (The entropy ceiling of a
/// side made of labels is checked for every estimate of a comparison, in `compare`.)
fn check_labels(
    bounds: &[BoundSpec],
    cfg: &NeuralConfig,
    x: DMatrixView<'_, f64>,
    y: DMatrixView<'_, f64>,
) -> Result<()> {
    let labels = cfg.labels.validate(x.ncols(), y.ncols())?;
    for (side, m, cols) in [("x", x, &labels.x), ("y", y, &labels.y)] {
        for &j in cols {
            let levels = codes(m.columns(j, 1)).1;
            if levels > MAX_LABEL_LEVELS {
                return Err(Error::param(
                    &format!("label column {j} of {side}"),
                    levels,
                    &format!(
                        "has {levels} levels, more than {MAX_LABEL_LEVELS}: an identifier or a measurement, not a class label; do not declare it discrete"
                    ),
                ));
            }
        }
    }
    if let Some(b) = bounds.iter().find(|b| b.needs_log_density() && !cfg.labels.y.is_empty()) {
        return Err(Error::param(
            "estimator",
            b,
            "its conditional model q(y|x) is a Gaussian density, which cannot model a label in y: use a lower bound (infonce, smile:5, …)",
        ));
    }
    Ok(())
}

/// Splits the rows into `k` folds of nearly equal size at random (seeded), keeping identical
/// rows (the same measurements of x and y, bit for bit) together. Label columns do not count:
/// labels repeat by nature, and a pair of labels only (a channel) has a few distinct rows,
/// which must reach every fold's training rows. Returns the folds and the number of rows that
/// repeat an earlier one.
fn folds_by_groups(
    x: DMatrixView<'_, f64>,
    y: DMatrixView<'_, f64>,
    labels: &LabelColumns,
    k: usize,
    seed: u64,
) -> (Vec<Vec<usize>>, usize) {
    use std::collections::HashMap;
    let n = x.nrows();
    let measured = |m: DMatrixView<'_, f64>, skip: &[usize]| -> Vec<usize> {
        (0..m.ncols()).filter(|j| !skip.contains(j)).collect()
    };
    let (xc, yc) = (measured(x, &labels.x), measured(y, &labels.y));
    let mut groups: Vec<Vec<usize>> = Vec::new();
    // Rows by a hash of their bits (8 bytes a row, where the rows themselves as keys took
    // 600 MB at 10⁶ rows of 64 columns); rows with equal hashes are compared bit for bit.
    let bits =
        |i: usize| xc.iter().map(move |&j| x[(i, j)]).chain(yc.iter().map(move |&j| y[(i, j)])).map(f64::to_bits);
    let mut index: HashMap<u64, Vec<usize>> = HashMap::new();
    for i in 0..n {
        if xc.is_empty() && yc.is_empty() {
            groups.push(vec![i]);
            continue;
        }
        let same = index.entry(crate::rng::fnv1a(bits(i).flat_map(u64::to_le_bytes))).or_default();
        match same.iter().find(|&&g| bits(groups[g][0]).eq(bits(i))) {
            Some(&g) => groups[g].push(i),
            None => {
                same.push(groups.len());
                groups.push(vec![i]);
            }
        }
    }
    let repeats = n - groups.len();
    shuffle(&mut groups, &mut rng(seed));
    // Whole groups fill the folds in turn, each up to its share of the rows.
    let mut folds = vec![Vec::new(); k];
    let (mut f, mut filled) = (0, 0);
    for g in groups {
        while f + 1 < k && filled >= (f + 1) * n / k {
            f += 1;
        }
        filled += g.len();
        folds[f].extend(g);
    }
    (folds, repeats)
}
