//! `cargo bench --bench ksg -- --n N [--dx DX] [--dy DY] [--k K] [--threads T] [--reps R] [--seed S] [--search auto|tree|scan]`
//!
//! Times mibound's KSG estimator (`Ksg`: standardisation and 1e-10 tie-breaking noise as
//! scikit-learn's `mutual_info_regression`, no interval) on `n` rows of a correlated Gaussian
//! with `dx = dy` (or `x` of `dx` and `y` of `dy` columns, `y` depending on the first
//! `min(dx, dy)` columns of `x`), on a rayon pool of `T` threads, best of `R` runs. Prints one
//! JSON line: `{"n", "dx", "dy", "k", "threads", "seconds", "value"}`. Used by
//! `benches/compare_classical.sh`.

use mibound::data::rng;
use mibound::estimators::Estimator;
use mibound::estimators::classical::{Ksg, KsgSearch, KsgVariant};
use nalgebra::DMatrix;
use rand::RngExt;
use rand_distr::StandardNormal;
use std::time::Instant;

fn main() {
    let mut opts =
        [("--n", 100_000usize), ("--dx", 1), ("--dy", 1), ("--k", 3), ("--threads", 1), ("--reps", 3), ("--seed", 0)];
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let mut it = args.iter();
    let mut search = KsgSearch::Auto;
    while let Some(a) = it.next() {
        if a == "--search" {
            search = match it.next().map(String::as_str) {
                Some("auto") => KsgSearch::Auto,
                Some("tree") => KsgSearch::Tree,
                Some("scan") => KsgSearch::Scan,
                _ => {
                    eprintln!("--search takes auto, tree or scan");
                    std::process::exit(2);
                }
            };
            continue;
        }
        let Some(slot) = opts.iter_mut().find(|(k, _)| k == a) else {
            eprintln!("unknown argument {a}; see the header of benches/ksg.rs");
            std::process::exit(2);
        };
        slot.1 = match it.next().map(|v| v.parse()) {
            Some(Ok(v)) => v,
            _ => {
                eprintln!("{a} needs a whole number");
                std::process::exit(2);
            }
        };
    }
    let get = |k: &str| opts.iter().find(|(o, _)| *o == k).map(|(_, v)| *v).unwrap_or_default();
    let (n, dx, dy, k, threads, reps) =
        (get("--n"), get("--dx"), get("--dy"), get("--k"), get("--threads"), get("--reps"));
    let mut g = rng(get("--seed") as u64);
    let rho: f64 = 0.6;
    let s = (1.0 - rho * rho).sqrt();
    let x = DMatrix::from_fn(n, dx, |_, _| g.sample::<f64, _>(StandardNormal));
    let y = DMatrix::from_fn(n, dy, |i, j| {
        let e: f64 = g.sample(StandardNormal);
        if j < dx { rho * x[(i, j)] + s * e } else { e }
    });
    let mut ksg = Ksg::new(k, KsgVariant::Ksg1).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    ksg.subsamples = 0;
    ksg.search = search;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads.max(1)).build().expect("thread pool");
    let mut best = f64::INFINITY;
    let mut value = f64::NAN;
    for _ in 0..reps.max(1) {
        let start = Instant::now();
        let est = pool.install(|| ksg.estimate(x.as_view(), y.as_view(), 1));
        best = best.min(start.elapsed().as_secs_f64());
        match est {
            Ok(e) => value = e.value,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(2);
            }
        }
    }
    println!(
        "{}",
        serde_json::json!({ "n": n, "dx": dx, "dy": dy, "k": k, "threads": threads, "search": search, "seconds": best, "value": value })
    );
}
