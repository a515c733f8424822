//! Discrete and mixed coordinates.
//!
//! - [`Classes`] (`classes-K-D-σ`): `X` a class label in `{0, …, K−1}` (one float column),
//!   `Y | X = k ~ N(μ_k, σ² I_D)`. MI by Monte Carlo ([`super::truth`]): `p(y)` is the mixture
//!   `(1/K) Σ_k N(y; μ_k, σ² I)`, so the pointwise MI `log N(y; μ_x, σ² I) − log p(y)` is exact.
//! - [`GaoUniform`] (`gao-uniform-m`, Gao, Kannan, Oh & Viswanath 2017, *Estimating Mutual
//!   Information for Discrete-Continuous Mixtures*, §5): `X` uniform on `{0, …, m−1}`,
//!   `Y | X ~ U[X, X + 2]`; `I = log m − (m−1)/m · log 2` exactly.
//! - [`ZeroInflated`] (prefix `zero_inflated-P-`): `Y` replaced by the zero vector with
//!   probability `P`, independently of everything. The zero row is an atom of `Y'`; with a base
//!   whose `Y` has no atom at 0, the density ratio is 1 on the atom (`P(Y' = 0 | x) = P`) and the
//!   base ratio elsewhere, so `I(X; Y') = (1 − P) · I(X; Y)` exactly.

use super::mixture::{Normal, log_sum_exp};
use super::truth::Pointwise;
use crate::data::Sampler;
use crate::error::{Error, Result};
use crate::rng::Rng;
use nalgebra::DMatrix;
use rand::RngExt;
use rand_distr::StandardNormal;
use std::f64::consts::{LN_2, PI};

/// The class of a float label, if it is one of `0, …, k − 1`.
fn class_of(v: f64, k: usize) -> Option<usize> {
    (v >= 0.0 && v < k as f64 && v.fract() == 0.0).then_some(v as usize)
}

/// `X` uniform on `{0, …, K−1}`, `Y | X = k ~ N(μ_k, σ² I_D)` with the helix means
/// `μ_k = (k, sin θ_k, cos θ_k, sin 2θ_k, cos 2θ_k, …)` truncated to `D` coordinates,
/// `θ_k = 2πk/K`.
pub(super) struct Classes {
    k: usize,
    sigma: f64,
    means: Vec<Vec<f64>>,
    dens: Vec<Normal>,
}

impl Classes {
    pub(super) fn new(k: usize, d: usize, sigma: f64) -> Result<Self> {
        if k < 2 {
            return Err(Error::param("classes K", k, "must be at least 2"));
        }
        if d == 0 {
            return Err(Error::param("dimension D", d, "must be at least 1"));
        }
        if !(sigma > 0.0 && sigma.is_finite()) {
            return Err(Error::param("standard deviation σ", sigma, "must be positive and finite"));
        }
        let means: Vec<Vec<f64>> = (0..k)
            .map(|c| {
                let t = 2.0 * PI * c as f64 / k as f64;
                (0..d)
                    .map(|j| match j {
                        0 => c as f64,
                        _ if j % 2 == 1 => ((j / 2 + 1) as f64 * t).sin(),
                        _ => ((j / 2) as f64 * t).cos(),
                    })
                    .collect()
            })
            .collect();
        let dens = means
            .iter()
            .map(|m| Normal::new(m.clone(), DMatrix::identity(d, d) * (sigma * sigma)).map(|n| n.0))
            .collect::<Result<_>>()?;
        Ok(Classes { k, sigma, means, dens })
    }

    fn log_py(&self, y: &[f64]) -> f64 {
        log_sum_exp(self.dens.iter().map(|n| n.log_pdf(y))) - (self.k as f64).ln()
    }
}

impl Pointwise for Classes {
    fn pmi(&self, x: &[f64], y: &[f64]) -> f64 {
        let c = class_of(x[0], self.k).expect("a class label");
        self.dens[c].log_pdf(y) - self.log_py(y)
    }
}

impl Sampler for Classes {
    fn name(&self) -> String {
        format!("classes(K={}, D={}, sigma={})", self.k, self.means[0].len(), self.sigma)
    }
    fn dim_x(&self) -> usize {
        1
    }
    fn dim_y(&self) -> usize {
        self.means[0].len()
    }
    /// Not known in closed form: the task's MI is measured by [`super::truth::Measured`].
    fn true_mi(&self) -> f64 {
        f64::NAN
    }
    fn sample_into(&self, rng: &mut dyn Rng, x: &mut DMatrix<f64>, y: &mut DMatrix<f64>) {
        let (n, d) = (x.nrows(), self.dim_y());
        assert_eq!((x.ncols(), y.nrows(), y.ncols()), (1, n, d), "sample buffers");
        for i in 0..n {
            let c = rng.random_range(0..self.k);
            x[(i, 0)] = c as f64;
            for j in 0..d {
                let e: f64 = rng.sample(StandardNormal);
                y[(i, j)] = self.means[c][j] + self.sigma * e;
            }
        }
    }
    /// `S_ij = log N(y_j; μ_{x_i}, σ² I) − log p(y_j)`; `None` when an `x` is not a class label.
    fn optimal_critic(&self, x: &DMatrix<f64>, y: &DMatrix<f64>) -> Option<DMatrix<f64>> {
        let cls: Vec<usize> = x.column(0).iter().map(|&v| class_of(v, self.k)).collect::<Option<_>>()?;
        let ys: Vec<Vec<f64>> = y.row_iter().map(|r| r.iter().copied().collect()).collect();
        let ly: Vec<f64> = ys.iter().map(|v| self.log_py(v)).collect();
        let lc: Vec<Vec<f64>> = ys.iter().map(|v| self.dens.iter().map(|n| n.log_pdf(v)).collect()).collect();
        Some(DMatrix::from_fn(x.nrows(), y.nrows(), |i, j| lc[j][cls[i]] - ly[j]))
    }
    fn log_marginal_y(&self, y: &DMatrix<f64>) -> Option<Vec<f64>> {
        Some(y.row_iter().map(|r| self.log_py(&r.iter().copied().collect::<Vec<_>>())).collect())
    }
}

