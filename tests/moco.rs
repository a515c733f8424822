//! MoCo: gradient of the query encoder, the momentum update, the queue, and training with the
//! runner's InfoNCE on an N × (N + K) score matrix.

use crate::common;

use common::{assert_param_grads, random_matrix};
use mibound::bounds::BoundSpec;
use mibound::critics::{Activation, Critic, CriticSpec, Init, Moco};
use mibound::tasks::Parametric;
use mibound::train::{Data, Schedule, TrainConfig, train};
use nalgebra::DMatrix;

fn small() -> Moco<f64> {
    Moco::new(3, 3, &[5], 4, Activation::Tanh, 0.5, 0.9, 6).unwrap()
}

#[test]
fn query_gradient_matches_finite_differences_with_a_filled_queue() {
    let mut c = small();
    let p = c.init_params(Init::Torch, 1);
    let mut s = DMatrix::zeros(0, 0);
    // Two batches fill the queue with keys (6 of the 8 produced).
    for seed in [2, 3] {
        c.scores(&p, &random_matrix(4, 3, 1.0, seed), &random_matrix(4, 3, 1.0, seed + 10), &mut s).unwrap();
        c.after_step(&p);
    }
    assert_eq!(c.queued(), 6);
    let (x, y) = (random_matrix(4, 3, 1.0, 7), random_matrix(4, 3, 1.0, 8));
    c.scores(&p, &x, &y, &mut s).unwrap();
    assert_eq!(s.shape(), (4, 10), "batch keys plus the queue");
    let w = random_matrix(4, 10, 1.0, 9);
    let mut g = vec![f64::NAN; p.len()];
    c.backward(&p, &w, &mut g).unwrap();
    assert_param_grads("moco query encoder", &p, &g, |q| {
        c.scores(q, &x, &y, &mut s).unwrap();
        s.component_mul(&w).sum()
    });
}

#[test]
fn momentum_update_and_fifo_queue() {
    let mut c = small();
    let p0 = c.init_params(Init::Torch, 1);
    let mut s = DMatrix::zeros(0, 0);
    c.scores(&p0, &random_matrix(4, 3, 1.0, 1), &random_matrix(4, 3, 1.0, 2), &mut s).unwrap();
    assert_eq!(c.key_params(), &p0[..], "the key encoder starts as a copy");
    let p1: Vec<f64> = p0.iter().map(|v| v + 1.0).collect();
    c.after_step(&p1);
    for (k, (a, b)) in c.key_params().iter().zip(p0.iter().zip(&p1)).enumerate() {
        assert!((a - (0.9 * b.0 + 0.1 * b.1)).abs() < 1e-12, "θk[{k}] = {a}");
    }
    assert_eq!(c.queued(), 4);
    c.scores(&p1, &random_matrix(4, 3, 1.0, 3), &random_matrix(4, 3, 1.0, 4), &mut s).unwrap();
    assert_eq!(s.shape(), (4, 8));
    c.after_step(&p1);
    assert_eq!(c.queued(), 6, "capacity 6: the oldest keys are evicted");
    assert!(Moco::<f64>::new(3, 4, &[5], 4, Activation::Tanh, 0.5, 0.9, 6).is_err(), "x and y share the encoder");
}

#[test]
fn moco_trains_with_infonce_and_stays_below_log_of_all_candidates() {
    let data = Data::stream(Parametric::Gaussian { dim: 5 }, Schedule::Constant { mi: 1.0 }).unwrap();
    let spec = CriticSpec::Moco {
        hidden: vec![64],
        embed: 16,
        activation: Activation::Relu,
        tau: 0.1,
        momentum: 0.9,
        queue: 128,
    };
    let r = train::<f32>(&data, &TrainConfig::new(spec.clone(), BoundSpec::InfoNce, 32, 1500)).unwrap();
    // InfoNCE over N + K candidates can never exceed log(N + K) (= log 160 once the queue is full).
    assert!(r.trace.iter().all(|s| s.value <= (160f64).ln() + 1e-9));
    let tail = r.tail(0.2).unwrap();
    let se = tail.std / ((tail.to - tail.from) as f64).sqrt();
    println!("MoCo InfoNCE: {:.3} ± {:.3} (I = 1)", tail.mean, tail.std);
    // A lower bound on I (≤ I + 3 se) that has learned the dependence (> 0 by many se).
    assert!(tail.mean <= 1.0 + 3.0 * se && tail.mean > 10.0 * se, "{tail:?}");
    // Bounds that need a square matrix refuse the queue's extra columns with an error.
    assert!(train::<f32>(&data, &TrainConfig::new(spec, BoundSpec::Nwj, 32, 20)).is_err());
}
