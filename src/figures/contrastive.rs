//! Why temperature matters: the weight InfoNCE's gradient puts on each negative.

use super::{FigureOpts, save_both, write_jsonl};
use crate::contrastive::{cosine_backward, cosine_scores, negative_weights};
use crate::critics::mlp::{ContiguousSlice, MlpCache, MlpScratch};
use crate::critics::{Activation, Init, Mlp, MlpSpec};
use crate::error::Result;
use crate::gemm::Op;
use crate::plot::{Figure, PALETTE, Panel, Series, Style};
use crate::train::{Runner, StepRecord, Termination, Trainable};
use serde::Serialize;

#[derive(Serialize)]
struct Row {
    tau: f64,
    similarity: f64,
    weight: f64,
}

/// The positive's partner score in [`temperature`]: the anchor's similarity to its positive.
pub const TEMPERATURE_POSITIVE: f64 = 0.8;

/// `∂L/∂s⁻_j = (1/τ)·e^{s⁻_j/τ} / (e^{s⁺/τ} + Σ_k e^{s⁻_k/τ})` (InfoNCE's softmax over the
/// positive and the negatives, [`negative_weights`]) for 201 negatives with cosine similarities
/// evenly spread over [−1, 1] and a positive at `s⁺ = 0.8`, at τ ∈ {0.02, 0.1, 0.5, 1}: a small
/// τ puts nearly all the weight on the hardest (most similar) negatives, a large τ spreads it
/// almost uniformly. Nothing is floored or clipped: at τ = 0.02 the weights span
/// `2/(0.02·ln 10) ≈ 43` orders of magnitude, and the y-axis covers that.
pub fn temperature(o: &FigureOpts) -> Result<()> {
    let s: Vec<f64> = (0..=200).map(|k| -1.0 + k as f64 / 100.0).collect();
    let mut rows = Vec::new();
    let mut series = Vec::new();
    let mut lowest = 0.0f64;
    for (k, tau) in [0.02, 0.1, 0.5, 1.0].into_iter().enumerate() {
        let w = negative_weights(TEMPERATURE_POSITIVE, &s, tau);
        let pts: Vec<(f64, f64)> = s.iter().zip(&w).map(|(&x, &v)| (x, v.log10())).collect();
        lowest = pts.iter().fold(lowest, |m, p| m.min(p.1));
        series.push(Series::new(&format!("τ = {tau}"), pts, PALETTE[k], Style::Line(2)));
        rows.extend(s.iter().zip(&w).map(|(&x, &v)| Row { tau, similarity: x, weight: v }));
    }
    let fig = Figure {
        title: "Temperature and hard negatives in InfoNCE".into(),
        panels: vec![Panel {
            title: "gradient weight of each of 201 negatives (similarities over [−1, 1], positive at s⁺ = 0.8)".into(),
            x_label: "similarity of the negative to the anchor".into(),
            y_label: "log10 ∂L/∂s⁻ = log10 [exp(s⁻/τ)/(exp(s⁺/τ) + Σexp(s⁻/τ))/τ]".into(),
            series,
            y_range: Some(((lowest - 1.0).floor(), 2.0)),
            log_x: false,
            legend: Default::default(),
        }],
        cols: 1,
        panel_size: (760, 460),
    };
    save_both(&fig, &o.out, "temperature")?;
    write_jsonl(&o.path("temperature.jsonl"), &rows)
}

/// Synthetic labelled data: `classes` Gaussian clusters in `dim` dimensions.
fn clusters(n: usize, classes: usize, dim: usize, seed: u64) -> (nalgebra::DMatrix<f64>, Vec<usize>) {
    use rand::RngExt;
    let mut g = crate::rng::rng(seed);
    let mut centres = crate::rng::rng(9_999);
    let c: Vec<Vec<f64>> = (0..classes)
        .map(|_| (0..dim).map(|_| 0.8 * centres.sample::<f64, _>(rand_distr::StandardNormal)).collect())
        .collect();
    let labels: Vec<usize> = (0..n).map(|i| i % classes).collect();
    let x = nalgebra::DMatrix::from_fn(n, dim, |i, k| {
        c[labels[i]][k] + 1.5 * g.sample::<f64, _>(rand_distr::StandardNormal)
    });
    (x, labels)
}

