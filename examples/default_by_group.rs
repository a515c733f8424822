//! The default estimate (`auto`) against KSG (k = 5, the cross-check) on every dependent task of
//! one half of the suite, by group (low-dim, images, high-dim), n = 5000, seeds 0–2: mean
//! absolute error, how many (task, seed) pairs lie within max(0.25, 25 %) of the truth where
//! the truth is below the headline's ceiling (log of the test batch − 0.5 for InfoNCE: log 1000 − 0.5 with the whole-fold test batch; none for KSG), how many
//! read below the truth, and the wall time of the headline.
//!
//!     cargo run --release --example default_by_group -- tuning
//!     cargo run --release --example default_by_group -- held-out
//!
//! Neural options as the command line spells them (`--critic separable`, `--weight-decay 0.01`,
//! `--hidden 256,256`),
//! and `--pilot-steps N` ([`mibound::estimators::Candidates::pilot_steps`]), may follow the half, to judge another default on the same pairs; the low-dimensional tasks,
//! whose headline is KSG and does not depend on them, are then skipped.
//!
//!     cargo run --release --example default_by_group -- tuning --critic separable
//!
//! `--group low-dim|images|high-dim` runs one group only. `--group scale` runs the half's tasks
//! at representation scale instead (`mibound::tasks::scale_split_ids`: 64 to 1024 dimensions per
//! side), each at its own row count (10⁴ to 10⁶, the task's suggested n), without the separate
//! KSG (its cost at these sizes is the point of another benchmark, benches/compare_scale.sh):
//!
//!     cargo run --release --example default_by_group -- held-out --group scale --warnings yes --seeds 0
//!
//! `--warnings yes` also runs the
//! comparison a user's call makes (`compare` with the defaults: cross-check, dependence test)
//! and counts the false alarms: warnings on readings within the tolerance. That call applies
//! the data rules first, as every surface does (constant columns dropped, copies of rows
//! dropped); its headline is then the reading judged and timed. `--seeds 0,1,2` (the default)
//! names the sample seeds.
//!
//! A neural headline's line ends with the id of the candidate each fold kept
//! (`NeuralSettings::chosen_per_fold`: `Trained(0)` the configured critic, `Trained(1..=A)` its
//! alternatives (the two defaults with `--critic auto`, none with `--critic separable`), then
//! the same on the squares; `Untrained(..)` the nearest-neighbour, random-walk and elliptical
//! critics), so two pilot lengths can be compared pair by pair: where they keep the same
//! candidate, their values and intervals are the same.
//!
//! The four `small_n-` tasks are left out (their point is their own sample size), as in the
//! benchmark configurations of the halves (docs/tasks.md). About 15 minutes per half on two
//! cores, almost all of it the high-dimensional neural estimates.
use mibound::data::rules::{self, Input, Rules};
use mibound::estimators::{EstimatorSpec, Options, Settings, compare};
use mibound::tasks::{Group, Split, scale_split_ids, split_ids};
use std::time::Instant;

/// Rows per data set.
const N: usize = 5000;

#[derive(Clone, Copy, Default)]
struct Tally {
    pairs: usize,
    err_default: f64,
    err_ksg: f64,
    /// Pairs with a KSG reading (none in the scale group).
    ksg_pairs: usize,
    judged: usize,
    within: usize,
    /// With `--warnings`: readings within the tolerance, and those of them warned about.
    right: usize,
    false_alarms: usize,
    /// With `--warnings`: calls whose data rules left a note (copies or constant columns dropped).
    noted: usize,
    below: usize,
    default_better: usize,
    seconds: f64,
}

