//! The concat critic: one MLP on every pair `[x_i; y_j]`, without tiling.

use super::mlp::{Activation, ContiguousSlice, Init, Mlp, MlpCache, MlpScratch, MlpSpec, init_dense};
use super::{Critic, check_backward, check_inputs, transpose_into};
use crate::compute::Compute;
use crate::error::{Error, Result};
use crate::gemm::{Op, view, view_mut};
use crate::real::Real;
use nalgebra::DMatrix;

/// Pairs per block: large enough for efficient products, small enough to stay in cache.
const BLOCK_PAIRS: usize = 2048;
/// Forward caches of all blocks are kept for the backward pass while they fit in this many
/// bytes; above it, each block's forward pass is recomputed during backward (bounded memory).
const CACHE_BUDGET_BYTES: usize = 128 << 20;

/// One block's forward state: first-layer pre-activations and activations, and the tail MLP's
/// cache, for `pairs` pairs.
#[derive(Clone, Debug, Default)]
struct Block<T: Real> {
    z1: Vec<T>,
    a1: Vec<T>,
    cache: MlpCache<T>,
}

/// The working state of one half of the blocks in backward: the two halves run concurrently
/// with two threads and one after the other with one, through the same code, so the results
/// are identical either way. The first half writes the tail's gradient and `∂U` in place; the
/// second has its own (`Concat::tail_grad_b`, its `du`), added at the end.
#[derive(Clone, Debug, Default)]
struct Lane<T: Real> {
    scratch: MlpScratch<T>,
    da1: Vec<T>,
    du: Vec<T>,
}

/// What every block shares: the network, `U`, `V` and the parameters.
struct Shared<'a, T: Real> {
    tail: &'a Mlp,
    activation: Activation,
    h: usize,
    n: usize,
    block_cols: usize,
    cache_all: bool,
    u: &'a [T],
    v: &'a [T],
    params: &'a [T],
}

impl<T: Real> Shared<'_, T> {
    /// Forward pass of the block of columns `j0..j1` into `slot`; returns the pair count.
    fn forward_block(&self, j0: usize, j1: usize, slot: &mut Block<T>) -> usize {
        let (n, h) = (self.n, self.h);
        let pairs = (j1 - j0) * n;
        slot.z1.resize(h * pairs, T::zero());
        slot.a1.resize(h * pairs, T::zero());
        // Each pair's pre-activation and activation in one visit, while its h values are in L1.
        for (jj, j) in (j0..j1).enumerate() {
            let vj = &self.v[j * h..(j + 1) * h];
            for i in 0..n {
                let ui = &self.u[i * h..(i + 1) * h];
                let p = (jj * n + i) * h;
                let z = &mut slot.z1[p..p + h];
                for ((zk, &a), &b) in z.iter_mut().zip(ui).zip(vj) {
                    *zk = a + b;
                }
                self.activation.forward(z, &mut slot.a1[p..p + h]);
            }
        }
        self.tail.forward(self.params, view(&slot.a1[..h * pairs], h, pairs), Op::N, &mut slot.cache);
        pairs
    }

    /// The slot of the `k`-th block of a half: its own when every block is cached, else the
    /// half's single slot.
    fn slot<'s>(&self, slots: &'s mut [Block<T>], k: usize) -> &'s mut Block<T> {
        if self.cache_all { &mut slots[k] } else { &mut slots[0] }
    }

    /// Scores of the columns `js..je` (whole blocks) into `out` (those columns of `S`).
    fn forward_half(&self, js: usize, je: usize, slots: &mut [Block<T>], out: &mut [T]) {
        for (k, j0) in (js..je).step_by(self.block_cols).enumerate() {
            let j1 = (j0 + self.block_cols).min(je);
            let slot = self.slot(slots, k);
            let pairs = self.forward_block(j0, j1, slot);
            let o = (j0 - js) * self.n;
            out[o..o + pairs].copy_from_slice(self.tail.output(&slot.cache).as_slice_contiguous());
        }
    }

    /// Backward pass of the columns `js..je`: the tail's gradient into `g` (overwritten), `∂U`
    /// accumulated into `lane.du`, `∂V` of these columns into `dv`; `ds` holds their `∂S`.
    #[allow(clippy::too_many_arguments)]
    fn backward_half(
        &self,
        js: usize,
        je: usize,
        slots: &mut [Block<T>],
        ds: &[T],
        lane: &mut Lane<T>,
        g: &mut [T],
        dv: &mut [T],
    ) {
        let (n, h) = (self.n, self.h);
        for (k, j0) in (js..je).step_by(self.block_cols).enumerate() {
            let j1 = (j0 + self.block_cols).min(je);
            let slot = self.slot(slots, k);
            let pairs = if self.cache_all { (j1 - j0) * n } else { self.forward_block(j0, j1, slot) };
            lane.da1.resize(h * pairs, T::zero());
            let a1 = view(&slot.a1[..h * pairs], h, pairs);
            let o = (j0 - js) * n;
            let d_out = view(&ds[o..o + pairs], 1, pairs);
            let da1 = &mut lane.da1[..h * pairs];
            self.tail.backward(self.params, g, a1, Op::N, &slot.cache, d_out, &mut lane.scratch, k > 0, Some(da1));
            // ∂Z = ∂A ⊙ act′ per pair, then ∂U_i += Σ_j ∂Z_ij, ∂V_j += Σ_i ∂Z_ij in the same visit.
            for (jj, j) in (j0..j1).enumerate() {
                let dvj = &mut dv[(j - js) * h..(j - js + 1) * h];
                for i in 0..n {
                    let p = (jj * n + i) * h;
                    let dz = &mut da1[p..p + h];
                    self.activation.backward(&slot.z1[p..p + h], &slot.a1[p..p + h], dz);
                    let dui = &mut lane.du[i * h..(i + 1) * h];
                    for ((u, v), &d) in dui.iter_mut().zip(dvj.iter_mut()).zip(dz.iter()) {
                        *u += d;
                        *v += d;
                    }
                }
            }
        }
    }
}

