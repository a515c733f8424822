//! `mibound benchmark` on the command line: the quick preset runs and resumes, a report is
//! written, and every mistake is one line on stderr with exit code 2.

use std::process::Command;

fn mibound(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mibound")).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn dir(name: &str) -> crate::common::TempDir {
    crate::common::temp_dir("benchmark-cli", name)
}

#[test]
fn quick_runs_resumes_and_reports() {
    let d = dir("quick");
    let out = d.join("r.jsonl");
    let o = out.to_str().unwrap();
    let (code, stdout, stderr) = mibound(&["benchmark", "--quick", "--out", o, "--quiet"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("15 of 15 runs; 0 already done, 15 run now (0 failed)"), "{stdout}");
    let (code, stdout, _) = mibound(&["benchmark", "--quick", "--out", o, "--dry-run"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("15 already in") && stdout.contains("0 to run"), "{stdout}");
    let (code, stdout, _) = mibound(&["benchmark", "--quick", "--out", o]);
    assert_eq!(code, 0);
    assert!(stdout.contains("15 already done, 0 run now"), "{stdout}");
    let rep = d.join("report");
    let (code, stdout, stderr) = mibound(&["benchmark", "report", o, o, "--out", rep.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("15 runs merged from 2 file(s) (15 duplicates removed, 0 conflicts)"), "{stdout}");
    assert!(rep.join("heatmap.svg").exists() && rep.join("table.md").exists());
}

#[test]
fn mistakes_are_one_line_and_exit_2() {
    let d = dir("errors");
    let bad = d.join("bad.toml");
    std::fs::write(&bad, "tasks = [\"no-such-task\"]\nestimators = [\"ksg\"]\nsizes = [100]\nseeds = [0]\n").unwrap();
    let unknown_est = d.join("est.toml");
    std::fs::write(&unknown_est, "tasks = [\"bmi\"]\nestimators = [\"ksgg\"]\nsizes = [100]\nseeds = [0]\n").unwrap();
    let out = d.join("r.jsonl");
    let o = out.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["benchmark", "--config", bad.to_str().unwrap(), "--out", o], "unknown task 'no-such-task'"),
        (vec!["benchmark", "--config", unknown_est.to_str().unwrap(), "--out", o], "unknown estimator 'ksgg'"),
        (vec!["benchmark", "--config", "/nonexistent.toml", "--out", o], "/nonexistent.toml"),
        (vec!["benchmark", "--quick", "--config", bad.to_str().unwrap(), "--out", o], "choose one"),
        (vec!["benchmark", "--quick", "--shard", "3/2", "--out", o], "shard"),
        (vec!["benchmark", "--quick", "--threads", "0", "--out", o], "threads"),
        (vec!["benchmark", "--quick"], "--out"),
        (vec!["benchmark", "report", "/nonexistent.jsonl", "--out", o], "/nonexistent.jsonl"),
        (vec!["benchmark", "report", "--out", o], "required"),
    ];
    for (args, want) in cases {
        let (code, _, stderr) = mibound(&args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(want), "{args:?}: {stderr}");
    }
    assert!(!out.exists(), "no results file is made by a failed command");
}
