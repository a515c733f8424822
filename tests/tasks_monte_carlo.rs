//! A Monte-Carlo check of every task's true MI: `I = E_p[log p(y|x) − log p(y)]`, so the mean of
//! the optimal critic's diagonal over joint samples must agree with `true_mi()` within 4
//! standard errors of that mean (computed from the same samples; fixed seeds).

use mibound::data::Sampler;
use mibound::tasks::{self, pointwise_mi};

fn check(id: &str, n: usize, seed: u64) -> (f64, f64, f64) {
    let t = tasks::get(id).unwrap_or_else(|e| panic!("{id}: {e}"));
    let (x, y) = t.draw(n, seed).unwrap();
    let pmi = pointwise_mi(&t, &x, &y).unwrap_or_else(|| panic!("{id}: no optimal critic"));
    assert!(pmi.iter().all(|v| v.is_finite()), "{id}: non-finite pointwise MI on joint samples");
    let nf = n as f64;
    let m = pmi.iter().sum::<f64>() / nf;
    let var = pmi.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (nf - 1.0);
    (m, (var / nf).sqrt(), t.true_mi())
}

#[test]
fn the_optimal_critic_averages_to_the_true_mi_for_every_task() {
    // Every listed task except the small-n ones (the same distributions as listed tasks) and the
    // independent twins (their critic is identically 0 = I: checked separately below).
    let ids: Vec<String> =
        tasks::all_ids().into_iter().filter(|i| !i.starts_with("small_n-") && !i.starts_with("indep-")).collect();
    assert!(ids.len() >= 60);
    let mut failures = Vec::new();
    for (k, id) in ids.iter().enumerate() {
        let (m, se, mi) = check(id, 20_000, 1000 + k as u64);
        if (m - mi).abs() > 4.0 * se {
            failures.push(format!("{id}: mean {m:.5} ± {se:.5}, true {mi:.5} ({:.1} se)", (m - mi) / se));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn independent_twins_have_a_zero_critic() {
    for id in tasks::all_ids().iter().filter(|i| i.starts_with("indep-")) {
        let (m, se, mi) = check(id, 300, 5);
        assert_eq!((m, se, mi), (0.0, 0.0, 0.0), "{id}");
    }
}

#[test]
fn the_check_sees_a_wrong_true_mi() {
    // The test above has power: the same statistic separates neighbouring MI values. The pointwise
    // MI of 1v1-normal-0.75 does not average to the MI of ρ = 0.7 (0.337 vs 0.413 nats).
    let (m, se, _) = check("1v1-normal-0.75", 20_000, 3);
    let other = tasks::get("1v1-normal-0.7").unwrap().true_mi();
    assert!((m - other).abs() > 4.0 * se, "{m} ± {se} vs {other}");
}
