//! The split multivariate Student-t distribution (bmi `SplitStudentT`,
//! `bmi.samplers._split_student_t`; Arellano-Valle, Contreras-Reyes & Genton 2013).
//!
//! `(X, Y) = Z / √(W/ν)` with `Z ~ N(0, Σ)` and `W ~ χ²_ν` independent: a multivariate `t_ν`
//! with dispersion `Σ` (not its covariance, which is `ν/(ν − 2) Σ` for `ν > 2`). Its MI is the MI
//! of the normal with covariance `Σ` plus a correction that depends only on `ν`, `dim_x`, `dim_y`:
//!
//! `I = ½ log(|Σ_xx||Σ_yy|/|Σ|) + h(dim_x) + h(dim_y) − h(dim_x + dim_y)`,
//!
//! with `h(k) = log Γ(ν/2) − log Γ((ν+k)/2) + (k/2) log(νπ) + (ν+k)/2 · (ψ((ν+k)/2) − ψ(ν/2))`
//! the differential entropy of `t_ν(0, I_k)` (Arellano-Valle et al. 2013, Eq. 7; bmi's
//! `_differential_entropy` and `mi_correction_function`). With identity dispersion the normal
//! part is zero and `I` is the correction alone: heavy tails make `X` and `Y` dependent (they
//! share the scale `W`) although they are uncorrelated.

use crate::cca::{check_split, cholesky, ln_det};
use crate::data::Sampler;
use crate::error::{Error, Result};
use crate::rng::Rng;
use nalgebra::DMatrix;
use rand::RngExt;
use rand_distr::{ChiSquared, StandardNormal};
use statrs::function::gamma::{digamma, ln_gamma};
use std::f64::consts::PI;

/// `h(k)`: the differential entropy of a `k`-dimensional Student-t with `ν` degrees of freedom
/// and identity dispersion (Arellano-Valle et al. 2013, Eq. 7).
pub fn student_entropy(k: usize, df: f64) -> f64 {
    let (k, a) = (k as f64, 0.5 * (df + k as f64));
    ln_gamma(0.5 * df) - ln_gamma(a) + 0.5 * k * (df * PI).ln() + a * (digamma(a) - digamma(0.5 * df))
}

/// The Student-t correction `h(dim_x) + h(dim_y) − h(dim_x + dim_y)` (bmi
/// `SplitStudentT.mi_correction_function`); positive, and zero only as `ν → ∞`.
pub fn student_correction(df: f64, dim_x: usize, dim_y: usize) -> f64 {
    student_entropy(dim_x, df) + student_entropy(dim_y, df) - student_entropy(dim_x + dim_y, df)
}

/// `log Γ((ν+k)/2) − log Γ(ν/2) − (k/2) log(νπ)`: the normalising constant of `t_ν(0, I_k)`.
fn log_norm(k: usize, df: f64) -> f64 {
    let k = k as f64;
    ln_gamma(0.5 * (df + k)) - ln_gamma(0.5 * df) - 0.5 * k * (df * PI).ln()
}

/// `(x, y)` jointly multivariate Student-t with `ν` degrees of freedom, zero location and
/// dispersion `Σ`, split into the first `dim_x` and the remaining coordinates.
#[derive(Clone, Debug)]
pub struct SplitStudentT {
    dim_x: usize,
    df: f64,
    chol: DMatrix<f64>,
    chi2: ChiSquared<f64>,
    /// `Σ⁻¹` (joint), `Σ_xx⁻¹`, `Σ_yy⁻¹`.
    p: DMatrix<f64>,
    pxx: DMatrix<f64>,
    pyy: DMatrix<f64>,
    ln_det_syy: f64,
    mi_normal: f64,
}

impl SplitStudentT {
    /// The distribution with `df > 0` degrees of freedom and joint dispersion `dispersion`
    /// (`(dim_x + dim_y)²`, symmetric positive definite).
    pub fn new(dispersion: DMatrix<f64>, dim_x: usize, df: f64) -> Result<Self> {
        check_split(&dispersion, dim_x, "joint dispersion")?;
        if !(df > 0.0 && df.is_finite()) {
            return Err(Error::param("degrees of freedom", df, "must be positive and finite"));
        }
        let d = dispersion.nrows();
        let dy = d - dim_x;
        let cxx = cholesky(dispersion.view((0, 0), (dim_x, dim_x)).into_owned(), "Σ_xx")?;
        let cyy = cholesky(dispersion.view((dim_x, dim_x), (dy, dy)).into_owned(), "Σ_yy")?;
        let full = cholesky(dispersion, "joint dispersion")?;
        let chi2 = ChiSquared::new(df).map_err(|e| Error::param("degrees of freedom", df, &e.to_string()))?;
        Ok(SplitStudentT {
            dim_x,
            df,
            mi_normal: 0.5 * (ln_det(cxx.l_dirty()) + ln_det(cyy.l_dirty()) - ln_det(full.l_dirty())),
            ln_det_syy: ln_det(cyy.l_dirty()),
            chol: full.l(),
            chi2,
            p: full.inverse(),
            pxx: cxx.inverse(),
            pyy: cyy.inverse(),
        })
    }

