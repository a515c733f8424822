//! Neural bounds as estimators: any bound × any critic, trained and evaluated on held-out rows.
//!
//! 1. The rows are split into `K` folds; identical rows (the same x and y) always fall into the
//!    same fold, so a duplicated row can never be trained on and tested on.
//! 2. For each fold, each coordinate goes through a map fitted on the fold's training rows
//!    ([`MarginalTransform`]; default: ranks → normal scores, which tames heavy tails and odd
//!    marginals — MI is unchanged by invertible maps of each coordinate). A critic is trained
//!    on the training rows
//!    with the bound's training objective (JS and SMILE share a JS-trained critic; CLUB,
//!    CLUB-sample, L1Out and BA share a conditional `q(y|x)` fitted by maximum likelihood), with
//!    10 % of the training rows held back for validation: the runner keeps the parameters with
//!    the best validation objective (checked once per epoch by default; training stops after
//!    `patience` steps without improvement). The untrained, information-free critic is a
//!    candidate too. With [`NeuralConfig::alternatives`] (by default two: deeper critics with
//!    weight decay, with ReLU and with softplus units), each fold also trains those critics
//!    and keeps the one whose best validation objective is highest — chosen on the fold's
//!    validation rows, so its test rows still see nothing of the choice.
//! 3. The bound is evaluated on the fold's **test** rows (random batches of size N), which
//!    neither training nor the choice of parameters saw. Selecting the best value *on the test
//!    set*, as benchmark-mi does, would bias the estimate upward.
//! 4. The estimate is the mean over folds. The 95 % interval is Nadeau & Bengio's corrected
//!    resampled t-interval, `mean ± t_{0.975, K−1}·sd·√(1/K + n_test/n_train)`: the folds'
//!    training sets overlap, so their values are correlated and the naive `sd/√K` understates
//!    the variance (Nadeau & Bengio 2003, "Inference for the generalization error").
//!
//! Small data sets adapt: when a fold's training rows are fewer than the batch, the batch is
//! lowered (to a power of two, at least 8) with a warning. Bounds are evaluated on test batches
//! of `min(batch, test rows)` rows — the size reported as `eval_batch`, which is also the N of
//! InfoNCE's `log N` ceiling.
//!
//! Several bounds asked for together ([`estimate_bounds`]) share the critics they can share;
//! each critic's seed depends only on the estimate's seed, the fold and the training objective,
//! so a bound estimated alone ([`Neural`]) gives exactly the number it gives in company.

use super::marginal::MarginalTransform;
use super::{Diagnostics, Estimate, Estimator, Interval, Kind, check_inputs};
use crate::bounds::{Bound, BoundSpec};
use crate::compute::Compute;
use crate::critics::{Critic, CriticSpec, Init};
use crate::error::{Error, Result};
use crate::optim::{Adam, AdamConfig};
use crate::rng::{rng, shuffle};
use crate::train::{
    CriticTrainer, Data, Dataset, Observer, Outcome, Progress, ProgressCounter, Runner, StepRecord, Termination,
    TrainStep, Validation, evaluate_batches, mean_std, random_batches,
};
use nalgebra::{DMatrix, DMatrixView};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// A critic, with its own L2 weight decay, that each fold trains beside the configured one
/// ([`NeuralConfig::alternatives`]); the fold keeps whichever validates highest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Alternative {
    /// The critic.
    pub critic: CriticSpec,
    /// Its L2 weight decay (the rest of the optimiser is [`NeuralConfig::adam`]).
    pub weight_decay: f64,
}

impl Alternative {
    /// The first default alternative: a separable critic with two hidden layers of 256 (ReLU)
    /// and 32-d embeddings, with weight decay 0.01 (docs/results.md, section 7, has the
    /// measurements behind it).
    pub fn regularised() -> Self {
        Alternative {
            critic: CriticSpec::Separable {
                hidden: vec![256, 256],
                embed: 32,
                activation: crate::critics::Activation::Relu,
                similarity: crate::critics::Similarity::Dot,
            },
            weight_decay: 0.01,
        }
    }

