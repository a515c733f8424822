//! Whether one side's normal scores are jointly normal: Mardia's tests of multivariate skewness
//! and kurtosis, which make the Gaussian-copula estimate a lower bound on `I(X; Y)` where both
//! sides pass ([`super::gaussian::Copula`]).
//!
//! **Why it matters.** Let `Z_x`, `Z_y` be the normal scores of each coordinate (a strictly
//! increasing map per coordinate, so `I(Z_x; Z_y) = I(X; Y)`), `Σ` their joint covariance and
//! `I_G(Σ) = ½ ln(|Σ_x| |Σ_y| / |Σ|)` the Gaussian-copula MI. Then
//! `I − I_G = J(Z) − J(Z_x) − J(Z_y)` with `J` the negentropy (the KL divergence from the normal
//! of the same covariance, `J ≥ 0`). Where each side is jointly normal, `J(Z_x) = J(Z_y) = 0` and
//! `I ≥ I_G`: the copula estimate is a lower bound, however non-Gaussian the dependence between
//! the sides. A one-dimensional side is normal by construction. Where a side departs from
//! normality too little for the tests to see, the most `I_G` can exceed `I` by is that side's
//! negentropy, which is small for the same reason.
//!
//! **The tests** (K. V. Mardia, *Measures of multivariate skewness and kurtosis with
//! applications*, Biometrika 57, 519–530 (1970); the finite-sample moments of `b₂` from Mardia,
//! Sankhyā B 36, 115–128 (1974)), on the normal scores of at most [`NORMALITY_ROWS`] evenly spaced
//! rows, whitened by their sample covariance (`w_i = S^{-1/2}(z_i − z̄)`, `S` with divisor `m`):
//!
//! - kurtosis `b₂ = (1/m) Σ_i |w_i|⁴`, under normality of mean `p(p+2)(m−1)/(m+1)` and variance
//!   `8p(p+2)(m−3)(m−p−1)(m−p+1) / ((m+1)²(m+3)(m+5))`; two-sided (heavy tails raise it, a
//!   side on a curved surface or with bounded coordinates lowers it);
//! - skewness: `b₁ = (1/m_s²) Σ_{i,j} (w_iᵀ w_j)³` without its diagonal terms, on at most
//!   [`SKEWNESS_ROWS`] of those rows (whitened by their own covariance), standardised by its
//!   exact null variance (`skewness_z`); one-sided (any third moment raises it).
//!
//! A side fails where either test rejects at [`NORMALITY_LEVEL`], where a column holds tied
//! values (normal scores of ties are not normal: a label, a count, a censored value), or where
//! its covariance is singular. Normal scores (`Φ⁻¹(r/(m+1))`) are lighter-tailed than a normal
//! sample: their kurtosis `κ_s` is below 3 (2.967 at m = 5000, 2.980 at 10⁴), which lowers
//! `b₂`'s mean by `p(3 − κ_s)` for independent coordinates, about 0.7 of its standard deviation
//! at every size tried. The null mean is corrected by that amount; without it the statistic
//! centred at −0.4 to −0.8 on normal sides (`normality_tests -- null 20`), and the two-sided test
//! rejected normal sides more often than its level.

use crate::ranks::copula_transform;
use nalgebra::{DMatrix, DMatrixView};
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Normal};

/// Rows the kurtosis test reads at most: evenly spaced rows of larger data.
pub const NORMALITY_ROWS: usize = 10_000;
/// Rows the skewness test reads at most (its statistic sums over pairs of rows).
pub const SKEWNESS_ROWS: usize = 2_000;
/// The level of each of the two tests on each side: 1 %. A normal side fails one of its two
/// tests about 2 % of the time; where it does, the copula estimate is still reported, as an
/// estimate rather than a bound.
pub const NORMALITY_LEVEL: f64 = 0.01;
/// A column whose normal scores have fewer distinct values than this share of the rows holds
/// ties, and its side is not normal.
const DISTINCT_SHARE: f64 = 0.99;

