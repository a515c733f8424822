//! Normalizing-flow layers with exact log-determinants and hand-written backprop, and the
//! [`Flow`] that stacks them.
//!
//! Layout: activations are **features × batch**, column-major (one sample per column, as in
//! [`crate::critics::mlp`]); a flow's parameters live at an offset in one flat `f64` slice.
//! Every layer maps `x ↦ z` and adds `log |det ∂z/∂x|` of each sample to a per-sample vector.
//! Only the data → latent direction is needed for density estimation and for the MI read-off,
//! so the element-wise layers are invertible (strictly monotone) without a closed-form inverse.
//!
//! The layers (`d` = dimension, `n` = batch):
//!
//! | layer | map | `log|det J|` per sample |
//! |---|---|---|
//! | [`LayerSpec::Affine`] | `z = eˢ ⊙ x + b` | `Σ_i s_i` |
//! | [`LayerSpec::SinhArcsinh`] | `z = sinh(eᵟ·asinh x − ε)` (Jones & Pewsey 2009) | `Σ_i δ_i + log cosh w_i − ½ log(1 + x_i²)` |
//! | [`LayerSpec::TanhSum`] | `z = eᵅ x + Σ_k e^{a_k} tanh(e^{b_k}(x − c_k))` | `Σ_i log z_i'` |
//! | [`LayerSpec::Mixing`] | `z = W x`, `W` a full learned `d × d` matrix (Glow's 1×1 mixing) | `log |det W|` |
//! | [`LayerSpec::Coupling`] | RealNVP (Dinh et al. 2017): `z_B = x_B ⊙ e^{s(x_A)} + t(x_A)`, `z_A = x_A` | `Σ_{i∈B} s_i(x_A)` |
//!
//! The element-wise layers handle heavy or light tails and non-linear marginals (the sinh–arcsinh
//! map with `eᵟ < 1` compresses polynomial tails: `asinh(y³)/3 ≈ log y`); the coupling layers'
//! scale is soft-clamped, `s = c·tanh(ŝ/c)`, so one step cannot blow up the Jacobian. Their
//! scale/shift network is the crate's [`Mlp`], output layer zeroed at initialisation so every
//! coupling starts as the identity.

use crate::critics::mlp::{Activation, ContiguousSlice, Init, Mlp, MlpCache, MlpScratch, MlpSpec};
use crate::error::{Error, Result};
use crate::gemm::{Backend, Op, gemm, view, view_mut};
use crate::rng::Rng;
use nalgebra::DMatrix;
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

/// One layer of a flow.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "layer", rename_all = "snake_case")]
pub enum LayerSpec {
    /// Element-wise affine `z = eˢ ⊙ x + b` (ActNorm-like: [`Flow::init`] sets it to standardise
    /// its input on the initialisation data).
    Affine,
    /// Element-wise sinh–arcsinh `z = sinh(eᵟ·asinh x − ε)` (Jones & Pewsey 2009), the identity at
    /// `δ = ε = 0`: the layer for heavy (`eᵟ < 1`) or light (`eᵟ > 1`) tails and skew.
    SinhArcsinh,
    /// Element-wise strictly increasing `z = eᵅ x + Σ_{k<K} e^{a_k} tanh(e^{b_k}(x − c_k))`:
    /// a flexible monotone map (steep or flat regions where the marginal needs them).
    TanhSum {
        /// Number of tanh components per dimension.
        k: usize,
    },
    /// A full invertible linear map `z = W x` (initialised at a random rotation).
    Mixing,
    /// An affine coupling layer (RealNVP).
    Coupling {
        /// Hidden widths of the scale/shift network.
        hidden: Vec<usize>,
        /// Its activation.
        activation: Activation,
        /// The `⌊d/2⌋` conditioning coordinates are `offset, offset + 1, … (mod d)`; the others
        /// are transformed. [`FlowSpec::standard`] advances it by `⌊d/2⌋` per block, so every
        /// coordinate is both conditioning and transformed, whatever `d`.
        offset: usize,
        /// Soft clamp `c` of the log-scale, `s = c·tanh(ŝ/c)`.
        clamp: f64,
    },
}

