//! Distributions with known mutual information, sampled with a seeded generator.
//!
//! A [`Sampler`] draws `n` joint samples as two matrices with one **row per sample** (`x` is
//! `n × dim_x`, `y` is `n × dim_y`), knows its true MI in nats and, where it is available in
//! closed form, the optimal critic `log p(y|x) − log p(y)` as a score matrix in the crate's
//! convention (row = x sample, column = y sample).

pub mod files;
mod gaussian;
pub mod kinds;
pub mod repeats;
pub mod rules;
mod transform;

pub use gaussian::{CorrelatedGaussian, SplitGaussian, mi_to_rho, rho_to_mi};
pub use kinds::{KindNote, VarKind};
pub use transform::{Transform, Transformed};

pub use crate::rng::{Xoshiro, rng};

use crate::rng::Rng;
use nalgebra::DMatrix;

/// A joint distribution `p(x, y)` with known mutual information.
pub trait Sampler: Send + Sync {
    /// A short description with parameters.
    fn name(&self) -> String;
    /// Dimension of `x`.
    fn dim_x(&self) -> usize;
    /// Dimension of `y`.
    fn dim_y(&self) -> usize;
    /// The true mutual information `I(X; Y)` in nats.
    fn true_mi(&self) -> f64;

    /// Fills `x` (`n × dim_x`) and `y` (`n × dim_y`) with `n = x.nrows()` joint samples,
    /// without allocating.
    fn sample_into(&self, rng: &mut dyn Rng, x: &mut DMatrix<f64>, y: &mut DMatrix<f64>);

    /// Draws `n` joint samples.
    fn sample(&self, n: usize, rng: &mut dyn Rng) -> (DMatrix<f64>, DMatrix<f64>) {
        let mut x = DMatrix::zeros(n, self.dim_x());
        let mut y = DMatrix::zeros(n, self.dim_y());
        self.sample_into(rng, &mut x, &mut y);
        (x, y)
    }

    /// The optimal critic `S_ij = log p(y_j | x_i) − log p(y_j)` for all pairs, when known.
    fn optimal_critic(&self, _x: &DMatrix<f64>, _y: &DMatrix<f64>) -> Option<DMatrix<f64>> {
        None
    }

    /// The differential entropy `H(Y)` in nats, when known (for Barber–Agakov).
    fn entropy_y(&self) -> Option<f64> {
        None
    }

    /// The marginal log-density `log p(y_j)` of each row of `y`, when known (a baseline for
    /// TUBA and I_α).
    fn log_marginal_y(&self, _y: &DMatrix<f64>) -> Option<Vec<f64>> {
        None
    }
}
