//! Runs training steps of one configuration for profiling: `profile_step CRITIC N STEPS [BOUND]`.
use mibound::bounds::BoundSpec;
use mibound::critics::{CriticSpec, Init};
use mibound::data::{Task, rng};
use mibound::optim::{Adam, AdamConfig};
use mibound::train::{Cursor, Data, Schedule, TrainStep};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let critic = CriticSpec::parse(&a[1]).unwrap();
    let n: usize = a[2].parse().unwrap();
    let steps: u64 = a[3].parse().unwrap();
    let bound = BoundSpec::parse(a.get(4).map_or("infonce", |s| s.as_str())).unwrap();
    let data = Data::stream(Task::Gaussian { dim: 20 }, Schedule::Constant { mi: 4.0 }).unwrap();
    let c = critic.build::<f32>(20, 20).unwrap();
    let mut p = c.init_params(Init::Torch, 0);
    let adam = Adam::new(AdamConfig::default(), p.len()).unwrap();
    let mut st = TrainStep::new(c, bound.build().unwrap(), adam, n, (20, 20));
    let (mut g, mut cur) = (rng(1), Cursor::default());
    let t = std::time::Instant::now();
    for k in 0..steps {
        st.run(&mut p, &data, &mut g, &mut cur, k).unwrap();
    }
    let s = t.elapsed().as_secs_f64();
    println!("{} N={n}: {:.1} steps/s", a[1], steps as f64 / s);
}
