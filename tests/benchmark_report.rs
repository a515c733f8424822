//! `benchmark report`: results files merged (duplicates removed, conflicts reported, a
//! truncated last line ignored), the table computed from the runs, and the figures written.

use mibound::benchmark::report::{self, Table, merge};
use mibound::benchmark::{Config, RunOptions, Shard, run};
use mibound::estimators::Options;
use std::path::PathBuf;

fn config() -> Config {
    Config {
        tasks: vec!["1v1-normal-0.75".into(), "multinormal-sparse-2-2-2-2.0".into()],
        estimators: vec!["gaussian".into(), "ksg:k=3".into(), "copula".into()],
        sizes: vec![300],
        seeds: vec![0, 1],
        neural: Options::default(),
    }
}

fn dir(name: &str) -> crate::common::TempDir {
    crate::common::temp_dir("benchmark-report", name)
}

fn results(d: &std::path::Path, name: &str, shard: &str) -> PathBuf {
    let p = d.join(name);
    let opts = RunOptions { shard: shard.parse::<Shard>().unwrap(), threads: 2, quiet: true };
    run(&config().plan().unwrap(), &p, &opts).unwrap();
    p
}

#[test]
fn duplicates_are_removed_and_shards_merge_to_the_single_run_table() {
    let d = dir("dups");
    let whole = results(&d, "whole.jsonl", "1/1");
    let (s1, s2) = (results(&d, "s1.jsonl", "1/2"), results(&d, "s2.jsonl", "2/2"));
    let m = merge(&[whole.clone(), whole.clone()]).unwrap();
    assert_eq!((m.records.len(), m.duplicates, m.conflicts.len()), (12, 12, 0));
    let single = merge(std::slice::from_ref(&whole)).unwrap();
    let sharded = merge(&[s2.clone(), s1.clone(), s1.clone()]).unwrap();
    assert_eq!((sharded.records.len(), sharded.duplicates), (12, 6));
    assert_eq!(report::markdown(&single), report::markdown(&sharded));
    assert_eq!(report::markdown(&m), report::markdown(&single));
}

#[test]
fn conflicting_duplicates_are_reported_and_the_first_is_kept() {
    let d = dir("conflicts");
    let whole = results(&d, "whole.jsonl", "1/1");
    let text = std::fs::read_to_string(&whole).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut rec: serde_json::Value = serde_json::from_str(&lines[2]).unwrap();
    let original = rec["estimate"].as_f64().unwrap();
    rec["estimate"] = serde_json::json!(original + 0.5);
    lines[2] = rec.to_string();
    let other = d.join("other.jsonl");
    std::fs::write(&other, lines.join("\n") + "\n").unwrap();

    let m = merge(&[whole.clone(), other.clone()]).unwrap();
    assert_eq!((m.records.len(), m.duplicates, m.conflicts.len()), (12, 11, 1));
    let c = &m.conflicts[0];
    assert_eq!(c.key.task, rec["task"].as_str().unwrap());
    assert_eq!(c.key.estimator, rec["estimator"].as_str().unwrap());
    assert_eq!((c.kept_estimate, c.dropped_estimate), (Some(original), Some(original + 0.5)));
    assert_eq!((&c.kept, &c.dropped), (&whole, &other));
    let kept = m.records.iter().find(|r| r.key() == c.key).unwrap();
    assert_eq!(kept.estimate, Some(original));
    let md = report::markdown(&m);
    assert!(md.contains("## Conflicts") && md.contains(&c.key.to_string()), "{md}");
    // The other order keeps the other value.
    let m2 = merge(&[other, whole]).unwrap();
    assert_eq!(m2.records.iter().find(|r| r.key() == c.key).unwrap().estimate, Some(original + 0.5));
    // Only the wall time differs: a duplicate, not a conflict.
    let mut r = m.records[0].clone();
    r.wall_seconds += 1.0;
    assert!(r.same_result(&m.records[0]));
}

