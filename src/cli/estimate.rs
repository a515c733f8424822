//! `mibound estimate`: reads x and y, runs the estimators, prints the table or JSON.

use super::output::{io_err, write_atomic};
use super::report::{json, table, trace_csv};
use super::trace_plot::trace_figure;
use super::{EstimateOpts, InputOpts};
use crate::data::files::{CsvOptions, Table, declared_columns, parse_delimiter, read_table_with, select_columns};
use crate::data::rules::{self, InputError, Side};
use crate::error::{Error, Result};
pub use crate::estimators::Unit;
use crate::estimators::{CheckedSettings, Comparison, EstimatorSpec, Options, Settings, compare};
use nalgebra::DMatrix;
use std::io::Write;
use std::path::Path;

fn columns(path: &Path, t: &Table, sel: Option<&str>, exclude: &[usize]) -> Result<Vec<usize>> {
    match sel {
        Some(s) => select_noted(path, t, s),
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
    /// The declared label columns (`--discrete`): a label column may hold text (categories).
    pub discrete: Option<&'a str>,
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

/// Loads x and y from one or two files, with column selections, and applies the data rules
/// ([`crate::data::rules`]): a refusal names the file(s) before the rule's sentence; the notes
/// (constant columns dropped with `--drop-constant`, a pandas index column used) go to stderr.
pub fn load_xy(f: &Files<'_>, input: &InputOpts) -> Result<(DMatrix<f64>, DMatrix<f64>)> {
    load_xy_named(f, input, None).map(|l| (l.x, l.y))
}

/// What [`load_xy_named`] loads: x and y with their columns as the user names them.
pub struct Loaded {
    /// x, one row per sample.
    pub x: DMatrix<f64>,
    /// y.
    pub y: DMatrix<f64>,
    /// x's columns (file index and name).
    pub x_columns: Vec<rules::Column>,
    /// y's columns.
    pub y_columns: Vec<rules::Column>,
    /// The constant columns dropped (`--drop-constant`), of either side: a declared list
    /// (`--discrete`) may still name them.
    pub dropped: Vec<rules::Column>,
}

/// [`load_xy`] with the columns' names; with `label_hint`, columns that look like class labels
/// are noted too ([`rules::Rules::label_hint`]).
/// Reads a table as every command does, with a note on stderr when its header was guessed from
/// a first row of 1 or 2 cells (`0`, `0,1`: pandas' names over floats; from another tool, the
/// same row may be data).
pub(super) fn read_table_noted(path: &std::path::Path, csv: &CsvOptions) -> Result<Table> {
    let t = read_table_with(path, csv)?;
    if t.header_guessed {
        eprintln!(
            "note: {}: the first row ({}) is read as a header, the column names pandas writes over floats; if it is data, pass --header no",
            path.display(),
            t.columns.join(",")
        );
    }
    Ok(t)
}

/// A column selection as every command reads it ([`select_columns`]), with a note on stderr
/// when a number in it was read as a column's name standing at another position (pandas'
/// integer column names beside its index): the number was a valid position too.
pub(super) fn select_noted(path: &Path, t: &Table, spec: &str) -> Result<Vec<usize>> {
    let s = select_columns(path, t, spec)?;
    let (numbers, positions): (Vec<&str>, Vec<String>) =
        s.numbers_as_names.iter().map(|(n, j)| (n.as_str(), j.to_string())).unzip();
    match numbers.len() {
        0 => {}
        1 => eprintln!(
            "note: {}: '{spec}' reads {} as the name of the column at position {}, not as a position: a number that names a column is read as that name",
            path.display(),
            numbers[0],
            positions[0]
        ),
        _ => eprintln!(
            "note: {}: '{spec}' reads {} as the names of the columns at positions {}, not as positions: a number that names a column is read as that name",
            path.display(),
            numbers.join(", "),
            positions.join(", ")
        ),
    }
    Ok(s.columns)
}

pub fn load_xy_named(f: &Files<'_>, input: &InputOpts, label_hint: Option<&str>) -> Result<Loaded> {
    let Files { x, y, x_cols, y_cols, discrete } = *f;
    let csv = input.csv()?;
    let tx = read_table_noted(x, &csv)?;
    let (ty, y_path) = match y {
        Some(p) if p != x => (read_table_noted(p, &csv)?, p),
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
    let (cx, cy) = if same {
        let sx = x_cols.map(|s| select_noted(x, &tx, s)).transpose()?;
        let cy = columns(y_path, &ty, y_cols, sx.as_deref().unwrap_or_default())?;
        let cx = match sx {
            Some(c) => c,
            None => columns(x, &tx, None, &cy)?,
        };
        (cx, cy)
    } else {
        (columns(x, &tx, x_cols, &[])?, columns(y_path, &ty, y_cols, &[])?)
    };
    if let Some(&j) = cx.iter().find(|c| same && cy.contains(c)) {
        return Err(Error::Data { path: x.to_path_buf(), msg: selected_twice(&tx, j) });
    }
    let (vx, nx) = tx.select_labelled(x, &cx, &declared_columns(&tx, &cx, discrete))?;
    let (vy, ny) = ty.select_labelled(y_path, &cy, &declared_columns(&ty, &cy, discrete))?;
    let ix = rules::Input { values: vx.as_view(), columns: nx, lines: &tx.lines, levels: tx.levels_of(&cx) };
    let iy = rules::Input { values: vy.as_view(), columns: ny, lines: &ty.lines, levels: ty.levels_of(&cy) };
    let asked = rules::Rules { label_hint: label_hint.map(String::from), ..input.rules() };
    // The files a problem concerns, x's first, each once.
    let files = |sides: &[Side]| {
        let mut out: Vec<std::path::PathBuf> = Vec::new();
        for s in sides {
            let p = if *s == Side::X { x } else { y_path };
            if !out.iter().any(|o| o == p) {
                out.push(p.to_path_buf());
            }
        }
        out
    };
    let checked = rules::check(&ix, &iy, &asked)
        .map_err(|problem| Error::Input { origin: files(&problem_sides(&problem)), problem })?;
    let dropped = checked
        .notes
        .iter()
        .flat_map(|note| match note {
            rules::Note::DroppedConstant { x, y, .. } => x.iter().chain(y).map(|c| c.column.clone()).collect(),
            _ => Vec::new(),
        })
        .collect();
    print_rule_notes(&checked.notes, &files);
    let (x, y) = checked.select(&ix, &iy);
    Ok(Loaded { x, y, x_columns: checked.x_columns, y_columns: checked.y_columns, dropped })
}

/// Column `j` of one file in both selections (x's and y's, or the features and the target).
fn selected_twice(t: &Table, j: usize) -> String {
    format!(
        "column {j} ('{}') is selected twice, among the columns read (--x-cols) and as the one(s) they are measured against (--y-cols, --target): select each column once",
        t.columns[j]
    )
}

/// The sides (x, y) a refusal of the data rules concerns, whose files it names.
fn problem_sides(problem: &InputError) -> Vec<Side> {
    match problem {
        InputError::NoColumns { side }
        | InputError::NonFinite { side, .. }
        | InputError::AllConstant { side }
        | InputError::DuplicateName { side, .. } => vec![*side],
        InputError::Constant { x, y, .. } => {
            [(Side::X, x.is_empty()), (Side::Y, y.is_empty())].iter().filter(|s| !s.1).map(|s| s.0).collect()
        }
        _ => vec![Side::X, Side::Y],
    }
}

/// The data rules' notes on stderr, each naming its file (`files` of the sides) and what to do.
fn print_rule_notes(notes: &[rules::Note], files: &dyn Fn(&[Side]) -> Vec<std::path::PathBuf>) {
    for note in notes {
        match note {
            rules::Note::DroppedConstant { .. } => eprintln!("note: --drop-constant: {note}"),
            rules::Note::IndexColumn { side, .. } => {
                let flag = if *side == Side::X { "--x-cols" } else { "--y-cols" };
                let path = files(&[*side])[0].display().to_string();
                eprintln!("warning: {path}: {note}: leave it out with {flag}");
            }
            rules::Note::LabelLike { side, .. } => {
                eprintln!("warning: {}: {note}", files(&[*side])[0].display());
            }
            rules::Note::RepeatedRows { .. } => eprintln!("note: {note}"),
        }
    }
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
        ..Options::default()
    };
    let settings = options.settings(|field| format!("--{}", field.replace('_', "-")))?;
    Ok((specs, settings))
}

/// A progress bar on stderr over `total` training steps (hidden when stderr is not a terminal).
pub(super) fn progress_bar(total: u64, quiet: bool) -> indicatif::ProgressBar {
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
    (specs, settings): (&[EstimatorSpec], &CheckedSettings),
    seed: u64,
    quiet: bool,
) -> Result<Comparison> {
    let bar = progress_bar(crate::estimators::training_steps(specs, settings, x.as_view(), y.as_view()), quiet);
    let inc = |k: u64| bar.inc(k);
    let c = compare(specs, settings, x.as_view(), y.as_view(), seed, Some(&inc));
    bar.finish_and_clear();
    c
}

/// What `estimate` prints and writes besides the estimates.
#[derive(Clone, Copy, Debug, Default)]
pub struct Output<'a> {
    /// One JSON object instead of the table.
    pub json: bool,
    /// The per-step training trace (CSV).
    pub trace: Option<&'a Path>,
    /// The training trace drawn (PNG or SVG).
    pub plot: Option<&'a Path>,
    /// No progress bar.
    pub quiet: bool,
    /// The headline's self-consistency checks ([`Comparison::with_self_check`]).
    pub selfcheck: bool,
}

/// Runs the comparison (and its self-check) and prints it, writing the trace and its figure
/// when some estimate trained; returns whether one did.
pub(super) fn run_and_report(
    x: &DMatrix<f64>,
    y: &DMatrix<f64>,
    cfg: &(Vec<EstimatorSpec>, Settings),
    seed: u64,
    unit: Unit,
    output: Output<'_>,
) -> Result<bool> {
    // The settings are checked once, here, for the comparison and its self-check; `auto` is
    // resolved once for these data (its block search is not repeated by the progress bars'
    // step counts, `compare` and the self-check).
    let settings = &cfg.1.check()?;
    let resolved = EstimatorSpec::resolve_for(&cfg.0, x.as_view(), y.as_view(), &settings.neural.labels);
    let specs = &resolved[..];
    let mut est = run_compare(x, y, (specs, settings), seed, output.quiet)?;
    if output.selfcheck {
        if !output.quiet {
            eprintln!("self-check: the headline estimator on two halves side by side, a monotone map and a shuffle");
        }
        let steps = crate::estimators::self_check_steps(specs, settings, x.as_view(), y.as_view());
        let bar = progress_bar(steps, output.quiet);
        let inc = |k: u64| bar.inc(k);
        let checked = est.with_self_check(specs, settings, (x.as_view(), y.as_view()), seed, Some(&inc));
        bar.finish_and_clear();
        est = checked?;
    }
    // Side files first, so a failure there leaves no report claiming success.
    // Nothing trained (a classical headline): no empty trace or blank figure, and say why.
    let traced = !est.trace.is_empty();
    for p in [output.trace, output.plot].into_iter().flatten().filter(|_| !traced) {
        eprintln!("{} not written: no estimate trained a critic, so there is no training trace", p.display());
    }
    if let Some(p) = output.trace.filter(|_| traced) {
        write_atomic(p, trace_csv(&est).as_bytes())?;
    }
    if let Some(p) = output.plot.filter(|_| traced) {
        trace_figure(&est, "mibound estimate: training trace").save(p)?;
    }
    let out = if output.json { json(&est, unit)? + "\n" } else { table(&est, unit) };
    std::io::stdout().write_all(out.as_bytes()).map_err(io_err(Path::new("<stdout>")))?;
    Ok(traced)
}

/// What `estimate` tells a user whose columns look like class labels.
const LABEL_HINT: &str = "say so with --discrete and use an estimator for labels (discrete, ross, mixed-ksg) or a neural bound (infonce), which embeds them";

/// `mibound estimate`: the options are checked before the files are read. Columns named by
/// `files.discrete` (`--discrete`) are labels: an estimator that would read them as numbers is
/// refused ([`super::features::check_estimators`]).
pub fn estimate(
    files: &Files<'_>,
    input: &InputOpts,
    opts: &EstimateOpts,
    unit: Unit,
    output: Output<'_>,
) -> Result<()> {
    let discrete = files.discrete;
    let cfg = config(opts)?;
    input.csv()?;
    // Nothing declared and an estimator that reads numbers: say which columns look like labels.
    let numbers = cfg.0.iter().any(|s| !crate::estimators::classical::reads_labels(s));
    let hint = (discrete.is_none() && numbers).then_some(LABEL_HINT);
    let l = load_xy_named(files, input, hint)?;
    let mut cfg = cfg;
    // Declared labels: the neural bounds embed them (one-hot); the others were checked above.
    cfg.1.neural.labels = super::features::check_estimators(&cfg.0, &l, discrete)?;
    run_and_report(&l.x, &l.y, &cfg, opts.seed, unit, output).map(|_| ())
}
