//! The comparison made from results files: merged (duplicates removed, conflicts reported),
//! a markdown table, and with the `plot` feature a heatmap of estimate − truth and an
//! "estimate against true MI" scatter per estimator (PNG + SVG).

use super::{RunKey, RunRecord, read_results};
use crate::error::{Error, Result};
use crate::tasks;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Two records of one key with different results.
#[derive(Clone, Debug, PartialEq)]
pub struct Conflict {
    /// The run.
    pub key: RunKey,
    /// The file of the record kept (the first read).
    pub kept: PathBuf,
    /// Its estimate.
    pub kept_estimate: Option<f64>,
    /// The file of the record dropped.
    pub dropped: PathBuf,
    /// Its estimate.
    pub dropped_estimate: Option<f64>,
}

impl std::fmt::Display for Conflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let v = |x: Option<f64>| x.map_or("failed".into(), |v| format!("{v:.6}"));
        write!(
            f,
            "{}: {} in {} but {} in {} (kept the first)",
            self.key,
            v(self.kept_estimate),
            self.kept.display(),
            v(self.dropped_estimate),
            self.dropped.display()
        )
    }
}

/// The records of several results files, one per key.
#[derive(Clone, Debug, Default)]
pub struct Merged {
    /// One record per key, sorted by key.
    pub records: Vec<RunRecord>,
    /// Records dropped because an identical result (wall time aside) was already read.
    pub duplicates: usize,
    /// Records dropped because a different result of the same key was already read.
    pub conflicts: Vec<Conflict>,
    /// Files whose incomplete last line was ignored.
    pub partial_lines: Vec<PathBuf>,
}

/// Reads and merges results files in the order given: of several records of one key the first
/// is kept; identical ones (wall time aside) count as duplicates, different ones as conflicts.
pub fn merge(paths: &[PathBuf]) -> Result<Merged> {
    if paths.is_empty() {
        return Err(Error::param("results files", "none", "name at least one"));
    }
    let mut by_key: BTreeMap<RunKey, (RunRecord, PathBuf)> = BTreeMap::new();
    let mut m = Merged::default();
    for p in paths {
        if !p.exists() {
            return Err(Error::Io { path: p.clone(), source: std::io::ErrorKind::NotFound.into() });
        }
        let (records, complete) = read_results(p)?;
        let len = std::fs::metadata(p).map_err(|source| Error::Io { path: p.clone(), source })?.len();
        if len > complete {
            m.partial_lines.push(p.clone());
        }
        for r in records {
            match by_key.get(&r.key()) {
                None => {
                    by_key.insert(r.key(), (r, p.clone()));
                }
                Some((kept, _)) if kept.same_result(&r) => m.duplicates += 1,
                Some((kept, kept_path)) => m.conflicts.push(Conflict {
                    key: r.key(),
                    kept: kept_path.clone(),
                    kept_estimate: kept.estimate,
                    dropped: p.clone(),
                    dropped_estimate: r.estimate,
                }),
            }
        }
    }
    m.records = by_key.into_values().map(|(r, _)| r).collect();
    Ok(m)
}

/// Mean and sample standard deviation (0 for one value).
fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let sd = if v.len() > 1 { (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt() } else { 0.0 };
    (mean, sd)
}

/// One row of the table: a task at one sample size.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Task id.
    pub task: String,
    /// Sample size.
    pub n: usize,
    /// (dim x, dim y).
    pub dims: (usize, usize),
    /// True MI in nats.
    pub true_mi: f64,
    /// Per estimator (in [`Table::estimators`] order): the finite estimates over seeds and the
    /// number of failed or non-finite runs.
    pub cells: Vec<(Vec<f64>, usize)>,
}

/// The merged results arranged as tasks × estimators.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// Estimators, in the order they first appear in key order, neural after classical as in
    /// the default configuration: sorted by name within each group.
    pub estimators: Vec<String>,
    /// Rows in the order of the task catalogue (bmi's 40 first), then by n.
    pub rows: Vec<Row>,
}

fn task_order(id: &str) -> (usize, String) {
    let ids = tasks::all_ids();
    (ids.iter().position(|t| t == id).unwrap_or(usize::MAX), id.to_string())
}

fn is_neural(name: &str) -> bool {
    crate::estimators::EstimatorSpec::parse(name).map(|s| s.bound().is_some()).unwrap_or(false)
}