/// A flow: its dimension and its layers, applied in order (data → latent).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlowSpec {
    /// Dimension of the data (and of the latent).
    pub dim: usize,
    /// The layers, data side first.
    pub layers: Vec<LayerSpec>,
}

impl FlowSpec {
    /// The leading element-wise layers (everything before the first `Mixing` or `Coupling`),
    /// whose parameters are the first ones of this flow's.
    pub fn elementwise_prefix(&self) -> FlowSpec {
        let layers = self
            .layers
            .iter()
            .take_while(|l| !matches!(l, LayerSpec::Mixing | LayerSpec::Coupling { .. }))
            .cloned()
            .collect();
        FlowSpec { dim: self.dim, layers }
    }

    /// The default flow for the MI estimators: `Affine → SinhArcsinh → TanhSum(k) → Affine`, then
    /// `blocks × (Mixing → Coupling)` with rolling conditioning halves (no couplings when `dim = 1`), then
    /// a final `Affine`.
    pub fn standard(dim: usize, blocks: usize, hidden: &[usize], k: usize) -> Self {
        let mut layers = vec![LayerSpec::Affine, LayerSpec::SinhArcsinh, LayerSpec::TanhSum { k }, LayerSpec::Affine];
        if dim >= 2 {
            for b in 0..blocks {
                layers.push(LayerSpec::Mixing);
                layers.push(LayerSpec::Coupling {
                    hidden: hidden.to_vec(),
                    activation: Activation::Tanh,
                    offset: (b * (dim / 2)) % dim,
                    clamp: 3.0,
                });
            }
            layers.push(LayerSpec::Affine);
        }
        FlowSpec { dim, layers }
    }
}

#[derive(Clone, Debug)]
struct Layer {
    spec: LayerSpec,
    offset: usize,
    n_params: usize,
    mlp: Option<Mlp>,
    cond: Vec<usize>,
    trans: Vec<usize>,
}

/// Buffers of one layer's forward pass that its backward pass reads.
#[derive(Clone, Debug, Default)]
struct LayerCache {
    mlp: MlpCache<f64>,
    scratch: MlpScratch<f64>,
    cond_in: Vec<f64>,
    s: Vec<f64>,
    d_out: Vec<f64>,
    d_cond: Vec<f64>,
    w_inv: Vec<f64>,
    // Element-wise layers: per-parameter exponentials and per-element values the backward pass
    // reuses (tanh of each component, z', asinh x, cosh w, tanh w).
    ea: Vec<f64>,
    eb: Vec<f64>,
    t: Vec<f64>,
    g: Vec<f64>,
    u: Vec<f64>,
}

/// Forward activations and scratch of a [`Flow`] for one batch; reused across batches (no
/// allocation once it has seen the batch size).
#[derive(Clone, Debug, Default)]
pub struct FlowCache {
    acts: Vec<Vec<f64>>,
    layers: Vec<LayerCache>,
    logdet: Vec<f64>,
    delta: [Vec<f64>; 2],
    n: usize,
}

impl FlowCache {
    /// The latent `z` of the last forward pass (`dim × n`, column-major).
    pub fn latent(&self) -> &[f64] {
        self.acts.last().map_or(&[], |a| a.as_slice())
    }

    /// `log |det ∂z/∂x|` of each sample of the last forward pass.
    pub fn logdet(&self) -> &[f64] {
        &self.logdet[..self.n]
    }
}

/// A normalizing flow `f: ℝᵈ → ℝᵈ` whose parameters occupy `offset .. offset + n_params()` of a
/// flat slice. Immutable; per-batch state lives in a [`FlowCache`].
#[derive(Clone, Debug)]
pub struct Flow {
    spec: FlowSpec,
    layers: Vec<Layer>,
    offset: usize,
    n_params: usize,
}

/// `log cosh w` without overflow.
fn log_cosh(w: f64) -> f64 {
    let a = w.abs();
    a + (-2.0 * a).exp().ln_1p() - std::f64::consts::LN_2
}

