//! The default estimate, `auto`: the headline [`EstimatorSpec::auto_for`] chooses for the data
//! (their dimensions, declared class labels, and whether their columns fall into independent
//! low-dimensional blocks, [`sums_blocks`]), as one [`Estimator`]. In a comparison,
//! [`super::compare`] expands `auto` into the headline and its cross-check
//! ([`EstimatorSpec::resolve_for`]).

use super::classical::gaussian::copula_transform;
use super::classical::normality::holds_ties;
use super::classical::{HEADLINE_K, label_estimator};
use super::{Estimate, Estimator, EstimatorSpec, Kind, Settings, SettingsGuard};
use crate::blocks::{BLOCK_LINK_Z, blocks_independence_p, blocks_interaction_p, independent_blocks};
use crate::bounds::BoundSpec;
use crate::data::kinds::LabelColumns;
use crate::error::Result;
use nalgebra::DMatrixView;

impl EstimatorSpec {
    /// What `auto` stands for with `dx + dy` joint dimensions of which `labels` are declared
    /// class labels: [`EstimatorSpec::auto`] when none are. Otherwise an estimator that reads
    /// labels as categories ([`label_estimator`]: `discrete` when both sides are labels, `ross`
    /// when one side is all labels and the other all measurements, `mixed-ksg` for any other
    /// mixture) is the headline up to [`super::LOW_DIMENSION`] joint dimensions, as KSG is
    /// without labels; above, the InfoNCE lower bound (which embeds the labels) is, with that
    /// estimator as its cross-check.
    pub fn auto_with_labels(dx: usize, dy: usize, labels: &LabelColumns) -> Vec<EstimatorSpec> {
        if labels.is_empty() {
            return Self::auto(dx, dy);
        }
        let (kx, ky) = labels.kinds(dx, dy);
        let for_labels = label_estimator(&kx, &ky);
        if dx + dy <= super::LOW_DIMENSION {
            vec![for_labels]
        } else {
            vec![EstimatorSpec::Neural { bound: BoundSpec::InfoNce }, for_labels]
        }
    }

    /// `specs` with every `auto` replaced by [`EstimatorSpec::auto_with_labels`]'s list (an
    /// estimator named twice is kept once): the choice by dimensions and labels alone, without
    /// looking at the data; what [`super::compare`] runs is [`EstimatorSpec::resolve_for`]'s.
    pub fn resolve_with_labels(
        specs: &[EstimatorSpec],
        dx: usize,
        dy: usize,
        labels: &LabelColumns,
    ) -> Vec<EstimatorSpec> {
        Self::expand(specs, &Self::auto_with_labels(dx, dy, labels))
    }

    /// What `auto` stands for on these data: [`EstimatorSpec::auto_with_labels`]'s list, except
    /// where the columns fall into blocks that KSG reads well one by one
    /// ([`sums_blocks`]): then `ksg-blocks` alone.
    ///
    /// Beside a neural bound (without labels), the list also has the copula estimate
    /// ([`copula_applies`]), which is the headline where it is a lower bound and reads more
    /// ([`super::headline_index`]).
    ///
    /// Where the blocks pass every test but the kernel test of their interaction (whose level,
    /// 1 %, is also how often it rejects independent blocks), the neural plan's list gains
    /// `ksg-blocks` beside its cross-check: a sum whose interval lies above the lower bound's
    /// is then said ([`super::compare`]), as either the blocks interact or the bound is short.
    pub fn auto_for(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, labels: &LabelColumns) -> Vec<EstimatorSpec> {
        let verdict = if labels.is_empty() { blocks_verdict(x, y) } else { BlocksVerdict::NotFound };
        let sum = EstimatorSpec::KsgBlocks { k: HEADLINE_K };
        let mut specs = match verdict {
            BlocksVerdict::Independent => return vec![sum],
            _ => Self::auto_with_labels(x.ncols(), y.ncols(), labels),
        };
        if verdict == BlocksVerdict::Interacting && specs[0].bound().is_some() {
            specs.push(sum);
        }
        if specs[0].bound().is_some() && labels.is_empty() && copula_applies(x, y) {
            specs.push(EstimatorSpec::Copula);
        }
        specs
    }

    /// `specs` with every `auto` replaced by [`EstimatorSpec::auto_for`]'s list for these data
    /// (an estimator named twice is kept once).
    pub fn resolve_for(
        specs: &[EstimatorSpec],
        x: DMatrixView<'_, f64>,
        y: DMatrixView<'_, f64>,
        labels: &LabelColumns,
    ) -> Vec<EstimatorSpec> {
        if !specs.contains(&EstimatorSpec::Auto) {
            return Self::expand(specs, &[]);
        }
        Self::expand(specs, &Self::auto_for(x, y, labels))
    }
}

