//! The Kraskov–Stögbauer–Grassberger k-nearest-neighbour estimate of `I(X; Y)`.
//!
//! Kraskov, Stögbauer & Grassberger, *Estimating mutual information*, Phys. Rev. E 69, 066138
//! (2004). Distances are max-norms: `‖(x, y)‖ = max(‖x‖∞, ‖y‖∞)` in the joint space and `‖·‖∞`
//! in each marginal. For each point `i`, take its `k` nearest neighbours in the joint space
//! (other than itself; duplicates of `i` count, at distance 0).
//!
//! - **KSG-1** (their eq. 8): `ε_i` = distance to the k-th neighbour;
//!   `n_x(i) = #{j ≠ i : ‖x_j − x_i‖ < ε_i}` (strictly inside), `n_y(i)` likewise, and
//!   `Î₁ = ψ(k) − ⟨ψ(n_x + 1) + ψ(n_y + 1)⟩ + ψ(N)`.
//! - **KSG-2** (their eq. 9): `ε_x(i)`, `ε_y(i)` = the largest x- (y-) distance among the k
//!   neighbours; `n_x(i) = #{j ≠ i : ‖x_j − x_i‖ ≤ ε_x(i)}` (non-strict), `n_y(i)` likewise, and
//!   `Î₂ = ψ(k) − 1/k − ⟨ψ(n_x) + ψ(n_y)⟩ + ψ(N)`.
//!
//! `⟨·⟩` is the mean over the `N` points and `ψ` the digamma function. The value is not
//! clipped at 0 (scikit-learn clips; compare before clipping).
//!
//! **Search** ([`KsgSearch`]). Two exact paths with identical results on tie-free data:
//! *tree* — the joint k-NN search uses `kiddo`'s k-d tree with its Chebyshev metric up to 12
//! joint dimensions (an exact brute-force scan above), and the marginal counts a sorted array
//! with binary search in one dimension, a k-d tree range count otherwise; *scan* — for each
//! point one pass over all others computes the marginal max-norm distances, keeps the k nearest
//! in the joint space and counts, vectorised (AVX2 where the CPU has it). The scan costs
//! `O(n² (d_x + d_y))` but no tree overhead, and wins for small `n` and in many dimensions; the
//! default chooses by `n` and `d`. Queries run in parallel on rayon's pool; the result does not
//! depend on the number of threads.
//!
//! **Preprocessing** (the [`Ksg`] estimator, not [`ksg_mi`]): by default each column is
//! standardised (mean 0, standard deviation 1 with the `1/N` normalisation; constant columns are
//! left alone), then tie-breaking noise is added as scikit-learn's `mutual_info_regression`
//! does: `noise · max(1, mean|column|) · ε` with `ε ~ N(0, 1)` drawn from the estimator's seed,
//! `noise = 1e-10`. On data with ties (repeated values) the strict and non-strict counts are
//! otherwise ambiguous; the noise breaks them without moving any distance noticeably.
//!
//! **Sums over blocks** (`ksg-blocks`, [`Ksg::blocks`]). When the columns fall into blocks
//! `(X_b, Y_b)` independent of each other, `I(X; Y) = Σ_b I(X_b; Y_b)`: the density ratio is the
//! product of the blocks' ratios. Each term is then a low-dimensional MI, where KSG's bias is
//! small, while KSG on all columns at once pays the bias of their joint dimension (measured in
//! docs/results.md, "Independent blocks: the sum"). The blocks are [`independent_blocks`] of the normal scores (columns linked when they or
//! their squares correlate beyond [`BLOCK_LINK_Z`] standard errors on both halves of the rows),
//! found once on all rows; the interval's half-samples keep them. Columns in no block are left
//! out (their MI with the other side is taken to be 0); with no block found, the estimate is
//! KSG on every column (both said in a warning). Dependence between blocks breaks the sum's
//! premise (a shared factor makes it read above the truth, an interaction below); blocks are
//! also joined where a product of two columns of one correlates with a column of another, and
//! `auto` chooses `ksg-blocks` only where Wilks' test of the blocks' independence also passes
//! (`estimators::auto::sums_blocks`).
//!
//! **Bias.** KSG is consistent, but in high dimension and at high MI it is biased downwards,
//! badly: the k-th neighbour of a point is far away and the density is not constant over the
//! ball. The estimator adds a warning when the joint dimension exceeds 10, and when its value
//! comes within [`CEILING_MARGIN`] of the most `N` rows can show ([`ksg_ceiling`]:
//! every count at its minimum, as for a deterministic relation).

use super::interval::DEFAULT_SUBSAMPLES;
use super::knn::{self, Norm};
use super::{Core, DEFAULT_K, digamma, digamma_table, row_major, run};
use crate::blocks::{BLOCK_LINK_Z, Block, Blocks, blocks_independence_p, independent_blocks};
use crate::data::rng;
use crate::error::{Error, Result};
use crate::estimators::reference;
use crate::estimators::{Estimate, Estimator, EstimatorSpec, Kind, SettingsUsed, Warning, WarningCode, check_inputs};
use crate::rng::derive_seed;
use nalgebra::{DMatrix, DMatrixView};
use rand::RngExt;
use rand_distr::StandardNormal;
use rayon::prelude::*;

/// Which of Kraskov et al.'s two estimators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum KsgVariant {
    /// KSG-1: strict counts within the joint k-th-neighbour distance.
    Ksg1,
    /// KSG-2: non-strict counts within the marginal extents of the k neighbours.
    Ksg2,
}

impl KsgVariant {
    /// `1` → [`KsgVariant::Ksg1`], `2` → [`KsgVariant::Ksg2`], anything else an error.
    pub fn from_number(v: u8) -> Result<Self> {
        match v {
            1 => Ok(KsgVariant::Ksg1),
            2 => Ok(KsgVariant::Ksg2),
            _ => Err(Error::param("ksg variant", v, "must be 1 or 2")),
        }
    }

    /// `1` or `2`.
    pub fn number(self) -> u8 {
        match self {
            KsgVariant::Ksg1 => 1,
            KsgVariant::Ksg2 => 2,
        }
    }
}

/// The largest value either variant can read from `n` tie-free rows with `k` neighbours:
/// `ψ(N) − ψ(k) − 1/k`. KSG-2 counts the `k` neighbours themselves, so `n_x, n_y ≥ k` and
/// `ψ(n_x) + ψ(n_y) ≥ 2ψ(k)`. KSG-1 counts strictly inside `ε_i`: the `k − 1` nearer joint
/// neighbours are inside in both marginals, and the k-th, at joint distance `ε_i` in one
/// marginal, is strictly inside the other unless its two distances tie, so one count is at
/// least `k` and `ψ(n_x + 1) + ψ(n_y + 1) ≥ ψ(k) + ψ(k + 1) = 2ψ(k) + 1/k` (module docs'
/// formulas). A monotone relation (`y = f(x)`) reaches it: every count is its minimum. With
/// exact ties and no tie-breaking noise KSG-1 can read up to `1/k` more.
pub fn ksg_ceiling(n: usize, k: usize) -> f64 {
    let kf = k as f64;
    digamma(n as f64) - digamma(kf) - 1.0 / kf
}

