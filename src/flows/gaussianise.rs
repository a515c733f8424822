//! The flow-Gaussianisation MI estimator (Butakov et al. 2024).
//!
//! Two flows, `f` on `x` and `g` on `y`, are trained jointly by maximum likelihood under a
//! Gaussian base whose two latent blocks are correlated coordinate by coordinate:
//!
//! ```text
//! (f(x), g(y)) ~ N(0, Σ),   Σ = [[I, R], [Rᵀ, I]],   R = diag(ρ_1, …, ρ_m), m = min(d_x, d_y),
//! log p(x, y) = log N((f(x), g(y)); 0, Σ) + log|det ∂f/∂x| + log|det ∂g/∂y|,   ρ_k = tanh θ_k.
//! ```
//!
//! This is Butakov et al.'s "tridiagonal" parametrisation: any jointly Gaussian pair with
//! standard-normal marginals can be brought to it by rotations of each block (CCA), which the
//! flows' mixing layers can learn. MI is invariant under the invertible maps `f` and `g`, so if the
//! model is right, `I(X; Y) = I(f(X); g(Y)) = −½ Σ_k log(1 − ρ_k²)`.
//!
//! The read-off used as the estimate is on **held-out** rows: the canonical correlations `ρ̂_k` of
//! the test latents (`f(x_i), g(y_i)`) and `Î = −½ Σ_k log(1 − ρ̂_k²)` ([`crate::cca::gaussian_fit`]). It is
//! not a bound in general; when the latent marginals are exactly Gaussian it is a lower bound on
//! the MI of the latents (`I = h(ξ) + h(η) − h(ξ, η)` with the marginal entropies Gaussian and the
//! joint entropy at most the Gaussian one with the same covariance), and learned flows only make
//! the marginals approximately Gaussian. `model_mi` is the same formula with the fitted `ρ_k`.

use super::fit::{FitReport, Trainable, fit};
use super::flow::{Flow, FlowCache, FlowSpec, LayerSpec};
use crate::error::{Error, Result};
use crate::optim::{Adam, AdamConfig};
use crate::rng::{Stream, Xoshiro, rng, shuffle};
use crate::train::StepRecord;
use crate::train::Validation;
use nalgebra::DMatrix;
use rand::RngExt;
use serde::{Deserialize, Serialize};

pub(crate) const LN_2PI: f64 = 1.837_877_066_409_345_3;

/// Architecture, optimiser, splits and seeds of a flow-Gaussianisation estimate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GaussianisationConfig {
    /// Mixing + coupling blocks per flow ([`FlowSpec::standard`]).
    pub blocks: usize,
    /// Hidden widths of each coupling network.
    pub hidden: Vec<usize>,
    /// Components of the element-wise `TanhSum` layer.
    pub tanh_k: usize,
    /// Batch size.
    pub batch: usize,
    /// Adam.
    pub adam: AdamConfig,
    /// Joint training steps at most (stage 3; stage 1 has [`Self::marginal_steps`]).
    pub max_steps: u64,
    /// Validation period and patience of the joint training (the runner's [`Validation`]).
    pub validation: Validation,
    /// Seed of the split, the initialisation, the batches and the bootstrap.
    pub seed: u64,
    /// Fraction of the rows held out for the read-off (test).
    pub test_fraction: f64,
    /// Fraction of the remaining rows used for validation (model selection).
    pub val_fraction: f64,
    /// Bootstrap resamples of the test rows for the interval (0: none).
    pub bootstrap: usize,
    /// Stage 1: steps of marginal maximum likelihood of each flow's element-wise layers alone
    /// (standard-normal base; 0 skips the stage).
    pub marginal_steps: u64,
    /// Stage 1's Adam learning rate (its few per-coordinate parameters tolerate a large one).
    pub marginal_lr: f64,
    /// Stage 2: set each flow's first mixing layer to the CCA transform of the stage-1 latents
    /// and the latent correlations to their canonical correlations (otherwise: random rotations
    /// and `ρ = 0`).
    pub cca_init: bool,
}

impl Default for GaussianisationConfig {
    /// 4 blocks of `[64, 64]` tanh couplings, 8 tanh components, batch 256, Adam 1e-3 with the
    /// gradient clipped at norm 50, at most 4000 steps validated every 100 with patience 1000,
    /// 20 % test, 10 % of the rest for validation, 200 bootstrap resamples, seed 0; stage 1 with
    /// 1000 steps at learning rate 1e-2, CCA initialisation on.
    fn default() -> Self {
        GaussianisationConfig {
            blocks: 4,
            hidden: vec![64, 64],
            tanh_k: 8,
            batch: 256,
            adam: AdamConfig { lr: 1e-3, max_grad_norm: Some(50.0), ..AdamConfig::default() },
            max_steps: 4000,
            validation: Validation { every: 100, patience: 1000 },
            seed: 0,
            test_fraction: 0.2,
            val_fraction: 0.1,
            bootstrap: 200,
            marginal_steps: 1000,
            marginal_lr: 1e-2,
            cca_init: true,
        }
    }
}

