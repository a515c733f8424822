//! Dense layers, activations and multi-layer perceptrons with hand-written backprop.
//!
//! Activations are stored **features × batch** (one column per sample), so a block of samples
//! is a contiguous column range. Parameters live outside the network in one flat slice (weights
//! `out × in` column-major, then the bias, layer after layer), so an optimiser, a checkpoint or a
//! finite-difference test sees a single vector.

use crate::compute::Compute;
use crate::gemm::{Op, view, view_mut};
use crate::real::Real;
use nalgebra::DMatrixView;
use rand::RngExt;
use serde::{Deserialize, Serialize};

/// An element-wise non-linearity.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "kind")]
pub enum Activation {
    /// `z`.
    Identity,
    /// `max(z, 0)`.
    Relu,
    /// `z` if `z > 0` else `slope·z`.
    LeakyRelu {
        /// Negative slope.
        slope: f64,
    },
    /// `tanh z`.
    Tanh,
    /// `ln(1 + e^z)`.
    Softplus,
    /// `z` if `z > 0` else `α(e^z − 1)`.
    Elu {
        /// α.
        alpha: f64,
    },
}

impl Activation {
    /// Parses `relu`, `leaky_relu[:slope]`, `tanh`, `softplus`, `elu[:alpha]`, `identity`.
    pub fn parse(s: &str) -> crate::Result<Self> {
        let (name, arg) = s.split_once(':').map_or((s, None), |(a, b)| (a, Some(b)));
        let num = |d: f64| -> crate::Result<f64> {
            arg.map_or(Ok(d), |a| {
                a.parse().map_err(|_| crate::Error::param("activation parameter", a, "must be a number"))
            })
        };
        Ok(match name {
            "identity" | "linear" => Activation::Identity,
            "relu" => Activation::Relu,
            "leaky_relu" | "leakyrelu" => Activation::LeakyRelu { slope: num(0.01)? },
            "tanh" => Activation::Tanh,
            "softplus" => Activation::Softplus,
            "elu" => Activation::Elu { alpha: num(1.0)? },
            _ => {
                return Err(crate::Error::Unknown {
                    kind: "activation",
                    name: s.into(),
                    known: "relu, leaky_relu[:slope], tanh, softplus, elu[:alpha], identity".into(),
                });
            }
        })
    }

    /// `a = act(z)` element-wise.
    pub fn forward<T: Real>(self, z: &[T], a: &mut [T]) {
        let zero = T::zero();
        match self {
            Activation::Identity => a.copy_from_slice(z),
            Activation::Relu => a.iter_mut().zip(z).for_each(|(a, &z)| *a = if z > zero { z } else { zero }),
            Activation::LeakyRelu { slope } => {
                let s = T::of(slope);
                a.iter_mut().zip(z).for_each(|(a, &z)| *a = if z > zero { z } else { s * z })
            }
            Activation::Tanh => a.iter_mut().zip(z).for_each(|(a, &z)| *a = z.tanh()),
            Activation::Softplus => crate::numerics::softplus_in_place(z, a),
            Activation::Elu { alpha } => {
                let al = T::of(alpha);
                a.iter_mut().zip(z).for_each(|(a, &z)| *a = if z > zero { z } else { al * z.exp_m1() })
            }
        }
    }

    /// `d ← d ⊙ act'(z)`, using the stored output `a = act(z)` where that is cheaper.
    pub fn backward<T: Real>(self, z: &[T], a: &[T], d: &mut [T]) {
        let (zero, one) = (T::zero(), T::one());
        match self {
            Activation::Identity => {}
            // Branch-free selects so the loops vectorise (a conditional store does not).
            Activation::Relu => d.iter_mut().zip(z).for_each(|(d, &z)| *d = if z > zero { *d } else { zero }),
            Activation::LeakyRelu { slope } => {
                let s = T::of(slope);
                d.iter_mut().zip(z).for_each(|(d, &z)| *d *= if z > zero { one } else { s })
            }
            Activation::Tanh => d.iter_mut().zip(a).for_each(|(d, &a)| *d *= one - a * a),
            Activation::Softplus => crate::numerics::softplus_backward_in_place(z, a, d),
            Activation::Elu { alpha } => {
                let al = T::of(alpha);
                d.iter_mut().zip(z.iter().zip(a)).for_each(|(d, (&z, &a))| {
                    if z <= zero {
                        *d *= a + al
                    }
                })
            }
        }
    }
}

/// How weights (and biases) are initialised.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Init {
    /// PyTorch's `nn.Linear` default: `W, b ~ U(±1/√fan_in)` (so results compare with PyTorch).
    #[default]
    Torch,
    /// He/Kaiming uniform for ReLU: `W ~ U(±√(6/fan_in))`, `b = 0`.
    Kaiming,
    /// Glorot/Xavier uniform: `W ~ U(±√(6/(fan_in + fan_out)))`, `b = 0`.
    Glorot,
}

