//! Benchmark configurations: TOML and JSON read the same, names expanded and checked, and every
//! mistake (unknown task, unknown estimator, unknown key, bad syntax, empty lists, bad numbers)
//! is one clear line.

use mibound::benchmark::{Config, expand_tasks};
use std::path::Path;

fn toml(text: &str) -> mibound::Result<Config> {
    Config::from_toml(text, Path::new("bench.toml"))
}

const GOOD: &str = r#"
tasks = ["1v1-normal-0.75", "multinormal-sparse"]
estimators = ["ksg", "copula", "smile:5"]
sizes = [1000, 2000]
seeds = [0, 1, 2]
[neural]
steps = 50
folds = 2
"#;

fn one_line(e: &mibound::Error) -> String {
    let s = e.to_string();
    assert!(!s.contains('\n'), "not one line: {s}");
    s
}

#[test]
fn toml_and_json_give_the_same_plan() {
    let t = toml(GOOD).unwrap();
    let j = Config::from_json(
        r#"{"tasks": ["1v1-normal-0.75", "multinormal-sparse"], "estimators": ["ksg", "copula", "smile:5"],
            "sizes": [1000, 2000], "seeds": [0, 1, 2], "neural": {"steps": 50, "folds": 2}}"#,
        Path::new("bench.json"),
    )
    .unwrap();
    assert_eq!(t, j);
    let plan = t.plan().unwrap();
    // 1 + 6 sparse multinormal tasks (bmi's 4, the extra 5-5-5-10.0 and 5-5-5-3.0), 3 estimators,
    // 2 sizes, 3 seeds.
    assert_eq!(plan.tasks.len(), 7);
    assert_eq!(plan.runs.len(), 7 * 3 * 2 * 3);
    assert_eq!(plan.estimators, ["ksg:k=5", "copula", "smile:5"], "canonical names");
    assert_eq!(plan.settings.neural.max_steps, 50);
    assert_eq!(plan.settings.neural.folds, 2);
    assert_eq!(plan.settings.neural.compute.threads, 1);
    let smile = plan.runs.iter().find(|r| r.key.estimator == "smile:5").unwrap();
    assert!(smile.settings.contains("steps=50") && smile.settings.contains("folds=2"));
    assert!(plan.runs.iter().filter(|r| r.key.estimator == "copula").all(|r| r.settings.is_empty()));
    // The printed TOML reads back.
    assert_eq!(toml(&t.to_toml().unwrap()).unwrap(), t);
}

#[test]
fn the_default_and_the_quick_preset() {
    let d = Config::default_full().plan().unwrap();
    assert_eq!(d.tasks, mibound::tasks::BMI_IDS.map(String::from).to_vec());
    assert_eq!(d.runs.len(), 40 * 9 * 3);
    assert!(d.runs.iter().all(|r| r.key.n == 5000));
    let q = Config::quick().plan().unwrap();
    assert_eq!(q.runs.len(), 5 * 3);
    assert!(q.runs.iter().all(|r| r.key.n == 1000 && r.key.seed == 0));
}

#[test]
fn groups_and_families_expand_to_ids() {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(expand_tasks(&s(&["bmi"])).unwrap().len(), 40);
    assert_eq!(expand_tasks(&s(&["multinormal-dense"])).unwrap().len(), 5);
    assert_eq!(expand_tasks(&s(&["all"])).unwrap(), mibound::tasks::all_ids());
    use mibound::tasks::{Split, split_ids};
    assert_eq!(expand_tasks(&s(&["tuning"])).unwrap(), split_ids(Split::Tuning));
    assert_eq!(expand_tasks(&s(&["held-out"])).unwrap(), split_ids(Split::HeldOut));
    // Duplicates once, in order of first appearance.
    assert_eq!(
        expand_tasks(&s(&["1v1-normal-0.75", "bmi"])).unwrap()[..2],
        s(&["1v1-normal-0.75", "normal_cdf-1v1-normal-0.75"])[..]
    );
}

#[test]
fn unknown_task_and_unknown_estimator_are_one_clear_line() {
    let c = toml(&GOOD.replace("\"1v1-normal-0.75\"", "\"1v1-normal-0.99x\"")).unwrap();
    let e = c.plan().unwrap_err();
    let m = one_line(&e);
    assert!(matches!(e, mibound::Error::Unknown { kind: "task", .. }), "{m}");
    assert!(m.contains("unknown task '1v1-normal-0.99x'") && m.contains("bmi, extra, all"), "{m}");

    let c = toml(&GOOD.replace("\"copula\"", "\"kopula\"")).unwrap();
    let e = c.plan().unwrap_err();
    let m = one_line(&e);
    assert!(m.contains("unknown estimator 'kopula'") && m.contains("infonce"), "{m}");

    let c = toml(&GOOD.replace("\"smile:5\"", "\"ksg:k=0\"")).unwrap();
    let m = one_line(&c.plan().unwrap_err());
    assert!(m.contains('k'), "{m}");
}

