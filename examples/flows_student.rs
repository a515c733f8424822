//! The flow estimator on a bmi-style Student-t task (Czyż et al. 2023): `(x, y) = z / √(w/ν)`
//! with `z` the correlated Gaussian (`dim` + `dim`, Gaussian MI `mi`) and `w ~ χ²_ν`. Its MI is
//! the Gaussian MI plus `c = f(ν) + f(ν + 2·dim) − 2 f(ν + dim)`, `f(a) = log Γ(a/2) − (a/2) ψ(a/2)`
//! (the shared scale makes `x` and `y` dependent even without correlation). No pair of
//! per-variable invertible maps makes a multivariate t jointly Gaussian, so the Gaussianisation
//! read-off is expected to miss part of `c`.
//!
//! `cargo run --release --example flows_student -- [dim] [mi] [nu] [n] [max_steps] [seed]`

use mibound::data::{CorrelatedGaussian, Sampler, rng};
use mibound::flows::{GaussianisationConfig, estimate};
use mibound::train::Validation;
use rand::RngExt;
use rand_distr::ChiSquared;
use statrs::function::gamma::{digamma, ln_gamma};

fn f(a: f64) -> f64 {
    ln_gamma(a / 2.0) - a / 2.0 * digamma(a / 2.0)
}

fn main() -> mibound::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, d: f64| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(d);
    let (dim, mi, nu, n, steps, seed) = (
        num(0, 2.0) as usize,
        num(1, 1.0),
        num(2, 3.0),
        num(3, 5000.0) as usize,
        num(4, 2000.0) as u64,
        num(5, 0.0) as u64,
    );
    let task = CorrelatedGaussian::with_mi(dim, mi)?;
    let mut g = rng(seed + 91);
    let (mut x, mut y) = task.sample(n, &mut g);
    let chi = ChiSquared::new(nu).map_err(|_| mibound::Error::param("nu", nu, "must be positive"))?;
    for i in 0..n {
        let s = 1.0 / (g.sample(chi) / nu).sqrt();
        x.row_mut(i).scale_mut(s);
        y.row_mut(i).scale_mut(s);
    }
    let d = dim as f64;
    let truth = mi + f(nu) + f(nu + 2.0 * d) - 2.0 * f(nu + d);
    let cfg = GaussianisationConfig {
        seed,
        max_steps: steps,
        validation: Validation { every: 100, patience: 600 },
        ..GaussianisationConfig::default()
    };
    let e = estimate(&x, &y, &cfg)?;
    println!(
        "student-t dim {dim} nu {nu}: true {truth:.3} (Gaussian part {mi}), initial {:.3}, estimate {:.3} {:?}, model {:.3}, steps {} best {} {:.1} s",
        e.initial_mi, e.mi, e.interval, e.model_mi, e.fit.steps, e.fit.best_step, e.fit.seconds
    );
    Ok(())
}
