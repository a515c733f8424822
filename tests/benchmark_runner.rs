//! The benchmark runner: resumable (a partial file is completed, a truncated last line redone,
//! the final results equal an uninterrupted run's), deterministic across threads, and sharded
//! (the shards are disjoint and their union is the whole plan).

use mibound::benchmark::{Config, RunKey, RunOptions, RunRecord, Shard, read_results, run};
use mibound::estimators::Options;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn config() -> Config {
    let mut neural = Options::default();
    (neural.steps, neural.batch, neural.folds) = (20, 32, 2);
    Config {
        tasks: vec!["1v1-normal-0.75".into(), "multinormal-dense-2-2-0.5".into()],
        estimators: vec!["gaussian".into(), "ksg:k=3".into(), "infonce".into()],
        sizes: vec![200, 300],
        seeds: vec![0, 1],
        neural,
    }
}

fn dir(name: &str) -> crate::common::TempDir {
    crate::common::temp_dir("benchmark-runner", name)
}

fn opts(threads: usize, shard: Shard) -> RunOptions {
    RunOptions { shard, threads, quiet: true }
}

fn by_key(path: &Path) -> BTreeMap<RunKey, RunRecord> {
    let (records, _) = read_results(path).unwrap();
    let n = records.len();
    let map: BTreeMap<RunKey, RunRecord> = records.into_iter().map(|r| (r.key(), r)).collect();
    assert_eq!(map.len(), n, "a key appears twice in {}", path.display());
    map
}

fn assert_same_results(a: &BTreeMap<RunKey, RunRecord>, b: &BTreeMap<RunKey, RunRecord>) {
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (k, ra) in a {
        assert!(ra.same_result(&b[k]), "{k}: {ra:?} vs {:?}", b[k]);
    }
}

#[test]
fn a_partial_file_is_completed_and_equals_an_uninterrupted_run() {
    let d = dir("resume");
    let plan = config().plan().unwrap();
    assert_eq!(plan.runs.len(), 2 * 3 * 2 * 2);
    let full = d.join("full.jsonl");
    let s = run(&plan, &full, &opts(2, Shard::default())).unwrap();
    assert_eq!((s.in_shard, s.already_done, s.ran, s.failed), (24, 0, 24, 0));
    let reference = by_key(&full);
    assert_eq!(reference.len(), 24);
    for r in reference.values() {
        assert!(r.estimate.is_some_and(f64::is_finite), "{r:?}");
        assert_eq!(r.error, Some(r.estimate.unwrap() - r.true_mi));
    }

    // A killed runner: 7 complete lines and half of the 8th, without its newline.
    let text = std::fs::read_to_string(&full).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut partial = lines[..7].join("\n");
    partial.push('\n');
    partial.push_str(&lines[7][..lines[7].len() / 2]);
    let resumed = d.join("resumed.jsonl");
    std::fs::write(&resumed, &partial).unwrap();
    let s = run(&plan, &resumed, &opts(2, Shard::default())).unwrap();
    assert!(s.dropped_partial_line);
    assert_eq!((s.already_done, s.ran), (7, 17), "only the missing runs are done");
    // The 7 kept lines are untouched, byte for byte.
    let after = std::fs::read_to_string(&resumed).unwrap();
    assert!(after.starts_with(&lines[..7].join("\n")));
    assert!(after.ends_with('\n'));
    assert_same_results(&reference, &by_key(&resumed));

    // A complete file: nothing to do, the file unchanged.
    let s = run(&plan, &resumed, &opts(2, Shard::default())).unwrap();
    assert_eq!((s.already_done, s.ran, s.dropped_partial_line), (24, 0, false));
    assert_eq!(std::fs::read_to_string(&resumed).unwrap(), after);
}