/// Column-major `d × n` copy of an `n × d` row-per-sample matrix.
pub(crate) fn to_cols(m: &DMatrix<f64>) -> Vec<f64> {
    m.transpose().as_slice().to_vec()
}

pub(crate) fn check_rows(what: &str, m: &DMatrix<f64>) -> Result<()> {
    if let Some(pos) = m.as_slice().iter().position(|v| !v.is_finite()) {
        return Err(Error::NonFinite { what: what.into(), row: pos % m.nrows(), col: pos / m.nrows(), value: m[pos] });
    }
    Ok(())
}

/// The joint model (two flows and the latent correlations) as a [`Trainable`]: maximises the mean
/// log-likelihood of training batches; validates with the mean log-likelihood of validation rows.
///
/// Parameters: `[flow_x | flow_y | θ_1 … θ_m]`, `ρ_k = tanh θ_k`.
pub struct FlowGaussianisation {
    fx: Flow,
    fy: Flow,
    m: usize,
    rho_at: usize,
    n_params: usize,
    train: (Vec<f64>, Vec<f64>, usize),
    val: (Vec<f64>, Vec<f64>, usize),
    batch: usize,
    rng: Xoshiro,
    adam: Adam<f64>,
    order: Vec<usize>,
    cursor: usize,
    cx: FlowCache,
    cy: FlowCache,
    bx: Vec<f64>,
    by: Vec<f64>,
    grads: Vec<f64>,
    dzx: Vec<f64>,
    dzy: Vec<f64>,
    dld: Vec<f64>,
    step_grads: Vec<f64>,
    init_seed: u64,
    stage1: (u64, f64, AdamConfig),
    cca_init: bool,
}

impl FlowGaussianisation {
    /// The model for training rows `(x, y)` and validation rows `(x_val, y_val)` (one row per
    /// sample), with [`FlowSpec::standard`] flows from `cfg`.
    pub fn new(
        x: &DMatrix<f64>,
        y: &DMatrix<f64>,
        x_val: &DMatrix<f64>,
        y_val: &DMatrix<f64>,
        cfg: &GaussianisationConfig,
    ) -> Result<Self> {
        let (dx, dy) = (x.ncols(), y.ncols());
        let sx = FlowSpec::standard(dx, cfg.blocks, &cfg.hidden, cfg.tanh_k);
        let sy = FlowSpec::standard(dy, cfg.blocks, &cfg.hidden, cfg.tanh_k);
        Self::with_flows(sx, sy, x, y, x_val, y_val, cfg)
    }

    /// The model with given flow specs (dimensions must match the data).
    pub fn with_flows(
        sx: FlowSpec,
        sy: FlowSpec,
        x: &DMatrix<f64>,
        y: &DMatrix<f64>,
        x_val: &DMatrix<f64>,
        y_val: &DMatrix<f64>,
        cfg: &GaussianisationConfig,
    ) -> Result<Self> {
        let (dx, dy) = (x.ncols(), y.ncols());
        if y.nrows() != x.nrows() || x_val.nrows() != y_val.nrows() || x_val.ncols() != dx || y_val.ncols() != dy {
            return Err(Error::Shape {
                what: "training/validation rows".into(),
                expected: format!("x and y with the same rows, {dx} and {dy} columns"),
                got: format!(
                    "x {:?}, y {:?}, x_val {:?}, y_val {:?}",
                    x.shape(),
                    y.shape(),
                    x_val.shape(),
                    y_val.shape()
                ),
            });
        }
        if sx.dim != dx || sy.dim != dy {
            return Err(Error::Shape {
                what: "flow dimensions".into(),
                expected: format!("{dx} and {dy}"),
                got: format!("{} and {}", sx.dim, sy.dim),
            });
        }
        if x.nrows() == 0 || x_val.nrows() == 0 {
            return Err(Error::param("rows", x.nrows().min(x_val.nrows()), "need training and validation rows"));
        }
        if cfg.batch == 0 {
            return Err(Error::param("batch", 0, "must be at least 1"));
        }
        for (w, m) in [("x", x), ("y", y), ("x_val", x_val), ("y_val", y_val)] {
            check_rows(w, m)?;
        }
        let fx = Flow::new(sx, 0)?;
        let fy = Flow::new(sy, fx.n_params())?;
        let m = dx.min(dy);
        let rho_at = fx.n_params() + fy.n_params();
        let n_params = rho_at + m;
        let n = x.nrows();
        Ok(FlowGaussianisation {
            fx,
            fy,
            m,
            rho_at,
            n_params,
            train: (to_cols(x), to_cols(y), n),
            val: (to_cols(x_val), to_cols(y_val), x_val.nrows()),
            batch: cfg.batch.min(n),
            rng: Stream::FlowBatches.rng(cfg.seed),
            adam: Adam::new(cfg.adam.clone(), n_params)?,
            order: (0..n).collect(),
            cursor: n,
            cx: FlowCache::default(),
            cy: FlowCache::default(),
            bx: Vec::new(),
            by: Vec::new(),
            grads: vec![0.0; n_params],
            dzx: Vec::new(),
            dzy: Vec::new(),
            dld: Vec::new(),
            step_grads: Vec::new(),
            init_seed: cfg.seed,
            stage1: (cfg.marginal_steps, cfg.marginal_lr, cfg.adam.clone()),
            cca_init: cfg.cca_init,
        })
    }

