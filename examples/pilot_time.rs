//! Wall time of the InfoNCE estimate with the critic chosen after a pilot of `P` steps per
//! candidate (`Candidates::pilot_steps`), for each `P` given, on one data set at n = 5000:
//! the numbers behind docs/results.md §8's pilot table. `demo` is the demo's 20 + 20-dim
//! Gaussian with 2 nats; anything else is a task id.
//!
//!     cargo run --release --example pilot_time -- demo 0,500
//!     cargo run --release --example pilot_time -- spiral-multinormal-sparse-25-25-2-2.0 0,500
use mibound::data::{CorrelatedGaussian, Sampler, rng};
use mibound::estimators::{EstimatorSpec, Settings};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(id), Some(pilots)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: pilot_time demo|TASK P1,P2,… [SEED]");
        std::process::exit(2);
    };
    let pilots: Vec<u64> = pilots.split(',').map(|s| s.parse().expect("pilot steps are whole numbers")).collect();
    let seed: u64 = args.get(3).map_or(0, |s| s.parse().expect("the seed is a whole number"));
    let (x, y) = if id == "demo" {
        CorrelatedGaussian::with_mi(20, 2.0).unwrap().sample(5000, &mut rng(seed))
    } else {
        mibound::tasks::get(id).expect("a task id of `mibound tasks`").draw(5000, seed).unwrap()
    };
    for p in pilots {
        let mut s = Settings::default();
        s.neural.candidates.pilot_steps = p;
        let infonce = EstimatorSpec::parse("infonce").unwrap().build(&s).unwrap();
        let t = Instant::now();
        let e = infonce.estimate(x.as_view(), y.as_view(), seed).unwrap();
        println!(
            "{id} pilot {p}: {:.3} in {:.2} s, {} steps, candidate kept per fold {:?}",
            e.value,
            t.elapsed().as_secs_f64(),
            e.diagnostics.steps.unwrap_or(0),
            e.settings.neural().map(|s| s.chosen_per_fold.iter().map(|c| c.id).collect::<Vec<_>>())
        );
    }
}