/// How close to [`ksg_ceiling`] a KSG estimate may come before it is flagged
/// ([`WarningCode::AtCeiling`]): half a nat. Near the ceiling every point's counts are at or near
/// their minimum, so the estimate says only that the MI is about as large as `n` rows can show.
pub const CEILING_MARGIN: f64 = 0.5;

/// The warning of a KSG estimate within [`CEILING_MARGIN`] of what `n` rows can show, if it is.
fn ceiling_warning(value: f64, n: usize, k: usize, variant: KsgVariant) -> Option<Warning> {
    let ceiling = ksg_ceiling(n, k);
    (value > ceiling - CEILING_MARGIN).then(|| {
        let message = format!(
            "KSG-{v} (k={k}) reads {value:.3}, within {CEILING_MARGIN} of the most it can read from {n} rows \
             (ψ(N) − ψ(k) − 1/k = {ceiling:.3}, what y = f(x) reads): the MI may be far larger than these \
             rows can show; the interval is that of the estimator, not of the MI",
            v = variant.number(),
        );
        Warning::new(WarningCode::AtCeiling, message).with("value", value).with("ceiling", ceiling)
    })
}

/// The KSG estimate with the mean neighbour counts.
#[derive(Clone, Debug, PartialEq)]
pub struct KsgResult {
    /// The estimate in nats (not clipped at 0).
    pub mi: f64,
    /// Mean of `n_x(i)`.
    pub mean_nx: f64,
    /// Mean of `n_y(i)`.
    pub mean_ny: f64,
    /// Standard deviation of the per-point terms `ψ(k) + ψ(n) − ψ(n_x(i) + 1) − ψ(n_y(i) + 1)`
    /// whose mean the estimate is.
    pub term_sd: f64,
}

/// The KSG estimate (module docs) of `I(X; Y)` in nats from the rows of `x` and `y`, as is: no
/// standardisation, no noise. Errors: different row counts, an empty side, a non-finite value,
/// `k = 0` or `k ≥ n`.
pub fn ksg_mi(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, k: usize, variant: KsgVariant) -> Result<f64> {
    ksg(x, y, k, variant).map(|r| r.mi)
}

/// How the neighbours are searched. All three give the same counts on data without distance
/// ties (with ties, KSG-2's choice among equidistant k-th neighbours may differ).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KsgSearch {
    /// [`KsgSearch::Scan`] for small `n` or many dimensions, else [`KsgSearch::Tree`] (the rule
    /// is in the source, `auto_scan`).
    #[default]
    Auto,
    /// k-d trees (kiddo, Chebyshev metric) for the joint k-NN (brute force above 12 joint
    /// dimensions) and for the marginal range counts (a sorted array in one dimension).
    Tree,
    /// One exact O(n²) pass per point computing the marginal distances to all other points,
    /// the k nearest in the joint space and both counts together (vectorised, no tree).
    Scan,
}

/// Whether [`KsgSearch::Auto`] scans, for `n` rows in `d` joint dimensions: never for `d = 2`;
/// for `n ≤ 2000` with `d ≤ 5`, `n ≤ 8000` with `d ≤ 9`, `n ≤ 30000` with `d ≤ 12`; always
/// above 12 (where the tree path's joint search is brute force too). The break-even points
/// were measured with `benches/ksg.rs --search tree|scan` on this project's machine.
fn auto_scan(n: usize, d: usize) -> bool {
    match d {
        0..=2 => false,
        3..=5 => n <= 2000,
        6..=9 => n <= 8000,
        _ if d <= ALWAYS_SCAN_ABOVE => n <= 30_000,
        _ => true,
    }
}

/// Joint dimensions above which [`KsgSearch::Auto`] always scans (the tree path's joint search
/// is brute force there too).
pub(crate) const ALWAYS_SCAN_ABOVE: usize = 12;

/// `k` must be at least 1 and smaller than the `n` rows.
fn check_k(k: usize, n: usize) -> Result<()> {
    if k == 0 {
        return Err(Error::param("ksg k", k, "must be at least 1"));
    }
    if k >= n {
        return Err(Error::param("ksg k", k, &format!("must be smaller than the number of rows ({n})")));
    }
    Ok(())
}

/// The columns of `m`, each as one contiguous vector.
fn columns(m: DMatrixView<'_, f64>) -> Vec<Vec<f64>> {
    m.column_iter().map(|c| c.iter().copied().collect()).collect()
}

/// [`ksg_mi`] with the mean neighbour counts.
pub fn ksg(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, k: usize, variant: KsgVariant) -> Result<KsgResult> {
    ksg_with(x, y, k, variant, KsgSearch::Auto)
}

/// [`ksg`] with a chosen neighbour search.
pub fn ksg_with(
    x: DMatrixView<'_, f64>,
    y: DMatrixView<'_, f64>,
    k: usize,
    variant: KsgVariant,
    search: KsgSearch,
) -> Result<KsgResult> {
    if k == 0 {
        return Err(Error::param("ksg k", k, "must be at least 1"));
    }
    check_inputs(x, y, 2)?;
    let n = x.nrows();
    check_k(k, n)?;
    if n > u32::MAX as usize {
        return Err(Error::param("rows", n, "at most 2³² − 1"));
    }
    let (dx, dy) = (x.ncols(), y.ncols());
    let scan = match search {
        KsgSearch::Auto => auto_scan(n, dx + dy),
        KsgSearch::Tree => false,
        KsgSearch::Scan => true,
    };
    let (nx, ny) = if scan { counts_scan(x, y, k, variant) } else { counts_tree(x, y, k, variant) };
    Ok(from_counts(&nx, &ny, k, variant))
}

