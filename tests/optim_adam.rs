//! Adam against an independently computed trajectory.
//!
//! Provenance: `python3 tests/reference/adam_reference.py` (pure Python, float64), output:
//! ```text
//! plain ['0.007963659264342', '-1.005153364337896', '1.501267531508563']
//! decay_clip ['0.251469643469692', '-1.250238444739583', '1.749852795362084']
//! ```

use mibound::optim::{Adam, AdamConfig};

fn run(config: AdamConfig) -> Vec<f64> {
    let c = [1.0, 3.0, 0.25];
    let mut p = vec![0.5, -1.5, 2.0];
    let mut adam = Adam::<f64>::new(config, 3).unwrap();
    for _ in 0..5 {
        let g: Vec<f64> = c.iter().zip(&p).map(|(c, p)| 2.0 * c * p + 1.0).collect();
        adam.step(&mut p, &g).unwrap();
    }
    p
}

fn close(got: &[f64], want: &[f64]) {
    // Same arithmetic in f64 in a different order: agreement to 1e-12 is ~10⁴ ulps of slack.
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 1e-12, "got {got:?}, reference {want:?}");
    }
}

#[test]
fn plain_trajectory_matches_reference() {
    let cfg = AdamConfig { lr: 0.1, ..AdamConfig::default() };
    close(&run(cfg), &[0.007963659264342, -1.005153364337896, 1.501267531508563]);
}

#[test]
fn weight_decay_and_clipping_trajectory_matches_reference() {
    let cfg = AdamConfig { lr: 0.05, beta1: 0.8, beta2: 0.99, eps: 1e-6, weight_decay: 0.1, max_grad_norm: Some(1.0) };
    close(&run(cfg), &[0.251469643469692, -1.250238444739583, 1.749852795362084]);
}

#[test]
fn default_is_the_poole_benchmark_setting() {
    let d = AdamConfig::default();
    assert_eq!((d.lr, d.beta1, d.beta2, d.eps, d.weight_decay, d.max_grad_norm), (5e-4, 0.9, 0.999, 1e-8, 0.0, None));
}

#[test]
fn non_finite_gradients_and_bad_configs_are_errors() {
    let mut adam = Adam::<f32>::new(AdamConfig::default(), 2).unwrap();
    let mut p = [1.0f32, 2.0];
    assert!(adam.step(&mut p, &[f32::NAN, 0.0]).is_err());
    assert_eq!(p, [1.0, 2.0], "parameters untouched");
    assert!(adam.step(&mut p, &[1.0]).is_err());
    assert!(Adam::<f32>::new(AdamConfig { lr: -1.0, ..AdamConfig::default() }, 2).is_err());
    assert!(Adam::<f32>::new(AdamConfig { beta2: 1.0, ..AdamConfig::default() }, 2).is_err());
}

#[test]
fn ascending_an_objective_is_descending_its_negation_bit_for_bit() {
    // f32 with decay and clipping active, long enough for the AVX2 body and its remainder.
    let config = AdamConfig { weight_decay: 0.01, max_grad_norm: Some(0.5), ..AdamConfig::default() };
    let n = 1000;
    let (mut up, mut down) = (vec![0.0f32; n], vec![0.0f32; n]);
    for (i, (u, d)) in up.iter_mut().zip(down.iter_mut()).enumerate() {
        *u = (i as f32 * 0.37).sin();
        *d = *u;
    }
    let (mut a, mut b) = (Adam::<f32>::new(config.clone(), n).unwrap(), Adam::<f32>::new(config, n).unwrap());
    for step in 0..5 {
        let g: Vec<f32> = (0..n).map(|i| ((i + step) as f32 * 0.11).cos() * 0.3).collect();
        let neg: Vec<f32> = g.iter().map(|v| -v).collect();
        a.ascend(&mut up, &g).unwrap();
        b.step(&mut down, &neg).unwrap();
    }
    assert!(up == down, "ascend(g) and step(−g) differ");
    assert!(up.iter().zip((0..n).map(|i| (i as f32 * 0.37).sin())).any(|(p, p0)| *p != p0), "parameters moved");
}
