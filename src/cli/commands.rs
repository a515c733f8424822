//! The subcommands.

use super::{BenchmarkArgs, EstimateOpts, InputOpts, ThroughputOpts, TrainOpts};
use crate::bounds::{Bound, BoundSpec};
use crate::critics::CriticSpec;
use crate::data::files::{
    CsvOptions, Table, check_finite, check_values, constant_columns, describe_constant, parse_delimiter, read_csv,
    read_table_with, select_columns, write_npy,
};
use crate::data::{CorrelatedGaussian, Sampler, Task, rng};
use crate::error::{Error, Result};
pub use crate::estimators::Unit;
use crate::estimators::{Comparison, EstimatorSpec, Options, Settings, compare};
use crate::plot::{Figure, PALETTE, Panel, Series, Style};
use nalgebra::DMatrix;
use std::io::Write;
use std::path::Path;

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Io { path: path.to_path_buf(), source }
}

/// Writes `text` to `path` through a temporary file, so a failure leaves nothing half-written.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension("partial");
    std::fs::write(&tmp, bytes).map_err(io_err(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io_err(path))
}

fn columns(path: &Path, t: &Table, sel: Option<&str>, exclude: &[usize]) -> Result<Vec<usize>> {
    match sel {
        Some(s) => select_columns(path, t, s),
        None => Ok((0..t.columns.len()).filter(|j| !exclude.contains(j)).collect()),
    }
}

/// The files and column selections of `estimate`.
#[derive(Clone, Copy, Debug)]
pub struct Files<'a> {
    /// The x file.
    pub x: &'a Path,
    /// The y file (default: the x file).
    pub y: Option<&'a Path>,
    /// Columns of the x file.
    pub x_cols: Option<&'a str>,
    /// Columns of the y file.
    pub y_cols: Option<&'a str>,
}

impl InputOpts {
    /// The CSV options of `--header` and `--delimiter`.
    pub fn csv(&self) -> Result<CsvOptions> {
        Ok(CsvOptions {
            header: self.header.parse()?,
            delimiter: self.delimiter.as_deref().map(parse_delimiter).transpose()?,
        })
    }
}

/// Whether column 0 of a CSV table looks like the index pandas' `DataFrame.to_csv()` writes:
/// an unnamed (or `index`) column holding 0, 1, 2, … (or 1, 2, 3, …).
fn looks_like_pandas_index(t: &Table) -> bool {
    let n = t.values.nrows();
    let name = t.columns.first().map(|c| c.to_ascii_lowercase()).unwrap_or_default();
    let named = name.is_empty() || name == "unnamed: 0" || name == "index";
    let counts = |start: f64| (0..n).all(|i| t.values[(i, 0)] == start + i as f64);
    t.is_csv() && n >= 3 && named && (counts(0.0) || counts(1.0))
}