/// KSG's estimate (and the mean counts, the spread of the per-point terms) from the counts
/// `n_x(i)`, `n_y(i)` of every point.
fn from_counts(nx: &[u32], ny: &[u32], k: usize, variant: KsgVariant) -> KsgResult {
    let n = nx.len();
    let strict = variant == KsgVariant::Ksg1;
    let psi = digamma_table(n + 1);
    let shift = usize::from(strict);
    let (mut sum, mut sum_sq) = (0.0, 0.0);
    for (&a, &b) in nx.iter().zip(ny) {
        let t = psi[a as usize + shift] + psi[b as usize + shift];
        sum += t;
        sum_sq += t * t;
    }
    let nf = n as f64;
    let kf = k as f64;
    let base = digamma(kf) + psi[n];
    let mi = match variant {
        KsgVariant::Ksg1 => base - sum / nf,
        KsgVariant::Ksg2 => base - 1.0 / kf - sum / nf,
    };
    let mean = |c: &[u32]| c.iter().map(|&v| v as f64).sum::<f64>() / nf;
    // The per-point terms differ from ψ(nx + 1) + ψ(ny + 1) by constants: same spread.
    let term_sd = (((sum_sq - sum * sum / nf) / (nf - 1.0)).max(0.0)).sqrt();
    KsgResult { mi, mean_nx: mean(nx), mean_ny: mean(ny), term_sd }
}

/// The marginal max-norm distances of every pair of rows of `x` and of `y`, computed and sorted
/// once, so that KSG-1 of `x` against any permutation of `y`'s rows costs far less than a
/// search of its own: the statistic of a permutation test
/// ([`dependence_test`](crate::estimators::significance::dependence_test)), whose permutations
/// only reorder `y`'s rows. Each row of x's distances is kept sorted, with the rows in that
/// order: point `i`'s k nearest joint neighbours are searched in ascending x-distance, and the
/// search stops at the first x-distance not below the k-th joint distance found (a joint
/// distance is at least the x-distance). On weakly dependent data it visits about `n_x(i)`
/// points instead of all `n`, computing their y-distances from y's coordinates (the permuted
/// rows, copied once per permutation, stay in cache where a distance matrix would not). The
/// counts: `n_x(i)` is where the search stopped, moved back past distances not below the k-th;
/// `n_y(i)` a search in y's sorted row `perm[i]` (`y'_i`'s distances to all `y'` are those of
/// `y_{perm[i]}` to all `y`, in another order), first in every [`COARSE`]-th value of the row
/// (a copy that stays in cache), then in one block of the row. The
/// k-th joint distance and both counts are the scan's, so the value is [`ksg_mi`]'s (KSG-1) on
/// the permuted rows, to the bit (`tests::pair_distances_equal_the_scan`). Memory: `2n²`
/// values and `n²` row numbers (80 MB at 2000 rows).
pub(crate) struct PairDistances {
    n: usize,
    /// Row `i`: x's distances from row `i` to every row (itself included, at 0), ascending.
    x_sorted: Vec<f64>,
    /// Row `i`: the rows in the order of `x_sorted`'s row `i`.
    x_order: Vec<u32>,
    /// Row `i`: y's distances from row `i` to every row, ascending.
    y_sorted: Vec<f64>,
    /// Row `i`: every [`COARSE`]-th value of `y_sorted`'s row `i` (`n.div_ceil(COARSE)` of them).
    y_coarse: Vec<f64>,
    /// y's rows, row-major.
    y_rows: Vec<f64>,
    dy: usize,
}

/// The stride of [`PairDistances`]'s coarse copy of y's sorted distances.
const COARSE: usize = 64;

impl PairDistances {
    /// The distances of `x`'s and `y`'s rows; the errors of [`ksg_mi`] for bad inputs.
    pub(crate) fn new(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>) -> Result<Self> {
        check_inputs(x, y, 2)?;
        let n = x.nrows();
        if n > u32::MAX as usize {
            return Err(Error::param("rows", n, "must fit in 32 bits for the pair distances"));
        }
        let (xc, yc) = (columns(x), columns(y));
        let (mut x_sorted, mut x_order) = (vec![0.0; n * n], vec![0u32; n * n]);
        x_sorted.par_chunks_mut(n).zip(x_order.par_chunks_mut(n)).enumerate().for_each(|(i, (dist, order))| {
            marginal_into(&xc, i, dist);
            let mut pairs: Vec<(f64, u32)> = dist.iter().copied().zip(0..n as u32).collect();
            pairs.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
            for ((d, o), (v, j)) in dist.iter_mut().zip(order.iter_mut()).zip(pairs) {
                (*d, *o) = (v, j);
            }
        });
        let mut y_sorted = vec![0.0; n * n];
        y_sorted.par_chunks_mut(n).enumerate().for_each(|(i, row)| {
            marginal_into(&yc, i, row);
            row.sort_unstable_by(f64::total_cmp);
        });
        let y_coarse = y_sorted.chunks(n).flat_map(|row| row.iter().step_by(COARSE)).copied().collect();
        Ok(PairDistances { n, x_sorted, x_order, y_sorted, y_coarse, y_rows: row_major(y), dy: y.ncols() })
    }

    /// The values of `y_sorted`'s row `r` below `r_max`.
    fn y_below(&self, r: usize, r_max: f64) -> usize {
        let len = self.n.div_ceil(COARSE);
        let coarse = &self.y_coarse[r * len..(r + 1) * len];
        // Every COARSE-th value below r_max: the first value not below lies in the block after.
        let blocks = coarse.partition_point(|&v| v < r_max);
        let (lo, hi) = (blocks.saturating_sub(1) * COARSE, (blocks * COARSE).min(self.n));
        let row = &self.y_sorted[r * self.n..(r + 1) * self.n];
        lo + row[lo..hi].partition_point(|&v| v < r_max)
    }

    /// KSG-1's estimate of `I(X; Y)` with `y`'s rows permuted (`y'_i = y_{perm[i]}`; `None`: as
    /// given). Errors: `k = 0` or `k ≥ n`, a permutation of another length.
    pub(crate) fn ksg1(&self, perm: Option<&[usize]>, k: usize) -> Result<f64> {
        let (n, dy) = (self.n, self.dy);
        check_k(k, n)?;
        let identity: Vec<usize>;
        let perm = match perm {
            Some(p) if p.len() == n => p,
            Some(p) => return Err(Error::param("permutation length", p.len(), &format!("must be {n}"))),
            None => {
                identity = (0..n).collect();
                &identity
            }
        };
        let y_perm: Vec<f64> = perm.iter().flat_map(|&p| &self.y_rows[p * dy..(p + 1) * dy]).copied().collect();
        // The same bits as marginal_into's: a maximum of the same absolute differences is exact.
        let y_dist =
            |i: usize, j: usize| knn::distance(&y_perm[i * dy..(i + 1) * dy], &y_perm[j * dy..(j + 1) * dy], Norm::Max);
        let mut best: Vec<f64> = Vec::with_capacity(k + 1);
        let (mut nx, mut ny) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for (i, &perm_i) in perm.iter().enumerate() {
            let (x_sorted, x_order) = (&self.x_sorted[i * n..(i + 1) * n], &self.x_order[i * n..(i + 1) * n]);
            best.clear();
            let mut worst = f64::INFINITY;
            let mut stop = n;
            for (t, (&dx, &j)) in x_sorted.iter().zip(x_order).enumerate() {
                if dx >= worst {
                    stop = t; // every joint distance from here on is at least dx
                    break;
                }
                let j = j as usize;
                if j == i {
                    continue;
                }
                let dz = fmax(dx, y_dist(i, j));
                if dz < worst {
                    best.insert(best.partition_point(|&b| b <= dz), dz);
                    best.truncate(k);
                    if best.len() == k {
                        worst = best[k - 1];
                    }
                }
            }
            // Strictly inside, the point itself (at 0) not counted: `count_inside`'s rule.
            let self_inside = u32::from(worst > 0.0);
            // The distances before `stop` were below the k-th joint distance when read; it may
            // have shrunk since.
            while stop > 0 && x_sorted[stop - 1] >= worst {
                stop -= 1;
            }
            nx.push(stop as u32 - self_inside);
            ny.push(self.y_below(perm_i, worst) as u32 - self_inside);
        }
        Ok(from_counts(&nx, &ny, k, KsgVariant::Ksg1).mi)
    }
}

