//! Blocks of dependent columns: the columns of `x` and `y` joined in one graph, an edge
//! between two columns whose sample correlation is far beyond chance on each of two halves of
//! the rows, and the graph's connected components.
//!
//! When the columns fall into blocks `(X_b, Y_b)` that are independent of each other, the
//! density ratio is the product of the blocks' ratios, so `I(X; Y) = Σ_b I(X_b; Y_b)`: a
//! critic may add one critic per block ([`crate::critics::KnnSum`]), and an estimate may add
//! one low-dimensional estimate per block (`ksg-blocks`). Correlation sees linear dependence;
//! [`independent_blocks`] also links columns whose squares correlate with each other or with
//! the other column (a shared scale, `y = x²`), so that blocks it keeps apart are independent in
//! their first two moments.

use crate::gemm::{Backend, Op, gemm};
use nalgebra::{DMatrix, DMatrixView};

/// Columns that read together: the columns of `x` and of `y` of one block.
pub type Block = (Vec<usize>, Vec<usize>);

/// The blocks of [`independent_blocks`] and the columns left out of them.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Blocks {
    /// The blocks, each with columns of both sides.
    pub blocks: Vec<Block>,
    /// The columns of `x` and of `y` in no block (dependent on no column of the other side).
    pub left_out: Block,
}

/// The correlation, in standard errors (`|r|·√m` on each half of the rows, `m` rows each),
/// above which two columns belong to the same block. Chosen on the tuning half's
/// `digits_x2-0.6` at seeds 0–2 (docs/results.md, section 20): at 6 the two independent pairs
/// of images fall into two blocks at every seed; at 8 some pixels' links within a pair no longer
/// show in both halves (one block of 54 + 55 pixels at seed 0, none at seed 1); a threshold on
/// the correlation of all rows at once merged the pairs at seed 2, at 6 and at 8 standard
/// errors (pixels lit in a few images correlate far beyond the normal tail).
pub const BLOCK_LINK_Z: f64 = 6.0;

/// The blocks of linearly dependent columns of `x` and `y` (the same rows): an edge between
/// two columns (of either side) whose sample correlation reads `|r|·√m > z` on each of two
/// halves of the rows (the even and the odd rows, `m` rows each; under independence `r·√m` is
/// about standard normal), and the graph's connected components. Components with columns of
/// both `x` and `y` are returned, each with its columns ascending, in the order of their first
/// `x` column; constant columns join none.
///
/// Both halves must show the link because a column that is nearly constant (a pixel lit in a
/// few images) correlates with another such column far beyond the normal tail when the few
/// rows happen to coincide; that rarely happens in both halves at once. Found by correlation,
/// the blocks may be wrong, which costs a critic summed over them tightness, never validity.
pub fn dependent_blocks(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, z: f64) -> Vec<Block> {
    let mut parent: Vec<usize> = (0..x.ncols() + y.ncols()).collect();
    link(&columns_of(x, y), z, &mut parent, false);
    components(&mut parent, x.ncols()).0
}

/// Blocks that are independent of each other in their first two moments, and the columns left
/// out of them (`x` and `y` with the same rows): as [`dependent_blocks`], but two columns `a`, `b` are also linked when one of
/// `corr(a², b²)`, `corr(a², b)`, `corr(a, b²)` (of the columns centred and scaled on each half)
/// is beyond `z` standard errors on both halves. Returns the components with columns of both
/// sides, and the columns of `x` and of `y` in components of one side only (dependent on no
/// column of the other side, in those moments).
///
/// Components are also joined when the product of two columns of one correlates with a column
/// of the other (an interaction; `link_products`).
///
/// Two such blocks can still depend on each other in ways no correlation of the columns, their
/// squares and products shows; their MI then need not add. The squares catch the usual ones: a
/// scale shared by all columns (Student-t), a column that is a function of another's magnitude.
pub fn independent_blocks(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, z: f64) -> Blocks {
    let d = x.ncols() + y.ncols();
    let columns = with_squares(columns_of(x, y));
    let mut parent: Vec<usize> = (0..d).collect();
    link(&columns, z, &mut parent, true);
    link_products(&columns[..d], z, &mut parent);
    let (blocks, left_out) = components(&mut parent, x.ncols());
    Blocks { blocks, left_out }
}