impl Table {
    /// Arranges records (one per key) as tasks × estimators.
    pub fn new(records: &[RunRecord]) -> Self {
        let mut estimators: Vec<String> = Vec::new();
        for r in records {
            if !estimators.contains(&r.estimator) {
                estimators.push(r.estimator.clone());
            }
        }
        estimators.sort_by_key(|e| (is_neural(e), e.clone()));
        let mut rows: BTreeMap<((usize, String), usize), Row> = BTreeMap::new();
        for r in records {
            let row = rows.entry((task_order(&r.task), r.n)).or_insert_with(|| Row {
                task: r.task.clone(),
                n: r.n,
                dims: (r.dim_x, r.dim_y),
                true_mi: r.true_mi,
                cells: vec![(Vec::new(), 0); estimators.len()],
            });
            let j = estimators.iter().position(|e| *e == r.estimator).expect("listed above");
            match r.estimate {
                Some(v) if r.failure.is_none() => row.cells[j].0.push(v),
                _ => row.cells[j].1 += 1,
            }
        }
        Table { estimators, rows: rows.into_values().collect() }
    }

    /// Per estimator: (mean absolute error, mean relative error over tasks with I > 0,
    /// mean rank over rows by |mean − truth|, rows with an estimate, failed runs), on the
    /// per-row means over seeds.
    pub fn summary(&self) -> Vec<EstimatorSummary> {
        let k = self.estimators.len();
        let mut abs = vec![Vec::new(); k];
        let mut rel = vec![Vec::new(); k];
        let mut ranks = vec![Vec::new(); k];
        let mut failed = vec![0; k];
        for row in &self.rows {
            let errs: Vec<Option<f64>> =
                row.cells.iter().map(|(v, _)| (!v.is_empty()).then(|| (mean_sd(v).0 - row.true_mi).abs())).collect();
            for j in 0..k {
                failed[j] += row.cells[j].1;
                if let Some(e) = errs[j] {
                    abs[j].push(e);
                    if row.true_mi > 0.0 {
                        rel[j].push(e / row.true_mi);
                    }
                    // Rank within the row: 1 + the number of estimators strictly better, ties
                    // sharing the rank; estimators without an estimate rank last.
                    let better = errs.iter().filter(|o| o.is_some_and(|o| o < e)).count();
                    ranks[j].push(1.0 + better as f64);
                } else {
                    ranks[j].push(k as f64);
                }
            }
        }
        let avg = |v: &[f64]| if v.is_empty() { f64::NAN } else { v.iter().sum::<f64>() / v.len() as f64 };
        let mut out: Vec<EstimatorSummary> = (0..k)
            .map(|j| EstimatorSummary {
                estimator: self.estimators[j].clone(),
                mae: avg(&abs[j]),
                mean_relative_error: avg(&rel[j]),
                mean_rank: avg(&ranks[j]),
                rows: abs[j].len(),
                failed: failed[j],
                rank: 0,
            })
            .collect();
        let mut order: Vec<usize> = (0..k).collect();
        order.sort_by(|&a, &b| {
            let key = |s: &EstimatorSummary| if s.mae.is_finite() { s.mae } else { f64::INFINITY };
            key(&out[a]).total_cmp(&key(&out[b])).then(out[a].estimator.cmp(&out[b].estimator))
        });
        for (r, &j) in order.iter().enumerate() {
            out[j].rank = r + 1;
        }
        out
    }
}

/// One estimator's line of the summary table.
#[derive(Clone, Debug, PartialEq)]
pub struct EstimatorSummary {
    /// Canonical name.
    pub estimator: String,
    /// Mean over rows of |mean estimate − truth|, nats.
    pub mae: f64,
    /// Mean over rows with I > 0 of |mean estimate − truth| / truth.
    pub mean_relative_error: f64,
    /// Mean over rows of the estimator's rank by |mean estimate − truth| (1 = best).
    pub mean_rank: f64,
    /// Rows with at least one estimate.
    pub rows: usize,
    /// Failed or non-finite runs.
    pub failed: usize,
    /// Rank by mean absolute error (1 = best).
    pub rank: usize,
}