/// The counts `n_x(i)`, `n_y(i)` by one exact pass over all other points per point.
fn counts_scan(
    x: DMatrixView<'_, f64>,
    y: DMatrixView<'_, f64>,
    k: usize,
    variant: KsgVariant,
) -> (Vec<u32>, Vec<u32>) {
    let n = x.nrows();
    let (xc, yc) = (columns(x), columns(y));
    let pairs: Vec<(u32, u32)> = (0..n)
        .into_par_iter()
        .map_init(
            || Scratch { ex: vec![0.0; n], ey: vec![0.0; n], dz: vec![0.0; n], best: Vec::with_capacity(k + 1) },
            |scratch, i| scan_point_dispatch(&xc, &yc, i, k, variant, scratch),
        )
        .collect();
    pairs.into_iter().unzip()
}

/// Per-thread buffers of [`counts_scan`].
struct Scratch {
    ex: Vec<f64>,
    ey: Vec<f64>,
    dz: Vec<f64>,
    best: Vec<(f64, usize)>,
}

fn scan_point_dispatch(
    xc: &[Vec<f64>],
    yc: &[Vec<f64>],
    i: usize,
    k: usize,
    variant: KsgVariant,
    s: &mut Scratch,
) -> (u32, u32) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        return unsafe { scan_point_avx2(xc, yc, i, k, variant, s) };
    }
    scan_point(xc, yc, i, k, variant, s)
}

/// [`scan_point`] compiled for AVX2 (4 lanes instead of SSE2's 2). The operations are
/// subtractions, absolute values, maxima and comparisons, all exact: the result is identical.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn scan_point_avx2(
    xc: &[Vec<f64>],
    yc: &[Vec<f64>],
    i: usize,
    k: usize,
    variant: KsgVariant,
    s: &mut Scratch,
) -> (u32, u32) {
    scan_point(xc, yc, i, k, variant, s)
}

/// `max(a, b)` for non-NaN values, written so that it compiles to one `maxpd`.
#[inline(always)]
fn fmax(a: f64, b: f64) -> f64 {
    if a > b { a } else { b }
}

/// `out[j] = max_c |col_c[j] − col_c[i]|`, computed as kiddo and the brute force do.
#[inline(always)]
fn marginal_into(cs: &[Vec<f64>], i: usize, out: &mut [f64]) {
    let q = cs[0][i];
    out.iter_mut().zip(&cs[0]).for_each(|(o, &v)| *o = (v - q).abs());
    for c in &cs[1..] {
        let q = c[i];
        out.iter_mut().zip(c).for_each(|(o, &v)| *o = fmax(*o, (v - q).abs()));
    }
}

/// Points `j ≠ i` with `dist[j] < r` (`strict`) or `≤ r`; `dist[i] = 0`.
#[inline(always)]
fn count_inside(dist: &[f64], r: f64, strict: bool) -> u32 {
    // 64-bit counters, the width of the comparison masks, so that the loop vectorises.
    let inside: u64 = if strict {
        dist.iter().map(|&v| u64::from(v < r)).sum()
    } else {
        dist.iter().map(|&v| u64::from(v <= r)).sum()
    };
    (inside - u64::from(!strict || r > 0.0)) as u32
}

/// The `k` smallest of `dz` with their indices, ascending, into `best` (ties: the earlier index
/// first).
#[inline(always)]
fn k_nearest(dz: &[f64], k: usize, best: &mut Vec<(f64, usize)>) {
    const CHUNK: usize = 16;
    best.clear();
    let mut worst = f64::INFINITY;
    for (c, chunk) in dz.chunks(CHUNK).enumerate() {
        // Most chunks hold no candidate: one vectorised minimum decides.
        if chunk.iter().fold(f64::INFINITY, |m, &v| if v < m { v } else { m }) >= worst {
            continue;
        }
        for (o, &v) in chunk.iter().enumerate() {
            if v < worst {
                let at = best.partition_point(|&(b, _)| b <= v);
                best.insert(at, (v, c * CHUNK + o));
                best.truncate(k);
                if best.len() == k {
                    worst = best[k - 1].0;
                }
            }
        }
    }
}

/// KSG's counts for point `i` by scanning all points.
#[inline(always)]
fn scan_point(
    xc: &[Vec<f64>],
    yc: &[Vec<f64>],
    i: usize,
    k: usize,
    variant: KsgVariant,
    s: &mut Scratch,
) -> (u32, u32) {
    let Scratch { ex, ey, dz, best } = s;
    marginal_into(xc, i, ex);
    marginal_into(yc, i, ey);
    dz.iter_mut().zip(ex.iter().zip(ey.iter())).for_each(|(z, (&a, &b))| *z = fmax(a, b));
    dz[i] = f64::INFINITY;
    k_nearest(dz, k, best);
    point_counts(best, variant, (ex, |j| ex[j]), (ey, |j| ey[j]))
}

/// A point's counts `(n_x, n_y)` from its `k` nearest joint neighbours `best` (ascending): the
/// radii (KSG-1: the k-th joint distance on both sides; KSG-2: each side's largest distance to
/// those neighbours, `dist_to(j)` being the side's distance to point `j`), then the points of
/// the side's distances `all` (any order, the point itself at distance 0) inside them.
#[inline(always)]
fn point_counts(
    best: &[(f64, usize)],
    variant: KsgVariant,
    (x_all, x_to): (&[f64], impl Fn(usize) -> f64),
    (y_all, y_to): (&[f64], impl Fn(usize) -> f64),
) -> (u32, u32) {
    let (rx, ry) = match variant {
        KsgVariant::Ksg1 => {
            let r = best[best.len() - 1].0;
            (r, r)
        }
        KsgVariant::Ksg2 => (
            best.iter().map(|&(_, j)| x_to(j)).fold(0.0, f64::max),
            best.iter().map(|&(_, j)| y_to(j)).fold(0.0, f64::max),
        ),
    };
    let strict = variant == KsgVariant::Ksg1;
    (count_inside(x_all, rx, strict), count_inside(y_all, ry, strict))
}

