//! Distributions with analytic MI: formulas, sampling statistics, reproducibility.

use mibound::data::{CorrelatedGaussian, Sampler, SplitGaussian, Transform, Transformed, mi_to_rho, rho_to_mi, rng};
use nalgebra::DMatrix;

fn block_cov(d: usize, rho: f64) -> DMatrix<f64> {
    DMatrix::from_fn(2 * d, 2 * d, |i, j| {
        if i == j {
            1.0
        } else if i % d == j % d {
            rho
        } else {
            0.0
        }
    })
}

#[test]
fn mi_and_rho_are_inverse() {
    for d in [1, 5, 20] {
        for mi in [0.0, 0.1, 2.0, 10.0] {
            // Rounding ρ (relative ε) moves I by d·ε·ρ²/(1 − ρ²) = d·ε·ρ²·e^{2I/d}: the round trip
            // is ill-conditioned at large I per dimension, so the tolerance follows that.
            let tol = 1e-12 + 4.0 * d as f64 * f64::EPSILON * (2.0 * mi / d as f64).exp();
            let back = rho_to_mi(mi_to_rho(mi, d), d);
            assert!((back - mi).abs() < tol, "d={d} I={mi}: {back}");
        }
    }
    // I = −d/2 · log(1 − ρ²) by hand: d = 2, ρ = 0.6 → −log(0.64) = 0.4462871026.
    assert!((rho_to_mi(0.6, 2) - 0.446_287_102_628_419_5).abs() < 1e-12);
}

#[test]
fn split_gaussian_mi_matches_the_componentwise_formula() {
    let (d, rho) = (4, 0.7);
    let split = SplitGaussian::new(block_cov(d, rho), d).unwrap();
    assert!((split.true_mi() - rho_to_mi(rho, d)).abs() < 1e-12);
}

#[test]
fn split_and_correlated_gaussians_have_the_same_optimal_critic() {
    let (d, rho) = (3, 0.5);
    let split = SplitGaussian::new(block_cov(d, rho), d).unwrap();
    let corr = CorrelatedGaussian::new(d, rho).unwrap();
    let (x, y) = corr.sample(7, &mut rng(3));
    let a = split.optimal_critic(&x, &y).unwrap();
    let b = corr.optimal_critic(&x, &y).unwrap();
    assert!((a - b).amax() < 1e-10);
    let la = split.log_marginal_y(&y).unwrap();
    let lb = corr.log_marginal_y(&y).unwrap();
    assert!(la.iter().zip(&lb).all(|(p, q)| (p - q).abs() < 1e-10));
}

#[test]
fn the_optimal_critic_averages_to_the_true_mi_on_joint_samples() {
    // E_p[log p(y|x)/p(y)] = I: the diagonal mean over many samples is within 4 se of I.
    let cov = DMatrix::from_row_slice(3, 3, &[1.0, 0.5, -0.3, 0.5, 2.0, 0.4, -0.3, 0.4, 1.5]);
    let task = SplitGaussian::new(cov, 1).unwrap();
    let (x, y) = task.sample(4000, &mut rng(11));
    let mut diag = Vec::new();
    for c in 0..40 {
        let rows = c * 100..(c + 1) * 100;
        let s =
            task.optimal_critic(&x.rows(rows.start, 100).into_owned(), &y.rows(rows.start, 100).into_owned()).unwrap();
        diag.extend((0..100).map(|i| s[(i, i)]));
    }
    let n = diag.len() as f64;
    let m = diag.iter().sum::<f64>() / n;
    let se = (diag.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1.0) / n).sqrt();
    assert!((m - task.true_mi()).abs() < 4.0 * se, "mean {m} vs I {} (se {se})", task.true_mi());
}

#[test]
fn samples_have_the_requested_correlation() {
    let task = CorrelatedGaussian::new(3, 0.8).unwrap();
    let n = 20_000;
    let (x, y) = task.sample(n, &mut rng(5));
    for k in 0..3 {
        let c = x.column(k).dot(&y.column(k)) / n as f64;
        // Var of the product of unit normals with correlation ρ is 1 + ρ²; se = sqrt(1.64/n).
        let se = (1.64f64 / n as f64).sqrt();
        assert!((c - 0.8).abs() < 4.0 * se, "component {k}: {c}");
        let vx = x.column(k).norm_squared() / n as f64;
        assert!((vx - 1.0).abs() < 4.0 * (2.0 / n as f64).sqrt(), "var x {vx}");
    }
}

#[test]
fn same_seed_same_samples() {
    let task = Transformed::cubic_y(CorrelatedGaussian::with_mi(5, 2.0).unwrap());
    let a = task.sample(16, &mut rng(42));
    let b = task.sample(16, &mut rng(42));
    let c = task.sample(16, &mut rng(43));
    assert_eq!(a, b);
    assert_ne!(a.0, c.0);
}

#[test]
fn transforms_keep_the_mi_and_the_critic_of_the_base_task() {
    let base = CorrelatedGaussian::with_mi(4, 1.5).unwrap();
    let cubic = Transformed::new(base.clone(), Some(Transform::Asinh), Some(Transform::Cubic));
    assert_eq!(cubic.true_mi(), base.true_mi());
    let (bx, by) = base.sample(9, &mut rng(8));
    let (tx, ty) = cubic.sample(9, &mut rng(8));
    assert!((tx.map(|v| v.sinh()) - &bx).amax() < 1e-9);
    assert!((ty.map(|v| v.cbrt()) - &by).amax() < 1e-9);
    let s_base = base.optimal_critic(&bx, &by).unwrap();
    let s_t = cubic.optimal_critic(&tx, &ty).unwrap();
    assert!((s_base - s_t).amax() < 1e-8);
}

#[test]
fn invalid_parameters_are_errors() {
    assert!(CorrelatedGaussian::new(3, 1.0).is_err());
    assert!(CorrelatedGaussian::new(0, 0.5).is_err());
    assert!(CorrelatedGaussian::with_mi(3, -1.0).is_err());
    assert!(CorrelatedGaussian::with_mi(3, f64::NAN).is_err());
    let not_pd = DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 2.0, 1.0]);
    assert!(SplitGaussian::new(not_pd, 1).is_err());
    assert!(SplitGaussian::new(DMatrix::identity(3, 3), 3).is_err());
}
