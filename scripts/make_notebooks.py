#!/usr/bin/env python3
"""Writes the evcxr notebooks in notebooks/ (outputs stripped). The notebooks are the source of
truth once written; this script documents how they were generated and can regenerate them."""
import json
import os

HEADER = [
    ":cache 500",
    ":opt 2",
    ':dep mibound = { path = ".." }',
    ':dep plotters = { version = "0.3", default-features = false, features = ["evcxr", "line_series", "point_series"] }',
    ':dep nalgebra = "0.35"',
]

PLOT_HELPER = r'''use plotters::prelude::*;
/// Draws named (x, y) lines inline; `hlines` are dashed reference lines.
fn lines(title: &str, x: &str, y: &str, series: &[(&str, Vec<(f64, f64)>)], hlines: &[(&str, f64)], log_x: bool) -> plotters::evcxr::SVGWrapper {
    let pts = series.iter().flat_map(|s| s.1.iter()).filter(|p| p.1.is_finite());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(a, b) in pts { x0 = x0.min(a); x1 = x1.max(a); y0 = y0.min(b); y1 = y1.max(b); }
    for h in hlines { y0 = y0.min(h.1); y1 = y1.max(h.1); }
    let pad = (y1 - y0) * 0.08 + 1e-9;
    mibound::plot::register_fonts();
    let colors = [RGBColor(0, 114, 178), RGBColor(213, 94, 0), RGBColor(0, 158, 115), RGBColor(204, 121, 167), RGBColor(230, 159, 0), RGBColor(86, 180, 233)];
    evcxr_figure((720, 400), |root| {
        root.fill(&WHITE)?;
        macro_rules! draw { ($c:expr) => {{
            let mut c = $c;
            c.configure_mesh().x_desc(x).y_desc(y).draw()?;
            for (k, (name, p)) in series.iter().enumerate() {
                let col = colors[k % colors.len()];
                c.draw_series(LineSeries::new(p.clone(), col.stroke_width(2)))?.label(*name)
                    .legend(move |(a, b)| PathElement::new(vec![(a, b), (a + 16, b)], col.stroke_width(2)));
            }
            for (name, v) in hlines {
                c.draw_series(LineSeries::new(vec![(x0, *v), (x1, *v)], BLACK.stroke_width(1)))?.label(*name)
                    .legend(|(a, b)| PathElement::new(vec![(a, b), (a + 16, b)], BLACK));
            }
            c.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw()?;
        }}}
        let mut b = ChartBuilder::on(&root);
        b.caption(title, ("sans-serif", 18)).margin(10).x_label_area_size(36).y_label_area_size(48);
        if log_x { draw!(b.build_cartesian_2d((x0..x1).log_scale(), (y0 - pad)..(y1 + pad))?); }
        else { draw!(b.build_cartesian_2d(x0..x1, (y0 - pad)..(y1 + pad))?); }
        Ok(())
    })
}'''


COUNTER = [0]


def cell_id():
    COUNTER[0] += 1
    return f"cell-{COUNTER[0]:03d}"


def md(text):
    return {"cell_type": "markdown", "id": cell_id(), "metadata": {}, "source": text.strip("\n").splitlines(keepends=True)}


def code(text):
    return {"cell_type": "code", "id": cell_id(), "execution_count": None, "metadata": {}, "outputs": [], "source": text.strip("\n").splitlines(keepends=True)}


def notebook(cells):
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Rust", "language": "rust", "name": "rust"},
            "language_info": {"codemirror_mode": "rust", "file_extension": ".rs", "mimetype": "text/rust", "name": "Rust", "pygment_lexer": "rust", "version": ""},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


NB = {}