/// Components of at most this many columns have the products of their pairs of columns
/// checked against the other components' columns ([`link_products`]): 28 products each. Larger
/// components are not summed over by `auto` anyway (its blocks have at most 4 columns).
const MAX_PRODUCT_COMPONENT: usize = 8;

/// Joins two components of the union-find `parent` over `columns` when the product of two
/// columns of one (each standardised) correlates with a column of the other beyond `z`
/// standard errors on both halves of the rows, until no such pair is left. Columns and squares
/// miss an interaction: with `y₁ = x₁ + e₁` and `y₂ = sign(x₁)·x₂ + e₂`, every correlation of
/// `(x₁, y₁)` with `(x₂, y₂)`, and of their squares, is zero, yet `x₂·y₂` correlates with `x₁`
/// (it is `sign(x₁)·x₂²` and noise), and `I(X; Y)` is not `I(x₁; y₁) + I(x₂; y₂)`.
fn link_products(columns: &[Vec<f64>], z: f64, parent: &mut [usize]) {
    let d = columns.len();
    let mut standardised = columns.to_vec();
    standardised.iter_mut().for_each(|c| standardise(c));
    loop {
        // The pairs of columns of each small component.
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); d];
        for j in 0..d {
            members[root(parent, j)].push(j);
        }
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        for m in members.iter().filter(|m| (2..=MAX_PRODUCT_COMPONENT).contains(&m.len())) {
            for (i, &a) in m.iter().enumerate() {
                pairs.extend(m[i + 1..].iter().map(|&b| (a, b)));
            }
        }
        if pairs.is_empty() {
            return;
        }
        let product =
            |&(a, b): &(usize, usize)| standardised[a].iter().zip(&standardised[b]).map(|(u, v)| u * v).collect();
        let all: Vec<Vec<f64>> = standardised.iter().cloned().chain(pairs.iter().map(product)).collect();
        let (even, odd, limit) = half_correlations(&all, z);
        let mut joined = false;
        for (p, &(a, _)) in pairs.iter().enumerate() {
            for w in 0..d {
                let (ra, rw) = (root(parent, a), root(parent, w));
                if ra != rw && even[(d + p, w)].abs().min(odd[(d + p, w)].abs()) > limit {
                    parent[ra.max(rw)] = ra.min(rw);
                    joined = true;
                }
            }
        }
        if !joined {
            return;
        }
    }
}

/// The most rows [`blocks_interaction_p`] reads with two blocks: a seeded subsample of this
/// many; with `B` blocks, `400·√(2/B)` (at least 100), so that a permutation costs the same
/// `m²·B` products whatever the number of blocks.
pub const INTERACTION_ROWS: usize = 400;
/// The permutations of [`blocks_interaction_p`]: its p-value is a multiple of 1/100.
pub const INTERACTION_PERMUTATIONS: usize = 99;

