//! Is there any dependence at all? A permutation test of independence.
//!
//! Under independence the pairing of the rows carries no information: `(x, π(y))` has the same
//! distribution as `(x, y)` for every permutation `π`. With `B` random permutations and the
//! statistic `T` (any MI estimator), the p-value
//!
//! ```text
//! p = (1 + #{b : T(x, π_b(y)) ≥ T(x, y)}) / (1 + B)
//! ```
//!
//! is exact: under independence `P(p ≤ α) ≤ α` for every α, whatever `T` is and however biased
//! it is (Phipson & Smyth 2010, "Permutation p-values should never be zero"). That is why
//! "dependence detected" is decided here and not from a lower bound's interval: a held-out
//! estimate of exactly 0 with an interval `[0, 0]`, or a rounding error of 1e-14, is not
//! evidence. On more rows than `max_rows` the test runs on a random subset (still exact).

use crate::error::{Error, Result};
use crate::rng::{rng, shuffle};
use nalgebra::{DMatrix, DMatrixView};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// The result of [`permutation_test`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PermutationTest {
    /// The statistic, in words (`"ksg:k=5"`).
    pub statistic: String,
    /// The statistic on the data as paired.
    pub observed: f64,
    /// The exact permutation p-value.
    pub p_value: f64,
    /// Permutations `B`.
    pub permutations: usize,
    /// Rows the test used.
    pub rows: usize,
}

impl PermutationTest {
    /// Whether the p-value is at most `alpha`.
    pub fn significant(&self, alpha: f64) -> bool {
        self.p_value <= alpha
    }
}

/// A statistic of paired rows: larger means more dependence.
pub type Statistic<'a> = dyn Fn(DMatrixView<'_, f64>, DMatrixView<'_, f64>) -> Result<f64> + Sync + 'a;

/// Runs the test (see the module docs) with `permutations` permutations on at most `max_rows`
/// rows, seeded. `name` names the statistic in the result.
pub fn permutation_test(
    name: &str,
    statistic: &Statistic<'_>,
    x: DMatrixView<'_, f64>,
    y: DMatrixView<'_, f64>,
    permutations: usize,
    max_rows: usize,
    seed: u64,
) -> Result<PermutationTest> {
    if permutations == 0 {
        return Err(Error::param("permutations", 0, "must be at least 1"));
    }
    let mut g = rng(seed);
    let rows = subset_rows(x.nrows(), max_rows, &mut g);
    let xs: DMatrix<f64> = x.select_rows(&rows);
    let ys: DMatrix<f64> = y.select_rows(&rows);
    let observed = statistic(xs.as_view(), ys.as_view())?;
    let perms: Vec<Vec<usize>> = (0..permutations)
        .map(|_| {
            let mut p: Vec<usize> = (0..rows.len()).collect();
            shuffle(&mut p, &mut g);
            p
        })
        .collect();
    let null: Vec<f64> =
        perms.par_iter().map(|p| statistic(xs.as_view(), ys.select_rows(p).as_view())).collect::<Result<_>>()?;
    let at_least = null.iter().filter(|&&t| t >= observed).count();
    Ok(PermutationTest {
        statistic: name.into(),
        observed,
        p_value: (1 + at_least) as f64 / (1 + permutations) as f64,
        permutations,
        rows: rows.len(),
    })
}

/// All of `0..n` when `n ≤ max_rows`, else `max_rows` of them drawn at random, in order.
fn subset_rows(n: usize, max_rows: usize, g: &mut dyn crate::rng::Rng) -> Vec<usize> {
    let mut rows: Vec<usize> = (0..n).collect();
    if n > max_rows {
        shuffle(&mut rows, g);
        rows.truncate(max_rows);
        rows.sort_unstable();
    }
    rows
}

/// Permutations of [`dependence_test`]: p-values in steps of 0.01.
pub const PERMUTATIONS: usize = 99;
/// Rows [`dependence_test`] uses at most (a random subset of larger data sets).
pub const MAX_ROWS: usize = 2000;

/// The test behind "dependence detected": KSG-1 (k = 5) on normal scores of each coordinate
/// (with seeded 1e-10 noise to break ties of discrete data) as the statistic,
/// [`PERMUTATIONS`] permutations on at most [`MAX_ROWS`] rows (a random subset of larger data
/// sets, drawn first). The normal scores of the subset and the noise are fixed before the
/// permutations, so the test stays exact; KSG on normal scores sees any kind of dependence, not
/// only the monotone one a copula or Gaussian statistic sees.
pub fn dependence_test(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, seed: u64) -> Result<PermutationTest> {
    use super::classical::gaussian::copula_transform;
    use super::classical::ksg::add_tie_noise;
    use super::classical::{KsgVariant, ksg_mi};
    use crate::rng::derive_seed;
    // Ranks of the subset only: ranking all of 10^5 rows took about a tenth of the whole test.
    let rows = subset_rows(x.nrows(), MAX_ROWS, &mut rng(derive_seed(seed, "dependence test rows")));
    let (mut xs, mut ys) =
        (copula_transform(x.select_rows(&rows).as_view()), copula_transform(y.select_rows(&rows).as_view()));
    let mut g = rng(derive_seed(seed, "dependence test tie noise"));
    add_tie_noise(&mut xs, 1e-10, &mut g);
    add_tie_noise(&mut ys, 1e-10, &mut g);
    let k = 5.min(rows.len().saturating_sub(1)).max(1);
    let stat = move |a: DMatrixView<'_, f64>, b: DMatrixView<'_, f64>| ksg_mi(a, b, k, KsgVariant::Ksg1);
    permutation_test(
        &format!("ksg:k={k} on normal scores"),
        &stat,
        xs.as_view(),
        ys.as_view(),
        PERMUTATIONS,
        usize::MAX,
        derive_seed(seed, "dependence test permutations"),
    )
}
