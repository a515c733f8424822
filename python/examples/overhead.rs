//! The Rust side of the Python overhead measurement (python/benchmarks/overhead.py): times one
//! `compare` call — what `mibound.estimate` runs — on x.npy and y.npy, in process, and prints
//! the seconds. Usage: overhead X.npy Y.npy ESTIMATORS SEED STEPS

use mibound::data::files::read_npy;
use mibound::estimators::{EstimatorSpec, Options, compare};
use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [x, y, estimators, seed, steps] = args.as_slice() else {
        return Err("usage: overhead X.npy Y.npy ESTIMATORS SEED STEPS".into());
    };
    let (x, y) = (read_npy(Path::new(x))?.values, read_npy(Path::new(y))?.values);
    let specs = EstimatorSpec::parse_list(estimators)?;
    let mut options = Options::default();
    options.steps = steps.parse()?;
    let settings = options.settings(str::to_string)?;
    // Warm up the thread pool (the Python process has a warm one from its previous calls).
    let mut quick = options.clone();
    quick.steps = 1;
    let rows = x.nrows().min(100);
    compare(&specs, &quick.settings(str::to_string)?, x.rows(0, rows), y.rows(0, rows), 0, None)?;
    let started = std::time::Instant::now();
    let c = compare(&specs, &settings, x.as_view(), y.as_view(), seed.parse()?, None)?;
    let seconds = started.elapsed().as_secs_f64();
    let values: Vec<f64> = c.estimates.iter().map(|e| e.value).collect();
    println!("{{\"seconds\": {seconds}, \"values\": {values:?}}}");
    Ok(())
}
