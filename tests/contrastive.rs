//! Contrastive objectives: finite-difference gradients and the identities that explain them.

use crate::common;

use common::{assert_grad_close, numeric_grad, random_matrix};
use mibound::bounds::{Bound, InfoNce};
use mibound::contrastive::*;
use nalgebra::DMatrix;

const H: f64 = 1e-5;

#[test]
fn score_level_gradients_match_finite_differences() {
    let s = random_matrix(6, 6, 1.5, 1);
    let labels = [0, 1, 0, 2, 1, 0];
    let (_, g) = nt_xent(&s).unwrap();
    assert_grad_close("nt-xent", &g, &numeric_grad(&s, H, |m| nt_xent(m).unwrap().0));
    let (_, g) = clip_loss(&s).unwrap();
    assert_grad_close("clip", &g, &numeric_grad(&s, H, |m| clip_loss(m).unwrap().0));
    for v in [SupConVariant::Out, SupConVariant::In] {
        let (_, g) = supcon(&s, &labels, v).unwrap();
        assert_grad_close(&format!("supcon {v:?}"), &g, &numeric_grad(&s, H, |m| supcon(m, &labels, v).unwrap().0));
    }
}

#[test]
fn nt_xent_is_infonce_over_the_2n_minus_1_candidates() {
    // Removing the anchor itself from each row leaves a (2N−1)-way classification: the NT-Xent
    // loss is log(2N−1) minus the InfoNCE value of that row set.
    let s = random_matrix(8, 8, 1.0, 2);
    let (loss, _) = nt_xent(&s).unwrap();
    let m = 8;
    let mut want = 0.0;
    for i in 0..m {
        let others: Vec<f64> = (0..m).filter(|&k| k != i).map(|k| s[(i, k)]).collect();
        let lse = others.iter().map(|v| v.exp()).sum::<f64>().ln();
        want += lse - s[(i, (i + 4) % m)];
    }
    assert!((loss - want / m as f64).abs() < 1e-12);
}

#[test]
fn clip_is_the_mean_of_row_and_column_infonce() {
    let s = random_matrix(5, 5, 1.0, 3);
    let (loss, _) = clip_loss(&s).unwrap();
    let ln5 = 5f64.ln();
    let rows = InfoNce::<f64>::new().value(&s).unwrap();
    let cols = InfoNce::<f64>::new().value(&s.transpose()).unwrap();
    assert!((loss - (0.5 * (ln5 - rows) + 0.5 * (ln5 - cols))).abs() < 1e-12);
}

#[test]
fn infonce_with_one_negative_is_the_logistic_triplet_form() {
    // N = 2 candidates: −log(e^{s⁺/τ} / (e^{s⁺/τ} + e^{s⁻/τ})) = log(1 + exp((s⁻ − s⁺)/τ)).
    for (sp, sn, tau) in [(0.9, 0.2, 0.1), (0.1, 0.5, 0.5), (-0.3, 0.4, 1.0)] {
        let s = DMatrix::from_row_slice(2, 2, &[sp / tau, sn / tau, sn / tau, sp / tau]);
        let loss = 2f64.ln() - InfoNce::<f64>::new().value(&s).unwrap();
        let want = (1.0 + ((sn - sp) / tau).exp()).ln();
        assert!((loss - want).abs() < 1e-12, "{loss} vs {want}");
    }
}

#[test]
fn debiased_loss_reduces_to_infonce_at_zero_prior_and_has_exact_gradients() {
    let (sp, sn, extra) = (1.3, [0.2, -0.4, 0.9, 0.1], [0.8, 1.1]);
    let tau = 0.5;
    let (loss, ..) = debiased(sp, &sn, &extra, 0.0, tau, None).unwrap();
    let infonce = -(sp - (sp.exp() + sn.iter().map(|v| v.exp()).sum::<f64>()).ln());
    assert!((loss - infonce).abs() < 1e-12, "{loss} vs {infonce}");
    for (eta, w) in [(0.1, None), (0.3, Some(hard_negative_weights(&sn, 2.0)))] {
        let w = w.as_deref();
        let (_, dp, dn, de) = debiased(sp, &sn, &extra, eta, tau, w).unwrap();
        // Given weights are constants: the numeric derivative holds them fixed.
        let f = |p: f64, n: &[f64], e: &[f64]| debiased(p, n, e, eta, tau, w).unwrap().0;
        assert!((dp - (f(sp + H, &sn, &extra) - f(sp - H, &sn, &extra)) / (2.0 * H)).abs() < 1e-7);
        for j in 0..4 {
            let (mut up, mut dn_) = (sn, sn);
            up[j] += H;
            dn_[j] -= H;
            assert!((dn[j] - (f(sp, &up, &extra) - f(sp, &dn_, &extra)) / (2.0 * H)).abs() < 1e-7, "negative {j}");
        }
        for k in 0..2 {
            let (mut up, mut d) = (extra, extra);
            up[k] += H;
            d[k] -= H;
            assert!((de[k] - (f(sp, &sn, &up) - f(sp, &sn, &d)) / (2.0 * H)).abs() < 1e-7, "extra positive {k}");
        }
    }
    // Far apart positives make the estimator fall to its floor e^{−1/τ}: the gradient to the
    // negatives vanishes there.
    let (_, _, dn, _) = debiased(0.0, &[-5.0, -5.0], &[3.0], 0.5, tau, None).unwrap();
    assert!(dn.iter().all(|&v| v == 0.0));
}

