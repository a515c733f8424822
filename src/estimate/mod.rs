//! MI of a user's data set, reported on held-out data with a 95 % interval and diagnostics:
//! the procedure behind `mibound estimate`.
//!
//! 1. Columns are standardised (an invertible map of each variable: MI is unchanged).
//! 2. The rows are split into `K` folds. For each fold, critics are trained on the other folds
//!    — one per distinct training objective among the requested bounds (JS and SMILE share a
//!    critic; CLUB, CLUB-sample, L1Out and BA share a conditional `q(y|x)`) — with 10 % of the
//!    training rows held back for validation: the parameters kept are those with the best
//!    validation objective (checked once per epoch by default; training stops after `patience`
//!    steps without improvement). The untrained, information-free critic is a candidate too.
//! 3. Each bound is evaluated on the fold's **test** rows (random batches of size N), which
//!    neither training nor the choice of parameters saw. Selecting the best value *on the test
//!    set*, as benchmark-mi does, would bias the estimate upward.
//! 4. The estimate is the mean over folds; the 95 % interval is `mean ± t_{0.975, K−1}·sd/√K`.

use crate::bounds::{Bound, BoundKind, BoundSpec};
use crate::critics::{Critic, CriticSpec, Init};
use crate::rng::{rng, shuffle};
use crate::error::{Error, Result};
use crate::optim::{Adam, AdamConfig};
use crate::train::{Cursor, Data, Dataset, TrainStep, mean_std};
use nalgebra::DMatrix;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// Random validation batches per check.
const VALIDATION_BATCHES: usize = 8;

/// Settings of [`estimate`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EstimateConfig {
    /// Bounds to report; the first lower bound is the headline estimate.
    pub bounds: Vec<BoundSpec>,
    /// Critic for the lower bounds.
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
    /// Seed.
    pub seed: u64,
    /// Standardise every column first.
    pub standardize: bool,
    /// Validation check interval in steps; `0` checks once per epoch of the training rows
    /// (at least every 5 and at most every 100 steps).
    pub eval_every: u64,
    /// Steps without a validation improvement before stopping.
    pub patience: u64,
}

impl Default for EstimateConfig {
    /// The defaults of `mibound estimate`: InfoNCE (headline), SMILE(τ = 5) and L1Out; critics
    /// with one hidden layer of 512 (a separable critic with 32-d embeddings, a Gaussian q);
    /// N = 256; 5 folds; at most 3000 steps. Chosen on simulated data sets (20-d Gaussians
    /// with 5000 samples, 5-d with 2000): deeper or narrower critics overfit such data sets
    /// sooner, and an embedding narrower than the data's dependence (16 < 20) cannot express it.
    fn default() -> Self {
        EstimateConfig {
            bounds: vec![BoundSpec::InfoNce, BoundSpec::Smile { tau: 5.0 }, BoundSpec::Loo],
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
            seed: 0,
            standardize: true,
            eval_every: 0,
            patience: 600,
        }
    }
}

/// One bound's held-out estimate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoundEstimate {
    /// Short name (`"smile"`).
    pub bound: String,
    /// Label with parameters (`"SMILE(τ=5)"`).
    pub label: String,
    /// Mean of the fold values, in nats.
    pub estimate: f64,
    /// 95 % interval over folds.
    pub ci95: [f64; 2],
    /// Lower or upper bound.
    pub kind: BoundKind,
    /// The training objective of the critic it was evaluated on (`"InfoNCE"`, `"JS"`, `"CLUB"`).
    pub trained_with: String,
    /// The held-out value of each fold.
    pub folds: Vec<f64>,
}

/// The result of [`estimate`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// Rows used.
    pub n_samples: usize,
    /// Dimension of x.
    pub dim_x: usize,
    /// Dimension of y.
    pub dim_y: usize,
    /// Batch size N used (InfoNCE cannot exceed log N).
    pub batch: usize,
    /// Folds K.
    pub n_folds: usize,
    /// One entry per requested bound, in the order requested.
    pub estimates: Vec<BoundEstimate>,
    /// Whether the headline lower bound's interval lies above 0 (dependence detected).
    pub significant: bool,
    /// Diagnostics in words.
    pub warnings: Vec<String>,
    /// Per-step training values and validation checks, for `--trace` and `--plot`.
    #[serde(skip)]
    pub trace: Vec<TraceRow>,
}

/// One row of the estimation trace.
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
    /// Validation value at checks (NaN otherwise).
    pub validation: f64,
}