/// Fills a `fan_out × fan_in` weight block and its bias.
pub fn init_dense<T: Real>(
    init: Init,
    fan_in: usize,
    fan_out: usize,
    w: &mut [T],
    b: &mut [T],
    rng: &mut dyn crate::rng::Rng,
) {
    let (wb, bb) = match init {
        Init::Torch => {
            let s = 1.0 / (fan_in as f64).sqrt();
            (s, s)
        }
        Init::Kaiming => ((6.0 / fan_in as f64).sqrt(), 0.0),
        Init::Glorot => ((6.0 / (fan_in + fan_out) as f64).sqrt(), 0.0),
    };
    for v in w.iter_mut() {
        *v = T::of(rng.random_range(-wb..=wb));
    }
    for v in b.iter_mut() {
        *v = if bb > 0.0 { T::of(rng.random_range(-bb..=bb)) } else { T::zero() };
    }
}

#[derive(Clone, Debug)]
struct Layer {
    inp: usize,
    out: usize,
    w: usize,
    b: usize,
}

/// The shape of an MLP: `input → hidden[0] → … → output`, one activation after every hidden
/// layer, a linear output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MlpSpec {
    /// Input width.
    pub input: usize,
    /// Hidden widths.
    pub hidden: Vec<usize>,
    /// Output width.
    pub output: usize,
    /// Hidden-layer activation.
    pub activation: Activation,
}

/// A multi-layer perceptron whose parameters start at `offset` in a flat parameter slice.
/// Immutable: forward caches live in an [`MlpCache`], backward scratch in an [`MlpScratch`].
#[derive(Clone, Debug)]
pub struct Mlp {
    cx: Compute,
    spec: MlpSpec,
    offset: usize,
    layers: Vec<Layer>,
    n_params: usize,
}

/// Per-layer pre-activations `z` and activations `a` for a batch of columns.
#[derive(Clone, Debug, Default)]
pub struct MlpCache<T> {
    z: Vec<Vec<T>>,
    a: Vec<Vec<T>>,
    cols: usize,
}

/// Two ping-pong buffers for backprop deltas.
#[derive(Clone, Debug, Default)]
pub struct MlpScratch<T> {
    d: [Vec<T>; 2],
}

impl Mlp {
    /// An MLP whose parameters occupy `offset .. offset + n_params()`.
    pub fn new(spec: MlpSpec, offset: usize) -> Self {
        let widths: Vec<usize> =
            std::iter::once(spec.input).chain(spec.hidden.iter().copied()).chain([spec.output]).collect();
        let mut layers = Vec::new();
        let mut at = offset;
        for w in widths.windows(2) {
            let (inp, out) = (w[0], w[1]);
            layers.push(Layer { inp, out, w: at, b: at + inp * out });
            at += inp * out + out;
        }
        Mlp { cx: Compute::default(), spec, offset, layers, n_params: at - offset }
    }

    /// Sets the backend its products use.
    pub fn set_compute(&mut self, compute: Compute) {
        self.cx = compute;
    }

    /// Number of parameters.
    pub fn n_params(&self) -> usize {
        self.n_params
    }

    /// Where the parameters start.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The shape.
    pub fn spec(&self) -> &MlpSpec {
        &self.spec
    }

    /// Multiply-adds of one forward pass over `cols` samples.
    pub fn macs(&self, cols: usize) -> f64 {
        self.layers.iter().map(|l| (l.inp * l.out * cols) as f64).sum()
    }

    /// Zeroes the output layer's weights and bias: the network then outputs 0 for every input.
    pub fn zero_output<T: Real>(&self, params: &mut [T]) {
        if let Some(l) = self.layers.last() {
            params[l.w..l.b + l.out].fill(T::zero());
        }
    }

    /// Initialises this network's parameters.
    pub fn init<T: Real>(&self, params: &mut [T], init: Init, rng: &mut dyn crate::rng::Rng) {
        for l in &self.layers {
            let (w, rest) = params[l.w..].split_at_mut(l.inp * l.out);
            init_dense(init, l.inp, l.out, w, &mut rest[..l.out], rng);
        }
    }

