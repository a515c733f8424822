//! InfoNCE / CPC (van den Oord et al. 2018).

use super::{Bound, BoundKind, BoundValue, prepare_rect};
use crate::error::Result;
use crate::numerics::{diag_mean, exp_in_place, row_max};
use crate::real::Real;
use nalgebra::DMatrix;

/// InfoNCE lower bound
///
/// ```text
/// I_NCE = log N + (1/N) Σ_i [ S_ii − log Σ_j e^{S_ij} ]   ≤ min(I(X;Y), log N)
/// ∂I_NCE/∂S_ij = (δ_ij − softmax_j(S_i·)_j) / N
/// ```
///
/// Low variance, but it can never exceed `log N`; tight when `I ≪ log N` and the critic is
/// `log p(y|x) + c(x)`.
///
/// It also accepts an `N × M` matrix with `M > N`: the extra columns are further negatives (a
/// MoCo queue of past keys, [`crate::critics::Moco`]); the value is then
/// `log M + mean_i [S_ii − log Σ_j e^{S_ij}] ≤ log M`. It is a lower bound on `I` only if the
/// extra columns are scored by the same critic as the batch's (exchangeable candidates); a MoCo
/// queue of keys from earlier encoder states is not, and the value is then an estimate.
#[derive(Clone, Debug, Default)]
pub struct InfoNce<T: Real = f32> {
    row_max: Vec<T>,
    row_sum: Vec<T>,
}

impl<T: Real> InfoNce<T> {
    /// A new InfoNCE bound.
    pub fn new() -> Self {
        InfoNce { row_max: Vec::new(), row_sum: Vec::new() }
    }
}

impl<T: Real> Bound<T> for InfoNce<T> {
    fn name(&self) -> &'static str {
        "infonce"
    }
    fn label(&self) -> String {
        "InfoNCE".into()
    }
    fn kind(&self) -> BoundKind {
        BoundKind::Lower
    }

    fn evaluate(&mut self, scores: &DMatrix<T>, grad: &mut DMatrix<T>) -> Result<BoundValue> {
        let n = prepare_rect(scores, grad)?;
        let m = scores.ncols();
        self.row_max.resize(n, T::zero());
        self.row_sum.resize(n, T::zero());
        let s = scores.as_slice();
        let g = grad.as_mut_slice();
        row_max(s, n, &mut self.row_max);
        self.row_sum.iter_mut().for_each(|v| *v = T::zero());
        // g_ij = e^{S_ij − m_i}; row sums accumulate column by column (contiguous reads), one
        // pass per column while it is in L1.
        for (scol, gcol) in s.chunks_exact(n).zip(g.chunks_exact_mut(n)) {
            for i in 0..n {
                gcol[i] = scol[i] - self.row_max[i];
            }
            exp_in_place(gcol);
            self.row_sum.iter_mut().zip(gcol.iter()).for_each(|(r, &e)| *r += e);
        }
        let mut lse_mean = 0.0f64;
        for i in 0..n {
            lse_mean += self.row_max[i].to_f64() + self.row_sum[i].to_f64().ln();
        }
        lse_mean /= n as f64;
        let value = (m as f64).ln() + diag_mean(s, n) - lse_mean;
        // ∂/∂S_ij = (δ_ij − e_ij / Σ_j e_ij) / N; row_sum now holds −1/(N·Σ).
        let inv_n = T::of(1.0 / n as f64);
        for v in self.row_sum.iter_mut() {
            *v = -inv_n / *v;
        }
        for gcol in g.chunks_exact_mut(n) {
            for (gi, &w) in gcol.iter_mut().zip(&self.row_sum) {
                *gi *= w;
            }
        }
        for i in 0..n {
            g[i * n + i] += inv_n;
        }
        Ok(BoundValue { value, objective: value })
    }
}