impl Tally {
    /// One (task, seed) pair: the default's value `d` in `secs`, KSG's `k` (if run), the truth,
    /// and whether the default is judged against the tolerance (truth below its ceiling).
    fn record(&mut self, d: f64, k: Option<f64>, truth: f64, secs: f64, judged: bool) {
        self.pairs += 1;
        self.err_default += (d - truth).abs();
        self.seconds += secs;
        self.below += usize::from(d < truth);
        if let Some(k) = k {
            self.ksg_pairs += 1;
            self.err_ksg += (k - truth).abs();
            self.default_better += usize::from((d - truth).abs() < (k - truth).abs());
        }
        if judged {
            self.judged += 1;
            self.within += usize::from((d - truth).abs() <= 0.25f64.max(0.25 * truth));
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let half = match args.get(1).map(String::as_str) {
        Some("held-out") => Split::HeldOut,
        Some("tuning") => Split::Tuning,
        other => {
            eprintln!("usage: default_by_group tuning|held-out (got {other:?})");
            std::process::exit(2);
        }
    };
    let mut options = Options::default();
    let mut pilot_steps = None;
    let mut only_group: Option<String> = None;
    let mut with_warnings = false;
    let mut seeds: Vec<u64> = vec![0, 1, 2];
    for pair in args[2..].chunks(2) {
        match (pair[0].as_str(), pair.get(1)) {
            ("--pilot-steps", Some(v)) => pilot_steps = Some(v.parse::<u64>().expect("--pilot-steps takes a number")),
            ("--critic", Some(v)) => options.critic = v.clone(),
            ("--weight-decay", Some(v)) => options.weight_decay = v.parse().expect("--weight-decay takes a number"),
            ("--hidden", Some(v)) => {
                options.hidden = v.split(',').map(|h| h.parse().expect("--hidden takes widths: 256,256")).collect()
            }
            ("--group", Some(v)) => only_group = Some(v.clone()),
            ("--warnings", Some(v)) => with_warnings = v == "yes",
            ("--seeds", Some(v)) => seeds = v.split(',').map(|s| s.parse().expect("--seeds takes 0,1,2")).collect(),
            _ => {
                eprintln!(
                    "unknown option {pair:?}: --critic NAME, --weight-decay W, --hidden W1,W2,…, --pilot-steps N --group low-dim|images|high-dim|scale, --warnings yes and --seeds 0,1,2 are read"
                );
                std::process::exit(2);
            }
        }
    }
    let neural_only = options != Options::default() || pilot_steps.is_some();
    let mut settings: Settings = options.settings(|f| format!("--{}", f.replace('_', "-"))).unwrap();
    if let Some(p) = pilot_steps {
        // Candidates::pilot_steps: every candidate critic trains p steps, then only the best.
        settings.neural.candidates.pilot_steps = p;
    }
    let auto = EstimatorSpec::Auto.build(&settings).unwrap();
    let ksg = EstimatorSpec::parse("ksg:k=5").unwrap().build(&settings).unwrap();
    // InfoNCE's ceiling is log of the test batch actually used: the whole test fold (n / 5
    // rows) with the default test_batch.
    let ceiling =
        |n: usize| (settings.neural.eval_batch(settings.neural.batch, n / settings.neural.folds) as f64).ln() - 0.5;
    let groups = [Group::LowDim, Group::Images, Group::HighDim, Group::Scale];
    let mut tally = [Tally::default(); 4];
    let mut all = Tally::default();
    let scale = only_group.as_deref() == Some("scale");
    let ids = if scale { scale_split_ids(half) } else { split_ids(half) };
    for id in ids.iter().filter(|id| !id.starts_with("indep-") && !id.starts_with("small_n-")) {
        let task = mibound::tasks::get(id).unwrap();
        let info = task.info();
        let g = groups.iter().position(|&g| g == info.group).unwrap();
        if (neural_only && info.group == Group::LowDim) || only_group.as_ref().is_some_and(|o| o != info.group.name()) {
            continue;
        }
        // The suite's tasks at N rows, a scale task at its own.
        let n = if scale { task.suggested_n() } else { N };
        for &seed in &seeds {
            let (x, y) = task.draw(n, seed).unwrap();
            let headline = EstimatorSpec::auto_for(x.as_view(), y.as_view(), &Default::default())[0];
            let truth = info.true_mi;
            let t = Instant::now();
            // With `--warnings`, the reading judged (and its time) is the call's, below.
            let e = (!with_warnings).then(|| auto.estimate(x.as_view(), y.as_view(), seed).unwrap());
            let mut secs = t.elapsed().as_secs_f64();
            // What a user's call warns of: the headline's warnings and the comparison's (the
            // cross-check, the precision, readings below 0), counted where the reading is right.
            // The data rules first, as every surface applies them (constant columns dropped as
            // `--drop-constant` does, copies of rows dropped): the reading judged is the call's.
            let warned = with_warnings.then(|| {
                let (xi, yi) = (Input::new(x.as_view()), Input::new(y.as_view()));
                let rules = Rules { drop_constant: true, ..Rules::default() };
                let checked = rules::check(&xi, &yi, &rules).unwrap();
                let (xs, ys) = checked.select(&xi, &yi);
                let c = compare(&EstimatorSpec::defaults(), &settings, xs.as_view(), ys.as_view(), seed, None).unwrap();
                let h = c.headline().unwrap();
                let codes: Vec<_> = h.diagnostics.warnings.iter().chain(&c.warnings).map(|w| w.code).collect();
                (h.value, codes, !checked.notes.is_empty(), h.estimator.clone())
            });
            if warned.is_some() {
                secs = t.elapsed().as_secs_f64();
            }
            let d = e.as_ref().map_or_else(|| warned.as_ref().expect("the call").0, |e| e.value);
            // The candidate each fold kept (the critic is chosen once, on the first fold), so
            // two runs with other protocols can be compared pair by pair.
            let kept = e
                .as_ref()
                .and_then(|e| e.settings.neural())
                .map(|n| n.chosen_per_fold.iter().map(|c| c.id).collect::<Vec<_>>());
            let kept = kept.map(|k| format!(" kept {k:?}")).unwrap_or_default();
            let k = (!scale).then(|| ksg.estimate(x.as_view(), y.as_view(), seed).unwrap().value);
            let judged = headline.bound().is_none() || truth < ceiling(n);
            tally[g].record(d, k, truth, secs, judged);
            all.record(d, k, truth, secs, judged);
            if let Some((v, codes, noted, _)) = &warned {
                let right = (v - truth).abs() <= 0.25f64.max(0.25 * truth);
                for t in [&mut tally[g], &mut all] {
                    t.right += usize::from(right);
                    t.false_alarms += usize::from(right && !codes.is_empty());
                    t.noted += usize::from(*noted);
                }
            }
            let call =
                warned.as_ref().map(|(_, codes, _, _)| format!(" | the call warned {codes:?}")).unwrap_or_default();
            // The headline's estimator: the call's where it ran (the copula bound may be it).
            let shown = match (&warned, &e) {
                (Some((.., name)), _) => name.clone(),
                (None, Some(e)) => e.estimator.clone(),
                _ => headline.to_string(),
            };
            let k_text = k.map_or("—".to_string(), |k| format!("{k:6.3}"));
            println!(
                "{id:44} seed {seed} n {n} truth {truth:6.3} | {shown} {d:6.3} ({secs:5.1} s) | ksg:k=5 {k_text}{kept}{call}"
            );
        }
    }
    let rows = if scale { "each task's own n".to_string() } else { format!("n = {N}") };
    let seed_list = seeds.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
    println!("\n{} half, {rows}, seeds {seed_list} (MAE = mean absolute error, nats):\n", half.name());
    println!(
        "| group | (task, seed) pairs | MAE default | MAE KSG k=5 | default closer | within tolerance | below the truth | mean s |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (g, s) in groups.iter().zip(&tally) {
        row(g.name(), s);
    }
    row("all", &all);
    if with_warnings {
        println!("\nfalse alarms (a warning on a reading within max(0.25, 25 %) of the truth):");
        for (name, s) in groups.iter().map(|g| g.name()).zip(&tally).chain([("all", &all)]) {
            if s.pairs > 0 {
                println!(
                    "  {name}: {} of {} right readings warned; the data rules noted something on {} of {} calls",
                    s.false_alarms, s.right, s.noted, s.pairs
                );
            }
        }
    }
}

fn row(name: &str, s: &Tally) {
    if s.pairs == 0 {
        return;
    }
    let n = s.pairs as f64;
    let ksg = if s.ksg_pairs == 0 { "—".to_string() } else { format!("{:.3}", s.err_ksg / s.ksg_pairs as f64) };
    println!(
        "| {name} | {} | {:.3} | {ksg} | {}/{} | {}/{} | {}/{} | {:.1} |",
        s.pairs,
        s.err_default / n,
        s.default_better,
        s.ksg_pairs,
        s.within,
        s.judged,
        s.below,
        s.pairs,
        s.seconds / n
    );
}
