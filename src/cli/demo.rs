//! `mibound demo`: the README's main job.

use super::estimate::{Files, Output, Unit, config, load_xy, run_and_report};
use super::sample::sample;
use super::{EstimateOpts, InputOpts};
use crate::data::{CorrelatedGaussian, Sampler};
use crate::error::Result;
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
    let (x, y) =
        load_xy(&Files { x: &xf, y: Some(&yf), x_cols: None, y_cols: None, discrete: None }, &InputOpts::default())?;
    let opts = EstimateOpts { seed, ..EstimateOpts::default() };
    let cfg = config(&opts)?;
    // A training trace only where the default trains a critic (not where it sums KSG).
    let trains = crate::estimators::EstimatorSpec::resolve_for(&cfg.0, x.as_view(), y.as_view(), &Default::default())
        .iter()
        .any(|s| s.bound().is_some());
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
    let traced = run_and_report(&x, &y, &cfg, seed, Unit::Nats, output)?;
    let trace = if traced { format!(" Trace: {}", plot.display()) } else { String::new() };
    println!("\n  true MI: {:.3} nats.{trace}", task.true_mi());
    Ok(())
}
