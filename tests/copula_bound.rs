//! The copula estimate as a lower bound (`estimators::classical::normality`): where each side's
//! normal scores are jointly normal it is one, and beside `auto`'s neural bound it is the
//! headline where it reads more; where a side is not normal (heavy tails, a low-dimensional
//! latent embedded in many columns) the tests say so and it stays an estimate.

use mibound::data::{CorrelatedGaussian, Sampler, rng};
use mibound::estimators::classical::Copula;
use mibound::estimators::classical::normality::side_normality;
use mibound::estimators::{Estimator, EstimatorSpec, Kind, Settings, compare};
use mibound::tasks::random_orthogonal;
use nalgebra::DMatrix;

/// `n` rows of the `d + d` Gaussian with MI `mi`, each side turned by a Haar-random rotation
/// (the MI spread over every coordinate, as in a learned representation).
fn rotated(n: usize, d: usize, mi: f64, seed: u64) -> (DMatrix<f64>, DMatrix<f64>) {
    let (x, y) = CorrelatedGaussian::with_mi(d, mi).unwrap().sample(n, &mut rng(seed));
    (x * random_orthogonal(d, 100 + seed).transpose(), y * random_orthogonal(d, 200 + seed).transpose())
}

/// The level: each side fails one of its two tests (1 % each) with probability at most about
/// 2 %; of 40 normal sides (20 seeds of 8 + 8), 4 or more fail with probability 0.9 % at that
/// rate (binomial). Measured: `cargo run --release --example normality_tests -- null 20` had
/// none of 240 sides fail, from 5 + 5 to 256 + 256.
#[test]
fn normal_sides_pass_at_the_tests_level() {
    let failed: usize = (0..20)
        .map(|seed| {
            let (x, y) = rotated(2000, 8, 1.0, seed);
            usize::from(!side_normality(x.as_view()).passes()) + usize::from(!side_normality(y.as_view()).passes())
        })
        .sum();
    assert!(failed <= 3, "{failed} of 40 normal sides failed");
}

/// Heavy tails (a multivariate Student-t, ν = 3) and a 4-dimensional latent pair embedded in
/// 32 columns a side (`tanh(A z)`, which the normal scores turn back into a rank-4 linear map,
/// plus one more layer) fail at every seed: there the copula estimate is no bound (it reads
/// 4.4–6.6 nats for the latent pair's 2 at 128 columns, `normality_tests -- latent`).
#[test]
fn heavy_tails_and_embedded_latents_fail() {
    for seed in 0..3 {
        let (x, _) = mibound::tasks::get("student-identity-10-10-3").unwrap().draw(2000, seed).unwrap();
        assert!(!side_normality(x.as_view()).passes(), "Student-t seed {seed}");
        let (z, _) = CorrelatedGaussian::with_mi(4, 2.0).unwrap().sample(2000, &mut rng(seed));
        let a = random_orthogonal(32, seed).rows(0, 4).into_owned();
        let one = (&z * &a).map(f64::tanh);
        let two = (&one * random_orthogonal(32, 50 + seed)).map(f64::tanh);
        for (layers, m) in [(1, one), (2, two)] {
            let verdict = side_normality(m.as_view());
            assert!(!verdict.passes(), "latent, {layers} layer(s), seed {seed}: {verdict:?}");
        }
    }
}

/// On normal sides the copula estimate says it is a lower bound, and reads within its interval
/// of the truth; on Student-t sides (where it reads the Gaussian part only) it says it is an
/// estimate.
#[test]
fn the_copula_estimate_says_when_it_is_a_bound() {
    let (x, y) = rotated(3000, 6, 1.0, 3);
    let e = Copula::default().estimate(x.as_view(), y.as_view(), 0).unwrap();
    assert_eq!(e.kind, Kind::Lower);
    assert!(e.interval.low < 1.0 && 1.0 < e.interval.high, "{:?}", e.interval);
    let (x, y) = mibound::tasks::get("student-sparse-5-5-2-2-2.0").unwrap().draw(3000, 0).unwrap();
    assert_eq!(Copula::default().estimate(x.as_view(), y.as_view(), 0).unwrap().kind, Kind::Estimate);
}