    /// The second default alternative: [`Alternative::regularised`] with softplus instead of
    /// ReLU units. A smooth unit represents the squared norms on which benchmark-mi's spiral
    /// depends with fewer units than a ReLU does: on `spiral-multinormal-sparse-25-25-2-2.0`
    /// (n = 5000, true MI 1.02), as the only alternative, it reads 0.80 over three seeds where
    /// the ReLU critics read 0.72–0.73, while on the 3 + 3 and 5 + 5 spirals the ReLU one is
    /// better (docs/results.md, section 7).
    pub fn smooth() -> Self {
        let mut a = Alternative::regularised();
        if let CriticSpec::Separable { activation, .. } = &mut a.critic {
            *activation = crate::critics::Activation::Softplus;
        }
        a
    }

    /// The alternatives of `--critic auto`: [`Alternative::regularised`] and
    /// [`Alternative::smooth`].
    pub fn defaults() -> Vec<Self> {
        vec![Alternative::regularised(), Alternative::smooth()]
    }
}

/// Random validation batches per check.
const VALIDATION_BATCHES: usize = 8;
/// Random batches per held-out evaluation of a test fold.
const TEST_BATCHES: usize = 32;

/// Settings of the neural estimators (everything but the bound and the seed).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct NeuralConfig {
    /// Critic for the lower bounds and estimates.
    pub critic: CriticSpec,
    /// Conditional model for CLUB, L1Out and BA.
    pub conditional: CriticSpec,
    /// Batch size N.
    pub batch: usize,
    /// Maximum training steps per critic and fold.
    pub max_steps: u64,
    /// Optimiser.
    pub adam: AdamConfig,
    /// Number of folds K ≥ 2.
    pub folds: usize,
    /// The map each coordinate goes through, fitted on each fold's training rows
    /// ([`MarginalTransform`]; default: ranks → normal scores).
    pub transform: MarginalTransform,
    /// Validation check interval in steps; `0` checks once per epoch of the training rows
    /// (at least every 5 and at most every 100 steps).
    pub eval_every: u64,
    /// Steps without a validation improvement before stopping.
    pub patience: u64,
    /// Further critics for the lower bounds and estimates (not the conditional model), each
    /// trained on every fold beside [`NeuralConfig::critic`]; a fold keeps the critic with the
    /// highest validation objective. Empty: `critic` alone.
    #[serde(default)]
    pub alternatives: Vec<Alternative>,
    /// The gemm backend and the threads one training step may use.
    #[serde(default)]
    pub compute: Compute,
}

impl Default for NeuralConfig {
    /// The defaults of `mibound estimate`: critics with one hidden layer of 512 (a separable
    /// critic with 32-d embeddings, a Gaussian q), no weight decay, and as an alternative each
    /// fold chooses by validation among it and [`Alternative::defaults`] (two hidden layers of
    /// 256 with weight decay 0.01, with ReLU and with softplus units); N = 256; 5 folds; at most
    /// 3000 steps.
    ///
    /// No one critic is best everywhere (docs/results.md, section 7). The single wide layer
    /// suits dependence spread thinly over many coordinates (a 20-d Gaussian with 2 nats: 1.82,
    /// where the regularised critic reads 0.87). On benchmark-mi's sparse and spiral tasks in
    /// up to 25 + 25 dimensions it memorises its training rows within ~150 steps (validation
    /// InfoNCE 0.65, training 1.3, truth 1.02), where the regularised ReLU critic reads
    /// 0.72–0.89, and the softplus one 0.80 on the 25 + 25 spiral (ReLU: 0.72).
    fn default() -> Self {
        NeuralConfig {
            critic: CriticSpec::Separable {
                hidden: vec![512],
                embed: 32,
                activation: crate::critics::Activation::Relu,
                similarity: crate::critics::Similarity::Dot,
            },
            conditional: CriticSpec::Gaussian {
                hidden: vec![512],
                activation: crate::critics::Activation::Relu,
                variance: Default::default(),
            },
            batch: 256,
            max_steps: 3000,
            adam: AdamConfig::default(),
            folds: 5,
            transform: MarginalTransform::Copula,
            eval_every: 0,
            patience: 600,
            alternatives: Alternative::defaults(),
            compute: Compute::default(),
        }
    }
}

