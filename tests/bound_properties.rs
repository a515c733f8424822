//! Properties that hold for every score matrix: InfoNCE ≤ log N, gradients that sum as the
//! formulas say, and no overflow at |S| = 200 in f32.

use mibound::bounds::{Bound, BoundSpec, InfoNce, Interpolated, LogBaseline};
use nalgebra::DMatrix;
use proptest::prelude::*;

fn all_specs() -> Vec<BoundSpec> {
    [
        "infonce",
        "nwj",
        "tuba:0.5",
        "dv",
        "mine:0.1",
        "js",
        "js-shifted",
        "smile:5",
        "smile:inf",
        "interpolated:0.01",
        "interpolated:0.7",
    ]
    .iter()
    .map(|s| BoundSpec::parse(s).unwrap())
    .collect()
}

fn matrix(n: usize) -> impl Strategy<Value = DMatrix<f64>> {
    prop::collection::vec(-80.0f64..80.0, n * n).prop_map(move |v| DMatrix::from_vec(n, n, v))
}

/// A dominant diagonal in [20, 80] and off-diagonal scores in [−80, −20].
fn near_ceiling(n: usize) -> impl Strategy<Value = DMatrix<f64>> {
    (prop::collection::vec(20.0f64..80.0, n), prop::collection::vec(-80.0f64..-20.0, n * n))
        .prop_map(move |(d, o)| DMatrix::from_fn(n, n, |i, j| if i == j { d[i] } else { o[i * n + j] }))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// InfoNCE = mean_i log(e^{S_ii} / ((1/N) Σ_j e^{S_ij})) and e^{S_ii} ≤ Σ_j e^{S_ij}, so the
    /// value can never exceed log N, whatever the critic.
    #[test]
    fn infonce_never_exceeds_log_n(s in (2usize..40).prop_flat_map(matrix)) {
        let n = s.nrows() as f64;
        let v = InfoNce::<f64>::new().value(&s).unwrap();
        prop_assert!(v <= n.ln() + 1e-12, "InfoNCE {} > log N {}", v, n.ln());
        let v32 = InfoNce::<f32>::new().value(&s.map(|x| x as f32)).unwrap();
        // f32 rounding of the inputs moves the value by at most a few ulps of |S| ≤ 80.
        prop_assert!(v32 <= n.ln() + 1e-4, "f32 InfoNCE {} > log N {}", v32, n.ln());
    }

    /// I_α's ceiling per batch. Its positive term `S_ii − B_ki` has `B_ki ≥ log(α e^{S_ii}/(N−1))`
    /// (column i without row k still holds the positive), so it is at most `log((N−1)/α)`; the
    /// partition term is `1 − (non-negative)`. Hence `I_α ≤ 1 + log((N−1)/α)` for every critic
    /// and baseline: above the `log(N/α)` one might expect, which the α = 0.99 staircase exceeds.
    /// Uniform random matrices sit far below the ceiling, so half the cases are drawn near it:
    /// a diagonal in [20, 80], off-diagonal scores in [−80, −20] and `ln a` between them, where
    /// the value is within a fraction of a nat of the ceiling (checked below), so that an error
    /// in the leave-one-out normalisation (N instead of N − 1) would cross it.
    #[test]
    fn interpolated_never_exceeds_one_plus_log_n_minus_one_over_alpha(
        (s, near) in prop_oneof![
            (3usize..30).prop_flat_map(matrix).prop_map(|s| (s, false)),
            (3usize..30).prop_flat_map(near_ceiling).prop_map(|s| (s, true)),
        ],
        alpha in 0.01f64..0.99,
        a in -40.0f64..40.0,
    ) {
        let n = s.nrows() as f64;
        let a = if near { a / 4.0 } else { a };
        let v = Interpolated::<f64>::new(alpha, LogBaseline::Constant(a)).unwrap().value(&s).unwrap();
        let ceiling = 1.0 + ((n - 1.0) / alpha).ln();
        prop_assert!(v <= ceiling + 1e-9, "I_α {} > 1 + log((N−1)/α) = {}", v, ceiling);
        if near {
            prop_assert!(v > ceiling - 0.5, "near-ceiling case at {} for ceiling {}", v, ceiling);
        }
    }

    /// Each InfoNCE gradient row sums to zero (softmax minus a one-hot, over N).
    #[test]
    fn infonce_gradient_rows_sum_to_zero(s in (2usize..20).prop_flat_map(matrix)) {
        let mut g = DMatrix::zeros(s.nrows(), s.ncols());
        InfoNce::<f64>::new().evaluate(&s, &mut g).unwrap();
        for row in g.row_iter() {
            prop_assert!(row.sum().abs() < 1e-12);
        }
    }
}