impl Flow {
    /// Builds the flow; errors on a zero dimension, a coupling layer in one dimension, a
    /// `TanhSum` without components or a non-positive clamp.
    pub fn new(spec: FlowSpec, offset: usize) -> Result<Self> {
        let d = spec.dim;
        if d == 0 {
            return Err(Error::param("flow dimension", d, "must be at least 1"));
        }
        let mut layers = Vec::new();
        let mut at = offset;
        for ls in &spec.layers {
            let (n_params, mlp, cond, trans) = match ls {
                LayerSpec::Affine | LayerSpec::SinhArcsinh => (2 * d, None, vec![], vec![]),
                LayerSpec::TanhSum { k } => {
                    if *k == 0 {
                        return Err(Error::param("TanhSum components", k, "must be at least 1"));
                    }
                    (d + 3 * d * k, None, vec![], vec![])
                }
                LayerSpec::Mixing => (d * d, None, vec![], vec![]),
                LayerSpec::Coupling { hidden, activation, offset, clamp } => {
                    if d < 2 {
                        return Err(Error::param("coupling dimension", d, "a coupling layer needs at least 2"));
                    }
                    if !(*clamp > 0.0 && clamp.is_finite()) {
                        return Err(Error::param("coupling clamp", clamp, "must be positive and finite"));
                    }
                    let h = d / 2;
                    let cond: Vec<usize> = (0..h).map(|i| (offset + i) % d).collect();
                    let trans: Vec<usize> = (0..d).filter(|i| !cond.contains(i)).collect();
                    let mlp = Mlp::new(
                        MlpSpec {
                            input: cond.len(),
                            hidden: hidden.clone(),
                            output: 2 * trans.len(),
                            activation: *activation,
                        },
                        at,
                    );
                    (mlp.n_params(), Some(mlp), cond, trans)
                }
            };
            layers.push(Layer { spec: ls.clone(), offset: at, n_params, mlp, cond, trans });
            at += n_params;
        }
        Ok(Flow { spec, layers, offset, n_params: at - offset })
    }

    /// Number of parameters.
    pub fn n_params(&self) -> usize {
        self.n_params
    }

    /// Where the parameters start.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Dimension.
    pub fn dim(&self) -> usize {
        self.spec.dim
    }

    /// The spec.
    pub fn spec(&self) -> &FlowSpec {
        &self.spec
    }

    /// Initialises the parameters: element-wise layers at the identity (`TanhSum` with small
    /// components centred on a grid over `[−2, 2]`), mixing layers at a random rotation,
    /// couplings with PyTorch's initialisation and a zero output layer (the identity). When
    /// `data` (`dim × n`, column-major) is given, every `Affine` layer is then set to standardise
    /// its input (mean 0, standard deviation 1 per coordinate) on that data, layer after layer.
    pub fn init(&self, params: &mut [f64], rng: &mut dyn Rng, data: Option<(&[f64], usize)>) -> Result<()> {
        self.check_params(params)?;
        let d = self.spec.dim;
        for l in &self.layers {
            let p = &mut params[l.offset..l.offset + l.n_params];
            match &l.spec {
                LayerSpec::Affine | LayerSpec::SinhArcsinh => p.fill(0.0),
                LayerSpec::TanhSum { k } => {
                    let k = *k;
                    p[..d].fill(0.0);
                    for i in 0..d {
                        for j in 0..k {
                            p[d + i * k + j] = (0.1f64).ln();
                            p[d + d * k + i * k + j] = 0.0;
                            p[d + 2 * d * k + i * k + j] =
                                if k == 1 { 0.0 } else { -2.0 + 4.0 * j as f64 / (k - 1) as f64 };
                        }
                    }
                }
                LayerSpec::Mixing => {
                    let g = DMatrix::<f64>::from_fn(d, d, |_, _| StandardNormal.sample(rng));
                    let q = g.qr().q();
                    p.copy_from_slice(q.as_slice());
                }
                LayerSpec::Coupling { .. } => {
                    let mlp = l.mlp.as_ref().expect("coupling has an MLP");
                    mlp.init(params, Init::Torch, rng);
                    mlp.zero_output(params);
                }
            }
        }
        if let Some((x, n)) = data {
            self.standardise(params, x, n, 0)?;
        }
        Ok(())
    }

