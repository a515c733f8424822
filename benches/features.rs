//! `cargo bench --bench features -- --x FILE --y FILE --n N --p P [--discrete-y] [--k K] [--threads T] [--reps R] [--noise-x FILE [--noise-y FILE]]`
//!
//! Times mibound's per-feature MI ([`feature_mi`]: scikit-learn's preprocessing and tie-breaking
//! noise, KSG-1 for a continuous target, Ross 2014 for a class target) on the `n × p` matrix in
//! `--x` (raw little-endian f64, row-major) against the target in `--y` (`n` f64), on a rayon pool
//! of `T` threads, best of `R` runs; the time is that of the library call alone (files read
//! before). The tie-breaking noise is ours (seed 0) unless `--noise-x` (`n × p` standard-normal
//! draws, row-major) and, for a continuous target, `--noise-y` (`n` draws) give numpy's: then
//! the numbers are scikit-learn's with `random_state` drawing the same. Prints one JSON line: `{"n", "p", "k", "threads", "seconds", "values"}`. Used by
//! `benches/compare_features.sh`.

use mibound::data::VarKind;
use mibound::estimators::classical::{TieNoise, feature_mi};
use nalgebra::DMatrix;
use std::time::Instant;

fn read_f64(path: &str) -> Vec<f64> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    bytes.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes"))).collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let value = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let number = |name: &str, default: usize| value(name).map_or(default, |v| v.parse().expect("a whole number"));
    let (n, p, k) = (number("--n", 10_000), number("--p", 100), number("--k", 3));
    let (threads, reps) = (number("--threads", 1), number("--reps", 3));
    let discrete_y = args.iter().any(|a| a == "--discrete-y");
    let (Some(xf), Some(yf)) = (value("--x"), value("--y")) else {
        eprintln!("--x FILE and --y FILE are required; see the header of benches/features.rs");
        std::process::exit(2)
    };
    let xs = read_f64(&xf);
    let y = read_f64(&yf);
    assert_eq!((xs.len(), y.len()), (n * p, n), "file sizes do not match --n and --p");
    let x = DMatrix::from_row_slice(n, p, &xs);
    let kinds = vec![VarKind::Continuous; p];
    let y_kind = if discrete_y { VarKind::Discrete } else { VarKind::Continuous };
    let noise = match (value("--noise-x"), value("--noise-y")) {
        (Some(fx), fy) => TieNoise::Given {
            x: DMatrix::from_row_slice(n, p, &read_f64(&fx)),
            y: fy.map(|f| read_f64(&f)).unwrap_or_default(),
        },
        _ => TieNoise::Seeded(0),
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads.max(1)).build().expect("thread pool");
    let mut best = f64::INFINITY;
    let mut values = Vec::new();
    for _ in 0..reps.max(1) {
        let start = Instant::now();
        let r = pool.install(|| feature_mi(x.as_view(), &kinds, &y, y_kind, k, &noise, &[]).map(|(mi, _)| mi));
        best = best.min(start.elapsed().as_secs_f64());
        values = r.unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(2)
        });
    }
    println!(
        "{}",
        serde_json::json!({ "n": n, "p": p, "k": k, "threads": threads, "seconds": best, "values": values })
    );
}