/// A permutation test of the mutual independence of whole blocks (each block's columns of `x`
/// and `y` together), with power against dependence that no correlation shows: one block's
/// relation modulated by another's magnitude (a sign or a scale that changes with `|x₁|`, a
/// rotation by an angle that `x₁` sets), where every correlation of columns, squares and
/// products across blocks is 0 by symmetry. The statistic is the d-variable Hilbert–Schmidt
/// independence criterion (dHSIC; Pfister, Bühlmann, Schölkopf & Peters 2018, "Kernel-based
/// tests for joint independence", JRSS B 80(1)) with a Gaussian kernel per block, its width the
/// median distance within the block:
/// `dHSIC = mean_ij Π_b K_b[i,j] + Π_b mean(K_b) − 2 mean_i Π_b mean_j K_b[i,j]`,
/// on at most [`INTERACTION_ROWS`] rows drawn with a seed derived from the number of rows (the
/// same data give the same p-value), and its null by [`INTERACTION_PERMUTATIONS`] independent
/// permutations of every block but the first. Returns `(1 + #{permuted ≥ observed}) / (1 + P)`,
/// 1 with fewer than two blocks. Memory: one `m × m` kernel per block, `m²·B ≤ 320 000`.
pub fn blocks_interaction_p(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, blocks: &[Block]) -> f64 {
    use crate::rng::{derive_seed, rng, shuffle};
    use rayon::prelude::*;
    let n = x.nrows();
    if blocks.len() < 2 || n != y.nrows() || n < 8 {
        return 1.0;
    }
    let mut rows: Vec<usize> = (0..n).collect();
    let mut g = rng(derive_seed(n as u64, "blocks interaction rows"));
    shuffle(&mut rows, &mut g);
    let most = ((INTERACTION_ROWS as f64) * (2.0 / blocks.len() as f64).sqrt()).max(100.0) as usize;
    rows.truncate(most.min(n));
    let m = rows.len();
    let kernels: Vec<Vec<f64>> = blocks
        .iter()
        .map(|(bx, by)| {
            let cols: Vec<_> = bx.iter().map(|&c| x.column(c)).chain(by.iter().map(|&c| y.column(c))).collect();
            let d2 = |a: usize, b: usize| cols.iter().map(|c| (c[rows[a]] - c[rows[b]]).powi(2)).sum::<f64>();
            let mut all: Vec<f64> =
                (0..m).flat_map(|a| (a + 1..m).map(move |b| (a, b))).map(|(a, b)| d2(a, b)).collect();
            let mid = all.len() / 2;
            let median = *all.select_nth_unstable_by(mid, f64::total_cmp).1;
            let width = if median > 0.0 { median } else { 1.0 };
            let mut k = vec![0.0; m * m];
            for a in 0..m {
                for b in 0..m {
                    k[a * m + b] = (-d2(a, b) / width).exp();
                }
            }
            k
        })
        .collect();
    let row_means: Vec<Vec<f64>> = kernels
        .iter()
        .map(|k| (0..m).map(|a| k[a * m..(a + 1) * m].iter().sum::<f64>() / m as f64).collect())
        .collect();
    let constant: f64 = row_means.iter().map(|r| r.iter().sum::<f64>() / m as f64).product();
    let statistic = |perms: &[Vec<usize>]| -> f64 {
        // perms[b] maps row a of block b + 1 to its permuted row.
        let at = |b: usize, a: usize| if b == 0 { a } else { perms[b - 1][a] };
        let mut joint = 0.0;
        for a in 0..m {
            for c in 0..m {
                joint += (0..kernels.len()).map(|b| kernels[b][at(b, a) * m + at(b, c)]).product::<f64>();
            }
        }
        let cross: f64 = (0..m).map(|a| (0..kernels.len()).map(|b| row_means[b][at(b, a)]).product::<f64>()).sum();
        joint / (m * m) as f64 + constant - 2.0 * cross / m as f64
    };
    let identity: Vec<Vec<usize>> = (1..blocks.len()).map(|_| (0..m).collect()).collect();
    let observed = statistic(&identity);
    let seed = derive_seed(n as u64, "blocks interaction permutations");
    let above = (0..INTERACTION_PERMUTATIONS)
        .into_par_iter()
        .filter(|&p| {
            let mut g = rng(derive_seed(seed, &p.to_string()));
            let perms: Vec<Vec<usize>> = (1..blocks.len())
                .map(|_| {
                    let mut v: Vec<usize> = (0..m).collect();
                    shuffle(&mut v, &mut g);
                    v
                })
                .collect();
            statistic(&perms) >= observed
        })
        .count();
    (1 + above) as f64 / (1 + INTERACTION_PERMUTATIONS) as f64
}

