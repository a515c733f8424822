//! The Poole et al. staircase for every lower bound, its bias–variance table, and the sandwich.

use super::{FigureOpts, save_both, write_jsonl};
use crate::bounds::BoundSpec;
use crate::critics::CriticSpec;
use crate::error::{Error, Result};
use crate::plot::{Figure, PALETTE, Panel, Series, Style};
use crate::tasks::Parametric;
use crate::train::{BaselineSpec, Data, Schedule, TrainConfig, TrainResult, ema, sandwich as run_sandwich, train};
use plotters::style::{BLACK, RGBColor};
use rayon::prelude::*;
use serde::Serialize;
use std::fmt::Write as _;

const LEVELS: [f64; 5] = [2.0, 4.0, 6.0, 8.0, 10.0];
const BATCH: usize = 64;

/// One level of one run: the statistics of the bound's value over the last steps of the level.
#[derive(Clone, Debug, Serialize)]
pub struct LevelRow {
    /// `"gaussian"` or `"cubic"`.
    pub task: String,
    /// Critic name.
    pub critic: String,
    /// Bound label.
    pub bound: String,
    /// True MI of the level.
    pub true_mi: f64,
    /// Mean of the value over the window.
    pub mean: f64,
    /// Standard deviation over the window.
    pub std: f64,
    /// `mean − I`.
    pub bias: f64,
    /// Variance over the window.
    pub variance: f64,
    /// `bias² + variance`.
    pub mse: f64,
    /// Steps in the window.
    pub window: u64,
    /// The step at which the run diverged, when it did so in or before this level: the level
    /// then has no statistics (mean, std, bias, variance and MSE are NaN, `null` in JSON).
    pub diverged_at: Option<u64>,
}

impl LevelRow {
    /// `"+0.12 / 0.03 / 0.05"` (bias / variance / MSE), or `"diverged at step k"`.
    pub fn cell(&self) -> String {
        match self.diverged_at {
            Some(k) => format!("diverged at step {k}"),
            None => format!("{:+.2} / {:.2} / {:.2}", self.bias, self.variance, self.mse),
        }
    }
}

/// The step at which a run diverged, from its termination (`"diverged at step k: …"`).
fn diverged_step(r: &TrainResult<f32>) -> Option<u64> {
    r.termination.strip_prefix("diverged at step ")?.split(':').next()?.trim().parse().ok()
}

/// A bound of the staircase, with or without a learned log-baseline `a(y)`.
type Job = (BoundSpec, bool);

/// The separable staircases' bounds: Poole et al.'s set with their learned baseline for TUBA
/// and I_α (α ∈ {0.01, 0.5, 0.99}, their sweep), I_α(0.01) with the constant baseline too,
/// SMILE at Song & Ermon's τ ∈ {1, 5, ∞}, and both JS read-offs.
fn bounds() -> Vec<Job> {
    let constant = [
        "infonce",
        "nwj",
        "js",
        "js-shifted",
        "dv",
        "mine:0.01",
        "smile:1",
        "smile:5",
        "smile:inf",
        "interpolated:0.01",
    ];
    let learned = ["tuba:0", "interpolated:0.01", "interpolated:0.5", "interpolated:0.99"];
    let parse = |s: &&str| BoundSpec::parse(s).unwrap_or(BoundSpec::InfoNce);
    constant.iter().map(|s| (parse(s), false)).chain(learned.iter().map(|s| (parse(s), true))).collect()
}

/// The concat staircase's bounds (fewer: the concat critic is 4–6 times slower per step).
fn concat_bounds() -> Vec<Job> {
    ["infonce", "nwj", "js", "dv", "mine:0.01", "smile:5", "interpolated:0.01"]
        .iter()
        .map(|s| (BoundSpec::parse(s).unwrap_or(BoundSpec::InfoNce), false))
        .collect()
}