/// What the tests say of one side.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "verdict")]
pub enum SideNormality {
    /// One column: normal scores are normal.
    OneColumn,
    /// Both tests pass.
    Normal {
        /// Kurtosis, standardised (`(b₂ − E)/SD`).
        kurtosis_z: f64,
        /// Skewness, standardised.
        skewness_z: f64,
    },
    /// A test rejects.
    NotNormal {
        /// Kurtosis, standardised.
        kurtosis_z: f64,
        /// Skewness, standardised.
        skewness_z: f64,
    },
    /// A column holds tied values.
    Ties,
    /// The covariance of the normal scores is singular, or too few rows (`m ≤ p + 5`).
    Degenerate,
}

impl SideNormality {
    /// Whether the side may be taken as jointly normal.
    pub fn passes(self) -> bool {
        matches!(self, SideNormality::OneColumn | SideNormality::Normal { .. })
    }

    /// A short reason for a failing side, for a note.
    pub fn reason(self) -> String {
        match self {
            SideNormality::NotNormal { kurtosis_z, skewness_z } => {
                format!("Mardia's tests reject (kurtosis z = {kurtosis_z:.1}, skewness z = {skewness_z:.1})")
            }
            SideNormality::Ties => "a column holds tied values".into(),
            SideNormality::Degenerate => "its normal scores' covariance is singular".into(),
            _ => "jointly normal".into(),
        }
    }
}

/// Mardia's tests of the joint normality of `m`'s normal scores (module docs).
pub fn side_normality(m: DMatrixView<'_, f64>) -> SideNormality {
    let (n, p) = m.shape();
    if p == 1 {
        return SideNormality::OneColumn;
    }
    let rows = n.min(NORMALITY_ROWS);
    if rows <= p + 5 {
        return SideNormality::Degenerate;
    }
    let z = copula_transform(m.select_rows(&tested_rows(n)).as_view());
    if has_ties(z.as_view()) {
        return SideNormality::Ties;
    }
    let Some(w) = whitened(z) else { return SideNormality::Degenerate };
    let kurtosis_z = kurtosis_z(&w, scores_kurtosis(rows));
    let skewness_z = skewness_z(&w);
    let q = |p: f64| Normal::standard().inverse_cdf(p);
    let (zk, zs) = (q(1.0 - NORMALITY_LEVEL / 2.0), q(1.0 - NORMALITY_LEVEL));
    if kurtosis_z.abs() <= zk && skewness_z <= zs {
        SideNormality::Normal { kurtosis_z, skewness_z }
    } else {
        SideNormality::NotNormal { kurtosis_z, skewness_z }
    }
}

/// The rows the tests read: at most [`NORMALITY_ROWS`] evenly spaced rows of `n`.
fn tested_rows(n: usize) -> Vec<usize> {
    let rows = n.min(NORMALITY_ROWS);
    (0..rows).map(|k| k * n / rows).collect()
}

/// Whether a column of `m` has fewer distinct values than [`DISTINCT_SHARE`] of its rows.
fn has_ties(m: DMatrixView<'_, f64>) -> bool {
    m.column_iter().any(|c| distinct(c.iter().copied()) < (DISTINCT_SHARE * m.nrows() as f64) as usize)
}

/// Whether a column of `m` holds tied values among the rows the tests read, so that its side
/// cannot pass them ([`SideNormality::Ties`]): a label, a count, a pixel, a censored value.
/// Ranks keep ties, so the values as given tell.
pub fn holds_ties(m: DMatrixView<'_, f64>) -> bool {
    has_ties(m.select_rows(&tested_rows(m.nrows())).as_view())
}

/// Distinct values of a column.
fn distinct(values: impl Iterator<Item = f64>) -> usize {
    let mut v: Vec<f64> = values.collect();
    v.sort_by(f64::total_cmp);
    v.dedup();
    v.len()
}

