//! Every bound's hand-written gradient against central finite differences (f64).

use crate::common;

use common::{assert_grad_close, numeric_grad, random_matrix};
use mibound::bounds::{
    BarberAgakov, Bound, Club, ClubSample, Dv, InfoNce, Interpolated, Js, LeaveOneOut, LogBaseline, Mine, Nce, Nwj,
    Smile, Symmetrised, Tuba,
};
use nalgebra::DMatrix;

const H: f64 = 1e-5;
const SIZES: [usize; 4] = [2, 3, 5, 12];

/// Checks `∂ objective / ∂S` of a stateless bound built fresh by `make`.
fn check(what: &str, make: impl Fn(usize) -> Box<dyn Bound<f64>>, scale: f64) {
    for (k, &n) in SIZES.iter().enumerate() {
        let s = random_matrix(n, n, scale, 100 + k as u64);
        let mut grad = DMatrix::zeros(n, n);
        make(n).evaluate(&s, &mut grad).unwrap();
        let numeric = numeric_grad(&s, H, |m| {
            let mut g = DMatrix::zeros(n, n);
            make(n).evaluate(m, &mut g).unwrap().objective
        });
        assert_grad_close(&format!("{what} N={n}"), &grad, &numeric);
    }
}

fn baseline(n: usize) -> LogBaseline<f64> {
    LogBaseline::PerSample((0..n).map(|j| 0.3 * j as f64 - 0.4).collect())
}

#[test]
fn infonce_gradient() {
    check("infonce", |_| Box::new(InfoNce::<f64>::new()), 1.5);
}

#[test]
fn symmetrised_gradients() {
    check("symmetrised infonce", |_| Box::new(Symmetrised::new(Box::new(InfoNce::<f64>::new()))), 1.5);
    check("symmetrised nwj", |_| Box::new(Symmetrised::new(Box::new(Nwj::new()))), 1.0);
}

#[test]
fn symmetrised_infonce_averages_the_two_orientations() {
    // ½ (I_NCE(S) + I_NCE(Sᵀ)): on a non-symmetric S the two orientations differ.
    let s = random_matrix(5, 5, 1.5, 7);
    let mut g = DMatrix::zeros(5, 5);
    let row = InfoNce::<f64>::new().evaluate(&s, &mut g).unwrap().value;
    let col = InfoNce::<f64>::new().evaluate(&s.transpose(), &mut g).unwrap().value;
    assert!((row - col).abs() > 1e-3, "the test matrix must tell the orientations apart");
    let sym = Symmetrised::new(Box::new(InfoNce::<f64>::new())).evaluate(&s, &mut g).unwrap().value;
    assert!((sym - 0.5 * (row + col)).abs() < 1e-12);
}

#[test]
fn nwj_gradient() {
    check("nwj", |_| Box::new(Nwj::new()), 1.0);
}

#[test]
fn tuba_gradient_with_per_sample_baseline() {
    check("tuba", |n| Box::new(Tuba::new(baseline(n))), 1.0);
}

#[test]
fn dv_gradient() {
    check("dv", |_| Box::new(Dv::new()), 1.5);
}

#[test]
fn js_gradient_is_the_f_gan_objective() {
    check("js", |_| Box::new(Js::new()), 2.0);
    check("js-shifted", |_| Box::new(Js::shifted()), 2.0);
}

#[test]
fn smile_gradient_is_the_f_gan_objective() {
    check("smile", |_| Box::new(Smile::new(1.0).unwrap()), 2.0);
}

#[test]
fn interpolated_gradient_for_several_alpha() {
    for alpha in [0.0, 0.01, 0.3, 0.5, 1.0] {
        check(&format!("interpolated α={alpha}"), |n| Box::new(Interpolated::new(alpha, baseline(n)).unwrap()), 1.5);
    }
}

#[test]
fn interpolated_gradient_with_a_dominant_column_entry() {
    // One score far above the rest of its column: the leave-one-out sums must not cancel.
    for alpha in [0.2, 1.0] {
        check(
            &format!("interpolated dominant α={alpha}"),
            |n| Box::new(Interpolated::new(alpha, baseline(n)).unwrap()),
            1.0,
        );
        let mut s = random_matrix(6, 6, 1.0, 9);
        s[(2, 3)] = 30.0;
        let mut grad = DMatrix::zeros(6, 6);
        let make = || Interpolated::new(alpha, baseline(6)).unwrap();
        make().evaluate(&s, &mut grad).unwrap();
        let numeric = numeric_grad(&s, H, |m| make().value(m).unwrap());
        assert_grad_close("interpolated dominant entry", &grad, &numeric);
    }
}

#[test]
fn nce_gradient() {
    check("nce", |n| Box::new(Nce::new((0..n).map(|j| -0.5 - 0.1 * j as f64).collect())), 1.5);
}

#[test]
fn mine_gradient_holds_the_moving_average_fixed() {
    for (k, &n) in SIZES.iter().enumerate() {
        let mut mine = Mine::new(0.1).unwrap();
        // Give the average a history so it differs from the current batch's partition.
        let warm = random_matrix(n, n, 1.0, 7);
        Bound::<f64>::value(&mut mine, &warm).unwrap();
        let s = random_matrix(n, n, 1.0, 200 + k as u64);
        let mut grad = DMatrix::zeros(n, n);
        mine.evaluate(&s, &mut grad).unwrap();
        let m = mine.log_ema.unwrap().exp();
        // The MINE surrogate with m_t held fixed: mean diag S − mean_{i≠j} e^{S_ij} / m_t.
        let surrogate = |x: &DMatrix<f64>| {
            let diag = (0..n).map(|i| x[(i, i)]).sum::<f64>() / n as f64;
            let off: f64 = (0..n)
                .flat_map(|i| (0..n).map(move |j| (i, j)))
                .filter(|(i, j)| i != j)
                .map(|(i, j)| x[(i, j)].exp())
                .sum();
            diag - off / (n * (n - 1)) as f64 / m
        };
        let numeric = numeric_grad(&s, H, surrogate);
        assert_grad_close(&format!("mine N={n}"), &grad, &numeric);
    }
}

