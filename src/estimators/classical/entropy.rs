//! The Kozachenko–Leonenko k-nearest-neighbour estimate of differential entropy.
//!
//! Kozachenko & Leonenko (1987), in the form of Kraskov et al. (2004, eq. 20): with `r_i` the
//! distance from point `i` to its k-th nearest neighbour among the other `N − 1` points,
//!
//! `Ĥ = ψ(N) − ψ(k) + ln V_d + (d/N) Σᵢ ln r_i`  (nats),
//!
//! where `V_d` is the volume of the unit-radius ball of the norm in `d` dimensions:
//!
//! - max-norm ([`EntropyNorm::Max`], the default, the norm of KSG): the cube `[−1, 1]^d`,
//!   `V_d = 2^d`, so `ln V_d = d ln 2`;
//! - Euclidean ([`EntropyNorm::Euclidean`]): `V_d = π^{d/2} / Γ(d/2 + 1)`.
//!
//! The estimate is consistent for any density; for `k` fixed its bias vanishes as `N → ∞` but can
//! be large in high dimension. A point with `k` exact duplicates has `r_i = 0` and makes the
//! estimate `−∞`: that is an error (add tiny noise to such data first).
//!
//! It supplies `H(Y)` to Barber–Agakov's bound `I ≥ H(Y) − E[−ln q(y|x)]` when no analytic entropy
//! is known.

use super::knn::{self, Norm};
use super::{digamma, row_major};
use crate::error::{Error, Result};
use nalgebra::DMatrixView;
use statrs::function::gamma::ln_gamma;

/// The norm in which neighbour distances are measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EntropyNorm {
    /// `max_j |a_j − b_j|`; `V_d = 2^d`.
    #[default]
    Max,
    /// `√Σ_j (a_j − b_j)²`; `V_d = π^{d/2}/Γ(d/2 + 1)`.
    Euclidean,
}

impl EntropyNorm {
    /// `ln V_d`, the log-volume of the unit-radius ball in `d` dimensions.
    pub fn ln_unit_ball(self, d: usize) -> f64 {
        let d = d as f64;
        match self {
            EntropyNorm::Max => d * std::f64::consts::LN_2,
            EntropyNorm::Euclidean => 0.5 * d * std::f64::consts::PI.ln() - ln_gamma(0.5 * d + 1.0),
        }
    }
}

/// The Kozachenko–Leonenko entropy of the rows of `x` (`n × d`) in nats (module docs).
/// Errors: no columns, a non-finite value, `k = 0`, `k ≥ n`, or a zero k-th-neighbour distance.
pub fn kl_entropy(x: DMatrixView<'_, f64>, k: usize, norm: EntropyNorm) -> Result<f64> {
    let (n, d) = x.shape();
    if k == 0 {
        return Err(Error::param("entropy k", k, "must be at least 1"));
    }
    crate::estimators::check_inputs(x, x, 2)?;
    if k >= n {
        return Err(Error::param("entropy k", k, &format!("must be smaller than the number of rows ({n})")));
    }
    if n > u32::MAX as usize {
        return Err(Error::param("rows", n, "at most 2³² − 1"));
    }
    let data = row_major(x);
    let kn = match norm {
        EntropyNorm::Max => Norm::Max,
        EntropyNorm::Euclidean => Norm::SquaredEuclidean,
    };
    let radii: Vec<f64> = knn::knn_map(&data, d, k, kn, |_, dist, _| match norm {
        EntropyNorm::Max => dist,
        EntropyNorm::Euclidean => dist.sqrt(),
    });
    let mut sum_ln = 0.0;
    for (i, &r) in radii.iter().enumerate() {
        if r <= 0.0 {
            return Err(Error::param(
                "entropy data",
                format!("row {i}"),
                &format!("has {k} or more exact duplicates (k-th neighbour at distance 0); add tiny noise"),
            ));
        }
        sum_ln += r.ln();
    }
    let nf = n as f64;
    Ok(digamma(nf) - digamma(k as f64) + norm.ln_unit_ball(d) + d as f64 * sum_ln / nf)
}

/// The Kozachenko–Leonenko estimator with its settings, for callers that keep one around (e.g.
/// to supply `H(Y)` to Barber–Agakov).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct KozachenkoLeonenko {
    /// Neighbours (default 5).
    pub k: usize,
    /// Norm (default max-norm).
    pub norm: EntropyNorm,
}

impl Default for KozachenkoLeonenko {
    fn default() -> Self {
        KozachenkoLeonenko { k: super::DEFAULT_K, norm: EntropyNorm::Max }
    }
}

impl KozachenkoLeonenko {
    /// `Ĥ` of the rows of `x` in nats; see [`kl_entropy`].
    pub fn entropy(&self, x: DMatrixView<'_, f64>) -> Result<f64> {
        kl_entropy(x, self.k, self.norm)
    }
}