/// Gao et al. 2017's discrete–continuous example: `X` uniform on `{0, …, m−1}`,
/// `Y | X ~ U[X, X + 2]`.
#[derive(Clone, Debug, PartialEq)]
pub struct GaoUniform {
    m: usize,
}

impl GaoUniform {
    /// `m ≥ 1` classes.
    pub fn new(m: usize) -> Result<Self> {
        if m == 0 {
            return Err(Error::param("classes m", m, "must be at least 1"));
        }
        Ok(GaoUniform { m })
    }

    /// One draw `(x, y)` for `m` classes: the class, then `y = x + 2u`.
    pub(crate) fn draw_one(m: usize, rng: &mut dyn Rng) -> (f64, f64) {
        let c = rng.random_range(0..m) as f64;
        let u: f64 = rng.random();
        (c, c + 2.0 * u)
    }

    /// `p(y) = #{c : c ≤ y ≤ c + 2} / (2m)`.
    pub fn density_y(&self, y: f64) -> f64 {
        let hits = (0..self.m).filter(|&c| (c as f64) <= y && y <= c as f64 + 2.0).count();
        hits as f64 / (2.0 * self.m as f64)
    }
}

impl Sampler for GaoUniform {
    fn name(&self) -> String {
        format!("gao-uniform(m={})", self.m)
    }
    fn dim_x(&self) -> usize {
        1
    }
    fn dim_y(&self) -> usize {
        1
    }
    /// `I = log m − (m − 1)/m · log 2` (Gao et al. 2017): on `[1, m−1]` two classes share every
    /// `y` (ratio 1), on the end intervals `[0, 1)` and `(m, m+1]` one class does (ratio 2).
    fn true_mi(&self) -> f64 {
        let m = self.m as f64;
        m.ln() - (m - 1.0) / m * LN_2
    }
    fn sample_into(&self, rng: &mut dyn Rng, x: &mut DMatrix<f64>, y: &mut DMatrix<f64>) {
        let n = x.nrows();
        assert_eq!((x.ncols(), y.nrows(), y.ncols()), (1, n, 1), "sample buffers");
        for i in 0..n {
            (x[(i, 0)], y[(i, 0)]) = Self::draw_one(self.m, rng);
        }
    }
    /// `S_ij = log(½) − log p(y_j)` when `x_i ≤ y_j ≤ x_i + 2`, `−∞` otherwise; `None` when an `x`
    /// is not a class label.
    fn optimal_critic(&self, x: &DMatrix<f64>, y: &DMatrix<f64>) -> Option<DMatrix<f64>> {
        x.column(0).iter().try_for_each(|&v| class_of(v, self.m).map(|_| ()))?;
        let ly: Vec<f64> = y.column(0).iter().map(|&v| self.density_y(v).ln()).collect();
        Some(DMatrix::from_fn(x.nrows(), y.nrows(), |i, j| {
            let (a, b) = (x[(i, 0)], y[(j, 0)]);
            if a <= b && b <= a + 2.0 { -LN_2 - ly[j] } else { f64::NEG_INFINITY }
        }))
    }
    fn log_marginal_y(&self, y: &DMatrix<f64>) -> Option<Vec<f64>> {
        Some(y.column(0).iter().map(|&v| self.density_y(v).ln()).collect())
    }
}

/// A base task whose `y` is replaced by the zero vector with probability `p`.
pub struct ZeroInflated<S> {
    base: S,
    p: f64,
}

impl<S: Sampler> ZeroInflated<S> {
    /// `0 ≤ p < 1`; the base's `y` must have no atom at the zero vector (true of every listed task).
    pub fn new(base: S, p: f64) -> Result<Self> {
        if !(0.0..1.0).contains(&p) {
            return Err(Error::param("zero-inflation probability", p, "must lie in [0, 1)"));
        }
        Ok(ZeroInflated { base, p })
    }
}

fn is_zero_row(y: &DMatrix<f64>, j: usize) -> bool {
    y.row(j).iter().all(|&v| v == 0.0)
}

impl<S: Sampler> Sampler for ZeroInflated<S> {
    fn name(&self) -> String {
        format!("zero-inflated(p={}, {})", self.p, self.base.name())
    }
    fn dim_x(&self) -> usize {
        self.base.dim_x()
    }
    fn dim_y(&self) -> usize {
        self.base.dim_y()
    }
    fn true_mi(&self) -> f64 {
        (1.0 - self.p) * self.base.true_mi()
    }
    /// A joint draw of the base, then one uniform per row decides the zeroing.
    fn sample_into(&self, rng: &mut dyn Rng, x: &mut DMatrix<f64>, y: &mut DMatrix<f64>) {
        self.base.sample_into(rng, x, y);
        for j in 0..y.nrows() {
            let u: f64 = rng.random();
            if u < self.p {
                y.row_mut(j).fill(0.0);
            }
        }
    }
    /// The base critic, with a zero column for every zero row of `y` (on the atom
    /// `P(Y' = 0 | x) / P(Y' = 0) = 1`).
    fn optimal_critic(&self, x: &DMatrix<f64>, y: &DMatrix<f64>) -> Option<DMatrix<f64>> {
        let mut s = self.base.optimal_critic(x, y)?;
        for j in (0..y.nrows()).filter(|&j| is_zero_row(y, j)) {
            s.column_mut(j).fill(0.0);
        }
        Some(s)
    }
}