/// `(z − z̄) S^{-1/2}` row by row (through the Cholesky factor of `S`, divisor `m`); `None` where
/// `S` is singular.
fn whitened(mut z: DMatrix<f64>) -> Option<DMatrix<f64>> {
    let m = z.nrows() as f64;
    for mut c in z.column_iter_mut() {
        let mean = c.mean();
        c.add_scalar_mut(-mean);
    }
    let s = z.tr_mul(&z) / m;
    let l = s.cholesky()?.l();
    // w_iᵀ = L⁻¹ z_iᵀ for every row: Wᵀ = L⁻¹ Zᵀ.
    let wt = l.solve_lower_triangular(&z.transpose())?;
    wt.iter().all(|v| v.is_finite()).then(|| wt.transpose())
}

/// The kurtosis `m₄ / m₂²` of the normal scores of `m` distinct values.
fn scores_kurtosis(m: usize) -> f64 {
    let ranks: Vec<f64> = (0..m).map(|i| i as f64).collect();
    let s = crate::ranks::normal_scores(&ranks, crate::ranks::PlottingPosition::Weibull);
    let (_, [m2, _, m4]) = crate::numerics::central_moments(s.iter().copied());
    m4 / (m2 * m2)
}

/// Mardia's kurtosis, standardised by its finite-sample null moments, its mean lowered by
/// `p(3 − κ_s)` for normal scores of kurtosis `κ_s` (module docs).
fn kurtosis_z(w: &DMatrix<f64>, kappa_s: f64) -> f64 {
    let (m, p) = (w.nrows() as f64, w.ncols() as f64);
    let b2 = w.row_iter().map(|r| r.norm_squared().powi(2)).sum::<f64>() / m;
    let mean = p * (p + 2.0) * (m - 1.0) / (m + 1.0) - p * (3.0 - kappa_s);
    let var =
        8.0 * p * (p + 2.0) * (m - 3.0) * (m - p - 1.0) * (m - p + 1.0) / ((m + 1.0).powi(2) * (m + 3.0) * (m + 5.0));
    (b2 - mean) / var.sqrt()
}

/// Mardia's skewness without its diagonal, on at most [`SKEWNESS_ROWS`] evenly spaced rows
/// whitened by their own covariance: `T = Σ_{i<j} (w_iᵀ w_j)³`. Under normality each term has
/// mean 0 and two terms are uncorrelated (given `w_i`, `w_iᵀ w_j` is symmetric), so
/// `Var T = C(m, 2) · E[(uᵀv)⁶] = C(m, 2) · 15 p(p+2)(p+4)` for independent standard normal `u`,
/// `v` (given `v`, `uᵀv ~ N(0, |v|²)`, and `E|v|⁶ = p(p+2)(p+4)`); `T / √Var T` is the
/// standardised statistic. (Mardia's `b₁` with its diagonal, read through its χ² limit, reads
/// far too high at these dimensions: `z` 4–21 on normal data at 64 and 256 columns.)
fn skewness_z(w: &DMatrix<f64>) -> f64 {
    let (n, p) = (w.nrows(), w.ncols());
    let ms = n.min(SKEWNESS_ROWS);
    let idx: Vec<usize> = (0..ms).map(|k| k * n / ms).collect();
    let Some(ws) = whitened(w.select_rows(&idx)) else { return f64::INFINITY };
    let g = &ws * ws.transpose();
    let mut t = 0.0;
    for j in 0..ms {
        for i in 0..j {
            t += g[(i, j)].powi(3);
        }
    }
    let (m, p) = (ms as f64, p as f64);
    let var = m * (m - 1.0) / 2.0 * 15.0 * p * (p + 2.0) * (p + 4.0);
    t / var.sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_column_passes_and_ties_fail() {
        let x = DMatrix::from_fn(500, 1, |i, _| i as f64);
        assert_eq!(side_normality(x.as_view()), SideNormality::OneColumn);
        let t = DMatrix::from_fn(500, 2, |i, j| ((i * (j + 3)) % 7) as f64);
        assert_eq!(side_normality(t.as_view()), SideNormality::Ties);
    }
}
