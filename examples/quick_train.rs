use mibound::bounds::BoundSpec;
use mibound::critics::CriticSpec;
use mibound::data::Task;
use mibound::train::{Data, Schedule, TrainConfig, train};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bound = BoundSpec::parse(args.get(1).map_or("infonce", |s| s.as_str())).unwrap();
    let dim: usize = args.get(2).map_or(5, |s| s.parse().unwrap());
    let batch: usize = args.get(3).map_or(128, |s| s.parse().unwrap());
    let steps: u64 = args.get(4).map_or(5000, |s| s.parse().unwrap());
    let data = Data::stream(Task::Gaussian { dim }, Schedule::Constant { mi: 2.0 }).unwrap();
    let mut cfg = TrainConfig::new(CriticSpec::poole_separable(), bound, batch, steps);
    cfg.seed = args.get(5).map_or(0, |s| s.parse().unwrap());
    let r = train::<f32>(&data, &cfg).unwrap();
    let t = r.tail(0.2).unwrap();
    println!("{:?} mean {:.4} std {:.4}  {:.1} steps/s", bound, t.mean, t.std, r.steps_per_second());
}
