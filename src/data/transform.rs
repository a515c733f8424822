//! Element-wise invertible maps that leave mutual information unchanged.
//!
//! MI is invariant under any injective differentiable map applied to `x` alone or to `y` alone:
//! with `x' = φ(x)`, `p(y|x')/p(y) = p(y|x)/p(y)` because the Jacobian `|φ'|` cancels between
//! `p(x', y)` and `p(x')`. A strictly monotone element-wise map is such a bijection, so a
//! transformed task keeps its base task's `true_mi`, and its optimal critic is the base critic
//! evaluated at the inverse-mapped samples. The transforms make the task harder for a critic
//! (heavier tails, non-linear dependence) without changing the answer.

use super::Sampler;
use crate::rng::Rng;
use nalgebra::DMatrix;

/// A strictly monotone element-wise map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Transform {
    /// `v ↦ v³` (inverse: the real cube root), as in Poole et al. 2019's cubic benchmark.
    Cubic,
    /// `v ↦ asinh(v)` (inverse: `sinh`), compressing the tails.
    Asinh,
}

impl Transform {
    /// The forward map.
    pub fn apply(self, v: f64) -> f64 {
        match self {
            Transform::Cubic => v * v * v,
            Transform::Asinh => v.asinh(),
        }
    }

    /// The inverse map.
    pub fn invert(self, v: f64) -> f64 {
        match self {
            Transform::Cubic => v.cbrt(),
            Transform::Asinh => v.sinh(),
        }
    }
}

/// A base task with element-wise transforms on `x` and/or `y`; `true_mi` is the base task's.
#[derive(Clone, Debug)]
pub struct Transformed<S> {
    base: S,
    x_map: Option<Transform>,
    y_map: Option<Transform>,
}

impl<S: Sampler> Transformed<S> {
    /// Applies `x_map` to `x` and `y_map` to `y` (either may be `None`).
    pub fn new(base: S, x_map: Option<Transform>, y_map: Option<Transform>) -> Self {
        Transformed { base, x_map, y_map }
    }

    /// The Poole et al. cubic task: `y ↦ y³`.
    pub fn cubic_y(base: S) -> Self {
        Self::new(base, None, Some(Transform::Cubic))
    }

    fn map(m: &DMatrix<f64>, t: Option<Transform>, inverse: bool) -> DMatrix<f64> {
        match t {
            None => m.clone(),
            Some(t) => m.map(|v| if inverse { t.invert(v) } else { t.apply(v) }),
        }
    }
}

impl<S: Sampler> Sampler for Transformed<S> {
    fn name(&self) -> String {
        let tag = |t: Option<Transform>| t.map_or("id".to_string(), |t| format!("{t:?}").to_lowercase());
        format!("{} ∘ (x: {}, y: {})", self.base.name(), tag(self.x_map), tag(self.y_map))
    }
    fn dim_x(&self) -> usize {
        self.base.dim_x()
    }
    fn dim_y(&self) -> usize {
        self.base.dim_y()
    }
    fn true_mi(&self) -> f64 {
        self.base.true_mi()
    }

    fn entropy_y(&self) -> Option<f64> {
        // A map of y changes H(Y) by E log|φ'(y)|; a map of x alone leaves it.
        if self.y_map.is_none() { self.base.entropy_y() } else { None }
    }

    fn sample_into(&self, rng: &mut dyn Rng, x: &mut DMatrix<f64>, y: &mut DMatrix<f64>) {
        self.base.sample_into(rng, x, y);
        if let Some(t) = self.x_map {
            x.apply(|v| *v = t.apply(*v));
        }
        if let Some(t) = self.y_map {
            y.apply(|v| *v = t.apply(*v));
        }
    }

    fn optimal_critic(&self, x: &DMatrix<f64>, y: &DMatrix<f64>) -> Option<DMatrix<f64>> {
        let bx = Self::map(x, self.x_map, true);
        let by = Self::map(y, self.y_map, true);
        self.base.optimal_critic(&bx, &by)
    }
}
