//! Gaussian tasks: componentwise-correlated Gaussians and a general split multivariate normal.

use super::Sampler;
use crate::cca::{check_split, cholesky, ln_det};
use crate::error::{Error, Result};
use crate::rng::Rng;
use nalgebra::DMatrix;
use rand::RngExt;
use rand_distr::StandardNormal;

const LN_2PI: f64 = 1.837_877_066_409_345_5;

/// The componentwise correlation that gives `mi` nats over `d` independent pairs:
/// `ρ = sqrt(1 − e^{−2I/d})`.
pub fn mi_to_rho(mi: f64, d: usize) -> f64 {
    (-(-2.0 * mi / d as f64).exp_m1()).sqrt()
}

/// The MI of `d` independent pairs with correlation `ρ`: `I = −d/2 · log(1 − ρ²)`.
pub fn rho_to_mi(rho: f64, d: usize) -> f64 {
    // (1 − ρ)(1 + ρ) keeps full precision near |ρ| = 1, where 1 − ρ² cancels.
    -0.5 * d as f64 * ((1.0 - rho) * (1.0 + rho)).ln()
}

/// `x ~ N(0, I_d)`, `y = ρ·x + sqrt(1 − ρ²)·ε`, `ε ~ N(0, I_d)`: the benchmark of Poole et al.
/// 2019 (d = 20). `I(X; Y) = −d/2 · log(1 − ρ²)`.
#[derive(Clone, Debug, PartialEq)]
pub struct CorrelatedGaussian {
    dim: usize,
    rho: f64,
}

impl CorrelatedGaussian {
    /// `d` pairs with correlation `ρ ∈ (−1, 1)`.
    pub fn new(dim: usize, rho: f64) -> Result<Self> {
        if dim == 0 {
            return Err(Error::param("dimension", dim, "must be at least 1"));
        }
        if rho.is_nan() || rho.abs() >= 1.0 {
            return Err(Error::param("rho", rho, "must lie in (−1, 1)"));
        }
        Ok(CorrelatedGaussian { dim, rho })
    }

    /// The task with `d` pairs and total MI `mi ≥ 0` nats.
    pub fn with_mi(dim: usize, mi: f64) -> Result<Self> {
        if !(mi >= 0.0 && mi.is_finite()) {
            return Err(Error::param("mi", mi, "must be finite and non-negative"));
        }
        Self::new(dim, mi_to_rho(mi, dim.max(1)))
    }

    /// The correlation ρ.
    pub fn rho(&self) -> f64 {
        self.rho
    }
}

impl Sampler for CorrelatedGaussian {
    fn name(&self) -> String {
        format!("gaussian(d={}, rho={:.4})", self.dim, self.rho)
    }
    fn dim_x(&self) -> usize {
        self.dim
    }
    fn dim_y(&self) -> usize {
        self.dim
    }
    fn true_mi(&self) -> f64 {
        rho_to_mi(self.rho, self.dim)
    }

    fn sample_into(&self, rng: &mut dyn Rng, x: &mut DMatrix<f64>, y: &mut DMatrix<f64>) {
        let n = x.nrows();
        assert_eq!((x.ncols(), y.nrows(), y.ncols()), (self.dim, n, self.dim), "sample buffers");
        let s = ((1.0 - self.rho) * (1.0 + self.rho)).sqrt();
        for i in 0..n {
            for k in 0..self.dim {
                let xv: f64 = rng.sample(StandardNormal);
                let e: f64 = rng.sample(StandardNormal);
                x[(i, k)] = xv;
                y[(i, k)] = self.rho * xv + s * e;
            }
        }
    }

    fn optimal_critic(&self, x: &DMatrix<f64>, y: &DMatrix<f64>) -> Option<DMatrix<f64>> {
        // log p(y|x) − log p(y) = Σ_k −½ln(1−ρ²) − (y_k − ρx_k)²/(2(1−ρ²)) + y_k²/2
        let (r, v) = (self.rho, (1.0 - self.rho) * (1.0 + self.rho));
        let xy = x * y.transpose();
        let xx: Vec<f64> = x.row_iter().map(|row| row.norm_squared()).collect();
        let yy: Vec<f64> = y.row_iter().map(|row| row.norm_squared()).collect();
        let c = -0.5 * self.dim as f64 * v.ln();
        Some(DMatrix::from_fn(x.nrows(), y.nrows(), |i, j| {
            c - (yy[j] - 2.0 * r * xy[(i, j)] + r * r * xx[i]) / (2.0 * v) + 0.5 * yy[j]
        }))
    }

    fn entropy_y(&self) -> Option<f64> {
        // y ~ N(0, I_d): H = d/2 · log(2πe).
        Some(0.5 * self.dim as f64 * (LN_2PI + 1.0))
    }

    fn log_marginal_y(&self, y: &DMatrix<f64>) -> Option<Vec<f64>> {
        let d = self.dim as f64;
        Some(y.row_iter().map(|row| -0.5 * (row.norm_squared() + d * LN_2PI)).collect())
    }
}