/// Loads x and y from one or two files, with column selections, and checks them: every value
/// finite; constant columns refused with one message naming them all (0-based, as `--x-cols`
/// counts), or dropped with `--drop-constant`; a warning on stderr when column 0 of a CSV
/// file looks like a pandas index and is used.
pub fn load_xy(f: &Files<'_>, input: &InputOpts) -> Result<(DMatrix<f64>, DMatrix<f64>)> {
    let Files { x, y, x_cols, y_cols } = *f;
    let csv = input.csv()?;
    let tx = read_table_with(x, &csv)?;
    let (ty, y_path) = match y {
        Some(p) if p != x => (read_table_with(p, &csv)?, p),
        _ => {
            if x_cols.is_none() && y_cols.is_none() {
                return Err(Error::Data {
                    path: x.to_path_buf(),
                    msg: "one file for both x and y: say which columns are which with --x-cols and --y-cols (or give --y)".into(),
                });
            }
            (tx.clone(), x)
        }
    };
    let same = y_path == x;
    let (mut cx, mut cy) = if same {
        let cy =
            columns(y_path, &ty, y_cols, &x_cols.map(|s| select_columns(x, &tx, s)).transpose()?.unwrap_or_default())?;
        (columns(x, &tx, x_cols, &cy)?, cy)
    } else {
        (columns(x, &tx, x_cols, &[])?, columns(y_path, &ty, y_cols, &[])?)
    };
    if same && cx.iter().any(|c| cy.contains(c)) {
        return Err(Error::Data { path: x.to_path_buf(), msg: "the x and y column selections overlap".into() });
    }
    if tx.values.nrows() != ty.values.nrows() {
        return Err(Error::Data {
            path: y_path.to_path_buf(),
            msg: format!(
                "{} rows, but {} has {}: x and y must have one row per sample",
                ty.values.nrows(),
                x.display(),
                tx.values.nrows()
            ),
        });
    }
    check_finite(x, &tx, &cx)?;
    check_finite(y_path, &ty, &cy)?;
    let (kx, ky) = (constant_columns(&tx, &cx), constant_columns(&ty, &cy));
    if !kx.is_empty() || !ky.is_empty() {
        let file = |p: &Path| if same { String::new() } else { format!(" ({})", p.display()) };
        let mut parts = Vec::new();
        if !kx.is_empty() {
            parts.push(format!("x{}: {}", file(x), describe_constant(&tx, &kx)));
        }
        if !ky.is_empty() {
            parts.push(format!("y{}: {}", file(y_path), describe_constant(&ty, &ky)));
        }
        let path = if kx.is_empty() { y_path } else { x };
        if !input.drop_constant {
            return Err(Error::Data {
                path: path.to_path_buf(),
                msg: format!(
                    "constant columns carry no information: {}; leave them out with --x-cols/--y-cols or pass --drop-constant",
                    parts.join("; ")
                ),
            });
        }
        cx.retain(|j| !kx.contains(j));
        cy.retain(|j| !ky.contains(j));
        for (what, c, p) in [("x", &cx, x), ("y", &cy, y_path)] {
            if c.is_empty() {
                return Err(Error::Data { path: p.to_path_buf(), msg: format!("every {what} column is constant") });
            }
        }
        eprintln!("note: --drop-constant: dropped constant {}", parts.join("; "));
    }
    for (what, t, c, p, flag) in [("x", &tx, &cx, x, "--x-cols"), ("y", &ty, &cy, y_path, "--y-cols")] {
        if c.contains(&0) && looks_like_pandas_index(t) {
            eprintln!(
                "warning: {}: column 0 ('{}') counts {} like the index pandas' to_csv() writes (use index=False); it is included in {what}: leave it out with {flag}",
                p.display(),
                t.columns[0],
                if t.values[(0, 0)] == 0.0 { "0, 1, 2, …" } else { "1, 2, 3, …" }
            );
        }
    }
    Ok((tx.values.select_columns(&cx), ty.values.select_columns(&cy)))
}

/// The estimators and their settings from the command-line options (checked by
/// [`Options::settings`], naming each option by its flag).
pub fn config(opts: &EstimateOpts) -> Result<(Vec<EstimatorSpec>, Settings)> {
    let specs = opts.estimators.iter().map(|b| EstimatorSpec::parse(b)).collect::<Result<Vec<_>>>()?;
    let options = Options {
        critic: opts.critic.clone(),
        hidden: opts.hidden.clone(),
        embed: opts.embed,
        batch: opts.batch,
        steps: opts.steps,
        lr: opts.lr,
        weight_decay: opts.weight_decay,
        folds: opts.folds,
        transform: if opts.no_standardize { "none".into() } else { opts.transform.clone() },
    };
    let settings = options.settings(|field| format!("--{}", field.replace('_', "-")))?;
    Ok((specs, settings))
}

fn table(c: &Comparison, unit: Unit) -> String {
    let nc = c.estimates.iter().find_map(|e| e.settings.get("folds").and_then(|f| f.as_u64()));
    let batch = c.estimates.iter().find_map(|e| e.settings.get("batch").and_then(|f| f.as_u64()));
    let mut s = format!("mibound estimate: {} samples, x in R^{}, y in R^{}", c.n_samples, c.dim_x, c.dim_y);
    if let (Some(k), Some(b)) = (nc, batch) {
        s += &format!("; neural bounds held-out over {k} folds, batch {b}");
    }
    s += "\n\n";
    let head = format!("95% interval ({})", unit.name());
    s += &format!("  {:<16} {:<8} {:>9}   {head:<20}\n", "estimator", "kind", "estimate");
    for e in &c.estimates {
        s += &format!(
            "  {:<16} {:<8} {:>9.3}   [{:.3}, {:.3}]\n",
            e.label,
            e.kind.short(),
            unit.convert(e.value),
            unit.convert(e.interval.low),
            unit.convert(e.interval.high)
        );
    }
    if c.estimates.iter().any(|e| e.kind == crate::estimators::Kind::UpperIfExact) {
        s += "  (upper*: an upper bound only if the conditional model q(y|x) equals p(y|x))\n";
    }
    if let Some(t) = &c.dependence_test {
        let (what, verdict) = if c.significant {
            ("dependence detected", "rejects independence")
        } else {
            ("no significant dependence", "does not reject independence")
        };
        s += &format!(
            "\n  {what}: a permutation test ({}, {} permutations, {} rows) {verdict}: p = {:.2}\n",
            t.statistic, t.permutations, t.rows, t.p_value
        );
    }
    // Notes about the data (small, duplicated rows) reach every estimate: print each once.
    let mut seen = std::collections::HashSet::new();
    for w in c.estimates.iter().flat_map(|e| &e.diagnostics.warnings).chain(&c.warnings) {
        if seen.insert(w) {
            s += &format!("  warning: {w}\n");
        }
    }
    s
}

