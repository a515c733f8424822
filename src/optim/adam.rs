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
    /// Threads the update may use (not part of the state: results do not depend on it).
    #[serde(skip, default = "one")]
    threads: usize,
}

fn one() -> usize {
    1
}

impl<T: Real> Adam<T> {
    /// Fresh state for `n` parameters.
    pub fn new(config: AdamConfig, n: usize) -> Result<Self> {
        config.validate()?;
        Ok(Adam { config, m: vec![T::zero(); n], v: vec![T::zero(); n], t: 0, threads: 1 })
    }

    /// Lets the update use `compute.threads` threads (two halves of a long parameter vector
    /// run concurrently; bit-identical to one thread).
    pub fn set_compute(&mut self, compute: crate::compute::Compute) {
        self.set_threads(compute.threads);
    }

    /// Lets the update use `threads` threads.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// The threads the update may use.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.t
    }

    /// One update `θ ← θ − lr/(1 − β₁ᵗ) · m / (√v / √(1 − β₂ᵗ) + ε)` from the gradient of the
    /// loss (to minimise). Returns the gradient's global L2 norm before clipping (in `f64`);
    /// when it is not finite the parameters are left untouched and an error names it.
    pub fn step(&mut self, params: &mut [T], grads: &[T]) -> Result<f64> {
        self.update(params, grads, T::one())
    }

    /// The same update for maximising: `grads` is the gradient of an objective, and the step
    /// is the one [`Adam::step`] takes on its negation (bit for bit: the sign is folded into
    /// the update's gradient scale, which saves a pass negating the gradient).
    pub fn ascend(&mut self, params: &mut [T], grads: &[T]) -> Result<f64> {
        self.update(params, grads, -T::one())
    }

    fn update(&mut self, params: &mut [T], grads: &[T], sign: T) -> Result<f64> {
        if params.len() != self.m.len() || grads.len() != self.m.len() {
            return Err(Error::Shape {
                what: "Adam parameters/gradients".into(),
                expected: format!("length {}", self.m.len()),
                got: format!("{} / {}", params.len(), grads.len()),
            });
        }
        let norm = sum_of_squares(grads).sqrt();
        if !norm.is_finite() {
            return Err(Error::param("gradient norm", norm, "is not finite"));
        }
        let c = &self.config;
        let scale = sign
            * match c.max_grad_norm {
                Some(max) if norm > max => T::of(max / (norm + 1e-6)),
                _ => T::one(),
            };
        self.t += 1;
        let t = self.t as i32;
        let k = Coefficients {
            scale,
            b1: T::of(c.beta1),
            b2: T::of(c.beta2),
            eps: T::of(c.eps),
            wd: T::of(c.weight_decay),
            step_size: T::of(c.lr / (1.0 - c.beta1.powi(t))),
            inv_bc2_sqrt: T::of(1.0 / (1.0 - c.beta2.powi(t)).sqrt()),
        };
        update_parallel(self.threads, k, params, grads, &mut self.m, &mut self.v);
        Ok(norm)
    }
}

/// The per-step constants of the update.
#[derive(Clone, Copy)]
struct Coefficients<T> {
    scale: T,
    b1: T,
    b2: T,
    eps: T,
    wd: T,
    step_size: T,
    inv_bc2_sqrt: T,
}

/// `Σ g²` with 16 independent accumulators in `T` (vectorisable; an f64 running sum is not),
/// combined in `f64`. When that overflows `T` (huge but finite gradients), it is recomputed in
/// `f64`, so only a truly non-finite gradient reads as one.
fn sum_of_squares<T: Real>(g: &[T]) -> f64 {
    let mut acc = [T::zero(); 16];
    let chunks = g.chunks_exact(16);
    let rest = chunks.remainder();
    for c in chunks {
        for (a, &v) in acc.iter_mut().zip(c) {
            *a += v * v;
        }
    }
    let fast = acc.iter().map(|a| a.to_f64()).sum::<f64>() + rest.iter().map(|v| v.to_f64() * v.to_f64()).sum::<f64>();
    if fast.is_finite() { fast } else { g.iter().map(|v| v.to_f64() * v.to_f64()).sum() }
}

/// The element-wise update, as `torch.optim.Adam` computes it.
#[inline(always)]
fn update<T: Real>(k: Coefficients<T>, params: &mut [T], grads: &[T], m: &mut [T], v: &mut [T]) {
    let n = params.len();
    let (m, v, grads) = (&mut m[..n], &mut v[..n], &grads[..n]);
    let (one_b1, one_b2) = (T::one() - k.b1, T::one() - k.b2);
    // An indexed loop over equal-length slices: bounds checks vanish and it vectorises.
    for i in 0..n {
        let g = grads[i] * k.scale + k.wd * params[i];
        let mi = k.b1 * m[i] + one_b1 * g;
        let vi = k.b2 * v[i] + one_b2 * g * g;
        m[i] = mi;
        v[i] = vi;
        params[i] -= k.step_size * mi / (vi.sqrt() * k.inv_bc2_sqrt + k.eps);
    }
}

/// The update compiled for AVX2 + FMA, used when the CPU has them (8 lanes instead of SSE's 4;
/// results are identical: no operation is fused or reordered).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn update_avx2<T: Real>(k: Coefficients<T>, params: &mut [T], grads: &[T], m: &mut [T], v: &mut [T]) {
    update(k, params, grads, m, v)
}

/// The update of long parameter vectors in two halves, concurrently when the step may use two
/// threads ([`crate::compute::Compute`]): it is element-wise, so the result does not depend on the split,
/// and it is memory-bound (four arrays that do not fit in L2), so the second core's bandwidth helps.
fn update_parallel<T: Real>(
    threads: usize,
    k: Coefficients<T>,
    params: &mut [T],
    grads: &[T],
    m: &mut [T],
    v: &mut [T],
) {
    const MIN_SPLIT: usize = 1 << 14;
    if params.len() < MIN_SPLIT || threads < 2 {
        return update_dispatch(k, params, grads, m, v);
    }
    let half = (params.len() / 2).next_multiple_of(64);
    let (p0, p1) = params.split_at_mut(half);
    let (g0, g1) = grads.split_at(half);
    let (m0, m1) = m.split_at_mut(half);
    let (v0, v1) = v.split_at_mut(half);
    rayon::join(|| update_dispatch(k, p0, g0, m0, v0), || update_dispatch(k, p1, g1, m1, v1));
}

fn update_dispatch<T: Real>(k: Coefficients<T>, params: &mut [T], grads: &[T], m: &mut [T], v: &mut [T]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        unsafe { update_avx2(k, params, grads, m, v) };
        return;
    }
    update(k, params, grads, m, v)
}
