//! The concat critic: one MLP on every pair `[x_i; y_j]`, without tiling.

use super::mlp::{Activation, ContiguousSlice, Init, Mlp, MlpCache, MlpScratch, MlpSpec, init_dense};
use super::{Critic, check_backward, check_inputs, transpose_into};
use crate::data::Rng;
use crate::error::{Error, Result};
use crate::gemm::{Op, gemm, view, view_mut};
use crate::real::Real;
use nalgebra::DMatrix;

/// Pairs per block: large enough for efficient products, small enough to stay in cache.
const BLOCK_PAIRS: usize = 2048;
/// Forward caches of all blocks are kept for the backward pass while they fit in this many
/// bytes; above it, each block's forward pass is recomputed during backward (bounded memory).
const CACHE_BUDGET_BYTES: usize = 128 << 20;

/// The concat critic `S_ij = h([x_i; y_j])` with `h` an MLP `dim_x + dim_y → hidden… → 1`
/// evaluated on all `N·M` pairs (Belghazi et al. 2018; Poole et al. 2019).
///
/// The pairs are never tiled: the first layer is split, `W·[x; y] = Wx·x_i + Wy·y_j`, so
/// `U = Wx·X` and `V = Wy·Y + b` are computed once and each pair's pre-activation is the
/// broadcast sum `U_i + V_j`. The `N·M` pairs are processed in blocks of columns of `S`;
/// memory stays bounded at large N (blocks are recomputed in backward beyond a cache budget).
#[derive(Clone, Debug)]
pub struct Concat<T: Real> {
    dims: (usize, usize),
    h1: usize,
    activation: Activation,
    tail: Mlp,
    xt: Vec<T>,
    yt: Vec<T>,
    u: Vec<T>,
    v: Vec<T>,
    z1: Vec<Vec<T>>,
    a1: Vec<Vec<T>>,
    caches: Vec<MlpCache<T>>,
    scratch: MlpScratch<T>,
    da1: Vec<T>,
    du: Vec<T>,
    dv: Vec<T>,
    shape: (usize, usize),
    block_cols: usize,
    cache_all: bool,
    cache_budget: usize,
}

impl<T: Real> Concat<T> {
    /// An MLP `dim_x + dim_y → hidden[0] → … → 1`; `hidden` must not be empty.
    pub fn new(dim_x: usize, dim_y: usize, hidden: &[usize], activation: Activation) -> Result<Self> {
        let (&h1, rest) = hidden
            .split_first()
            .ok_or_else(|| Error::param("concat hidden layers", "[]", "need at least one hidden layer"))?;
        if h1 == 0 {
            return Err(Error::param("concat hidden width", 0, "must be at least 1"));
        }
        let first = h1 * (dim_x + dim_y) + h1;
        let tail = Mlp::new(MlpSpec { input: h1, hidden: rest.to_vec(), output: 1, activation }, first);
        Ok(Concat {
            dims: (dim_x, dim_y),
            h1,
            activation,
            tail,
            xt: Vec::new(),
            yt: Vec::new(),
            u: Vec::new(),
            v: Vec::new(),
            z1: Vec::new(),
            a1: Vec::new(),
            caches: Vec::new(),
            scratch: MlpScratch::default(),
            da1: Vec::new(),
            du: Vec::new(),
            dv: Vec::new(),
            shape: (0, 0),
            block_cols: 1,
            cache_all: true,
            cache_budget: CACHE_BUDGET_BYTES,
        })
    }

    /// Sets the memory budget for keeping every block's forward cache (default 128 MiB);
    /// `0` always recomputes blocks in backward.
    pub fn with_cache_budget(mut self, bytes: usize) -> Self {
        self.cache_budget = bytes;
        self
    }

    fn plan(&mut self, n: usize, m: usize) {
        self.block_cols = (BLOCK_PAIRS / n).clamp(1, m);
        let blocks = m.div_ceil(self.block_cols);
        let per_pair = 2 * self.h1 + 2 * self.tail.spec().hidden.iter().sum::<usize>() + 1;
        let bytes = n * m * per_pair * std::mem::size_of::<T>();
        self.cache_all = bytes <= self.cache_budget;
        let slots = if self.cache_all { blocks } else { 1 };
        self.z1.resize_with(slots, Vec::new);
        self.a1.resize_with(slots, Vec::new);
        self.caches.resize_with(slots, MlpCache::default);
    }

    /// Forward pass of the block of columns `j0..j1` into cache slot `slot`; returns the pair count.
    fn forward_block(&mut self, params: &[T], j0: usize, j1: usize, slot: usize) -> usize {
        let (n, h) = (self.shape.0, self.h1);
        let pairs = (j1 - j0) * n;
        let z = &mut self.z1[slot];
        z.resize(h * pairs, T::zero());
        for (jj, j) in (j0..j1).enumerate() {
            let vj = &self.v[j * h..(j + 1) * h];
            for i in 0..n {
                let ui = &self.u[i * h..(i + 1) * h];
                let p = (jj * n + i) * h;
                for ((zk, &a), &b) in z[p..p + h].iter_mut().zip(ui).zip(vj) {
                    *zk = a + b;
                }
            }
        }
        let a = &mut self.a1[slot];
        a.resize(h * pairs, T::zero());
        self.activation.forward(&z[..h * pairs], &mut a[..h * pairs]);
        self.tail.forward(params, view(&a[..h * pairs], h, pairs), Op::N, &mut self.caches[slot]);
        pairs
    }
}

