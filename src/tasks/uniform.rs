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
