//! An entropy-difference estimator with three flows, in the spirit of McAllester & Stratos
//! (2020): `I(X;Y) = H(X) + H(Y) − H(X, Y)`, each entropy replaced by the held-out
//! cross-entropy of a flow density fitted by maximum likelihood on the training rows:
//!
//! ```text
//! Î = (1/n_test) Σ_i [log q_xy(x_i, y_i) − log q_x(x_i) − log q_y(y_i)]
//! ```
//!
//! (McAllester & Stratos use `H(Y) − H(Y|X)` with a conditional model; the joint form needs only
//! unconditional flows.) Each cross-entropy upper-bounds its entropy, so `Î` is the true MI plus
//! `KL(p_x‖q_x) + KL(p_y‖q_y) − KL(p_xy‖q_xy)`: **not a bound** in either direction, and its errors
//! do not cancel in general. It is an average over held-out rows, so its standard error is the
//! per-row standard deviation over `√n_test`.

use super::fit::{FitReport, fit};
use super::flow::{Flow, FlowCache, FlowSpec};
use super::gaussianise::{GaussianisationConfig, LN_2PI, MarginalFit, check_rows, to_cols};
use crate::error::{Error, Result};
use crate::optim::AdamConfig;
use crate::rng::{Stream, rng};
use crate::train::Validation;
use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

/// The three-flow entropy-difference estimate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EntropyEstimate {
    /// `Î`, the held-out mean of `log q_xy − log q_x − log q_y` (nats).
    pub mi: f64,
    /// Its standard error over the test rows (training spread not included).
    pub se: f64,
    /// The same mean on the training rows: well above `mi` when the flows overfit.
    pub train_mi: f64,
    /// Held-out cross-entropies `(Ĥ(X), Ĥ(Y), Ĥ(X, Y))` in nats.
    pub cross_entropies: (f64, f64, f64),
    /// Training reports of the `x`, `y` and joint flows.
    pub fits: Vec<FitReport>,
    /// Rows used for training, validation and the read-off.
    pub rows: (usize, usize, usize),
}

/// Fits one flow (standard architecture from `cfg`) to `train` (`d × n`) by maximum likelihood
/// under `N(0, I)`: data-initialised, element-wise prefix first at `cfg.marginal_lr`, then the
/// whole flow; returns it with its parameters and the last fit's report.
fn fit_flow(
    d: usize,
    train: &[f64],
    n: usize,
    val: &[f64],
    n_val: usize,
    cfg: &GaussianisationConfig,
    seed: u64,
) -> Result<(Flow, Vec<f64>, FitReport)> {
    let spec = FlowSpec::standard(d, cfg.blocks, &cfg.hidden, cfg.tanh_k);
    let flow = Flow::new(spec.clone(), 0)?;
    let mut p = vec![0.0; flow.n_params()];
    flow.init(&mut p, &mut rng(seed), Some((train, n)))?;
    let prefix = spec.elementwise_prefix();
    if cfg.marginal_steps > 0 && !prefix.layers.is_empty() {
        let pf = Flow::new(prefix, 0)?;
        let mut q = p[..pf.n_params()].to_vec();
        let adam = AdamConfig { lr: cfg.marginal_lr, ..cfg.adam.clone() };
        let mut m = MarginalFit::new(pf, train, n, val, n_val, cfg.batch, adam, Stream::FlowMarginal(0).seed(seed))?;
        let every = (cfg.marginal_steps / 10).max(1);
        fit(&mut m, &mut q, cfg.marginal_steps, Validation { every, patience: cfg.marginal_steps })?;
        p[..q.len()].copy_from_slice(&q);
        // Later affine layers re-standardise what the fitted prefix now outputs.
        flow.standardise(&mut p, train, n, spec_prefix_len(&spec))?;
    }
    let mut m = MarginalFit::new(
        flow.clone(),
        train,
        n,
        val,
        n_val,
        cfg.batch,
        cfg.adam.clone(),
        Stream::FlowJoint.seed(seed),
    )?;
    let report = fit(&mut m, &mut p, cfg.max_steps, cfg.validation)?;
    Ok((flow, p, report))
}

fn spec_prefix_len(spec: &FlowSpec) -> usize {
    spec.elementwise_prefix().layers.len()
}

/// Per-row log-density `log q(x_j)` of `n` columns of `x` under a flow with a standard-normal base.
fn log_density(flow: &Flow, params: &[f64], x: &[f64], n: usize) -> Result<Vec<f64>> {
    let d = flow.dim();
    let mut cache = FlowCache::default();
    flow.forward(params, x, n, &mut cache)?;
    let z = cache.latent();
    Ok(cache
        .logdet()
        .iter()
        .enumerate()
        .map(|(j, ld)| ld - 0.5 * z[j * d..(j + 1) * d].iter().map(|v| v * v).sum::<f64>() - 0.5 * LN_2PI * d as f64)
        .collect())
}

/// Splits the rows as [`super::estimate`] does (same seed → same split), fits flows to `x`, `y`
/// and `(x, y)` on the training rows (model selection on the validation rows) and averages the
/// pointwise log-ratio over the test rows. Uses `cfg`'s architecture, optimiser, stage-1 and
/// split settings (its `cca_init` and `bootstrap` do not apply).
pub fn entropy_difference(x: &DMatrix<f64>, y: &DMatrix<f64>, cfg: &GaussianisationConfig) -> Result<EntropyEstimate> {
    let n = x.nrows();
    if y.nrows() != n {
        return Err(Error::Shape { what: "y".into(), expected: format!("{n} rows"), got: y.nrows().to_string() });
    }
    check_rows("x", x)?;
    check_rows("y", y)?;
    let (idx, val, test) = super::gaussianise::split_rows(n, cfg)?;
    let (n_val, n_test) = (val.len(), test.len());
    let xy = DMatrix::from_fn(
        n,
        x.ncols() + y.ncols(),
        |i, j| if j < x.ncols() { x[(i, j)] } else { y[(i, j - x.ncols())] },
    );
    let mut fits = Vec::new();
    let mut logq = Vec::new();
    let mut logq_train = Vec::new();
    for (k, m) in [x, y, &xy].into_iter().enumerate() {
        let (tr, va, te) =
            (to_cols(&m.select_rows(&idx)), to_cols(&m.select_rows(&val)), to_cols(&m.select_rows(&test)));
        let (flow, p, report) =
            fit_flow(m.ncols(), &tr, idx.len(), &va, n_val, cfg, Stream::FlowFold(k as u64).seed(cfg.seed))?;
        logq.push(log_density(&flow, &p, &te, n_test)?);
        logq_train.push(log_density(&flow, &p, &tr, idx.len())?);
        fits.push(report);
    }
    let train_mi =
        (0..idx.len()).map(|j| logq_train[2][j] - logq_train[0][j] - logq_train[1][j]).sum::<f64>() / idx.len() as f64;
    let pmi: Vec<f64> = (0..n_test).map(|j| logq[2][j] - logq[0][j] - logq[1][j]).collect();
    let mean = pmi.iter().sum::<f64>() / n_test as f64;
    let var = pmi.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n_test as f64 - 1.0);
    let h = |k: usize| -logq[k].iter().sum::<f64>() / n_test as f64;
    Ok(EntropyEstimate {
        mi: mean,
        se: (var / n_test as f64).sqrt(),
        train_mi,
        cross_entropies: (h(0), h(1), h(2)),
        fits,
        rows: (idx.len(), n_val, n_test),
    })
}
