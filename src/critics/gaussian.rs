//! The Gaussian conditional critic `q(y|x) = N(μ(x), diag σ²(x))` used by CLUB, the
//! leave-one-out and variational upper bounds and Barber–Agakov.

use super::mlp::{Activation, ContiguousSlice, Init, Mlp, MlpCache, MlpScratch, MlpSpec};
use super::{Critic, check_backward, check_inputs, transpose_into};
use crate::compute::Compute;
use crate::error::{Error, Result};
use crate::gemm::{Op, view, view_mut};
use crate::numerics::{sigmoid, softplus};
use crate::real::Real;
use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

const LN_2PI: f64 = 1.837_877_066_409_345_5;

/// How `log σ²(x)` is produced.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Variance {
    /// Learned per input, squashed smoothly into `[lo, hi]`:
    /// `log σ² = lo + softplus(v − lo) − softplus(v − hi)` — the identity in the middle, flat at
    /// the ends, so the likelihood stays finite (the reference CLUB code's unbounded or
    /// tanh-saturated log-variance gives NaN or −1e6 log-likelihoods).
    Learned {
        /// Lower limit of `log σ²`.
        lo: f64,
        /// Upper limit of `log σ²`.
        hi: f64,
    },
    /// A fixed `log σ²` for every input (CLUB-mean uses 0: unit variance).
    Fixed {
        /// The log-variance.
        log_var: f64,
    },
}

impl Default for Variance {
    fn default() -> Self {
        Variance::Learned { lo: -10.0, hi: 10.0 }
    }
}

/// `q(y|x) = N(μ(x), diag σ²(x))` with an MLP `x → (μ, v)`; its score matrix is the full
/// normalised log-density
///
/// ```text
/// S_ij = log q(y_j | x_i) = −(d/2) log 2π − ½ Σ_k [ log σ²_ik + (y_jk − μ_ik)² / σ²_ik ]
/// ```
///
/// (row = x, column = y: the crate's convention), computed with two products:
/// `S = c·1ᵀ − Wᵀ(Y∘Y) + 2 (W∘M)ᵀ Y`, `W = 1/(2σ²)`, `c_i = −(d/2) log 2π − ½Σ log σ² − Σ wμ²`.
/// Trained by maximum likelihood (the objective of every upper bound in [`crate::bounds`]).
#[derive(Clone, Debug)]
pub struct GaussianConditional<T: Real> {
    cx: Compute,
    mlp: Mlp,
    dy: usize,
    variance: Variance,
    xt: Vec<T>,
    yt: Vec<T>,
    y2: Vec<T>,
    cache: MlpCache<T>,
    scratch: MlpScratch<T>,
    mu: Vec<T>,
    lv: Vec<T>,
    w: Vec<T>,
    wm: Vec<T>,
    c: Vec<T>,
    a: Vec<T>,
    b: Vec<T>,
    r: Vec<T>,
    d_out: Vec<T>,
    shape: (usize, usize),
}

impl<T: Real> GaussianConditional<T> {
    /// An MLP `dim_x → hidden… → 2·dim_y` (`dim_y` outputs with a fixed variance).
    pub fn new(
        dim_x: usize,
        dim_y: usize,
        hidden: &[usize],
        activation: Activation,
        variance: Variance,
    ) -> Result<Self> {
        if let Variance::Learned { lo, hi } = variance
            && !(lo < hi && lo.is_finite() && hi.is_finite())
        {
            return Err(Error::param("log-variance range", format!("[{lo}, {hi}]"), "needs finite lo < hi"));
        }
        let out = if matches!(variance, Variance::Learned { .. }) { 2 * dim_y } else { dim_y };
        let mlp = Mlp::new(MlpSpec { input: dim_x, hidden: hidden.to_vec(), output: out, activation }, 0);
        let e = Vec::new;
        Ok(GaussianConditional {
            cx: Compute::default(),
            mlp,
            dy: dim_y,
            variance,
            xt: e(),
            yt: e(),
            y2: e(),
            cache: MlpCache::default(),
            scratch: MlpScratch::default(),
            mu: e(),
            lv: e(),
            w: e(),
            wm: e(),
            c: e(),
            a: e(),
            b: e(),
            r: e(),
            d_out: e(),
            shape: (0, 0),
        })
    }

