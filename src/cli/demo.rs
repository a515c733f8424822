//! `mibound demo`: the README's main job.

use super::estimate::{Output, Unit, config, run_and_report};
use super::load::{Files, read};
use super::progress::EstimateProgress;
use super::sample::sample;
use super::{EstimateOpts, InputOpts};
use crate::data::{CorrelatedGaussian, Sampler};
use crate::error::Result;
use crate::estimators::entry::EstimateRequest;
use std::path::Path;

/// `mibound demo`: the README's main job.
pub fn demo(out: &Path, n: usize, seed: u64) -> Result<()> {
    let task = CorrelatedGaussian::with_mi(20, 2.0)?;
    println!(
        "Sampling {n} pairs of a 20-dimensional correlated Gaussian with I(X;Y) = 2 nats (seed {seed}) into {}",
        out.display()
    );
    sample("gaussian", n, 20, 2.0, seed, out)?;
    let (xf, yf) = (out.join("x.npy"), out.join("y.npy"));
    let input = InputOpts::default();
    let read = read(&Files { x: &xf, y: Some(&yf), x_cols: None, y_cols: None, discrete: None }, &input)?;
    let (specs, settings) = config(&EstimateOpts { seed, ..EstimateOpts::default() })?;
    let request =
        EstimateRequest { specs, settings, rules: input.rules(), seed, origin: read.origin(), ..Default::default() };
    let (x, y) = read.inputs();
    let prepared = request.prepare(&x, &y)?;
    // A training trace only where the default trains a critic (not where it sums KSG).
    let trains = prepared.specs.iter().any(|s| s.bound().is_some());
    let (csv, plot) = (out.join("trace.csv"), out.join("trace.png"));
    // Stale figures of an earlier run would read as this run's.
    for f in [&csv, &plot].into_iter().filter(|f| f.exists()) {
        std::fs::remove_file(f).map_err(super::output::io_err(f))?;
    }
    let command = format!("mibound estimate --x {0}/x.npy --y {0}/y.npy", out.display());
    if trains {
        println!("Equivalent command: {command} --plot {}\n", plot.display());
    } else {
        println!(
            "Equivalent command: {command} (the neural bound and its training trace: add --estimators infonce --plot {})\n",
            plot.display()
        );
    }
    let output =
        if trains { Output { trace: Some(&csv), plot: Some(&plot), ..Output::default() } } else { Output::default() };
    let traced = run_and_report(&prepared, Unit::Nats, output, &EstimateProgress::new(false))?;
    let trace = if traced { format!(" Trace: {}", plot.display()) } else { String::new() };
    println!("\n  true MI: {:.3} nats.{trace}", task.true_mi());
    Ok(())
}