fn cell(v: &[f64], failed: usize) -> String {
    if v.is_empty() {
        return if failed > 0 { "failed".into() } else { "".into() };
    }
    let (m, sd) = mean_sd(v);
    let mut s = if v.len() > 1 { format!("{m:.2} ± {sd:.2}") } else { format!("{m:.2}") };
    if failed > 0 {
        let _ = write!(s, " ({failed} failed)");
    }
    s
}

/// The markdown report: the per-task table (true MI and each estimator's mean ± sd over seeds,
/// nats), the per-estimator summary (mean absolute and relative error, rank) and any
/// conflicts. It holds no wall times, so two runs of one configuration give the same text
/// whatever the sharding ([`timing_markdown`] has the times).
pub fn markdown(m: &Merged) -> String {
    let t = Table::new(&m.records);
    let mut s = String::new();
    let seeds: std::collections::BTreeSet<u64> = m.records.iter().map(|r| r.seed).collect();
    let _ = writeln!(s, "# Benchmark results\n");
    let _ = writeln!(
        s,
        "{} runs: {} rows (task × n) × {} estimators, {} seed(s). Values in nats: mean ± sd over seeds.\n",
        m.records.len(),
        t.rows.len(),
        t.estimators.len(),
        seeds.len()
    );
    let _ = writeln!(s, "## Per task\n");
    let _ = write!(s, "| task | n | dims | true MI |");
    for e in &t.estimators {
        let _ = write!(s, " {e} |");
    }
    let _ = write!(s, "\n|---|---:|---|---:|");
    for _ in &t.estimators {
        let _ = write!(s, "---:|");
    }
    s.push('\n');
    for r in &t.rows {
        let _ = write!(s, "| {} | {} | {}×{} | {:.2} |", r.task, r.n, r.dims.0, r.dims.1, r.true_mi);
        for (v, f) in &r.cells {
            let _ = write!(s, " {} |", cell(v, *f));
        }
        s.push('\n');
    }
    let _ = writeln!(s, "\n## Per estimator\n");
    let _ = writeln!(
        s,
        "Errors of the per-task means; rank 1 = smallest mean absolute error; mean task rank = the \
         estimator's rank by |mean − truth| averaged over tasks.\n"
    );
    let _ =
        writeln!(s, "| rank | estimator | mean abs. error | mean rel. error | mean task rank | tasks | failed runs |");
    let _ = writeln!(s, "|---:|---|---:|---:|---:|---:|---:|");
    let mut sum = t.summary();
    sum.sort_by_key(|e| e.rank);
    for e in &sum {
        let _ = writeln!(
            s,
            "| {} | {} | {:.3} | {:.1} % | {:.2} | {} | {} |",
            e.rank,
            e.estimator,
            e.mae,
            100.0 * e.mean_relative_error,
            e.mean_rank,
            e.rows,
            e.failed
        );
    }
    if !m.conflicts.is_empty() {
        let _ = writeln!(s, "\n## Conflicts\n");
        for c in &m.conflicts {
            let _ = writeln!(s, "- {c}");
        }
    }
    s
}

/// Wall times per estimator (mean, median and total seconds per run, mean steps).
pub fn timing_markdown(m: &Merged) -> String {
    let mut by: BTreeMap<&str, Vec<&RunRecord>> = BTreeMap::new();
    for r in &m.records {
        by.entry(r.estimator.as_str()).or_default().push(r);
    }
    let mut s = String::from("| estimator | runs | mean s/run | median s/run | max s/run | total s | mean steps |\n");
    s.push_str("|---|---:|---:|---:|---:|---:|---:|\n");
    for (e, rs) in by {
        let mut w: Vec<f64> = rs.iter().map(|r| r.wall_seconds).collect();
        w.sort_by(f64::total_cmp);
        let total: f64 = w.iter().sum();
        let steps: Vec<f64> = rs.iter().filter_map(|r| r.steps.map(|s| s as f64)).collect();
        let steps = if steps.is_empty() { "".into() } else { format!("{:.0}", mean_sd(&steps).0) };
        let _ = writeln!(
            s,
            "| {e} | {} | {:.2} | {:.2} | {:.2} | {:.1} | {steps} |",
            w.len(),
            total / w.len() as f64,
            w[w.len() / 2],
            w[w.len() - 1],
            total
        );
    }
    s
}