    /// Forward pass on `op(input)` (`input_width × cols`); returns the output (`output × cols`),
    /// which lives in `cache`. No allocation once `cache` has seen `cols` columns.
    pub fn forward<'c, T: Real>(
        &self,
        params: &[T],
        input: DMatrixView<'_, T>,
        op: Op,
        cache: &'c mut MlpCache<T>,
    ) -> DMatrixView<'c, T> {
        let cx = self.cx;
        let cols = if op == Op::N { input.ncols() } else { input.nrows() };
        let nl = self.layers.len();
        cache.z.resize_with(nl, Vec::new);
        cache.a.resize_with(nl, Vec::new);
        cache.cols = cols;
        for (k, l) in self.layers.iter().enumerate() {
            let len = l.out * cols;
            cache.z[k].resize(len, T::zero());
            let (before, after) = cache.a.split_at_mut(k);
            let z = &mut cache.z[k][..len];
            // z ← b ⊗ 1ᵀ, then z ← W·x + z.
            let b = &params[l.b..l.b + l.out];
            for col in z.chunks_exact_mut(l.out) {
                col.copy_from_slice(b);
            }
            let w = view(&params[l.w..], l.out, l.inp);
            if k == 0 {
                cx.gemm(T::one(), w, Op::N, input, op, T::one(), view_mut(z, l.out, cols));
            } else {
                let prev = &before[k - 1];
                cx.gemm(T::one(), w, Op::N, view(prev, l.inp, cols), Op::N, T::one(), view_mut(z, l.out, cols));
            }
            if k + 1 < nl {
                // Hidden layers always store their activations (the next layer's input).
                after[0].resize(len, T::zero());
                self.spec.activation.forward(&cache.z[k][..len], &mut after[0][..len]);
            }
        }
        self.output(cache)
    }

    /// The output of the last forward pass held in `cache`.
    pub fn output<'c, T: Real>(&self, cache: &'c MlpCache<T>) -> DMatrixView<'c, T> {
        // The output layer is linear: its activation is its pre-activation.
        view(&cache.z[self.layers.len() - 1], self.spec.output, cache.cols)
    }

    /// Backward pass for the forward pass held in `cache`: given `∂L/∂output` (`output × cols`),
    /// writes (or, with `accumulate`, adds) the parameter gradients into `grads` — this
    /// network's own `n_params()` entries, not the whole vector — and `∂L/∂op(input)`
    /// (`input × cols`) into `d_input` when given.
    #[allow(clippy::too_many_arguments)]
    pub fn backward<T: Real>(
        &self,
        params: &[T],
        grads: &mut [T],
        input: DMatrixView<'_, T>,
        op: Op,
        cache: &MlpCache<T>,
        d_out: DMatrixView<'_, T>,
        scratch: &mut MlpScratch<T>,
        accumulate: bool,
        d_input: Option<&mut [T]>,
    ) {
        let cx = self.cx;
        let cols = cache.cols;
        let nl = self.layers.len();
        let beta = if accumulate { T::one() } else { T::zero() };
        let max_w = self.layers.iter().map(|l| l.inp.max(l.out)).max().unwrap_or(0) * cols;
        for d in scratch.d.iter_mut() {
            if d.len() < max_w {
                d.resize(max_w, T::zero());
            }
        }
        let [d0, d1] = &mut scratch.d;
        // `cur` holds δ of layer k (out × cols); the last layer is linear, so δ = d_out.
        let mut cur: &mut Vec<T> = d0;
        let mut other: &mut Vec<T> = d1;
        let last = &self.layers[nl - 1];
        cur[..last.out * cols].copy_from_slice(&d_out.as_slice_contiguous()[..last.out * cols]);
        let mut d_input = d_input;
        for k in (0..nl).rev() {
            let l = &self.layers[k];
            let delta = &cur[..l.out * cols];
            // ∂W = δ · xᵀ, ∂b = Σ_cols δ.
            let (gw, gb) = grads[l.w - self.offset..l.b + l.out - self.offset].split_at_mut(l.inp * l.out);
            if k == 0 {
                let op_t = if op == Op::N { Op::T } else { Op::N };
                cx.gemm(T::one(), view(delta, l.out, cols), Op::N, input, op_t, beta, view_mut(gw, l.out, l.inp));
            } else {
                let prev = &cache.a[k - 1][..l.inp * cols];
                cx.gemm(
                    T::one(),
                    view(delta, l.out, cols),
                    Op::N,
                    view(prev, l.inp, cols),
                    Op::T,
                    beta,
                    view_mut(gw, l.out, l.inp),
                );
            }
            if !accumulate {
                gb.fill(T::zero());
            }
            for col in delta.chunks_exact(l.out) {
                gb.iter_mut().zip(col).for_each(|(g, &v)| *g += v);
            }
            // δ_{k−1} = (Wᵀ δ) ⊙ act'(z_{k−1}).
            let w = view(&params[l.w..], l.out, l.inp);
            if k > 0 {
                let target = &mut other[..l.inp * cols];
                cx.gemm(T::one(), w, Op::T, view(delta, l.out, cols), Op::N, T::zero(), view_mut(target, l.inp, cols));
                let len = l.inp * cols;
                self.spec.activation.backward(&cache.z[k - 1][..len], &cache.a[k - 1][..len], target);
                std::mem::swap(&mut cur, &mut other);
            } else if let Some(di) = d_input.take() {
                cx.gemm(T::one(), w, Op::T, view(delta, l.out, cols), Op::N, T::zero(), view_mut(di, l.inp, cols));
            }
        }
    }
}

/// The slice behind a contiguous column-major view.
pub trait ContiguousSlice<'a, T> {
    /// The `rows·cols` elements, column after column.
    fn as_slice_contiguous(&self) -> &'a [T];
}

impl<'a, T: Real> ContiguousSlice<'a, T> for DMatrixView<'a, T> {
    fn as_slice_contiguous(&self) -> &'a [T] {
        let (r, c) = self.shape();
        assert!(self.strides() == (1, r) || r * c == 0, "expected a contiguous column-major view");
        // SAFETY: asserted contiguous: the r·c elements from the pointer are the matrix.
        unsafe { std::slice::from_raw_parts(self.as_ptr(), r * c) }
    }
}
