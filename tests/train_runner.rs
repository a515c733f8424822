//! The runner: bit-identical reruns, resume from a checkpoint, divergence detection, data sets
//! with epochs, early stopping.

use mibound::Error;
use mibound::bounds::BoundSpec;
use mibound::critics::{Activation, CriticSpec, Similarity};
use mibound::data::{CorrelatedGaussian, Sampler, rng};
use mibound::optim::AdamConfig;
use mibound::tasks::Parametric;
use mibound::train::{CheckpointConfig, Data, Dataset, EarlyStop, Schedule, TrainConfig, train};

fn small_critic() -> CriticSpec {
    CriticSpec::Separable { hidden: vec![32], embed: 8, activation: Activation::Relu, similarity: Similarity::Dot }
}

fn data() -> Data {
    Data::stream(Parametric::Gaussian { dim: 3 }, Schedule::Staircase { levels: vec![1.0, 2.0], steps_per_level: 60 })
        .unwrap()
}

#[test]
fn same_seed_gives_bit_identical_traces_and_parameters() {
    let cfg = TrainConfig::new(small_critic(), BoundSpec::parse("mine").unwrap(), 16, 120);
    let a = train::<f32>(&data(), &cfg).unwrap();
    let b = train::<f32>(&data(), &cfg).unwrap();
    assert!(a.trace == b.trace, "traces differ");
    assert!(a.params == b.params, "parameters differ");
    let c = train::<f32>(&data(), &TrainConfig { seed: 1, ..cfg }).unwrap();
    assert_ne!(a.trace, c.trace, "a different seed gives a different run");
    assert_eq!(a.trace.len(), 120);
    // The level's MI goes through ρ and back: equal to the nominal level to rounding.
    assert!((a.trace[59].true_mi.unwrap() - 1.0).abs() < 1e-12);
    assert!((a.trace[60].true_mi.unwrap() - 2.0).abs() < 1e-12);
}

#[test]
fn an_interrupted_run_resumed_from_its_checkpoint_ends_where_an_uninterrupted_one_does() {
    let dir = crate::common::temp_dir("resume", "checkpoint");
    let path = dir.join("ck.json");
    // MINE carries state (its moving average) and the data stream carries a generator: both
    // must come back from the checkpoint for the runs to agree.
    let base = TrainConfig::new(small_critic(), BoundSpec::parse("mine").unwrap(), 16, 150);
    let whole = train::<f32>(&data(), &base).unwrap();
    let ck = Some(CheckpointConfig { path: path.clone(), every: 40 });
    // "Crash" after 100 steps: the last checkpoint is at step 80.
    let first = train::<f32>(&data(), &TrainConfig { steps: 100, checkpoint: ck.clone(), ..base.clone() }).unwrap();
    assert_eq!(first.trace.len(), 100);
    let resumed = train::<f32>(&data(), &TrainConfig { checkpoint: ck.clone(), ..base.clone() }).unwrap();
    assert!(resumed.params == whole.params, "final parameters differ after resume");
    let first_diff = resumed.trace.iter().zip(&whole.trace).position(|(a, b)| a != b);
    assert_eq!((resumed.trace.len(), first_diff), (whole.trace.len(), None), "trace differs after resume");
    // A checkpoint from another configuration is refused, not silently used.
    let other = TrainConfig { seed: 9, checkpoint: ck, ..base };
    let err = train::<f32>(&data(), &other).unwrap_err().to_string();
    assert!(err.contains("different configuration"), "{err}");
}

#[test]
fn a_diverging_run_is_reported_with_its_step() {
    // NWJ's exponential term with a huge learning rate overflows within a few steps.
    let mut cfg = TrainConfig::new(small_critic(), BoundSpec::Nwj, 16, 500);
    cfg.adam = AdamConfig { lr: 50.0, ..AdamConfig::default() };
    match train::<f32>(&data(), &cfg) {
        Err(Error::Diverged { step, what }) => {
            assert!(step < 500, "step {step}");
            assert!(!what.is_empty());
        }
        other => panic!("expected divergence, got {:?}", other.map(|r| r.tail(0.2))),
    }
}

#[test]
fn a_data_set_is_drawn_in_shuffled_epochs_without_repeats() {
    let task = CorrelatedGaussian::with_mi(2, 1.0).unwrap();
    let (x, y) = task.sample(100, &mut rng(3));
    let ds = Dataset::split(x, y, 0.2, 4).unwrap();
    assert_eq!((ds.train.len(), ds.test.len()), (80, 20));
    let data = Data::Dataset(ds.clone());
    let mut cursor = Default::default();
    let mut g = rng(5);
    let (mut bx, mut by) = (nalgebra::DMatrix::zeros(20, 2), nalgebra::DMatrix::zeros(20, 2));
    let mut seen = Vec::new();
    for step in 0..4 {
        data.fill(step, &mut g, &mut cursor, &mut bx, &mut by);
        for r in 0..20 {
            let row = (0..ds.x.nrows()).find(|&i| ds.x[(i, 0)] == bx[(r, 0)] && ds.y[(i, 1)] == by[(r, 1)]).unwrap();
            assert!(ds.train.contains(&row), "test rows never reach training");
            seen.push(row);
        }
    }
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 80, "one epoch covers every training row exactly once");
    let too_big = TrainConfig::new(small_critic(), BoundSpec::InfoNce, 81, 10);
    assert!(train::<f32>(&Data::Dataset(ds), &too_big).is_err());
}

#[test]
fn early_stopping_ends_a_converged_run() {
    let mut cfg = TrainConfig::new(small_critic(), BoundSpec::InfoNce, 16, 5000);
    cfg.early_stop = Some(EarlyStop { patience: 100, min_delta: 0.01, span: 50.0 });
    let r = train::<f32>(&Data::stream(Parametric::Gaussian { dim: 2 }, Schedule::Constant { mi: 0.5 }).unwrap(), &cfg)
        .unwrap();
    assert!(r.trace.len() < 5000, "ran all {} steps", r.trace.len());
    assert!(r.termination.starts_with("early stopping"), "{}", r.termination);
}

#[test]
fn trace_file_matches_the_returned_trace() {
    let path = std::env::temp_dir().join(format!("mibound-trace-{}.csv", std::process::id()));
    let mut cfg = TrainConfig::new(small_critic(), BoundSpec::Js, 16, 30);
    cfg.trace = Some(path.clone());
    let r = train::<f64>(&data(), &cfg).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "step,value,objective,true_mi");
    assert_eq!(lines.len(), 31);
    let fields: Vec<f64> = lines[5].split(',').map(|v| v.parse().unwrap()).collect();
    assert_eq!(fields[0] as u64, r.trace[4].step);
    assert_eq!(fields[1], r.trace[4].value);
    std::fs::remove_file(&path).ok();
    let jpath = path.with_extension("jsonl");
    cfg.trace = Some(jpath.clone());
    let r = train::<f64>(&data(), &cfg).unwrap();
    let recs: Vec<mibound::train::StepRecord> =
        std::fs::read_to_string(&jpath).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(recs == r.trace, "JSON-lines trace equals the returned trace");
    std::fs::remove_file(&jpath).ok();
}
