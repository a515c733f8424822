//! A Monte-Carlo check of every task's true MI: `I = E_p[log p(y|x) − log p(y)]`, so the mean of
//! the optimal critic's diagonal over joint samples must agree with `true_mi()` within 4
//! standard errors of that mean (computed from the same samples; fixed seeds), combined with the
//! standard error of `true_mi()` itself where it is a Monte-Carlo value (`MC_TRUTHS`).

use mibound::data::Sampler;
use mibound::tasks::{self, pointwise_mi};

/// Mean and standard error of the optimal critic's diagonal over `n` joint samples, the true MI,
/// and the combined standard error of the difference.
fn check(id: &str, n: usize, seed: u64) -> (f64, f64, f64) {
    let t = tasks::get(id).unwrap_or_else(|e| panic!("{id}: {e}"));
    let (x, y) = t.draw(n, seed).unwrap();
    let pmi = pointwise_mi(&t, &x, &y).unwrap_or_else(|| panic!("{id}: no optimal critic"));
    assert!(pmi.iter().all(|v| v.is_finite()), "{id}: non-finite pointwise MI on joint samples");
    let nf = n as f64;
    let m = pmi.iter().sum::<f64>() / nf;
    let var = pmi.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (nf - 1.0);
    (m, (var / nf + t.info().true_mi_se.powi(2)).sqrt(), t.true_mi())
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

#[test]
fn every_stored_monte_carlo_truth_is_reproduced_by_fresh_samples() {
    // An independent, smaller Monte Carlo (2·10⁵ samples, another seed, the task's own pointwise
    // MI) must agree with the stored value within 4 combined standard errors; the stored standard
    // errors are below the suite's 0.004 nats.
    assert!(tasks::MC_TRUTHS.len() >= 12);
    for (k, &(id, mi, se)) in tasks::MC_TRUTHS.iter().enumerate() {
        assert!(se < 0.004 && se > 0.0, "{id}: standard error {se}");
        let (m, s) = tasks::monte_carlo_truth(id, 200_000, 77 + k as u64).unwrap();
        let tol = 4.0 * (se * se + s * s).sqrt();
        assert!((m - mi).abs() <= tol, "{id}: fresh {m:.5} ± {s:.5}, stored {mi:.5} ± {se:.5}");
        let t = tasks::get(id).unwrap();
        assert_eq!((t.true_mi(), t.info().true_mi_se), (mi, se), "{id}");
    }
    // Every listed task with a Monte-Carlo truth has it stored (none is measured when built).
    for id in tasks::suite_ids() {
        let t = tasks::get(&id).unwrap();
        if t.info().true_mi_se > 0.0 {
            let base = id.rsplit_once("mixture-").map(|(_, r)| format!("mixture-{r}")).unwrap_or_else(|| {
                id[id.find("classes-").unwrap_or_else(|| panic!("{id}: not a Monte-Carlo family"))..].to_string()
            });
            assert!(tasks::MC_TRUTHS.iter().any(|e| e.0 == base), "{id}: {base} not stored");
        }
    }
}

#[test]
fn the_monte_carlo_truth_sees_a_wrong_value() {
    // Power of the check above: the stored MI of a neighbouring parameter is rejected.
    let (m, s) = tasks::monte_carlo_truth("mixture-cross-0.9", 200_000, 5).unwrap();
    let other = tasks::MC_TRUTHS.iter().find(|e| e.0 == "mixture-ring-1-1-6-0.3").unwrap();
    assert!((m - other.1).abs() > 4.0 * (s * s + other.2 * other.2).sqrt(), "{m} vs {}", other.1);
}

#[test]
fn the_density_ratio_integrates_to_one_under_the_product_of_marginals() {
    // E_{p(x)p(y)}[p(x, y)/(p(x)p(y))] = 1: with x and y from two independent joint draws, the mean
    // of exp(pointwise MI) must be 1 within 4 standard errors. This checks, independently of the
    // Monte-Carlo truths, that the joint and marginal densities behind the new families' critics
    // (and so behind their Monte-Carlo MI) are normalised and belong to the sampler: a wrong
    // marginal or a wrong mixture weight moves the mean away from 1.
    let n = 10_000;
    let families = ["mixture-", "classes-", "gao-", "additive-", "digits", "zero_inflated-", "rotate-", "exp-"];
    let ids: Vec<String> =
        tasks::suite_ids().into_iter().filter(|id| families.iter().any(|f| id.starts_with(f))).collect();
    assert!(ids.len() >= 35, "{}", ids.len());
    let mut failures = Vec::new();
    for (k, id) in ids.iter().enumerate() {
        let t = tasks::get(id).unwrap();
        let (x, _) = t.draw(n, 3000 + k as u64).unwrap();
        let (_, y) = t.draw(n, 4000 + k as u64).unwrap();
        let r: Vec<f64> = pointwise_mi(&t, &x, &y).unwrap().iter().map(|v| v.exp()).collect();
        let m = r.iter().sum::<f64>() / n as f64;
        let se = (r.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (n as f64 - 1.0) / n as f64).sqrt();
        if (m - 1.0).abs() > 4.0 * se {
            failures.push(format!("{id}: E[ratio] = {m:.4} ± {se:.4}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
