//! `compare`'s classical cross-check: the headline lower bound against KSG, or against the
//! copula estimate when no KSG was asked for, found by the estimators' specs (not their
//! names), with a warning when the check reads more on the data than on a Gaussian of the same
//! shape whose MI is the lower bound's plus a quarter (`estimators::reference`).

use mibound::data::{CorrelatedGaussian, Sampler, rng};
use mibound::estimators::{EstimatorSpec, Settings, WarningCode, compare};

/// 2 + 2 dimensions with 1.5 nats, and an InfoNCE critic trained for 2 steps (and no
/// nearest-neighbour, random-walk or Gaussian candidate, which need no training): its held-out bound
/// stays near 0 while KSG and the copula estimate read far more, outside each other's
/// intervals. Each side is cubed and turned by 45° (`skewed`), so that its normal scores are
/// not jointly normal and the copula estimate is no lower bound (it would be the headline on
/// the Gaussian sides: `normal_sides_make_the_copula_estimate_the_headline`).
fn cross_check_warnings(estimators: &str) -> Vec<String> {
    let task = CorrelatedGaussian::with_mi(2, 1.5).unwrap();
    let (x, y) = task.sample(1000, &mut rng(4));
    let (x, y) = (skewed(&x), skewed(&y));
    let mut settings = Settings::default();
    settings.neural.max_steps = 2;
    settings.neural.candidates.knn.clear();
    settings.neural.candidates.walks.clear();
    settings.neural.candidates.elliptical.clear();
    let specs = EstimatorSpec::parse_list(estimators).unwrap();
    let c = compare(&specs, &settings, x.as_view(), y.as_view(), 0, None).unwrap();
    assert!(c.estimates[0].value < 0.5, "the barely trained bound read {}", c.estimates[0].value);
    c.warnings.into_iter().filter(|w| w.code == WarningCode::CrossCheck).map(|w| w.message).collect()
}

/// Two columns cubed, then turned by 45°: an injective map (the MI is kept) whose output's
/// normal scores are far from jointly normal.
fn skewed(m: &nalgebra::DMatrix<f64>) -> nalgebra::DMatrix<f64> {
    let c = m.map(|v| v * v * v);
    let h = std::f64::consts::FRAC_1_SQRT_2;
    c * nalgebra::DMatrix::from_row_slice(2, 2, &[h, -h, h, h])
}

#[test]
fn ksg_is_the_cross_check_wherever_it_is_listed() {
    let w = cross_check_warnings("infonce,copula,ksg:k=3:margins=normal");
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("KSG") && !w[0].contains("copula"), "{}", w[0]);
    assert!(w[0].contains("the data may hold more than it shows"), "{}", w[0]);
}

#[test]
fn without_ksg_the_copula_estimate_is_the_cross_check() {
    let w = cross_check_warnings("infonce,copula");
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].to_lowercase().contains("copula"), "{}", w[0]);
}

#[test]
fn without_a_classical_estimate_there_is_no_cross_check() {
    assert!(cross_check_warnings("infonce,gaussian").is_empty());
}

/// On the Gaussian sides themselves the copula estimate is a lower bound (each side's normal
/// scores jointly normal), reads near the 1.5 nats, and is the headline over the barely trained
/// bound; no cross-check warning is left, as the headline is not short.
#[test]
fn normal_sides_make_the_copula_estimate_the_headline() {
    use mibound::estimators::Kind;
    let (x, y) = CorrelatedGaussian::with_mi(2, 1.5).unwrap().sample(1000, &mut rng(4));
    let mut settings = Settings::default();
    settings.neural.max_steps = 2;
    settings.neural.candidates.elliptical.clear();
    let specs = EstimatorSpec::parse_list("infonce,copula,ksg").unwrap();
    let c = compare(&specs, &settings, x.as_view(), y.as_view(), 0, None).unwrap();
    let h = c.headline().unwrap();
    assert_eq!((h.estimator.as_str(), h.kind), ("copula", Kind::Lower), "{:?}", c.estimates);
    assert!(h.interval.low < 1.5 && 1.5 < h.interval.high, "{:?}", h.interval);
    assert!(c.warnings.iter().all(|w| w.code != WarningCode::CrossCheck), "{:?}", c.warnings);
    let (sx, sy) = (skewed(&x), skewed(&y));
    let c = compare(&specs, &settings, sx.as_view(), sy.as_view(), 0, None).unwrap();
    assert_eq!(c.headline().unwrap().estimator, "infonce", "skewed sides: {:?}", c.estimates);
}