/// One figure panel of a staircase run: raw values faint, EMA (span 200) bold, the true MI as a
/// black staircase, log N dashed.
fn panel(r: &TrainResult<f32>, color: RGBColor, title: &str) -> Panel {
    let (lo, hi) = (-2.0, 12.0);
    let clip = |v: f64| v.clamp(lo, hi);
    let raw: Vec<(f64, f64)> = r.trace.iter().map(|s| (s.step as f64, clip(s.value))).collect();
    let values: Vec<f64> = r.trace.iter().map(|s| s.value).collect();
    let smooth: Vec<(f64, f64)> =
        ema(&values, 200.0).into_iter().enumerate().map(|(k, v)| (k as f64, clip(v))).collect();
    let truth: Vec<(f64, f64)> = r.trace.iter().map(|s| (s.step as f64, s.true_mi.unwrap_or(f64::NAN))).collect();
    let n = r.trace.len() as f64;
    let log_n = (r.meta.batch as f64).ln();
    Panel {
        title: title.into(),
        x_label: "training step".into(),
        y_label: "MI estimate (nats, clipped to [−2, 12])".into(),
        series: vec![
            Series::new("raw (each step)", raw, RGBColor(160, 160, 160), Style::Faint),
            Series::new("EMA (span 200)", smooth, color, Style::Line(2)),
            Series::new("true MI", truth, BLACK, Style::Line(2)),
            Series::new(&format!("log N = {log_n:.2}"), vec![(0.0, log_n), (n, log_n)], PALETTE[6], Style::Dashed),
        ],
        y_range: Some((lo, hi)),
        log_x: false,
        legend: Default::default(),
    }
}

/// One row per level. A level in which the run diverged (or that it never reached) is
/// "diverged at step k", without statistics: the steps before the divergence are not that
/// level's window.
fn level_rows(r: &TrainResult<f32>, task: &str, critic: &str, spl: u64, window: u64) -> Vec<LevelRow> {
    let diverged = diverged_step(r);
    let row = |mi: f64, mean: f64, std: f64, window: u64, diverged_at: Option<u64>| {
        let variance = std * std;
        LevelRow {
            task: task.into(),
            critic: critic.into(),
            bound: r.meta.bound_label.clone(),
            true_mi: mi,
            mean,
            std,
            bias: mean - mi,
            variance,
            mse: (mean - mi).powi(2) + variance,
            window,
            diverged_at,
        }
    };
    let windows = r.levels(spl, window as f64 / spl as f64);
    LEVELS
        .iter()
        .enumerate()
        .map(|(l, &level_mi)| {
            let end = (l as u64 + 1) * spl;
            match (diverged, windows.get(l)) {
                (Some(k), _) if k < end => row(level_mi, f64::NAN, f64::NAN, 0, Some(k)),
                (_, Some(w)) => row(w.true_mi.unwrap_or(f64::NAN), w.mean, w.std, w.to - w.from, None),
                (_, None) => row(level_mi, f64::NAN, f64::NAN, 0, diverged),
            }
        })
        .collect()
}

/// The staircase figures (Gaussian and cubic with the separable critic, Gaussian with the
/// concat critic, all at 4000 steps per level), the bias–variance figure and table. Returns the
/// per-level rows.
pub fn staircase(o: &FigureOpts) -> Result<Vec<LevelRow>> {
    // Full: 4000 steps per level as Poole et al., for the concat critic too (their default).
    // Quick (CI's check that the figures are made): the concat critic scores all N² pairs, each
    // step ~40 times a separable one's; at 40 steps per level its jobs took 29 of the binary's
    // 31 s on 2 cores (2026-11-27), at 8 about a fifth of that.
    let (spl, concat_spl, window) = if o.quick { (40, 8, 20) } else { (4000, 4000, 500) };
    let configs = [
        ("gaussian", Parametric::Gaussian { dim: 20 }, "separable", CriticSpec::poole_separable(), spl),
        ("cubic", Parametric::Cubic { dim: 20 }, "separable", CriticSpec::poole_separable(), spl),
        ("gaussian", Parametric::Gaussian { dim: 20 }, "concat", CriticSpec::poole_concat(), concat_spl),
    ];
    let wanted = |c: usize| {
        let name = format!("{}-{}", configs[c].0, configs[c].2);
        o.only.as_deref().is_none_or(|only| only.split(',').any(|w| w.trim() == name))
    };
    let jobs: Vec<(usize, Job)> = (0..configs.len())
        .rev()
        .filter(|&c| wanted(c))
        .flat_map(|c| {
            let list = if configs[c].2 == "concat" { concat_bounds() } else { bounds() };
            list.into_iter().map(move |b| (c, b))
        })
        .collect();
    let runs: Vec<Result<(usize, TrainResult<f32>)>> = jobs
        .par_iter()
        .map(|&(c, (b, learned))| {
            let (_, task, _, critic, spl) = &configs[c];
            let data = Data::stream(*task, Schedule::poole(*spl))?;
            let mut cfg = TrainConfig::new(critic.clone(), b, BATCH, 5 * spl);
            cfg.seed = o.seed;
            cfg.keep_diverged = true;
            // Poole et al.'s baseline network: the critic's hidden layers, 256 × 2.
            cfg.learned_baseline = learned.then(|| BaselineSpec { hidden: vec![256, 256] });
            Ok((c, train::<f32>(&data, &cfg)?))
        })
        .collect();
    let runs = runs.into_iter().collect::<Result<Vec<_>>>()?;
    let mut rows = Vec::new();
    for (c, (task, _, critic, _, spl)) in configs.iter().enumerate() {
        let mine: Vec<&TrainResult<f32>> = runs.iter().filter(|r| r.0 == c).map(|r| &r.1).collect();
        if mine.is_empty() {
            continue;
        }
        let panels = mine
            .iter()
            .enumerate()
            .map(|(k, r)| {
                let title = match r.termination.strip_prefix("diverged at step ") {
                    Some(rest) => {
                        format!("{} (diverged at step {})", r.meta.bound_label, rest.split(':').next().unwrap_or("?"))
                    }
                    None => r.meta.bound_label.clone(),
                };
                panel(r, PALETTE[k % 6], &title)
            })
            .collect();
        let title = format!("{task} task (d = 20), {critic} critic, N = {BATCH}, {spl} steps per level");
        save_both(
            &Figure { title, panels, cols: 4, panel_size: (420, 300) },
            &o.out,
            &format!("staircase_{task}_{critic}"),
        )?;
        for r in mine {
            rows.extend(level_rows(r, task, critic, *spl, window.min(*spl)));
        }
    }
    write_jsonl(&o.path("staircase.jsonl"), &rows)?;
    bias_variance(o, &rows)?;
    Ok(rows)
}

