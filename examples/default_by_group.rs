//! The default estimate (`auto`) against KSG (k = 5, the cross-check) on every dependent task of
//! one half of the suite, by group (low-dim, images, high-dim), n = 5000, seeds 0–2: mean
//! absolute error, how many (task, seed) pairs lie within max(0.25, 25 %) of the truth where
//! the truth is below the headline's ceiling (log N − 0.5 for InfoNCE; none for KSG), how many
//! read below the truth, and the wall time of the headline.
//!
//!     cargo run --release --example default_by_group -- tuning
//!     cargo run --release --example default_by_group -- held-out
//!
//! The four `small_n-` tasks are left out (their point is their own sample size), as in the
//! benchmark configurations of the halves (docs/tasks.md). About 15 minutes per half on two
//! cores, almost all of it the high-dimensional neural estimates.
use mibound::estimators::{EstimatorSpec, Settings};
use mibound::tasks::{Group, Split};
use std::time::Instant;

#[derive(Default)]
struct Tally {
    pairs: usize,
    err_default: f64,
    err_ksg: f64,
    judged: usize,
    within: usize,
    below: usize,
    default_better: usize,
    seconds: f64,
}

fn main() {
    let half = match std::env::args().nth(1).as_deref() {
        Some("held-out") => Split::HeldOut,
        Some("tuning") => Split::Tuning,
        other => {
            eprintln!("usage: default_by_group tuning|held-out (got {other:?})");
            std::process::exit(2);
        }
    };
    let settings = Settings::default();
    let auto = EstimatorSpec::Auto.build(&settings).unwrap();
    let ksg = EstimatorSpec::parse("ksg:k=5").unwrap().build(&settings).unwrap();
    let ceiling = (settings.neural.batch as f64).ln() - 0.5;
    let groups = [Group::LowDim, Group::Images, Group::HighDim];
    let mut tally: Vec<Tally> = groups.iter().map(|_| Tally::default()).collect();
    let ids = mibound::tasks::split_ids(half);
    for id in ids.iter().filter(|id| !id.starts_with("indep-") && !id.starts_with("small_n-")) {
        let task = mibound::tasks::get(id).unwrap();
        let info = task.info();
        let g = groups.iter().position(|&g| g == info.group).unwrap();
        let headline = EstimatorSpec::auto(info.dim_x, info.dim_y)[0];
        for seed in 0..3u64 {
            let (x, y) = task.draw(5000, seed).unwrap();
            let truth = info.true_mi;
            let t = Instant::now();
            let d = auto.estimate(x.as_view(), y.as_view(), seed).unwrap().value;
            let secs = t.elapsed().as_secs_f64();
            let k = ksg.estimate(x.as_view(), y.as_view(), seed).unwrap().value;
            let s = &mut tally[g];
            s.pairs += 1;
            s.err_default += (d - truth).abs();
            s.err_ksg += (k - truth).abs();
            s.seconds += secs;
            s.below += usize::from(d < truth);
            s.default_better += usize::from((d - truth).abs() < (k - truth).abs());
            let neural = headline.bound().is_some();
            if !neural || truth < ceiling {
                s.judged += 1;
                s.within += usize::from((d - truth).abs() <= 0.25f64.max(0.25 * truth));
            }
            println!("{id:44} seed {seed} truth {truth:6.3} | {headline} {d:6.3} ({secs:5.1} s) | ksg:k=5 {k:6.3}");
        }
    }
    println!("\n{} half, n = 5000, seeds 0-2 (MAE = mean absolute error, nats):\n", half.name());
    println!(
        "| group | (task, seed) pairs | MAE default | MAE KSG k=5 | default closer | within tolerance | below the truth | mean s |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    let mut all = Tally::default();
    for (g, s) in groups.iter().zip(&tally) {
        row(g.name(), s);
        all.pairs += s.pairs;
        all.err_default += s.err_default;
        all.err_ksg += s.err_ksg;
        all.judged += s.judged;
        all.within += s.within;
        all.below += s.below;
        all.default_better += s.default_better;
        all.seconds += s.seconds;
    }
    row("all", &all);
}

fn row(name: &str, s: &Tally) {
    if s.pairs == 0 {
        return;
    }
    let n = s.pairs as f64;
    println!(
        "| {name} | {} | {:.3} | {:.3} | {}/{} | {}/{} | {}/{} | {:.1} |",
        s.pairs,
        s.err_default / n,
        s.err_ksg / n,
        s.default_better,
        s.pairs,
        s.within,
        s.judged,
        s.below,
        s.pairs,
        s.seconds / n
    );
}