    /// Number of parameters.
    pub fn n_params(&self) -> usize {
        self.n_params
    }

    /// The two flows.
    pub fn flows(&self) -> (&Flow, &Flow) {
        (&self.fx, &self.fy)
    }

    /// Initial parameters, in three steps on the training rows:
    ///
    /// 1. [`Flow::init`] of both flows, `Affine` layers standardising the data, `θ = 0`;
    /// 2. (`marginal_steps > 0`) each flow's element-wise prefix trained alone by maximum
    ///    likelihood under `N(0, I)` (validated on the validation rows, best kept): the
    ///    marginal Gaussianisation, cheap because those layers have a few parameters per
    ///    coordinate;
    /// 3. (`cca_init`) the first mixing layers set to the CCA transforms `Uᵀ L_x⁻¹`, `Vᵀ L_y⁻¹` of
    ///    the prefix latents (`L` the Cholesky factors of the block covariances,
    ///    `L_x⁻¹ Σ_xy L_y⁻ᵀ = U S Vᵀ`), `θ_k = atanh ρ_k` of the resulting cross-covariance, and
    ///    the later `Affine` layers re-standardised. The model then starts as the Gaussian
    ///    (copula) model of the marginally Gaussianised data, and joint training refines it.
    // Long because it is the three steps of the list above, in order, on one parameter vector.
    pub fn init_params(&self) -> Result<Vec<f64>> {
        let mut p = vec![0.0; self.n_params];
        let mut g = rng(self.init_seed);
        let (x, y, n) = (&self.train.0, &self.train.1, self.train.2);
        self.fx.init(&mut p, &mut g, Some((x, n)))?;
        self.fy.init(&mut p, &mut g, Some((y, n)))?;
        let (steps, lr, adam) = &self.stage1;
        let mut prefix_len = [0usize; 2];
        for (which, (flow, tr, va)) in
            [(&self.fx, &self.train.0, &self.val.0), (&self.fy, &self.train.1, &self.val.1)].into_iter().enumerate()
        {
            let spec = flow.spec().elementwise_prefix();
            prefix_len[which] = spec.layers.len();
            if *steps == 0 || spec.layers.is_empty() {
                continue;
            }
            let pf = Flow::new(spec, 0)?;
            let at = flow.offset();
            let mut q = p[at..at + pf.n_params()].to_vec();
            let mut m = MarginalFit::new(
                pf,
                tr,
                n,
                va,
                self.val.2,
                self.batch,
                AdamConfig { lr: *lr, ..adam.clone() },
                Stream::FlowMarginal(which as u64).seed(self.init_seed),
            )?;
            let every = (*steps / 10).max(1);
            fit(&mut m, &mut q, *steps, Validation { every, patience: *steps })?;
            p[at..at + q.len()].copy_from_slice(&q);
        }
        if !self.cca_init {
            return Ok(p);
        }
        let mix = |f: &Flow, k: usize| {
            f.spec().layers.iter().enumerate().skip(k).find(|(_, l)| **l == LayerSpec::Mixing).map(|(i, _)| i)
        };
        let (Some(mx), Some(my)) = (mix(&self.fx, prefix_len[0]), mix(&self.fy, prefix_len[1])) else {
            return Ok(p);
        };
        let (dx, dy) = (self.fx.dim(), self.fy.dim());
        let ux = DMatrix::from_column_slice(dx, n, &self.fx.input_of(&p, x, n, mx)?).transpose();
        let uy = DMatrix::from_column_slice(dy, n, &self.fy.input_of(&p, y, n, my)?).transpose();
        let Some((wx, wy)) = cca_transforms(&ux, &uy) else {
            return Ok(p);
        };
        let rx = self.fx.layer_ranges()[mx].clone();
        let ry = self.fy.layer_ranges()[my].clone();
        p[rx].copy_from_slice(wx.as_slice());
        p[ry].copy_from_slice(wy.as_slice());
        // Later mixing layers start at the identity: independent random rotations of the two
        // blocks would undo the CCA pairing of latent coordinates.
        for (f, first) in [(&self.fx, mx), (&self.fy, my)] {
            let d = f.dim();
            for (i, (l, r)) in f.spec().layers.iter().zip(f.layer_ranges()).enumerate() {
                if i > first && *l == LayerSpec::Mixing {
                    let q = &mut p[r];
                    q.fill(0.0);
                    (0..d).for_each(|k| q[k + k * d] = 1.0);
                }
            }
        }
        self.fx.standardise(&mut p, x, n, mx + 1)?;
        self.fy.standardise(&mut p, y, n, my + 1)?;
        // θ from the correlations of the initial latents, coordinate by coordinate.
        let zx = DMatrix::from_column_slice(dx, n, &self.fx.input_of(&p, x, n, usize::MAX)?).transpose();
        let zy = DMatrix::from_column_slice(dy, n, &self.fy.input_of(&p, y, n, usize::MAX)?).transpose();
        for k in 0..self.m {
            let (a, b) = (zx.column(k), zy.column(k));
            let (ma, mb) = (a.mean(), b.mean());
            let cov = a.iter().zip(b.iter()).map(|(u, v)| (u - ma) * (v - mb)).sum::<f64>();
            let va = a.iter().map(|u| (u - ma).powi(2)).sum::<f64>();
            let vb = b.iter().map(|v| (v - mb).powi(2)).sum::<f64>();
            let r = (cov / (va * vb).sqrt()).clamp(-0.999, 0.999);
            if r.is_finite() {
                p[self.rho_at + k] = r.atanh();
            }
        }
        Ok(p)
    }