/// Which contrastive loss trains the encoder.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Objective {
    /// NT-Xent (plain InfoNCE over the 2N − 1 candidates).
    InfoNce,
    /// Debiased with class prior η⁺.
    Debiased(f64),
    /// Debiased (η⁺) with hard-negative weights of concentration β, the gradient through the
    /// weights or not.
    Hard(f64, f64, crate::contrastive::WeightGradient),
    /// Supervised contrastive (`L_out`), using the labels.
    SupCon,
}

/// The loss and `∂loss/∂S` on the `2N × 2N` view-similarity matrix (already divided by τ).
fn objective_grad(
    obj: Objective,
    s: &nalgebra::DMatrix<f64>,
    labels: &[usize],
    tau: f64,
) -> crate::Result<(f64, nalgebra::DMatrix<f64>)> {
    use crate::contrastive::{SupConVariant, debiased, hard_negative, nt_xent, supcon};
    let m = s.nrows();
    let half = m / 2;
    match obj {
        Objective::InfoNce => nt_xent(s),
        Objective::SupCon => supcon(s, labels, SupConVariant::Out),
        Objective::Debiased(eta) | Objective::Hard(eta, ..) => {
            let mut grad = nalgebra::DMatrix::zeros(m, m);
            let mut loss = 0.0;
            for i in 0..m {
                let p = (i + half) % m;
                let negs: Vec<usize> = (0..m).filter(|&k| k != i && k != p).collect();
                let sn: Vec<f64> = negs.iter().map(|&k| s[(i, k)]).collect();
                let (l, dp, dn, de) = match obj {
                    Objective::Hard(_, beta, gradient) => {
                        hard_negative(s[(i, p)], &sn, &[s[(i, p)]], eta, tau, beta, gradient)?
                    }
                    _ => debiased(s[(i, p)], &sn, &[s[(i, p)]], eta, tau, None)?,
                };
                loss += l;
                grad[(i, p)] += (dp + de[0]) / m as f64;
                for (j, &k) in negs.iter().enumerate() {
                    grad[(i, k)] += dn[j] / m as f64;
                }
            }
            Ok((loss / m as f64, grad))
        }
    }
}

/// Normalised embeddings (rows) with their class labels.
pub type Labelled = (nalgebra::DMatrix<f64>, Vec<usize>);

/// An MLP encoder trained with a contrastive objective on two noisy views of labelled data: a
/// [`Trainable`] for the one training runner.
struct EncoderTrainer<'a> {
    obj: Objective,
    tau: f64,
    batch: usize,
    mlp: Mlp,
    x: &'a nalgebra::DMatrix<f64>,
    labels: &'a [usize],
    g: crate::rng::Xoshiro,
    adam: crate::optim::Adam<f64>,
    cache: MlpCache<f64>,
    scratch: MlpScratch<f64>,
    grads: Vec<f64>,
}

/// The encoder's embeddings (rows) of the rows of `x`.
fn embed(mlp: &Mlp, params: &[f64], x: &nalgebra::DMatrix<f64>, cache: &mut MlpCache<f64>) -> nalgebra::DMatrix<f64> {
    let xt = x.transpose();
    let out = mlp.forward(params, xt.as_view(), Op::N, cache);
    nalgebra::DMatrix::from_column_slice(mlp.spec().output, x.nrows(), out.as_slice_contiguous()).transpose()
}

