//! Doing the runs: resumable (runs already in the results file are skipped), sharded, in
//! parallel across runs, one appended JSON line per finished run.

use super::{Plan, PlannedRun, RecordInterval, RunKey, RunRecord, Shard, estimator_seed, sample_seed};
use crate::error::{Error, Result};
use crate::estimators::CheckedSettings;
use crate::tasks;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::io::{Read, Seek, Write};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// How [`run`] runs.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Which part of the plan.
    pub shard: Shard,
    /// Threads (runs in parallel, and the classical estimators' queries, share one pool of this
    /// size; each neural training step uses one thread).
    pub threads: usize,
    /// No line per finished run on stderr.
    pub quiet: bool,
}

impl Default for RunOptions {
    /// The whole plan on every core, with progress lines.
    fn default() -> Self {
        RunOptions {
            shard: Shard::default(),
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            quiet: false,
        }
    }
}

/// What [`run`] did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunSummary {
    /// Runs in the whole plan.
    pub planned: usize,
    /// Runs in this shard.
    pub in_shard: usize,
    /// Runs of this shard already in the results file (skipped).
    pub already_done: usize,
    /// Runs done now.
    pub ran: usize,
    /// Runs done now whose estimator failed (recorded with `failure`).
    pub failed: usize,
    /// Whether an incomplete last line (from a killed runner) was dropped.
    pub dropped_partial_line: bool,
    /// Wall seconds of this call.
    pub wall_seconds: f64,
}

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Io { path: path.to_path_buf(), source }
}

/// Reads a results file: every complete line must be a [`RunRecord`] (an error naming the line
/// otherwise); an incomplete last line (no newline: a killed writer) is ignored. Returns the
/// records and the byte length of the complete lines. A missing file is empty.
pub fn read_results(path: &Path) -> Result<(Vec<RunRecord>, u64)> {
    let mut text = String::new();
    match std::fs::File::open(path) {
        Ok(mut f) => {
            f.read_to_string(&mut text).map_err(io_err(path))?;
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
        Err(e) => return Err(io_err(path)(e)),
    }
    let complete = text.rfind('\n').map_or(0, |i| i + 1);
    let mut records = Vec::new();
    for (i, line) in text[..complete].lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let r: RunRecord = serde_json::from_str(line).map_err(|e| Error::Data {
            path: path.to_path_buf(),
            msg: format!("line {}: not a benchmark result ({e})", i + 1),
        })?;
        records.push(r);
    }
    Ok((records, complete as u64))
}

/// Draws the run's samples and runs its estimator; an estimator error is recorded as a failed
/// run, not returned.
pub fn run_one(run: &PlannedRun, settings: &CheckedSettings) -> RunRecord {
    let k = &run.key;
    let s_seed = sample_seed(&k.task, k.n, k.seed);
    let mut rec = RunRecord {
        task: k.task.clone(),
        estimator: k.estimator.clone(),
        n: k.n,
        seed: k.seed,
        sample_seed: s_seed,
        estimate: None,
        interval: None,
        kind: None,
        true_mi: run.true_mi,
        error: None,
        wall_seconds: 0.0,
        steps: None,
        warnings: Vec::new(),
        failure: None,
        dim_x: run.dims.0,
        dim_y: run.dims.1,
        settings: run.settings.clone(),
    };
    let result = (|| {
        let task = tasks::get(&k.task)?;
        let (x, y) = task.draw(k.n, s_seed)?;
        let est = run.spec.build(settings)?;
        let t0 = Instant::now();
        let e = est.estimate(x.as_view(), y.as_view(), estimator_seed(s_seed));
        Ok::<_, Error>((e?, t0.elapsed().as_secs_f64()))
    })();
    let finite = |v: f64| v.is_finite().then_some(v);
    match result {
        Ok((e, secs)) => {
            rec.estimate = finite(e.value);
            rec.error = rec.estimate.map(|v| v - run.true_mi);
            rec.interval = Some(RecordInterval {
                low: finite(e.interval.low),
                high: finite(e.interval.high),
                level: e.interval.level,
                method: e.interval.method.clone(),
            });
            rec.kind = Some(e.kind);
            rec.wall_seconds = secs;
            rec.steps = e.diagnostics.steps;
            // Records hold the sentences (JSON lines that older shards also hold).
            rec.warnings = e.diagnostics.warnings.iter().map(ToString::to_string).collect();
            if rec.estimate.is_none() {
                rec.warnings.push(format!("non-finite estimate {}", e.value));
            }
        }
        Err(e) => rec.failure = Some(e.to_string()),
    }
    rec
}