/// Robinson et al.'s code differentiates through `imp = exp(β·s⁻)` (not detached): the
/// numeric derivative recomputes the weights from the perturbed scores. The detached variant
/// matches the derivative with the weights held at their unperturbed values. Both are checked,
/// and they must differ (β ≠ 0), so a swapped implementation fails.
#[test]
fn hard_negative_gradient_through_and_detached_match_finite_differences() {
    let (sp, sn, extra) = (1.3, [0.2, -0.4, 0.9, 0.1], [0.8, 1.1]);
    let (tau, beta) = (0.5, 1.5);
    for eta in [0.0, 0.2] {
        let (_, dp, dn, de) = hard_negative(sp, &sn, &extra, eta, tau, beta, WeightGradient::Through).unwrap();
        let f =
            |p: f64, n: &[f64], e: &[f64]| hard_negative(p, n, e, eta, tau, beta, WeightGradient::Through).unwrap().0;
        assert!((dp - (f(sp + H, &sn, &extra) - f(sp - H, &sn, &extra)) / (2.0 * H)).abs() < 1e-7);
        let w0 = hard_negative_weights(&sn, beta);
        let fixed = |n: &[f64]| debiased(sp, n, &extra, eta, tau, Some(&w0)).unwrap().0;
        let (_, _, dn_det, _) = hard_negative(sp, &sn, &extra, eta, tau, beta, WeightGradient::Detached).unwrap();
        for j in 0..4 {
            let (mut up, mut down) = (sn, sn);
            up[j] += H;
            down[j] -= H;
            let through = (f(sp, &up, &extra) - f(sp, &down, &extra)) / (2.0 * H);
            assert!((dn[j] - through).abs() < 1e-7, "η⁺ = {eta}, negative {j}: {} vs {through}", dn[j]);
            let detached = (fixed(&up) - fixed(&down)) / (2.0 * H);
            assert!((dn_det[j] - detached).abs() < 1e-7, "detached negative {j}: {} vs {detached}", dn_det[j]);
            assert!((dn[j] - dn_det[j]).abs() > 1e-3, "the two gradients must differ at β = {beta}");
        }
        for k in 0..2 {
            let (mut up, mut d) = (extra, extra);
            up[k] += H;
            d[k] -= H;
            assert!((de[k] - (f(sp, &sn, &up) - f(sp, &sn, &d)) / (2.0 * H)).abs() < 1e-7, "extra positive {k}");
        }
    }
}

/// Scores far beyond `exp`'s range (|s| = 1000, i.e. cosine 1 at τ = 0.001): the losses are
/// shifted by the largest score, so they stay finite and equal the same loss on scores shifted
/// down by a constant plus the shift's exact effect (the loss depends on differences only when
/// η⁺ = 0 and the floor is not active).
#[test]
fn debiased_and_hard_negative_losses_do_not_overflow() {
    let sn = [995.0, 990.0, 1000.0, -1000.0];
    for gradient in [WeightGradient::Through, WeightGradient::Detached] {
        let (l, dp, dn, _) = hard_negative(999.0, &sn, &[999.0], 0.0, 0.001, 1.0, gradient).unwrap();
        let shifted: Vec<f64> = sn.iter().map(|v| v - 1000.0).collect();
        let (l0, dp0, dn0, _) = hard_negative(-1.0, &shifted, &[-1.0], 0.0, 0.001, 1.0, gradient).unwrap();
        assert!(l.is_finite() && (l - l0).abs() < 1e-9, "{l} vs {l0}");
        assert!((dp - dp0).abs() < 1e-12 && dn.iter().zip(&dn0).all(|(a, b)| (a - b).abs() < 1e-12));
    }
    let (l, ..) = debiased(999.0, &sn, &[999.0], 0.1, 0.001, None).unwrap();
    assert!(l.is_finite(), "{l}");
}