    /// Sets every `Affine` layer from index `from` on to standardise its input (mean 0, standard
    /// deviation 1 per coordinate) on `x` (`dim × n`), layer after layer; the other parameters
    /// are left as they are.
    pub fn standardise(&self, params: &mut [f64], x: &[f64], n: usize, from: usize) -> Result<()> {
        self.check_params(params)?;
        let d = self.spec.dim;
        {
            self.check_input(x, n)?;
            let mut cache = FlowCache::default();
            for (li, l) in self.layers.iter().enumerate() {
                if l.spec != LayerSpec::Affine || li < from {
                    continue;
                }
                // Forward through the layers before this one, then standardise its input.
                self.forward_until(params, x, n, &mut cache, li);
                let input = &cache.acts[li];
                for i in 0..d {
                    let (mut m, mut m2) = (0.0, 0.0);
                    for j in 0..n {
                        let v = input[i + j * d];
                        m += v;
                        m2 += v * v;
                    }
                    m /= n as f64;
                    let sd = (m2 / n as f64 - m * m).max(1e-12).sqrt();
                    if !(m.is_finite() && sd.is_finite()) {
                        return Err(Error::param("initialisation data", "non-finite statistics", "check the input"));
                    }
                    params[l.offset + i] = -sd.ln();
                    params[l.offset + d + i] = -m / sd;
                }
            }
        }
        Ok(())
    }

    /// The parameter range (absolute indices) of each layer, in order.
    pub fn layer_ranges(&self) -> Vec<std::ops::Range<usize>> {
        self.layers.iter().map(|l| l.offset..l.offset + l.n_params).collect()
    }

    /// The input of layer `layer` (the output of the layers before it) for `x` (`dim × n`),
    /// column-major.
    pub fn input_of(&self, params: &[f64], x: &[f64], n: usize, layer: usize) -> Result<Vec<f64>> {
        self.check_params(params)?;
        self.check_input(x, n)?;
        let mut cache = FlowCache::default();
        let upto = layer.min(self.layers.len());
        self.forward_until(params, x, n, &mut cache, upto);
        Ok(cache.acts[upto][..self.spec.dim * n].to_vec())
    }

    fn check_params(&self, params: &[f64]) -> Result<()> {
        if params.len() < self.offset + self.n_params {
            return Err(Error::Shape {
                what: "flow parameters".into(),
                expected: format!("at least {} values", self.offset + self.n_params),
                got: params.len().to_string(),
            });
        }
        Ok(())
    }

    fn check_input(&self, x: &[f64], n: usize) -> Result<()> {
        let d = self.spec.dim;
        if x.len() < d * n || n == 0 {
            return Err(Error::Shape {
                what: "flow input".into(),
                expected: format!("{d} × n with n ≥ 1"),
                got: format!("{} values for n = {n}", x.len()),
            });
        }
        if let Some(pos) = x[..d * n].iter().position(|v| !v.is_finite()) {
            return Err(Error::NonFinite { what: "flow input".into(), row: pos % d, col: pos / d, value: x[pos] });
        }
        Ok(())
    }

    /// Forward pass on `x` (`dim × n`, column-major); the latent and the per-sample log-dets are
    /// then [`FlowCache::latent`] and [`FlowCache::logdet`]. A singular mixing matrix gives an
    /// infinite log-det (which training reports as divergence), never a panic.
    pub fn forward(&self, params: &[f64], x: &[f64], n: usize, cache: &mut FlowCache) -> Result<()> {
        self.check_params(params)?;
        self.check_input(x, n)?;
        self.forward_until(params, x, n, cache, self.layers.len());
        Ok(())
    }

    /// Forward through the first `upto` layers.
    fn forward_until(&self, params: &[f64], x: &[f64], n: usize, cache: &mut FlowCache, upto: usize) {
        let d = self.spec.dim;
        let len = d * n;
        let nl = self.layers.len();
        cache.n = n;
        cache.acts.resize_with(nl + 1, Vec::new);
        cache.layers.resize_with(nl, LayerCache::default);
        cache.acts[0].resize(len, 0.0);
        cache.acts[0].copy_from_slice(&x[..len]);
        cache.logdet.resize(n, 0.0);
        cache.logdet.fill(0.0);
        for li in 0..upto {
            let (before, after) = cache.acts.split_at_mut(li + 1);
            let input = &before[li][..len];
            let out = &mut after[0];
            out.resize(len, 0.0);
            self.layers[li].forward(d, n, params, input, &mut out[..len], &mut cache.logdet, &mut cache.layers[li]);
        }
    }

