//! `mibound estimate`: reads x and y, hands them to the library's entry point
//! ([`EstimateRequest`]), prints the table or JSON.

use super::load::{Files, print_rule_notes, read};
use super::output::{io_err, write_atomic};
use super::progress::EstimateProgress;
use super::report::{json, table, trace_csv};
use super::trace_plot::trace_figure;
use super::{EstimateOpts, InputOpts};
use crate::data::rules::Rules;
use crate::error::Result;
pub use crate::estimators::Unit;
use crate::estimators::entry::{EstimateRequest, Prepared};
use crate::estimators::{EstimatorSpec, Options, Settings};
use std::io::Write;
use std::path::Path;

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
        max_memory_mb: opts.max_memory_mb,
        ..Options::default()
    };
    let settings = options.settings(|field| format!("--{}", field.replace('_', "-")))?;
    Ok((specs, settings))
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
    /// The headline's self-consistency checks ([`crate::estimators::Comparison::with_self_check`]).
    pub selfcheck: bool,
}

/// Runs the prepared comparison (and its self-check) with `progress` and prints it, writing
/// the trace and its figure when some estimate trained; returns whether one did.
pub(super) fn run_and_report(
    prepared: &Prepared<'_>,
    unit: Unit,
    output: Output<'_>,
    progress: &EstimateProgress,
) -> Result<bool> {
    if output.selfcheck && !output.quiet {
        progress.suspend(|| {
            eprintln!("self-check: the headline estimator on two halves side by side, a monotone map and a shuffle")
        });
    }
    progress.set_steps(prepared.steps());
    let est = prepared.compare(Some(progress));
    progress.finish();
    let est = est?;
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
/// refused (by the library, [`EstimateRequest::prepare`]).
pub fn estimate(
    files: &Files<'_>,
    input: &InputOpts,
    opts: &EstimateOpts,
    unit: Unit,
    output: Output<'_>,
) -> Result<()> {
    let (specs, settings) = config(opts)?;
    input.csv()?;
    let mut read = read(files, input)?;
    read.release_values();
    let labels = super::kinds::declared_labels(files.discrete, &read)?;
    let request = EstimateRequest {
        specs,
        settings,
        labels,
        rules: Rules { label_hint: Some(LABEL_HINT.into()), ..input.rules() },
        seed: opts.seed,
        selfcheck: output.selfcheck,
        origin: read.origin(),
    };
    let (x, y) = read.inputs();
    // From here on nothing writes to stderr but through `progress`.
    let progress = EstimateProgress::new(output.quiet);
    let prepared = request.prepare(&x, &y)?;
    progress.suspend(|| print_rule_notes(&prepared.checked.notes, &request.origin));
    run_and_report(&prepared, unit, output, &progress).map(|_| ())
}
