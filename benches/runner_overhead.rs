//! The training runner vs a plain loop over the same training steps, alternating, 5 rounds:
//! `cargo bench --bench runner_overhead [-- STEPS]`.
use mibound::bounds::BoundSpec;
use mibound::critics::CriticSpec;
use mibound::data::rng;
use mibound::tasks::Parametric;
use mibound::train::{Cursor, Data, Schedule, TrainConfig, train, trainer};

fn main() {
    let steps: u64 = std::env::args().skip(1).find_map(|s| s.parse().ok()).unwrap_or(1000);
    let data = Data::stream(Parametric::Gaussian { dim: 20 }, Schedule::Constant { mi: 4.0 }).unwrap();
    let cfg = TrainConfig::new(CriticSpec::poole_separable(), BoundSpec::InfoNce, 64, steps);
    let (mut ta, mut tp) = (0.0, 0.0);
    for _ in 0..5 {
        let t = std::time::Instant::now();
        let r = train::<f32>(&data, &cfg).unwrap();
        ta += t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        let (mut tr, mut params) = trainer::<f32>(&data, &cfg).unwrap();
        let (mut g, mut cur) = (rng(cfg.seed ^ 0x9E37_79B9_7F4A_7C15), Cursor::default());
        let mut last = 0.0;
        for k in 0..steps {
            last = tr.step.run(&mut params, &data, &mut g, &mut cur, k).unwrap().value;
        }
        tp += t.elapsed().as_secs_f64();
        assert_eq!(last, r.trace.last().unwrap().value, "both loops compute the same run");
    }
    println!(
        "runner {:.1} µs/step, plain {:.1} µs/step, overhead {:+.2} %",
        ta / 5.0 / steps as f64 * 1e6,
        tp / 5.0 / steps as f64 * 1e6,
        100.0 * (ta / tp - 1.0)
    );
}