#[test]
fn syntax_errors_unknown_keys_and_wrong_types_name_the_file_and_line() {
    let m = one_line(&toml(&GOOD.replace("seeds = [0, 1, 2]", "seeds = [0, 1, 2")).unwrap_err());
    assert!(m.starts_with("bench.toml: line "), "{m}");
    let m = one_line(&toml(&GOOD.replace("sizes", "sample_sizes")).unwrap_err());
    assert!(m.contains("bench.toml: line 4") && m.contains("sample_sizes"), "{m}");
    let m = one_line(&toml(&GOOD.replace("steps = 50", "stepz = 50")).unwrap_err());
    assert!(m.contains("line 7") && m.contains("stepz"), "{m}");
    let m = one_line(&toml(&GOOD.replace("[1000, 2000]", "[\"many\"]")).unwrap_err());
    assert!(m.contains("bench.toml: line 4"), "{m}");
    let m = one_line(&toml("tasks = [\"bmi\"]\n").unwrap_err());
    assert!(m.contains("estimators"), "{m}");
    let m = one_line(&Config::from_json("{\"tasks\": [}", Path::new("b.json")).unwrap_err());
    assert!(m.starts_with("b.json: ") && m.contains("line 1"), "{m}");
    let m = one_line(&Config::from_file(Path::new("/nonexistent/bench.toml")).unwrap_err());
    assert!(m.contains("/nonexistent/bench.toml"), "{m}");
}

#[test]
fn empty_lists_and_bad_numbers_are_refused_before_any_run() {
    for (from, to, word) in [
        ("estimators = [\"ksg\", \"copula\", \"smile:5\"]", "estimators = []", "estimators"),
        ("tasks = [\"1v1-normal-0.75\", \"multinormal-sparse\"]", "tasks = []", "tasks"),
        ("sizes = [1000, 2000]", "sizes = [1000, 1]", "sizes"),
        ("seeds = [0, 1, 2]", "seeds = []", "seeds"),
        ("folds = 2", "folds = 1", "folds"),
        ("steps = 50", "steps = 0", "steps"),
    ] {
        let c = toml(&GOOD.replace(from, to)).unwrap();
        let m = one_line(&c.plan().unwrap_err());
        assert!(m.contains(word), "{to}: {m}");
    }
}

#[test]
fn neural_options_are_the_estimate_options_checked_once_and_printed_when_changed() {
    use mibound::estimators::Options;
    // Every option of `mibound estimate` (and patience) is a key of [neural]; a bad value is
    // named as the file spells it, with the message the command line and Python give.
    let all = GOOD.replace(
        "folds = 2\n",
        "folds = 2\npatience = 50\ncritic = \"separable\"\nhidden = [64, 64]\nembed = 16\nlr = 0.001\n\
         weight_decay = 0.01\ntransform = \"standardize\"\n",
    );
    let c = toml(&all).unwrap();
    let mut want = Options::default();
    (want.steps, want.folds, want.patience, want.critic, want.hidden) = (50, 2, 50, "separable".into(), vec![64, 64]);
    (want.embed, want.lr, want.weight_decay, want.transform) = (16, 1e-3, 0.01, "standardize".into());
    assert_eq!(c.neural, want);
    assert_eq!(*c.settings().unwrap().neural, {
        let mut s = want.settings(str::to_string).unwrap().neural;
        s.compute.threads = 1;
        s
    });
    // Printed with the changed keys only, steps first, and read back the same.
    let printed = c.to_toml().unwrap();
    assert!(printed.contains("[neural]\nsteps = 50\nfolds = 2\npatience = 50\ncritic = \"separable\""), "{printed}");
    assert_eq!(toml(&printed).unwrap(), c);
    // A run's settings label: the four of older versions, then the other changed options.
    let plan = c.plan().unwrap();
    let smile = plan.runs.iter().find(|r| r.key.estimator == "smile:5").unwrap();
    assert_eq!(
        smile.settings,
        "steps=50,batch=256,folds=2,patience=50,critic=separable,hidden=[64, 64],embed=16,lr=0.001,\
         weight_decay=0.01,transform=standardize"
    );
    let q = Config::quick().plan().unwrap();
    let infonce = q.runs.iter().find(|r| r.key.estimator == "infonce").unwrap();
    assert_eq!(infonce.settings, "steps=100,batch=128,folds=2,patience=120", "the label format of older results files");

    let m = one_line(&toml(&GOOD.replace("folds = 2", "folds = 1")).unwrap().plan().unwrap_err());
    assert_eq!(m, "invalid neural.folds = 1: must be at least 2 (one fold to train, one to test)");
    let m = one_line(&toml(&GOOD.replace("folds = 2", "folds = 2\nlr = -1.0")).unwrap().plan().unwrap_err());
    assert_eq!(m, "invalid neural.lr = -1: must be positive and finite");
}
