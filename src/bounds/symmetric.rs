//! A bound and its mirror image, averaged: `½ (B(S) + B(Sᵀ))`.
//!
//! MI is symmetric, `I(X; Y) = I(Y; X)`. Transposing the score matrix exchanges the roles of x
//! and y (row `j` of `Sᵀ` scores `y_j` against every `x_i`), so `B(Sᵀ)` is the same bound of
//! `I(Y; X)` for the critic `(y, x) ↦ f(x, y)`, and for a lower bound `B` both terms, hence their
//! mean, are lower bounds on `I(X; Y)`. For InfoNCE the mean is the symmetric loss of CLIP
//! (Radford et al. 2021): each batch classifies every `y` among the `x`s as well as every `x`
//! among the `y`s, twice the comparisons from the same scores, and the critics both terms agree
//! on are `log p(x, y)/(p(x)p(y)) + const` (InfoNCE alone leaves any `+ c(x)` free).
//!
//! ```text
//! value = ½ (B(S).value + B(Sᵀ).value),   ∂/∂S = ½ (G(S) + G(Sᵀ)ᵀ)
//! ```

use super::{Bound, BoundKind, BoundValue};
use crate::error::{Error, Result};
use crate::real::Real;
use nalgebra::DMatrix;

/// `½ (B(S) + B(Sᵀ))` for square score matrices.
pub struct Symmetrised<T: Real> {
    inner: Box<dyn Bound<T>>,
    transposed: DMatrix<T>,
    grad_t: DMatrix<T>,
}

impl<T: Real> Symmetrised<T> {
    /// The symmetrised form of `inner` (a stateless bound: a moving average such as MINE's
    /// would see two different batches per step).
    pub fn new(inner: Box<dyn Bound<T>>) -> Self {
        Symmetrised { inner, transposed: DMatrix::zeros(0, 0), grad_t: DMatrix::zeros(0, 0) }
    }
}

impl<T: Real> Bound<T> for Symmetrised<T> {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn label(&self) -> String {
        format!("{} (symmetrised)", self.inner.label())
    }

    fn kind(&self) -> BoundKind {
        self.inner.kind()
    }

    fn evaluate(&mut self, scores: &DMatrix<T>, grad: &mut DMatrix<T>) -> Result<BoundValue> {
        let (r, c) = scores.shape();
        if r != c {
            return Err(Error::Shape {
                what: "score matrix of a symmetrised bound".into(),
                expected: "square".into(),
                got: format!("{r} × {c}"),
            });
        }
        if self.transposed.shape() != (r, c) {
            self.transposed = DMatrix::zeros(r, c);
        }
        scores.transpose_to(&mut self.transposed);
        let a = self.inner.evaluate(scores, grad)?;
        let b = self.inner.evaluate(&self.transposed, &mut self.grad_t)?;
        let half = T::of(0.5);
        for j in 0..c {
            for i in 0..r {
                grad[(i, j)] = half * (grad[(i, j)] + self.grad_t[(j, i)]);
            }
        }
        Ok(BoundValue { value: 0.5 * (a.value + b.value), objective: 0.5 * (a.objective + b.objective) })
    }
}
