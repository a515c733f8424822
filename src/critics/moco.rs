//! MoCo (He et al. 2020): a query encoder trained by gradient, a momentum-updated key encoder,
//! and a queue of past keys used as extra negatives.

use super::mlp::{Activation, ContiguousSlice, Init, Mlp, MlpCache, MlpScratch, MlpSpec};
use super::separable::{normalise, normalise_backward};
use super::{Critic, transpose_into};
use crate::compute::Compute;
use crate::error::{Error, Result};
use crate::gemm::{Op, view, view_mut};
use crate::real::Real;
use nalgebra::DMatrix;

/// MoCo as a critic: `S_ij = q̂_iᵀ k̂_j / τ` with `q = f_θq(x)`, `k = f_θk(y)` — one encoder
/// architecture for both, so `dim_x = dim_y` — scored against the batch's keys (columns
/// `0..N`, the joint pairs on the diagonal) **and** the `K` most recent keys of earlier batches
/// (columns `N..N+K`, extra negatives). With InfoNCE the value is `log(N + K) − L`, which is
/// **not a proven bound**: the queue's keys come from earlier key-encoder states, so the
/// candidates of a row are not scored by one critic and are not exchangeable, which InfoNCE's
/// proof needs. The `N × N` batch block alone (`log N − L_N`) is a lower bound; the queue value
/// would be one if the queue were re-encoded by the current key encoder (docs/bounds.md, MoCo).
///
/// Only `θq` is a parameter (the optimiser's vector); keys are constants for the gradient, as in
/// MoCo. After each optimiser step ([`Critic::after_step`]) the key encoder follows
/// `θk ← m·θk + (1 − m)·θq` and the batch's keys enter the queue, evicting the oldest. The key
/// encoder and queue are not part of a training checkpoint: a resumed MoCo run restarts them.
#[derive(Clone, Debug)]
pub struct Moco<T: Real> {
    cx: Compute,
    enc: Mlp,
    embed: usize,
    tau: f64,
    momentum: f64,
    capacity: usize,
    key_params: Vec<T>,
    queue: Vec<T>,
    filled: usize,
    head: usize,
    xt: Vec<T>,
    yt: Vec<T>,
    cq: MlpCache<T>,
    ck: MlpCache<T>,
    scratch: MlpScratch<T>,
    qh: Vec<T>,
    qn: Vec<T>,
    kh: Vec<T>,
    kn: Vec<T>,
    dq: Vec<T>,
    n: usize,
}

impl<T: Real> Moco<T> {
    /// An encoder `dim → hidden… → embed`, temperature τ, momentum m ∈ [0, 1), queue length K.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        dim_x: usize,
        dim_y: usize,
        hidden: &[usize],
        embed: usize,
        activation: Activation,
        tau: f64,
        momentum: f64,
        queue: usize,
    ) -> Result<Self> {
        if dim_x != dim_y {
            return Err(Error::param(
                "moco dimensions",
                format!("{dim_x} vs {dim_y}"),
                "x and y share the encoder: they need the same dimension",
            ));
        }
        if embed == 0 || tau.is_nan() || tau <= 0.0 || !(0.0..1.0).contains(&momentum) {
            return Err(Error::param(
                "moco",
                format!("embed {embed}, τ {tau}, m {momentum}"),
                "need embed ≥ 1, τ > 0, 0 ≤ m < 1",
            ));
        }
        let enc = Mlp::new(MlpSpec { input: dim_x, hidden: hidden.to_vec(), output: embed, activation }, 0);
        let e = Vec::new;
        Ok(Moco {
            cx: Compute::default(),
            enc,
            embed,
            tau,
            momentum,
            capacity: queue,
            key_params: e(),
            queue: vec![T::zero(); embed * queue],
            filled: 0,
            head: 0,
            xt: e(),
            yt: e(),
            cq: MlpCache::default(),
            ck: MlpCache::default(),
            scratch: MlpScratch::default(),
            qh: e(),
            qn: e(),
            kh: e(),
            kn: e(),
            dq: e(),
            n: 0,
        })
    }

    /// The key encoder's parameters (a copy of the query encoder's at the first batch).
    pub fn key_params(&self) -> &[T] {
        &self.key_params
    }

    /// Keys currently in the queue (`embed × filled`, oldest first is not guaranteed).
    pub fn queued(&self) -> usize {
        self.filled
    }
}

