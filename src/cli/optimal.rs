//! `mibound optimal`: every bound on the optimal critic.

use crate::bounds::{Bound, BoundSpec};
use crate::data::{CorrelatedGaussian, Sampler, rng};
use crate::error::{Error, Result};

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
