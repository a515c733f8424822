//! Bounds on the log-density matrix of a conditional model `q(y|x)`: CLUB, CLUB-sample and the
//! leave-one-out upper bound, and the Barber–Agakov lower bound.
//!
//! Here the score matrix is `S_ij = log q(y_j | x_i)` (row = x, column = y, as everywhere), e.g.
//! from [`crate::critics::GaussianConditional`]. All four train `q` by maximum likelihood: the
//! objective is `mean_i S_ii = mean_i log q(y_i | x_i)`, with gradient `δ_ij / N`.

use super::{Bound, BoundKind, BoundValue, prepare};
use crate::error::{Error, Result};
use crate::numerics::log_mean_exp;
use crate::real::Real;
use crate::rng::{Stream, shuffle};
use nalgebra::DMatrix;

/// Writes the log-likelihood gradient `δ_ij / N` and returns `mean_i S_ii`.
fn likelihood_grad<T: Real>(s: &[T], g: &mut [T], n: usize) -> f64 {
    g.fill(T::zero());
    let inv_n = T::of(1.0 / n as f64);
    let mut ll = 0.0;
    for i in 0..n {
        g[i * n + i] = inv_n;
        ll += s[i * n + i].to_f64();
    }
    ll / n as f64
}

/// CLUB, the contrastive log-ratio upper bound (Cheng et al. 2020):
///
/// ```text
/// I_CLUB = mean_i log q(y_i|x_i) − mean_{i,j} log q(y_j|x_i) = mean_i S_ii − mean_{i,j} S_ij
/// ```
///
/// An upper bound on I when `q(y|x) = p(y|x)`, and when `q` is close enough to `p` that
/// `KL(p(x,y) ‖ q(x,y)) ≤ KL(p(x)p(y) ‖ q̃(x,y))` (Cheng et al., Theorem 3.2).
#[derive(Clone, Debug, Default)]
pub struct Club;

impl<T: Real> Bound<T> for Club {
    fn name(&self) -> &'static str {
        "club"
    }
    fn label(&self) -> String {
        "CLUB".into()
    }
    fn kind(&self) -> BoundKind {
        BoundKind::UpperIfExact
    }
    fn evaluate(&mut self, scores: &DMatrix<T>, grad: &mut DMatrix<T>) -> Result<BoundValue> {
        let n = prepare(scores, grad)?;
        let all = scores.iter().map(|v| v.to_f64()).sum::<f64>() / (n * n) as f64;
        let ll = likelihood_grad(scores.as_slice(), grad.as_mut_slice(), n);
        Ok(BoundValue { value: ll - all, objective: ll })
    }
}

/// CLUB-sample (Cheng et al. 2020): one random negative per row,
/// `mean_i [S_ii − S_{i,π(i)}]` for a fresh uniform permutation π each evaluation — an unbiased
/// estimate of CLUB with O(N) terms. The permutation comes from a seeded generator and a
/// counter (its checkpointed state).
#[derive(Clone, Debug)]
pub struct ClubSample {
    seed: u64,
    counter: u64,
    perm: Vec<usize>,
}

impl ClubSample {
    /// CLUB-sample with permutations drawn from `seed`.
    pub fn new(seed: u64) -> Self {
        ClubSample { seed, counter: 0, perm: Vec::new() }
    }
}