/// Wilks' likelihood-ratio test that the blocks' sets of columns (each block's x and y columns
/// together) are independent of each other, as Gaussian variables: `V = |R| / Π_b |R_bb|` of
/// their correlation matrix `R` and its diagonal blocks, and Box's (1949) approximation
/// `−m ln V ~ χ²_f` with `f = (p² − Σ p_b²)/2` and `m = n − 3/2 − (p³ − Σ p_b³)/(3 (p² − Σ p_b²))`,
/// `p = Σ p_b` columns (Anderson, *An Introduction to Multivariate Statistical Analysis*, 3rd ed.
/// 2003, §9.2–9.5). Returns the p-value (1 with fewer than two blocks; 0 where a determinant is
/// not positive, a column constant or two collinear).
///
/// Where [`independent_blocks`] needs each link to show on its own, this pools every
/// correlation across blocks: many weak ones (a factor shared by all pairs, each correlation
/// below the link's threshold) add up here. On normal scores it sees the Gaussian-copula
/// dependence between blocks, which is exactly what a sum over Gaussian blocks overstates.
pub fn blocks_independence_p(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, blocks: &[Block]) -> f64 {
    use statrs::distribution::{ChiSquared, ContinuousCDF};
    if blocks.len() < 2 || x.nrows() != y.nrows() {
        return 1.0;
    }
    let n = x.nrows();
    // The blocks' columns, standardised, one block after the other; `R` their correlations.
    let picked: Vec<_> = blocks
        .iter()
        .flat_map(|(bx, by)| bx.iter().map(|&c| x.column(c)).chain(by.iter().map(|&c| y.column(c))))
        .collect();
    let mut all = DMatrix::<f64>::zeros(n, picked.len());
    for (j, c) in picked.iter().enumerate() {
        let mut column = all.column_mut(j);
        column.copy_from(c);
        standardise(column.as_mut_slice());
    }
    let r = gram(&all);
    let log_det = |at: usize, size: usize| -> Option<f64> {
        let sub = r.view((at, at), (size, size)).into_owned();
        sub.cholesky().map(|c| 2.0 * c.l().diagonal().iter().map(|v| v.ln()).sum::<f64>())
    };
    let Some(whole) = log_det(0, picked.len()) else { return 0.0 };
    let (mut parts, mut at) = (0.0, 0);
    for b in blocks {
        let size = b.0.len() + b.1.len();
        let Some(l) = log_det(at, size) else { return 0.0 };
        parts += l;
        at += size;
    }
    let sizes: Vec<f64> = blocks.iter().map(|b| (b.0.len() + b.1.len()) as f64).collect();
    let p = picked.len() as f64;
    let (s2, s3) = (sizes.iter().map(|v| v * v).sum::<f64>(), sizes.iter().map(|v| v * v * v).sum::<f64>());
    let f = (p * p - s2) / 2.0;
    let m = n as f64 - 1.5 - (p * p * p - s3) / (3.0 * (p * p - s2));
    let statistic = (-m * (whole - parts)).max(0.0);
    match ChiSquared::new(f) {
        Ok(chi) if m > 0.0 => chi.sf(statistic),
        _ => 0.0,
    }
}

/// `SᵀS / n` for the `n × d` matrix `S` (the correlations of standardised columns), through
/// [`crate::gemm`]: nalgebra's `tr_mul` is a loop of dot products, which made these products most
/// of a call's time at 200 columns and 10⁵ rows.
fn gram(s: &DMatrix<f64>) -> DMatrix<f64> {
    let mut c = DMatrix::zeros(s.ncols(), s.ncols());
    let scale = 1.0 / s.nrows().max(1) as f64;
    gemm(Backend::default(), scale, s.as_view(), Op::T, s.as_view(), Op::N, 0.0, c.as_view_mut());
    c
}

/// The columns of `x`, then those of `y`.
fn columns_of(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>) -> Vec<Vec<f64>> {
    x.column_iter().chain(y.column_iter()).map(|c| c.iter().copied().collect()).collect()
}