/// The markdown bias–variance table of the separable Gaussian staircase.
pub fn bias_variance_table(rows: &[LevelRow], task: &str, critic: &str) -> String {
    let mut s = format!(
        "| bound | {} |\n|---|{}\n",
        LEVELS.map(|l| format!("I = {l}: bias / var / MSE")).join(" | "),
        "---|".repeat(LEVELS.len())
    );
    let mut labels: Vec<&str> = Vec::new();
    for r in rows.iter().filter(|r| r.task == task && r.critic == critic) {
        if !labels.contains(&r.bound.as_str()) {
            labels.push(&r.bound);
        }
    }
    for b in labels {
        let cells: Vec<String> =
            rows.iter().filter(|r| r.task == task && r.critic == critic && r.bound == b).map(LevelRow::cell).collect();
        let _ = writeln!(s, "| {b} | {} |", cells.join(" | "));
    }
    s
}

fn bias_variance(o: &FigureOpts, rows: &[LevelRow]) -> Result<()> {
    let sel: Vec<&LevelRow> = rows.iter().filter(|r| r.task == "gaussian" && r.critic == "separable").collect();
    let mut labels: Vec<&str> = Vec::new();
    for r in &sel {
        if !labels.contains(&r.bound.as_str()) {
            labels.push(&r.bound);
        }
    }
    let metric = |name: &str, f: fn(&LevelRow) -> f64, log: bool| {
        let series = labels
            .iter()
            .enumerate()
            .map(|(k, b)| {
                let pts = sel
                    .iter()
                    .filter(|r| r.bound == *b && r.diverged_at.is_none())
                    .map(|r| (r.true_mi, if log { f(r).max(1e-4).log10() } else { f(r) }))
                    .collect();
                Series::new(b, pts, PALETTE[k % 8], Style::Line(2))
            })
            .collect();
        Panel {
            title: name.into(),
            x_label: "true MI (nats)".into(),
            y_label: if log { format!("log10 {name} (nats²)") } else { format!("{name} (nats)") },
            series,
            y_range: None,
            log_x: false,
            legend: if log { crate::plot::Legend::UpperLeft } else { crate::plot::Legend::LowerLeft },
        }
    };
    let fig = Figure {
        title: "Bias, variance and MSE over the last 500 steps of each level (Gaussian, separable, N = 64; diverged levels omitted)".into(),
        panels: vec![
            metric("bias (clipped to [−8, 8]; the table has the values)", |r| r.bias.clamp(-8.0, 8.0), false),
            metric("variance", |r| r.variance, true),
            metric("MSE", |r| r.mse, true),
        ],
        cols: 3,
        panel_size: (460, 360),
    };
    save_both(&fig, &o.out, "bias_variance")?;
    std::fs::write(o.path("bias_variance.md"), bias_variance_table(rows, "gaussian", "separable"))
        .map_err(|source| Error::Io { path: o.path("bias_variance.md"), source })
}

