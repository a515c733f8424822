//! Canonical correlations and the MI of the Gaussian fitted to a sample: the one implementation
//! of the Gaussian (CCA) read-off, used by the classical `gaussian` and `copula` estimators
//! ([`crate::estimators::classical::gaussian`], which check the input first) and by the flows'
//! read-off of their latents ([`crate::flows::gaussianise`]).
//!
//! For jointly normal `(X, Y)`, `I(X; Y) = ½ ln(|Σ_x| |Σ_y| / |Σ|) = −½ Σᵢ ln(1 − ρᵢ²)` with `ρᵢ`
//! the canonical correlations. [`GaussianFit::plugin`] puts the sample covariance `S` (centred
//! with the sample mean) in place of `Σ`; it is biased upwards (by about `d_x d_y / (2N)` at
//! `I = 0`). [`GaussianFit::corrected`] removes that bias exactly for normal data, as Ince et
//! al.'s gcmi (`mi_gg`, `biascorrect=True`): `(N − 1) S` is Wishart with `N − 1` degrees of
//! freedom, so `E ln|S| = ln|Σ| + d ln(2/(N − 1)) + Σ_{i=1}^{d} ψ((N − i)/2)`, and
//!
//! `Î = Î_plug-in − ½ [Σ_{i≤d_x} ψ((N−i)/2) + Σ_{i≤d_y} ψ((N−i)/2) − Σ_{i≤d_x+d_y} ψ((N−i)/2)]`
//!
//! (the `ln(2/(N − 1))` terms cancel) has expectation exactly `I` under normality. Determinants
//! are taken of the correlation matrix (the scales cancel) by Cholesky factorisation; the
//! canonical correlations are the singular values of `L_x⁻¹ R_xy L_y⁻ᵀ`. A constant column or
//! linearly dependent columns (a Cholesky pivot `< 1e-12` of the correlation matrix, i.e. a
//! canonical correlation within about `1e-12` of 1) are an error naming the side.
//!
//! The same determinants give the true MI of a Gaussian from its covariance (the samplers of
//! [`crate::data`] and [`crate::tasks`]): [`cholesky`] and [`ln_det`] are shared with them.

use crate::error::{Error, Result};
use crate::numerics::digamma;
use nalgebra::{Cholesky, DMatrix, DMatrixView, Dyn};

/// The Cholesky factorisation of a symmetric positive-definite matrix; an error naming `what`
/// otherwise.
pub fn cholesky(m: DMatrix<f64>, what: &str) -> Result<Cholesky<f64, Dyn>> {
    Cholesky::new(m).ok_or_else(|| Error::param(what, "(matrix)", "must be symmetric positive definite"))
}

/// Checks a joint covariance (or dispersion, named by `what`) of `(x, y)` with x its first
/// `dim_x` coordinates: square, `0 < dim_x < size`, symmetric (to `1e-9` of its largest entry).
pub fn check_split(m: &DMatrix<f64>, dim_x: usize, what: &str) -> Result<()> {
    let d = m.nrows();
    if m.ncols() != d || dim_x == 0 || dim_x >= d {
        return Err(Error::Shape {
            what: what.into(),
            expected: format!("square, with 0 < dim_x = {dim_x} < size"),
            got: format!("{} × {}", m.nrows(), m.ncols()),
        });
    }
    if (m - m.transpose()).amax() > 1e-9 * m.amax().max(1.0) {
        return Err(Error::param(what, "(matrix)", "must be symmetric"));
    }
    Ok(())
}

/// `ln |Σ| = 2 Σᵢ ln Lᵢᵢ` from the lower Cholesky factor `L` of `Σ` (`Cholesky::l_dirty` will
/// do: only the diagonal is read).
pub fn ln_det(l: &DMatrix<f64>) -> f64 {
    2.0 * l.diagonal().iter().map(|v| v.ln()).sum::<f64>()
}

/// The smallest squared Cholesky pivot of the correlation matrix accepted as non-singular.
const MIN_PIVOT: f64 = 1e-12;

/// Everything the Gaussian formula gives (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct GaussianFit {
    /// Plug-in `½ ln(|S_x| |S_y| / |S|)`.
    pub plugin: f64,
    /// The bias-corrected estimate (module docs).
    pub corrected: f64,
    /// Canonical correlations, largest first (`min(d_x, d_y)` of them).
    pub canonical: Vec<f64>,
}