    /// `μ(x_i)` of the last forward pass (`dim_y × N`, column per sample).
    pub fn mean(&self) -> &[T] {
        &self.mu
    }

    /// `log σ²(x_i)` of the last forward pass (`dim_y × N`).
    pub fn log_var(&self) -> &[T] {
        &self.lv
    }

    /// The variational upper bound of the last batch, `mean_i KL(q(·|x_i) ‖ r)` in closed form
    /// for a diagonal Gaussian `r = N(m, diag s²)`; `None` for `r` uses the moment-matched
    /// Gaussian of the batch's aggregate `q` (mean `E μ`, variance `E[σ² + (μ − E μ)²]`), the `r`
    /// that minimises the bound. `Some((m, s²))` with empty slices means `N(0, I)`.
    ///
    /// `I(X; Y) ≤ E_x KL(p(y|x) ‖ r(y))` for any `r`; with a learned `q ≈ p` this is an estimate
    /// of that upper bound (Alemi et al. 2017; Poole et al. 2019, eq. 13).
    pub fn kl_to(&self, r: Option<(&[f64], &[f64])>) -> f64 {
        let (d, n) = (self.dy, self.shape.0);
        let (mut m, mut s2) = (vec![0.0; d], vec![1.0; d]);
        match r {
            Some((mm, ss)) if !mm.is_empty() => {
                m.copy_from_slice(mm);
                s2.copy_from_slice(ss);
            }
            Some(_) => {}
            None => {
                for k in 0..d {
                    let mean = (0..n).map(|i| self.mu[i * d + k].to_f64()).sum::<f64>() / n as f64;
                    let var = (0..n)
                        .map(|i| self.lv[i * d + k].to_f64().exp() + (self.mu[i * d + k].to_f64() - mean).powi(2))
                        .sum::<f64>()
                        / n as f64;
                    m[k] = mean;
                    s2[k] = var;
                }
            }
        }
        let mut kl = 0.0;
        for i in 0..n {
            for k in 0..d {
                let (mu, lv) = (self.mu[i * d + k].to_f64(), self.lv[i * d + k].to_f64());
                kl += 0.5 * (s2[k].ln() - lv + (lv.exp() + (mu - m[k]).powi(2)) / s2[k] - 1.0);
            }
        }
        kl / n as f64
    }
}

/// `(log σ², ∂ log σ² / ∂v)` of the raw output `v`.
fn squash<T: Real>(variance: Variance, v: T) -> (T, T) {
    match variance {
        Variance::Learned { lo, hi } => {
            let (lo, hi) = (T::of(lo), T::of(hi));
            (lo + softplus(v - lo) - softplus(v - hi), sigmoid(v - lo) - sigmoid(v - hi))
        }
        Variance::Fixed { log_var } => (T::of(log_var), T::zero()),
    }
}

