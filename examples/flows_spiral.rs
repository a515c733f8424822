//! The flow estimator on a spiral task in the style of bmi (Czyż et al. 2023): the correlated
//! Gaussian with `x` passed through the spiral diffeomorphism `x ↦ R(speed·‖x‖²)·x`, `R(θ)` a
//! rotation by `θ` in the plane of the first two coordinates. MI is unchanged (a diffeomorphism of
//! `x` alone), but no element-wise map undoes the spiral: the coupling layers and joint training
//! must. Prints the initial (marginal Gaussianisation + CCA) and final read-offs.
//!
//! `cargo run --release --example flows_spiral -- [dim] [mi] [n] [speed] [max_steps] [seed] [blocks] [lr] [hidden width]`

use mibound::data::{CorrelatedGaussian, Sampler, rng};
use mibound::flows::{GaussianisationConfig, estimate};
use mibound::train::Validation;

fn main() -> mibound::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, d: f64| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(d);
    let (dim, mi, n, speed, steps, seed) = (
        num(0, 3.0) as usize,
        num(1, 1.0),
        num(2, 5000.0) as usize,
        num(3, 1.0 / 3.0),
        num(4, 2000.0) as u64,
        num(5, 0.0) as u64,
    );
    let task = CorrelatedGaussian::with_mi(dim, mi)?;
    let (mut x, y) = task.sample(n, &mut rng(seed + 77));
    for mut row in x.row_iter_mut() {
        let t = speed * row.norm_squared();
        let (a, b) = (row[0], row[1]);
        row[0] = t.cos() * a - t.sin() * b;
        row[1] = t.sin() * a + t.cos() * b;
    }
    let raw = mibound::cca::gaussian_fit(x.as_view(), y.as_view())?.plugin;
    let base = GaussianisationConfig::default();
    let cfg = GaussianisationConfig {
        blocks: num(6, base.blocks as f64) as usize,
        hidden: vec![num(8, base.hidden[0] as f64) as usize; 2],
        adam: mibound::optim::AdamConfig { lr: num(7, base.adam.lr), ..base.adam.clone() },
        seed,
        max_steps: steps,
        validation: Validation { every: 100, patience: 600 },
        ..base
    };
    let e = estimate(&x, &y, &cfg)?;
    println!(
        "true {mi}: raw-CCA {raw:.3}, initial {:.3}, estimate {:.3} {:?}, model {:.3}, train {:.3}, test ll {:.3}, train ll {:.3}, steps {} best {} {:?} {:.1} s",
        e.initial_mi,
        e.mi,
        e.interval,
        e.model_mi,
        e.train_mi,
        e.test_log_likelihood,
        e.train_log_likelihood,
        e.fit.steps,
        e.fit.best_step,
        e.fit.stop,
        e.fit.seconds
    );
    Ok(())
}
