//! Noise-contrastive estimation as a binary classification task (Gutmann & Hyvärinen 2010;
//! Mnih & Teh 2012).

use super::{Bound, BoundKind, BoundValue, check_len, prepare};
use crate::error::{Error, Result};
use crate::numerics::{sigmoid, softplus};
use crate::real::Real;
use nalgebra::DMatrix;

/// The binary NCE loss of one positive `w₀` and `k` noise samples `w₁..w_k`, with model scores
/// `s` (unnormalised log-densities) and known noise log-probabilities `ln q(w)`:
///
/// ```text
/// L = −log σ(s₀ − log(k·q(w₀))) − Σ_{i=1..k} log(1 − σ(s_i − log(k·q(w_i))))
///   = softplus(−(s₀ − c₀)) + Σ_i softplus(s_i − c_i),      c = ln k + ln q(w)
/// ```
///
/// Returns `(L, ∂L/∂s₀)` and writes `∂L/∂s_i = σ(s_i − c_i)` into `grad_noise`. At the optimum
/// `s = ln p_data`, self-normalised.
pub fn nce_binary_loss(
    s_pos: f64,
    log_q_pos: f64,
    s_noise: &[f64],
    log_q_noise: &[f64],
    grad_noise: &mut [f64],
) -> Result<(f64, f64)> {
    let k = s_noise.len();
    if k == 0 {
        return Err(Error::param("NCE noise samples", 0, "need k ≥ 1"));
    }
    check_len("NCE noise log-probabilities", log_q_noise.len(), k)?;
    check_len("NCE noise gradient", grad_noise.len(), k)?;
    let ln_k = (k as f64).ln();
    let z0 = s_pos - ln_k - log_q_pos;
    let mut loss = softplus(-z0);
    for ((&s, &lq), g) in s_noise.iter().zip(log_q_noise).zip(grad_noise.iter_mut()) {
        let z = s - ln_k - lq;
        loss += softplus(z);
        *g = sigmoid(z);
    }
    Ok((loss, -sigmoid(-z0)))
}

/// Binary NCE on a score matrix: row `i` has the positive `S_ii` and the `k = N − 1` noise
/// samples `S_ij` (`j ≠ i`), with noise log-probabilities `ln q(y_j)` given per column. The
/// objective is the mean negative loss of [`nce_binary_loss`] over rows:
///
/// ```text
/// objective = −(1/N) Σ_i [ softplus(−(S_ii − c_i)) + Σ_{j≠i} softplus(S_ij − c_j) ],
/// c_j = ln(N − 1) + ln q(y_j)
/// ```
///
/// This is a training objective, not an MI bound ([`BoundKind::Objective`]); its value is the
/// objective itself. With `S` the log of the normalised model density `p(y|x)`, `S − ln q` is a
/// log density ratio usable as an MI critic.
#[derive(Clone, Debug)]
pub struct Nce<T: Real = f32> {
    /// `ln q(y_j)` per column; set before each evaluation.
    pub log_noise: Vec<T>,
}

impl<T: Real> Nce<T> {
    /// NCE with the given per-column noise log-probabilities.
    pub fn new(log_noise: Vec<T>) -> Self {
        Nce { log_noise }
    }
}

impl<T: Real> Bound<T> for Nce<T> {
    fn name(&self) -> &'static str {
        "nce"
    }
    fn label(&self) -> String {
        "NCE".into()
    }
    fn kind(&self) -> BoundKind {
        BoundKind::Objective
    }
    fn evaluate(&mut self, scores: &DMatrix<T>, grad: &mut DMatrix<T>) -> Result<BoundValue> {
        let n = prepare(scores, grad)?;
        check_len("NCE noise log-probabilities", self.log_noise.len(), n)?;
        let ln_k = T::of(((n - 1) as f64).ln());
        let inv_n = T::of(1.0 / n as f64);
        let mut loss = 0.0f64;
        let s = scores.as_slice();
        let g = grad.as_mut_slice();
        for (j, (scol, gcol)) in s.chunks_exact(n).zip(g.chunks_exact_mut(n)).enumerate() {
            let c = ln_k + self.log_noise[j];
            let mut col = T::zero();
            for i in 0..n {
                let z = scol[i] - c;
                if i == j {
                    col += softplus(-z);
                    gcol[i] = sigmoid(-z) * inv_n;
                } else {
                    col += softplus(z);
                    gcol[i] = -sigmoid(z) * inv_n;
                }
            }
            loss += col.to_f64();
        }
        let objective = -loss / n as f64;
        Ok(BoundValue { value: objective, objective })
    }
}