impl NeuralConfig {
    /// Checks every setting that does not depend on the data: batch ≥ 2, steps ≥ 1, folds ≥ 2,
    /// patience ≥ 1, the optimiser's ranges and the critics' sizes.
    pub fn validate(&self) -> Result<()> {
        if self.batch < 2 {
            return Err(Error::param("batch", self.batch, "must be at least 2"));
        }
        if self.max_steps == 0 {
            return Err(Error::param("steps", 0, "must be at least 1"));
        }
        if self.folds < 2 {
            return Err(Error::param("folds", self.folds, "need at least 2"));
        }
        if self.patience == 0 {
            return Err(Error::param("patience", 0, "must be at least 1"));
        }
        self.adam.validate()?;
        // Building on 1 × 1 inputs checks the critics' sizes (hidden width 0, embedding 0).
        self.critic.build::<f32>(1, 1)?;
        self.conditional.build::<f32>(1, 1)?;
        for a in &self.alternatives {
            AdamConfig { weight_decay: a.weight_decay, ..self.adam.clone() }.validate()?;
            a.critic.build::<f32>(1, 1)?;
        }
        Ok(())
    }

    /// The critic that trains `bound`'s objective.
    fn critic_for(&self, bound: &BoundSpec) -> &CriticSpec {
        if bound.needs_log_density() { &self.conditional } else { &self.critic }
    }

    /// The critics (with their optimiser settings) a fold trains for `bound`'s training
    /// objective: the configured one first, then the alternatives (not for conditional models).
    fn candidates_for(&self, bound: &BoundSpec) -> Vec<(CriticSpec, AdamConfig)> {
        let mut c = vec![(self.critic_for(bound).clone(), self.adam.clone())];
        if !bound.needs_log_density() {
            c.extend(
                self.alternatives
                    .iter()
                    .map(|a| (a.critic.clone(), AdamConfig { weight_decay: a.weight_decay, ..self.adam.clone() })),
            );
        }
        c
    }

    /// Critics trained per fold for `bound`'s training objective (1 + the alternatives, or 1
    /// for a conditional model).
    pub fn critics_per_fold(&self, bound: &BoundSpec) -> usize {
        self.candidates_for(&trainer_bound(bound)).len()
    }

    /// The most training steps an estimate of `bounds` can take (bounds sharing a training
    /// objective share critics): the total of a progress bar.
    pub fn max_training_steps(&self, bounds: &[BoundSpec]) -> u64 {
        let mut trainers: Vec<BoundSpec> = Vec::new();
        for b in bounds {
            let t = trainer_bound(b);
            if !trainers.contains(&t) {
                trainers.push(t);
            }
        }
        let critics: usize = trainers.iter().map(|t| self.critics_per_fold(t)).sum();
        critics as u64 * self.folds as u64 * self.max_steps
    }
}

/// One bound of a critic, trained and evaluated held-out: an [`Estimator`].
#[derive(Clone, Debug, PartialEq)]
pub struct Neural {
    /// The bound.
    pub bound: BoundSpec,
    /// Critic, training and fold settings.
    pub config: NeuralConfig,
}

impl Neural {
    /// `bound` with `config` (validated).
    pub fn new(bound: BoundSpec, config: NeuralConfig) -> Result<Self> {
        config.validate()?;
        bound.build::<f32>()?;
        Ok(Neural { bound, config })
    }
}

impl Estimator for Neural {
    fn name(&self) -> String {
        self.bound.to_string()
    }

    fn kind(&self) -> Kind {
        self.bound.build::<f32>().map_or(Kind::Estimate, |b| b.kind())
    }

