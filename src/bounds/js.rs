//! Jensen–Shannon-trained critic evaluated with NWJ (Hjelm et al. 2019; Poole et al. 2019).

use super::tuba::tuba_eval;
use super::{Bound, BoundKind, BoundValue};
use crate::error::Result;
use crate::numerics::{sigmoid, softplus};
use crate::real::Real;
use nalgebra::DMatrix;

/// Writes the gradient of the f-GAN Jensen–Shannon objective
/// `J = −mean_i softplus(−S_ii) − mean_{i≠j} softplus(S_ij)` into `grad` and returns `J`:
/// `∂J/∂S_ii = σ(−S_ii)/N`, `∂J/∂S_ij = −σ(S_ij)/(N(N−1))`.
pub(crate) fn js_objective_grad<T: Real>(scores: &DMatrix<T>, grad: &mut DMatrix<T>) -> f64 {
    let n = scores.nrows();
    let s = scores.as_slice();
    let g = grad.as_mut_slice();
    let inv_n = T::of(1.0 / n as f64);
    let inv_pairs = T::of(1.0 / (n * (n - 1)) as f64);
    let (mut pos, mut neg) = (0.0f64, 0.0f64);
    for (j, (scol, gcol)) in s.chunks_exact(n).zip(g.chunks_exact_mut(n)).enumerate() {
        let mut col_neg = T::zero();
        for i in 0..n {
            let v = scol[i];
            if i == j {
                pos += softplus(-v).to_f64();
                gcol[i] = sigmoid(-v) * inv_n;
            } else {
                col_neg += softplus(v);
                gcol[i] = -sigmoid(v) * inv_pairs;
            }
        }
        neg += col_neg.to_f64();
    }
    -pos / n as f64 - neg / (n * (n - 1)) as f64
}

/// JS: the critic is trained with the f-GAN Jensen–Shannon objective
///
/// ```text
/// J(f) = E_p[−softplus(−f)] − E_{p(x)p(y)}[softplus(f)]      (maximised at f* = log p(y|x)/p(y))
/// ```
///
/// and the MI is read off with NWJ. Two read-offs are valid lower bounds for any critic; they
/// differ by a constant shift of the critic:
///
/// ```text
/// js          value = I_NWJ(S)     = TUBA(S − 1) = mean_i S_ii − e^{−1}·mean_{i≠j} e^{S_ij}
/// js-shifted  value = I_NWJ(S + 1) = TUBA(S)     = 1 + mean_i S_ii − mean_{i≠j} e^{S_ij}
/// ```
///
/// `js` (the default, [`Js::new`]) is the literature's read-off: Poole et al.'s
/// `js_lower_bound` and the SMILE repository evaluate `NWJ(f) = TUBA(f − 1)`, so its values,
/// variance and MSE are comparable with Poole et al.'s Fig. 2 and Song & Ermon's tables. At the
/// JS optimum it equals `I − 1/e` (biased low by 0.368 nats).
///
/// `js-shifted` ([`Js::shifted`]) is tight at the JS optimum (it equals `I` there) but its
/// partition term is `e` times larger, so that term's variance is `e² ≈ 7.4` times larger and it
/// collapses sooner as `I` grows. Both share the training objective and its gradient.
#[derive(Clone, Debug, Default)]
pub struct Js {
    shifted: bool,
}

impl Js {
    /// JS with the literature's read-off `I_NWJ(S)` (`js`).
    pub fn new() -> Self {
        Js { shifted: false }
    }

    /// JS with the shifted read-off `I_NWJ(S + 1)` (`js-shifted`), unbiased at the JS optimum.
    pub fn shifted() -> Self {
        Js { shifted: true }
    }

    /// Whether the read-off is the shifted `I_NWJ(S + 1)`.
    pub fn is_shifted(&self) -> bool {
        self.shifted
    }
}

impl<T: Real> Bound<T> for Js {
    fn name(&self) -> &'static str {
        if self.shifted { "js-shifted" } else { "js" }
    }
    fn label(&self) -> String {
        if self.shifted { "JS (NWJ(f+1))".into() } else { "JS".into() }
    }
    fn kind(&self) -> BoundKind {
        BoundKind::Lower
    }
    fn evaluate(&mut self, scores: &DMatrix<T>, grad: &mut DMatrix<T>) -> Result<BoundValue> {
        // NWJ(S) = TUBA(S) with log-baseline 1; NWJ(S + 1) = TUBA(S) with log-baseline 0. The
        // TUBA gradient written into `grad` is overwritten by the training objective's.
        let log_a = if self.shifted { T::zero() } else { T::one() };
        let value = tuba_eval(scores, grad, |_| log_a)?.value;
        let objective = js_objective_grad(scores, grad);
        Ok(BoundValue { value, objective })
    }
}