impl<T: Real> Critic<T> for GaussianConditional<T> {
    fn set_compute(&mut self, compute: Compute) {
        self.cx = compute;
        self.mlp.set_compute(compute);
    }
    fn name(&self) -> &'static str {
        "gaussian"
    }
    fn dim_x(&self) -> usize {
        self.mlp.spec().input
    }
    fn dim_y(&self) -> usize {
        self.dy
    }
    fn n_params(&self) -> usize {
        self.mlp.n_params()
    }
    fn zero_output(&self, params: &mut [T]) {
        self.mlp.zero_output(params);
    }

    fn init_into(&self, params: &mut [T], init: Init, rng: &mut dyn crate::rng::Rng) {
        self.mlp.init(params, init, rng);
    }

    fn scores(&mut self, params: &[T], x: &DMatrix<T>, y: &DMatrix<T>, s: &mut DMatrix<T>) -> Result<()> {
        let cx = self.cx;
        let (dx, d, variance) = (self.dim_x(), self.dy, self.variance);
        check_inputs("gaussian", (dx, d, self.n_params()), params, x, y, s)?;
        let (n, m) = (x.nrows(), y.nrows());
        self.shape = (n, m);
        transpose_into(x, &mut self.xt);
        transpose_into(y, &mut self.yt);
        let out = self.mlp.forward(params, view(&self.xt, dx, n), Op::N, &mut self.cache);
        let o = out.as_slice_contiguous();
        let rows = self.mlp.spec().output;
        for v in [&mut self.mu, &mut self.lv, &mut self.w, &mut self.wm] {
            v.resize(d * n, T::zero());
        }
        self.c.resize(n, T::zero());
        let half = T::of(0.5);
        let c0 = T::of(-0.5 * d as f64 * LN_2PI);
        for i in 0..n {
            let mut ci = c0;
            for k in 0..d {
                let mu = o[i * rows + k];
                let (lv, _) = squash(variance, if rows == 2 * d { o[i * rows + d + k] } else { T::zero() });
                let w = half * (-lv).exp();
                let j = i * d + k;
                (self.mu[j], self.lv[j], self.w[j], self.wm[j]) = (mu, lv, w, w * mu);
                ci -= half * lv + w * mu * mu;
            }
            self.c[i] = ci;
        }
        self.y2.resize(d * m, T::zero());
        self.y2.iter_mut().zip(&self.yt).for_each(|(q, &v)| *q = v * v);
        let sv = view_mut(s.as_mut_slice(), n, m);
        cx.gemm(-T::one(), view(&self.w, d, n), Op::T, view(&self.y2, d, m), Op::N, T::zero(), sv);
        let sv = view_mut(s.as_mut_slice(), n, m);
        cx.gemm(T::of(2.0), view(&self.wm, d, n), Op::T, view(&self.yt, d, m), Op::N, T::one(), sv);
        for col in s.as_mut_slice().chunks_exact_mut(n) {
            col.iter_mut().zip(&self.c).for_each(|(v, &c)| *v += c);
        }
        Ok(())
    }

    fn backward(&mut self, params: &[T], ds: &DMatrix<T>, grads: &mut [T]) -> Result<()> {
        let cx = self.cx;
        let (dx, d) = (self.dim_x(), self.dy);
        check_backward("gaussian", self.shape, self.n_params(), ds, grads)?;
        let (n, m) = self.shape;
        let rows = self.mlp.spec().output;
        let dsv = view(ds.as_slice(), n, m);
        // r_i = Σ_j ∂S_ij, A = Y·∂Sᵀ, B = (Y∘Y)·∂Sᵀ (d × N).
        self.r.resize(n, T::zero());
        self.r.fill(T::zero());
        for col in ds.as_slice().chunks_exact(n) {
            self.r.iter_mut().zip(col).for_each(|(r, &v)| *r += v);
        }
        self.a.resize(d * n, T::zero());
        self.b.resize(d * n, T::zero());
        cx.gemm(T::one(), view(&self.yt, d, m), Op::N, dsv, Op::T, T::zero(), view_mut(&mut self.a, d, n));
        cx.gemm(T::one(), view(&self.y2, d, m), Op::N, dsv, Op::T, T::zero(), view_mut(&mut self.b, d, n));
        self.d_out.resize(rows * n, T::zero());
        let o = self.mlp.output(&self.cache).as_slice_contiguous();
        let (two, half) = (T::of(2.0), T::of(0.5));
        for i in 0..n {
            let ri = self.r[i];
            for k in 0..d {
                let j = i * d + k;
                let (mu, w, a, b) = (self.mu[j], self.w[j], self.a[j], self.b[j]);
                // S depends on w through −w·y² + 2wμy − wμ², on μ through 2wμy − wμ².
                let dw = -b + two * mu * a - ri * mu * mu;
                self.d_out[i * rows + k] = two * w * (a - ri * mu);
                if rows == 2 * d {
                    // ∂ log σ²: −½ r_i from c, −w·∂w (w = ½e^{−log σ²}); then the squash.
                    let (_, dsq) = squash(self.variance, o[i * rows + d + k]);
                    self.d_out[i * rows + d + k] = (-half * ri - w * dw) * dsq;
                }
            }
        }
        self.mlp.backward(
            params,
            grads,
            view(&self.xt, dx, n),
            Op::N,
            &self.cache,
            view(&self.d_out, rows, n),
            &mut self.scratch,
            false,
            None,
        );
        Ok(())
    }

    fn macs_per_step(&self, n: usize) -> f64 {
        3.0 * (self.mlp.macs(n) + 2.0 * (n * n * self.dy) as f64)
    }

    fn variational_upper_bound(&self) -> Option<f64> {
        (self.shape.0 > 0).then(|| self.kl_to(None))
    }
}
