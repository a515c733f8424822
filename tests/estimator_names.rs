//! One list of estimator names (`EstimatorSpec::NAMES`, made of each family's list): the
//! command line's `--help` prints it, the parser refuses an unknown name with it, and README.md
//! names every family of it and no other. python/tests/test_defaults.py checks that Python's
//! `mibound.ESTIMATORS` is the same list.

use crate::common;

use mibound::estimators::EstimatorSpec;
use std::collections::BTreeSet;

/// The backticked names of README.md's bullet that lists the estimators, without the words
/// that point at the lists (`Estimator`, the command and the Python constant).
fn readme_names() -> BTreeSet<String> {
    let text = std::fs::read_to_string("README.md").unwrap();
    let start = text.find("- One `Estimator` interface").expect("README.md lists the estimators in a bullet");
    let bullet = &text[start..];
    let bullet = &bullet[..bullet[2..].find("\n- ").map_or(bullet.len(), |e| e + 2)];
    bullet
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|w| !["Estimator", "mibound estimate --help", "mibound.ESTIMATORS"].contains(w))
        .map(String::from)
        .collect()
}

fn squeeze(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn the_readme_names_every_family_of_the_one_list() {
    let families: BTreeSet<String> = EstimatorSpec::families().into_iter().map(String::from).collect();
    assert!(families.contains("ksg-blocks") && families.contains("flow-entropy") && families.contains("auto"));
    assert_eq!(readme_names(), families);
    // Every family parses (with its parameters where it needs one).
    for f in EstimatorSpec::families() {
        let name = match f {
            "tuba" => "tuba:0".to_string(),
            "ba" => "ba:1".to_string(),
            f => f.to_string(),
        };
        EstimatorSpec::parse(&name).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[cfg(feature = "cli")]
#[test]
fn help_and_the_parser_print_the_one_list() {
    let out = common::mibound().args(["estimate", "--help"]).output().unwrap();
    let help = squeeze(&String::from_utf8_lossy(&out.stdout));
    assert!(help.contains(&squeeze(EstimatorSpec::NAMES)), "--help lacks the list: {help}");
    let out = common::mibound().args(["estimate", "--x", "x.npy", "--estimators", "nosuch"]).output().unwrap();
    let err = squeeze(&String::from_utf8_lossy(&out.stderr));
    assert!(err.contains(&squeeze(EstimatorSpec::NAMES)), "the refusal lacks the list: {err}");
}
