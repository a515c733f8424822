//! Five estimators through one interface on one of benchmark-mi's tasks:
//! `cargo run --release --example compare`.
use mibound::estimators::{EstimatorSpec, Settings};

fn main() -> mibound::Result<()> {
    let task = mibound::tasks::get("asinh-student-identity-3-3-2")?; // heavy tails, true MI known
    let (x, y) = task.draw(2000, 0)?;
    let settings = Settings::default();
    println!("{} (true MI {:.3} nats)", task.info().id, task.info().true_mi);
    for name in ["ksg:k=5", "copula", "gaussian", "infonce", "l1out"] {
        let e = EstimatorSpec::parse(name)?.build(&settings)?.estimate(x.as_view(), y.as_view(), 0)?;
        println!(
            "{:<16} {:>8.3}  [{:.3}, {:.3}]  {}",
            e.label,
            e.value,
            e.interval.low,
            e.interval.high,
            e.kind.describe()
        );
    }
    Ok(())
}