impl Trainable<f64> for EncoderTrainer<'_> {
    fn step(&mut self, params: &mut [f64], step: u64) -> crate::Result<StepRecord> {
        use rand::RngExt;
        let (batch, dim) = (self.batch, self.x.ncols());
        let idx: Vec<usize> = (0..batch).map(|_| self.g.random_range(0..self.x.nrows())).collect();
        let base = self.x.select_rows(&idx);
        let mut views = nalgebra::DMatrix::zeros(2 * batch, dim);
        for v in 0..2 {
            for i in 0..batch {
                for k in 0..dim {
                    views[(v * batch + i, k)] =
                        base[(i, k)] + 0.5 * self.g.sample::<f64, _>(rand_distr::StandardNormal);
                }
            }
        }
        let labels: Vec<usize> = (0..2 * batch).map(|r| self.labels[idx[r % batch]]).collect();
        let z = embed(&self.mlp, params, &views, &mut self.cache);
        let s = cosine_scores(&z, &z, self.tau)?;
        let (loss, ds) = objective_grad(self.obj, &s, &labels, self.tau)?;
        let (dq, dk) = cosine_backward(&z, &z, self.tau, &ds);
        let dz = (dq + dk).transpose();
        self.mlp.backward(
            params,
            &mut self.grads,
            views.transpose().as_view(),
            Op::N,
            &self.cache,
            dz.as_view(),
            &mut self.scratch,
            false,
            None,
        );
        self.adam
            .step(params, &self.grads)
            .map_err(|_| crate::Error::Diverged { step: step as usize, what: "gradient norm is not finite".into() })?;
        Ok(StepRecord { step, value: -loss, objective: -loss, true_mi: None })
    }
}

/// Trains an MLP encoder `16 → 64 → 16` with `obj` on two noisy views of clustered data and
/// returns the normalised embeddings of the training and of held-out samples with their labels.
pub fn train_encoder(obj: Objective, tau: f64, steps: usize, seed: u64) -> crate::Result<(Labelled, Labelled)> {
    let (dim, classes, batch) = (16, 8, 64);
    let (train_x, train_y) = clusters(2048, classes, dim, seed);
    let (test_x, test_y) = clusters(1024, classes, dim, seed + 1);
    let mlp = Mlp::new(MlpSpec { input: dim, hidden: vec![64], output: 16, activation: Activation::Relu }, 0);
    let mut params = vec![0.0f64; mlp.n_params()];
    let mut g = crate::rng::rng(seed);
    mlp.init(&mut params, Init::Torch, &mut g);
    let adam = crate::optim::Adam::new(crate::optim::AdamConfig { lr: 1e-3, ..Default::default() }, params.len())?;
    let grads = vec![0.0; params.len()];
    let mut model = EncoderTrainer {
        obj,
        tau,
        batch,
        mlp,
        x: &train_x,
        labels: &train_y,
        g,
        adam,
        cache: MlpCache::default(),
        scratch: MlpScratch::default(),
        grads,
    };
    let out = Runner::new(steps as u64).run(&mut model, params)?;
    if let Termination::Diverged { step, what } = out.termination {
        return Err(crate::Error::Diverged { step, what });
    }
    let norm = |m: nalgebra::DMatrix<f64>| {
        let mut m = m;
        for mut r in m.row_iter_mut() {
            let n = r.norm().max(1e-12);
            r /= n;
        }
        m
    };
    let tr = norm(embed(&model.mlp, &out.params, &train_x, &mut model.cache));
    let te = norm(embed(&model.mlp, &out.params, &test_x, &mut model.cache));
    Ok(((tr, train_y), (te, test_y)))
}

/// Linear-probe accuracy: a least-squares linear classifier on frozen embeddings (ridge
/// regression to one-hot targets, λ = 1e-3), fitted on the training embeddings, scored on the
/// test embeddings.
pub fn linear_probe(tr: &nalgebra::DMatrix<f64>, ytr: &[usize], te: &nalgebra::DMatrix<f64>, yte: &[usize]) -> f64 {
    let classes = ytr.iter().max().map_or(1, |m| m + 1);
    let with_bias = |m: &nalgebra::DMatrix<f64>| {
        nalgebra::DMatrix::from_fn(m.nrows(), m.ncols() + 1, |i, j| if j < m.ncols() { m[(i, j)] } else { 1.0 })
    };
    let (a, b) = (with_bias(tr), with_bias(te));
    let y = nalgebra::DMatrix::from_fn(a.nrows(), classes, |i, c| if ytr[i] == c { 1.0 } else { 0.0 });
    let gram = a.transpose() * &a + nalgebra::DMatrix::identity(a.ncols(), a.ncols()) * 1e-3;
    let w = match gram.cholesky() {
        Some(ch) => ch.solve(&(a.transpose() * y)),
        None => return f64::NAN,
    };
    let pred = b * w;
    let correct = (0..pred.nrows())
        .filter(|&i| pred.row(i).iter().enumerate().max_by(|x, y| x.1.total_cmp(y.1)).map(|m| m.0) == Some(yte[i]))
        .count();
    correct as f64 / pred.nrows() as f64
}