/// The counts `n_x(i)`, `n_y(i)` with k-d trees (module docs).
fn counts_tree(
    x: DMatrixView<'_, f64>,
    y: DMatrixView<'_, f64>,
    k: usize,
    variant: KsgVariant,
) -> (Vec<u32>, Vec<u32>) {
    let n = x.nrows();
    let (dx, dy) = (x.ncols(), y.ncols());
    let d = dx + dy;
    let xr = row_major(x);
    let yr = row_major(y);
    let mut joint = vec![0.0; n * d];
    for i in 0..n {
        joint[i * d..i * d + dx].copy_from_slice(&xr[i * dx..(i + 1) * dx]);
        joint[i * d + dx..(i + 1) * d].copy_from_slice(&yr[i * dy..(i + 1) * dy]);
    }
    let marginal = |data: &[f64], dm: usize, i: usize, j: usize| -> f64 {
        knn::distance(&data[i * dm..(i + 1) * dm], &data[j * dm..(j + 1) * dm], Norm::Max)
    };
    let radii: Vec<(f64, f64)> = knn::knn_map(&joint, d, k, Norm::Max, |i, eps, nbrs| match variant {
        KsgVariant::Ksg1 => (eps, eps),
        KsgVariant::Ksg2 => {
            let ex = nbrs.iter().map(|&j| marginal(&xr, dx, i, j as usize)).fold(0.0, f64::max);
            let ey = nbrs.iter().map(|&j| marginal(&yr, dy, i, j as usize)).fold(0.0, f64::max);
            (ex, ey)
        }
    });
    drop(joint);
    let strict = variant == KsgVariant::Ksg1;
    let (rx, ry): (Vec<f64>, Vec<f64>) = radii.into_iter().unzip();
    let nx = knn::count_within(&xr, dx, &rx, strict);
    let ny = knn::count_within(&yr, dy, &ry, strict);
    (nx, ny)
}

/// Standardises each column of `m` in place (mean 0, standard deviation 1 with the `1/N`
/// normalisation); constant columns are left unchanged. Returns how many were constant.
pub fn standardize(m: &mut DMatrix<f64>) -> usize {
    let n = m.nrows() as f64;
    let mut constant = 0;
    let moments = |col: &[f64], scale: f64| {
        let mean = col.iter().map(|v| v / scale).sum::<f64>() / n;
        (mean, (col.iter().map(|v| (v / scale - mean) * (v / scale - mean)).sum::<f64>() / n).sqrt())
    };
    for mut col in m.column_iter_mut() {
        let mut scale = 1.0;
        let (mut mean, mut sd) = moments(col.as_slice(), scale);
        // Squares of values near 1e-200 underflow to 0 (and near 1e200 overflow): such a column
        // is standardised in units of its largest magnitude instead of looking constant.
        // (a variance below 1e-280 is made of subnormal squares, imprecise even when not 0).
        if !(sd * sd >= 1e-280 && sd.is_finite()) && col.amax() > 0.0 && col.amax().is_finite() {
            scale = col.amax();
            (mean, sd) = moments(col.as_slice(), scale);
        }
        if sd > 0.0 && sd.is_finite() {
            col.iter_mut().for_each(|v| *v = (*v / scale - mean) / sd);
        } else {
            constant += 1;
        }
    }
    constant
}

/// Adds scikit-learn's tie-breaking noise to each column of `m`:
/// `noise · max(1, mean|column|) · ε`, `ε ~ N(0, 1)` from `g`, column by column.
pub fn add_tie_noise(m: &mut DMatrix<f64>, noise: f64, g: &mut dyn crate::rng::Rng) {
    for mut col in m.column_iter_mut() {
        add_noise_draws(col.as_mut_slice(), noise, &mut std::iter::repeat_with(|| g.sample::<f64, _>(StandardNormal)));
    }
}

/// Adds `noise · max(1, mean|v|) · ε_i` to each `v_i` of one column, with the standard-normal
/// draws `ε_i` taken from `draws` (ours, or numpy's passed in to reproduce scikit-learn).
pub fn add_noise_draws(col: &mut [f64], noise: f64, draws: &mut dyn Iterator<Item = f64>) {
    let scale = noise * (col.iter().map(|v| v.abs()).sum::<f64>() / col.len() as f64).max(1.0);
    col.iter_mut().zip(draws).for_each(|(v, e)| *v += scale * e);
}

/// Divides a column by its standard deviation (`1/N`) without centring it, as scikit-learn's
/// `scale(X, with_mean=False)`; a constant column is left alone. Where the squares of the values
/// overflow (magnitudes ≳ 1e154) or underflow (≲ 1e-154), the deviation is computed in units of
/// the largest magnitude, as [`standardize`] does, instead of leaving the column unscaled.
pub fn scale_column(col: &mut [f64]) {
    let n = col.len() as f64;
    let moments = |scale: f64| {
        let mean = col.iter().map(|v| v / scale).sum::<f64>() / n;
        (col.iter().map(|v| (v / scale - mean) * (v / scale - mean)).sum::<f64>() / n).sqrt()
    };
    let sd = moments(1.0);
    if sd * sd >= 1e-280 && sd.is_finite() {
        col.iter_mut().for_each(|v| *v /= sd);
        return;
    }
    let amax = col.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if amax > 0.0 && amax.is_finite() {
        let sd = moments(amax);
        if sd > 0.0 && sd.is_finite() {
            col.iter_mut().for_each(|v| *v = *v / amax / sd);
        }
    }
}

/// What [`Ksg`] does to each column before the neighbour search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KsgMargins {
    /// Nothing: the distances of the data as given.
    AsGiven,
    /// Mean 0 and standard deviation 1 (scikit-learn's preprocessing).
    #[default]
    Standardized,
    /// Normal scores ([`super::gaussian::normal_scores`]): invariant to monotone maps, and
    /// tames heavy tails, where the standardised KSG is biased low (a 2 + 2-dim Student-t with
    /// ν = 1: 0.23 for 0.43).
    NormalScores,
}