/// The comparison as JSON ([`Comparison::to_json`]).
fn json(est: &Comparison, unit: Unit) -> Result<String> {
    serde_json::to_string(&est.to_json(unit)?)
        .map_err(|e| Error::Format { context: "json output".into(), msg: e.to_string() })
}

fn trace_csv(est: &Comparison) -> String {
    let mut s = String::from("fold,bound,step,train,validation\n");
    for r in &est.trace {
        let v = if r.validation.is_finite() { r.validation.to_string() } else { String::new() };
        s += &format!("{},{},{},{},{}\n", r.fold, r.bound, r.step, r.train, v);
    }
    s
}

/// One panel per trained critic: fold 1's training values faint, every fold's validation
/// checks, and each reported bound's held-out estimate dashed.
pub fn trace_figure(est: &Comparison, title: &str) -> Figure {
    let mut labels: Vec<String> = Vec::new();
    for r in &est.trace {
        if !labels.contains(&r.bound) {
            labels.push(r.bound.clone());
        }
    }
    let folds = est.trace.iter().map(|r| r.fold + 1).max().unwrap_or(1);
    let panels = labels
        .iter()
        .map(|label| {
            let mut series = Vec::new();
            let rows: Vec<_> = est.trace.iter().filter(|r| &r.bound == label).collect();
            let first: Vec<(f64, f64)> =
                rows.iter().filter(|r| r.fold == 0).map(|r| (r.step as f64, r.train)).collect();
            series.push(Series::new("training batches (fold 1)", first, PALETTE[6], Style::Faint));
            for f in 0..folds {
                let v: Vec<(f64, f64)> = rows
                    .iter()
                    .filter(|r| r.fold == f && r.validation.is_finite())
                    .map(|r| (r.step as f64, r.validation))
                    .collect();
                let name = if f == 0 { "validation (each fold)" } else { "" };
                series.push(Series::new(name, v, PALETTE[0], Style::Line(2)));
            }
            let xmax = rows.iter().map(|r| r.step).max().unwrap_or(1) as f64;
            let mine: Vec<_> = est
                .estimates
                .iter()
                .filter(|e| e.settings.get("trained_with").and_then(|t| t.as_str()) == Some(label.as_str()))
                .collect();
            for (k, e) in mine.iter().enumerate() {
                let name =
                    format!("{} held-out {:.3} [{:.3}, {:.3}]", e.label, e.value, e.interval.low, e.interval.high);
                series.push(Series::new(
                    &name,
                    vec![(0.0, e.value), (xmax, e.value)],
                    PALETTE[1 + k % 5],
                    Style::Dashed,
                ));
            }
            // Keep the view on the estimates: validation values of exponential bounds collapse
            // to large negative numbers once the critic overfits.
            let centre: Vec<f64> = mine.iter().map(|e| e.value).filter(|v| v.is_finite()).collect();
            let top = rows.iter().map(|r| r.validation).filter(|v| v.is_finite()).fold(f64::NEG_INFINITY, f64::max);
            let lo = centre.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = centre.iter().copied().fold(top, f64::max);
            Panel {
                title: format!("critic trained with {label}"),
                x_label: "training step".into(),
                y_label: "bound value (nats)".into(),
                series,
                y_range: (lo.is_finite() && hi.is_finite()).then_some((lo - 1.5, hi + 0.5)),
                log_x: false,
                legend: Default::default(),
            }
        })
        .collect();
    Figure { title: title.into(), panels, cols: labels.len().clamp(1, 3), panel_size: (560, 400) }
}