    fn estimate(&self, x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, seed: u64) -> Result<Estimate> {
        let run = estimate_bounds(&[self.bound], &self.config, x, y, seed, None)?;
        Ok(run.estimates.into_iter().next().expect("one estimate per bound"))
    }
}

/// One step of one critic's training, for `--trace` and `--plot`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceRow {
    /// Fold index.
    pub fold: usize,
    /// The trained bound's label.
    pub bound: String,
    /// Step.
    pub step: u64,
    /// Value on the training batch.
    pub train: f64,
    /// Validation objective at checks (NaN otherwise).
    pub validation: f64,
}

/// The estimates of [`estimate_bounds`] with the training trace of every critic.
#[derive(Clone, Debug)]
pub struct NeuralRun {
    /// One estimate per requested bound, in order.
    pub estimates: Vec<Estimate>,
    /// Per-step training values and validation checks of every critic and fold.
    pub trace: Vec<TraceRow>,
}

/// The training objective that trains a bound's critic: bounds with the same key share one.
fn trainer_bound(b: &BoundSpec) -> BoundSpec {
    match b {
        BoundSpec::Smile { .. } | BoundSpec::JsShifted => BoundSpec::Js,
        b if b.needs_log_density() => BoundSpec::Club,
        b => *b,
    }
}

/// A seed for a critic from the estimate's seed, the fold and the training objective only
/// (FNV-1a of the objective's name), so a bound gets the same critic alone or in company.
fn critic_seed(seed: u64, fold: usize, trainer: &BoundSpec) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in trainer.to_string().bytes().chain(fold.to_le_bytes()).chain(seed.to_le_bytes()) {
        h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Splits the rows into `k` folds of nearly equal size at random (seeded), keeping identical
/// rows (the same x and y, bit for bit) together. Returns the folds and the number of rows that
/// repeat an earlier one.
fn folds_by_groups(x: &DMatrix<f64>, y: &DMatrix<f64>, k: usize, seed: u64) -> (Vec<Vec<usize>>, usize) {
    use std::collections::HashMap;
    let n = x.nrows();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut index: HashMap<Vec<u64>, usize> = HashMap::new();
    for i in 0..n {
        let key: Vec<u64> = x.row(i).iter().chain(y.row(i).iter()).map(|v| v.to_bits()).collect();
        match index.get(&key) {
            Some(&g) => groups[g].push(i),
            None => {
                index.insert(key, groups.len());
                groups.push(vec![i]);
            }
        }
    }
    let repeats = n - groups.len();
    shuffle(&mut groups, &mut rng(seed));
    // Whole groups fill the folds in turn, each up to its share of the rows.
    let mut folds = vec![Vec::new(); k];
    let (mut f, mut filled) = (0, 0);
    for g in groups {
        while f + 1 < k && filled >= (f + 1) * n / k {
            f += 1;
        }
        filled += g.len();
        folds[f].extend(g);
    }
    (folds, repeats)
}

/// Records training values and validation checks of one critic for the trace.
struct TraceRecorder<'a> {
    rows: &'a mut Vec<TraceRow>,
    fold: usize,
    label: String,
}

impl Observer for TraceRecorder<'_> {
    fn step(&mut self, r: &StepRecord) -> Result<()> {
        let (fold, bound) = (self.fold, self.label.clone());
        self.rows.push(TraceRow { fold, bound, step: r.step, train: r.value, validation: f64::NAN });
        Ok(())
    }
    fn validated(&mut self, step: u64, objective: f64) -> Result<()> {
        if let Some(last) = self.rows.last_mut().filter(|r| r.step + 1 == step) {
            last.validation = objective;
        }
        Ok(())
    }
}

/// What one critic of one fold gave.
struct FoldOutcome {
    /// `(bound index, held-out value)`.
    values: Vec<(usize, f64)>,
    trace: Vec<TraceRow>,
    warnings: Vec<String>,
    steps: u64,
    diverged: bool,
    /// For a conditional model: held-out mean `log q(y|x)` minus that of the marginal model.
    q_gain: Option<f64>,
    /// Which candidate critic the fold kept (0 = the configured critic, i = alternative i).
    choice: usize,
}

