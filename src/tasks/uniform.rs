//! Additive uniform noise (bmi `AdditiveUniformSampler`, `bmi.samplers._additive_uniform`):
//! `X ~ U(0, 1)`, `N ~ U(−ε, ε)`, `Y = X + N`.
//!
//! `H(Y | X) = log 2ε`. `Y` has a trapezoidal density on `[−ε, 1 + ε]`; integrating `−p log p`
//! over its two ramps and its plateau gives `H(Y) = ε` for `ε ≤ ½` and `log 2ε + 1/(4ε)` for
//! `ε > ½`, so
//!
//! `I(X; Y) = ε − log 2ε` (ε ≤ ½), `1/(4ε)` (ε > ½),
//!
//! bmi's `mutual_information_function`. (bmi evaluates the logarithm with `jnp.log` in float32, so
//! its reported `1v1-additive-0.1` value differs from this float64 one by 3·10⁻⁸ relative.)

use crate::data::Sampler;
use crate::error::{Error, Result};
use crate::rng::Rng;
use nalgebra::DMatrix;
use rand::RngExt;

/// `X ~ U(0, 1)`, `Y = X + U(−ε, ε)`.
#[derive(Clone, Debug, PartialEq)]
pub struct AdditiveUniform {
    eps: f64,
}

impl AdditiveUniform {
    /// Noise half-width `ε > 0`.
    pub fn new(eps: f64) -> Result<Self> {
        if !(eps > 0.0 && eps.is_finite()) {
            return Err(Error::param("epsilon", eps, "must be positive and finite"));
        }
        Ok(AdditiveUniform { eps })
    }

    /// The marginal density of `y`: `|[0, 1] ∩ [y − ε, y + ε]| / 2ε`.
    pub fn density_y(&self, y: f64) -> f64 {
        let len = ((y + self.eps).min(1.0) - (y - self.eps).max(0.0)).max(0.0);
        len / (2.0 * self.eps)
    }
}

impl Sampler for AdditiveUniform {
    fn name(&self) -> String {
        format!("additive-uniform(eps={})", self.eps)
    }
    fn dim_x(&self) -> usize {
        1
    }
    fn dim_y(&self) -> usize {
        1
    }
    fn true_mi(&self) -> f64 {
        let e = self.eps;
        if e > 0.5 { 0.25 / e } else { e - (2.0 * e).ln() }
    }

    fn sample_into(&self, rng: &mut dyn Rng, x: &mut DMatrix<f64>, y: &mut DMatrix<f64>) {
        let n = x.nrows();
        assert_eq!((x.ncols(), y.nrows(), y.ncols()), (1, n, 1), "sample buffers");
        for i in 0..n {
            let u: f64 = rng.random();
            let v: f64 = rng.random();
            x[(i, 0)] = u;
            y[(i, 0)] = u + self.eps * (2.0 * v - 1.0);
        }
    }

    /// `S_ij = log p(y_j | x_i) − log p(y_j)` with `p(y|x) = 1/(2ε)` on `|y − x| ≤ ε`: the
    /// entries of pairs outside the noise band are `−∞` (the true log-density ratio), so a bound
    /// must treat them as "impossible pairs".
    fn optimal_critic(&self, x: &DMatrix<f64>, y: &DMatrix<f64>) -> Option<DMatrix<f64>> {
        let log_py: Vec<f64> = y.column(0).iter().map(|&v| self.density_y(v).ln()).collect();
        let log_cond = -(2.0 * self.eps).ln();
        Some(DMatrix::from_fn(x.nrows(), y.nrows(), |i, j| {
            if (y[(j, 0)] - x[(i, 0)]).abs() <= self.eps { log_cond - log_py[j] } else { f64::NEG_INFINITY }
        }))
    }

    fn entropy_y(&self) -> Option<f64> {
        let e = self.eps;
        Some(if e > 0.5 { (2.0 * e).ln() + 0.25 / e } else { e })
    }

    fn log_marginal_y(&self, y: &DMatrix<f64>) -> Option<Vec<f64>> {
        Some(y.column(0).iter().map(|&v| self.density_y(v).ln()).collect())
    }
}

/// The distribution of `X` in [`AdditiveNoise`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NoiseBase {
    /// `X ~ U(0, 1)^D` (`D` copies of bmi's `1v1-additive-ε`).
    Uniform,
    /// `X ~ N(0, I_D)`.
    Normal,
}

/// `D` independent copies of `(X_j, X_j + N_j)` with `N_j ~ U(−ε, ε)`: `X ~ U(0, 1)^D` or
/// `N(0, I_D)`. The pairs are independent, so `I = D · (H(Y_1) − log 2ε)`; `H(Y_1)` is
/// [`AdditiveUniform`]'s closed form for uniform `X`, and for normal `X` the integral of
/// `−p log p` with `p(y) = (Φ(y + ε) − Φ(y − ε)) / 2ε` by composite Simpson quadrature
/// ([`normal_plus_uniform_entropy`]).
#[derive(Clone, Debug, PartialEq)]
pub struct AdditiveNoise {
    dim: usize,
    eps: f64,
    base: NoiseBase,
    entropy_y1: f64,
}

