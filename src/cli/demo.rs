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
    println!("Equivalent command: mibound estimate --x {0}/x.npy --y {0}/y.npy --plot {0}/trace.png\n", out.display());
    let plot = out.join("trace.png");
    run_and_report(
        &x,
        &y,
        &config(&opts)?,
        seed,
        Unit::Nats,
        Output { trace: Some(&out.join("trace.csv")), plot: Some(&plot), ..Output::default() },
    )?;
    println!("\n  true MI: {:.3} nats. Trace: {}", task.true_mi(), plot.display());
    Ok(())
}