/// The KSG estimator behind the [`Estimator`] interface (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct Ksg {
    /// Number of neighbours (≥ 1; default 5, as bmi). At most N − 2 on N rows (with k ≥ N − 1
    /// every neighbourhood is the whole sample and the estimate is 0 whatever the data), and
    /// above N/2 the estimate warns ([`WarningCode::FewRows`]): it is pulled towards 0.
    pub k: usize,
    /// KSG-1 or KSG-2.
    pub variant: KsgVariant,
    /// What is done to each column first (default [`KsgMargins::Standardized`]).
    pub margins: KsgMargins,
    /// Relative size of the tie-breaking noise (default 1e-10, as scikit-learn; 0 for none).
    pub noise: f64,
    /// Subsamples for the interval (default [`DEFAULT_SUBSAMPLES`]; 0 for none).
    pub subsamples: usize,
    /// Neighbour search (default [`KsgSearch::Auto`]); the value does not depend on it.
    pub search: KsgSearch,
    /// Sum KSG over the blocks of [`independent_blocks`] of the mapped columns instead of
    /// reading all columns at once (default false; `ksg-blocks`). See [`Ksg::estimate`].
    pub blocks: bool,
}

impl Ksg {
    /// KSG with `k` neighbours and the default preprocessing and interval.
    pub fn new(k: usize, variant: KsgVariant) -> Result<Self> {
        if k == 0 {
            return Err(Error::param("ksg k", k, "must be at least 1"));
        }
        Ok(Ksg {
            k,
            variant,
            margins: KsgMargins::Standardized,
            noise: 1e-10,
            subsamples: DEFAULT_SUBSAMPLES,
            search: KsgSearch::Auto,
            blocks: false,
        })
    }
}

impl Ksg {
    /// The blocks the estimate sums over, found on the mapped columns before the tie noise
    /// (for `ksg-blocks`, the blocks of [`normal_score_blocks`]), and the columns left out of
    /// them; one block of every column and `None` without [`Ksg::blocks`] or when none is found.
    fn blocks_to_sum(&self, xm: &DMatrix<f64>, ym: &DMatrix<f64>) -> (Vec<Block>, Option<Blocks>) {
        let every: Block = ((0..xm.ncols()).collect(), (0..ym.ncols()).collect());
        if !self.blocks {
            return (vec![every], None);
        }
        match independent_blocks(xm.as_view(), ym.as_view(), BLOCK_LINK_Z) {
            f if f.blocks.is_empty() || f.blocks == [every.clone()] => (vec![every], None),
            f => (f.blocks.clone(), Some(f)),
        }
    }

    /// The label's suffix for a sum over `blocks` (`found`: none when every column is read at
    /// once), and what a user of `ksg-blocks` must be told: that no block was found, or which
    /// columns were left out of them.
    fn blocks_note(&self, blocks: &[Block], found: Option<&Blocks>) -> (String, Vec<Warning>) {
        let Some(found) = found else {
            let none = "no blocks of columns independent of each other were found: KSG reads every column at once";
            return (String::new(), self.blocks.then(|| Warning::new(WarningCode::Blocks, none)).into_iter().collect());
        };
        let summed = if blocks.len() == 1 {
            " over 1 block".to_string()
        } else {
            format!(" summed over {} blocks", blocks.len())
        };
        let (lx, ly) = &found.left_out;
        let left = (lx.len() + ly.len() > 0).then(|| {
            let message = format!(
                "{} column(s) in no block were left out (x {lx:?}, y {ly:?}): their MI with the other side is taken to be 0",
                lx.len() + ly.len()
            );
            Warning::new(WarningCode::Blocks, message).with("columns", (lx.len() + ly.len()) as f64)
        });
        (summed, left.into_iter().collect())
    }
}

impl Estimator for Ksg {
    fn name(&self) -> String {
        let normal_scores = self.margins == KsgMargins::NormalScores;
        if self.blocks && normal_scores && self.variant == KsgVariant::Ksg1 {
            return EstimatorSpec::KsgBlocks { k: self.k }.to_string();
        }
        EstimatorSpec::Ksg { k: self.k, variant: self.variant.number(), normal_scores }.to_string()
    }

    fn kind(&self) -> Kind {
        Kind::Estimate
    }

    /// KSG's value alone (no interval, no bias reference): the estimate with no half-samples.
    fn reading(&self, x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, seed: u64) -> Result<f64> {
        Ok(Ksg { subsamples: 0, ..self.clone() }.estimate_core(x, y, seed)?.value)
    }

    /// KSG's estimate; on normal scores of every column at once (the headline's), with its
    /// interval widened for its bias ([`reference::bias_at`]) up to [`BIAS_REFERENCE_ROWS`].
    fn estimate(&self, x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, seed: u64) -> Result<Estimate> {
        let mut est = self.estimate_core(x, y, seed)?;
        let whole = !est.diagnostics.values.contains_key("blocks");
        if whole && self.margins == KsgMargins::NormalScores && x.nrows() <= BIAS_REFERENCE_ROWS {
            let known = self.widen_for_bias(&mut est, (x.ncols(), y.ncols(), x.nrows()), seed)?;
            est.diagnostics.warnings.extend(known);
        }
        Ok(est)
    }
}

impl Ksg {
    /// [`Estimator::estimate`] without the bias reference.
    fn estimate_core(&self, x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, seed: u64) -> Result<Estimate> {
        if !(self.noise >= 0.0 && self.noise.is_finite()) {
            return Err(Error::param("ksg noise", self.noise, "must be finite and ≥ 0"));
        }
        check_inputs(x, y, 2)?;
        let mut warnings: Vec<Warning> = k_for_rows(self.k, x.nrows())?.into_iter().collect();
        let (mut xm, mut ym) = match self.margins {
            KsgMargins::NormalScores => (super::gaussian::copula_transform(x), super::gaussian::copula_transform(y)),
            KsgMargins::AsGiven | KsgMargins::Standardized => (x.into_owned(), y.into_owned()),
        };
        if self.margins == KsgMargins::Standardized {
            let constant = standardize(&mut xm) + standardize(&mut ym);
            if constant > 0 {
                warnings.push(
                    Warning::new(WarningCode::ConstantColumns, format!("{constant} constant column(s) left unscaled"))
                        .with("columns", constant as f64),
                );
            }
        }
        let (blocks, found) = self.blocks_to_sum(&xm, &ym);
        let whole = found.is_none();
        if self.noise > 0.0 {
            let mut g = rng(seed);
            add_tie_noise(&mut xm, self.noise, &mut g);
            add_tie_noise(&mut ym, self.noise, &mut g);
        }

        let d = blocks.iter().map(|b| b.0.len() + b.1.len()).max().unwrap_or(0);
        if d > 10 {
            warnings.push(
                Warning::new(
                    WarningCode::HighDimension,
                    format!(
                        "KSG in {d} joint dimensions: expect a large downward bias at high MI (Kraskov et al. 2004, Gao et al. 2015)"
                    ),
                )
                .with("dimensions", d as f64),
            );
        }
        let (k, variant, search) = (self.k, self.variant, self.search);
        let core = |a: DMatrixView<'_, f64>, b: DMatrixView<'_, f64>| -> Result<Core> {
            if whole {
                let r = ksg_with(a, b, k, variant, search)?;
                return Ok(Core {
                    value: r.mi,
                    values: vec![("mean_nx".into(), r.mean_nx), ("mean_ny".into(), r.mean_ny)],
                    warnings: Vec::new(),
                });
            }
            summed_over_blocks(a, b, &blocks, (k, variant, search))
        };
        let settings = SettingsUsed::Ksg {
            k: self.k,
            variant: self.variant.number(),
            norm: "max",
            standardize: self.margins == KsgMargins::Standardized,
            margins: if self.margins == KsgMargins::NormalScores { "normal scores" } else { "as given" },
            noise: self.noise,
            subsamples: self.subsamples,
            search: self.search,
            blocks: found.clone(),
        };
        let scores = if self.margins == KsgMargins::NormalScores { ", normal scores" } else { "" };
        let (summed, notes) = self.blocks_note(&blocks, found.as_ref());
        warnings.extend(notes);
        let label = format!("KSG-{} (k={}{scores}){summed}", self.variant.number(), self.k);
        let mut est =
            run(self.name(), label, settings, xm.as_view(), ym.as_view(), self.subsamples, self.k + 1, seed, &core)?;
        if whole {
            warnings.extend(ceiling_warning(est.value, x.nrows(), self.k, self.variant));
        }
        est.diagnostics.warnings.splice(0..0, warnings);
        Ok(est)
    }
}