/// `H(X + N)` for `X ~ N(0, 1)`, `N ~ U(−ε, ε)`: composite Simpson on `[−ε − 12, ε + 12]` with
/// 20 000 intervals (`p` is smooth; beyond the interval `p < 10⁻³²`, and halving the step
/// changes the value by less than 10⁻¹⁰ for ε from 0.01 to 200: tested below).
pub fn normal_plus_uniform_entropy(eps: f64) -> f64 {
    simpson_entropy(eps, 20_000)
}

fn simpson_entropy(eps: f64, intervals: usize) -> f64 {
    use super::maps::normal_cdf;
    let (a, b) = (-eps - 12.0, eps + 12.0);
    let h = (b - a) / intervals as f64;
    let f = |y: f64| {
        let p = (normal_cdf(y + eps) - normal_cdf(y - eps)) / (2.0 * eps);
        if p > 0.0 { -p * p.ln() } else { 0.0 }
    };
    let mut s = f(a) + f(b);
    for i in 1..intervals {
        s += f(a + i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 };
    }
    s * h / 3.0
}

impl AdditiveNoise {
    /// `dim ≥ 1` pairs, noise half-width `ε > 0`.
    pub fn new(dim: usize, eps: f64, base: NoiseBase) -> Result<Self> {
        if dim == 0 {
            return Err(Error::param("dimension", dim, "must be at least 1"));
        }
        let one = AdditiveUniform::new(eps)?;
        let entropy_y1 = match base {
            NoiseBase::Uniform => one.entropy_y().expect("closed form"),
            NoiseBase::Normal => normal_plus_uniform_entropy(eps),
        };
        Ok(AdditiveNoise { dim, eps, base, entropy_y1 })
    }

    /// The marginal density of one coordinate of `y`.
    pub fn density_y1(&self, y: f64) -> f64 {
        match self.base {
            NoiseBase::Uniform => AdditiveUniform { eps: self.eps }.density_y(y),
            NoiseBase::Normal => {
                use super::maps::normal_cdf;
                (normal_cdf(y + self.eps) - normal_cdf(y - self.eps)) / (2.0 * self.eps)
            }
        }
    }
}

impl Sampler for AdditiveNoise {
    fn name(&self) -> String {
        format!("additive-noise({:?}, D={}, eps={})", self.base, self.dim, self.eps)
    }
    fn dim_x(&self) -> usize {
        self.dim
    }
    fn dim_y(&self) -> usize {
        self.dim
    }
    fn true_mi(&self) -> f64 {
        self.dim as f64 * (self.entropy_y1 - (2.0 * self.eps).ln())
    }

    fn sample_into(&self, rng: &mut dyn Rng, x: &mut DMatrix<f64>, y: &mut DMatrix<f64>) {
        let (n, d) = (x.nrows(), self.dim);
        assert_eq!((x.ncols(), y.nrows(), y.ncols()), (d, n, d), "sample buffers");
        for i in 0..n {
            for j in 0..d {
                let u: f64 = match self.base {
                    NoiseBase::Uniform => rng.random(),
                    NoiseBase::Normal => rng.sample(rand_distr::StandardNormal),
                };
                let v: f64 = rng.random();
                x[(i, j)] = u;
                y[(i, j)] = u + self.eps * (2.0 * v - 1.0);
            }
        }
    }

    /// `S_ij = Σ_c (−log 2ε − log p(y_jc))` when every `|y_jc − x_ic| ≤ ε`, `−∞` otherwise.
    fn optimal_critic(&self, x: &DMatrix<f64>, y: &DMatrix<f64>) -> Option<DMatrix<f64>> {
        let log_py: Vec<f64> = y.row_iter().map(|r| r.iter().map(|&v| self.density_y1(v).ln()).sum::<f64>()).collect();
        let log_cond = -(self.dim as f64) * (2.0 * self.eps).ln();
        Some(DMatrix::from_fn(x.nrows(), y.nrows(), |i, j| {
            if (0..self.dim).all(|c| (y[(j, c)] - x[(i, c)]).abs() <= self.eps) {
                log_cond - log_py[j]
            } else {
                f64::NEG_INFINITY
            }
        }))
    }

    fn entropy_y(&self) -> Option<f64> {
        Some(self.dim as f64 * self.entropy_y1)
    }

    fn log_marginal_y(&self, y: &DMatrix<f64>) -> Option<Vec<f64>> {
        Some(y.row_iter().map(|r| r.iter().map(|&v| self.density_y1(v).ln()).sum::<f64>()).collect())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_quadrature_has_converged() {
        for eps in [0.01, 0.1, 0.5, 1.0, 2.0, 20.0, 200.0] {
            let (a, b) = (super::simpson_entropy(eps, 20_000), super::simpson_entropy(eps, 40_000));
            assert!((a - b).abs() < 1e-10, "ε = {eps}: {a} vs {b}");
        }
    }
}