/// Writes the report into `dir`: `table.md` ([`markdown`]), `timing.md`, `merged.jsonl` (one
/// record per key, in key order) and, with the `plot` feature, `heatmap.{png,svg}` and
/// `scatter.{png,svg}`. Returns the files written.
pub fn write(m: &Merged, dir: &Path) -> Result<Vec<PathBuf>> {
    if m.records.is_empty() {
        return Err(Error::param("results", "no runs", "the results files hold no complete line"));
    }
    std::fs::create_dir_all(dir).map_err(|source| Error::Io { path: dir.to_path_buf(), source })?;
    let mut written = Vec::new();
    let mut put = |name: &str, text: String| -> Result<()> {
        let p = dir.join(name);
        std::fs::write(&p, text).map_err(|source| Error::Io { path: p.clone(), source })?;
        written.push(p);
        Ok(())
    };
    put("table.md", markdown(m))?;
    put("timing.md", timing_markdown(m))?;
    let mut jsonl = String::new();
    for r in &m.records {
        jsonl.push_str(
            &serde_json::to_string(r)
                .map_err(|e| Error::Format { context: "merged.jsonl".into(), msg: e.to_string() })?,
        );
        jsonl.push('\n');
    }
    put("merged.jsonl", jsonl)?;
    #[cfg(feature = "plot")]
    {
        let t = Table::new(&m.records);
        for ext in ["png", "svg"] {
            let p = dir.join(format!("heatmap.{ext}"));
            figures::heatmap(&t, &p)?;
            written.push(p);
        }
        let fig = figures::scatter(&m.records, &t.estimators);
        for ext in ["png", "svg"] {
            let p = dir.join(format!("scatter.{ext}"));
            fig.save(&p)?;
            written.push(p);
        }
    }
    Ok(written)
}

#[cfg(feature = "plot")]
mod figures {
    use super::{RunRecord, Table, mean_sd};
    use crate::error::{Error, Result};
    use crate::plot::{Figure, PALETTE, Panel, Series, Style, register_fonts};
    use plotters::coord::Shift;
    use plotters::prelude::*;
    use std::path::Path;

    /// Blue (under) – white – red (over), for `t` in [−1, 1].
    fn diverging(t: f64) -> RGBColor {
        let t = t.clamp(-1.0, 1.0);
        let (end, a) = if t < 0.0 { ((33.0, 102.0, 172.0), -t) } else { ((178.0, 24.0, 43.0), t) };
        let mix = |e: f64| (255.0 + (e - 255.0) * a).round() as u8;
        RGBColor(mix(end.0), mix(end.1), mix(end.2))
    }

    /// Tasks × estimators, colour = mean estimate − true MI (blue under, red over, clipped at
    /// the scale's end), the mean estimate written in each cell.
    pub fn heatmap(t: &Table, path: &Path) -> Result<()> {
        register_fonts();
        let (cw, ch, left, top, right) = (84i32, 22i32, 380i32, 70i32, 120i32);
        let w = (left + cw * t.estimators.len() as i32 + right) as u32;
        let h = (top + ch * t.rows.len() as i32 + 30) as u32;
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("png").to_ascii_lowercase();
        let tmp = path.with_extension(format!("tmp.{ext}"));
        let res = if ext == "svg" {
            draw(t, SVGBackend::new(&tmp, (w, h)).into_drawing_area(), (cw, ch, left, top))
        } else {
            draw(t, BitMapBackend::new(&tmp, (w, h)).into_drawing_area(), (cw, ch, left, top))
        };
        res.map_err(|msg| Error::Format { context: format!("drawing {}", path.display()), msg })?;
        std::fs::rename(&tmp, path).map_err(|source| Error::Io { path: path.to_path_buf(), source })
    }

