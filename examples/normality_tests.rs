//! How often Mardia's tests of each side's joint normality ([`side_normality`]) pass, and what
//! the copula estimate reads there against the truth: on every dependent task of one half of the
//! suite above four joint dimensions (n = 5000), and on rotated Gaussians of several shapes
//! (the null: how often a normal side fails).
//!
//!     cargo run --release --example normality_tests -- tasks tuning 0,1,2
//!     cargo run --release --example normality_tests -- null 20
//!
//! `tasks` prints, per (task, seed): the verdict of each side, the copula estimate, its
//! interval's lower end and the truth, and flags a pair that passes with the copula estimate
//! above the truth by more than its interval allows (a wrong lower bound). `null` prints, per
//! shape, how many of `S` seeds had a side fail.
use mibound::data::{CorrelatedGaussian, Sampler};
use mibound::estimators::Estimator;
use mibound::estimators::classical::Copula;
use mibound::estimators::classical::normality::{SideNormality, side_normality};
use mibound::tasks::{Group, Split, random_orthogonal};

fn tasks(half: Split, seeds: &[u64]) {
    let (mut passed, mut above, mut total) = (0, 0, 0);
    for id in mibound::tasks::split_ids(half) {
        let task = mibound::tasks::get(&id).unwrap();
        if task.info().group != Group::HighDim || id.starts_with("small_n-") {
            continue;
        }
        for &seed in seeds {
            let (x, y) = task.draw(5000, seed).unwrap();
            let (vx, vy) = (side_normality(x.as_view()), side_normality(y.as_view()));
            let pass = vx.passes() && vy.passes();
            let c = Copula::default().estimate(x.as_view(), y.as_view(), seed);
            let (value, low) = c.as_ref().map_or((f64::NAN, f64::NAN), |e| (e.value, e.interval.low));
            let truth = task.true_mi();
            let wrong = pass && low > truth;
            total += 1;
            passed += pass as usize;
            above += wrong as usize;
            println!(
                "{id:<55} s{seed} {:<5} {:<5} copula {value:>7.3} (low {low:>7.3}) truth {truth:>6.3}{}",
                if vx.passes() { "pass" } else { "fail" },
                if vy.passes() { "pass" } else { "fail" },
                if wrong { "  ABOVE THE TRUTH" } else { "" }
            );
            if !pass {
                println!("    x: {}; y: {}", vx.reason(), vy.reason());
            }
        }
    }
    println!("{passed} of {total} (task, seed) pairs pass on both sides; {above} of them read above the truth");
}

fn null(seeds: u64) {
    let shapes =
        [(5000, 5, 1.0), (5000, 25, 2.0), (5000, 50, 2.0), (10_000, 64, 4.0), (20_000, 64, 4.0), (10_000, 256, 4.0)];
    for (n, d, mi) in shapes {
        let (mut failed, mut kz) = (0, Vec::new());
        for seed in 0..seeds {
            let (x, y) = CorrelatedGaussian::with_mi(d, mi).unwrap().sample(n, &mut mibound::rng::rng(seed));
            let (qx, qy) = (random_orthogonal(d, 7_000 + seed), random_orthogonal(d, 9_000 + seed));
            let (x, y) = (x * qx.transpose(), y * qy.transpose());
            let (vx, vy) = (side_normality(x.as_view()), side_normality(y.as_view()));
            for v in [vx, vy] {
                if let SideNormality::Normal { kurtosis_z, .. } | SideNormality::NotNormal { kurtosis_z, .. } = v {
                    kz.push(kurtosis_z);
                }
            }
            if !(vx.passes() && vy.passes()) {
                failed += 1;
                println!("  {n} × {d}+{d} seed {seed}: x {:?}, y {:?}", vx, vy);
            }
        }
        let mean = kz.iter().sum::<f64>() / kz.len() as f64;
        let sd = (kz.iter().map(|z| (z - mean).powi(2)).sum::<f64>() / (kz.len() as f64 - 1.0)).sqrt();
        println!(
            "{n} rows, {d} + {d}: {failed} of {seeds} seeds had a side fail; kurtosis z mean {mean:.2}, sd {sd:.2}"
        );
    }
}

/// Latent `k + k` Gaussian pairs with MI `mi`, embedded in `d` dimensions per side by
/// `tanh(A z)` (one layer: the normal scores undo the tanh) or `tanh(B tanh(A z))` (two).
fn latent(seeds: u64) {
    use nalgebra::DMatrix;
    use rand_distr::{Distribution, StandardNormal};
    for (n, k, d, layers) in [(10_000, 4, 128, 1), (10_000, 4, 128, 2), (10_000, 8, 64, 1), (10_000, 8, 64, 2)] {
        for seed in 0..seeds {
            let (zx, zy) = CorrelatedGaussian::with_mi(k, 2.0).unwrap().sample(n, &mut mibound::rng::rng(seed));
            let mut g = mibound::rng::rng(100 + seed);
            let mut embed = |z: DMatrix<f64>| {
                let a = DMatrix::<f64>::from_fn(k, d, |_, _| StandardNormal.sample(&mut g));
                let mut h = (z * a / (k as f64).sqrt()).map(f64::tanh);
                if layers == 2 {
                    let b = DMatrix::<f64>::from_fn(d, d, |_, _| StandardNormal.sample(&mut g));
                    h = (h * b / (d as f64).sqrt()).map(f64::tanh);
                }
                h
            };
            let (x, y) = (embed(zx), embed(zy));
            let (vx, vy) = (side_normality(x.as_view()), side_normality(y.as_view()));
            let c = Copula::default().estimate(x.as_view(), y.as_view(), seed);
            let value = c.as_ref().map_or(f64::NAN, |e| e.value);
            println!(
                "{n} rows, latent {k}+{k} (I = 2) in {d}+{d}, {layers} layer(s), seed {seed}: x {vx:?}, y {vy:?}, copula {value:.3}"
            );
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("tasks") => {
            let half = if args.get(1).map(String::as_str) == Some("held-out") { Split::HeldOut } else { Split::Tuning };
            let seeds: Vec<u64> =
                args.get(2).map_or(vec![0, 1, 2], |s| s.split(',').map(|v| v.parse().unwrap()).collect());
            tasks(half, &seeds);
        }
        Some("latent") => latent(args.get(1).and_then(|s| s.parse().ok()).unwrap_or(2)),
        Some("null") => null(args.get(1).and_then(|s| s.parse().ok()).unwrap_or(20)),
        _ => eprintln!("usage: normality_tests tasks tuning|held-out [SEEDS] | null [SEEDS]"),
    }
}
