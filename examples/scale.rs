//! Data the size of learned representations: rotated Gaussians (each side turned by a
//! Haar-random orthogonal matrix, so that no coordinate pairs off with one of the other side)
//! with a known MI, written for `mibound estimate` or estimated here with the time and peak
//! memory it took.
//!
//! ```text
//! cargo run --release --example scale -- sample ROWS DIM MI OUT_DIR   # x.npy, y.npy
//! /usr/bin/time -v target/release/mibound estimate --x OUT_DIR/x.npy --y OUT_DIR/y.npy
//! cargo run --release --example scale -- estimate ROWS DIM MI         # one estimate, in process
//! cargo run --release --example scale -- table                        # a grid, one process each
//! cargo run --release --example scale -- tasks                        # the scale tasks, JSON lines
//! ```
//!
//! `tasks` prints one JSON line per task at representation scale (`mibound::tasks::SCALE_IDS`:
//! id, half, rows, dimensions, true MI, family), which benches/compare_scale.py reads; `mibound
//! sample ID --n ROWS --seed S --out DIR` writes a task's sample.
//!
//! `estimate` prints the default estimate (`auto`), its wall time and the process's peak
//! resident memory (`VmHWM`, which includes the sample itself); `table` runs it for rows and
//! dimensions side by side.
use mibound::data::files::write_npy;
use mibound::data::{CorrelatedGaussian, Sampler};
use mibound::tasks::random_orthogonal;
use nalgebra::DMatrix;

/// `rows` rows of the `dim + dim` Gaussian with MI `mi`, each side rotated, from `seed`.
fn rotated(rows: usize, dim: usize, mi: f64, seed: u64) -> mibound::Result<(DMatrix<f64>, DMatrix<f64>)> {
    let (x, y) = CorrelatedGaussian::with_mi(dim, mi)?.sample(rows, &mut mibound::rng::rng(seed));
    let (qx, qy) = (random_orthogonal(dim, 7_000 + dim as u64), random_orthogonal(dim, 9_000 + dim as u64));
    Ok((x * qx.transpose(), y * qy.transpose()))
}

/// The process's peak resident memory in MB (Linux's `VmHWM`).
fn peak_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<f64>().ok()? / 1000.0)
}

fn main() -> mibound::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num =
        |i: usize| -> f64 { args.get(i).and_then(|a| a.parse().ok()).expect("usage: sample ROWS DIM MI OUT_DIR") };
    match args.first().map(String::as_str) {
        Some("sample") => {
            let (rows, dim, mi) = (num(1) as usize, num(2) as usize, num(3));
            let out = std::path::Path::new(args.get(4).expect("OUT_DIR"));
            std::fs::create_dir_all(out).map_err(|e| mibound::Error::Io { path: out.into(), source: e })?;
            let (x, y) = rotated(rows, dim, mi, 0)?;
            write_npy(&out.join("x.npy"), &x)?;
            write_npy(&out.join("y.npy"), &y)?;
            println!("{rows} rows of {dim} + {dim} dims, I = {mi} nats: {}", out.display());
        }
        Some("estimate") => {
            let (rows, dim, mi) = (num(1) as usize, num(2) as usize, num(3));
            let (x, y) = rotated(rows, dim, mi, 0)?;
            let specs = mibound::estimators::EstimatorSpec::parse_list("auto")?;
            let started = std::time::Instant::now();
            let settings = mibound::estimators::Settings::default();
            let c = mibound::estimators::compare(&specs, &settings, x.as_view(), y.as_view(), 0, None)?;
            let seconds = started.elapsed().as_secs_f64();
            let head = c.headline().expect("an estimate");
            println!(
                "{rows:>8} {dim:>4}+{dim:<4} {mi:>4.1} {:>8.3} {:>9.1} {:>9.0}",
                head.value,
                seconds,
                peak_mb().unwrap_or(f64::NAN)
            );
            for e in &c.estimates {
                eprintln!(
                    "    {} ({:?}): {:.3} [{:.3}, {:.3}] on {} rows",
                    e.estimator, e.kind, e.value, e.interval.low, e.interval.high, e.n_samples
                );
            }
        }
        Some("table") => {
            println!("{:>8} {:>9} {:>4} {:>8} {:>9} {:>9}", "rows", "dims", "MI", "estimate", "seconds", "peak MB");
            let me = std::env::current_exe().map_err(|e| mibound::Error::Io { path: "scale".into(), source: e })?;
            for (rows, dim, mi) in [(10_000, 16, 2.0), (100_000, 16, 2.0), (20_000, 64, 4.0), (1_000_000, 32, 3.0)] {
                let out = std::process::Command::new(&me)
                    .args(["estimate", &rows.to_string(), &dim.to_string(), &mi.to_string()])
                    .output()
                    .map_err(|e| mibound::Error::Io { path: me.clone(), source: e })?;
                print!("{}", String::from_utf8_lossy(&out.stdout));
            }
        }
        Some("tasks") => {
            for id in mibound::tasks::SCALE_IDS {
                let i = mibound::tasks::get(id)?.info().clone();
                let line = serde_json::json!({
                    "task": i.id, "split": i.split.map(|s| s.name()), "group": i.group.name(), "n": i.suggested_n,
                    "dx": i.dim_x, "dy": i.dim_y, "truth": i.true_mi, "family": i.family, "stratum": i.stratum,
                });
                println!("{line}");
            }
        }
        _ => eprintln!("usage: scale sample ROWS DIM MI OUT_DIR | estimate ROWS DIM MI | table | tasks"),
    }
    Ok(())
}