/// Rows per joint dimension the copula estimate needs beside `auto`'s neural bound
/// ([`copula_applies`]).
pub const COPULA_ROWS_PER_DIMENSION: usize = 5;
/// Rows the copula estimate needs beside `auto`'s neural bound at least: the tests of the
/// sides' normality (`classical::normality`) were calibrated on 2000 rows and more; on fewer
/// they see little and their normal approximations are untried, and the copula estimate's
/// interval is wider than the bound's (on 60 rows of 3 + 3 independent dimensions it was the
/// headline with a precision warning at 3 seeds of 3).
pub const COPULA_MIN_ROWS: usize = 2000;

/// Whether `auto`'s neural plan runs the copula estimate beside the bound: at least
/// [`COPULA_MIN_ROWS`] rows, [`COPULA_ROWS_PER_DIMENSION`] rows per joint dimension, no
/// constant column and no column with tied values (where it could never be a bound:
/// [`holds_ties`]; on digit images, pixels of a few levels made its correlation matrix
/// singular). Where each
/// side's normal scores are jointly normal it is a lower bound
/// ([`super::classical::normality`]), and many weak linear dependences spread over hundreds of
/// coordinates are read whole by it, where a trained or fitted critic reads a fraction; where
/// they are not, it is an estimate and the bound stays the headline.
pub fn copula_applies(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>) -> bool {
    use crate::numerics::constant_columns;
    x.nrows() >= COPULA_MIN_ROWS.max(COPULA_ROWS_PER_DIMENSION * (x.ncols() + y.ncols()))
        && constant_columns(x).is_empty()
        && constant_columns(y).is_empty()
        && !holds_ties(x)
        && !holds_ties(y)
}

/// Rows the copula estimate uses beside a neural bound at most: a random subset of larger data
/// sets (its interval re-ranks 100 half-samples; at 10⁴ rows its standard error is a few
/// hundredths of a nat at the MI of the task suite). The rows it read are its `n_samples`.
pub const COPULA_ROWS: usize = 10_000;

/// `s` on `rows` random rows of data with more rows (the same rows for the same seed).
pub(super) fn on_random_rows<S: SettingsGuard + ?Sized>(
    s: &EstimatorSpec,
    settings: &S,
    x: DMatrixView<'_, f64>,
    y: DMatrixView<'_, f64>,
    seed: u64,
    rows: usize,
) -> Result<Estimate> {
    let n = x.nrows();
    if n <= rows {
        return s.build(settings)?.estimate(x, y, seed);
    }
    let mut g = crate::rng::rng(crate::rng::derive_seed(seed, "cross-check rows"));
    let subset = super::significance::subset_rows(n, rows, &mut g);
    let (xs, ys) = (x.select_rows(&subset), y.select_rows(&subset));
    s.build(settings)?.estimate(xs.as_view(), ys.as_view(), seed)
}

/// The copula estimate beside `auto`'s neural bound: on at most [`COPULA_ROWS`] random rows.
pub(super) fn copula_beside_bound<S: SettingsGuard + ?Sized>(
    settings: &S,
    x: DMatrixView<'_, f64>,
    y: DMatrixView<'_, f64>,
    seed: u64,
) -> Result<Estimate> {
    on_random_rows(&EstimatorSpec::Copula, settings, x, y, seed, COPULA_ROWS)
}

/// The default headline for the data at hand.
#[derive(Clone, Debug, PartialEq)]
pub struct Auto {
    /// The settings the chosen estimator is built with.
    pub settings: Settings,
}

impl Estimator for Auto {
    fn name(&self) -> String {
        EstimatorSpec::Auto.to_string()
    }

    /// The chosen estimator's kind depends on the data; the estimate reports it.
    fn kind(&self) -> Kind {
        Kind::Estimate
    }

    fn estimate(&self, x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, seed: u64) -> Result<Estimate> {
        self.estimate_with_progress(x, y, seed, None)
    }

    /// The chosen estimator's estimate, forwarding `progress` (a neural headline trains with
    /// it and stops when it says so).
    fn estimate_with_progress(
        &self,
        x: DMatrixView<'_, f64>,
        y: DMatrixView<'_, f64>,
        seed: u64,
        progress: Option<&dyn crate::train::Progress>,
    ) -> Result<Estimate> {
        let specs = EstimatorSpec::auto_for(x, y, &self.settings.neural.labels);
        let headline = specs[0].build(&self.settings)?.estimate_with_progress(x, y, seed, progress)?;
        if !specs.contains(&EstimatorSpec::Copula) {
            return Ok(headline);
        }
        // The copula estimate beside a neural bound, as `compare` runs it.
        let copula = copula_beside_bound(&self.settings, x, y, seed)?;
        let both = [headline, copula];
        let i = super::headline_index(&both).unwrap_or(0);
        Ok(both.into_iter().nth(i).expect("two estimates"))
    }
}

/// The most joint dimensions at which `auto` looks for blocks ([`sums_blocks`]): the columns
/// and their squares, 400 columns, take a 400 × 400 correlation matrix per half of the rows.
pub const MAX_BLOCK_SEARCH: usize = 200;
/// Rows `auto` looks for blocks in at most ([`sums_blocks`]): evenly spaced rows of larger data
/// (the task suite's data sets, of at most 10000 rows, are searched whole).
pub const BLOCK_SEARCH_ROWS: usize = 20_000;