/// `columns`, then the square of each (centred and scaled first): column `d + j` is column
/// `j`'s square, as [`link`] reads them with `squares`.
fn with_squares(mut columns: Vec<Vec<f64>>) -> Vec<Vec<f64>> {
    for j in 0..columns.len() {
        let mut s = columns[j].clone();
        standardise(&mut s);
        columns.push(s.iter().map(|v| v * v).collect());
    }
    columns
}

/// Centres and scales `v` (`1/n` variance); a constant column becomes 0.
fn standardise(v: &mut [f64]) {
    let n = v.len().max(1) as f64;
    let mean = v.iter().sum::<f64>() / n;
    let sd = (v.iter().map(|a| (a - mean).powi(2)).sum::<f64>() / n).sqrt();
    v.iter_mut().for_each(|a| *a = if sd > 0.0 { (*a - mean) / sd } else { 0.0 });
}

/// Joins, in the union-find `parent` over the first `d = parent.len()` of `columns`, every pair
/// `a < b` of them whose correlation is beyond `z` standard errors on both the even and the odd
/// rows; with `squares` (then column `d + j` is column `j`'s square), also a pair for which
/// `(a², b²)`, `(a², b)` or `(a, b²)` is.
fn link(columns: &[Vec<f64>], z: f64, parent: &mut [usize], squares: bool) {
    let (even, odd, limit) = half_correlations(columns, z);
    let d = parent.len();
    let beyond = |i: usize, j: usize| even[(i, j)].abs().min(odd[(i, j)].abs()) > limit;
    for a in 0..d {
        for b in a + 1..d {
            let linked = beyond(a, b) || (squares && (beyond(a + d, b + d) || beyond(a + d, b) || beyond(a, b + d)));
            if linked {
                let (ra, rb) = (root(parent, a), root(parent, b));
                parent[ra.max(rb)] = ra.min(rb);
            }
        }
    }
}

/// The correlations of every pair of `columns` over the even rows and over the odd rows, and
/// the correlation `z` standard errors make on a half (`z / √m`, `m` the even rows).
fn half_correlations(columns: &[Vec<f64>], z: f64) -> (DMatrix<f64>, DMatrix<f64>, f64) {
    let n = columns.first().map_or(0, Vec::len);
    let correlations = |p: usize| {
        let rows: Vec<usize> = (p..n).step_by(2).collect();
        let mut s = DMatrix::<f64>::zeros(rows.len(), columns.len());
        for (j, c) in columns.iter().enumerate() {
            let mut column = s.column_mut(j);
            column.iter_mut().zip(&rows).for_each(|(v, &i)| *v = c[i]);
            standardise(column.as_mut_slice());
        }
        gram(&s)
    };
    let m = n.div_ceil(2).max(1) as f64;
    (correlations(0), correlations(1), z / m.sqrt())
}

fn root(parent: &mut [usize], mut a: usize) -> usize {
    while parent[a] != a {
        parent[a] = parent[parent[a]];
        a = parent[a];
    }
    a
}