    /// The fitted latent correlations `ρ_k = tanh θ_k`.
    pub fn rho(&self, params: &[f64]) -> Vec<f64> {
        params[self.rho_at..self.n_params].iter().map(|t| t.tanh()).collect()
    }

    /// `−½ Σ_k log(1 − ρ_k²)` of the fitted correlations (nats).
    pub fn model_mi(&self, params: &[f64]) -> f64 {
        params[self.rho_at..self.n_params]
            .iter()
            .map(|&t| {
                // 1 − tanh²θ = sech²θ, so −½ log(1 − ρ²) = log cosh θ (stable for large θ).
                let a = t.abs();
                a + (-2.0 * a).exp().ln_1p() - std::f64::consts::LN_2
            })
            .sum()
    }

    /// Mean log-likelihood `(1/n) Σ_j log p(x_j, y_j)` of `n` samples given column-major
    /// (`d × n`) `x` and `y`; with `grads`, also writes its gradient w.r.t. all parameters.
    pub fn log_likelihood(
        &mut self,
        params: &[f64],
        x: &[f64],
        y: &[f64],
        n: usize,
        grads: Option<&mut [f64]>,
    ) -> Result<f64> {
        if params.len() != self.n_params {
            return Err(Error::Shape {
                what: "parameters".into(),
                expected: self.n_params.to_string(),
                got: params.len().to_string(),
            });
        }
        let (dx, dy, m) = (self.fx.dim(), self.fy.dim(), self.m);
        self.fx.forward(params, x, n, &mut self.cx)?;
        self.fy.forward(params, y, n, &mut self.cy)?;
        let want = grads.is_some();
        if want {
            self.dzx.resize(dx * n, 0.0);
            self.dzy.resize(dy * n, 0.0);
            self.grads.fill(0.0);
        }
        let w = 1.0 / n as f64;
        let rho_at = self.rho_at;
        let (zx, zy) = (self.cx.latent(), self.cy.latent());
        let (ldx, ldy) = (self.cx.logdet(), self.cy.logdet());
        let mut total = 0.0;
        for j in 0..n {
            let mut l = ldx[j] + ldy[j] - 0.5 * LN_2PI * (dx + dy) as f64;
            for k in 0..m {
                let (a, b) = (zx[k + j * dx], zy[k + j * dy]);
                let th = params[rho_at + k];
                let r = th.tanh();
                let q = (1.0 - r) * (1.0 + r);
                let qq = a * a - 2.0 * r * a * b + b * b;
                l += -0.5 * q.ln() - qq / (2.0 * q);
                if want {
                    self.dzx[k + j * dx] = -w * (a - r * b) / q;
                    self.dzy[k + j * dy] = -w * (b - r * a) / q;
                    // ∂ℓ/∂θ = (1 − ρ²)·∂ℓ/∂ρ = ρ + ab − Qρ/q.
                    self.grads[rho_at + k] += w * (r + a * b - qq * r / q);
                }
            }
            for k in m..dx {
                let a = zx[k + j * dx];
                l -= 0.5 * a * a;
                if want {
                    self.dzx[k + j * dx] = -w * a;
                }
            }
            for k in m..dy {
                let b = zy[k + j * dy];
                l -= 0.5 * b * b;
                if want {
                    self.dzy[k + j * dy] = -w * b;
                }
            }
            total += l;
        }
        if let Some(g) = grads {
            self.dld.resize(n, 0.0);
            self.dld.fill(w);
            let (nx, ny) = (self.fx.n_params(), self.fy.n_params());
            let (gx, rest) = self.grads.split_at_mut(nx);
            self.fx.backward(params, &mut self.cx, &self.dzx, &self.dld, gx, None);
            self.fy.backward(params, &mut self.cy, &self.dzy, &self.dld, &mut rest[..ny], None);
            g.copy_from_slice(&self.grads);
        }
        Ok(total * w)
    }

