//! `mibound estimate --given Z-COLS`: conditional MI `I(X; Y | Z)` with the conditional form of
//! each estimator and Runge's local permutation test ([`compare_given`]), printed as `estimate`
//! prints `I(X; Y)`.

use super::estimate::{Files, Output, Unit, config, load_xy_named, progress_bar};
use super::output::io_err;
use super::report::{json, table};
use super::{EstimateOpts, InputOpts};
use crate::data::files::{GIVEN_TEXT_ADVICE, TEXT_ADVICE};
use crate::data::rules;
use crate::data::rules::RepeatPolicy;
use crate::error::{Error, Result};
use crate::estimators::classical::{CiTestConfig, ConditionalSpec, DEFAULT_CONDITIONAL, GIVEN_LABEL_HINT};
use crate::estimators::{DEFAULT_ESTIMATORS, Settings, compare_given};
use std::io::Write;
use std::path::Path;

/// The conditional estimators and the settings of the neural ones: [`DEFAULT_CONDITIONAL`] when
/// `--estimators` is left at its default, else the conditional form of each named one.
fn specs(opts: &EstimateOpts) -> Result<(Vec<ConditionalSpec>, Settings)> {
    let (named, settings) = config(opts)?;
    let specs = if opts.estimators.iter().map(String::as_str).eq(DEFAULT_ESTIMATORS.split(',')) {
        DEFAULT_CONDITIONAL.to_vec()
    } else {
        named.iter().map(ConditionalSpec::from_spec).collect::<Result<_>>()?
    };
    Ok((specs, settings))
}

/// The options of `estimate` that have no meaning with `--given`, refused by name.
fn refuse_unused(output: &Output<'_>, discrete: Option<&str>) -> Result<()> {
    let unused = [
        ("--trace", output.trace.is_some()),
        ("--plot", output.plot.is_some()),
        ("--selfcheck", output.selfcheck),
        ("--discrete", discrete.is_some()),
    ];
    match unused.iter().find(|(_, set)| *set) {
        Some((flag, _)) => Err(Error::param(
            flag.trim_start_matches('-'),
            "set",
            "does not apply with --given: the conditional estimators read every column as continuous, and a conditional estimate has no training trace or self-check",
        )),
        None => Ok(()),
    }
}

/// `mibound estimate --given`: the options are checked before the files are read; the `given`
/// columns are taken from the x file and must not overlap x's or y's columns.
pub fn estimate_given(
    files: &Files<'_>,
    given: &str,
    input: &InputOpts,
    opts: &EstimateOpts,
    unit: Unit,
    output: Output<'_>,
) -> Result<()> {
    refuse_unused(&output, files.discrete)?;
    let (specs, settings) = specs(opts)?;
    let csv = input.csv()?;
    // A text cell's refusal advises what applies here: no column can be declared a label.
    let advise = |e: Error| match e {
        Error::Data { path, msg } => Error::Data { path, msg: msg.replace(TEXT_ADVICE, GIVEN_TEXT_ADVICE) },
        e => e,
    };
    // Repeated rows are judged on x, z and y together, once z is read (below).
    let keep = InputOpts { repeats: RepeatPolicy::Keep.name().into(), ..input.clone() };
    let mut l = load_xy_named(files, &keep, Some(GIVEN_LABEL_HINT)).map_err(advise)?;
    // Read again for z's columns; load_xy_named has already noted a guessed header.
    let t = crate::data::files::read_table_with(files.x, &csv)?;
    let zc = super::estimate::select_noted(files.x, &t, given)?;
    let same_y = files.y.is_none_or(|y| y == files.x);
    let overlap = zc
        .iter()
        .find(|&&j| l.x_columns.iter().any(|c| c.index == j) || (same_y && l.y_columns.iter().any(|c| c.index == j)));
    if let Some(j) = overlap {
        return Err(Error::Data {
            path: files.x.to_path_buf(),
            msg: format!(
                "column {j} is both conditioned on (--given) and in x or y: select x with --x-cols (and y with --y-cols) apart from z"
            ),
        });
    }
    let (z, z_columns) = t.select(files.x, &zc).map_err(advise)?;
    // The data rules for z, as for x and y: NaN named by file, line and column; label-like noted.
    let iz = rules::Input { values: z.as_view(), columns: z_columns, lines: &t.lines, levels: Vec::new() };
    let asked = rules::Rules { label_hint: Some(GIVEN_LABEL_HINT.into()), ..input.rules() };
    let (kept, notes) = rules::check_given(&iz, l.x.nrows(), &asked)
        .map_err(|problem| Error::Input { origin: vec![files.x.to_path_buf()], problem })?;
    for note in &notes {
        match note {
            rules::Note::DroppedConstant { .. } => eprintln!("note: --drop-constant: {note}"),
            _ => eprintln!("warning: {}: {note}", files.x.display()),
        }
    }
    let mut z = z.select_columns(&kept);
    let xz = crate::estimators::side_by_side(l.x.as_view(), z.as_view());
    let mut copies = Vec::new();
    let rows = rules::copies(xz.as_view(), l.y.as_view(), &t.lines, &input.rules(), &mut copies)
        .map_err(|problem| Error::Input { origin: vec![files.x.to_path_buf()], problem })?;
    copies.iter().for_each(|note| eprintln!("note: {note}"));
    if let Some(rows) = rows {
        (l.x, l.y, z) = (l.x.select_rows(&rows), l.y.select_rows(&rows), z.select_rows(&rows));
    }
    let bounds: Vec<_> = specs
        .iter()
        .filter_map(|s| if let ConditionalSpec::Neural { bound } = s { Some(*bound) } else { None })
        .collect();
    // Two terms per neural bound (the chain rule).
    let bar = progress_bar(2 * settings.neural.max_training_steps(&bounds), output.quiet);
    let inc = |k: u64| bar.inc(k);
    let (xyz, test) = ((l.x.as_view(), l.y.as_view(), z.as_view()), CiTestConfig::default());
    let est = compare_given(&specs, &settings, xyz.0, xyz.1, xyz.2, &test, opts.seed, Some(&inc));
    bar.finish_and_clear();
    let est = est?;
    let out = if output.json { json(&est, unit)? + "\n" } else { table(&est, unit) };
    std::io::stdout().write_all(out.as_bytes()).map_err(io_err(Path::new("<stdout>")))
}
