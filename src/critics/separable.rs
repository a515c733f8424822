//! The separable critic `f(x)ᵀ g(y)` and its cosine form.

use super::mlp::{Activation, ContiguousSlice, Init, Mlp, MlpCache, MlpScratch, MlpSpec};
use super::{Critic, check_backward, check_inputs, transpose_into};
use crate::compute::Compute;
use crate::error::{Error, Result};
use crate::gemm::{Op, view, view_mut};
use crate::real::Real;
use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

/// How two embeddings are compared.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Similarity {
    /// `f(x)ᵀ g(y)`.
    Dot,
    /// `f(x)ᵀ g(y) / (‖f(x)‖ ‖g(y)‖ τ)`, the SimCLR/MoCo form; τ fixed or learned (as `log τ`,
    /// the last parameter, initialised at the given τ).
    Cosine {
        /// Temperature τ > 0 (the initial value when learned).
        tau: f64,
        /// Whether τ is a trainable parameter.
        learn: bool,
    },
}

/// The separable critic `S_ij = f(x_i)ᵀ g(y_j)` with two MLP encoders (Poole et al. 2019 use
/// `d → 256 → 256 → 32`, ReLU), or its cosine form.
///
/// Forward: `F = f(X)`, `G = g(Y)` (embedding × batch), `S = FᵀG`. Backward: `∂F = G·∂Sᵀ`,
/// `∂G = F·∂S`, then each MLP. Cosine: `F̂ = F/‖F‖` per column, `S = F̂ᵀĜ/τ`,
/// `∂F = (∂F̂ − F̂ (F̂·∂F̂)) / ‖F‖`, `∂ log τ = −Σ ∂S ⊙ S`.
#[derive(Clone, Debug)]
pub struct Separable<T: Real> {
    cx: Compute,
    f: Mlp,
    g: Mlp,
    embed: usize,
    similarity: Similarity,
    xt: Vec<T>,
    yt: Vec<T>,
    cf: MlpCache<T>,
    cg: MlpCache<T>,
    scratch: MlpScratch<T>,
    scratch_g: MlpScratch<T>,
    // Normalised embeddings and norms (cosine), gradient buffers for F and G.
    fh: Vec<T>,
    gh: Vec<T>,
    fnorm: Vec<T>,
    gnorm: Vec<T>,
    df: Vec<T>,
    dg: Vec<T>,
    shape: (usize, usize),
    tau_used: T,
}

impl<T: Real> Separable<T> {
    /// Two encoders `dim → hidden… → embed`.
    pub fn new(
        dim_x: usize,
        dim_y: usize,
        hidden: &[usize],
        embed: usize,
        activation: Activation,
        similarity: Similarity,
    ) -> Result<Self> {
        if embed == 0 {
            return Err(Error::param("embedding dimension", 0, "must be at least 1"));
        }
        if let Similarity::Cosine { tau, .. } = similarity
            && !(tau > 0.0 && tau.is_finite())
        {
            return Err(Error::param("cosine temperature", tau, "must be positive and finite"));
        }
        let f = Mlp::new(MlpSpec { input: dim_x, hidden: hidden.to_vec(), output: embed, activation }, 0);
        let g = Mlp::new(MlpSpec { input: dim_y, hidden: hidden.to_vec(), output: embed, activation }, f.n_params());
        Ok(Separable {
            cx: Compute::default(),
            f,
            g,
            embed,
            similarity,
            xt: Vec::new(),
            yt: Vec::new(),
            cf: MlpCache::default(),
            cg: MlpCache::default(),
            scratch: MlpScratch::default(),
            scratch_g: MlpScratch::default(),
            fh: Vec::new(),
            gh: Vec::new(),
            fnorm: Vec::new(),
            gnorm: Vec::new(),
            df: Vec::new(),
            dg: Vec::new(),
            shape: (0, 0),
            tau_used: T::one(),
        })
    }

    fn learns_tau(&self) -> bool {
        matches!(self.similarity, Similarity::Cosine { learn: true, .. })
    }

    fn tau(&self, params: &[T]) -> T {
        match self.similarity {
            Similarity::Dot => T::one(),
            Similarity::Cosine { learn: true, .. } => params[params.len() - 1].exp(),
            Similarity::Cosine { tau, .. } => T::of(tau),
        }
    }
}

/// Normalises each `e`-long column of `src` into `dst`, storing the norms.
pub(crate) fn normalise<T: Real>(src: &[T], e: usize, dst: &mut Vec<T>, norms: &mut Vec<T>) {
    dst.resize(src.len(), T::zero());
    norms.resize(src.len() / e, T::zero());
    let floor = T::of(1e-12);
    for ((s, d), nrm) in src.chunks_exact(e).zip(dst.chunks_exact_mut(e)).zip(norms.iter_mut()) {
        let n = s.iter().fold(T::zero(), |a, &v| a + v * v).sqrt().max(floor);
        *nrm = n;
        d.iter_mut().zip(s).for_each(|(d, &v)| *d = v / n);
    }
}

/// In place: `d ← (d − ĥ (ĥ·d)) / ‖h‖` per column (backprop through `h ↦ h/‖h‖`).
pub(crate) fn normalise_backward<T: Real>(d: &mut [T], hat: &[T], norms: &[T], e: usize) {
    for ((dc, hc), &n) in d.chunks_exact_mut(e).zip(hat.chunks_exact(e)).zip(norms) {
        let dot = dc.iter().zip(hc).fold(T::zero(), |a, (&x, &y)| a + x * y);
        dc.iter_mut().zip(hc).for_each(|(x, &h)| *x = (*x - h * dot) / n);
    }
}