/// The most rows at which KSG on normal scores widens its interval for its bias
/// (the interval widened by its bias, with `Ksg`'s estimate): above, the bias at these dimensions is far below the interval's
/// width wherever the reading is below its ceiling, and the reference would cost as much as the
/// estimate.
pub const BIAS_REFERENCE_ROWS: usize = 20_000;

impl Ksg {
    /// Widens `est`'s interval to cover KSG's bias at its reading (on normal scores, `shape` =
    /// `(d_x, d_y, n)`), found by [`reference::bias_at`]: the interval becomes the union of the
    /// interval and the same interval around the corrected reading `value − bias`. A warning
    /// when the bias is material ([`reference::material`] of the corrected reading): the reading
    /// is then off by more than a quarter. Where the bias is found, it replaces the at-ceiling
    /// warning (the reading is explained); where no MI explains the reading, nothing changes.
    fn widen_for_bias(&self, est: &mut Estimate, shape: (usize, usize, usize), seed: u64) -> Result<Option<Warning>> {
        if !est.value.is_finite() || !est.interval.low.is_finite() {
            return Ok(None);
        }
        let read = |a: DMatrixView<'_, f64>, b: DMatrixView<'_, f64>, s: u64| self.reading(a, b, s);
        let (bias, found) = reference::bias_at(&read, shape, est.value, derive_seed(seed, "ksg bias reference"))?;
        if !found {
            // Near the ceiling no MI explains the reading: the at-ceiling warning stands.
            return Ok(None);
        }
        // The reading is explained by an MI, and the bias says how far it is from it: that, not
        // the ceiling, is what to warn of.
        est.diagnostics.warnings.retain(|w| w.code != WarningCode::AtCeiling);
        let corrected = est.value - bias;
        est.diagnostics.values.insert("reference_bias".into(), bias);
        let (low, high) = (est.interval.low - bias, est.interval.high - bias);
        if low < est.interval.low || high > est.interval.high {
            est.interval.low = est.interval.low.min(low);
            est.interval.high = est.interval.high.max(high);
            est.interval.method += &format!(
                "; widened by KSG's bias on a Gaussian with these rows and dimensions at this MI ({bias:+.3} nats)"
            );
        }
        let (d, n) = (shape.0 + shape.1, shape.2);
        Ok((bias.abs() > reference::material(corrected)).then(|| {
            let message = format!(
                "KSG reads {:.3}, but on a Gaussian with {n} rows, {d} dimensions and MI {corrected:.3} it reads {bias:+.3} off: its bias here is more than a quarter of the MI, which is probably near {corrected:.3} (the interval covers both)",
                est.value
            );
            Warning::new(WarningCode::KnownBias, message).with("bias", bias).with("corrected", corrected)
        }))
    }
}

/// `k` neighbours on `n` rows: refused at `k ≥ n − 1`, where every point's neighbourhood is the
/// whole sample (the counts are `n − 1` whatever the data, and the estimate is 0 by
/// construction); a warning above `n/2`: KSG reads the density as constant within each
/// k-neighbourhood, which holds for `k ≪ n`, and with most of the sample in it the estimate is
/// pulled towards 0.
fn k_for_rows(k: usize, n: usize) -> Result<Option<Warning>> {
    if k + 2 > n {
        return Err(Error::param(
            "ksg k",
            k,
            &format!(
                "must be at most the number of rows − 2 ({}): with k ≥ N − 1 every neighbourhood is the whole sample and the estimate is 0 whatever the data",
                n.saturating_sub(2)
            ),
        ));
    }
    Ok((2 * k > n).then(|| {
        Warning::new(
            WarningCode::FewRows,
            format!(
                "k = {k} neighbours is more than half of the {n} rows: each neighbourhood holds most of the sample and the estimate is pulled towards 0; use a k well below the number of rows (the default is {DEFAULT_K})"
            ),
        )
        .with("k", k as f64)
        .with("rows", n as f64)
    }))
}

/// The blocks `ksg-blocks` sums over ([`independent_blocks`] of the columns' normal scores at
/// [`BLOCK_LINK_Z`], with the columns left out of them), and the p-value of Wilks' test that they
/// are independent of each other as Gaussian-copula variables ([`blocks_independence_p`]).
pub fn normal_score_blocks(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>) -> (Blocks, f64) {
    let (xs, ys) = (super::gaussian::copula_transform(x), super::gaussian::copula_transform(y));
    let found = independent_blocks(xs.as_view(), ys.as_view(), BLOCK_LINK_Z);
    let p = blocks_independence_p(xs.as_view(), ys.as_view(), &found.blocks);
    (found, p)
}