/// Bounds sharing one training objective share one critic.
fn group_key(b: &BoundSpec) -> String {
    match b {
        BoundSpec::Js | BoundSpec::Smile { .. } => "js".into(),
        b if b.needs_log_density() => "density".into(),
        b => format!("{b:?}"),
    }
}

/// The bound whose objective trains a group's critic.
fn trainer_bound(b: &BoundSpec) -> BoundSpec {
    match b {
        BoundSpec::Smile { .. } => BoundSpec::Js,
        b if b.needs_log_density() => BoundSpec::Club,
        b => *b,
    }
}

/// Standardises columns in place; returns an error naming a constant column.
fn standardize(m: &mut DMatrix<f64>, what: &str) -> Result<()> {
    for (j, mut c) in m.column_iter_mut().enumerate() {
        let n = c.len() as f64;
        let mean = c.sum() / n;
        let sd = (c.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0)).sqrt();
        if sd == 0.0 || !sd.is_finite() {
            return Err(Error::param(&format!("{what} column {}", j + 1), "constant", "zero variance: drop it"));
        }
        c.apply(|v| *v = (*v - mean) / sd);
    }
    Ok(())
}

/// Random batches per held-out evaluation of a test fold.
const TEST_BATCHES: usize = 32;

/// `count` random subsets of `batch` rows of `idx` (each without repeats), drawn once. For
/// validation every check compares parameters on the same rows (paired); for a test fold the
/// mean over many random batches uses every row, where disjoint batches of N would leave up to
/// N − 1 rows unused. Each batch is an i.i.d. sample of held-out pairs, so the mean is unbiased
/// for the bound at batch size N.
fn random_batches(idx: &[usize], batch: usize, count: usize, seed: u64) -> Vec<Vec<usize>> {
    let mut g = rng(seed);
    let mut pool = idx.to_vec();
    (0..count)
        .map(|_| {
            shuffle(&mut pool, &mut g);
            pool[..batch.min(pool.len())].to_vec()
        })
        .collect()
}

/// Mean value and objective of each bound over the given batches of rows.
fn held_out(
    critic: &mut dyn Critic<f32>,
    params: &[f32],
    bounds: &mut [Box<dyn Bound<f32>>],
    x: &DMatrix<f64>,
    y: &DMatrix<f64>,
    batches: &[Vec<usize>],
) -> Result<Vec<(f64, f64)>> {
    let mut sums = vec![(0.0, 0.0); bounds.len()];
    let mut count = 0;
    let (mut s, mut g) = (DMatrix::zeros(0, 0), DMatrix::zeros(0, 0));
    for chunk in batches {
        let xb = x.select_rows(chunk).map(|v| v as f32);
        let yb = y.select_rows(chunk).map(|v| v as f32);
        critic.scores(params, &xb, &yb, &mut s)?;
        for (b, sum) in bounds.iter_mut().zip(sums.iter_mut()) {
            let v = b.evaluate(&s, &mut g)?;
            sum.0 += v.value;
            sum.1 += v.objective;
        }
        count += 1;
    }
    Ok(sums.into_iter().map(|(v, o)| (v / count as f64, o / count as f64)).collect())
}

struct FoldOutcome {
    values: Vec<(usize, f64)>,
    trace: Vec<TraceRow>,
    warnings: Vec<String>,
}

