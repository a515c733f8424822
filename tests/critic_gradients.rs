//! Every critic's hand-written backward pass against central finite differences (f64).
//!
//! The loss is `L = Σ_ij C_ij S_ij` for a fixed random `C`, so `∂L/∂S = C` and `∂L/∂θ` is what
//! `backward(C)` must return. Tolerance: see `common::assert_grad_close`; ReLU kinks are avoided
//! by checking that no pre-activation lies within the finite-difference step (the random inputs
//! make that overwhelmingly likely, and a kink would show as an O(1) error, not a small one).

use crate::common;

use common::{assert_param_grads, random_matrix};
use mibound::critics::{Activation, Bilinear, Concat, Critic, Init, Separable, Similarity};
use nalgebra::DMatrix;

fn check(what: &str, critic: &mut dyn Critic<f64>, n: usize, m: usize) {
    let params = critic.init_params(Init::Torch, 17);
    let x = random_matrix(n, critic.dim_x(), 1.0, 1);
    let y = random_matrix(m, critic.dim_y(), 1.0, 2);
    let c = random_matrix(n, m, 1.0, 3);
    let mut s = DMatrix::zeros(0, 0);
    critic.scores(&params, &x, &y, &mut s).unwrap();
    assert_eq!(s.shape(), (n, m));
    let mut grads = vec![f64::NAN; params.len()]; // backward must overwrite every entry
    critic.backward(&params, &c, &mut grads).unwrap();
    assert_param_grads(what, &params, &grads, |p| {
        critic.scores(p, &x, &y, &mut s).unwrap();
        s.component_mul(&c).sum()
    });
}

const ACTS: [Activation; 5] = [
    Activation::Relu,
    Activation::LeakyRelu { slope: 0.1 },
    Activation::Tanh,
    Activation::Softplus,
    Activation::Elu { alpha: 1.0 },
];

#[test]
fn separable_dot_for_every_activation() {
    for act in ACTS {
        let mut c = Separable::new(3, 4, &[6, 5], 3, act, Similarity::Dot).unwrap();
        check(&format!("separable {act:?}"), &mut c, 5, 4);
    }
}

#[test]
fn separable_cosine_with_fixed_and_learned_temperature() {
    for learn in [false, true] {
        let mut c = Separable::new(3, 2, &[5], 4, Activation::Tanh, Similarity::Cosine { tau: 0.3, learn }).unwrap();
        check(&format!("cosine learn={learn}"), &mut c, 4, 6);
    }
}

#[test]
fn bilinear_raw_and_with_encoders() {
    let mut raw = Bilinear::new(3, 4, None, 0, Activation::Relu).unwrap();
    check("bilinear xᵀWy", &mut raw, 5, 3);
    let mut cpc = Bilinear::new(3, 2, Some(&[6]), 4, Activation::Softplus).unwrap();
    check("bilinear f(x)ᵀWg(y)", &mut cpc, 4, 5);
}

#[test]
fn concat_cached_and_recomputed_blocks() {
    for act in [Activation::Tanh, Activation::Relu] {
        let mut cached = Concat::new(2, 3, &[6, 5], act).unwrap();
        check(&format!("concat cached {act:?}"), &mut cached, 4, 5);
        let mut recompute = Concat::new(2, 3, &[6, 5], act).unwrap().with_cache_budget(0);
        check(&format!("concat recomputed {act:?}"), &mut recompute, 4, 5);
        let mut one_layer = Concat::new(2, 3, &[7], act).unwrap();
        check(&format!("concat one hidden layer {act:?}"), &mut one_layer, 3, 3);
    }
}

#[test]
fn concat_with_blocks_in_two_halves() {
    // N = 40: blocks of 51 columns. M = 70 → 2 blocks (one per half); M = 140 → 3 blocks (two
    // in the first half, one in the second). Cached and recomputed, with a Tanh tail.
    for m in [70, 140] {
        let mut cached = Concat::new(2, 3, &[5, 4], Activation::Tanh).unwrap();
        check(&format!("concat cached, M = {m}"), &mut cached, 40, m);
        let mut recompute = Concat::new(2, 3, &[5, 4], Activation::Tanh).unwrap().with_cache_budget(0);
        check(&format!("concat recomputed, M = {m}"), &mut recompute, 40, m);
    }
}

#[test]
fn concat_many_blocks_match_a_single_block() {
    // N = 64 splits the 4096 pairs into two blocks of 2048; the scores must equal an
    // independent per-pair evaluation of the same MLP.
    let mut c = Concat::<f64>::new(2, 2, &[4], Activation::Tanh).unwrap();
    let p = c.init_params(Init::Torch, 5);
    let (x, y) = (random_matrix(64, 2, 1.0, 8), random_matrix(64, 2, 1.0, 9));
    let mut s = DMatrix::zeros(0, 0);
    c.scores(&p, &x, &y, &mut s).unwrap();
    // Layout: W1 (4 × 4, column-major over [x; y]), b1 (4), w2 (1 × 4), b2 (1).
    for (i, j) in [(0, 0), (5, 63), (63, 1), (31, 40)] {
        let inp = [x[(i, 0)], x[(i, 1)], y[(j, 0)], y[(j, 1)]];
        let mut out = p[24];
        for k in 0..4 {
            let z: f64 = (0..4).map(|c| p[c * 4 + k] * inp[c]).sum::<f64>() + p[16 + k];
            out += p[20 + k] * z.tanh();
        }
        assert!((s[(i, j)] - out).abs() < 1e-12, "pair ({i}, {j}): {} vs {out}", s[(i, j)]);
    }
}

