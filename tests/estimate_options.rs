//! `Options`: the estimation options of the command line and the Python bindings, checked in
//! one place; their defaults are the library's.

use mibound::estimators::{Options, Settings};

#[test]
fn default_options_give_the_default_settings() {
    assert_eq!(Options::default().settings(str::to_string).unwrap(), Settings::default());
}

#[test]
fn a_bad_option_is_named_as_the_caller_spells_it() {
    let mut o = Options::default();
    o.weight_decay = -1.0;
    let python = o.settings(str::to_string).unwrap_err().to_string();
    let cli = o.settings(|f| format!("--{}", f.replace('_', "-"))).unwrap_err().to_string();
    assert_eq!(python, "invalid weight_decay = -1: must be finite and at least 0");
    assert_eq!(cli, "invalid --weight-decay = -1: must be finite and at least 0");
    let mut o = Options::default();
    o.transform = "ranks".into();
    assert_eq!(
        o.settings(str::to_string).unwrap_err().to_string(),
        "unknown marginal transform 'ranks'; known: none, standardize, copula"
    );
    let mut o = Options::default();
    o.hidden = vec![64, 0];
    assert!(o.settings(str::to_string).unwrap_err().to_string().contains("every hidden width must be at least 1"));
}

#[test]
fn what_the_options_pass_the_settings_pass() {
    // Options::settings checks each option by its name; the settings it builds then pass the
    // one check an estimate makes where they enter it (Settings::check), for every critic.
    for critic in ["auto", "separable", "cosine", "bilinear", "cpc", "concat", "gaussian", "gaussian-mean", "moco"] {
        for transform in ["copula", "standardize", "none"] {
            let mut o = Options::default();
            (o.critic, o.transform) = (critic.into(), transform.into());
            (o.hidden, o.embed, o.batch, o.steps, o.folds, o.patience) = (vec![1], 1, 2, 1, 2, 1);
            let s = o.settings(str::to_string).unwrap();
            assert!(s.check().is_ok(), "{critic}, {transform}: {:?}", s.check());
        }
    }
}

/// Too few rows for the folds: the message names the numbers of folds that work, or the fewest
/// rows any number of folds needs, and the suggestion holds (found by a stranger: 8 rows were
/// told "at most 4 folds", and 4 folds were then refused too). 14 rows are the fewest: at 5
/// folds each fold has 2 or 3 test rows and 11 or 12 outside it, 90 % of which (floored) is 9 or
/// 10 training rows, leaving 2 validation rows.
#[test]
fn too_few_rows_for_the_folds_get_advice_that_holds() {
    use mibound::data::{CorrelatedGaussian, Sampler};
    use mibound::estimators::EstimatorSpec;
    let task = CorrelatedGaussian::with_mi(1, 0.5).unwrap();
    let mut settings = Settings::default();
    (settings.neural.max_steps, settings.neural.candidates.alternatives) = (5, Vec::new());
    let infonce = |n: usize, folds: usize| {
        let mut s = settings.clone();
        s.neural.folds = folds;
        let (x, y) = task.sample(n, &mut mibound::rng::rng(n as u64));
        EstimatorSpec::parse("infonce").unwrap().build(&s).unwrap().estimate(x.as_view(), y.as_view(), 0)
    };
    for n in [3, 8, 12, 13] {
        let e = infonce(n, 5).unwrap_err().to_string();
        assert_eq!(
            e,
            format!(
                "invalid rows = {n}: too few rows for a held-out neural estimate: it needs at least 14 (at 5 folds; each fold needs 2 test rows, and 8 training and 2 validation rows outside it); the classical estimators (ksg, gaussian) need fewer"
            )
        );
    }
    assert!(infonce(14, 5).is_ok());
    // Too many folds, and too few (2 folds leave 7 training rows of 15): the range that works.
    for folds in [8, 2] {
        let e = infonce(15, folds).unwrap_err().to_string();
        assert!(e.starts_with(&format!("invalid folds = {folds}: 15 rows allow 4 to 7 folds")), "{e}");
    }
    for folds in [4, 7] {
        assert!(infonce(15, folds).is_ok(), "{folds} folds");
    }
}

/// A named critic (`--critic separable`, Python's `critic="separable"`: both read these
/// options) is that critic alone: one candidate per fold, none beside it — where `auto`
/// compares 41 (six trained, 32 nearest-neighbour and random-walk critics, three elliptical).
#[test]
fn a_named_critic_runs_exactly_one_candidate() {
    use mibound::bounds::BoundSpec;
    use mibound::data::{CorrelatedGaussian, Sampler};
    use mibound::estimators::EstimatorSpec;
    use mibound::estimators::neural::{CandidateId, CandidateKind};
    let settings = |critic: &str| {
        let mut o = Options::default();
        (o.critic, o.steps) = (critic.to_string(), 40);
        o.settings(str::to_string).unwrap()
    };
    let (x, y) = CorrelatedGaussian::with_mi(2, 0.5).unwrap().sample(300, &mut mibound::rng::rng(0));
    let infonce = |s: &Settings| {
        EstimatorSpec::parse("infonce").unwrap().build(s).unwrap().estimate(x.as_view(), y.as_view(), 0).unwrap()
    };
    let auto = settings("auto");
    assert_eq!(auto.neural.candidates_for(&BoundSpec::InfoNce).len(), 41);
    // Six critics train in the first fold (each to the step limit: the pilot is longer).
    let steps = infonce(&auto).diagnostics.steps.unwrap();
    assert!(steps > 5 * 40, "auto: {steps} steps");
    for critic in ["separable", "concat"] {
        let s = settings(critic);
        let listed = s.neural.candidates_for(&BoundSpec::InfoNce);
        assert_eq!(listed.len(), 1, "{critic}: {listed:?}");
        let e = infonce(&s);
        let used = e.settings.neural().unwrap();
        let configured = |c: &&mibound::estimators::neural::Candidate| {
            c.id == CandidateId::Trained(0) && matches!(c.kind, CandidateKind::Trained { squares: false, .. })
        };
        assert!(used.chosen_per_fold.iter().all(|c| configured(&c)), "{critic}: {:?}", used.chosen_per_fold);
        // One critic trained per fold, for at most the step limit.
        let steps = e.diagnostics.steps.unwrap();
        assert!(steps <= 5 * 40, "{critic}: {steps} steps");
    }
}
