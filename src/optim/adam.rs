//! Adam (Kingma & Ba 2015) with bias correction, optional L2 weight decay and global-norm
//! gradient clipping; the same arithmetic as `torch.optim.Adam`.

use crate::error::{Error, Result};
use crate::real::Real;
use serde::{Deserialize, Serialize};

/// Adam's hyper-parameters.
///
/// `Default` matches common practice and the Poole et al. benchmark: `lr = 5e-4`,
/// `β₁ = 0.9`, `β₂ = 0.999`, `ε = 1e-8`, no weight decay, no clipping.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AdamConfig {
    /// Learning rate.
    pub lr: f64,
    /// First-moment decay β₁.
    pub beta1: f64,
    /// Second-moment decay β₂.
    pub beta2: f64,
    /// ε added to the denominator.
    pub eps: f64,
    /// L2 weight decay λ (added to the gradient as `λ·θ`, as `torch.optim.Adam` does).
    pub weight_decay: f64,
    /// Clip the gradient to this global L2 norm before the update (as
    /// `torch.nn.utils.clip_grad_norm_`), if set.
    pub max_grad_norm: Option<f64>,
}

impl Default for AdamConfig {
    fn default() -> Self {
        AdamConfig { lr: 5e-4, beta1: 0.9, beta2: 0.999, eps: 1e-8, weight_decay: 0.0, max_grad_norm: None }
    }
}

impl AdamConfig {
    /// Checks the ranges.
    pub fn validate(&self) -> Result<()> {
        let ok = |c: bool, name: &str, v: f64, why: &str| if c { Ok(()) } else { Err(Error::param(name, v, why)) };
        ok(self.lr > 0.0 && self.lr.is_finite(), "learning rate", self.lr, "must be positive and finite")?;
        ok((0.0..1.0).contains(&self.beta1), "beta1", self.beta1, "must lie in [0, 1)")?;
        ok((0.0..1.0).contains(&self.beta2), "beta2", self.beta2, "must lie in [0, 1)")?;
        ok(self.eps > 0.0, "eps", self.eps, "must be positive")?;
        ok(self.weight_decay >= 0.0, "weight decay", self.weight_decay, "must be non-negative")?;
        if let Some(c) = self.max_grad_norm {
            ok(c > 0.0, "max grad norm", c, "must be positive")?;
        }
        Ok(())
    }
}

/// Adam's state: moments and step count, for one flat parameter vector.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Adam<T> {
    /// Hyper-parameters.
    pub config: AdamConfig,
    m: Vec<T>,
    v: Vec<T>,
    t: u64,
}

impl<T: Real> Adam<T> {
    /// Fresh state for `n` parameters.
    pub fn new(config: AdamConfig, n: usize) -> Result<Self> {
        config.validate()?;
        Ok(Adam { config, m: vec![T::zero(); n], v: vec![T::zero(); n], t: 0 })
    }

    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.t
    }

    /// One update `θ ← θ − lr/(1 − β₁ᵗ) · m / (√v / √(1 − β₂ᵗ) + ε)` from the gradient of the
    /// loss (to minimise). Returns the gradient's global L2 norm before clipping (in `f64`);
    /// when it is not finite the parameters are left untouched and an error names it.
    pub fn step(&mut self, params: &mut [T], grads: &[T]) -> Result<f64> {
        if params.len() != self.m.len() || grads.len() != self.m.len() {
            return Err(Error::Shape {
                what: "Adam parameters/gradients".into(),
                expected: format!("length {}", self.m.len()),
                got: format!("{} / {}", params.len(), grads.len()),
            });
        }
        let norm = grads.iter().map(|g| g.to_f64() * g.to_f64()).sum::<f64>().sqrt();
        if !norm.is_finite() {
            return Err(Error::param("gradient norm", norm, "is not finite"));
        }
        let c = &self.config;
        let scale = match c.max_grad_norm {
            Some(max) if norm > max => T::of(max / (norm + 1e-6)),
            _ => T::one(),
        };
        self.t += 1;
        let t = self.t as i32;
        let bc1 = 1.0 - c.beta1.powi(t);
        let bc2_sqrt = T::of((1.0 - c.beta2.powi(t)).sqrt());
        let step_size = T::of(c.lr / bc1);
        let (b1, b2, eps, wd) = (T::of(c.beta1), T::of(c.beta2), T::of(c.eps), T::of(c.weight_decay));
        let (one_b1, one_b2) = (T::one() - b1, T::one() - b2);
        let n = params.len();
        let (m, v, grads) = (&mut self.m[..n], &mut self.v[..n], &grads[..n]);
        let inv_bc2_sqrt = T::one() / bc2_sqrt;
        // An indexed loop over equal-length slices: bounds checks vanish and it vectorises.
        for i in 0..n {
            let g = grads[i] * scale + wd * params[i];
            let mi = b1 * m[i] + one_b1 * g;
            let vi = b2 * v[i] + one_b2 * g * g;
            m[i] = mi;
            v[i] = vi;
            params[i] -= step_size * mi / (vi.sqrt() * inv_bc2_sqrt + eps);
        }
        Ok(norm)
    }
}
