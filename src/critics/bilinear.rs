//! The log-bilinear critic of CPC: `xᵀ W y`, or `f(x)ᵀ W g(y)` with MLP encoders.

use super::mlp::{Activation, Init, Mlp, MlpCache, MlpScratch, MlpSpec, init_dense};
use super::{Critic, check_backward, check_inputs, transpose_into};
use crate::compute::Compute;
use crate::error::{Error, Result};
use crate::gemm::{Op, view, view_mut};
use crate::real::Real;
use nalgebra::{DMatrix, DMatrixView};

/// The bilinear critic `S_ij = f(x_i)ᵀ W g(y_j)` (van den Oord et al. 2018), with `f`, `g` the
/// identity (`xᵀ W y`) or MLP encoders.
///
/// Forward: `P = W·G`, `S = FᵀP`. Backward: `∂P = F·∂S`, `∂W = ∂P·Gᵀ`, `∂G = Wᵀ·∂P`,
/// `∂F = P·∂Sᵀ`, then the encoders.
#[derive(Clone, Debug)]
pub struct Bilinear<T: Real> {
    cx: Compute,
    dims: (usize, usize),
    f: Option<Mlp>,
    g: Option<Mlp>,
    ex: usize,
    ey: usize,
    w_off: usize,
    xt: Vec<T>,
    yt: Vec<T>,
    cf: MlpCache<T>,
    cg: MlpCache<T>,
    scratch: MlpScratch<T>,
    p: Vec<T>,
    dp: Vec<T>,
    df: Vec<T>,
    dg: Vec<T>,
    shape: (usize, usize),
}

impl<T: Real> Bilinear<T> {
    /// `hidden = None`: `xᵀ W y` with `W` of size `dim_x × dim_y`; otherwise encoders
    /// `dim → hidden… → embed` on both sides and `W` of size `embed × embed`.
    pub fn new(
        dim_x: usize,
        dim_y: usize,
        hidden: Option<&[usize]>,
        embed: usize,
        activation: Activation,
    ) -> Result<Self> {
        let (f, g) = match hidden {
            None => (None, None),
            Some(h) => {
                if embed == 0 {
                    return Err(Error::param("embedding dimension", 0, "must be at least 1"));
                }
                let f = Mlp::new(MlpSpec { input: dim_x, hidden: h.to_vec(), output: embed, activation }, 0);
                let g = Mlp::new(MlpSpec { input: dim_y, hidden: h.to_vec(), output: embed, activation }, f.n_params());
                (Some(f), Some(g))
            }
        };
        let (ex, ey) = if f.is_some() { (embed, embed) } else { (dim_x, dim_y) };
        let w_off = f.as_ref().map_or(0, Mlp::n_params) + g.as_ref().map_or(0, Mlp::n_params);
        Ok(Bilinear {
            cx: Compute::default(),
            dims: (dim_x, dim_y),
            f,
            g,
            ex,
            ey,
            w_off,
            xt: Vec::new(),
            yt: Vec::new(),
            cf: MlpCache::default(),
            cg: MlpCache::default(),
            scratch: MlpScratch::default(),
            p: Vec::new(),
            dp: Vec::new(),
            df: Vec::new(),
            dg: Vec::new(),
            shape: (0, 0),
        })
    }
}

/// The encoder output, or the raw (transposed) input without an encoder.
fn encoded<'a, T: Real>(
    mlp: &Option<Mlp>,
    cache: &'a MlpCache<T>,
    raw: &'a [T],
    d: usize,
    n: usize,
) -> DMatrixView<'a, T> {
    match mlp {
        Some(m) => m.output(cache),
        None => view(raw, d, n),
    }
}

