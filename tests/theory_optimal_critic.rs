//! The theory of the bounds, checked with the optimal critic `f* = log p(y|x) − log p(y)` of
//! correlated Gaussians (d = 20), averaged over many independent batches.
//!
//! Every tolerance is derived, not tuned:
//! - InfoNCE is a lower bound: `E[log N − L] ≤ I`, checked as `mean ≤ I + 3·se`.
//! - Its gap at the optimal critic is bounded above (two Jensen steps, `E_{y_j}[r(x_i, y_j)] = 1`
//!   and `E_p[r] = (1 − ρ²)^{−d} = e^{2I}` for this task):
//!   `I − E[I_NCE] = E log((1/N) Σ_j r_ij) ≤ log(1 + (e^{2I} − 1)/N)`,
//!   so for `I ≪ log N` the mean is within that (small) gap of I.
//! - In the saturated regime (`I ≫ log N`) a first Jensen step alone gives a floor that can be
//!   estimated from the joint samples: `E[I_NCE] ≥ log N − E_p log(1 + (N − 1)/r(x, y))`;
//!   InfoNCE lies between that floor and `log N`, i.e. just under `log N`.
//! - NWJ at `f* + 1` (and JS, which is NWJ at `f + 1`, at its optimum `f*`) is unbiased:
//!   `|mean − I| ≤ 3·se`.
//!
//! Run with `--nocapture` to see the table.

use crate::common;

use common::mean_se;
use mibound::bounds::{Bound, InfoNce, Js, Nwj};
use mibound::data::{CorrelatedGaussian, Sampler, rng};
use nalgebra::DMatrix;

const DIM: usize = 20;

struct Row {
    mi: f64,
    n: usize,
    mean: f64,
    se: f64,
    floor_gap: (f64, f64),
}

/// InfoNCE of the optimal critic over `batches` batches, with the per-batch Jensen floor.
fn infonce_rows(mi: f64, n: usize, batches: usize, seed: u64) -> Row {
    let task = CorrelatedGaussian::with_mi(DIM, mi).unwrap();
    let mut g = rng(seed);
    let mut bound = InfoNce::<f64>::new();
    let mut grad = DMatrix::zeros(n, n);
    let (mut vals, mut diffs) = (Vec::new(), Vec::new());
    let log_n = (n as f64).ln();
    for _ in 0..batches {
        let (x, y) = task.sample(n, &mut g);
        let s = task.optimal_critic(&x, &y).unwrap();
        let v = bound.evaluate(&s, &mut grad).unwrap().value;
        assert!(v <= log_n + 1e-12, "a batch exceeded log N");
        // log(1 + (N−1)/r) = softplus(ln(N−1) − ln r), stable for large ln r.
        let floor = log_n
            - (0..n)
                .map(|i| ((n - 1) as f64).ln() - s[(i, i)])
                .map(|z| z.max(0.0) + (-z.abs()).exp().ln_1p())
                .sum::<f64>()
                / n as f64;
        vals.push(v);
        diffs.push(v - floor);
    }
    let (mean, se) = mean_se(&vals);
    Row { mi, n, mean, se, floor_gap: mean_se(&diffs) }
}

#[test]
fn infonce_with_the_optimal_critic_obeys_its_bounds() {
    println!("{:>6} {:>5} {:>7} {:>9} {:>8} {:>11} {:>12}", "I", "N", "log N", "mean", "se", "gap bound", "mean−floor");
    let mut seed = 0;
    for &n in &[16usize, 64, 256] {
        for &mi in &[0.25, 1.0, 2.0, 4.0, 6.0, 8.0, 10.0] {
            seed += 1;
            let r = infonce_rows(mi, n, 300, seed);
            let log_n = (n as f64).ln();
            let gap_bound = (1.0 + ((2.0 * mi).exp() - 1.0) / n as f64).ln();
            println!(
                "{:>6.2} {:>5} {:>7.3} {:>9.4} {:>8.4} {:>11.4} {:>12.4}",
                r.mi, r.n, log_n, r.mean, r.se, gap_bound, r.floor_gap.0
            );
            assert!(
                r.mean <= mi + 3.0 * r.se,
                "I={mi} N={n}: E[log N − L] = {} exceeds I by > 3 se ({})",
                r.mean,
                r.se
            );
            assert!(r.mean <= log_n, "I={mi} N={n}: mean above log N");
            assert!(
                r.mean >= mi - gap_bound - 3.0 * r.se,
                "I={mi} N={n}: mean {} below I − gap bound {}",
                r.mean,
                mi - gap_bound
            );
            assert!(r.floor_gap.0 >= -3.0 * r.floor_gap.1, "I={mi} N={n}: below the Jensen floor: {:?}", r.floor_gap);
        }
    }
}

#[test]
fn infonce_close_to_i_when_i_is_small_and_saturates_under_log_n_when_large() {
    // I ≪ log N: the gap bound log(1 + (e^{2I} − 1)/N) is 0.007 at I = 0.25, N = 256.
    let small = infonce_rows(0.25, 256, 300, 99);
    let bound = (1.0 + ((0.5f64).exp() - 1.0) / 256.0).ln();
    assert!((small.mean - 0.25).abs() <= bound + 3.0 * small.se, "small-I mean {}", small.mean);
    // I = 10 ≫ log 64 = 4.16: the floor from the joint samples is within a few hundredths of
    // log N, and InfoNCE lies between the floor (−3 se) and log N.
    let big = infonce_rows(10.0, 64, 300, 100);
    let log_n = 64f64.ln();
    let floor = big.mean - big.floor_gap.0;
    assert!(big.mean <= log_n && big.mean >= floor - 3.0 * big.floor_gap.1);
    println!("I = 10, N = 64: mean {:.4}, floor {:.4}, log N {:.4}", big.mean, floor, log_n);
    assert!(log_n - big.mean < 0.5 * (10.0 - log_n), "saturation: the mean is much closer to log N than to I");
}

/// At the JS optimum `f* = log r`: NWJ(f* + 1) and the shifted read-off `js-shifted` are
/// unbiased, and the literature's read-off `js` = NWJ(f*) = `E_p log r − e^{−1} E_q r` has mean
/// `I − 1/e` exactly.
#[test]
fn nwj_at_f_star_plus_one_and_js_at_f_star_are_unbiased() {
    for (k, &mi) in [0.5, 1.0, 2.0].iter().enumerate() {
        let task = CorrelatedGaussian::with_mi(DIM, mi).unwrap();
        let mut g = rng(500 + k as u64);
        let n = 64;
        let (mut nwj, mut js_shifted, mut js) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..400 {
            let (x, y) = task.sample(n, &mut g);
            let s = task.optimal_critic(&x, &y).unwrap();
            js_shifted.push(Js::shifted().value(&s).unwrap());
            js.push(Js::new().value(&s).unwrap());
            nwj.push(Bound::<f64>::value(&mut Nwj::new(), &s.add_scalar(1.0)).unwrap());
        }
        let minus_e = mi - (-1f64).exp();
        for (name, v, want) in [("NWJ(f*+1)", &nwj, mi), ("JS-shifted(f*)", &js_shifted, mi), ("JS(f*)", &js, minus_e)]
        {
            let (m, se) = mean_se(v);
            println!("{name}: I = {mi}, mean {m:.4} ± {se:.4}, expected {want:.4}");
            assert!((m - want).abs() <= 3.0 * se, "{name} at I = {mi}: mean {m} not within 3 se ({se}) of {want}");
        }
    }
}