/// A progress bar on stderr over `total` training steps (hidden when stderr is not a terminal).
fn progress_bar(total: u64, quiet: bool) -> indicatif::ProgressBar {
    if quiet || total == 0 {
        return indicatif::ProgressBar::hidden();
    }
    let b = indicatif::ProgressBar::with_draw_target(Some(total), indicatif::ProgressDrawTarget::stderr());
    if let Ok(st) = indicatif::ProgressStyle::with_template("training {bar:30} {percent}% {elapsed}<{eta}") {
        b.set_style(st);
    }
    b
}

/// Every estimator of `specs` on `x`, `y` with a progress bar over the neural training steps.
fn run_compare(
    x: &DMatrix<f64>,
    y: &DMatrix<f64>,
    (specs, settings): &(Vec<EstimatorSpec>, Settings),
    seed: u64,
    quiet: bool,
) -> Result<Comparison> {
    let bounds: Vec<_> = specs.iter().filter_map(|s| s.bound()).collect();
    let bar = progress_bar(settings.neural.max_training_steps(&bounds), quiet);
    let inc = |k: u64| bar.inc(k);
    let c = compare(specs, settings, x.as_view(), y.as_view(), seed, Some(&inc));
    bar.finish_and_clear();
    c
}

fn run_and_report(
    x: &DMatrix<f64>,
    y: &DMatrix<f64>,
    cfg: &(Vec<EstimatorSpec>, Settings),
    seed: u64,
    unit: Unit,
    (as_json, trace, plot, quiet): (bool, Option<&Path>, Option<&Path>, bool),
) -> Result<()> {
    let est = run_compare(x, y, cfg, seed, quiet)?;
    // Side files first, so a failure there leaves no report claiming success.
    if let Some(p) = trace {
        write_atomic(p, trace_csv(&est).as_bytes())?;
    }
    if let Some(p) = plot {
        trace_figure(&est, "mibound estimate: training trace").save(p)?;
    }
    let out = if as_json { json(&est, unit)? + "\n" } else { table(&est, unit) };
    std::io::stdout().write_all(out.as_bytes()).map_err(io_err(Path::new("<stdout>")))
}

/// `mibound estimate`: the options are checked before the files are read.
pub fn estimate(
    files: &Files<'_>,
    input: &InputOpts,
    opts: &EstimateOpts,
    unit: Unit,
    output: (bool, Option<&Path>, Option<&Path>, bool),
) -> Result<()> {
    let cfg = config(opts)?;
    input.csv()?;
    let (xm, ym) = load_xy(files, input)?;
    run_and_report(&xm, &ym, &cfg, opts.seed, unit, output)
}

/// `mibound bmi SAMPLE DIM_X DIM_Y`: prints the headline estimate and nothing else.
pub fn bmi(sample: &Path, dim_x: usize, dim_y: usize, opts: &EstimateOpts) -> Result<()> {
    let t = read_csv(sample)?;
    if t.columns.len() != dim_x + dim_y {
        return Err(Error::Data {
            path: sample.to_path_buf(),
            msg: format!("{} columns, but DIM_X + DIM_Y = {}", t.columns.len(), dim_x + dim_y),
        });
    }
    let cx: Vec<usize> = (0..dim_x).collect();
    let cy: Vec<usize> = (dim_x..dim_x + dim_y).collect();
    check_values(sample, &t, &cx)?;
    check_values(sample, &t, &cy)?;
    let (specs, settings) = config(opts)?;
    // Only the headline estimate is printed: run only that estimator (the first lower bound,
    // else the first estimator named).
    let head = specs
        .iter()
        .find(|s| s.build(&settings).is_ok_and(|e| e.kind() == crate::estimators::Kind::Lower))
        .unwrap_or(&specs[0]);
    let (x, y) = (t.values.select_columns(&cx), t.values.select_columns(&cy));
    let est = head.build(&settings)?.estimate(x.as_view(), y.as_view(), opts.seed)?;
    println!("{}", est.value);
    Ok(())
}

