//! The `mibound` command-line tool.

use clap::{Parser, Subcommand};
use mibound::bounds::{Bound, BoundSpec};
use mibound::data::{CorrelatedGaussian, Sampler, rng};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "mibound", version, about = "Mutual-information estimation with variational bounds")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Every lower bound on the optimal critic of correlated Gaussians, against the true MI.
    Demo {
        /// Dimension of x and y.
        #[arg(long, default_value_t = 20)]
        dim: usize,
        /// Batch size N.
        #[arg(long, default_value_t = 128)]
        batch: usize,
        /// Batches averaged per row.
        #[arg(long, default_value_t = 200)]
        batches: usize,
        /// Seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
    },
}

fn demo(dim: usize, batch: usize, batches: usize, seed: u64) -> mibound::Result<()> {
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
            specs.iter().map(|s| BoundSpec::parse(s)?.build()).collect::<Result<_, _>>()?;
        let mut sums = vec![0.0; specs.len()];
        for _ in 0..batches {
            let (x, y) = task.sample(batch, &mut r);
            let mut s = task.optimal_critic(&x, &y).expect("gaussian has an optimal critic");
            for (k, b) in bounds.iter_mut().enumerate() {
                // NWJ and JS are tight at f* + 1 and f* respectively (see docs/bounds.md).
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo { dim, batch, batches, seed } => demo(dim, batch, batches, seed),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
