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
/// and the MI is read off with NWJ at the critic shifted by one, which makes it tight at the JS
/// optimum:
///
/// ```text
/// value = I_NWJ(S + 1) = 1 + mean_i S_ii − mean_{i≠j} e^{S_ij}
/// ```
///
/// Poole et al.'s `js_lower_bound` evaluates `I_NWJ(S)` without the shift, which at the JS
/// optimum equals `I − 1/e`; the shifted form is still a valid lower bound for any `S` (it is
/// NWJ of the critic `f + 1`) and is unbiased at the optimum.
#[derive(Clone, Debug, Default)]
pub struct Js;

impl Js {
    /// A new JS bound.
    pub fn new() -> Self {
        Js
    }
}

impl<T: Real> Bound<T> for Js {
    fn name(&self) -> &'static str {
        "js"
    }
    fn label(&self) -> String {
        "JS".into()
    }
    fn kind(&self) -> BoundKind {
        BoundKind::Lower
    }
    fn evaluate(&mut self, scores: &DMatrix<T>, grad: &mut DMatrix<T>) -> Result<BoundValue> {
        // NWJ(S + 1) = TUBA(S) with a ≡ 1, i.e. log-baseline 0; its gradient is overwritten.
        let value = tuba_eval(scores, grad, |_| T::zero())?.value;
        let objective = js_objective_grad(scores, grad);
        Ok(BoundValue { value, objective })
    }
}
