//! `mibound benchmark` and `mibound benchmark report`.

use super::BenchmarkArgs;
use crate::error::{Error, Result};
use std::path::Path;

/// `mibound benchmark`: runs the configuration's missing runs of one shard into `--out`.
pub fn benchmark(a: &BenchmarkArgs) -> Result<()> {
    use crate::benchmark::{Config, RunOptions, Shard};
    let config = match (&a.config, a.quick) {
        (Some(_), true) => return Err(Error::param("--quick", "with --config", "choose one of --config and --quick")),
        (Some(p), false) => Config::from_file(p)?,
        (None, true) => Config::quick(),
        (None, false) => Config::default_full(),
    };
    if a.print_config {
        print!("{}", config.to_toml()?);
        return Ok(());
    }
    let plan = config.plan()?;
    let shard: Shard = a.shard.as_deref().map(str::parse).transpose()?.unwrap_or_default();
    let mut opts = RunOptions { shard, quiet: a.quiet, ..Default::default() };
    if let Some(t) = a.threads {
        if t == 0 {
            return Err(Error::param("--threads", 0, "must be at least 1"));
        }
        opts.threads = t;
    }
    let Some(out) = a.out.as_deref() else {
        if a.dry_run {
            let in_shard = (0..plan.runs.len()).filter(|&j| shard.contains(j)).count();
            println!("{} runs in the plan, {in_shard} in shard {shard}", plan.runs.len());
            return Ok(());
        }
        return Err(Error::param("--out", "(missing)", "name the results file, e.g. --out results.jsonl"));
    };
    if a.dry_run {
        let (done, _) = crate::benchmark::read_results(out)?;
        let done: std::collections::BTreeSet<_> = done.iter().map(|r| r.key()).collect();
        let mine: Vec<_> = plan.runs.iter().enumerate().filter(|(j, _)| shard.contains(*j)).collect();
        let missing = mine.iter().filter(|(_, r)| !done.contains(&r.key)).count();
        println!(
            "{} runs in the plan, {} in shard {shard}, {} already in {}, {missing} to run",
            plan.runs.len(),
            mine.len(),
            mine.len() - missing,
            out.display()
        );
        return Ok(());
    }
    let s = crate::benchmark::run(&plan, out, &opts)?;
    if s.dropped_partial_line {
        eprintln!("note: dropped the incomplete last line of {} (a killed run); it is redone", out.display());
    }
    println!(
        "shard {shard}: {} of {} runs; {} already done, {} run now ({} failed) in {:.1} s on {} threads -> {}",
        s.in_shard,
        s.planned,
        s.already_done,
        s.ran,
        s.failed,
        s.wall_seconds,
        opts.threads,
        out.display()
    );
    Ok(())
}

/// `mibound benchmark report`: merges results files into a table and figures.
pub fn benchmark_report(files: &[std::path::PathBuf], out: &Path) -> Result<()> {
    let m = crate::benchmark::report::merge(files)?;
    for p in &m.partial_lines {
        eprintln!("note: ignored the incomplete last line of {}", p.display());
    }
    for c in &m.conflicts {
        eprintln!("conflict: {c}");
    }
    let written = crate::benchmark::report::write(&m, out)?;
    println!(
        "{} runs merged from {} file(s) ({} duplicates removed, {} conflicts); wrote {}",
        m.records.len(),
        files.len(),
        m.duplicates,
        m.conflicts.len(),
        written.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    );
    Ok(())
}
