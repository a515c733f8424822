//! `mibound estimate --given Z-COLS`: conditional MI `I(X; Y | Z)` with the conditional form of
//! each estimator and Runge's local permutation test, through the library's entry point
//! ([`GivenRequest`]), printed as `estimate` prints `I(X; Y)`.

use super::estimate::{Output, Unit, config};
use super::load::{Files, print_rule_notes, read, select_noted};
use super::output::io_err;
use super::progress::EstimateProgress;
use super::report::{json, table};
use super::{EstimateOpts, InputOpts};
use crate::data::files::{GIVEN_TEXT_ADVICE, TEXT_ADVICE};
use crate::data::rules::{self, Rules};
use crate::error::{Error, Result};
use crate::estimators::classical::{CiTestConfig, GIVEN_LABEL_HINT};
use crate::estimators::entry::GivenRequest;
use std::io::Write;
use std::path::Path;

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
/// columns are taken from the x file and must not overlap x's or y's columns. `auto` (the
/// default) stands for the library's conditional estimators.
pub fn estimate_given(
    files: &Files<'_>,
    given: &str,
    input: &InputOpts,
    opts: &EstimateOpts,
    unit: Unit,
    output: Output<'_>,
) -> Result<()> {
    refuse_unused(&output, files.discrete)?;
    let (specs, settings) = config(opts)?;
    crate::estimators::entry::conditional_specs(&specs)?;
    input.csv()?;
    // A text cell's refusal advises what applies here: no column can be declared a label.
    let advise = |e: Error| match e {
        Error::Data { path, msg } => Error::Data { path, msg: msg.replace(TEXT_ADVICE, GIVEN_TEXT_ADVICE) },
        e => e,
    };
    let read = read(files, input).map_err(advise)?;
    let t = &read.tx;
    let zc = select_noted(files.x, t, given)?;
    let overlap = zc.iter().find(|&&j| read.cx.contains(&j) || (read.same_file() && read.cy.contains(&j)));
    if let Some(j) = overlap {
        return Err(Error::Data {
            path: files.x.to_path_buf(),
            msg: format!(
                "column {j} is both conditioned on (--given) and in x or y: select x with --x-cols (and y with --y-cols) apart from z"
            ),
        });
    }
    let (z, z_columns) = t.select(files.x, &zc).map_err(advise)?;
    let z = rules::Input { values: z.as_view(), columns: z_columns, lines: &t.lines, levels: Vec::new() };
    let request = GivenRequest {
        specs,
        settings,
        test: CiTestConfig::default(),
        rules: Rules { label_hint: Some(GIVEN_LABEL_HINT.into()), ..input.rules() },
        seed: opts.seed,
        origin: read.origin(),
    };
    let (x, y) = read.inputs();
    let progress = EstimateProgress::new(output.quiet);
    let prepared = request.prepare(&x, &y, &z)?;
    progress.suspend(|| {
        print_rule_notes(&prepared.checked.notes, &request.origin);
        print_rule_notes(&prepared.notes, &request.origin);
    });
    progress.set_steps(prepared.steps());
    let est = prepared.compare(Some(&progress));
    progress.finish();
    let est = est?;
    let out = if output.json { json(&est, unit)? + "\n" } else { table(&est, unit) };
    std::io::stdout().write_all(out.as_bytes()).map_err(io_err(Path::new("<stdout>")))
}