/// The concat critic `S_ij = h([x_i; y_j])` with `h` an MLP `dim_x + dim_y → hidden… → 1`
/// evaluated on all `N·M` pairs (Belghazi et al. 2018; Poole et al. 2019).
///
/// The pairs are never tiled: the first layer is split, `W·[x; y] = Wx·x_i + Wy·y_j`, so
/// `U = Wx·X` and `V = Wy·Y + b` are computed once and each pair's pre-activation is the
/// broadcast sum `U_i + V_j`. The `N·M` pairs are processed in blocks of columns of `S`;
/// memory stays bounded at large N (blocks are recomputed in backward beyond a cache budget).
/// The blocks form two halves that run concurrently when a step may use two threads
/// ([`crate::compute::Compute`]); the second half's gradient is added to the first's in a fixed order,
/// so one and two threads give the same numbers.
#[derive(Clone, Debug)]
pub struct Concat<T: Real> {
    cx: Compute,
    dims: (usize, usize),
    h1: usize,
    activation: Activation,
    tail: Mlp,
    xt: Vec<T>,
    yt: Vec<T>,
    u: Vec<T>,
    v: Vec<T>,
    slots: Vec<Block<T>>,
    lanes: [Lane<T>; 2],
    tail_grad_b: Vec<T>,
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
            cx: Compute::default(),
            dims: (dim_x, dim_y),
            h1,
            activation,
            tail,
            xt: Vec::new(),
            yt: Vec::new(),
            u: Vec::new(),
            v: Vec::new(),
            slots: Vec::new(),
            lanes: [Lane::default(), Lane::default()],
            tail_grad_b: Vec::new(),
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
        // Every block cached, or one slot per half recomputed in backward.
        let slots = if self.cache_all { blocks } else { 2 };
        self.slots.resize_with(slots, Block::default);
    }

    /// The two halves of the blocks: the first `⌈blocks/2⌉` blocks (columns `0..j`) and the
    /// rest (`j..m`), with the index of the first slot of the second half.
    fn halves(&self) -> (usize, usize) {
        let m = self.shape.1;
        let blocks = m.div_ceil(self.block_cols);
        let first = blocks.div_ceil(2);
        ((first * self.block_cols).min(m), if self.cache_all { first } else { 1 })
    }

    fn shared<'a>(&'a self, params: &'a [T]) -> Shared<'a, T> {
        Shared {
            tail: &self.tail,
            activation: self.activation,
            h: self.h1,
            n: self.shape.0,
            block_cols: self.block_cols,
            cache_all: self.cache_all,
            u: &self.u,
            v: &self.v,
            params,
        }
    }
}

