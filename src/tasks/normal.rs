//! bmi's multivariate normal parametrisations (`bmi.benchmark.tasks.multinormal`,
//! `bmi.benchmark.tasks.bivariate_normal`, `bmi.samplers._matrix_utils`), built as
//! [`SplitGaussian`]s: `I(X; Y) = ½ log(|Σ_xx|·|Σ_yy| / |Σ|)`.

use crate::data::SplitGaussian;
use crate::error::{Error, Result};
use nalgebra::DMatrix;

/// The bivariate normal with unit variances and correlation `ρ` (bmi `1v1-normal-ρ`):
/// `I = −½ log(1 − ρ²)`.
pub fn bivariate(rho: f64) -> Result<SplitGaussian> {
    if rho.is_nan() || rho.abs() >= 1.0 {
        return Err(Error::param("correlation", rho, "must lie in (−1, 1)"));
    }
    SplitGaussian::new(DMatrix::from_row_slice(2, 2, &[1.0, rho, rho, 1.0]), 1)
}

/// bmi's dense covariance (`task_multinormal_dense`): `Σ = (1 − c) I + c 𝟙𝟙ᵀ` on all
/// `dim_x + dim_y` coordinates, every pair correlated by `c` (`off_diag`).
pub fn dense_covariance(dim_x: usize, dim_y: usize, off_diag: f64) -> DMatrix<f64> {
    let d = dim_x + dim_y;
    DMatrix::from_fn(d, d, |i, j| if i == j { 1.0 } else { off_diag })
}

/// bmi's `multinormal-dense-{dim_x}-{dim_y}-{off_diag}`: positive definite for
/// `−1/(d − 1) < c < 1`, `d = dim_x + dim_y`.
pub fn dense(dim_x: usize, dim_y: usize, off_diag: f64) -> Result<SplitGaussian> {
    check_dims(dim_x, dim_y)?;
    if !off_diag.is_finite() {
        return Err(Error::param("off_diag", off_diag, "must be finite"));
    }
    SplitGaussian::new(dense_covariance(dim_x, dim_y, off_diag), dim_x)
}

/// bmi's sparse ("k-pair") matrix: the correlation matrix of `GaussianLVMParametrization` with
/// `α = 0`, `β = 0`, `ε = 1`, `λ = η = strength` (`task_multinormal_sparse`). The latent model
/// gives `X_i = Z_i λ + E_i` and `Y_i = Z_i λ + F_i` for the first `k` coordinates (one shared
/// latent per pair) and `X_i = E_i + η V_i` (resp. `Y_i`) for the others, so every variance is
/// `1 + λ²`, `Cov(X_i, Y_i) = λ²` for `i < k`, and all other covariances are zero. Normalised:
/// `corr(X_i, Y_i) = λ²/(1 + λ²)` for `i < k` (0.8 for bmi's strength 2), and
/// `I = −k/2 · log(1 − (λ²/(1 + λ²))²)`.
pub fn sparse_correlation(dim_x: usize, dim_y: usize, k: usize, strength: f64) -> DMatrix<f64> {
    let d = dim_x + dim_y;
    let l2 = strength * strength;
    let r = l2 / (1.0 + l2);
    DMatrix::from_fn(d, d, |i, j| {
        if i == j {
            1.0
        } else if (i < k && j == dim_x + i) || (j < k && i == dim_x + j) {
            r
        } else {
            0.0
        }
    })
}

/// bmi's `multinormal-sparse-{dim_x}-{dim_y}-{k}-{strength}` (`2-pair` for `k = 2`).
pub fn sparse(dim_x: usize, dim_y: usize, k: usize, strength: f64) -> Result<SplitGaussian> {
    check_dims(dim_x, dim_y)?;
    check_pairs(dim_x, dim_y, k, strength)?;
    SplitGaussian::new(sparse_correlation(dim_x, dim_y, k, strength), dim_x)
}

pub(super) fn check_dims(dim_x: usize, dim_y: usize) -> Result<()> {
    if dim_x == 0 || dim_y == 0 {
        return Err(Error::param("dimension", format!("{dim_x} × {dim_y}"), "both must be at least 1"));
    }
    Ok(())
}

pub(super) fn check_pairs(dim_x: usize, dim_y: usize, k: usize, strength: f64) -> Result<()> {
    if k > dim_x.min(dim_y) {
        return Err(Error::param("n_interacting", k, "must be at most min(dim_x, dim_y)"));
    }
    if !strength.is_finite() {
        return Err(Error::param("strength", strength, "must be finite"));
    }
    Ok(())
}