    /// Identity dispersion (bmi `student-identity-{dim_x}-{dim_y}-{df}`).
    pub fn identity(dim_x: usize, dim_y: usize, df: f64) -> Result<Self> {
        super::normal::check_dims(dim_x, dim_y)?;
        Self::new(DMatrix::identity(dim_x + dim_y, dim_x + dim_y), dim_x, df)
    }

    /// Degrees of freedom ν.
    pub fn df(&self) -> f64 {
        self.df
    }

    /// The normal part `½ log(|Σ_xx||Σ_yy|/|Σ|)` of the MI.
    pub fn mi_normal(&self) -> f64 {
        self.mi_normal
    }

    /// The Student-t correction of the MI.
    pub fn mi_correction(&self) -> f64 {
        student_correction(self.df, self.dim_x, self.dim_y())
    }

    fn quad(m: &DMatrix<f64>, p: &DMatrix<f64>) -> Vec<f64> {
        let mp = m * p;
        m.row_iter().zip(mp.row_iter()).map(|(a, b)| a.dot(&b)).collect()
    }
}

impl Sampler for SplitStudentT {
    fn name(&self) -> String {
        format!("student-t(dx={}, dy={}, df={}, mi={:.4})", self.dim_x, self.dim_y(), self.df, self.true_mi())
    }
    fn dim_x(&self) -> usize {
        self.dim_x
    }
    fn dim_y(&self) -> usize {
        self.chol.nrows() - self.dim_x
    }
    fn true_mi(&self) -> f64 {
        self.mi_normal + self.mi_correction()
    }

    fn sample_into(&self, rng: &mut dyn Rng, x: &mut DMatrix<f64>, y: &mut DMatrix<f64>) {
        let (n, d, dx) = (x.nrows(), self.chol.nrows(), self.dim_x);
        assert_eq!((x.ncols(), y.nrows(), y.ncols()), (dx, n, d - dx), "sample buffers");
        let mut z = vec![0.0; d];
        for i in 0..n {
            z.iter_mut().for_each(|v| *v = rng.sample(StandardNormal));
            let w: f64 = rng.sample(self.chi2);
            let scale = (self.df / w).sqrt();
            for r in 0..d {
                let v = scale * (0..=r).map(|c| self.chol[(r, c)] * z[c]).sum::<f64>();
                if r < dx { x[(i, r)] = v } else { y[(i, r - dx)] = v }
            }
        }
    }

    /// `S_ij = log t(x_i, y_j) − log t(x_i) − log t(y_j)` with the joint and marginal
    /// Student-t densities (the marginals of a multivariate t are t with the same ν and the
    /// diagonal blocks of Σ).
    fn optimal_critic(&self, x: &DMatrix<f64>, y: &DMatrix<f64>) -> Option<DMatrix<f64>> {
        let (dx, dy, nu) = (self.dim_x, self.dim_y(), self.df);
        let pxx = self.p.view((0, 0), (dx, dx)).into_owned();
        let pxy = self.p.view((0, dx), (dx, dy)).into_owned();
        let pyy = self.p.view((dx, dx), (dy, dy)).into_owned();
        let qxj = Self::quad(x, &pxx);
        let qyj = Self::quad(y, &pyy);
        let cross = x * pxy * y.transpose();
        let qx = Self::quad(x, &self.pxx);
        let qy = Self::quad(y, &self.pyy);
        let c = log_norm(dx + dy, nu) - log_norm(dx, nu) - log_norm(dy, nu) + self.mi_normal;
        let (ax, ay, axy) = (0.5 * (nu + dx as f64), 0.5 * (nu + dy as f64), 0.5 * (nu + (dx + dy) as f64));
        let lx: Vec<f64> = qx.iter().map(|q| ax * (q / nu).ln_1p()).collect();
        let ly: Vec<f64> = qy.iter().map(|q| ay * (q / nu).ln_1p()).collect();
        Some(DMatrix::from_fn(x.nrows(), y.nrows(), |i, j| {
            let q = qxj[i] + 2.0 * cross[(i, j)] + qyj[j];
            c - axy * (q / nu).ln_1p() + lx[i] + ly[j]
        }))
    }

    /// `H(Y) = h(dim_y) + ½ log|Σ_yy|`.
    fn entropy_y(&self) -> Option<f64> {
        Some(student_entropy(self.dim_y(), self.df) + 0.5 * self.ln_det_syy)
    }

    fn log_marginal_y(&self, y: &DMatrix<f64>) -> Option<Vec<f64>> {
        let (dy, nu) = (self.dim_y(), self.df);
        let c = log_norm(dy, nu) - 0.5 * self.ln_det_syy;
        Some(Self::quad(y, &self.pyy).iter().map(|q| c - 0.5 * (nu + dy as f64) * (q / nu).ln_1p()).collect())
    }
}