/// Trains one group's critic on `fit` rows with validation on `val`, then evaluates the group's
/// bounds on `test`.
#[allow(clippy::too_many_arguments)]
fn run_group(
    cfg: &EstimateConfig,
    spec: &CriticSpec,
    members: &[usize],
    x: &DMatrix<f64>,
    y: &DMatrix<f64>,
    (fit, val, test): (&[usize], &[usize], &[usize]),
    fold: usize,
    seed: u64,
    progress: &indicatif::ProgressBar,
) -> Result<FoldOutcome> {
    let tb = trainer_bound(&cfg.bounds[members[0]]);
    let critic = spec.build::<f32>(x.ncols(), y.ncols())?;
    let mut params = critic.init_params(Init::Torch, seed);
    // Start from a critic that carries no information (every bound at 0): on independent data
    // nothing trained beats it on validation, and the estimate stays at 0 instead of the
    // negative value of a critic fitted to noise.
    critic.zero_output(&mut params);
    let adam = Adam::new(cfg.adam.clone(), params.len())?;
    let bound = tb.build::<f32>()?;
    let label = bound.label();
    let mut step = TrainStep::new(critic, bound, adam, cfg.batch, (x.ncols(), y.ncols()));
    let data = Data::Dataset(Dataset { x: x.clone(), y: y.clone(), train: fit.to_vec(), test: val.to_vec() });
    let (mut g, mut cursor) = (rng(seed ^ 0x5EED), Cursor::default());
    let mut val_bound = [tb.build::<f32>()?];
    let val_sets = random_batches(val, cfg.batch, VALIDATION_BATCHES, seed ^ 0xBA7C);
    // (best validation objective, its parameters, its step); step 0 is a candidate.
    let start = held_out(step.critic.as_mut(), &params, &mut val_bound, x, y, &val_sets)?[0].1;
    let mut best = (start, params.clone(), 0u64);
    let (mut trace, mut warnings) = (Vec::new(), Vec::new());
    let mut last_check = 0;
    for k in 0..cfg.max_steps {
        let rec = match step.run(&mut params, &data, &mut g, &mut cursor, k) {
            Ok(r) => r,
            Err(Error::Diverged { step, what }) => {
                warnings.push(format!(
                    "diverged: the {label} critic of fold {} diverged at step {step} ({what}); its last validated parameters (step {}) are used",
                    fold + 1,
                    best.2
                ));
                break;
            }
            Err(e) => return Err(e),
        };
        progress.inc(1);
        let mut validation = f64::NAN;
        if (k + 1) % cfg.eval_every == 0 || k + 1 == cfg.max_steps {
            last_check = k + 1;
            // Parameters are chosen by the training objective on validation rows (the
            // log-likelihood for q, the JS objective for SMILE's critic), never on test rows.
            let (v, objective) = held_out(step.critic.as_mut(), &params, &mut val_bound, x, y, &val_sets)?[0];
            validation = v;
            if objective > best.0 {
                best.0 = objective;
                best.1.copy_from_slice(&params);
                best.2 = k + 1;
            }
        }
        trace.push(TraceRow { fold, bound: label.clone(), step: k, train: rec.value, validation });
        if k + 1 >= best.2 + cfg.patience {
            break;
        }
    }
    progress.inc(cfg.max_steps.saturating_sub(trace.len() as u64));
    if last_check == cfg.max_steps && best.2 + cfg.eval_every >= cfg.max_steps {
        warnings.push(format!(
            "not converged: the {label} critic of fold {} was still improving on validation data at the step limit ({}); raise --steps",
            fold + 1,
            cfg.max_steps
        ));
    }
    let mut bounds: Vec<Box<dyn Bound<f32>>> =
        members.iter().map(|&m| cfg.bounds[m].build::<f32>()).collect::<Result<_>>()?;
    let mut critic = step.critic;
    let vals = held_out(
        critic.as_mut(),
        &best.1,
        &mut bounds,
        x,
        y,
        &random_batches(test, cfg.batch, TEST_BATCHES, seed ^ 0x7E57),
    )?;
    Ok(FoldOutcome { values: members.iter().copied().zip(vals.into_iter().map(|v| v.0)).collect(), trace, warnings })
}