    /// Backward pass for the forward pass in `cache`: given `∂L/∂z` (`dim × n`) and `∂L/∂logdet`
    /// (one per sample), **adds** `∂L/∂θ` into `grads` (this flow's own `n_params()` entries) and
    /// writes `∂L/∂x` into `d_input` when given.
    ///
    /// # Panics
    /// When a slice is shorter than the forward pass needs (`dim × n` for `d_latent` and
    /// `d_input`, `n` for `d_logdet`, `n_params()` for `grads`): a programming error, like a
    /// backward pass without its forward pass.
    pub fn backward(
        &self,
        params: &[f64],
        cache: &mut FlowCache,
        d_latent: &[f64],
        d_logdet: &[f64],
        grads: &mut [f64],
        d_input: Option<&mut [f64]>,
    ) {
        let d = self.spec.dim;
        let n = cache.n;
        let len = d * n;
        for b in cache.delta.iter_mut() {
            b.resize(len, 0.0);
        }
        let [d0, d1] = &mut cache.delta;
        let (mut cur, mut next) = (d0, d1);
        cur[..len].copy_from_slice(&d_latent[..len]);
        for li in (0..self.layers.len()).rev() {
            let l = &self.layers[li];
            let g = &mut grads[l.offset - self.offset..l.offset - self.offset + l.n_params];
            l.backward(
                d,
                n,
                params,
                &cache.acts[li][..len],
                &cur[..len],
                d_logdet,
                g,
                &mut next[..len],
                &mut cache.layers[li],
            );
            std::mem::swap(&mut cur, &mut next);
        }
        if let Some(di) = d_input {
            di[..len].copy_from_slice(&cur[..len]);
        }
    }
}