impl<T: Real> Critic<T> for Moco<T> {
    fn set_compute(&mut self, compute: Compute) {
        self.cx = compute;
        self.enc.set_compute(compute);
    }
    fn name(&self) -> &'static str {
        "moco"
    }
    fn dim_x(&self) -> usize {
        self.enc.spec().input
    }
    fn dim_y(&self) -> usize {
        self.enc.spec().input
    }
    fn n_params(&self) -> usize {
        self.enc.n_params()
    }
    fn zero_output(&self, params: &mut [T]) {
        self.enc.zero_output(params);
    }
    fn init_into(&self, params: &mut [T], init: Init, rng: &mut dyn crate::rng::Rng) {
        self.enc.init(params, init, rng);
    }

    fn scores(&mut self, params: &[T], x: &DMatrix<T>, y: &DMatrix<T>, s: &mut DMatrix<T>) -> Result<()> {
        let cx = self.cx;
        let (d, e) = (self.dim_x(), self.embed);
        if params.len() != self.n_params()
            || x.ncols() != d
            || y.ncols() != d
            || x.nrows() != y.nrows()
            || x.nrows() < 2
        {
            return Err(Error::Shape {
                what: "moco critic inputs".into(),
                expected: format!("x, y: N × {d} (same N ≥ 2), {} parameters", self.n_params()),
                got: format!("{:?}, {:?}, {}", x.shape(), y.shape(), params.len()),
            });
        }
        if self.key_params.len() != params.len() {
            self.key_params = params.to_vec();
        }
        let n = x.nrows();
        self.n = n;
        transpose_into(x, &mut self.xt);
        transpose_into(y, &mut self.yt);
        let q = self.enc.forward(params, view(&self.xt, d, n), Op::N, &mut self.cq);
        normalise(q.as_slice_contiguous(), e, &mut self.qh, &mut self.qn);
        let k = self.enc.forward(&self.key_params, view(&self.yt, d, n), Op::N, &mut self.ck);
        normalise(k.as_slice_contiguous(), e, &mut self.kh, &mut self.kn);
        let m = n + self.filled;
        if s.shape() != (n, m) {
            *s = DMatrix::zeros(n, m);
        }
        let inv_tau = T::of(1.0 / self.tau);
        let out = s.as_mut_slice();
        let (batch, queued) = out.split_at_mut(n * n);
        cx.gemm(inv_tau, view(&self.qh, e, n), Op::T, view(&self.kh, e, n), Op::N, T::zero(), view_mut(batch, n, n));
        if self.filled > 0 {
            cx.gemm(
                inv_tau,
                view(&self.qh, e, n),
                Op::T,
                view(&self.queue, e, self.filled),
                Op::N,
                T::zero(),
                view_mut(queued, n, self.filled),
            );
        }
        Ok(())
    }

    fn backward(&mut self, params: &[T], ds: &DMatrix<T>, grads: &mut [T]) -> Result<()> {
        let cx = self.cx;
        let (d, e, n) = (self.dim_x(), self.embed, self.n);
        if ds.shape() != (n, n + self.filled) || n == 0 || grads.len() != self.n_params() {
            return Err(Error::Shape {
                what: "moco ∂L/∂S (call scores first)".into(),
                expected: format!("{n} × {}", n + self.filled),
                got: format!("{:?}", ds.shape()),
            });
        }
        // ∂q̂ = (K̂·∂S_batchᵀ + Queue·∂S_queueᵀ) / τ; keys are constants.
        self.dq.resize(e * n, T::zero());
        let inv_tau = T::of(1.0 / self.tau);
        let dsl = ds.as_slice();
        cx.gemm(
            inv_tau,
            view(&self.kh, e, n),
            Op::N,
            view(&dsl[..n * n], n, n),
            Op::T,
            T::zero(),
            view_mut(&mut self.dq, e, n),
        );
        if self.filled > 0 {
            cx.gemm(
                inv_tau,
                view(&self.queue, e, self.filled),
                Op::N,
                view(&dsl[n * n..], n, self.filled),
                Op::T,
                T::one(),
                view_mut(&mut self.dq, e, n),
            );
        }
        normalise_backward(&mut self.dq, &self.qh, &self.qn, e);
        self.enc.backward(
            params,
            grads,
            view(&self.xt, d, n),
            Op::N,
            &self.cq,
            view(&self.dq, e, n),
            &mut self.scratch,
            false,
            None,
        );
        Ok(())
    }

    fn after_step(&mut self, params: &[T]) {
        let m = T::of(self.momentum);
        let one_m = T::one() - m;
        for (k, &q) in self.key_params.iter_mut().zip(params) {
            *k = m * *k + one_m * q;
        }
        // Enqueue this batch's keys (computed before the update, as in MoCo).
        let e = self.embed;
        for j in 0..self.n.min(self.capacity) {
            let dst = self.head * e;
            self.queue[dst..dst + e].copy_from_slice(&self.kh[j * e..(j + 1) * e]);
            self.head = (self.head + 1) % self.capacity;
            self.filled = (self.filled + 1).min(self.capacity);
        }
    }

    fn macs_per_step(&self, n: usize) -> f64 {
        4.0 * self.enc.macs(n) + 2.0 * (n * (n + self.capacity) * self.embed) as f64
    }
}
