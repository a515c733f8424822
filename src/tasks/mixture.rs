//! Multimodal Gaussian mixtures in low dimension: `(X, Y) ~ Σ_k w_k N(μ_k, Σ_k)` on
//! `ℝ^{dim_x + dim_y}`.
//!
//! The joint density and both marginals are closed form (the marginal of a mixture is the mixture
//! of the components' marginal blocks), so the pointwise MI `log p(x, y) − log p(x) − log p(y)` is
//! exact at every point and the MI `E[log p(x, y) − log p(x) − log p(y)]` is a one-dimensional
//! Monte-Carlo average ([`super::truth`]); there is no closed form for it.
//!
//! Layouts (`docs/tasks.md`): `cross` (two centred components with correlation `±ρ`: `X` and `Y`
//! uncorrelated but dependent), `diag` (`K` isotropic components on the diagonal of every
//! coordinate), `ring` (`K` isotropic components on a closed curve through all coordinates).

use super::truth::Pointwise;
use crate::data::Sampler;
use crate::error::{Error, Result};
use crate::rng::Rng;
use nalgebra::{Cholesky, DMatrix, DVector};
use rand::RngExt;
use rand_distr::StandardNormal;
use std::f64::consts::PI;

const LN_2PI: f64 = 1.837_877_066_409_345_5;

/// A normal density `N(μ, Σ)` ready for evaluation: `Σ⁻¹` and `log` of the normalising constant.
#[derive(Clone, Debug)]
pub(super) struct Normal {
    mean: Vec<f64>,
    prec: DMatrix<f64>,
    log_norm: f64,
}

impl Normal {
    pub(super) fn new(mean: Vec<f64>, cov: DMatrix<f64>) -> Result<(Self, DMatrix<f64>)> {
        let d = mean.len();
        let c = Cholesky::new(cov)
            .ok_or_else(|| Error::param("mixture component covariance", "(matrix)", "must be positive definite"))?;
        let ln_det = crate::cca::ln_det(c.l_dirty());
        let log_norm = -0.5 * (d as f64 * LN_2PI + ln_det);
        Ok((Normal { mean, prec: c.inverse(), log_norm }, c.l()))
    }

    pub(super) fn log_pdf(&self, v: &[f64]) -> f64 {
        // (v − μ)ᵀ Σ⁻¹ (v − μ), without allocating (this is the inner loop of every critic).
        let diff = || v.iter().zip(&self.mean).map(|(a, m)| a - m).enumerate();
        let q: f64 = diff().map(|(a, da)| da * diff().map(|(b, db)| self.prec[(a, b)] * db).sum::<f64>()).sum();
        self.log_norm - 0.5 * q
    }
}

/// `log Σ_k exp(a_k)` without overflow (each term evaluated once).
pub(super) fn log_sum_exp(a: impl Iterator<Item = f64>) -> f64 {
    let a: Vec<f64> = a.collect();
    let m = a.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if m == f64::NEG_INFINITY {
        return m;
    }
    m + a.iter().map(|v| (v - m).exp()).sum::<f64>().ln()
}

struct Component {
    log_w: f64,
    joint: Normal,
    chol: DMatrix<f64>,
    x: Normal,
    y: Normal,
}

/// A Gaussian mixture on `(x, y)`, split after the first `dim_x` coordinates.
pub(super) struct GaussianMixture {
    dim_x: usize,
    dim_y: usize,
    /// Cumulative weights, for sampling the component.
    cum: Vec<f64>,
    comps: Vec<Component>,
    label: String,
}

impl std::fmt::Debug for GaussianMixture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GaussianMixture").field("label", &self.label).field("components", &self.comps.len()).finish()
    }
}

impl GaussianMixture {
    /// Components `(w_k, μ_k, Σ_k)` (positive weights, normalised here; `μ_k` of length
    /// `dim_x + dim_y`; `Σ_k` positive definite). The MI is set with [`GaussianMixture::with_mi`].
    pub fn new(dim_x: usize, components: Vec<(f64, Vec<f64>, DMatrix<f64>)>, label: String) -> Result<Self> {
        let d = components.first().map_or(0, |c| c.1.len());
        if dim_x == 0 || dim_x >= d || components.iter().any(|c| c.1.len() != d || c.2.shape() != (d, d)) {
            return Err(Error::param("mixture dimensions", format!("dim_x = {dim_x}, d = {d}"), "need 0 < dim_x < d"));
        }
        if components.iter().any(|c| !(c.0 > 0.0 && c.0.is_finite())) {
            return Err(Error::param("mixture weight", "(component)", "must be positive and finite"));
        }
        let total: f64 = components.iter().map(|c| c.0).sum();
        let dy = d - dim_x;
        let mut comps = Vec::new();
        let mut cum = Vec::new();
        let mut acc = 0.0;
        for (w, mean, cov) in components {
            let (joint, chol) = Normal::new(mean.clone(), cov.clone())?;
            let (x, _) = Normal::new(mean[..dim_x].to_vec(), cov.view((0, 0), (dim_x, dim_x)).into_owned())?;
            let (y, _) = Normal::new(mean[dim_x..].to_vec(), cov.view((dim_x, dim_x), (dy, dy)).into_owned())?;
            acc += w / total;
            cum.push(acc);
            comps.push(Component { log_w: (w / total).ln(), joint, chol, x, y });
        }
        Ok(GaussianMixture { dim_x, dim_y: dy, cum, comps, label })
    }