// Index loops over the column-major `(i, j) ↦ i + j·d` layout read more plainly than zipped
// iterators over several differently strided buffers.
#[allow(clippy::needless_range_loop)]
impl Layer {
    // Long because it is one `match` over the layer kinds, each arm the forward pass of one kind;
    // `backward` mirrors it arm for arm, so that each gradient sits beside its forward in reading.
    #[allow(clippy::too_many_arguments)]
    fn forward(
        &self,
        d: usize,
        n: usize,
        params: &[f64],
        x: &[f64],
        z: &mut [f64],
        logdet: &mut [f64],
        c: &mut LayerCache,
    ) {
        let p = &params[self.offset..self.offset + self.n_params];
        match &self.spec {
            LayerSpec::Affine => {
                let (s, b) = p.split_at(d);
                let sum_s: f64 = s.iter().sum();
                for j in 0..n {
                    for i in 0..d {
                        z[i + j * d] = s[i].exp() * x[i + j * d] + b[i];
                    }
                    logdet[j] += sum_s;
                }
            }
            LayerSpec::SinhArcsinh => {
                let (ld, eps) = p.split_at(d);
                c.ea.clear();
                c.ea.extend(ld.iter().map(|v| v.exp()));
                c.u.resize(d * n, 0.0);
                c.t.resize(d * n, 0.0);
                c.g.resize(d * n, 0.0);
                for j in 0..n {
                    let mut acc = 0.0;
                    for i in 0..d {
                        let e = i + j * d;
                        let xv = x[e];
                        let u = xv.asinh();
                        let w = c.ea[i] * u - eps[i];
                        let sh = w.sinh();
                        let ch = sh.hypot(1.0); // cosh w = √(1 + sinh² w), without overflow
                        z[e] = sh;
                        (c.u[e], c.g[e], c.t[e]) = (u, ch, sh / ch);
                        acc += ld[i] + log_cosh(w) - 0.5 * xv.mul_add(xv, 1.0).ln();
                    }
                    logdet[j] += acc;
                }
            }
            LayerSpec::TanhSum { k } => {
                let k = *k;
                let (alpha, rest) = p.split_at(d);
                let (a, rest) = rest.split_at(d * k);
                let (b, cc) = rest.split_at(d * k);
                c.ea.clear();
                c.ea.extend(a.iter().map(|v| v.exp()));
                c.eb.clear();
                c.eb.extend(b.iter().map(|v| v.exp()));
                c.t.resize(d * k * n, 0.0);
                c.g.resize(d * n, 0.0);
                for j in 0..n {
                    let mut acc = 0.0;
                    for i in 0..d {
                        let e = i + j * d;
                        let xv = x[e];
                        let ea = alpha[i].exp();
                        let (mut zv, mut g) = (ea * xv, ea);
                        for m in i * k..(i + 1) * k {
                            let (am, bm) = (c.ea[m], c.eb[m]);
                            let t = (bm * (xv - cc[m])).tanh();
                            c.t[j * d * k + m] = t;
                            zv += am * t;
                            g += am * bm * (1.0 - t * t);
                        }
                        z[e] = zv;
                        c.g[e] = g;
                        acc += g.ln();
                    }
                    logdet[j] += acc;
                }
            }
            LayerSpec::Mixing => {
                let w = DMatrix::from_column_slice(d, d, p);
                let ld = match w.clone().try_inverse() {
                    Some(inv) => {
                        c.w_inv.resize(d * d, 0.0);
                        c.w_inv.copy_from_slice(inv.as_slice());
                        let det = w.lu().determinant();
                        det.abs().ln()
                    }
                    None => {
                        c.w_inv.resize(d * d, f64::NAN);
                        c.w_inv.fill(f64::NAN);
                        f64::NEG_INFINITY
                    }
                };
                gemm(Backend::default(), 1.0, view(p, d, d), Op::N, view(x, d, n), Op::N, 0.0, view_mut(z, d, n));
                logdet[..n].iter_mut().for_each(|v| *v += ld);
            }
            LayerSpec::Coupling { clamp, .. } => {
                let mlp = self.mlp.as_ref().expect("coupling has an MLP");
                let (h, nb) = (self.cond.len(), self.trans.len());
                c.cond_in.resize(h * n, 0.0);
                for j in 0..n {
                    for (r, &i) in self.cond.iter().enumerate() {
                        c.cond_in[r + j * h] = x[i + j * d];
                    }
                }
                z.copy_from_slice(x);
                let out = mlp.forward(params, view(&c.cond_in, h, n), Op::N, &mut c.mlp);
                let out = out.as_slice_contiguous();
                c.s.resize(nb * n, 0.0);
                for j in 0..n {
                    let mut acc = 0.0;
                    for (r, &i) in self.trans.iter().enumerate() {
                        let s = clamp * (out[r + j * 2 * nb] / clamp).tanh();
                        let t = out[nb + r + j * 2 * nb];
                        c.s[r + j * nb] = s;
                        z[i + j * d] = x[i + j * d] * s.exp() + t;
                        acc += s;
                    }
                    logdet[j] += acc;
                }
            }
        }
    }