#[test]
fn a_truncated_last_line_is_ignored_and_missing_files_are_errors() {
    let d = dir("partial");
    let whole = results(&d, "whole.jsonl", "1/1");
    let text = std::fs::read_to_string(&whole).unwrap();
    let cut = d.join("cut.jsonl");
    std::fs::write(&cut, &text[..text.len() - 40]).unwrap();
    let m = merge(std::slice::from_ref(&cut)).unwrap();
    assert_eq!((m.records.len(), m.partial_lines.clone()), (11, vec![cut]));
    let err = merge(&[d.join("missing.jsonl")]).unwrap_err().to_string();
    assert!(err.contains("missing.jsonl"), "{err}");
    assert!(merge(&[]).is_err());
}

#[test]
fn the_table_is_the_mean_and_sd_over_seeds_and_ranks_by_error() {
    let d = dir("table");
    let whole = results(&d, "whole.jsonl", "1/1");
    let m = merge(&[whole]).unwrap();
    let t = Table::new(&m.records);
    assert_eq!(t.estimators, ["copula", "gaussian", "ksg:k=3"]);
    assert_eq!(t.rows.len(), 2);
    assert_eq!(t.rows[0].task, "1v1-normal-0.75", "bmi's order");
    let est = |task: &str, e: &str| -> Vec<f64> {
        m.records.iter().filter(|r| r.task == task && r.estimator == e).map(|r| r.estimate.unwrap()).collect()
    };
    let g = est("1v1-normal-0.75", "gaussian");
    assert_eq!(g.len(), 2);
    let mean = (g[0] + g[1]) / 2.0;
    let sd = ((g[0] - mean).powi(2) + (g[1] - mean).powi(2)).sqrt();
    let md = report::markdown(&m);
    assert!(md.contains("| 1v1-normal-0.75 | 300 | 1×1 | 0.41 | "), "{md}");
    assert!(md.contains(&format!("{mean:.2} ± {sd:.2}")), "{md}");
    let s = t.summary();
    let mut mae: Vec<(f64, &str)> = s.iter().map(|e| (e.mae, e.estimator.as_str())).collect();
    mae.sort_by(|a, b| a.0.total_cmp(&b.0));
    for e in &s {
        let pos = mae.iter().position(|(_, n)| *n == e.estimator).unwrap();
        assert_eq!(e.rank, pos + 1);
        assert!(e.mean_rank >= 1.0 && e.mean_rank <= 3.0);
        assert_eq!(e.failed, 0);
        // MAE recomputed from the records.
        let mut errs = Vec::new();
        for row in &t.rows {
            let v = est(&row.task, &e.estimator);
            errs.push((v.iter().sum::<f64>() / v.len() as f64 - row.true_mi).abs());
        }
        assert!((e.mae - errs.iter().sum::<f64>() / 2.0).abs() < 1e-12);
    }
}

#[test]
fn the_report_writes_the_table_and_both_figures_in_png_and_svg() {
    let d = dir("write");
    let whole = results(&d, "whole.jsonl", "1/1");
    let m = merge(&[whole]).unwrap();
    let out = d.join("report");
    let written = report::write(&m, &out).unwrap();
    for name in ["table.md", "timing.md", "merged.jsonl", "heatmap.png", "heatmap.svg", "scatter.png", "scatter.svg"] {
        let p = out.join(name);
        assert!(written.contains(&p), "{name} not listed");
        assert!(std::fs::metadata(&p).unwrap().len() > 100, "{name} is empty");
    }
    let png = std::fs::read(out.join("heatmap.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    let svg = std::fs::read_to_string(out.join("heatmap.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.contains("1v1-normal-0.75") && svg.contains("ksg:k=3"));
    assert_eq!(std::fs::read_to_string(out.join("merged.jsonl")).unwrap().lines().count(), 12);
    assert!(report::write(&report::Merged::default(), &out).is_err());
}