/// The level of Wilks' test of the blocks' independence below which `auto` does not sum over
/// them ([`sums_blocks`]): 1 %. Where blocks are independent, one data set in a hundred goes to
/// the neural bound instead (slower, not wrong).
pub const BLOCKS_TEST_LEVEL: f64 = 0.01;

/// Whether `auto` sums KSG over blocks (`ksg-blocks`) on these data: at most
/// [`MAX_BLOCK_SEARCH`] joint dimensions, and the columns' normal scores fall into two or more
/// blocks with no link between them ([`crate::blocks::independent_blocks`]: no pair of columns
/// across blocks, nor their squares, nor the product of two columns of a block with a column of
/// another, correlates beyond 6 standard errors on both halves of the rows), each of at most
/// `LOW_DIMENSION` joint dimensions — where KSG on normal scores is the headline anyway — with
/// no column left out, Wilks' test of the blocks' independence
/// ([`crate::blocks::blocks_independence_p`], which pools all the correlations across blocks,
/// weak ones included) does not reject at [`BLOCKS_TEST_LEVEL`], and neither does the kernel
/// test of the blocks' joint independence ([`blocks_interaction_p`], p ≤ 1 %), which sees a
/// block's relation modulated by another block (a sign, a scale or a rotation set by `|x₁|`),
/// where every correlation across blocks is 0 (docs/trust.md).
///
/// Why it may be the headline although it is not a bound: for independent blocks
/// `I(X; Y) = Σ_b I(X_b; Y_b)` exactly, and each term is a low-dimensional MI, which KSG
/// estimates consistently with small bias (the reason it is the headline up to
/// `LOW_DIMENSION`; a 2 + 2 pair that splits into two 1 + 1 pairs is read in two dimensions
/// at a time instead of four, where KSG's bias is smaller). Dependence between blocks makes the
/// sum wrong (above the truth where the blocks share a factor, each correlation too weak to link
/// two columns: what Wilks' test is for; or below it where one block modulates another's
/// relation: what the kernel test is for, on a subsample of 400 rows, so a weak modulation
/// may pass it). A column left out of every block may still carry MI that no
/// correlation of it or its square shows, so then the data go to the neural bound (or, in low
/// dimension, to KSG on all columns). Chosen on the tuning half of the suite (docs/results.md,
/// "Independent blocks: the sum").
pub fn sums_blocks(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>) -> bool {
    blocks_verdict(x, y) == BlocksVerdict::Independent
}

/// What [`sums_blocks`]'s tests say of the columns' blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlocksVerdict {
    /// No blocks that KSG reads well one by one (fewer than two, one too large, a column left
    /// out, or Wilks' test rejects their independence).
    NotFound,
    /// Such blocks, and every test says they are independent: `auto` sums over them.
    Independent,
    /// Such blocks, which every test but the kernel test of their interaction says are
    /// independent.
    Interacting,
}

/// [`sums_blocks`]'s tests, with which of them failed ([`BlocksVerdict`]).
pub fn blocks_verdict(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>) -> BlocksVerdict {
    let d = x.ncols() + y.ncols();
    if d > MAX_BLOCK_SEARCH || x.nrows() != y.nrows() || x.nrows() < 2 * (HEADLINE_K + 1) {
        return BlocksVerdict::NotFound;
    }
    // Evenly spaced rows of larger data: the search ranks every column and its square (1.5 GB
    // at 10⁶ rows of 64 columns), and 20000 rows resolve any correlation that matters here.
    let n = x.nrows();
    let m = n.min(BLOCK_SEARCH_ROWS);
    let rows: Vec<usize> = (0..m).map(|k| k * n / m).collect();
    // Normal scores once, for the block search and both tests (normal_score_blocks's steps).
    let (xs, ys) = if m < n {
        (copula_transform(x.select_rows(&rows).as_view()), copula_transform(y.select_rows(&rows).as_view()))
    } else {
        (copula_transform(x), copula_transform(y))
    };
    let (xs, ys) = (xs.as_view(), ys.as_view());
    let found = independent_blocks(xs, ys, BLOCK_LINK_Z);
    let readable = found.blocks.len() >= 2
        && found.blocks.iter().all(|b| b.0.len() + b.1.len() <= super::LOW_DIMENSION)
        && found.left_out.0.is_empty()
        && found.left_out.1.is_empty()
        && blocks_independence_p(xs, ys, &found.blocks) >= BLOCKS_TEST_LEVEL;
    if !readable {
        BlocksVerdict::NotFound
    } else if blocks_interaction_p(xs, ys, &found.blocks) > BLOCKS_TEST_LEVEL {
        BlocksVerdict::Independent
    } else {
        BlocksVerdict::Interacting
    }
}