NB["01-bounds-on-scores"] = [
    md("""
# Bounds on a score matrix

Every bound in mibound is a function of one score matrix `S[(i, j)] = f(x_i, y_j)` (row = x,
column = y, diagonal = joint pairs). Here the critic is the **optimal** one for a correlated
Gaussian, `log p(y|x) − log p(y)`, so the only errors left are the bounds' own: what each bound
can and cannot see from a batch of N samples.
"""),
    code("\n".join(HEADER)),
    code("""
use mibound::bounds::{Bound, BoundSpec};
use mibound::data::{CorrelatedGaussian, Sampler, rng};
"""),
    md("""
## Every bound at I = 2 nats

The lower bounds use the optimal critic (NWJ needs `f* + 1`); the upper bounds and Barber–Agakov
use the exact conditional `log p(y|x) = f* + log p(y)`.
"""),
    code("""
{
let task = CorrelatedGaussian::with_mi(20, 2.0).unwrap();
let mut g = rng(0);
let names = ["infonce", "nwj", "js", "js-shifted", "dv", "smile:5", "interpolated:0.5", "club", "loo"];
let mut sums = vec![0.0; names.len()];
let batches = 100;
for _ in 0..batches {
    let (x, y) = task.sample(128, &mut g);
    let f = task.optimal_critic(&x, &y).unwrap();
    let mut logq = f.clone();
    for (j, lp) in task.log_marginal_y(&y).unwrap().into_iter().enumerate() { logq.column_mut(j).add_scalar_mut(lp); }
    for (k, name) in names.iter().enumerate() {
        let spec = BoundSpec::parse(name).unwrap();
        let s = if spec.needs_log_density() { logq.clone() } else if *name == "nwj" { f.add_scalar(1.0) } else { f.clone() };
        sums[k] += spec.build::<f64>().unwrap().value(&s).unwrap();
    }
}
println!("true I = {:.3}, log N = {:.3}", task.true_mi(), (128f64).ln());
for (n, s) in names.iter().zip(&sums) { println!("{n:>18}: {:.3}", s / batches as f64); }
}
"""),
    md("""
InfoNCE is slightly below I (its gap is at most `log(1 + (e^{2I} − 1)/N)`), NWJ (at f* + 1) and
`js-shifted` are unbiased, `js` (the literature's read-off NWJ(f)) reads I − 1/e at the JS optimum,
L1Out is a tight upper bound and CLUB a loose one (`d·ρ²/(1−ρ²)` for this task).

## InfoNCE ≤ log N, and how it approaches I as N grows
"""),
    code("""
let rows: Vec<(String, Vec<(f64, f64)>)> = {
let mut rows = Vec::new();
for &mi in &[1.0, 3.0, 6.0] {
    let task = CorrelatedGaussian::with_mi(20, mi).unwrap();
    let mut pts = Vec::new();
    for &n in &[8usize, 16, 32, 64, 128, 256, 512] {
        let mut g = rng(n as u64);
        let b = 2048 / n;
        let v: f64 = (0..b).map(|_| { let (x, y) = task.sample(n, &mut g); BoundSpec::InfoNce.build::<f64>().unwrap().value(&task.optimal_critic(&x, &y).unwrap()).unwrap() }).sum::<f64>() / b as f64;
        assert!(v <= (n as f64).ln());
        pts.push((n as f64, v));
    }
    rows.push((format!("InfoNCE, I = {mi}"), pts));
}
rows
};
for (name, p) in &rows { println!("{name}: {:?}", p.iter().map(|q| (q.0 as usize, (q.1 * 1000.0).round() / 1000.0)).collect::<Vec<_>>()); }
"""),
    code(PLOT_HELPER),
    code("""
{
let logn: Vec<(f64, f64)> = [8.0f64, 512.0].iter().map(|&n| (n, n.ln())).collect();
let mut series: Vec<(&str, Vec<(f64, f64)>)> = rows.iter().map(|(n, p)| (n.as_str(), p.clone())).collect();
series.push(("log N", logn));
lines("InfoNCE of the optimal critic against N", "batch size N", "nats", &series, &[("I = 1", 1.0), ("I = 3", 3.0), ("I = 6", 6.0)], true)
}
"""),
]

NB["02-train-a-critic"] = [
    md("""
# Training critics on the staircase

Separable (`f(x)ᵀg(y)`) and concat (`h([x; y])`) critics trained with InfoNCE in pure Rust on
the Poole et al. staircase (d = 20, true MI 2 → 10 nats). Short runs, so the notebook finishes in
seconds; `cargo bench --bench staircase` runs the full 4000 steps per level.
"""),
    code("\n".join(HEADER)),
    code("""
use mibound::bounds::BoundSpec;
use mibound::critics::CriticSpec;
use mibound::tasks::Parametric;
use mibound::train::{ema, train, Data, Schedule, TrainConfig};
"""),
    code("""
let spl: u64 = 400;
let sep: mibound::train::TrainResult<f32> = {
    let data = Data::stream(Parametric::Gaussian { dim: 20 }, Schedule::poole(spl)).unwrap();
    train::<f32>(&data, &TrainConfig::new(CriticSpec::poole_separable(), BoundSpec::InfoNce, 64, 5 * spl)).unwrap()
};
println!("separable: {:.0} steps/s", sep.steps_per_second());
for w in sep.levels(spl, 0.25) { println!("  true {:>4.1}: InfoNCE {:.3} ± {:.3}", w.true_mi.unwrap(), w.mean, w.std); }
"""),
    md("The concat critic scores all N² pairs: it is far more expensive per step, so it gets a smaller batch and fewer steps here."),
    code("""
{
let spl_c = 60;
let data_c = Data::stream(Parametric::Gaussian { dim: 20 }, Schedule::poole(spl_c)).unwrap();
let cat = train::<f32>(&data_c, &TrainConfig::new(CriticSpec::poole_concat(), BoundSpec::InfoNce, 32, 5 * spl_c)).unwrap();
println!("concat: {:.0} steps/s", cat.steps_per_second());
for w in cat.levels(spl_c, 0.25) { println!("  true {:>4.1}: InfoNCE {:.3}", w.true_mi.unwrap(), w.mean); }
}
"""),
    code(PLOT_HELPER),
    code("""
{
let raw: Vec<f64> = sep.trace.iter().map(|r| r.value).collect();
let smooth: Vec<(f64, f64)> = ema(&raw, 100.0).into_iter().enumerate().map(|(k, v)| (k as f64, v)).collect();
let truth: Vec<(f64, f64)> = sep.trace.iter().map(|r| (r.step as f64, r.true_mi.unwrap())).collect();
lines("Separable critic, InfoNCE, N = 64", "training step", "nats", &[("InfoNCE (EMA 100)", smooth), ("true MI", truth)], &[("log N", 64f64.ln())], false)
}
"""),
    md("InfoNCE follows the staircase while I ≪ log N and then flattens just under log 64 = 4.16: the bound, not the critic, is the limit."),
]