    /// The latents `f(x)` and `g(y)` of rows `x`, `y` (one row per sample in and out).
    pub fn latents(
        &mut self,
        params: &[f64],
        x: &DMatrix<f64>,
        y: &DMatrix<f64>,
    ) -> Result<(DMatrix<f64>, DMatrix<f64>)> {
        let n = x.nrows();
        self.fx.forward(params, &to_cols(x), n, &mut self.cx)?;
        self.fy.forward(params, &to_cols(y), n, &mut self.cy)?;
        let zx = DMatrix::from_column_slice(self.fx.dim(), n, self.cx.latent()).transpose();
        let zy = DMatrix::from_column_slice(self.fy.dim(), n, self.cy.latent()).transpose();
        Ok((zx, zy))
    }

    /// Mean log-likelihood of rows `x`, `y` (one row per sample).
    pub fn mean_log_likelihood(&mut self, params: &[f64], x: &DMatrix<f64>, y: &DMatrix<f64>) -> Result<f64> {
        self.log_likelihood(params, &to_cols(x), &to_cols(y), x.nrows(), None)
    }

    fn next_batch(&mut self) {
        let (dx, dy) = (self.fx.dim(), self.fy.dim());
        let b = self.batch;
        if self.cursor + b > self.order.len() {
            shuffle(&mut self.order, &mut self.rng);
            self.cursor = 0;
        }
        self.bx.resize(dx * b, 0.0);
        self.by.resize(dy * b, 0.0);
        for (c, &i) in self.order[self.cursor..self.cursor + b].iter().enumerate() {
            self.bx[c * dx..(c + 1) * dx].copy_from_slice(&self.train.0[i * dx..(i + 1) * dx]);
            self.by[c * dy..(c + 1) * dy].copy_from_slice(&self.train.1[i * dy..(i + 1) * dy]);
        }
        self.cursor += b;
    }
}

impl Trainable<f64> for FlowGaussianisation {
    fn step(&mut self, params: &mut [f64], step: u64) -> Result<StepRecord> {
        self.next_batch();
        let (bx, by) = (std::mem::take(&mut self.bx), std::mem::take(&mut self.by));
        let mut out = std::mem::take(&mut self.step_grads);
        out.resize(self.n_params, 0.0);
        let obj = self.log_likelihood(params, &bx, &by, self.batch, Some(&mut out));
        self.bx = bx;
        self.by = by;
        let diverged = |what: String| Error::Diverged { step: step as usize, what };
        let obj = obj?;
        if !obj.is_finite() {
            return Err(diverged(format!("log-likelihood {obj}")));
        }
        let r = self.adam.ascend(params, &out);
        self.step_grads = out;
        r.map_err(|_| diverged("gradient".into()))?;
        if let Some(p) = params.iter().position(|v| !v.is_finite()) {
            return Err(diverged(format!("parameter {p}")));
        }
        Ok(StepRecord { step, value: self.model_mi(params), objective: obj, true_mi: None })
    }

    fn validate(&mut self, params: &[f64]) -> Result<f64> {
        let (x, y, n) = (std::mem::take(&mut self.val.0), std::mem::take(&mut self.val.1), self.val.2);
        let r = self.log_likelihood(params, &x, &y, n, None);
        self.val = (x, y, n);
        r
    }
}

