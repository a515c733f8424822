//! SMILE (Song & Ermon 2020).

use super::js::js_objective_grad;
use super::{Bound, BoundKind, BoundValue, prepare};
use crate::error::{Error, Result};
use crate::numerics::{diag_mean, offdiag_log_mean_exp};
use crate::real::Real;
use nalgebra::DMatrix;

/// SMILE(τ): a critic trained with the Jensen–Shannon objective (see [`super::Js`]), read off
/// with DV whose partition term uses scores clipped to `[−τ, τ]`:
///
/// ```text
/// value = mean_i S_ii − log mean_{i≠j} e^{clamp(S_ij, −τ, τ)}
/// gradient: that of J(f) = E_p[−softplus(−f)] − E_q[softplus(f)]
/// ```
///
/// Clipping bounds the variance of the partition estimate by `(e^τ − e^{−τ})²/4`-order terms
/// at the cost of a bias; `τ = ∞` is DV on a JS-trained critic. Not a strict bound for finite τ.
#[derive(Clone, Debug)]
pub struct Smile {
    tau: f64,
}

impl Smile {
    /// SMILE with clip `τ > 0` (Song & Ermon use τ ∈ {1, 5, ∞}).
    pub fn new(tau: f64) -> Result<Self> {
        if tau.is_nan() || tau <= 0.0 {
            return Err(Error::param("smile tau", tau, "must be positive"));
        }
        Ok(Smile { tau })
    }

    /// The clip τ.
    pub fn tau(&self) -> f64 {
        self.tau
    }
}

impl<T: Real> Bound<T> for Smile {
    fn name(&self) -> &'static str {
        "smile"
    }
    fn label(&self) -> String {
        if self.tau.is_finite() { format!("SMILE(τ={})", self.tau) } else { "SMILE(τ=∞)".into() }
    }
    fn kind(&self) -> BoundKind {
        BoundKind::Estimate
    }
    fn evaluate(&mut self, scores: &DMatrix<T>, grad: &mut DMatrix<T>) -> Result<BoundValue> {
        let n = prepare(scores, grad)?;
        let s = scores.as_slice();
        let tau = T::of(self.tau.min(T::max_finite().to_f64()));
        let (lme, _) = offdiag_log_mean_exp(s, n, |v, _| v.max(-tau).min(tau));
        let value = diag_mean(s, n) - lme;
        let objective = js_objective_grad(scores, grad);
        Ok(BoundValue { value, objective })
    }
}