NB["03-saturation-with-n"] = [
    md("""
# `log N − L ≤ I`: saturation with the batch size

InfoNCE's value is `log N − L` with `L` the cross-entropy of picking the true partner among N.
It can never exceed log N, so at high MI it saturates, whatever the critic. Increasing N raises
the ceiling only logarithmically.
"""),
    code("\n".join(HEADER)),
    code("""
use mibound::bounds::{Bound, InfoNce};
use mibound::data::{CorrelatedGaussian, Sampler, rng};
let ns: Vec<usize> = vec![8, 16, 32, 64, 128, 256, 512, 1024];
let curves: Vec<(String, Vec<(f64, f64)>)> = {
let mut curves = Vec::new();
for &mi in &[2.0, 5.0, 10.0] {
    let task = CorrelatedGaussian::with_mi(20, mi).unwrap();
    let mut pts = Vec::new();
    for &n in &ns {
        let mut g = rng(7);
        let b = (4096 / n).max(4);
        let v: f64 = (0..b).map(|_| { let (x, y) = task.sample(n, &mut g); InfoNce::<f64>::new().value(&task.optimal_critic(&x, &y).unwrap()).unwrap() }).sum::<f64>() / b as f64;
        pts.push((n as f64, v));
    }
    println!("I = {mi:>4}: {:?}", pts.iter().map(|p| (p.1 * 100.0).round() / 100.0).collect::<Vec<_>>());
    curves.push((format!("I = {mi}"), pts));
}
curves
};
"""),
    code(PLOT_HELPER),
    code("""
{
let mut series: Vec<(&str, Vec<(f64, f64)>)> = curves.iter().map(|(n, p)| (n.as_str(), p.clone())).collect();
series.push(("log N", ns.iter().map(|&n| (n as f64, (n as f64).ln())).collect()));
lines("InfoNCE of the optimal critic", "batch size N", "nats", &series, &[("I = 2", 2.0), ("I = 5", 5.0), ("I = 10", 10.0)], true)
}
"""),
    md("At I = 2 the optimal critic's InfoNCE is 1.81 at N = 64, 1.89 at N = 128 and 1.92 at N = 256 (`mibound optimal --batch N`): within 0.2 nats of I from N = 64, within 0.11 from N = 128, reaching I only as N → ∞ (docs/results.md §3 says the same); at I = 10 it hugs log N all the way to N = 1024 (log 1024 = 6.93 < 10)."),
]