/// A copy of `m` with every column's mean subtracted.
fn center(m: &DMatrix<f64>) -> DMatrix<f64> {
    let mut c = m.clone();
    for mut col in c.column_iter_mut() {
        let mean = col.mean();
        col.add_scalar_mut(-mean);
    }
    c
}

/// Square CCA transforms `(W_x, W_y)` of rows `ux`, `uy`: `W_x ux` and `W_y uy` have identity
/// covariances and a cross-covariance that is diagonal in its leading `min(d_x, d_y)` block.
/// `None` when a covariance is singular.
fn cca_transforms(ux: &DMatrix<f64>, uy: &DMatrix<f64>) -> Option<(DMatrix<f64>, DMatrix<f64>)> {
    let n = ux.nrows() as f64;
    let (cx, cy) = (center(ux), center(uy));
    let sxx = cx.tr_mul(&cx) / (n - 1.0);
    let syy = cy.tr_mul(&cy) / (n - 1.0);
    let sxy = cx.tr_mul(&cy) / (n - 1.0);
    let (dx, dy) = (sxx.nrows(), syy.nrows());
    let lx_inv = sxx.cholesky()?.l().try_inverse()?;
    let ly_inv = syy.cholesky()?.l().try_inverse()?;
    let mm = &lx_inv * sxy * ly_inv.transpose();
    let svd = mm.svd(true, true);
    let (u, vt) = (svd.u?, svd.v_t?);
    // Complete the thin singular bases to square orthogonal matrices (QR of [U | I] keeps U's
    // columns first, up to sign).
    let complete = |b: DMatrix<f64>, d: usize| -> DMatrix<f64> {
        if b.ncols() == d {
            return b;
        }
        let mut ext = DMatrix::zeros(d, b.ncols() + d);
        ext.columns_mut(0, b.ncols()).copy_from(&b);
        ext.columns_mut(b.ncols(), d).copy_from(&DMatrix::identity(d, d));
        ext.qr().q().columns(0, d).into_owned()
    };
    let u = complete(u, dx);
    let v = complete(vt.transpose(), dy);
    Some((u.transpose() * lx_inv, v.transpose() * ly_inv))
}

/// Stage 1 of [`FlowGaussianisation::init_params`]: one flow's element-wise layers trained by
/// maximum likelihood under `N(0, I)`.
pub(crate) struct MarginalFit {
    flow: Flow,
    train: (Vec<f64>, usize),
    val: (Vec<f64>, usize),
    batch: usize,
    rng: Xoshiro,
    adam: Adam<f64>,
    order: Vec<usize>,
    cursor: usize,
    cache: FlowCache,
    buf: Vec<f64>,
    dz: Vec<f64>,
    dld: Vec<f64>,
    grads: Vec<f64>,
}

impl MarginalFit {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        flow: Flow,
        train: &[f64],
        n: usize,
        val: &[f64],
        n_val: usize,
        batch: usize,
        adam: AdamConfig,
        seed: u64,
    ) -> Result<Self> {
        let np = flow.n_params();
        Ok(MarginalFit {
            flow,
            train: (train.to_vec(), n),
            val: (val.to_vec(), n_val),
            batch: batch.min(n),
            rng: rng(seed),
            adam: Adam::new(adam, np)?,
            order: (0..n).collect(),
            cursor: n,
            cache: FlowCache::default(),
            buf: Vec::new(),
            dz: Vec::new(),
            dld: Vec::new(),
            grads: vec![0.0; np],
        })
    }

    /// Mean log-likelihood of `n` columns of `x` under `N(0, I)` through the flow.
    fn ll(flow: &Flow, cache: &mut FlowCache, params: &[f64], x: &[f64], n: usize) -> Result<f64> {
        flow.forward(params, x, n, cache)?;
        let z = cache.latent();
        let sq: f64 = z.iter().map(|v| v * v).sum();
        let ld: f64 = cache.logdet().iter().sum();
        Ok((ld - 0.5 * sq) / n as f64 - 0.5 * LN_2PI * flow.dim() as f64)
    }
}