#[test]
fn nce_binary_loss_gradient() {
    let s_noise = [0.3, -1.2, 2.0];
    let log_q = [-0.5, -1.0, -2.5];
    let mut g = [0.0; 3];
    let (_, g0) = mibound::bounds::nce_binary_loss(0.7, -1.1, &s_noise, &log_q, &mut g).unwrap();
    let f = |s0: f64, sn: &[f64]| mibound::bounds::nce_binary_loss(s0, -1.1, sn, &log_q, &mut [0.0; 3]).unwrap().0;
    let num0 = (f(0.7 + H, &s_noise) - f(0.7 - H, &s_noise)) / (2.0 * H);
    assert!((g0 - num0).abs() < 1e-7, "positive: {g0} vs {num0}");
    for k in 0..3 {
        let (mut up, mut down) = (s_noise, s_noise);
        up[k] += H;
        down[k] -= H;
        let num = (f(0.7, &up) - f(0.7, &down)) / (2.0 * H);
        assert!((g[k] - num).abs() < 1e-7, "noise {k}: {} vs {num}", g[k]);
    }
}

#[test]
fn upper_bounds_and_ba_train_by_maximum_likelihood() {
    check("club", |_| Box::new(Club), 1.0);
    check("club-sample", |_| Box::new(ClubSample::new(3)), 1.0);
    check("loo", |_| Box::new(LeaveOneOut), 1.0);
    check("ba", |_| Box::new(BarberAgakov::new(2.5).unwrap()), 1.0);
}

/// `∂ objective / ∂ ln a(y_j)` of TUBA and I_α (what a learned baseline backpropagates) against
/// central differences in each baseline entry, including a dominant column entry.
#[test]
fn log_baseline_gradients_of_tuba_and_interpolated() {
    type Maker = Box<dyn Fn(Vec<f64>) -> Box<dyn Bound<f64>>>;
    let makers: Vec<(&str, Maker)> = vec![
        ("tuba", Box::new(|a| Box::new(Tuba::new(LogBaseline::PerSample(a))))),
        ("I_0", Box::new(|a| Box::new(Interpolated::new(0.0, LogBaseline::PerSample(a)).unwrap()))),
        ("I_0.01", Box::new(|a| Box::new(Interpolated::new(0.01, LogBaseline::PerSample(a)).unwrap()))),
        ("I_0.5", Box::new(|a| Box::new(Interpolated::new(0.5, LogBaseline::PerSample(a)).unwrap()))),
        ("I_0.99", Box::new(|a| Box::new(Interpolated::new(0.99, LogBaseline::PerSample(a)).unwrap()))),
    ];
    for (name, make) in &makers {
        for (k, &n) in SIZES.iter().enumerate() {
            let mut s = random_matrix(n, n, 1.5, 300 + k as u64);
            if n > 3 {
                s[(1, 2)] = 12.0;
            }
            let a: Vec<f64> = (0..n).map(|j| 0.4 * (j as f64).sin() - 0.2).collect();
            let mut b = make(a.clone());
            b.evaluate(&s, &mut DMatrix::zeros(n, n)).unwrap();
            let analytic = b.log_baseline_grad().to_vec();
            assert!(b.takes_log_baseline() && analytic.len() == n, "{name}");
            // set_log_baseline must give the same gradient as construction with the same values.
            let mut b2 = make(vec![0.0; n]);
            b2.set_log_baseline(&a).unwrap();
            b2.evaluate(&s, &mut DMatrix::zeros(n, n)).unwrap();
            assert_eq!(b2.log_baseline_grad(), &analytic[..], "{name}: set_log_baseline");
            let objective = make(a.clone()).evaluate(&s, &mut DMatrix::zeros(n, n)).unwrap().objective;
            for j in 0..n {
                let at = |d: f64| {
                    let mut a2 = a.clone();
                    a2[j] += d;
                    make(a2).evaluate(&s, &mut DMatrix::zeros(n, n)).unwrap().objective
                };
                let numeric = (at(H) - at(-H)) / (2.0 * H);
                // Truncation (h²/6 times a third derivative of order one: below 1e-10) plus
                // the rounding of the two evaluations, each within 16 ulp of |objective|
                // (about 7·10³ with the entry of 12), divided by 2h.
                let tol = 1e-7 * numeric.abs().max(1.0) + 16.0 * f64::EPSILON * (objective.abs() + 1.0) / (2.0 * H);
                assert!((analytic[j] - numeric).abs() < tol, "{name} N={n} a_{j}: {} vs {numeric}", analytic[j]);
            }
        }
    }
    // Bounds without a baseline refuse one and report no gradient.
    let mut nwj = Nwj::new();
    assert!(Bound::<f64>::set_log_baseline(&mut nwj, &[0.0, 0.0]).is_err());
    assert!(Bound::<f64>::log_baseline_grad(&nwj).is_empty());
}