impl<T: Real> Bound<T> for ClubSample {
    fn name(&self) -> &'static str {
        "club-sample"
    }
    fn label(&self) -> String {
        "CLUB-sample".into()
    }
    fn kind(&self) -> BoundKind {
        BoundKind::UpperIfExact
    }
    fn evaluate(&mut self, scores: &DMatrix<T>, grad: &mut DMatrix<T>) -> Result<BoundValue> {
        let n = prepare(scores, grad)?;
        if self.perm.len() != n {
            self.perm = (0..n).collect();
        }
        let mut g = Stream::Call(self.counter).rng(self.seed);
        self.counter += 1;
        shuffle(&mut self.perm, &mut g);
        let s = scores.as_slice();
        let neg = (0..n).map(|i| s[self.perm[i] * n + i].to_f64()).sum::<f64>() / n as f64;
        let ll = likelihood_grad(s, grad.as_mut_slice(), n);
        Ok(BoundValue { value: ll - neg, objective: ll })
    }
    fn state(&self) -> Vec<f64> {
        vec![self.counter as f64]
    }
    fn restore(&mut self, state: &[f64]) -> Result<()> {
        match state {
            [c] if *c >= 0.0 && c.fract() == 0.0 => {
                self.counter = *c as u64;
                Ok(())
            }
            _ => Err(Error::Format {
                context: "club-sample state".into(),
                msg: format!("expected one counter, got {state:?}"),
            }),
        }
    }
}

/// The leave-one-out upper bound (Poole et al. 2019, eq. 13 with the mixture marginal):
///
/// ```text
/// I_L1Out = mean_i [ log q(y_i|x_i) − log (1/(N−1)) Σ_{j≠i} q(y_i|x_j) ]
///         = mean_i [ S_ii − log mean_{j≠i} e^{S_ji} ]
/// ```
///
/// An upper bound in expectation when `q = p` (the mixture `(1/(N−1))Σ_j p(y|x_j)` replaces
/// `p(y)`); it can exceed `log(N−1) +` the conditional's own spread only through `q`.
#[derive(Clone, Debug, Default)]
pub struct LeaveOneOut;

impl<T: Real> Bound<T> for LeaveOneOut {
    fn name(&self) -> &'static str {
        "l1out"
    }
    fn label(&self) -> String {
        "L1Out".into()
    }
    fn kind(&self) -> BoundKind {
        BoundKind::UpperIfExact
    }
    fn evaluate(&mut self, scores: &DMatrix<T>, grad: &mut DMatrix<T>) -> Result<BoundValue> {
        let n = prepare(scores, grad)?;
        let s = scores.as_slice();
        let mut marg = 0.0;
        for (i, col) in s.chunks_exact(n).enumerate() {
            // Column i holds q(y_i | x_j) over rows j; leave row i out.
            marg += log_mean_exp(col.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, v)| v.to_f64()));
        }
        let ll = likelihood_grad(s, grad.as_mut_slice(), n);
        Ok(BoundValue { value: ll - marg / n as f64, objective: ll })
    }
}

/// The Barber–Agakov lower bound (Barber & Agakov 2003):
///
/// ```text
/// I_BA = H(Y) + E_p[log q(y|x)] = H(Y) + mean_i S_ii      ≤ I(X; Y)
/// ```
///
/// with equality at `q = p(y|x)`. `H(Y)` must be known: analytic for the built-in tasks
/// ([`crate::data::Sampler::entropy_y`]); for other data pass an estimate from elsewhere
/// (e.g. a k-NN entropy estimator) as `ba:<nats>`.
#[derive(Clone, Debug)]
pub struct BarberAgakov {
    entropy_y: f64,
}

impl BarberAgakov {
    /// BA with the marginal entropy `H(Y)` in nats.
    pub fn new(entropy_y: f64) -> Result<Self> {
        if !entropy_y.is_finite() {
            return Err(Error::param("H(Y)", entropy_y, "must be finite"));
        }
        Ok(BarberAgakov { entropy_y })
    }
}

impl<T: Real> Bound<T> for BarberAgakov {
    fn name(&self) -> &'static str {
        "ba"
    }
    fn label(&self) -> String {
        "BA".into()
    }
    fn kind(&self) -> BoundKind {
        BoundKind::Lower
    }
    fn evaluate(&mut self, scores: &DMatrix<T>, grad: &mut DMatrix<T>) -> Result<BoundValue> {
        let n = prepare(scores, grad)?;
        let ll = likelihood_grad(scores.as_slice(), grad.as_mut_slice(), n);
        Ok(BoundValue { value: self.entropy_y + ll, objective: ll })
    }
}