impl Trainable<f64> for MarginalFit {
    fn step(&mut self, params: &mut [f64], step: u64) -> Result<StepRecord> {
        let d = self.flow.dim();
        let b = self.batch;
        if self.cursor + b > self.order.len() {
            shuffle(&mut self.order, &mut self.rng);
            self.cursor = 0;
        }
        self.buf.resize(d * b, 0.0);
        for (c, &i) in self.order[self.cursor..self.cursor + b].iter().enumerate() {
            self.buf[c * d..(c + 1) * d].copy_from_slice(&self.train.0[i * d..(i + 1) * d]);
        }
        self.cursor += b;
        let diverged = |what: String| Error::Diverged { step: step as usize, what };
        let obj = Self::ll(&self.flow, &mut self.cache, params, &self.buf, b)?;
        if !obj.is_finite() {
            return Err(diverged(format!("marginal log-likelihood {obj}")));
        }
        let w = 1.0 / b as f64;
        self.dz.clear();
        self.dz.extend(self.cache.latent().iter().map(|z| -w * z));
        self.dld.resize(b, w);
        self.dld.fill(w);
        self.grads.fill(0.0);
        self.flow.backward(params, &mut self.cache, &self.dz, &self.dld, &mut self.grads, None);
        self.adam.ascend(params, &self.grads).map_err(|_| diverged("marginal gradient".into()))?;
        if let Some(p) = params.iter().position(|v| !v.is_finite()) {
            return Err(diverged(format!("marginal parameter {p}")));
        }
        Ok(StepRecord { step, value: f64::NAN, objective: obj, true_mi: None })
    }

    fn validate(&mut self, params: &[f64]) -> Result<f64> {
        Self::ll(&self.flow, &mut self.cache, params, &self.val.0, self.val.1)
    }
}

/// The Gaussian (CCA) read-off of paired latent rows `zx` (`n × d_x`) and `zy` (`n × d_y`): the
/// MI of the Gaussian with their sample covariance, `−½ Σ_k log(1 − ρ_k²)` (the plug-in of
/// [`crate::cca::gaussian_fit`], the crate's one implementation), and the canonical
/// correlations `ρ_k`, largest first.
fn gaussian_readoff(zx: &DMatrix<f64>, zy: &DMatrix<f64>) -> Result<(f64, Vec<f64>)> {
    let fit = crate::cca::gaussian_fit(zx.as_view(), zy.as_view())?;
    Ok((fit.plugin, fit.canonical))
}

/// How close the held-out latents are to standard normal, coordinate by coordinate (the worst
/// coordinate of either block).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LatentDiagnostics {
    /// Largest `|mean|`.
    pub max_abs_mean: f64,
    /// Largest `|sd − 1|`.
    pub max_abs_sd_error: f64,
    /// Largest `|skewness|`.
    pub max_abs_skewness: f64,
    /// Largest `|excess kurtosis|`.
    pub max_abs_excess_kurtosis: f64,
}

fn diagnostics(blocks: &[&DMatrix<f64>]) -> LatentDiagnostics {
    let mut d = LatentDiagnostics {
        max_abs_mean: 0.0,
        max_abs_sd_error: 0.0,
        max_abs_skewness: 0.0,
        max_abs_excess_kurtosis: 0.0,
    };
    for b in blocks {
        for col in b.column_iter() {
            let (m, [m2, m3, m4]) = crate::numerics::central_moments(col.iter().copied());
            d.max_abs_mean = d.max_abs_mean.max(m.abs());
            d.max_abs_sd_error = d.max_abs_sd_error.max((m2.sqrt() - 1.0).abs());
            d.max_abs_skewness = d.max_abs_skewness.max((m3 / m2.powf(1.5)).abs());
            d.max_abs_excess_kurtosis = d.max_abs_excess_kurtosis.max((m4 / (m2 * m2) - 3.0).abs());
        }
    }
    d
}

/// A flow-Gaussianisation estimate with its interval and diagnostics.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlowMiEstimate {
    /// The estimate: Gaussian MI of the held-out (test) latents' canonical correlations (nats).
    pub mi: f64,
    /// 95 % basic-bootstrap interval of the same read-off over resamples of the test rows (the
    /// flows fixed): the read-off's sampling spread, not the training's.
    pub interval: Option<(f64, f64)>,
    /// The bootstrap bias-corrected read-off `2Î − mean(Î*)` (a diagnostic: it removes most of
    /// the CCA's upward small-sample bias at the price of more variance).
    pub bias_corrected: Option<f64>,
    /// The canonical correlations of the test latents, largest first.
    pub canonical: Vec<f64>,
    /// The same held-out read-off at the initial parameters (stages 1–2 of
    /// [`FlowGaussianisation::init_params`]: marginal Gaussianisation and CCA, before joint
    /// training) — the "one flow per variable, then CCA" estimator.
    pub initial_mi: f64,
    /// `−½ Σ log(1 − ρ_k²)` of the fitted model correlations.
    pub model_mi: f64,
    /// The same CCA read-off on the training latents (a gap to `mi` signals overfitting).
    pub train_mi: f64,
    /// Mean log-likelihood of the test rows (nats per sample).
    pub test_log_likelihood: f64,
    /// Mean log-likelihood of the training rows.
    pub train_log_likelihood: f64,
    /// Normality of the test latents.
    pub latents: LatentDiagnostics,
    /// What training did.
    pub fit: FitReport,
    /// Rows used for training, validation and the read-off.
    pub rows: (usize, usize, usize),
}

