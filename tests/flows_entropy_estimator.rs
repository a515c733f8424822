//! The `flow-entropy` estimator (three-flow entropy difference) behind the `Estimator`
//! interface: its name parses and prints canonically, it runs through `EstimatorSpec::build` on a
//! Gaussian task with known MI, the same seed gives the same numbers, and bad input is a typed
//! error.
//!
//! `cargo test --release --test suite flows_entropy_estimator:: -- --nocapture`.

use mibound::Error;
use mibound::data::{CorrelatedGaussian, Sampler, rng};
use mibound::error::{Column, InputError, Row};
use mibound::estimators::flow::FlowEntropy;
use mibound::estimators::{Estimator, EstimatorSpec, Kind, Settings};
use nalgebra::DMatrix;

fn parse(s: &str) -> EstimatorSpec {
    EstimatorSpec::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

#[test]
fn names_round_trip() {
    for (name, steps) in [
        ("flow-entropy", 4000),
        (" flow-entropy ", 4000),
        ("flow-entropy:steps=4000", 4000),
        ("flow-entropy:500", 500),
        ("flow-entropy:steps=500", 500),
    ] {
        assert_eq!(parse(name), EstimatorSpec::FlowEntropy { steps }, "{name}");
    }
    // `flow` is still the Gaussianisation estimator.
    assert_eq!(parse("flow"), EstimatorSpec::Flow { steps: 4000 });
    assert_eq!(parse("flow:steps=7"), EstimatorSpec::Flow { steps: 7 });
    for (spec, name) in [
        (EstimatorSpec::FlowEntropy { steps: 4000 }, "flow-entropy"),
        (EstimatorSpec::FlowEntropy { steps: 300 }, "flow-entropy:steps=300"),
    ] {
        assert_eq!(spec.to_string(), name);
        assert_eq!(parse(name), spec, "{name} does not parse back");
        let built = spec.build(&Settings::default()).unwrap();
        assert_eq!(built.name(), name);
        assert_eq!(built.kind(), Kind::Estimate);
        let json = serde_json::to_string(&spec).unwrap();
        assert!(json.contains("\"flow-entropy\""), "{json}");
        assert_eq!(serde_json::from_str::<EstimatorSpec>(&json).unwrap(), spec, "{json}");
    }
    let list = EstimatorSpec::parse_list("flow-entropy,flow,ksg").unwrap();
    assert_eq!(list[0], EstimatorSpec::FlowEntropy { steps: 4000 });
    assert_eq!(list[1], EstimatorSpec::Flow { steps: 4000 });
    assert!(EstimatorSpec::NAMES.contains("flow-entropy[:steps=N]"));
}

#[test]
fn bad_names_are_typed_errors() {
    for bad in ["flow-entropy:steps=0", "flow-entropy:0", "flow-entropy:steps=x", "flow-entropy:-3", "flow-entropy:k=5"]
    {
        assert!(
            matches!(EstimatorSpec::parse(bad), Err(Error::Parameter { .. })),
            "{bad}: {:?}",
            EstimatorSpec::parse(bad)
        );
    }
    for bad in ["flow-entropyx", "flowentropy", "flow-entropy-"] {
        assert!(
            matches!(EstimatorSpec::parse(bad), Err(Error::Unknown { .. })),
            "{bad}: {:?}",
            EstimatorSpec::parse(bad)
        );
    }
    assert!(matches!(FlowEntropy::new(0), Err(Error::Parameter { .. })));
}

/// 2 + 2-d Gaussian with I = 1 nat, n = 4000 (800 test rows), the default architecture (8 blocks
/// of 16 × 16 couplings) with 600 steps per flow. A Gaussian is inside every flow's family, so the
/// three KL gaps are small and the estimate should be within its own sampling error of the truth:
/// `|Î − 1| ≤ 3·se`, with se the estimator's own standard error (the per-row sd over √n_test,
/// 0.037–0.041 here), and the reported 95 % interval must be `Î ± 1.96·se`. Measured spread
/// (`gaussian_2d_mi_1_spread_over_seeds`, seeds 0–4 of data and training): 0.948, 0.981, 0.985,
/// 1.049, 1.042, the worst 0.052 = 1.3 se from the truth, so 3·se (≈ 0.12) leaves room for that
/// spread while a reading of 0.85 (or of 0) fails.
#[test]
fn gaussian_2d_mi_1_through_the_trait() {
    let truth = 1.0;
    let (x, y) = CorrelatedGaussian::with_mi(2, truth).unwrap().sample(4000, &mut rng(7));
    let est = parse("flow-entropy:steps=600").build(&Settings::default()).unwrap();
    let e = est.estimate(x.as_view(), y.as_view(), 0).unwrap();
    let se = e.diagnostics.values["se"];
    eprintln!(
        "flow-entropy: {:.4} [{:.4}, {:.4}] se {se:.4}, train {:.4}, {:?}, {:.1} s",
        e.value,
        e.interval.low,
        e.interval.high,
        e.diagnostics.values["train_mi"],
        e.diagnostics.warnings,
        e.wall_seconds
    );
    assert_eq!(e.estimator, "flow-entropy:steps=600");
    assert_eq!(e.kind, Kind::Estimate);
    assert_eq!((e.n_samples, e.dim_x, e.dim_y), (4000, 2, 2));
    assert!(se > 0.0 && se < 0.1, "standard error {se}");
    assert!((e.interval.low - (e.value - 1.96 * se)).abs() < 1e-12);
    assert!((e.interval.high - (e.value + 1.96 * se)).abs() < 1e-12);
    assert!(e.interval.method.contains("800 held-out"), "{}", e.interval.method);
    assert!((e.value - truth).abs() <= 3.0 * se, "estimate {} vs true {truth} (se {se})", e.value);
    assert!(!e.diagnostics.diverged);
    assert!(e.diagnostics.steps.unwrap() > 0);

    // Same seed → the same numbers; another seed → another split and training.
    let again = est.estimate(x.as_view(), y.as_view(), 0).unwrap();
    assert_eq!((again.value, again.interval.low, again.interval.high), (e.value, e.interval.low, e.interval.high));
    assert_eq!(again.diagnostics.values, e.diagnostics.values);
    let other = est.estimate(x.as_view(), y.as_view(), 1).unwrap();
    assert_ne!(other.value, e.value);
}

#[test]
fn bad_input_is_a_typed_error() {
    let est = FlowEntropy::new(10).unwrap();
    let x = DMatrix::from_fn(100, 2, |i, j| ((i * 7 + j * 3) % 11) as f64);
    let short = x.rows(0, 50).into_owned();
    assert!(matches!(
        est.estimate(x.as_view(), short.as_view(), 0),
        Err(Error::Input { problem: InputError::Rows { x: 100, y: 50 }, .. })
    ));
    let mut bad = x.clone();
    bad[(3, 1)] = f64::NAN;
    assert!(matches!(
        est.estimate(x.as_view(), bad.as_view(), 0),
        Err(Error::Input {
            problem: InputError::NonFinite { row: Row { index: 3, .. }, column: Column { index: 1, .. }, .. },
            ..
        })
    ));
    let empty = DMatrix::<f64>::zeros(100, 0);
    assert!(matches!(
        est.estimate(x.as_view(), empty.as_view(), 0),
        Err(Error::Input { problem: InputError::NoColumns { .. }, .. })
    ));
    let few = x.rows(0, 5).into_owned();
    assert!(matches!(est.estimate(few.as_view(), few.as_view(), 0), Err(Error::Parameter { .. })));
}

/// How the tolerance above was set: the spread of the same estimate over seeds 0–4 (data
/// `rng(100 + s)`, training seed `s`). `cargo test --release --test suite flows_entropy_estimator:: --
/// --ignored --nocapture`.
#[test]
#[ignore]
fn gaussian_2d_mi_1_spread_over_seeds() {
    let est = parse("flow-entropy:steps=600").build(&Settings::default()).unwrap();
    for s in 0..5 {
        let (x, y) = CorrelatedGaussian::with_mi(2, 1.0).unwrap().sample(4000, &mut rng(100 + s));
        let e = est.estimate(x.as_view(), y.as_view(), s).unwrap();
        eprintln!(
            "seed {s}: {:.4} ± {:.4} (train {:.4})",
            e.value, e.diagnostics.values["se"], e.diagnostics.values["train_mi"]
        );
    }
}