impl<T: Real> Critic<T> for Bilinear<T> {
    fn set_compute(&mut self, compute: Compute) {
        self.cx = compute;
        for m in [&mut self.f, &mut self.g].into_iter().flatten() {
            m.set_compute(compute);
        }
    }
    fn name(&self) -> &'static str {
        "bilinear"
    }
    fn dim_x(&self) -> usize {
        self.dims.0
    }
    fn dim_y(&self) -> usize {
        self.dims.1
    }
    fn n_params(&self) -> usize {
        self.w_off + self.ex * self.ey
    }

    fn zero_output(&self, params: &mut [T]) {
        params[self.w_off..].fill(T::zero());
    }

    fn init_into(&self, params: &mut [T], init: Init, rng: &mut dyn crate::rng::Rng) {
        for m in [&self.f, &self.g].into_iter().flatten() {
            m.init(params, init, rng);
        }
        let (ex, ey) = (self.ex, self.ey);
        init_dense(init, ey, ex, &mut params[self.w_off..self.w_off + ex * ey], &mut [], rng);
    }

    fn scores(&mut self, params: &[T], x: &DMatrix<T>, y: &DMatrix<T>, s: &mut DMatrix<T>) -> Result<()> {
        let cx = self.cx;
        let (dx, dy) = self.dims;
        check_inputs("bilinear", (dx, dy, self.n_params()), params, x, y, s)?;
        let (n, m, ex, ey) = (x.nrows(), y.nrows(), self.ex, self.ey);
        self.shape = (n, m);
        transpose_into(x, &mut self.xt);
        transpose_into(y, &mut self.yt);
        if let Some(f) = &self.f {
            f.forward(params, view(&self.xt, dx, n), Op::N, &mut self.cf);
        }
        if let Some(g) = &self.g {
            g.forward(params, view(&self.yt, dy, m), Op::N, &mut self.cg);
        }
        let fv = encoded(&self.f, &self.cf, &self.xt, ex, n);
        let gv = encoded(&self.g, &self.cg, &self.yt, ey, m);
        self.p.resize(ex * m, T::zero());
        let w = view(&params[self.w_off..], ex, ey);
        cx.gemm(T::one(), w, Op::N, gv, Op::N, T::zero(), view_mut(&mut self.p, ex, m));
        cx.gemm(T::one(), fv, Op::T, view(&self.p, ex, m), Op::N, T::zero(), view_mut(s.as_mut_slice(), n, m));
        Ok(())
    }

    fn backward(&mut self, params: &[T], ds: &DMatrix<T>, grads: &mut [T]) -> Result<()> {
        let cx = self.cx;
        let (dx, dy) = self.dims;
        check_backward("bilinear", self.shape, self.n_params(), ds, grads)?;
        let (n, m, ex, ey) = (self.shape.0, self.shape.1, self.ex, self.ey);
        let dsv = view(ds.as_slice(), n, m);
        let fv = encoded(&self.f, &self.cf, &self.xt, ex, n);
        let gv = encoded(&self.g, &self.cg, &self.yt, ey, m);
        self.dp.resize(ex * m, T::zero());
        cx.gemm(T::one(), fv, Op::N, dsv, Op::N, T::zero(), view_mut(&mut self.dp, ex, m));
        let (enc_grads, gw) = grads.split_at_mut(self.w_off);
        cx.gemm(T::one(), view(&self.dp, ex, m), Op::N, gv, Op::T, T::zero(), view_mut(gw, ex, ey));
        if let Some(f) = &self.f {
            self.df.resize(ex * n, T::zero());
            cx.gemm(T::one(), view(&self.p, ex, m), Op::N, dsv, Op::T, T::zero(), view_mut(&mut self.df, ex, n));
            f.backward(
                params,
                &mut enc_grads[f.offset()..f.offset() + f.n_params()],
                view(&self.xt, dx, n),
                Op::N,
                &self.cf,
                view(&self.df, ex, n),
                &mut self.scratch,
                false,
                None,
            );
        }
        if let Some(g) = &self.g {
            self.dg.resize(ey * m, T::zero());
            let w = view(&params[self.w_off..], ex, ey);
            cx.gemm(T::one(), w, Op::T, view(&self.dp, ex, m), Op::N, T::zero(), view_mut(&mut self.dg, ey, m));
            g.backward(
                params,
                &mut enc_grads[g.offset()..g.offset() + g.n_params()],
                view(&self.yt, dy, m),
                Op::N,
                &self.cg,
                view(&self.dg, ey, m),
                &mut self.scratch,
                false,
                None,
            );
        }
        Ok(())
    }

    fn macs_per_step(&self, n: usize) -> f64 {
        let enc = [&self.f, &self.g].into_iter().flatten().map(|m| m.macs(n)).sum::<f64>();
        let core = (self.ex * self.ey * n + n * n * self.ex) as f64;
        3.0 * (enc + core)
    }
}