    fn draw<DB: DrawingBackend>(
        t: &Table,
        root: DrawingArea<DB, Shift>,
        (cw, ch, left, top): (i32, i32, i32, i32),
    ) -> std::result::Result<(), String> {
        let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
        root.fill(&WHITE).map_err(e)?;
        let errs: Vec<f64> = t
            .rows
            .iter()
            .flat_map(|r| r.cells.iter().filter(|c| !c.0.is_empty()).map(move |c| (mean_sd(&c.0).0 - r.true_mi).abs()))
            .collect();
        // The scale: the largest |error|, at least 0.1 nats, at most 2.
        let scale = errs.iter().copied().fold(0.1f64, f64::max).min(2.0);
        let title = ("sans-serif", 18).into_font();
        let font = ("sans-serif", 12).into_font();
        let bold = ("sans-serif", 12).into_font().style(FontStyle::Bold);
        root.draw(&Text::new("Estimate − true MI (nats); cell text: mean estimate", (10, 10), title)).map_err(e)?;
        root.draw(&Text::new("task (true MI)", (10, top - 20), bold.clone())).map_err(e)?;
        for (j, name) in t.estimators.iter().enumerate() {
            let x = left + cw * j as i32 + 4;
            root.draw(&Text::new(name.clone(), (x, top - 20), bold.clone())).map_err(e)?;
        }
        for (i, r) in t.rows.iter().enumerate() {
            let y = top + ch * i as i32;
            let label = if t.rows.iter().any(|o| o.task == r.task && o.n != r.n) {
                format!("{} n={} ({:.2})", r.task, r.n, r.true_mi)
            } else {
                format!("{} ({:.2})", r.task, r.true_mi)
            };
            root.draw(&Text::new(label, (10, y + 5), font.clone())).map_err(e)?;
            for (j, (v, failed)) in r.cells.iter().enumerate() {
                let x = left + cw * j as i32;
                let (fill, text) = if v.is_empty() {
                    (RGBColor(200, 200, 200), if *failed > 0 { "failed".to_string() } else { String::new() })
                } else {
                    let m = mean_sd(v).0;
                    (diverging((m - r.true_mi) / scale), format!("{m:.2}"))
                };
                root.draw(&Rectangle::new([(x, y), (x + cw - 1, y + ch - 1)], fill.filled())).map_err(e)?;
                root.draw(&Text::new(text, (x + 22, y + 5), font.clone())).map_err(e)?;
            }
        }
        // Colour bar.
        let bx = left + cw * t.estimators.len() as i32 + 20;
        let bh = (ch * t.rows.len() as i32).max(100);
        let steps = 50;
        for s in 0..steps {
            let y0 = top + bh * s / steps;
            let y1 = top + bh * (s + 1) / steps;
            let v = 1.0 - 2.0 * (s as f64 + 0.5) / steps as f64;
            root.draw(&Rectangle::new([(bx, y0), (bx + 18, y1)], diverging(v).filled())).map_err(e)?;
        }
        for (frac, v) in [(0.0, scale), (0.5, 0.0), (1.0, -scale)] {
            let y = top + (bh as f64 * frac) as i32 - 6;
            root.draw(&Text::new(format!("{v:+.2}"), (bx + 24, y), font.clone())).map_err(e)?;
        }
        root.present().map_err(e)
    }

    /// One panel per estimator: every run's estimate against the task's true MI, with y = x.
    pub fn scatter(records: &[RunRecord], estimators: &[String]) -> Figure {
        let max = records
            .iter()
            .flat_map(|r| [Some(r.true_mi), r.estimate])
            .flatten()
            .filter(|v| v.is_finite())
            .fold(0.5f64, f64::max);
        let min = records.iter().filter_map(|r| r.estimate).filter(|v| v.is_finite()).fold(0.0f64, f64::min);
        let panels = estimators
            .iter()
            .enumerate()
            .map(|(j, e)| {
                let pts: Vec<(f64, f64)> = records
                    .iter()
                    .filter(|r| &r.estimator == e)
                    .filter_map(|r| r.estimate.map(|v| (r.true_mi, v)))
                    .collect();
                Panel {
                    title: e.clone(),
                    x_label: "true MI (nats)".into(),
                    y_label: "estimate (nats)".into(),
                    series: vec![
                        Series::new("y = x", vec![(0.0, 0.0), (max, max)], RGBColor(120, 120, 120), Style::Dashed),
                        Series::new("", pts, PALETTE[j % PALETTE.len()], Style::Points),
                    ],
                    y_range: Some((min, max)),
                    legend: crate::plot::Legend::UpperLeft,
                    ..Default::default()
                }
            })
            .collect();
        Figure {
            title: "Estimate against true MI, every run".into(),
            panels,
            cols: estimators.len().clamp(1, 4),
            panel_size: (340, 300),
        }
    }
}