/// Runs the runs of `opts.shard` that `out` does not hold yet, appending one line per finished
/// run; see the module docs. One runner per results file at a time (shards write their own).
// Long because resuming, sharding, the worker pool, appending and the summary share the same
// handful of local variables; split, they would pass them all around.
pub fn run(plan: &Plan, out: &Path, opts: &RunOptions) -> Result<RunSummary> {
    let t0 = Instant::now();
    if opts.threads == 0 {
        return Err(Error::param("threads", 0, "must be at least 1"));
    }
    let mine: Vec<&PlannedRun> =
        plan.runs.iter().enumerate().filter(|(j, _)| opts.shard.contains(*j)).map(|(_, r)| r).collect();
    let (existing, complete_len) = read_results(out)?;
    let done: BTreeMap<RunKey, &RunRecord> = existing.iter().map(|r| (r.key(), r)).collect();
    for r in &mine {
        if let Some(old) = done.get(&r.key)
            && old.settings != r.settings
        {
            return Err(Error::Data {
                path: out.to_path_buf(),
                msg: format!(
                    "{} was run with settings '{}', the configuration now says '{}': use another results file",
                    r.key, old.settings, r.settings
                ),
            });
        }
    }
    let mut pending: Vec<&PlannedRun> = mine.iter().copied().filter(|r| !done.contains_key(&r.key)).collect();
    // The longest runs first (neural, then by dimension), so the last runs are short ones.
    pending.sort_by_key(|r| (r.spec.bound().is_none(), std::cmp::Reverse(r.dims.0 + r.dims.1), r.key.clone()));
    let mut summary = RunSummary {
        planned: plan.runs.len(),
        in_shard: mine.len(),
        already_done: mine.len() - pending.len(),
        ..Default::default()
    };

    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .read(true)
        .write(true)
        .truncate(false)
        .open(out)
        .map_err(io_err(out))?;
    let len = file.metadata().map_err(io_err(out))?.len();
    if len > complete_len {
        // The incomplete last line of a killed runner: dropped, and its run redone.
        file.set_len(complete_len).map_err(io_err(out))?;
        summary.dropped_partial_line = true;
    }
    file.seek(std::io::SeekFrom::End(0)).map_err(io_err(out))?;
    drop(file);
    if pending.is_empty() {
        summary.wall_seconds = t0.elapsed().as_secs_f64();
        return Ok(summary);
    }
    let file = std::fs::OpenOptions::new().append(true).open(out).map_err(io_err(out))?;
    let writer = Mutex::new(file);
    let finished = AtomicUsize::new(0);
    let failed = AtomicUsize::new(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads)
        .build()
        .map_err(|e| Error::param("threads", opts.threads, &e.to_string()))?;
    let total = pending.len();
    let res: Result<()> = pool.install(|| {
        pending.par_iter().with_max_len(1).try_for_each(|r| {
            let rec = run_one(r, &plan.settings);
            let mut line = serde_json::to_string(&rec)
                .map_err(|e| Error::Format { context: format!("result of {}", r.key), msg: e.to_string() })?;
            line.push('\n');
            {
                let mut f = writer.lock().unwrap_or_else(|p| p.into_inner());
                // One write of the whole line, then flush: a kill leaves at most a partial last line.
                f.write_all(line.as_bytes()).map_err(io_err(out))?;
                f.flush().map_err(io_err(out))?;
            }
            let k = finished.fetch_add(1, Ordering::SeqCst) + 1;
            if rec.failure.is_some() {
                failed.fetch_add(1, Ordering::SeqCst);
            }
            if !opts.quiet {
                let what = match (&rec.failure, rec.estimate) {
                    (Some(f), _) => format!("failed: {f}"),
                    (None, Some(v)) => format!("{v:.3} (true {:.3})", rec.true_mi),
                    (None, None) => "non-finite".into(),
                };
                eprintln!("[{k}/{total}] {}: {what}, {:.1} s", r.key, rec.wall_seconds);
            }
            Ok(())
        })
    });
    res?;
    summary.ran = finished.load(Ordering::SeqCst);
    summary.failed = failed.load(Ordering::SeqCst);
    summary.wall_seconds = t0.elapsed().as_secs_f64();
    Ok(summary)
}
