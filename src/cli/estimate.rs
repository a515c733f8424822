//! `mibound estimate`: reads x and y, runs the estimators, prints the table or JSON.

use super::output::{io_err, write_atomic};
use super::report::{json, table, trace_csv};
use super::trace_plot::trace_figure;
use super::{EstimateOpts, InputOpts};
use crate::data::files::{
    CsvOptions, Table, check_finite, constant_columns, describe_constant, parse_delimiter, read_table_with,
    select_columns,
};
use crate::error::{Error, Result};
pub use crate::estimators::Unit;
use crate::estimators::{Comparison, EstimatorSpec, Options, Settings, compare};
use nalgebra::DMatrix;
use std::io::Write;
use std::path::Path;

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

pub(super) fn run_and_report(
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