    // Long for the reason `forward` is: one arm per layer kind, in the same order.
    #[allow(clippy::too_many_arguments)]
    fn backward(
        &self,
        d: usize,
        n: usize,
        params: &[f64],
        x: &[f64],
        dz: &[f64],
        dld: &[f64],
        g: &mut [f64],
        dx: &mut [f64],
        c: &mut LayerCache,
    ) {
        let p = &params[self.offset..self.offset + self.n_params];
        let sum_dld: f64 = dld[..n].iter().sum();
        match &self.spec {
            LayerSpec::Affine => {
                let (s, _) = p.split_at(d);
                let (gs, gb) = g.split_at_mut(d);
                for i in 0..d {
                    let e = s[i].exp();
                    let (mut a, mut bsum) = (sum_dld, 0.0);
                    for j in 0..n {
                        let dzv = dz[i + j * d];
                        a += dzv * x[i + j * d] * e;
                        bsum += dzv;
                        dx[i + j * d] = dzv * e;
                    }
                    gs[i] += a;
                    gb[i] += bsum;
                }
            }
            LayerSpec::SinhArcsinh => {
                let (gld, geps) = g.split_at_mut(d);
                for j in 0..n {
                    let l = dld[j];
                    for i in 0..d {
                        let e = i + j * d;
                        let xv = x[e];
                        let del = c.ea[i];
                        let (u, ch, th) = (c.u[e], c.g[e], c.t[e]);
                        let r = 1.0 / xv.mul_add(xv, 1.0).sqrt();
                        let dzv = dz[i + j * d];
                        // z = sinh w, w = δu − ε, u = asinh x, logdet = log δ + log cosh w − ½ log(1+x²).
                        dx[i + j * d] = dzv * ch * del * r + l * (th * del * r - xv * r * r);
                        gld[i] += dzv * ch * del * u + l * (1.0 + th * del * u);
                        geps[i] += -dzv * ch - l * th;
                    }
                }
            }
            LayerSpec::TanhSum { k } => {
                let k = *k;
                let (alpha, rest) = p.split_at(d);
                let cc = &rest[2 * d * k..];
                let (galpha, grest) = g.split_at_mut(d);
                let (ga, grest) = grest.split_at_mut(d * k);
                let (gb, gc) = grest.split_at_mut(d * k);
                for j in 0..n {
                    let l = dld[j];
                    for i in 0..d {
                        let e = i + j * d;
                        let xv = x[e];
                        let ea = alpha[i].exp();
                        let dzv = dz[e];
                        let gd = c.g[e]; // z' from the forward pass
                        let lg = l / gd; // ∂L/∂g through log g
                        let mut dxv = dzv * gd;
                        galpha[i] += dzv * ea * xv + lg * ea;
                        for m in i * k..(i + 1) * k {
                            let (am, bm) = (c.ea[m], c.eb[m]);
                            let u = xv - cc[m];
                            let t = c.t[j * d * k + m];
                            let sech2 = 1.0 - t * t;
                            let abs = am * bm * sech2; // this component's g term
                            let dg_dx = -2.0 * abs * t * bm; // ∂(g term)/∂x
                            dxv += lg * dg_dx;
                            ga[m] += dzv * am * t + lg * abs;
                            // ∂z/∂b = a·sech²·b·u; ∂(g term)/∂b = abs + dg_dx·u.
                            gb[m] += dzv * am * sech2 * bm * u + lg * (abs + dg_dx * u);
                            gc[m] += -dzv * abs - lg * dg_dx;
                        }
                        dx[i + j * d] = dxv;
                    }
                }
            }
            LayerSpec::Mixing => {
                // ∂W = ∂Z·Xᵀ + (Σ_j ∂L/∂logdet_j)·W⁻ᵀ; ∂X = Wᵀ ∂Z.
                gemm(Backend::default(), 1.0, view(dz, d, n), Op::N, view(x, d, n), Op::T, 1.0, view_mut(g, d, d));
                for r in 0..d {
                    for col in 0..d {
                        // (W⁻ᵀ)[r, col] = W⁻¹[col, r].
                        g[r + col * d] += sum_dld * c.w_inv[col + r * d];
                    }
                }
                gemm(Backend::default(), 1.0, view(p, d, d), Op::T, view(dz, d, n), Op::N, 0.0, view_mut(dx, d, n));
            }
            LayerSpec::Coupling { clamp, .. } => {
                let mlp = self.mlp.as_ref().expect("coupling has an MLP");
                let (h, nb) = (self.cond.len(), self.trans.len());
                c.d_out.resize(2 * nb * n, 0.0);
                dx.copy_from_slice(dz);
                for j in 0..n {
                    for (r, &i) in self.trans.iter().enumerate() {
                        let s = c.s[r + j * nb];
                        let e = s.exp();
                        let dzv = dz[i + j * d];
                        dx[i + j * d] = dzv * e;
                        let ds = dzv * x[i + j * d] * e + dld[j];
                        let th = s / clamp;
                        c.d_out[r + j * 2 * nb] = ds * (1.0 - th * th);
                        c.d_out[nb + r + j * 2 * nb] = dzv;
                    }
                }
                c.d_cond.resize(h * n, 0.0);
                mlp.backward(
                    params,
                    g,
                    view(&c.cond_in, h, n),
                    Op::N,
                    &c.mlp,
                    view(&c.d_out, 2 * nb, n),
                    &mut c.scratch,
                    true,
                    Some(&mut c.d_cond),
                );
                for j in 0..n {
                    for (r, &i) in self.cond.iter().enumerate() {
                        dx[i + j * d] += c.d_cond[r + j * h];
                    }
                }
            }
        }
    }
}