/// What every critic of one fold trains and is evaluated on: the settings, the fold's
/// transformed data (its training rows), its held-out validation and test rows, the size of
/// the test batches, the fold's index and the progress callback.
struct Fold<'a> {
    cfg: &'a NeuralConfig,
    eval_every: u64,
    data: &'a Data,
    val: &'a [usize],
    test: &'a [usize],
    eval_batch: usize,
    index: usize,
    progress: Option<&'a dyn Progress>,
}

/// Mean log-likelihood, on the rows `test`, of the marginal model of `y`: independent Gaussians
/// per coordinate with the mean and variance of the rows `train` — what a conditional model
/// `q(y|x)` must beat for its upper bounds to mean anything.
fn marginal_log_likelihood(y: &DMatrix<f64>, train: &[usize], test: &[usize]) -> f64 {
    const LN_2PI: f64 = 1.837_877_066_409_345_5;
    let mut ll = 0.0;
    for c in y.column_iter() {
        let n = train.len() as f64;
        let mean = train.iter().map(|&i| c[i]).sum::<f64>() / n;
        let var = (train.iter().map(|&i| (c[i] - mean).powi(2)).sum::<f64>() / n).max(1e-12);
        ll += test.iter().map(|&i| -0.5 * (LN_2PI + var.ln() + (c[i] - mean).powi(2) / var)).sum::<f64>()
            / test.len() as f64;
    }
    ll
}

/// One trained candidate critic of a fold.
struct Trained {
    critic: Box<dyn Critic<f32>>,
    out: Outcome<f32>,
    trace: Vec<TraceRow>,
    /// Its best validation objective.
    best_validation: f64,
}

/// Trains `spec` with `adam` on the fold's training rows, validating on its validation rows.
fn train_candidate(
    fold: &Fold<'_>,
    trainer: BoundSpec,
    (spec, adam): &(CriticSpec, AdamConfig),
    seed: u64,
) -> Result<Trained> {
    let Fold { cfg, eval_every, data, progress, .. } = *fold;
    let Data::Dataset(d) = data else { unreachable!("estimates train on data sets") };
    let dims = (d.x.ncols(), d.y.ncols());
    let critic = spec.build_with::<f32>(dims.0, dims.1, cfg.compute)?;
    let mut params = critic.init_params(Init::Torch, seed);
    // Start from a critic that carries no information (every bound at 0): on independent data
    // nothing trained beats it on validation, and the estimate stays at 0 instead of the
    // negative value of a critic fitted to noise.
    critic.zero_output(&mut params);
    let mut adam = Adam::new(adam.clone(), params.len())?;
    adam.set_compute(cfg.compute);
    let bound = trainer.build::<f32>()?;
    let label = bound.label();
    let step = TrainStep::new(critic, bound, adam, cfg.batch, dims);
    let mut model = CriticTrainer::new(step, data, rng(seed ^ 0x5EED), cfg.max_steps as usize).with_validation(
        trainer.build::<f32>()?,
        random_batches(fold.val, cfg.batch, VALIDATION_BATCHES, seed ^ 0xBA7C),
    )?;
    let mut trace = Vec::new();
    let out = {
        let mut runner = Runner::new(cfg.max_steps)
            .validate(Validation { every: eval_every, patience: cfg.patience })
            .observe(TraceRecorder { rows: &mut trace, fold: fold.index, label });
        if let Some(f) = progress {
            runner = runner.observe(ProgressCounter::new(f, 50));
        }
        cfg.compute.on_pool(|| runner.run(&mut model, params))?
    };
    if let Some(f) = progress {
        // The steps not taken after an early stop, so the bar reaches its end.
        f.advance(cfg.max_steps.saturating_sub(out.records.len() as u64));
    }
    let best_validation = out
        .validations
        .iter()
        .find(|v| Some(v.0) == out.best_step)
        .map_or(f64::NEG_INFINITY, |v| if v.1.is_finite() { v.1 } else { f64::NEG_INFINITY });
    Ok(Trained { critic: model.step.critic, out, trace, best_validation })
}