/// `Σ_b` KSG of block `b`'s columns of `x` and `y`, with each block's value and mean counts as
/// diagnostics (`block_b`, `block_b_mean_nx`, …, from 1) and a warning for each block within
/// [`CEILING_MARGIN`] of its ceiling.
fn summed_over_blocks(
    x: DMatrixView<'_, f64>,
    y: DMatrixView<'_, f64>,
    blocks: &[Block],
    (k, variant, search): (usize, KsgVariant, KsgSearch),
) -> Result<Core> {
    let mut core = Core { value: 0.0, values: vec![("blocks".into(), blocks.len() as f64)], warnings: Vec::new() };
    for (i, (bx, by)) in blocks.iter().enumerate() {
        let (a, b) = (x.select_columns(bx), y.select_columns(by));
        let r = ksg_with(a.as_view(), b.as_view(), k, variant, search)?;
        core.value += r.mi;
        let name = format!("block_{}", i + 1);
        core.values.extend([
            (format!("{name}_mean_nx"), r.mean_nx),
            (format!("{name}_mean_ny"), r.mean_ny),
            (name.clone(), r.mi),
        ]);
        if let Some(w) = ceiling_warning(r.mi, x.nrows(), k, variant) {
            let columns = format!("block {} (x columns {bx:?}, y columns {by:?})", i + 1);
            core.warnings.push(Warning { message: format!("{columns}: {}", w.message), ..w });
        }
    }
    Ok(core)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{rng, shuffle};
    use rand_distr::Distribution;

    /// Scale does not matter to KSG: the same data times 1e-200 or 1e200 (whose squares under-
    /// and overflow) reads the same value, with no column taken for constant; a constant column
    /// is still one.
    #[test]
    fn tiny_and_huge_values_read_as_their_scaled_data() {
        let mut g = rng(3);
        let x = DMatrix::from_fn(800, 1, |_, _| -> f64 { StandardNormal.sample(&mut g) });
        let noise: f64 = 0.5;
        let y = DMatrix::from_fn(800, 1, |i, _| {
            let e: f64 = StandardNormal.sample(&mut g);
            x[(i, 0)] + noise * e
        });
        let ksg = Ksg::new(5, KsgVariant::Ksg1).unwrap();
        let plain = ksg.estimate(x.as_view(), y.as_view(), 0).unwrap();
        for scale in [1e-200, 1e-158, 1e200] {
            let e = ksg.estimate((&x * scale).as_view(), (&y * scale).as_view(), 0).unwrap();
            assert!((e.value - plain.value).abs() < 1e-9, "scale {scale}: {} against {}", e.value, plain.value);
            assert!(e.diagnostics.warnings.iter().all(|w| w.code != WarningCode::ConstantColumns), "scale {scale}");
        }
        let mut constant = DMatrix::from_element(5, 2, 1e-200);
        constant[(1, 1)] = 2e-200;
        assert_eq!(standardize(&mut constant), 1);
        assert_eq!(constant[(0, 0)], 1e-200, "a constant column is left unchanged");
    }

    /// A monotone function reads exactly the ceiling `ψ(N) − ψ(k) − 1/k` and is
    /// flagged with it: y = x³ on normal scores (the low-dimensional default's margins; the same
    /// ranks), y = 2x + 1 standardised (the same standardised column). A correlated Gaussian pair
    /// (I = 0.51, ρ = 0.8) is far below it and is not flagged.
    #[test]
    fn a_function_reads_the_ceiling_and_is_flagged() {
        let mut g = rng(5);
        let n = 600;
        let x = DMatrix::from_fn(n, 1, |_, _| -> f64 { StandardNormal.sample(&mut g) });
        let y = DMatrix::from_fn(n, 1, |i, _| {
            let e: f64 = StandardNormal.sample(&mut g);
            0.8 * x[(i, 0)] + 0.6 * e
        });
        let ceiling = ksg_ceiling(n, 3);
        let flagged = |e: &Estimate| e.diagnostics.warnings.iter().find(|w| w.code == WarningCode::AtCeiling).cloned();
        for variant in [KsgVariant::Ksg1, KsgVariant::Ksg2] {
            for (margins, f) in
                [(KsgMargins::NormalScores, x.map(|v| v * v * v)), (KsgMargins::Standardized, x.map(|v| 2.0 * v + 1.0))]
            {
                let mut ksg = Ksg::new(3, variant).unwrap();
                ksg.subsamples = 0;
                ksg.margins = margins;
                let e = ksg.estimate(x.as_view(), f.as_view(), 0).unwrap();
                assert!((e.value - ceiling).abs() < 1e-9, "{variant:?} {margins:?}: {} against {ceiling}", e.value);
                assert_eq!(flagged(&e).map(|w| w.values["ceiling"]), Some(ceiling), "{variant:?} {margins:?}");
                let e = ksg.estimate(x.as_view(), y.as_view(), 0).unwrap();
                assert!(e.value < 1.0 && flagged(&e).is_none(), "{variant:?} {margins:?}: {}", e.value);
            }
        }
    }

    /// `PairDistances` gives KSG-1's value ([`ksg_mi`]) on the permuted rows to the bit, in few
    /// dimensions (where `ksg_mi` searches with trees) and in many (where it scans), on
    /// dependent data (so a wrong pairing would change the value), on independent data (where
    /// the early stop of its search matters most) and on data with tied distances.
    #[test]
    fn pair_distances_equal_the_scan() {
        let mut g = rng(11);
        for (dx, dy, n, coupling) in [(1, 1, 500, 1.0), (1, 2, 300, 1.0), (8, 9, 400, 1.0), (3, 3, 600, 0.0)] {
            let mut normal = || -> f64 { StandardNormal.sample(&mut g) };
            let z = DMatrix::from_fn(n, dx, |_, _| normal());
            let y = DMatrix::from_fn(n, dy, |i, j| coupling * z[(i, j % dx)] + 0.5 * normal());
            // Ties: a third of x's first column on a grid of 8 values.
            let z = DMatrix::from_fn(
                n,
                dx,
                |i, j| if j == 0 && i % 3 == 0 { (z[(i, 0)] * 2.0).round() } else { z[(i, j)] },
            );
            let d = PairDistances::new(z.as_view(), y.as_view()).unwrap();
            let mut p: Vec<usize> = (0..n).collect();
            shuffle(&mut p, &mut g);
            let paired = ksg_mi(z.as_view(), y.as_view(), 5, KsgVariant::Ksg1).unwrap();
            if coupling > 0.0 {
                assert!(paired > 0.3, "{dx}+{dy}: dependent data read {paired}");
            }
            assert_eq!(d.ksg1(None, 5).unwrap(), paired, "{dx}+{dy} as paired");
            let permuted = ksg_mi(z.as_view(), y.select_rows(&p).as_view(), 5, KsgVariant::Ksg1).unwrap();
            assert_eq!(d.ksg1(Some(&p), 5).unwrap(), permuted, "{dx}+{dy} permuted");
            assert!(d.ksg1(Some(&p[1..]), 5).is_err());
            assert!(d.ksg1(None, n).is_err());
        }
    }
}