#[test]
fn wrong_shapes_are_errors() {
    let mut c = Separable::<f64>::new(3, 3, &[4], 2, Activation::Relu, Similarity::Dot).unwrap();
    let p = c.init_params(Init::Torch, 0);
    let mut s = DMatrix::zeros(0, 0);
    assert!(c.scores(&p, &DMatrix::zeros(4, 2), &DMatrix::zeros(4, 3), &mut s).is_err());
    assert!(c.scores(&p[1..], &DMatrix::zeros(4, 3), &DMatrix::zeros(4, 3), &mut s).is_err());
    c.scores(&p, &DMatrix::zeros(4, 3), &DMatrix::zeros(4, 3), &mut s).unwrap();
    let mut g = vec![0.0; p.len()];
    assert!(c.backward(&p, &DMatrix::zeros(3, 3), &mut g).is_err());
}

#[test]
fn gaussian_conditional_learned_and_fixed_variance() {
    use mibound::critics::{GaussianConditional, Variance};
    let mut learned =
        GaussianConditional::new(3, 2, &[6], Activation::Tanh, Variance::Learned { lo: -3.0, hi: 2.0 }).unwrap();
    check("gaussian learned variance", &mut learned, 5, 4);
    let mut fixed =
        GaussianConditional::new(2, 3, &[5, 4], Activation::Softplus, Variance::Fixed { log_var: 0.3 }).unwrap();
    check("gaussian fixed variance", &mut fixed, 4, 5);
}

#[test]
fn gaussian_conditional_scores_are_normalised_log_densities() {
    use mibound::critics::{GaussianConditional, Variance};
    // Identity-like check: for one pair, compare with the Gaussian log-density written out.
    let mut q =
        GaussianConditional::<f64>::new(2, 2, &[3], Activation::Tanh, Variance::Learned { lo: -4.0, hi: 4.0 }).unwrap();
    let p = q.init_params(Init::Torch, 3);
    let (x, y) = (random_matrix(3, 2, 1.0, 4), random_matrix(4, 2, 1.0, 5));
    let mut s = DMatrix::zeros(0, 0);
    q.scores(&p, &x, &y, &mut s).unwrap();
    let (mu, lv) = (q.mean().to_vec(), q.log_var().to_vec());
    for (i, j) in [(0, 0), (2, 3), (1, 2)] {
        let want: f64 = (0..2)
            .map(|k| {
                let (m, v) = (mu[i * 2 + k], lv[i * 2 + k].exp());
                -0.5 * (2.0 * std::f64::consts::PI * v).ln() - (y[(j, k)] - m).powi(2) / (2.0 * v)
            })
            .sum();
        assert!((s[(i, j)] - want).abs() < 1e-12, "({i}, {j}): {} vs {want}", s[(i, j)]);
        assert!(lv[i * 2] > -4.0 && lv[i * 2] < 4.0);
    }
}

/// The f32 softplus unit (vectorised exponential and an atanh series for `ln(1 + t)`) and its
/// backward pass (`σ(z) = e^{z − a}`) against the f64 library formulas on the same inputs, over
/// z in [−100, 100]: the unit within 10⁻⁶ relative (the exponential is within 2 ulp, the series
/// truncation below 10⁻⁸), its derivative within the factor `e^ε` that a rounding ε of `a` in
/// `z − a` gives.
#[test]
fn f32_softplus_unit_matches_f64() {
    let z64: Vec<f64> = (0..=40_000).map(|i| -100.0 + i as f64 * 0.005).collect();
    let z32: Vec<f32> = z64.iter().map(|&z| z as f32).collect();
    let (mut a32, mut a64) = (vec![0f32; z32.len()], vec![0f64; z64.len()]);
    Activation::Softplus.forward(&z32, &mut a32);
    let zr: Vec<f64> = z32.iter().map(|&z| z as f64).collect();
    Activation::Softplus.forward(&zr, &mut a64);
    let (mut d32, mut d64) = (vec![1f32; z32.len()], vec![1f64; z64.len()]);
    Activation::Softplus.backward(&z32, &a32, &mut d32);
    Activation::Softplus.backward(&zr, &a64, &mut d64);
    for i in 0..z32.len() {
        let (z, a, d) = (zr[i], a64[i], d64[i]);
        assert!((a32[i] as f64 - a).abs() <= 1e-6 * a.abs() + 1e-12, "softplus({z}): f32 {} f64 {a}", a32[i]);
        // σ(z) = e^{z − a}: an absolute error ε in a moves it by a factor e^ε; a is within
        // about one ulp of max(|z|, 1) after rounding, so allow 2 ulp of that, relative.
        let tol = 2.0 * f32::EPSILON as f64 * z.abs().max(1.0) * d + 1e-12;
        assert!((d32[i] as f64 - d).abs() <= tol, "σ({z}): f32 {} f64 {d} (tol {tol})", d32[i]);
    }
}