#[test]
fn results_do_not_depend_on_threads_and_every_estimator_sees_the_same_samples() {
    let d = dir("threads");
    let plan = config().plan().unwrap();
    let (a, b) = (d.join("a.jsonl"), d.join("b.jsonl"));
    run(&plan, &a, &opts(1, Shard::default())).unwrap();
    run(&plan, &b, &opts(2, Shard::default())).unwrap();
    let (ra, rb) = (by_key(&a), by_key(&b));
    assert_same_results(&ra, &rb);
    // The sample seed is a function of (task, n, seed) only.
    for r in ra.values() {
        assert_eq!(r.sample_seed, mibound::benchmark::sample_seed(&r.task, r.n, r.seed));
    }
    let seeds: BTreeSet<u64> = ra.values().map(|r| r.sample_seed).collect();
    assert_eq!(seeds.len(), 2 * 2 * 2, "one sample seed per (task, n, seed), distinct");
}

#[test]
fn other_settings_in_the_file_are_refused_and_a_corrupt_line_is_named() {
    let d = dir("settings");
    let plan = config().plan().unwrap();
    let out = d.join("r.jsonl");
    run(&plan, &out, &opts(2, Shard::default())).unwrap();
    let mut other = config();
    other.neural.steps = 30;
    let err = run(&other.plan().unwrap(), &out, &opts(2, Shard::default())).unwrap_err().to_string();
    assert!(err.contains("steps=20") && err.contains("steps=30") && err.contains("another results file"), "{err}");

    let bad = d.join("bad.jsonl");
    let text = std::fs::read_to_string(&out).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[3] = "{\"not\": \"a result\"}";
    std::fs::write(&bad, lines.join("\n") + "\n").unwrap();
    let err = run(&plan, &bad, &opts(2, Shard::default())).unwrap_err().to_string();
    assert!(err.contains("line 4") && err.contains("not a benchmark result") && !err.contains('\n'), "{err}");
}

#[test]
fn two_shards_are_disjoint_and_their_union_is_the_whole_run() {
    let d = dir("shards");
    let plan = config().plan().unwrap();
    let (s1, s2, whole) = (d.join("s1.jsonl"), d.join("s2.jsonl"), d.join("whole.jsonl"));
    let a = run(&plan, &s1, &opts(2, "1/2".parse().unwrap())).unwrap();
    let b = run(&plan, &s2, &opts(2, "2/2".parse().unwrap())).unwrap();
    assert_eq!((a.in_shard, b.in_shard), (12, 12));
    run(&plan, &whole, &opts(2, Shard::default())).unwrap();
    let (r1, r2, rw) = (by_key(&s1), by_key(&s2), by_key(&whole));
    assert!(r1.keys().all(|k| !r2.contains_key(k)), "shards overlap");
    let mut union = r1.clone();
    union.extend(r2);
    assert_same_results(&union, &rw);
    let planned: BTreeSet<RunKey> = plan.runs.iter().map(|r| r.key.clone()).collect();
    assert_eq!(union.keys().cloned().collect::<BTreeSet<_>>(), planned);
}

#[test]
fn shards_are_deterministic_whatever_the_order_of_the_configuration() {
    let plan = config().plan().unwrap();
    let mut reordered = config();
    reordered.estimators.reverse();
    reordered.tasks.reverse();
    reordered.seeds.reverse();
    let other = reordered.plan().unwrap();
    for shard in ["1/3", "2/3", "3/3"] {
        let s: Shard = shard.parse().unwrap();
        let pick = |p: &mibound::benchmark::Plan| -> Vec<RunKey> {
            p.runs.iter().enumerate().filter(|(j, _)| s.contains(*j)).map(|(_, r)| r.key.clone()).collect()
        };
        assert_eq!(pick(&plan), pick(&other), "shard {shard}");
        assert_eq!(pick(&plan).len(), 8);
    }
    // Sorted by key: the i-th of every n.
    let keys: Vec<&RunKey> = plan.runs.iter().map(|r| &r.key).collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn bad_shards_are_one_line_errors() {
    for bad in ["0/2", "3/2", "1/0", "a/b", "2", "", "1/2/3", "-1/2"] {
        let err = bad.parse::<Shard>().unwrap_err().to_string();
        assert!(err.contains("shard") && err.contains("i/n") && !err.contains('\n'), "{bad}: {err}");
    }
    assert_eq!("2/3".parse::<Shard>().unwrap(), Shard { index: 2, count: 3 });
    assert_eq!(" 1 / 1 ".parse::<Shard>().unwrap(), Shard::default());
}
