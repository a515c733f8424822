//! The learned log-baseline `ln a(y)` of TUBA and I_α: its parameter gradient through the
//! bound against finite differences, and its wiring into training.

use crate::common;

use common::{assert_param_grads, random_matrix};
use mibound::bounds::{Bound, BoundSpec, Interpolated, LogBaseline, Tuba};
use mibound::critics::CriticSpec;
use mibound::optim::AdamConfig;
use mibound::tasks::Parametric;
use mibound::train::{BaselineSpec, Data, LearnedBaseline, Schedule, TrainConfig, train};
use nalgebra::DMatrix;

/// Builds a fresh bound.
type Maker = Box<dyn Fn() -> Box<dyn Bound<f64>>>;

/// ∂objective/∂θ of the baseline network (MLP 3 → 5 → 1 on y), chained through the bound's
/// `∂objective/∂ln a(y_j)`, against central differences of the objective in every parameter.
#[test]
fn learned_baseline_gradient_through_tuba_and_interpolated() {
    let n = 6;
    let y = random_matrix(n, 3, 1.0, 11);
    let s = random_matrix(n, n, 1.5, 12);
    let makers: Vec<(&str, Maker)> = vec![
        ("tuba", Box::new(|| Box::new(Tuba::new(LogBaseline::Constant(0.0))))),
        ("I_0.01", Box::new(|| Box::new(Interpolated::new(0.01, LogBaseline::Constant(0.0)).unwrap()))),
        ("I_0.5", Box::new(|| Box::new(Interpolated::new(0.5, LogBaseline::Constant(0.0)).unwrap()))),
    ];
    for (name, make) in &makers {
        let mut base =
            LearnedBaseline::<f64>::new(&BaselineSpec { hidden: vec![5] }, 3, AdamConfig::default(), 3).unwrap();
        // Non-zero output weights, so every layer's gradient is exercised.
        let p0: Vec<f64> = random_matrix(base.params.len(), 1, 0.7, 13).iter().copied().collect();
        base.params.copy_from_slice(&p0);
        let mut bound = make();
        base.forward(&y, bound.as_mut()).unwrap();
        bound.evaluate(&s, &mut DMatrix::zeros(n, n)).unwrap();
        base.backward(&y, bound.as_ref()).unwrap();
        let grads = base.grads().to_vec();
        assert_param_grads(name, &p0, &grads, |p| {
            base.params.copy_from_slice(p);
            let mut b = make();
            base.forward(&y, b.as_mut()).unwrap();
            b.evaluate(&s, &mut DMatrix::zeros(n, n)).unwrap().objective
        });
    }
}

/// A learned baseline is only for bounds that take one, and it trains: 300 steps of TUBA with
/// a learned baseline on a 2-nat Gaussian give finite values and a label that says so.
#[test]
fn learned_baseline_trains_with_tuba_and_is_refused_elsewhere() {
    let data = Data::stream(Parametric::Gaussian { dim: 5 }, Schedule::Constant { mi: 2.0 }).unwrap();
    let mut cfg = TrainConfig::new(CriticSpec::poole_separable(), BoundSpec::Tuba { log_baseline: 0.0 }, 32, 300);
    cfg.learned_baseline = Some(BaselineSpec { hidden: vec![32] });
    let r = train::<f32>(&data, &cfg).unwrap();
    assert!(r.trace.iter().all(|s| s.value.is_finite()));
    assert!(r.meta.bound_label.contains("learned a(y)"), "{}", r.meta.bound_label);
    cfg.bound = BoundSpec::InfoNce;
    assert!(train::<f32>(&data, &cfg).is_err(), "InfoNCE takes no baseline");
}