impl<T: Real> Critic<T> for Separable<T> {
    fn set_compute(&mut self, compute: Compute) {
        self.cx = compute;
        self.f.set_compute(compute);
        self.g.set_compute(compute);
    }
    fn name(&self) -> &'static str {
        "separable"
    }
    fn dim_x(&self) -> usize {
        self.f.spec().input
    }
    fn dim_y(&self) -> usize {
        self.g.spec().input
    }
    fn n_params(&self) -> usize {
        self.f.n_params() + self.g.n_params() + usize::from(self.learns_tau())
    }

    fn zero_output(&self, params: &mut [T]) {
        self.f.zero_output(params);
    }

    fn init_into(&self, params: &mut [T], init: Init, rng: &mut dyn crate::rng::Rng) {
        self.f.init(params, init, rng);
        self.g.init(params, init, rng);
        if let Similarity::Cosine { tau, learn: true } = self.similarity {
            params[params.len() - 1] = T::of(tau.ln());
        }
    }

    fn scores(&mut self, params: &[T], x: &DMatrix<T>, y: &DMatrix<T>, s: &mut DMatrix<T>) -> Result<()> {
        let cx = self.cx;
        let (dx, dy) = (self.dim_x(), self.dim_y());
        check_inputs("separable", (dx, dy, self.n_params()), params, x, y, s)?;
        let (n, m, e) = (x.nrows(), y.nrows(), self.embed);
        self.shape = (n, m);
        self.tau_used = self.tau(params);
        transpose_into(x, &mut self.xt);
        transpose_into(y, &mut self.yt);
        let (f, g, xt, yt) = (&self.f, &self.g, &self.xt, &self.yt);
        let (cf, cg) = (&mut self.cf, &mut self.cg);
        let (fx, gy) =
            cx.join(|| f.forward(params, view(xt, dx, n), Op::N, cf), || g.forward(params, view(yt, dy, m), Op::N, cg));
        let out = view_mut(s.as_mut_slice(), n, m);
        match self.similarity {
            Similarity::Dot => cx.gemm(T::one(), fx, Op::T, gy, Op::N, T::zero(), out),
            Similarity::Cosine { .. } => {
                normalise(fx.as_slice_contiguous(), e, &mut self.fh, &mut self.fnorm);
                normalise(gy.as_slice_contiguous(), e, &mut self.gh, &mut self.gnorm);
                let inv_tau = T::one() / self.tau_used;
                cx.gemm(inv_tau, view(&self.fh, e, n), Op::T, view(&self.gh, e, m), Op::N, T::zero(), out);
            }
        }
        Ok(())
    }

    fn backward(&mut self, params: &[T], ds: &DMatrix<T>, grads: &mut [T]) -> Result<()> {
        let cx = self.cx;
        let (dx, dy, np) = (self.dim_x(), self.dim_y(), self.n_params());
        check_backward("separable", self.shape, np, ds, grads)?;
        let (n, m, e) = (self.shape.0, self.shape.1, self.embed);
        self.df.resize(e * n, T::zero());
        self.dg.resize(e * m, T::zero());
        let dsv = view(ds.as_slice(), n, m);
        // ∂F = G·∂Sᵀ (e × n) and ∂G = F·∂S (e × m), each followed by its encoder's backward
        // pass; the two branches touch disjoint state and run concurrently with 2 threads.
        let (scale, cosine, learn) = match self.similarity {
            Similarity::Dot => (T::one(), false, false),
            Similarity::Cosine { learn, .. } => (T::one() / self.tau_used, true, learn),
        };
        let (gf, rest) = grads.split_at_mut(self.f.n_params());
        let gg = &mut rest[..self.g.n_params()];
        let (f, g, cf, cg) = (&self.f, &self.g, &self.cf, &self.cg);
        // The encoders' outputs (dot) or their normalised versions (cosine) multiply ∂S.
        let (fs, gs) = if cosine { (view(&self.fh, e, n), view(&self.gh, e, m)) } else { (f.output(cf), g.output(cg)) };
        let (xv, yv) = (view(&self.xt, dx, n), view(&self.yt, dy, m));
        let (df, dg) = (&mut self.df, &mut self.dg);
        let (fh, gh, fnorm, gnorm) = (&self.fh, &self.gh, &self.fnorm, &self.gnorm);
        let (sf, sg) = (&mut self.scratch, &mut self.scratch_g);
        let (dlog_tau, ()) = cx.join(
            || {
                cx.gemm(scale, gs, Op::N, dsv, Op::T, T::zero(), view_mut(df, e, n));
                // ∂/∂log τ = −Σ ∂S ⊙ S = −Σ F̂ ⊙ ∂F̂.
                let dot =
                    if learn { fh.iter().zip(df.iter()).fold(T::zero(), |a, (&h, &d)| a + h * d) } else { T::zero() };
                if cosine {
                    normalise_backward(df, fh, fnorm, e);
                }
                f.backward(params, gf, xv, Op::N, cf, view(df, e, n), sf, false, None);
                -dot
            },
            || {
                cx.gemm(scale, fs, Op::N, dsv, Op::N, T::zero(), view_mut(dg, e, m));
                if cosine {
                    normalise_backward(dg, gh, gnorm, e);
                }
                g.backward(params, gg, yv, Op::N, cg, view(dg, e, m), sg, false, None);
            },
        );
        if learn {
            grads[np - 1] = dlog_tau;
        }
        Ok(())
    }

    fn macs_per_step(&self, n: usize) -> f64 {
        // Forward f, g and FᵀG; backward: two gemms for ∂F, ∂G and ~2× each MLP's forward.
        let mlp = self.f.macs(n) + self.g.macs(n);
        let score = (n * n * self.embed) as f64;
        3.0 * (mlp + score)
    }
}