/// `mibound tasks`: the parametric tasks at `--dim`/`--mi`, then the task suite.
pub fn tasks(dim: usize, mi: f64, json: bool) -> Result<()> {
    let suite = crate::tasks::catalogue()?;
    if json {
        let mut all = Vec::new();
        for (name, desc) in Task::CATALOGUE {
            let s = Task::parse(name, dim)?.at_mi(mi)?;
            all.push(serde_json::json!({
                "id": name, "name": s.name(), "family": "parametric (--dim, --mi)", "description": desc,
                "dim_x": s.dim_x(), "dim_y": s.dim_y(), "true_mi": s.true_mi(), "source": "mibound",
                "has_optimal_critic": true,
            }));
        }
        for t in &suite {
            all.push(
                serde_json::to_value(t)
                    .map_err(|e| Error::Format { context: "task list".into(), msg: e.to_string() })?,
            );
        }
        println!("{}", serde_json::Value::Array(all));
        return Ok(());
    }
    println!("{:<12} {:>4} {:>8} {:>9}  description", "task", "dim", "rho", "true MI");
    for (name, desc) in Task::CATALOGUE {
        let s = Task::parse(name, dim)?.at_mi(mi)?;
        let rho = crate::data::mi_to_rho(mi, dim);
        println!("{name:<12} {:>4} {rho:>8.4} {:>9.4}  {desc}", s.dim_x(), s.true_mi());
    }
    println!("\nchoose with: mibound sample TASK --dim D --mi I --n N --out DIR");
    println!("\ntask suite: benchmark-mi 0.1.3's 40 tasks (bmi ids) and harder ones (docs/tasks.md)");
    let w = suite.iter().map(|t| t.id.len()).max().unwrap_or(2);
    println!(
        "{:<w$} {:>5} {:>5} {:>9} {:>7} {:<8} {:<8}  description",
        "id", "dim_x", "dim_y", "true MI", "n", "split", "group"
    );
    for t in &suite {
        println!(
            "{:<w$} {:>5} {:>5} {:>9.4} {:>7} {:<8} {:<8}  {}",
            t.id,
            t.dim_x,
            t.dim_y,
            t.true_mi,
            t.suggested_n,
            t.split.map_or("-", |s| s.name()),
            t.group.name(),
            t.description
        );
    }
    println!("\nsplit: tuning / held-out half of the suite (an indep- twin is in its task's half); docs/tasks.md");
    println!("\nchoose with: mibound sample ID --n N --seed S --out DIR");
    Ok(())
}

/// `mibound sample`: a parametric task (`gaussian`, `cubic`, `asinh-cubic` at `--dim`/`--mi`) or
/// any task-suite id.
pub fn sample(task: &str, n: usize, dim: usize, mi: f64, seed: u64, out: &Path) -> Result<()> {
    if n == 0 {
        return Err(Error::param("n", 0, "must be at least 1"));
    }
    if Task::CATALOGUE.iter().all(|c| c.0 != task) {
        return sample_suite(task, n, seed, out);
    }
    let t = Task::parse(task, dim)?;
    let s = t.at_mi(mi)?;
    let (x, y) = s.sample(n, &mut rng(seed));
    std::fs::create_dir_all(out).map_err(io_err(out))?;
    write_npy(&out.join("x.npy"), &x)?;
    write_npy(&out.join("y.npy"), &y)?;
    let info = serde_json::json!({"task": task, "dim": dim, "n": n, "seed": seed, "rho": crate::data::mi_to_rho(mi, dim), "true_mi": s.true_mi(), "sampler": s.name()});
    write_atomic(&out.join("info.json"), format!("{info:#}\n").as_bytes())?;
    println!(
        "wrote {}/x.npy, y.npy ({n} × {dim} each) and info.json; true MI = {:.4} nats",
        out.display(),
        s.true_mi()
    );
    Ok(())
}

/// `mibound sample ID` for a task-suite id.
fn sample_suite(id: &str, n: usize, seed: u64, out: &Path) -> Result<()> {
    let t = crate::tasks::get(id).map_err(|e| match e {
        Error::Unknown { kind, name, known } => {
            let legacy: Vec<&str> = Task::CATALOGUE.iter().map(|c| c.0).collect();
            Error::Unknown { kind, name, known: format!("{} (with --dim, --mi), or {known}", legacy.join(", ")) }
        }
        other => other,
    })?;
    let (x, y) = t.draw(n, seed)?;
    std::fs::create_dir_all(out).map_err(io_err(out))?;
    write_npy(&out.join("x.npy"), &x)?;
    write_npy(&out.join("y.npy"), &y)?;
    let i = t.info();
    let info = serde_json::json!({
        "task": id, "name": i.name, "family": i.family, "description": i.description, "source": i.source,
        "n": n, "seed": seed, "dim_x": i.dim_x, "dim_y": i.dim_y, "true_mi": i.true_mi,
        "suggested_n": i.suggested_n, "sampler": t.name(),
    });
    write_atomic(&out.join("info.json"), format!("{info:#}\n").as_bytes())?;
    println!(
        "wrote {}/x.npy ({n} × {}), y.npy ({n} × {}) and info.json; true MI = {:.4} nats",
        out.display(),
        i.dim_x,
        i.dim_y,
        i.true_mi
    );
    Ok(())
}