    /// `cross-ρ` (1 + 1): `½ N(0, [[1, ρ], [ρ, 1]]) + ½ N(0, [[1, −ρ], [−ρ, 1]])`.
    pub fn cross(rho: f64) -> Result<Self> {
        if rho.is_nan() || rho.abs() >= 1.0 {
            return Err(Error::param("correlation", rho, "must lie in (−1, 1)"));
        }
        let c = |r: f64| DMatrix::from_row_slice(2, 2, &[1.0, r, r, 1.0]);
        Self::new(1, vec![(0.5, vec![0.0; 2], c(rho)), (0.5, vec![0.0; 2], c(-rho))], format!("cross(rho={rho})"))
    }

    /// `diag-DX-DY-K-σ`: `K` equally weighted components `N(μ_k, σ² I)` with
    /// `μ_k = (k − (K−1)/2)·(1, …, 1)`, `k = 0, …, K−1`.
    pub fn diag(dim_x: usize, dim_y: usize, k: usize, sigma: f64) -> Result<Self> {
        check(dim_x, dim_y, k, sigma)?;
        let d = dim_x + dim_y;
        let comps = (0..k)
            .map(|c| (1.0, vec![c as f64 - 0.5 * (k as f64 - 1.0); d], DMatrix::identity(d, d) * (sigma * sigma)))
            .collect();
        Self::new(dim_x, comps, format!("diag(dx={dim_x}, dy={dim_y}, K={k}, sigma={sigma})"))
    }

    /// `ring-DX-DY-K-σ`: `K` equally weighted components `N(μ_k, σ² I)` with
    /// `μ_k[j] = 2 cos(2πk/K + jπ/d)`, `j = 0, …, d − 1`, `d = DX + DY` (a circle of radius 2 in
    /// the plane when `d = 2`, an ellipse through every coordinate otherwise).
    pub fn ring(dim_x: usize, dim_y: usize, k: usize, sigma: f64) -> Result<Self> {
        check(dim_x, dim_y, k, sigma)?;
        let d = dim_x + dim_y;
        let comps = (0..k)
            .map(|c| {
                let t = 2.0 * PI * c as f64 / k as f64;
                let mean = (0..d).map(|j| 2.0 * (t + j as f64 * PI / d as f64).cos()).collect();
                (1.0, mean, DMatrix::identity(d, d) * (sigma * sigma))
            })
            .collect();
        Self::new(dim_x, comps, format!("ring(dx={dim_x}, dy={dim_y}, K={k}, sigma={sigma})"))
    }

    fn log_px(&self, x: &[f64]) -> f64 {
        log_sum_exp(self.comps.iter().map(|c| c.log_w + c.x.log_pdf(x)))
    }

    fn log_py(&self, y: &[f64]) -> f64 {
        log_sum_exp(self.comps.iter().map(|c| c.log_w + c.y.log_pdf(y)))
    }

    fn log_pxy(&self, z: &[f64]) -> f64 {
        log_sum_exp(self.comps.iter().map(|c| c.log_w + c.joint.log_pdf(z)))
    }
}

fn check(dim_x: usize, dim_y: usize, k: usize, sigma: f64) -> Result<()> {
    super::normal::check_dims(dim_x, dim_y)?;
    if k < 2 {
        return Err(Error::param("mixture components K", k, "must be at least 2"));
    }
    if !(sigma > 0.0 && sigma.is_finite()) {
        return Err(Error::param("component standard deviation", sigma, "must be positive and finite"));
    }
    Ok(())
}

fn row(m: &DMatrix<f64>, i: usize) -> Vec<f64> {
    m.row(i).iter().copied().collect()
}

impl Pointwise for GaussianMixture {
    fn pmi(&self, x: &[f64], y: &[f64]) -> f64 {
        let z: Vec<f64> = x.iter().chain(y).copied().collect();
        self.log_pxy(&z) - self.log_px(x) - self.log_py(y)
    }
}

