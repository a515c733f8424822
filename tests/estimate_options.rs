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