/// `mibound demo`: the README's main job.
pub fn demo(out: &Path, n: usize, seed: u64) -> Result<()> {
    let task = CorrelatedGaussian::with_mi(20, 2.0)?;
    println!(
        "Sampling {n} pairs of a 20-dimensional correlated Gaussian with I(X;Y) = 2 nats (seed {seed}) into {}",
        out.display()
    );
    sample("gaussian", n, 20, 2.0, seed, out)?;
    let (xf, yf) = (out.join("x.npy"), out.join("y.npy"));
    let (x, y) = load_xy(&Files { x: &xf, y: Some(&yf), x_cols: None, y_cols: None }, &InputOpts::default())?;
    let opts = EstimateOpts { seed, ..EstimateOpts::default() };
    println!("Equivalent command: mibound estimate --x {0}/x.npy --y {0}/y.npy --plot {0}/trace.png\n", out.display());
    let plot = out.join("trace.png");
    run_and_report(
        &x,
        &y,
        &config(&opts)?,
        seed,
        Unit::Nats,
        (false, Some(&out.join("trace.csv")), Some(&plot), false),
    )?;
    println!("\n  true MI: {:.3} nats. Trace: {}", task.true_mi(), plot.display());
    Ok(())
}

/// `mibound optimal`: every lower bound on the optimal critic, against the true MI.
pub fn optimal(dim: usize, batch: usize, batches: usize, seed: u64) -> Result<()> {
    let specs = ["infonce", "nwj", "js", "dv", "smile:5", "interpolated:0.5"];
    println!("Optimal critic log p(y|x) − log p(y), d = {dim}, N = {batch}, mean over {batches} batches");
    print!("{:>7} {:>7}", "true I", "log N");
    for s in specs {
        print!(" {s:>16}");
    }
    println!();
    let mut r = rng(seed);
    for mi in [0.5, 1.0, 2.0, 4.0, 6.0, 8.0] {
        let task = CorrelatedGaussian::with_mi(dim, mi)?;
        let mut bounds: Vec<Box<dyn Bound<f64>>> =
            specs.iter().map(|s| BoundSpec::parse(s)?.build()).collect::<Result<_>>()?;
        let mut sums = vec![0.0; specs.len()];
        for _ in 0..batches {
            let (x, y) = task.sample(batch, &mut r);
            let mut s =
                task.optimal_critic(&x, &y).ok_or_else(|| Error::param("task", "gaussian", "has no optimal critic"))?;
            for (k, b) in bounds.iter_mut().enumerate() {
                // NWJ is tight at f* + 1, JS at f* (see docs/bounds.md).
                let shift = if b.name() == "nwj" { 1.0 } else { 0.0 };
                s.add_scalar_mut(shift);
                sums[k] += b.value(&s)?;
                s.add_scalar_mut(-shift);
            }
        }
        print!("{:>7.3} {:>7.3}", task.true_mi(), (batch as f64).ln());
        for v in sums {
            print!(" {:>16.3}", v / batches as f64);
        }
        println!();
    }
    Ok(())
}