/// Lower bounds (InfoNCE, SMILE) and the upper bounds of a Gaussian q(y|x) (L1Out, CLUB, VUB)
/// through the staircase, trained side by side on the same batches.
pub fn sandwich(o: &FigureOpts) -> Result<()> {
    let spl = if o.quick { 40 } else { 4000 };
    let data = Data::stream(Parametric::Gaussian { dim: 20 }, Schedule::poole(spl))?;
    let mut lower = TrainConfig::new(CriticSpec::poole_separable(), BoundSpec::InfoNce, BATCH, 5 * spl);
    lower.seed = o.seed;
    lower.keep_diverged = true;
    let smile_cfg = TrainConfig { bound: BoundSpec::Smile { tau: 5.0 }, ..lower.clone() };
    let (sw, smile) = rayon::join(|| run_sandwich::<f32>(&data, &lower, None), || train::<f32>(&data, &smile_cfg));
    let (sw, smile) = (sw?, smile?);
    let smooth =
        |v: &[f64]| -> Vec<(f64, f64)> { ema(v, 200.0).into_iter().enumerate().map(|(k, v)| (k as f64, v)).collect() };
    let values = |r: &TrainResult<f32>| r.trace.iter().map(|s| s.value).collect::<Vec<_>>();
    let truth: Vec<(f64, f64)> =
        sw.lower.trace.iter().map(|s| (s.step as f64, s.true_mi.unwrap_or(f64::NAN))).collect();
    let curves = vec![
        Series::new("true MI", truth.clone(), BLACK, Style::Line(3)),
        Series::new("InfoNCE (lower)", smooth(&values(&sw.lower)), PALETTE[0], Style::Line(2)),
        Series::new("SMILE τ=5 (lower)", smooth(&values(&smile)), PALETTE[2], Style::Line(2)),
        Series::new("L1Out (upper)", smooth(&sw.upper.monitors[0].values), PALETTE[1], Style::Line(2)),
        Series::new("VUB (upper)", smooth(&sw.upper.monitors[2].values), PALETTE[3], Style::Line(2)),
    ];
    let mut all = curves.clone();
    all.push(Series::new("CLUB (upper)", smooth(&values(&sw.upper)), PALETTE[4], Style::Line(2)));
    let mk = |title: &str, series: Vec<Series>, y: (f64, f64)| Panel {
        title: title.into(),
        x_label: "training step".into(),
        y_label: "MI estimate (nats, EMA span 200)".into(),
        series,
        y_range: Some(y),
        log_x: false,
        legend: crate::plot::Legend::UpperLeft,
    };
    let fig = Figure {
        title: format!(
            "The sandwich: lower and upper bounds through the staircase (d = 20, N = {BATCH}, same batches)"
        ),
        panels: vec![
            mk("lower ≤ I ≤ upper", curves, (0.0, 14.0)),
            mk("with CLUB (loose: d·ρ²/(1−ρ²) for the exact q)", all, (0.0, 40.0)),
        ],
        cols: 2,
        panel_size: (640, 420),
    };
    save_both(&fig, &o.out, "sandwich")?;
    #[derive(Serialize)]
    struct Row {
        true_mi: f64,
        infonce: f64,
        smile: f64,
        l1out: f64,
        vub: f64,
        club: f64,
    }
    let w = spl.min(500);
    let rows: Vec<Row> = (0..5u64)
        .map(|l| {
            let (from, to) = ((l + 1) * spl - w, (l + 1) * spl);
            let m = |r: &TrainResult<f32>, k: Option<usize>| match k {
                None => r.window(from, to).map_or(f64::NAN, |w| w.mean),
                Some(k) => r.monitor_window(k, from, to).map_or(f64::NAN, |w| w.mean),
            };
            Row {
                true_mi: LEVELS[l as usize],
                infonce: m(&sw.lower, None),
                smile: m(&smile, None),
                l1out: m(&sw.upper, Some(0)),
                vub: m(&sw.upper, Some(2)),
                club: m(&sw.upper, None),
            }
        })
        .collect();
    write_jsonl(&o.path("sandwich.jsonl"), &rows)
}