#[test]
fn hard_negative_weights_favour_similar_negatives() {
    let w = hard_negative_weights(&[0.1, 0.5, 0.9], 2.0);
    assert!((w.iter().sum::<f64>() / 3.0 - 1.0).abs() < 1e-12 && w[0] < w[1] && w[1] < w[2]);
    assert!(hard_negative_weights(&[0.1, 0.5, 0.9], 0.0).iter().all(|&v| (v - 1.0).abs() < 1e-12));
}

#[test]
fn embedding_level_gradients_match_finite_differences() {
    let (q, k) = (random_matrix(4, 3, 1.0, 5), random_matrix(5, 3, 1.0, 6));
    let c = random_matrix(4, 5, 1.0, 7);
    let (dq, dk) = cosine_backward(&q, &k, 0.3, &c);
    assert_grad_close(
        "cosine q",
        &dq,
        &numeric_grad(&q, H, |m| cosine_scores(m, &k, 0.3).unwrap().component_mul(&c).sum()),
    );
    assert_grad_close(
        "cosine k",
        &dk,
        &numeric_grad(&k, H, |m| cosine_scores(&q, m, 0.3).unwrap().component_mul(&c).sum()),
    );
    let e = random_matrix(7, 3, 1.0, 8);
    let labels = [0, 0, 1, 1, 2, 0, 1];
    for mining in [Mining::All, Mining::Hard, Mining::SemiHard] {
        let (_, g) = triplet(&e, &labels, 0.5, mining).unwrap();
        assert_grad_close(
            &format!("triplet {mining:?}"),
            &g,
            &numeric_grad(&e, H, |m| triplet(m, &labels, 0.5, mining).unwrap().0),
        );
    }
    let (a, b) = (random_matrix(6, 3, 1.0, 9), random_matrix(6, 3, 1.0, 10));
    let dis = [true, false, true, true, false, true];
    let (_, g1, g2) = margin_loss(&a, &b, &dis, 2.0).unwrap();
    assert_grad_close("margin e1", &g1, &numeric_grad(&a, H, |m| margin_loss(m, &b, &dis, 2.0).unwrap().0));
    assert_grad_close("margin e2", &g2, &numeric_grad(&b, H, |m| margin_loss(&a, m, &dis, 2.0).unwrap().0));
}

#[test]
fn alignment_uniformity_and_negative_weights_by_hand() {
    let a = DMatrix::from_row_slice(2, 2, &[0.0, 0.0, 1.0, 0.0]);
    let b = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 1.0, 0.0]);
    assert!((alignment(&a, &b, 2.0) - 0.5).abs() < 1e-12);
    // Two points at squared distance 1: log e^{−2·1} = −2.
    assert!((uniformity(&a, 2.0) + 2.0).abs() < 1e-12);
    // ∂L/∂s⁻_j of L = −log(e^{s⁺/τ}/(e^{s⁺/τ} + Σ e^{s⁻/τ})), against finite differences of
    // that loss written out here; the positive is in the denominator.
    let (sp, sn) = (0.7f64, [0.9f64, 0.5, 0.1]);
    for tau in [0.1f64, 1.0] {
        let loss = |n: &[f64]| {
            let z = (sp / tau).exp() + n.iter().map(|v| (v / tau).exp()).sum::<f64>();
            -(sp / tau - z.ln())
        };
        let w = negative_weights(sp, &sn, tau);
        for j in 0..3 {
            let (mut up, mut down) = (sn, sn);
            up[j] += H;
            down[j] -= H;
            let want = (loss(&up) - loss(&down)) / (2.0 * H);
            assert!((w[j] - want).abs() < 1e-6 * want.abs().max(1.0), "τ = {tau}, negative {j}: {} vs {want}", w[j]);
        }
        // The negatives' weights plus the positive's share sum to 1/τ.
        let pos_share = (sp / tau).exp() / ((sp / tau).exp() + sn.iter().map(|v| (v / tau).exp()).sum::<f64>());
        assert!((w.iter().sum::<f64>() + pos_share / tau - 1.0 / tau).abs() < 1e-9);
    }
    // At τ = 0.02 over [−1, 1] the weights span about 2/(0.02·ln 10) ≈ 43 orders of magnitude.
    let s: Vec<f64> = (0..=200).map(|k| -1.0 + k as f64 / 100.0).collect();
    let w = negative_weights(0.8, &s, 0.02);
    let span = w[200].log10() - w[0].log10();
    assert!((span - 2.0 / (0.02 * 10f64.ln())).abs() < 1e-6, "span {span}");
}