/// |S| = 200 is far past f32's `exp` range (88.7): every exponential must be shifted by a maximum.
/// Values (accumulated in f64) must be finite, and every gradient entry must be finite and agree
/// with the f64 gradient of the same scores. f32 rounds `S_ij − shift` to within
/// ulp(400) = 3·10⁻⁵, which moves an exponential by that relative amount, so 10⁻⁴ of the
/// larger of the largest gradient entry and 1/N (the size of the terms that cancel in
/// `(δ_ij − softmax)/N`-type entries) is a bound with margin. Where the exact gradient is beyond f32's range
/// (NWJ's `e^{199}/(N(N−1))`), it must saturate at ±f32::MAX with the right sign.
#[test]
fn no_overflow_at_magnitude_200_in_f32() {
    const M: f32 = 200.0;
    for n in [2usize, 7, 64] {
        for pattern in 0..4 {
            let s = DMatrix::<f32>::from_fn(n, n, |i, j| match pattern {
                0 => M,
                1 => -M,
                2 => {
                    if (i + 2 * j) % 3 == 0 {
                        M
                    } else {
                        -M
                    }
                }
                // A spread of magnitudes up to 200 (not all exponents equal).
                _ => M * (((i * 7 + j * 13) % 17) as f32 / 8.0 - 1.0),
            });
            let s64 = s.map(|v| v as f64);
            for spec in all_specs() {
                let what = format!("{spec} N={n} pattern {pattern}");
                let mut b = spec.build::<f32>().unwrap();
                let mut g = DMatrix::zeros(n, n);
                let v = b.evaluate(&s, &mut g).unwrap();
                assert!(v.value.is_finite() && v.objective.is_finite(), "{what}: {v:?}");
                let mut g64 = DMatrix::zeros(n, n);
                let v64 = spec.build::<f64>().unwrap().evaluate(&s64, &mut g64).unwrap();
                assert!((v.value - v64.value).abs() <= 1e-4 * v64.value.abs().max(1.0), "{what}: {v:?} vs {v64:?}");
                // Beyond f32's range the off-diagonal (partition) entries are all scaled by the
                // same factor, so that the largest is f32::MAX: the direction is kept.
                let largest = g64.iter().fold(1.0 / n as f64, |m, x| m.max(x.abs()));
                let ratio = (f32::MAX as f64 / largest).min(1.0);
                let scale = largest * ratio;
                for j in 0..n {
                    for i in 0..n {
                        let (a, e) = (g[(i, j)] as f64, g64[(i, j)]);
                        let want = if i == j { e } else { e * ratio };
                        assert!(a.is_finite(), "{what}: non-finite gradient");
                        assert!((a - want).abs() <= 1e-4 * scale, "{what}: gradient ({i}, {j}) {a} vs f64 {want}");
                    }
                }
            }
        }
    }
}

#[test]
fn bad_shapes_and_parameters_are_errors_not_panics() {
    let mut b = InfoNce::<f64>::new();
    // InfoNCE takes N × M with M ≥ N (extra columns are extra negatives): fewer columns than
    // rows, or a single row, is an error; the other bounds need a square matrix.
    assert!(b.value(&DMatrix::zeros(4, 3)).is_err());
    assert!(b.value(&DMatrix::zeros(1, 1)).is_err());
    assert!((b.value(&DMatrix::zeros(3, 4)).unwrap() - 0.0).abs() < 1e-12, "a constant critic gives 0 over any M");
    assert!(BoundSpec::Nwj.build::<f64>().unwrap().value(&DMatrix::zeros(3, 4)).is_err());
    for bad in ["smile:-1", "mine:0", "mine:2", "interpolated:1.5", "nosuch", "tuba", "smile:abc"] {
        let e = BoundSpec::parse(bad).unwrap_err().to_string();
        assert!(!e.is_empty(), "{bad}");
    }
    let e = BoundSpec::parse("nosuch").unwrap_err().to_string();
    assert!(e.contains("nosuch") && e.contains("infonce"), "{e}");
}

#[test]
fn gradient_buffer_of_the_wrong_shape_is_resized() {
    let s = DMatrix::<f64>::identity(4, 4);
    let mut g = DMatrix::zeros(1, 1);
    InfoNce::new().evaluate(&s, &mut g).unwrap();
    assert_eq!(g.shape(), (4, 4));
}

#[test]
fn vectorised_f32_exp_is_within_two_ulp_of_the_library() {
    let xs: Vec<f32> = (0..200_001).map(|k| -87.0 + 175.0 * k as f32 / 200_000.0).collect();
    let mut v = xs.clone();
    mibound::numerics::exp_in_place(&mut v);
    for (x, e) in xs.iter().zip(&v) {
        let want = (*x as f64).exp();
        let rel = ((*e as f64) - want).abs() / want;
        // The Taylor truncation (< 1.3e-8) plus a few f32 roundings: below 2.5e-7 = 2 ulp.
        assert!(rel < 2.5e-7, "exp({x}) = {e}, want {want}, relative error {rel:e}");
    }
    let mut edge = [-100.0f32, 100.0, 0.0, f32::NEG_INFINITY];
    mibound::numerics::exp_in_place(&mut edge);
    assert_eq!(edge, [0.0, f32::INFINITY, 1.0, 0.0]);
}

/// The ceiling above is approached: a critic with a dominant diagonal (S_ii = 30, others −30) and
/// a baseline between them (ln a = 0, so the negatives' partition term `e^{S_ki − B_ii}` is
/// about `e^{−30}/(1 − α)`) reads `1 + log((N−1)/α)` to within such terms, so the `log(N/α)`
/// sometimes quoted for I_α is not a ceiling of this leave-one-out form (N = 64, α = 0.99:
/// 5.153 against 4.169). It is a supremum, approached (the partition term is always positive)
/// for 0 < α < 1; at α = 1 the partition term is exactly 1 and the supremum is log(N − 1).
#[test]
fn interpolated_ceiling_is_approached() {
    for (n, alpha) in [(64usize, 0.99), (64, 0.5), (8, 0.01)] {
        let s = DMatrix::<f64>::from_fn(n, n, |i, j| if i == j { 30.0 } else { -30.0 });
        let v = Interpolated::<f64>::new(alpha, LogBaseline::Constant(0.0)).unwrap().value(&s).unwrap();
        let ceiling = 1.0 + ((n as f64 - 1.0) / alpha).ln();
        assert!((v - ceiling).abs() < 1e-6, "n {n} α {alpha}: I_α {v}, ceiling {ceiling}");
        // The gap is 1 + log(1 − 1/N) ≥ 0.86 for N ≥ 8.
        assert!(v > (n as f64 / alpha).ln() + 0.85, "n {n} α {alpha}: I_α {v} not above log(N/α)");
    }
}
