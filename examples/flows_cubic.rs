//! The flow-Gaussianisation estimator on the 20-d cubic task (`y ↦ y³`) at given true MIs.
//!
//! `cargo run --release --example flows_cubic -- [n] [max_steps] [blocks] [seed] [mi…]`
//! (defaults: 20000, 4000, 4, 0, then 2 4 6 8 10). Prints one line per level.

use mibound::data::{CorrelatedGaussian, Sampler, Transformed, rng};
use mibound::flows::{GaussianisationConfig, estimate};
use mibound::train::Validation;

fn main() -> mibound::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, d: f64| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(d);
    let n = num(0, 20000.0) as usize;
    let steps = num(1, 4000.0) as u64;
    let blocks = num(2, 4.0) as usize;
    let seed = num(3, 0.0) as u64;
    let levels: Vec<f64> = if args.len() > 4 {
        args[4..].iter().filter_map(|a| a.parse().ok()).collect()
    } else {
        vec![2.0, 4.0, 6.0, 8.0, 10.0]
    };
    println!(
        "true_mi,estimate,lo,hi,initial_mi,model_mi,train_mi,test_ll,train_ll,max_kurt,max_skew,steps,best_step,stop,seconds"
    );
    for mi in levels {
        let task = Transformed::cubic_y(CorrelatedGaussian::with_mi(20, mi)?);
        let (x, y) = task.sample(n, &mut rng(seed + 1000));
        let cfg = GaussianisationConfig {
            blocks,
            seed,
            max_steps: steps,
            validation: Validation { every: 100, patience: 1000 },
            ..GaussianisationConfig::default()
        };
        let e = estimate(&x, &y, &cfg)?;
        let (lo, hi) = e.interval.unwrap_or((f64::NAN, f64::NAN));
        println!(
            "{mi},{:.3},{lo:.3},{hi:.3},{:.3},{:.3},{:.3},{:.3},{:.3},{:.2},{:.2},{},{},{:?},{:.1}",
            e.mi,
            e.initial_mi,
            e.model_mi,
            e.train_mi,
            e.test_log_likelihood,
            e.train_log_likelihood,
            e.latents.max_abs_excess_kurtosis,
            e.latents.max_abs_skewness,
            e.fit.steps,
            e.fit.best_step,
            e.fit.stop,
            e.fit.seconds
        );
    }
    Ok(())
}