/// `mibound train`: one run of the runner on a staircase, one line (or JSON object) per level.
pub fn train(o: &TrainOpts) -> Result<()> {
    use crate::train::{Data, Schedule, TrainConfig};
    if o.mi.is_empty() || o.steps == 0 || o.threads == 0 || !(o.tail > 0.0 && o.tail <= 1.0) {
        return Err(Error::param(
            "mi/steps/threads/tail",
            format!("{:?}/{}/{}/{}", o.mi, o.steps, o.threads, o.tail),
            "need at least one MI level, steps ≥ 1, threads ≥ 1 and 0 < tail ≤ 1",
        ));
    }
    let _ = rayon::ThreadPoolBuilder::new().num_threads(o.threads).build_global();
    let task = Task::parse(&o.task, o.dim)?;
    let data = Data::stream(task, Schedule::Staircase { levels: o.mi.clone(), steps_per_level: o.steps })?;
    let mut cfg = TrainConfig::new(
        CriticSpec::parse(&o.critic)?,
        BoundSpec::parse(&o.bound)?,
        o.batch,
        o.steps * o.mi.len() as u64,
    );
    cfg.adam.lr = o.lr;
    cfg.compute = crate::compute::Compute::with_threads(o.threads)?;
    cfg.seed = o.seed;
    cfg.trace = o.trace.clone();
    let mut observers: Vec<Box<dyn crate::train::Observer>> = Vec::new();
    if !(o.quiet || o.json) {
        let label = cfg.bound.build::<f32>()?.label();
        observers.push(Box::new(super::progress::ProgressObserver::new(cfg.steps, &label)));
    }
    let res = crate::train::train_observed::<f32>(&data, &cfg, observers)?;
    let (wall, sps) = (res.wall_seconds, res.steps_per_second());
    let log_n = (o.batch as f64).ln();
    if !o.json {
        println!(
            "{} · {} critic · {} task, d = {} · N = {} (log N = {log_n:.3}) · {} steps per level · {} thread(s)",
            res.meta.bound_label, o.critic, o.task, o.dim, o.batch, o.steps, o.threads
        );
        println!("  true MI   estimate ± std (last {:.0} % of the level)", 100.0 * o.tail);
    }
    for (level, w) in res.levels(o.steps, o.tail).iter().enumerate() {
        let true_mi = w.true_mi.unwrap_or(f64::NAN);
        if o.json {
            let v = serde_json::json!({"tool": "mibound", "estimator": o.bound, "critic": o.critic, "task": o.task,
                "batch": o.batch, "threads": o.threads, "seed": o.seed, "dim": o.dim, "level": level,
                "true_mi": true_mi, "log_batch": log_n, "steps": o.steps, "tail_steps": w.to - w.from,
                "estimate_mean": w.mean, "estimate_std": w.std, "run_wall_s": wall, "steps_per_s": sps,
                "backend": res.meta.backend, "n_params": res.params.len()});
            println!("{v}");
        } else {
            println!("  {true_mi:7.3}   {:8.3} ± {:.3}", w.mean, w.std);
        }
    }
    if !o.json {
        println!("{} steps in {wall:.2} s ({sps:.0} steps/s, {} backend)", res.trace.len(), res.meta.backend);
    }
    Ok(())
}

/// `mibound throughput`.
pub fn throughput(o: &ThroughputOpts) -> Result<()> {
    let (critic, batch, threads, gemm_threads, steps, warmup, as_json) =
        (o.critic.as_str(), o.batch, o.threads, o.gemm_threads, o.steps, o.warmup, o.json);
    use crate::figures::{Budget, measure_throughput};
    if steps == 0 || batch < 2 || threads == 0 {
        return Err(Error::param(
            "steps/batch/threads",
            format!("{steps}/{batch}/{threads}"),
            "need steps ≥ 1, batch ≥ 2, threads ≥ 1",
        ));
    }
    let b = match &o.backend {
        Some(name) => name.parse()?,
        None => crate::gemm::Backend::default(),
    };
    let compute = crate::compute::Compute::new(b, threads)?;
    if gemm_threads > 1 && b != crate::gemm::Backend::Blas {
        return Err(Error::param("gemm threads", gemm_threads, "only the blas backend threads inside a product"));
    }
    crate::gemm::set_blas_threads(gemm_threads.max(1));
    let _ = rayon::ThreadPoolBuilder::new().num_threads(threads).build_global();
    let spec = match critic {
        "separable" => CriticSpec::poole_separable(),
        "concat" => CriticSpec::poole_concat(),
        "bilinear" | "cpc" => CriticSpec::parse("cpc")?,
        other => {
            return Err(Error::Unknown {
                kind: "critic",
                name: other.into(),
                known: "separable, concat, bilinear".into(),
            });
        }
    };
    let (sps, gflops) = measure_throughput(&spec, batch, warmup, Budget::Steps(steps), compute)?;
    let secs = steps as f64 / sps;
    let n_params = spec.build::<f32>(20, 20)?.n_params();
    // The single-thread gemm peak of this backend, measured now, beside the run.
    let peak = if o.peak {
        crate::gemm::set_blas_threads(1);
        let p = crate::gemm::PEAK_SHAPES.iter().map(|&sh| crate::gemm::measure_gflops(b, sh, 20)).fold(0.0, f64::max);
        crate::gemm::set_blas_threads(gemm_threads.max(1));
        Some(p)
    } else {
        None
    };
    if as_json {
        let v = serde_json::json!({"tool": "mibound", "critic": critic, "batch": batch, "threads": threads, "gemm_threads": gemm_threads, "steps": steps,
            "seconds": secs, "steps_per_s": sps, "gflops": gflops, "backend": b.name(), "params": n_params,
            "peak_gflops": peak});
        println!("{v}");
    } else {
        println!(
            "{critic} critic, N = {batch}, {threads} thread(s), {} backend ({gemm_threads} per product): {sps:.1} steps/s ({:.3} ms/step), {gflops:.1} GFLOP/s",
            b.name(),
            1e3 / sps
        );
        if let Some(p) = peak {
            println!(
                "single-thread gemm peak of this backend, measured now: {p:.1} GFLOP/s ({:.0} % of it)",
                100.0 * gflops / p
            );
        }
    }
    Ok(())
}