/// Trains the critic(s) of `trainer` on the fold's training rows (validation on its validation
/// rows), keeps the candidate with the highest validation objective, and evaluates the bounds
/// `members` on its test rows.
fn run_critic(fold: &Fold<'_>, trainer: BoundSpec, members: &[(usize, BoundSpec)], seed: u64) -> Result<FoldOutcome> {
    let Fold { cfg, eval_every, data, .. } = *fold;
    let Data::Dataset(d) = data else { unreachable!("estimates train on data sets") };
    let label = trainer.build::<f32>()?.label();
    let candidates = cfg.candidates_for(&trainer);
    let mut steps = 0;
    let mut chosen: Option<(usize, Trained)> = None;
    for (i, c) in candidates.iter().enumerate() {
        // The first candidate keeps the seed a single critic always had.
        let s = if i == 0 { seed } else { seed ^ (0xA17E_0000 + i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) };
        let t = train_candidate(fold, trainer, c, s)?;
        steps += t.out.records.len() as u64;
        if chosen.as_ref().is_none_or(|(_, b)| t.best_validation > b.best_validation) {
            chosen = Some((i, t));
        }
    }
    let (choice, Trained { mut critic, out, trace, .. }) = chosen.expect("at least one candidate");
    let best = out.best_step.unwrap_or(0);
    let mut warnings = Vec::new();
    let diverged = matches!(out.termination, Termination::Diverged { .. });
    if let Termination::Diverged { step, what } = &out.termination {
        warnings.push(format!(
            "diverged: the {label} critic of fold {} diverged at step {step} ({what}); its last validated parameters (step {best}) are used",
            fold.index + 1
        ));
    }
    if out.termination == Termination::MaxSteps && best + eval_every >= cfg.max_steps {
        warnings.push(format!(
            "not converged: the {label} critic of fold {} was still improving on validation data at the step limit ({}); raise --steps",
            fold.index + 1,
            cfg.max_steps
        ));
    }
    let mut bounds: Vec<Box<dyn Bound<f32>>> = members.iter().map(|(_, b)| b.build::<f32>()).collect::<Result<_>>()?;
    let test_batches = random_batches(fold.test, fold.eval_batch, TEST_BATCHES, seed ^ 0x7E57);
    let vals = evaluate_batches(critic.as_mut(), &out.params, &mut bounds, &d.x, &d.y, &test_batches)?;
    // A conditional model's objective is its mean log-likelihood log q(y_i|x_i): compare it with
    // the marginal model's on the same rows.
    let q_gain = trainer.needs_log_density().then(|| {
        let test_rows: Vec<usize> = test_batches.iter().flatten().copied().collect();
        vals[0].1 - marginal_log_likelihood(&d.y, &d.train, &test_rows)
    });
    Ok(FoldOutcome {
        values: members.iter().map(|m| m.0).zip(vals.into_iter().map(|v| v.0)).collect(),
        trace,
        warnings,
        steps,
        diverged,
        q_gain,
        choice,
    })
}