impl<T: Real> Critic<T> for Concat<T> {
    fn set_compute(&mut self, compute: Compute) {
        self.cx = compute;
        self.tail.set_compute(compute);
    }
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

    fn init_into(&self, params: &mut [T], init: Init, rng: &mut dyn crate::rng::Rng) {
        let (h, d) = (self.h1, self.dims.0 + self.dims.1);
        let (w, rest) = params.split_at_mut(h * d);
        // The split layer is one Linear(dim_x + dim_y → h1), initialised as such.
        init_dense(init, d, h, w, &mut rest[..h], rng);
        self.tail.init(params, init, rng);
    }

    fn scores(&mut self, params: &[T], x: &DMatrix<T>, y: &DMatrix<T>, s: &mut DMatrix<T>) -> Result<()> {
        let cx = self.cx;
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
        cx.gemm(
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
        cx.gemm(
            T::one(),
            view(&params[h * dx..], h, dy),
            Op::N,
            view(&self.yt, dy, m),
            Op::N,
            T::one(),
            view_mut(&mut self.v, h, m),
        );
        // The two halves of the blocks, concurrently with two threads.
        let (js, ks) = self.halves();
        let mut slots = std::mem::take(&mut self.slots);
        let (slots_a, slots_b) = slots.split_at_mut(ks);
        let (out_a, out_b) = s.as_mut_slice().split_at_mut(js * n);
        let sh = self.shared(params);
        cx.join(|| sh.forward_half(0, js, slots_a, out_a), || sh.forward_half(js, m, slots_b, out_b));
        self.slots = slots;
        Ok(())
    }

    fn backward(&mut self, params: &[T], ds: &DMatrix<T>, grads: &mut [T]) -> Result<()> {
        let cx = self.cx;
        let (dx, dy) = self.dims;
        check_backward("concat", self.shape, self.n_params(), ds, grads)?;
        let (n, m, h) = (self.shape.0, self.shape.1, self.h1);
        let (t0, tn) = (self.tail.offset(), self.tail.n_params());
        for lane in &mut self.lanes {
            lane.du.clear();
            lane.du.resize(h * n, T::zero());
        }
        self.tail_grad_b.resize(tn, T::zero());
        self.dv.clear();
        self.dv.resize(h * m, T::zero());
        let (js, ks) = self.halves();
        // Taken out for the two halves (no allocation), so that `shared` can borrow the rest.
        let (mut slots, mut lanes, mut dv, mut g_b) = (
            std::mem::take(&mut self.slots),
            std::mem::take(&mut self.lanes),
            std::mem::take(&mut self.dv),
            std::mem::take(&mut self.tail_grad_b),
        );
        let (slots_a, slots_b) = slots.split_at_mut(ks);
        let [lane_a, lane_b] = &mut lanes;
        let (dv_a, dv_b) = dv.split_at_mut(js * h);
        let (ds_a, ds_b) = ds.as_slice().split_at(js * n);
        let g_a = &mut grads[t0..t0 + tn];
        let sh = self.shared(params);
        cx.join(
            || sh.backward_half(0, js, slots_a, ds_a, lane_a, g_a, dv_a),
            || sh.backward_half(js, m, slots_b, ds_b, lane_b, &mut g_b, dv_b),
        );
        (self.slots, self.lanes, self.dv, self.tail_grad_b) = (slots, lanes, dv, g_b);
        if js < m {
            // The second half's contributions, added in a fixed order.
            grads[t0..t0 + tn].iter_mut().zip(&self.tail_grad_b).for_each(|(g, &b)| *g += b);
            let [lane_a, lane_b] = &mut self.lanes;
            lane_a.du.iter_mut().zip(&lane_b.du).for_each(|(u, &b)| *u += b);
        }
        // ∂Wx = ∂U·Xᵀ, ∂Wy = ∂V·Yᵀ, ∂b = Σ_j ∂V_j.
        let (gwx, rest) = grads.split_at_mut(h * dx);
        let (gwy, rest) = rest.split_at_mut(h * dy);
        cx.gemm(
            T::one(),
            view(&self.lanes[0].du, h, n),
            Op::N,
            view(&self.xt, dx, n),
            Op::T,
            T::zero(),
            view_mut(gwx, h, dx),
        );
        cx.gemm(T::one(), view(&self.dv, h, m), Op::N, view(&self.yt, dy, m), Op::T, T::zero(), view_mut(gwy, h, dy));
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