/// The components of the union-find over `dx` columns of x then those of y: those with both
/// sides (ascending columns, in the order of their first x column), and the columns of x and
/// of y in the others.
fn components(parent: &mut [usize], dx: usize) -> (Vec<Block>, Block) {
    let mut found: Vec<(usize, Block)> = Vec::new();
    for j in 0..parent.len() {
        let top = root(parent, j);
        let at = match found.iter().position(|b| b.0 == top) {
            Some(at) => at,
            None => {
                found.push((top, (Vec::new(), Vec::new())));
                found.len() - 1
            }
        };
        if j < dx { found[at].1.0.push(j) } else { found[at].1.1.push(j - dx) }
    }
    let (mut blocks, mut left): (Vec<Block>, Block) = (Vec::new(), (Vec::new(), Vec::new()));
    for (_, b) in found {
        if !b.0.is_empty() && !b.1.is_empty() {
            blocks.push(b);
        } else {
            left.0.extend(b.0);
            left.1.extend(b.1);
        }
    }
    blocks.sort_by_key(|b| b.0[0]);
    left.0.sort_unstable();
    left.1.sort_unstable();
    (blocks, left)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_distr::{Distribution, StandardNormal};

    /// `m` rows of three columns of x and of y from `row`, which draws from `draw`.
    fn sample(m: usize, seed: u64, row: impl Fn(&mut dyn FnMut() -> f64) -> [f64; 6]) -> (DMatrix<f64>, DMatrix<f64>) {
        let mut r = crate::rng::rng(seed);
        let mut draw = || -> f64 { StandardNormal.sample(&mut r) };
        let rows: Vec<[f64; 6]> = (0..m).map(|_| row(&mut draw)).collect();
        (DMatrix::from_fn(m, 3, |i, j| rows[i][j]), DMatrix::from_fn(m, 3, |i, j| rows[i][3 + j]))
    }

    /// Three independent pairs `y_j = x_j + e_j`: three blocks, nothing left out, by either rule.
    #[test]
    fn independent_pairs_are_blocks_of_one_column_each() {
        let (x, y) = sample(2000, 1, |d| {
            let u = [d(), d(), d()];
            [u[0], u[1], u[2], u[0] + d(), u[1] + d(), u[2] + d()]
        });
        let pairs: Vec<Block> = (0..3).map(|j| (vec![j], vec![j])).collect();
        assert_eq!(dependent_blocks(x.as_view(), y.as_view(), BLOCK_LINK_Z), pairs);
        let found = independent_blocks(x.as_view(), y.as_view(), BLOCK_LINK_Z);
        assert_eq!(found, Blocks { blocks: pairs, left_out: (vec![], vec![]) });
    }

    /// Two pairs and a noise column that share one scale `s` (a Student-t with 3 degrees of
    /// freedom), on normal scores as `ksg-blocks` reads them: uncorrelated across the pairs, so
    /// correlation splits them, but their squares correlate, and the moments join everything
    /// into one block.
    #[test]
    fn a_shared_scale_joins_the_blocks() {
        let (mut x, mut y) = sample(4000, 2, |d| {
            let s = ((d().powi(2) + d().powi(2) + d().powi(2)) / 3.0).sqrt();
            let (u, v) = (d() / s, d() / s);
            [u, v, d() / s, (u + d()) / s, (v + d()) / s, d() / s]
        });
        for mut c in x.column_iter_mut().chain(y.column_iter_mut()) {
            let v: Vec<f64> = c.iter().copied().collect();
            c.copy_from_slice(&crate::ranks::normal_scores(&v, crate::ranks::PlottingPosition::Weibull));
        }
        let split = dependent_blocks(x.as_view(), y.as_view(), BLOCK_LINK_Z);
        assert_eq!(split, vec![(vec![0], vec![0]), (vec![1], vec![1])]);
        let joined = independent_blocks(x.as_view(), y.as_view(), BLOCK_LINK_Z);
        assert_eq!(joined.blocks, vec![(vec![0, 1, 2], vec![0, 1, 2])]);
        assert_eq!(joined.left_out, (vec![], vec![]));
    }

    /// `y_1 = sign(x_0)·x_1 + e`: no correlation of `(x_0, y_0)` with `(x_1, y_1)`, nor of their
    /// squares, shows the interaction (the squares link `x_1` and `y_1` to each other), but the
    /// product `x_1·y_1` correlates with `x_0`, so the two pairs are one block; the independent
    /// `x_2`, `y_2` stay out.
    #[test]
    fn an_interaction_joins_the_blocks() {
        let (x, y) = sample(2000, 4, |d| {
            let (u, v) = (d(), d());
            [u, v, d(), u + 0.5 * d(), u.signum() * v + 0.5 * d(), d()]
        });
        let found = independent_blocks(x.as_view(), y.as_view(), BLOCK_LINK_Z);
        assert_eq!(found.blocks, vec![(vec![0, 1], vec![0, 1])]);
        assert_eq!(found.left_out, (vec![2], vec![2]));
        // Without the products, the moments alone split the pairs.
        let mut parent: Vec<usize> = (0..6).collect();
        link(&with_squares(columns_of(x.as_view(), y.as_view())), BLOCK_LINK_Z, &mut parent, true);
        assert_eq!(components(&mut parent, 3).0, vec![(vec![0], vec![0]), (vec![1], vec![1])]);
    }

    /// `gram` is `SᵀS / n`, as nalgebra's `tr_mul` computes it (to rounding), and zeros without
    /// rows.
    #[test]
    fn gram_is_the_cross_product_over_the_rows() {
        for (n, d) in [(7, 5), (300, 9), (3, 1)] {
            let s = DMatrix::from_fn(n, d, |i, j| ((i * 7 + j * 3) % 11) as f64 - 5.0 + 0.1 * j as f64);
            let want = s.tr_mul(&s) / n as f64;
            assert!((gram(&s) - &want).abs().max() < 1e-12 * want.abs().max(), "{n} × {d}");
        }
        assert_eq!(gram(&DMatrix::zeros(0, 3)), DMatrix::zeros(3, 3));
    }

    /// `y_1 = x_0² + e` does not correlate with `x_0` but its moments link it to the block of
    /// `x_0` and `y_0`; `x_2` and `y_2` depend on nothing and are left out, `x_1` too.
    #[test]
    fn a_square_links_and_independent_columns_are_left_out() {
        let (x, y) = sample(2000, 3, |d| {
            let u = d();
            [u, d(), d(), u + d(), u * u + 0.5 * d(), d()]
        });
        assert_eq!(dependent_blocks(x.as_view(), y.as_view(), BLOCK_LINK_Z), vec![(vec![0], vec![0])]);
        let found = independent_blocks(x.as_view(), y.as_view(), BLOCK_LINK_Z);
        assert_eq!(found.blocks, vec![(vec![0], vec![0, 1])]);
        assert_eq!(found.left_out, (vec![1, 2], vec![2]));
    }
}