/// The case (#53): 256 + 256 rotated Gaussian dimensions with I = 4 nats on 10⁴ rows,
/// where the held-out bound reads 1.58 (its critic fitted on 8000 rows of 512 columns is capped
/// by its own noise) and the default's headline is now the copula bound; and 64 + 64 on
/// 2·10⁴ rows. Both within 15 % of the truth (the acceptance of #53).
#[test]
#[ignore = "acceptance (minutes): run by .ci/run with --ignored"]
fn representation_sized_gaussians_read_within_fifteen_percent() {
    for (n, d) in [(10_000, 256), (20_000, 64)] {
        let (x, y) = rotated(n, d, 4.0, 0);
        let c = compare(&[EstimatorSpec::Auto], &Settings::default(), x.as_view(), y.as_view(), 0, None).unwrap();
        let h = c.headline().unwrap();
        assert!((h.value - 4.0).abs() <= 0.6, "{d} + {d}: {} read {:.3}", h.estimator, h.value);
        assert_eq!(h.kind, Kind::Lower);
    }
}

/// The copula bound's interval (100 half-sample refits) covers the truth: over 100 data sets of
/// 8 + 8 rotated Gaussian dimensions with I = 1 on 2000 rows, at least 88 of 100 (at a true
/// coverage of 95 %, fewer than 88 has probability 0.6 %, binomial). Measured: 93 of 100.
#[test]
fn the_copula_bounds_interval_covers_the_truth() {
    let covered = (0..100)
        .filter(|&seed| {
            let (x, y) = rotated(2000, 8, 1.0, 1000 + seed);
            let e = Copula::default().estimate(x.as_view(), y.as_view(), seed).unwrap();
            e.interval.low <= 1.0 && 1.0 <= e.interval.high
        })
        .count();
    assert!(covered >= 88, "{covered} of 100 intervals cover the truth");
}

/// `auto` adds the copula estimate only where it could be a bound, and never fails a call for
/// it: columns with tied values (pixels of a few levels, where its correlation matrix was
/// singular on digit images and the whole call failed) leave it out of the plan; a column
/// repeated in other units (no ties, a singular correlation matrix of normal scores) leaves it
/// out of the results, while asked for by name it is refused with the reason.
#[test]
fn the_copula_estimate_is_left_out_where_it_cannot_be_fitted() {
    let specs = EstimatorSpec::parse_list("auto").unwrap();
    let names = |c: &mibound::estimators::Comparison| -> Vec<String> {
        c.estimates.iter().map(|e| e.estimator.clone()).collect()
    };
    let (x, y) = rotated(3000, 6, 1.0, 0);
    let mut s = Settings::default();
    s.neural.max_steps = 100;
    let all = compare(&specs, &s, x.as_view(), y.as_view(), 0, None).unwrap();
    assert!(names(&all).contains(&"copula".to_string()), "{:?}", names(&all));
    // Ties: x rounded to one decimal.
    let rounded = x.map(|v| (v * 10.0).round() / 10.0);
    let tied = compare(&specs, &s, rounded.as_view(), y.as_view(), 0, None).unwrap();
    assert!(!names(&tied).contains(&"copula".to_string()), "{:?}", names(&tied));
    // A column twice, in other units: no ties, but the same normal scores, so that the
    // copula's correlation matrix is singular.
    let mut summed = x.clone();
    let twice = x.column(0) * 2.54;
    summed.set_column(2, &twice);
    let c = compare(&specs, &s, summed.as_view(), y.as_view(), 0, None).unwrap();
    assert!(!names(&c).contains(&"copula".to_string()), "{:?}", names(&c));
    assert!(c.headline().is_some());
    let asked = EstimatorSpec::parse_list("infonce,copula").unwrap();
    assert!(compare(&asked, &s, summed.as_view(), y.as_view(), 0, None).is_err());
}