NB["04-sandwich"] = [
    md("""
# The sandwich: lower ≤ I ≤ upper

A lower-bound critic (InfoNCE) and a Gaussian conditional model `q(y|x)` trained on the *same*
batches: the lower bound and the leave-one-out upper bound bracket the truth, up to the noise
of these short runs (each line says whether it holds). A bracket is far more trustworthy than
one number.
"""),
    code("\n".join(HEADER)),
    code("""
use mibound::bounds::BoundSpec;
use mibound::critics::CriticSpec;
use mibound::tasks::Parametric;
use mibound::train::{ema, sandwich, Data, Schedule, TrainConfig};
let spl: u64 = 500;
let r: mibound::train::SandwichResult<f32> = {
    let data = Data::stream(Parametric::Gaussian { dim: 5 }, Schedule::Staircase { levels: vec![1.0, 2.0, 3.0], steps_per_level: spl }).unwrap();
    sandwich::<f32>(&data, &TrainConfig::new(CriticSpec::poole_separable(), BoundSpec::InfoNce, 64, 3 * spl), None).unwrap()
};
for l in 0..3u64 {
    let (a, b) = (l * spl + spl / 2, (l + 1) * spl);
    let lo = r.lower.window(a, b).unwrap();
    let up = r.upper.monitor_window(0, a, b).unwrap();
    let mi = lo.true_mi.unwrap();
    println!("I = {mi:.1}: InfoNCE {:.3}, L1Out {:.3}, CLUB {:.3}; bracket holds: {}", lo.mean, up.mean, r.upper.window(a, b).unwrap().mean, lo.mean <= mi && mi <= up.mean);
}
"""),
    code(PLOT_HELPER),
    code("""
{
let sm = |v: Vec<f64>| ema(&v, 50.0).into_iter().enumerate().map(|(k, v)| (k as f64, v)).collect::<Vec<_>>();
let lower = sm(r.lower.trace.iter().map(|s| s.value).collect());
let upper = sm(r.upper.monitors[0].values.clone());
let truth: Vec<(f64, f64)> = r.lower.trace.iter().map(|s| (s.step as f64, s.true_mi.unwrap())).collect();
lines("InfoNCE and L1Out bracket the true MI (d = 5, N = 64)", "training step", "nats", &[("InfoNCE (lower)", lower), ("L1Out (upper)", upper), ("true MI", truth)], &[], false)
}
"""),
    md("CLUB is an upper bound too, but a loose one on Gaussians (`d·ρ²/(1 − ρ²)` even with the exact conditional); L1Out is the tight one here."),
]

NB["05-your-data"] = [
    md("""
# Your data: load arrays and estimate with an interval

The library equivalent of `mibound estimate --x x.npy --y y.npy`: every estimator goes through
one interface, `Estimator::estimate(x, y, seed) -> Estimate`, named by a string (`infonce`,
`smile:5`, `l1out`). Neural critics are trained on K − 1 folds (with validation-based stopping)
and evaluated on the held-out fold; the interval is over folds. Here the "user data" is written
to .npy files first, so the notebook is self-contained.
"""),
    code("\n".join(HEADER)),
    code("""
use mibound::data::files::{read_table, write_npy};
use mibound::data::{CorrelatedGaussian, Sampler, rng};
use mibound::estimators::{compare, EstimatorSpec, Settings};
let dir: std::path::PathBuf = std::env::temp_dir().join("mibound-notebook-05");
std::fs::create_dir_all(&dir).unwrap();
let true_mi: f64 = {
    let task = CorrelatedGaussian::with_mi(5, 1.0).unwrap();
    let (x, y) = task.sample(2000, &mut rng(1));
    write_npy(&dir.join("x.npy"), &x).unwrap();
    write_npy(&dir.join("y.npy"), &y).unwrap();
    task.true_mi()
};
let x: nalgebra::DMatrix<f64> = read_table(&dir.join("x.npy")).unwrap().values;
let y: nalgebra::DMatrix<f64> = read_table(&dir.join("y.npy")).unwrap().values;
println!("{} samples, dims {} and {}", x.nrows(), x.ncols(), y.ncols());
"""),
    code("""
{
let mut settings = Settings::default();
settings.neural.folds = 3;
settings.neural.max_steps = 600;
let specs = EstimatorSpec::parse_list("infonce,smile:5,l1out").unwrap();
let c = compare(&specs, &settings, x.as_view(), y.as_view(), 0, None).unwrap();
for e in &c.estimates {
    println!("{:<12} {:<9} {:.3}  95% [{:.3}, {:.3}]", e.label, e.kind.short(), e.value, e.interval.low, e.interval.high);
    for w in &e.diagnostics.warnings { println!("    warning: {w}"); }
}
println!("true MI: {:.3}", true_mi);
for w in &c.warnings { println!("warning: {w}"); }
}
"""),
    md("Bad input is an error, not a panic: a NaN names its row and column."),
    code("""
{
let mut bad = x.clone();
bad[(7, 2)] = f64::NAN;
write_npy(&dir.join("bad.npy"), &bad).unwrap();
let t = read_table(&dir.join("bad.npy")).unwrap();
println!("{}", mibound::data::files::check_values(&dir.join("bad.npy"), &t, &[0, 1, 2, 3, 4]).unwrap_err());
}
"""),
]

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "notebooks")
for name, cells in NB.items():
    with open(os.path.join(here, name + ".ipynb"), "w") as f:
        json.dump(notebook(cells), f, indent=1, ensure_ascii=False)
        f.write("\n")
print("wrote", len(NB), "notebooks")