/// A zero-mean multivariate normal on `(x, y)` with a given joint covariance, split into the
/// first `dim_x` and the remaining coordinates:
///
/// `I(X; Y) = ½ log(|Σ_xx|·|Σ_yy| / |Σ|)`.
#[derive(Clone, Debug)]
pub struct SplitGaussian {
    dim_x: usize,
    chol: DMatrix<f64>,
    mi: f64,
    /// `A = Σ_yx Σ_xx⁻¹` (conditional mean `A x`).
    a: DMatrix<f64>,
    /// Inverse conditional covariance `C⁻¹`, `C = Σ_yy − Σ_yx Σ_xx⁻¹ Σ_xy`.
    c_inv: DMatrix<f64>,
    /// `Σ_yy⁻¹`.
    syy_inv: DMatrix<f64>,
    /// `½ ln|Σ_yy| − ½ ln|C|`.
    log_norm: f64,
    ln_det_syy: f64,
}

impl SplitGaussian {
    /// The normal with joint covariance `cov` (`(dim_x + dim_y)²`, symmetric positive definite).
    pub fn new(cov: DMatrix<f64>, dim_x: usize) -> Result<Self> {
        check_split(&cov, dim_x, "joint covariance")?;
        let d = cov.nrows();
        let dy = d - dim_x;
        let sxx = cov.view((0, 0), (dim_x, dim_x)).into_owned();
        let syy = cov.view((dim_x, dim_x), (dy, dy)).into_owned();
        let syx = cov.view((dim_x, 0), (dy, dim_x)).into_owned();
        let full = cholesky(cov, "joint covariance")?;
        let cxx = cholesky(sxx, "Σ_xx")?;
        let cyy = cholesky(syy.clone(), "Σ_yy")?;
        let mi = 0.5 * (ln_det(cxx.l_dirty()) + ln_det(cyy.l_dirty()) - ln_det(full.l_dirty()));
        let a = cxx.solve(&syx.transpose()).transpose();
        let cond = &syy - &a * syx.transpose();
        let ccond = cholesky(cond, "conditional covariance")?;
        let ln_det_syy = ln_det(cyy.l_dirty());
        Ok(SplitGaussian {
            dim_x,
            chol: full.l(),
            mi,
            a,
            c_inv: ccond.inverse(),
            syy_inv: cyy.inverse(),
            log_norm: 0.5 * (ln_det_syy - ln_det(ccond.l_dirty())),
            ln_det_syy,
        })
    }
}

impl Sampler for SplitGaussian {
    fn name(&self) -> String {
        format!("split-gaussian(dx={}, dy={}, mi={:.4})", self.dim_x, self.dim_y(), self.mi)
    }
    fn dim_x(&self) -> usize {
        self.dim_x
    }
    fn dim_y(&self) -> usize {
        self.chol.nrows() - self.dim_x
    }
    fn true_mi(&self) -> f64 {
        self.mi
    }

    fn sample_into(&self, rng: &mut dyn Rng, x: &mut DMatrix<f64>, y: &mut DMatrix<f64>) {
        let (n, d, dx) = (x.nrows(), self.chol.nrows(), self.dim_x);
        assert_eq!((x.ncols(), y.nrows(), y.ncols()), (dx, n, d - dx), "sample buffers");
        let mut z = vec![0.0; d];
        for i in 0..n {
            z.iter_mut().for_each(|v| *v = rng.sample(StandardNormal));
            for r in 0..d {
                let w: f64 = (0..=r).map(|c| self.chol[(r, c)] * z[c]).sum();
                if r < dx { x[(i, r)] = w } else { y[(i, r - dx)] = w }
            }
        }
    }

    fn optimal_critic(&self, x: &DMatrix<f64>, y: &DMatrix<f64>) -> Option<DMatrix<f64>> {
        // log N(y; Ax, C) − log N(y; 0, Σ_yy)
        //   = −½(y − Ax)ᵀC⁻¹(y − Ax) + ½ yᵀΣ_yy⁻¹y + ½ln|Σ_yy| − ½ln|C|
        let mu = x * self.a.transpose(); // n × dy, row i = (A x_i)ᵀ
        let mu_p = &mu * &self.c_inv;
        let y_p = y * &self.c_inv;
        let cross = &mu_p * y.transpose();
        let quad = |m: &DMatrix<f64>, p: &DMatrix<f64>| -> Vec<f64> {
            m.row_iter().zip(p.row_iter()).map(|(a, b)| a.dot(&b)).collect()
        };
        let mm = quad(&mu, &mu_p);
        let yy = quad(y, &y_p);
        let yq = quad(y, &(y * &self.syy_inv));
        Some(DMatrix::from_fn(x.nrows(), y.nrows(), |i, j| {
            -0.5 * (yy[j] - 2.0 * cross[(i, j)] + mm[i]) + 0.5 * yq[j] + self.log_norm
        }))
    }

    fn entropy_y(&self) -> Option<f64> {
        // H = ½ log((2πe)^d |Σ_yy|).
        Some(0.5 * (self.dim_y() as f64 * (LN_2PI + 1.0) + self.ln_det_syy))
    }

    fn log_marginal_y(&self, y: &DMatrix<f64>) -> Option<Vec<f64>> {
        let yq = y * &self.syy_inv;
        let d = self.dim_y() as f64;
        Some(y.row_iter().zip(yq.row_iter()).map(|(a, b)| -0.5 * (a.dot(&b) + self.ln_det_syy + d * LN_2PI)).collect())
    }
}