/// Estimates the MI between the rows of `x` and `y` (see the module docs).
pub fn estimate(x: &DMatrix<f64>, y: &DMatrix<f64>, cfg: &EstimateConfig, progress: bool) -> Result<Estimate> {
    let n = x.nrows();
    if y.nrows() != n {
        return Err(Error::Shape {
            what: "x and y".into(),
            expected: format!("the same number of rows ({n})"),
            got: format!("{} rows in y", y.nrows()),
        });
    }
    if cfg.bounds.is_empty() {
        return Err(Error::param("bounds", "(none)", "ask for at least one bound"));
    }
    if cfg.folds < 2 {
        return Err(Error::param("folds", cfg.folds, "need at least 2"));
    }
    if cfg.max_steps == 0 {
        return Err(Error::param("steps", cfg.max_steps, "must be positive"));
    }
    for b in &cfg.bounds {
        if matches!(b, BoundSpec::Ba { entropy_y: None }) {
            return Err(Error::param("ba", "(no H(Y))", "for data files give H(Y) in nats: ba:<nats>"));
        }
    }
    let test_rows = n / cfg.folds;
    let fit_rows = ((n - test_rows) as f64 * 0.9) as usize;
    if fit_rows < cfg.batch || test_rows < 2 {
        return Err(Error::param(
            "batch",
            cfg.batch,
            &format!(
                "{n} rows give {fit_rows} training rows per fold, fewer than the batch: lower --batch or --folds, or add data"
            ),
        ));
    }
    let mut cfg = cfg.clone();
    if cfg.eval_every == 0 {
        cfg.eval_every = ((fit_rows / cfg.batch) as u64).clamp(5, 100);
    }
    let cfg = &cfg;
    let (mut x, mut y) = (x.clone(), y.clone());
    if cfg.standardize {
        standardize(&mut x, "x")?;
        standardize(&mut y, "y")?;
    }
    // Groups of bounds that share a critic, in order of first appearance.
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, b) in cfg.bounds.iter().enumerate() {
        let key = group_key(b);
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.1.push(i),
            None => groups.push((key, vec![i])),
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    shuffle(&mut order, &mut rng(cfg.seed));
    let bar = if progress {
        let b = indicatif::ProgressBar::with_draw_target(
            Some(cfg.folds as u64 * groups.len() as u64 * cfg.max_steps),
            indicatif::ProgressDrawTarget::stderr(),
        );
        if let Ok(st) = indicatif::ProgressStyle::with_template("training {bar:30} {percent}% {elapsed}<{eta}") {
            b.set_style(st);
        }
        b
    } else {
        indicatif::ProgressBar::hidden()
    };
    let outcomes: Vec<Result<Vec<FoldOutcome>>> = (0..cfg.folds)
        .into_par_iter()
        .map(|f| {
            let test: Vec<usize> = order[f * test_rows..(f + 1) * test_rows].to_vec();
            let mut train: Vec<usize> =
                order[..f * test_rows].iter().chain(&order[(f + 1) * test_rows..]).copied().collect();
            let val = train.split_off(fit_rows);
            groups
                .iter()
                .enumerate()
                .map(|(gi, (key, members))| {
                    let spec = if key == "density" { &cfg.conditional } else { &cfg.critic };
                    let seed = cfg.seed.wrapping_mul(1000).wrapping_add((f * 16 + gi) as u64);
                    run_group(cfg, spec, members, &x, &y, (&train, &val, &test), f, seed, &bar)
                })
                .collect()
        })
        .collect();
    bar.finish_and_clear();
    let mut per_bound = vec![Vec::new(); cfg.bounds.len()];
    let (mut warnings, mut trace) = (Vec::new(), Vec::new());
    for fold in outcomes {
        for o in fold? {
            for (m, v) in o.values {
                per_bound[m].push(v);
            }
            warnings.extend(o.warnings);
            trace.extend(o.trace);
        }
    }
    let t = StudentsT::new(0.0, 1.0, (cfg.folds - 1) as f64)
        .map_err(|e| Error::param("folds", cfg.folds, &e.to_string()))?;
    let q = t.inverse_cdf(0.975);
    let mut estimates = Vec::new();
    for (spec, vals) in cfg.bounds.iter().zip(per_bound) {
        let b = spec.build::<f32>()?;
        let (mean, sd) = mean_std(vals.iter().copied());
        let half = q * sd / (vals.len() as f64).sqrt();
        if !mean.is_finite() {
            warnings.push(format!(
                "{}: the held-out value is not finite (the critic overfits or diverged); it is not an estimate",
                b.label()
            ));
        }
        let trained_with = trainer_bound(spec).build::<f32>()?.label();
        estimates.push(BoundEstimate {
            bound: b.name().into(),
            label: b.label(),
            estimate: mean,
            ci95: [mean - half, mean + half],
            kind: b.kind(),
            trained_with,
            folds: vals,
        });
    }
    diagnose(cfg, &estimates, &mut warnings);
    let significant = estimates.iter().find(|e| e.kind == BoundKind::Lower).is_some_and(|e| e.ci95[0] > 0.0);
    Ok(Estimate {
        n_samples: n,
        dim_x: x.ncols(),
        dim_y: y.ncols(),
        batch: cfg.batch,
        n_folds: cfg.folds,
        estimates,
        significant,
        warnings,
        trace,
    })
}

/// Warnings that need all estimates: InfoNCE at its ceiling, bounds crossing.
fn diagnose(cfg: &EstimateConfig, est: &[BoundEstimate], warnings: &mut Vec<String>) {
    let log_n = (cfg.batch as f64).ln();
    for e in est.iter().filter(|e| e.bound == "infonce") {
        if e.estimate > log_n - 0.5 {
            warnings.push(format!(
                "InfoNCE ({:.3}) is at its ceiling log N = {log_n:.3}: the true MI may be much higher; raise --batch or rely on the other bounds",
                e.estimate
            ));
        }
    }
    for lo in est.iter().filter(|e| e.kind == BoundKind::Lower) {
        for up in est.iter().filter(|e| e.kind == BoundKind::UpperIfExact) {
            if lo.ci95[0] > up.ci95[1] {
                warnings.push(format!(
                    "bounds cross: the lower bound {} ({:.3}) lies above the upper bound {} ({:.3}); the conditional model q(y|x) is probably too poor — trust neither",
                    lo.label, lo.estimate, up.label, up.estimate
                ));
            }
        }
    }
}