#[cfg(test)]
mod interaction_tests {
    use super::blocks_interaction_p;
    use crate::rng::rng;
    use nalgebra::DMatrix;
    use rand_distr::{Distribution, StandardNormal};

    /// Two 1 + 1 blocks; the second's sign flips with |x₁| when `flip` (every correlation of
    /// columns, squares and products across blocks is then 0).
    fn blocks(n: usize, flip: bool, seed: u64) -> (DMatrix<f64>, DMatrix<f64>) {
        let mut g = rng(seed);
        let mut normal = || -> f64 { StandardNormal.sample(&mut g) };
        let x = DMatrix::from_fn(n, 2, |_, _| normal());
        let y = DMatrix::from_fn(n, 2, |i, j| match j {
            0 => x[(i, 0)] + normal(),
            _ => (if flip && x[(i, 0)].abs() < 0.6745 { -1.0 } else { 1.0 }) * x[(i, 1)] + 0.3 * normal(),
        });
        (x, y)
    }

    /// The modulated blocks are told apart at every seed; independent blocks are rejected at
    /// the test's level (1 %, exact for a permutation test): at most 3 of 40 data sets, which
    /// a binomial(40, 0.01) exceeds with probability 0.0008.
    #[test]
    fn modulated_blocks_are_seen_and_independent_ones_pass() {
        let b = vec![(vec![0], vec![0]), (vec![1], vec![1])];
        for seed in 0..4 {
            let (x, y) = blocks(2000, true, seed);
            assert!(blocks_interaction_p(x.as_view(), y.as_view(), &b) <= 0.01, "seed {seed}");
        }
        let rejected = (0..40)
            .filter(|&s| {
                let (x, y) = blocks(2000, false, 100 + s);
                blocks_interaction_p(x.as_view(), y.as_view(), &b) <= 0.01
            })
            .count();
        assert!(rejected <= 3, "{rejected} of 40 independent data sets rejected");
        assert_eq!(
            blocks_interaction_p(
                DMatrix::<f64>::zeros(10, 1).as_view(),
                DMatrix::<f64>::zeros(10, 1).as_view(),
                &b[..1]
            ),
            1.0
        );
    }
}