/// `mibound benchmark`: runs the configuration's missing runs of one shard into `--out`.
pub fn benchmark(a: &BenchmarkArgs) -> Result<()> {
    use crate::benchmark::{Config, RunOptions, Shard};
    let config = match (&a.config, a.quick) {
        (Some(_), true) => return Err(Error::param("--quick", "with --config", "choose one of --config and --quick")),
        (Some(p), false) => Config::from_file(p)?,
        (None, true) => Config::quick(),
        (None, false) => Config::default_full(),
    };
    if a.print_config {
        print!("{}", config.to_toml()?);
        return Ok(());
    }
    let plan = config.plan()?;
    let shard: Shard = a.shard.as_deref().map(str::parse).transpose()?.unwrap_or_default();
    let mut opts = RunOptions { shard, quiet: a.quiet, ..Default::default() };
    if let Some(t) = a.threads {
        if t == 0 {
            return Err(Error::param("--threads", 0, "must be at least 1"));
        }
        opts.threads = t;
    }
    let Some(out) = a.out.as_deref() else {
        if a.dry_run {
            let in_shard = (0..plan.runs.len()).filter(|&j| shard.contains(j)).count();
            println!("{} runs in the plan, {in_shard} in shard {shard}", plan.runs.len());
            return Ok(());
        }
        return Err(Error::param("--out", "(missing)", "name the results file, e.g. --out results.jsonl"));
    };
    if a.dry_run {
        let (done, _) = crate::benchmark::read_results(out)?;
        let done: std::collections::BTreeSet<_> = done.iter().map(|r| r.key()).collect();
        let mine: Vec<_> = plan.runs.iter().enumerate().filter(|(j, _)| shard.contains(*j)).collect();
        let missing = mine.iter().filter(|(_, r)| !done.contains(&r.key)).count();
        println!(
            "{} runs in the plan, {} in shard {shard}, {} already in {}, {missing} to run",
            plan.runs.len(),
            mine.len(),
            mine.len() - missing,
            out.display()
        );
        return Ok(());
    }
    let s = crate::benchmark::run(&plan, out, &opts)?;
    if s.dropped_partial_line {
        eprintln!("note: dropped the incomplete last line of {} (a killed run); it is redone", out.display());
    }
    println!(
        "shard {shard}: {} of {} runs; {} already done, {} run now ({} failed) in {:.1} s on {} threads -> {}",
        s.in_shard,
        s.planned,
        s.already_done,
        s.ran,
        s.failed,
        s.wall_seconds,
        opts.threads,
        out.display()
    );
    Ok(())
}

/// `mibound benchmark report`: merges results files into a table and figures.
pub fn benchmark_report(files: &[std::path::PathBuf], out: &Path) -> Result<()> {
    let m = crate::benchmark::report::merge(files)?;
    for p in &m.partial_lines {
        eprintln!("note: ignored the incomplete last line of {}", p.display());
    }
    for c in &m.conflicts {
        eprintln!("conflict: {c}");
    }
    let written = crate::benchmark::report::write(&m, out)?;
    println!(
        "{} runs merged from {} file(s) ({} duplicates removed, {} conflicts); wrote {}",
        m.records.len(),
        files.len(),
        m.duplicates,
        m.conflicts.len(),
        written.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    );
    Ok(())
}