/// Uniformity and alignment against τ, and the linear-probe comparison of objectives.
pub fn contrastive_experiments(o: &FigureOpts) -> Result<()> {
    use crate::contrastive::{WeightGradient, uniformity};
    let (steps, seeds) = if o.quick { (20, 1u64) } else { (600, 5u64) };
    let taus = [0.02, 0.1, 0.5, 1.0];
    #[derive(Serialize)]
    struct URow {
        tau: f64,
        seed: u64,
        uniformity: f64,
        probe: f64,
    }
    let mut urows = Vec::new();
    for &tau in &taus {
        for seed in 0..seeds {
            let ((tr, ytr), (te, yte)) = train_encoder(Objective::InfoNce, tau, steps, o.seed + seed)?;
            urows.push(URow { tau, seed, uniformity: uniformity(&te, 2.0), probe: linear_probe(&tr, &ytr, &te, &yte) });
        }
    }
    let pts = |f: fn(&URow) -> f64| -> Vec<(f64, f64)> {
        taus.iter()
            .map(|&t| {
                let v: Vec<f64> = urows.iter().filter(|r| r.tau == t).map(f).collect();
                (t, v.iter().sum::<f64>() / v.len() as f64)
            })
            .collect()
    };
    let fig = Figure {
        title: "NT-Xent encoders on 8 clusters (16-d): temperature against uniformity".into(),
        panels: vec![Panel {
            title: "uniformity log E exp(−2‖f(x) − f(y)‖²) of held-out embeddings (lower = more uniform)".into(),
            x_label: "temperature τ (log scale)".into(),
            y_label: "uniformity (nats)".into(),
            series: vec![Series::new("mean over seeds", pts(|r| r.uniformity), PALETTE[0], Style::Line(2))],
            y_range: None,
            log_x: true,
            legend: Default::default(),
        }],
        cols: 1,
        panel_size: (760, 440),
    };
    save_both(&fig, &o.out, "uniformity")?;
    write_jsonl(&o.path("uniformity.jsonl"), &urows)?;
    let mut utable = String::from("| τ | uniformity, mean ± sd | probe accuracy, mean ± sd |\n|---|---|---|\n");
    for &t in &taus {
        let of = |f: fn(&URow) -> f64| crate::train::mean_std(urows.iter().filter(|r| r.tau == t).map(f));
        let ((um, us), (pm, ps)) = (of(|r| r.uniformity), of(|r| r.probe));
        utable += &format!("| {t} | {um:.3} ± {us:.3} | {pm:.3} ± {ps:.3} (n = {seeds}) |\n");
    }
    std::fs::write(o.path("uniformity.md"), utable)
        .map_err(|source| crate::Error::Io { path: o.path("uniformity.md"), source })?;
    let objectives = [
        ("InfoNCE (NT-Xent)", Objective::InfoNce),
        ("debiased η⁺ = 1/8", Objective::Debiased(0.125)),
        (
            "hard negatives β = 1, η⁺ = 1/8 (gradient through the weights, the paper's code)",
            Objective::Hard(0.125, 1.0, WeightGradient::Through),
        ),
        ("hard negatives β = 1, η⁺ = 1/8 (weights detached)", Objective::Hard(0.125, 1.0, WeightGradient::Detached)),
        ("SupCon (labels)", Objective::SupCon),
    ];
    let mut table = String::from("| objective (τ = 0.5) | linear-probe accuracy, mean ± sd over seeds |\n|---|---|\n");
    for (name, obj) in objectives {
        let acc: Vec<f64> = (0..seeds)
            .map(|s| {
                let ((tr, ytr), (te, yte)) = train_encoder(obj, 0.5, steps, o.seed + 100 + s)?;
                Ok(linear_probe(&tr, &ytr, &te, &yte))
            })
            .collect::<Result<_>>()?;
        let (m, sd) = crate::train::mean_std(acc.iter().copied());
        table += &format!("| {name} | {m:.3} ± {sd:.3} (n = {}) |\n", acc.len());
    }
    std::fs::write(o.path("linear_probe.md"), table)
        .map_err(|source| crate::Error::Io { path: o.path("linear_probe.md"), source })
}