/// The Gaussian fit of the module docs, rows of `x` and `y` paired. Errors when the row counts
/// differ, there are fewer than 2 rows, a column is constant, or the columns of `x`, of `y` or of
/// both are linearly dependent (which they are with `N ≤ d_x + d_y` rows). The values are not
/// checked for finiteness: callers that take user input check it first.
pub fn gaussian_fit(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>) -> Result<GaussianFit> {
    let (dx, dy) = (x.ncols(), y.ncols());
    let d = dx + dy;
    let n = x.nrows();
    if n < 2 || y.nrows() != n {
        return Err(Error::Shape {
            what: "x and y".into(),
            expected: "the same number (≥ 2) of rows".into(),
            got: format!("{} and {}", n, y.nrows()),
        });
    }
    let r = correlation_matrix(x, y)?;
    let chol = |m: DMatrix<f64>, what: &str| -> Result<DMatrix<f64>> {
        let l = nalgebra::Cholesky::new(m).map(|c| c.unpack());
        match l {
            Some(l) if l.diagonal().iter().all(|p| p * p >= MIN_PIVOT) => Ok(l),
            _ => Err(Error::Singular {
                what: format!("correlation matrix {what}"),
                why: "its columns are linearly dependent (or nearly: a canonical correlation of 1)".into(),
            }),
        }
    };
    let lx = chol(r.view((0, 0), (dx, dx)).into_owned(), "of x")?;
    let ly = chol(r.view((dx, dx), (dy, dy)).into_owned(), "of y")?;
    let lxy = chol(r.clone(), "of (x, y)")?;
    let plugin = 0.5 * (ln_det(&lx) + ln_det(&ly) - ln_det(&lxy));
    let psi_sum = |m: usize| (1..=m).map(|i| digamma((n - i) as f64 / 2.0)).sum::<f64>();
    let corrected = plugin - 0.5 * (psi_sum(dx) + psi_sum(dy) - psi_sum(d));
    // Canonical correlations: singular values of Lx⁻¹ R_xy Ly⁻ᵀ.
    let rxy = r.view((0, dx), (dx, dy)).into_owned();
    let a = lx.solve_lower_triangular(&rxy).unwrap_or(rxy);
    let at = a.transpose();
    let m = ly.solve_lower_triangular(&at).unwrap_or(at);
    let mut canonical: Vec<f64> = m.singular_values().iter().map(|s| s.min(1.0)).collect();
    canonical.sort_by(|p, q| q.total_cmp(p));
    Ok(GaussianFit { plugin, corrected, canonical })
}

/// An error naming the first column of `x` then `y` that is constant (the covariance is then
/// singular).
pub(crate) fn refuse_constant(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>) -> Result<()> {
    use crate::numerics::constant_columns;
    let first =
        |side: &'static str, m: DMatrixView<'_, f64>| constant_columns(m).first().map(|&j| (side, j, m[(0, j)]));
    match first("x", x).or_else(|| first("y", y)) {
        Some((side, col, value)) => Err(Error::Singular {
            what: format!("correlation matrix of {side}"),
            why: format!(
                "its column {col} is constant ({value}), and a constant column carries no information; drop it"
            ),
        }),
        None => Ok(()),
    }
}

/// The joint correlation matrix of the columns of `x` then `y`, from the centred columns
/// scaled to unit norm; an error naming the first constant column.
fn correlation_matrix(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>) -> Result<DMatrix<f64>> {
    refuse_constant(x, y)?;
    let (n, dx) = (x.nrows(), x.ncols());
    let mut z = DMatrix::zeros(n, dx + y.ncols());
    for (j, src) in x.column_iter().chain(y.column_iter()).enumerate() {
        // Divided by its largest magnitude first (a correlation does not see the scale): sums and
        // squares of values near 1e300 would overflow, and of values near 1e-300 underflow.
        let scale = src.amax();
        let mean = src.iter().map(|&v| v / scale).sum::<f64>() / n as f64;
        let mut col = z.column_mut(j);
        for (t, &v) in col.iter_mut().zip(src.iter()) {
            *t = v / scale - mean;
        }
        let norm = col.norm();
        col /= norm;
    }
    Ok(z.transpose() * &z)
}