/// Estimates `I(X; Y)` with each of `bounds` (see the module docs), sharing critics between
/// bounds with the same training objective. `progress`, when given, is told the counts of
/// training steps as they are taken (from several threads), and stops the run with
/// [`Error::Cancelled`] when it says so.
pub fn estimate_bounds(
    bounds: &[BoundSpec],
    cfg: &NeuralConfig,
    x: DMatrixView<'_, f64>,
    y: DMatrixView<'_, f64>,
    seed: u64,
    progress: Option<&dyn Progress>,
) -> Result<NeuralRun> {
    let started = std::time::Instant::now();
    cfg.validate()?;
    check_inputs(x, y, 2)?;
    if bounds.is_empty() {
        return Err(Error::param("bounds", "(none)", "ask for at least one bound"));
    }
    for b in bounds {
        if matches!(b, BoundSpec::Ba { entropy_y: None }) {
            return Err(Error::param("ba", "(no H(Y))", "for data files give H(Y) in nats: ba:<nats>"));
        }
        b.build::<f32>()?;
    }
    let n = x.nrows();
    if cfg.folds > n / 2 {
        return Err(Error::param("folds", cfg.folds, &format!("{n} rows allow at most {} folds of 2 rows", n / 2)));
    }
    let (xs, ys) = (x.clone_owned(), y.clone_owned());
    let (folds, repeats) = folds_by_groups(&xs, &ys, cfg.folds, seed);
    let mut notes = Vec::new();
    if repeats > 0 {
        notes.push(format!(
            "{repeats} of the {n} rows repeat an earlier row exactly; identical rows are kept in the same fold"
        ));
    }
    // The smallest fold's training part (90 % of the rows outside it) and test part.
    let min_test = folds.iter().map(Vec::len).min().unwrap_or(0);
    let max_test = folds.iter().map(Vec::len).max().unwrap_or(0);
    let min_fit = ((n - max_test) as f64 * 0.9) as usize;
    let min_val = (n - max_test) - min_fit;
    if min_test < 2 || min_fit < 8 || min_val < 2 {
        return Err(Error::param(
            "rows",
            n,
            &format!(
                "too few rows for {} folds: each fold needs at least 2 test rows, 8 training and 2 validation rows",
                cfg.folds
            ),
        ));
    }
    let mut batch = cfg.batch;
    if min_fit < batch {
        batch = 1 << min_fit.ilog2();
        notes.push(format!(
            "small data set: {n} rows leave {min_fit} training rows per fold, fewer than the batch {}; batch lowered to {batch} (InfoNCE ≤ log N, so estimates above log {batch} = {:.2} nats are out of reach)",
            cfg.batch,
            (batch as f64).ln()
        ));
    }
    let eval_batch = batch.min(min_test);
    let cfg = &NeuralConfig { batch, ..cfg.clone() };
    let eval_every = if cfg.eval_every == 0 { ((min_fit / batch) as u64).clamp(5, 100) } else { cfg.eval_every };
    // Critics: one per distinct training objective, in order of first appearance.
    let mut groups: Vec<(BoundSpec, Vec<(usize, BoundSpec)>)> = Vec::new();
    for (i, b) in bounds.iter().enumerate() {
        let t = trainer_bound(b);
        match groups.iter_mut().find(|g| g.0 == t) {
            Some(g) => g.1.push((i, *b)),
            None => groups.push((t, vec![(i, *b)])),
        }
    }
    let outcomes: Vec<Result<Vec<FoldOutcome>>> = (0..cfg.folds)
        .into_par_iter()
        .map(|f| {
            let test = &folds[f];
            let mut train: Vec<usize> =
                (0..cfg.folds).filter(|&g| g != f).flat_map(|g| folds[g].iter().copied()).collect();
            let fit_rows = ((train.len()) as f64 * 0.9) as usize;
            let val = train.split_off(fit_rows);
            // The map of each coordinate, fitted on this fold's training rows (fit + validation).
            let fit_and_val: Vec<usize> = train.iter().chain(&val).copied().collect();
            let fx = cfg.transform.fit(&xs, &fit_and_val, "x")?.apply(&xs);
            let fy = cfg.transform.fit(&ys, &fit_and_val, "y")?.apply(&ys);
            let fold_data = Data::Dataset(Dataset { x: fx, y: fy, train: train.clone(), test: val.clone() });
            let fold = Fold { cfg, eval_every, data: &fold_data, val: &val, test, eval_batch, index: f, progress };
            groups.iter().map(|(t, members)| run_critic(&fold, *t, members, critic_seed(seed, f, t))).collect()
        })
        .collect();
    let mut per_bound = vec![Vec::new(); bounds.len()];
    let mut warnings = vec![Vec::new(); bounds.len()];
    let mut steps = vec![0u64; bounds.len()];
    let mut diverged = vec![false; bounds.len()];
    let mut q_gain: Vec<Vec<f64>> = vec![Vec::new(); bounds.len()];
    let mut choices: Vec<Vec<usize>> = vec![Vec::new(); bounds.len()];
    let mut trace = Vec::new();
    for fold in outcomes {
        for o in fold? {
            for &(m, v) in &o.values {
                per_bound[m].push(v);
                warnings[m].extend(o.warnings.iter().cloned());
                steps[m] += o.steps;
                diverged[m] |= o.diverged;
                q_gain[m].extend(o.q_gain);
                choices[m].push(o.choice);
            }
            trace.extend(o.trace);
        }
    }
    let t = StudentsT::new(0.0, 1.0, (cfg.folds - 1) as f64)
        .map_err(|e| Error::param("folds", cfg.folds, &e.to_string()))?;
    let q = t.inverse_cdf(0.975);
    // Nadeau & Bengio's correction: the folds' training sets overlap.
    let k = cfg.folds as f64;
    let correction = (1.0 / k + 1.0 / (k - 1.0)).sqrt();
    let wall = started.elapsed().as_secs_f64();
    let log_n = (eval_batch as f64).ln();
    let mut estimates = Vec::new();
    for (i, spec) in bounds.iter().enumerate() {
        let b = spec.build::<f32>()?;
        let vals = std::mem::take(&mut per_bound[i]);
        let (mean, sd) = mean_std(vals.iter().copied());
        let half = q * sd * correction;
        let mut w = notes.clone();
        w.extend(std::mem::take(&mut warnings[i]));
        if let Some(g) = (!q_gain[i].is_empty()).then(|| q_gain[i].iter().sum::<f64>() / q_gain[i].len() as f64)
            && g <= 0.0
            && b.kind() == Kind::UpperIfExact
        {
            w.push(format!(
                "{}: upper bound not valid here: q(y|x) fits the held-out rows worse than the marginal model q(y) (log-likelihood gain {g:.3} nats per row); it is not an upper bound on this data",
                b.label()
            ));
        }
        if !mean.is_finite() {
            w.push(format!(
                "{}: the held-out value is not finite (the critic overfits or diverged); it is not an estimate",
                b.label()
            ));
        }
        if *spec == BoundSpec::InfoNce && mean > log_n - 0.5 {
            w.push(format!(
                "InfoNCE ({mean:.3}) is at its ceiling log N = {log_n:.3} (N = {eval_batch} rows per test batch): the true MI may be much higher; raise --batch, add data or rely on the other estimators"
            ));
        }
        let settings = serde_json::json!({
            "bound": spec.to_string(),
            "trained_with": trainer_bound(spec).build::<f32>()?.label(),
            "critic": cfg.critic_for(spec),
            "alternatives": if cfg.critics_per_fold(spec) > 1 { serde_json::json!(cfg.alternatives) } else { serde_json::json!([]) },
            "critic_chosen_per_fold": choices[i],
            "batch": cfg.batch,
            "eval_batch": eval_batch,
            "max_steps": cfg.max_steps,
            "folds": cfg.folds,
            "eval_every": eval_every,
            "patience": cfg.patience,
            "adam": cfg.adam,
            "transform": cfg.transform.to_string(),
            "seed": seed,
            "backend": cfg.compute.backend.name(),
        });
        let diagnostics = Diagnostics {
            warnings: w,
            steps: Some(steps[i]),
            diverged: diverged[i],
            folds: vals,
            ..Default::default()
        };
        let mut e = Estimate::new(
            spec.to_string(),
            b.label(),
            mean,
            Interval::new(mean - half, mean + half, format!("t over {} folds, Nadeau-Bengio corrected", cfg.folds)),
            b.kind(),
            (n, x.ncols(), y.ncols()),
        )
        .with_settings(settings)
        .with_diagnostics(diagnostics);
        // The critics of several bounds train together: each reports the whole wall time.
        e.wall_seconds = wall;
        estimates.push(e);
    }
    Ok(NeuralRun { estimates, trace })
}