impl Sampler for GaussianMixture {
    fn name(&self) -> String {
        format!("gaussian-mixture {}", self.label)
    }
    fn dim_x(&self) -> usize {
        self.dim_x
    }
    fn dim_y(&self) -> usize {
        self.dim_y
    }
    /// Not known in closed form: the task's MI is measured by [`super::truth::Measured`].
    fn true_mi(&self) -> f64 {
        f64::NAN
    }

    fn sample_into(&self, rng: &mut dyn Rng, x: &mut DMatrix<f64>, y: &mut DMatrix<f64>) {
        let (n, dx, d) = (x.nrows(), self.dim_x, self.dim_x + self.dim_y);
        assert_eq!((x.ncols(), y.nrows(), y.ncols()), (dx, n, self.dim_y), "sample buffers");
        let mut e = DVector::zeros(d);
        for i in 0..n {
            let u: f64 = rng.random();
            let k = self.cum.iter().position(|&c| u < c).unwrap_or(self.comps.len() - 1);
            e.iter_mut().for_each(|v| *v = rng.sample(StandardNormal));
            let c = &self.comps[k];
            let z = &c.chol * &e;
            for r in 0..d {
                let v = c.joint.mean[r] + z[r];
                if r < dx { x[(i, r)] = v } else { y[(i, r - dx)] = v }
            }
        }
    }

    /// `S_ij = log p(x_i, y_j) − log p(x_i) − log p(y_j)`. Per component the quadratic form of
    /// the pair splits into `x`'s part, `y`'s part and the cross term `(x − μ_x)ᵀ P_xy (y − μ_y)`
    /// (`P` the component's joint precision), a matrix product for all pairs at once.
    fn optimal_critic(&self, x: &DMatrix<f64>, y: &DMatrix<f64>) -> Option<DMatrix<f64>> {
        let (n, m, dx, dy) = (x.nrows(), y.nrows(), self.dim_x, self.dim_y);
        let lx: Vec<f64> = (0..n).map(|i| self.log_px(&row(x, i))).collect();
        let ly: Vec<f64> = (0..m).map(|j| self.log_py(&row(y, j))).collect();
        let quad = |v: &DMatrix<f64>, p: &DMatrix<f64>| -> Vec<f64> {
            let vp = v * p;
            v.row_iter().zip(vp.row_iter()).map(|(a, b)| a.dot(&b)).collect()
        };
        let terms: Vec<DMatrix<f64>> = self
            .comps
            .iter()
            .map(|c| {
                let (mean, p) = (&c.joint.mean, &c.joint.prec);
                let xc = DMatrix::from_fn(n, dx, |i, a| x[(i, a)] - mean[a]);
                let yc = DMatrix::from_fn(m, dy, |j, b| y[(j, b)] - mean[dx + b]);
                let qa = quad(&xc, &p.view((0, 0), (dx, dx)).into_owned());
                let qb = quad(&yc, &p.view((dx, dx), (dy, dy)).into_owned());
                let cross = &xc * p.view((0, dx), (dx, dy)) * yc.transpose();
                let k = c.log_w + c.joint.log_norm;
                DMatrix::from_fn(n, m, |i, j| k - 0.5 * (qa[i] + 2.0 * cross[(i, j)] + qb[j]))
            })
            .collect();
        Some(DMatrix::from_fn(n, m, |i, j| log_sum_exp(terms.iter().map(|t| t[(i, j)])) - lx[i] - ly[j]))
    }

    fn log_marginal_y(&self, y: &DMatrix<f64>) -> Option<Vec<f64>> {
        Some((0..y.nrows()).map(|j| self.log_py(&row(y, j))).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_critic_matrix_agrees_with_the_pointwise_mi() {
        // The critic's all-pairs formula (split quadratic form) and the pointwise formula behind the
        // Monte-Carlo truths (joint density of the concatenated pair) are the same function.
        for m in [GaussianMixture::ring(2, 2, 5, 0.5).unwrap(), GaussianMixture::cross(0.9).unwrap()] {
            let (x, y) = m.sample(200, &mut crate::rng::rng(3));
            let s = m.optimal_critic(&x, &y).unwrap();
            for (i, j) in [(0, 0), (5, 5), (3, 17), (199, 0), (42, 42)] {
                let p = m.pmi(&row(&x, i), &row(&y, j));
                assert!((s[(i, j)] - p).abs() < 1e-10 * (1.0 + p.abs()), "({i}, {j}): {} vs {p}", s[(i, j)]);
            }
        }
    }
}