/// The seeded split of `n` rows into training, validation and test rows by the configuration's
/// fractions.
pub(crate) fn split_rows(n: usize, cfg: &GaussianisationConfig) -> Result<(Vec<usize>, Vec<usize>, Vec<usize>)> {
    for (name, f) in [("test fraction", cfg.test_fraction), ("validation fraction", cfg.val_fraction)] {
        if !(f > 0.0 && f < 1.0) {
            return Err(Error::param(name, f, "must lie in (0, 1)"));
        }
    }
    let mut idx: Vec<usize> = (0..n).collect();
    shuffle(&mut idx, &mut Stream::FlowSplit.rng(cfg.seed));
    let n_test = (n as f64 * cfg.test_fraction).round() as usize;
    let n_val = ((n - n_test) as f64 * cfg.val_fraction).round() as usize;
    if n_test < 2 || n_val < 1 || n - n_test - n_val < 2 {
        return Err(Error::param("rows", n, "too few for the train/validation/test split"));
    }
    let test = idx.split_off(n - n_test);
    let val = idx.split_off(n - n_test - n_val);
    Ok((idx, val, test))
}

/// Splits the rows (seeded), trains the two flows on the training rows with model selection on
/// the validation rows, and reads the MI off the test rows' latents. `x` and `y`: one row per
/// sample.
pub fn estimate(x: &DMatrix<f64>, y: &DMatrix<f64>, cfg: &GaussianisationConfig) -> Result<FlowMiEstimate> {
    let n = x.nrows();
    if y.nrows() != n {
        return Err(Error::Shape { what: "y".into(), expected: format!("{n} rows"), got: y.nrows().to_string() });
    }
    let (idx, val, test) = split_rows(n, cfg)?;
    let n_test = test.len();
    let (xt, yt) = (x.select_rows(&idx), y.select_rows(&idx));
    let (xv, yv) = (x.select_rows(&val), y.select_rows(&val));
    let (xs, ys) = (x.select_rows(&test), y.select_rows(&test));
    let mut model = FlowGaussianisation::new(&xt, &yt, &xv, &yv, cfg)?;
    let mut params = model.init_params()?;
    let (zx0, zy0) = model.latents(&params, &xs, &ys)?;
    let (initial_mi, _) = gaussian_readoff(&zx0, &zy0)?;
    let report = fit(&mut model, &mut params, cfg.max_steps, cfg.validation)?;
    let (zx, zy) = model.latents(&params, &xs, &ys)?;
    let (mi, canonical) = gaussian_readoff(&zx, &zy)?;
    let (zxt, zyt) = model.latents(&params, &xt, &yt)?;
    let (train_mi, _) = gaussian_readoff(&zxt, &zyt)?;
    let interval = if cfg.bootstrap > 0 {
        let mut g = Stream::FlowBootstrap.rng(cfg.seed);
        let mut vals = Vec::with_capacity(cfg.bootstrap);
        for _ in 0..cfg.bootstrap {
            let pick: Vec<usize> = (0..n_test).map(|_| g.random_range(0..n_test)).collect();
            if let Ok((v, _)) = gaussian_readoff(&zx.select_rows(&pick), &zy.select_rows(&pick)) {
                vals.push(v);
            }
        }
        vals.sort_by(f64::total_cmp);
        // The basic (reverse-percentile) bootstrap interval `(2Î − q₉₇.₅, 2Î − q₂.₅)`: the CCA
        // read-off is biased upwards at finite n (by about d_x·d_y/(2n) at independence), and
        // resampling adds that bias once more, so plain percentiles would sit above Î.
        (!vals.is_empty()).then(|| {
            let q = |p: f64| vals[((vals.len() - 1) as f64 * p).round() as usize];
            let mean = vals.iter().sum::<f64>() / vals.len() as f64;
            (((2.0 * mi - q(0.975)).max(0.0), 2.0 * mi - q(0.025)), 2.0 * mi - mean)
        })
    } else {
        None
    };
    let (interval, bias_corrected) = (interval.map(|v| v.0), interval.map(|v| v.1));
    Ok(FlowMiEstimate {
        mi,
        interval,
        bias_corrected,
        initial_mi,
        canonical,
        model_mi: model.model_mi(&params),
        train_mi,
        test_log_likelihood: model.mean_log_likelihood(&params, &xs, &ys)?,
        train_log_likelihood: model.mean_log_likelihood(&params, &xt, &yt)?,
        latents: diagnostics(&[&zx, &zy]),
        fit: report,
        rows: (idx.len(), val.len(), n_test),
    })
}