impl<T: Real> Critic<T> for Concat<T> {
    fn name(&self) -> &'static str {
        "concat"
    }
    fn dim_x(&self) -> usize {
        self.dims.0
    }
    fn dim_y(&self) -> usize {
        self.dims.1
    }
    fn n_params(&self) -> usize {
        self.tail.offset() + self.tail.n_params()
    }

    fn zero_output(&self, params: &mut [T]) {
        self.tail.zero_output(params);
    }

    fn init_into(&self, params: &mut [T], init: Init, rng: &mut Rng) {
        let (h, d) = (self.h1, self.dims.0 + self.dims.1);
        let (w, rest) = params.split_at_mut(h * d);
        // The split layer is one Linear(dim_x + dim_y → h1), initialised as such.
        init_dense(init, d, h, w, &mut rest[..h], rng);
        self.tail.init(params, init, rng);
    }

    fn scores(&mut self, params: &[T], x: &DMatrix<T>, y: &DMatrix<T>, s: &mut DMatrix<T>) -> Result<()> {
        let (dx, dy) = self.dims;
        check_inputs("concat", (dx, dy, self.n_params()), params, x, y, s)?;
        let (n, m, h) = (x.nrows(), y.nrows(), self.h1);
        self.shape = (n, m);
        self.plan(n, m);
        transpose_into(x, &mut self.xt);
        transpose_into(y, &mut self.yt);
        self.u.resize(h * n, T::zero());
        self.v.resize(h * m, T::zero());
        // U = Wx·X, V = Wy·Y + b (the bias folded into V once).
        gemm(
            T::one(),
            view(params, h, dx),
            Op::N,
            view(&self.xt, dx, n),
            Op::N,
            T::zero(),
            view_mut(&mut self.u, h, n),
        );
        let bias = &params[h * (dx + dy)..h * (dx + dy) + h];
        for col in self.v.chunks_exact_mut(h) {
            col.copy_from_slice(bias);
        }
        gemm(
            T::one(),
            view(&params[h * dx..], h, dy),
            Op::N,
            view(&self.yt, dy, m),
            Op::N,
            T::one(),
            view_mut(&mut self.v, h, m),
        );
        let out = s.as_mut_slice();
        for (b, j0) in (0..m).step_by(self.block_cols).enumerate() {
            let j1 = (j0 + self.block_cols).min(m);
            let slot = if self.cache_all { b } else { 0 };
            let pairs = self.forward_block(params, j0, j1, slot);
            out[j0 * n..j0 * n + pairs].copy_from_slice(self.tail.output(&self.caches[slot]).as_slice_contiguous());
        }
        Ok(())
    }

    fn backward(&mut self, params: &[T], ds: &DMatrix<T>, grads: &mut [T]) -> Result<()> {
        let (dx, dy) = self.dims;
        check_backward("concat", self.shape, self.n_params(), ds, grads)?;
        let (n, m, h) = (self.shape.0, self.shape.1, self.h1);
        self.du.clear();
        self.du.resize(h * n, T::zero());
        self.dv.clear();
        self.dv.resize(h * m, T::zero());
        let dsl = ds.as_slice();
        for (b, j0) in (0..m).step_by(self.block_cols).enumerate() {
            let j1 = (j0 + self.block_cols).min(m);
            let slot = if self.cache_all { b } else { 0 };
            let pairs = if self.cache_all { (j1 - j0) * n } else { self.forward_block(params, j0, j1, slot) };
            self.da1.resize(h * pairs, T::zero());
            let a1 = view(&self.a1[slot][..h * pairs], h, pairs);
            let d_out = view(&dsl[j0 * n..j0 * n + pairs], 1, pairs);
            let (t0, tn) = (self.tail.offset(), self.tail.n_params());
            self.tail.backward(
                params,
                &mut grads[t0..t0 + tn],
                a1,
                Op::N,
                &self.caches[slot],
                d_out,
                &mut self.scratch,
                b > 0,
                Some(&mut self.da1[..h * pairs]),
            );
            let z1 = &self.z1[slot][..h * pairs];
            self.activation.backward(z1, &self.a1[slot][..h * pairs], &mut self.da1[..h * pairs]);
            // ∂U_i += Σ_j ∂Z_ij, ∂V_j += Σ_i ∂Z_ij.
            for (jj, j) in (j0..j1).enumerate() {
                let dvj = &mut self.dv[j * h..(j + 1) * h];
                for i in 0..n {
                    let p = (jj * n + i) * h;
                    let dz = &self.da1[p..p + h];
                    let dui = &mut self.du[i * h..(i + 1) * h];
                    for ((u, v), &d) in dui.iter_mut().zip(dvj.iter_mut()).zip(dz) {
                        *u += d;
                        *v += d;
                    }
                }
            }
        }
        // ∂Wx = ∂U·Xᵀ, ∂Wy = ∂V·Yᵀ, ∂b = Σ_j ∂V_j.
        let (gwx, rest) = grads.split_at_mut(h * dx);
        let (gwy, rest) = rest.split_at_mut(h * dy);
        gemm(T::one(), view(&self.du, h, n), Op::N, view(&self.xt, dx, n), Op::T, T::zero(), view_mut(gwx, h, dx));
        gemm(T::one(), view(&self.dv, h, m), Op::N, view(&self.yt, dy, m), Op::T, T::zero(), view_mut(gwy, h, dy));
        let gb = &mut rest[..h];
        gb.fill(T::zero());
        for col in self.dv.chunks_exact(h) {
            gb.iter_mut().zip(col).for_each(|(g, &v)| *g += v);
        }
        Ok(())
    }

    fn macs_per_step(&self, n: usize) -> f64 {
        let (dx, dy) = self.dims;
        let first = (self.h1 * (dx + dy) * n) as f64;
        let tail = self.tail.macs(n * n);
        let recompute = if self.cache_all { 0.0 } else { tail };
        3.0 * (first + tail) + recompute
    }
}
