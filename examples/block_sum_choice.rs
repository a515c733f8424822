//! Where the default estimate should sum KSG over blocks of independent columns (`ksg-blocks`),
//! decided on the tuning half of the task suite and reported on both (docs/results.md,
//! section 22). For every dependent task of a half with more than `LOW_DIMENSION` joint
//! dimensions, n = 5000, seeds 0–2: the blocks of `independent_blocks` on normal scores, and
//! where there are two or more blocks of at most `LOW_DIMENSION` dimensions each, `ksg-blocks`
//! beside the neural InfoNCE headline (the default for such data before) and the truth.
//!
//!     cargo run --release --example block_sum_choice -- tuning
//!     cargo run --release --example block_sum_choice -- held-out
//!
//! Each line says whether columns were left out of the blocks (`left x…/y…`), so that the two
//! rules, "no column left out" and "columns may be left out", can be judged on the same pairs,
//! and gives KSG (k = 5) on all columns, the cross-check, beside them. `--skip-neural` leaves
//! InfoNCE out (minutes per half; its values do not depend on this choice). `--low-dim` looks
//! at the low-dimensional tasks with at least two columns a side instead (section 23).
use mibound::blocks::Blocks;
use mibound::bounds::BoundSpec;
use mibound::estimators::auto::sums_blocks;
use mibound::estimators::classical::normal_score_blocks;
use mibound::estimators::{EstimatorSpec, LOW_DIMENSION, Settings};
use mibound::tasks::{Group, Split};
use std::time::Instant;

const N: usize = 5000;

fn main() {
    let half = match std::env::args().nth(1).as_deref() {
        Some("held-out") => Split::HeldOut,
        Some("tuning") => Split::Tuning,
        other => {
            eprintln!("usage: block_sum_choice tuning|held-out (got {other:?})");
            std::process::exit(2);
        }
    };
    let skip_neural = std::env::args().any(|a| a == "--skip-neural");
    let settings = Settings::default();
    if std::env::args().any(|a| a == "--low-dim") {
        low_dimension(half, &settings);
        return;
    }
    let ksg = EstimatorSpec::parse("ksg:k=5").unwrap().build(&settings).unwrap();
    let neural = EstimatorSpec::Neural { bound: BoundSpec::InfoNce }.build(&settings).unwrap();
    let blocks = EstimatorSpec::parse("ksg-blocks").unwrap().build(&settings).unwrap();
    for id in
        mibound::tasks::split_ids(half).iter().filter(|id| !id.starts_with("indep-") && !id.starts_with("small_n-"))
    {
        let task = mibound::tasks::get(id).unwrap();
        let info = task.info();
        if info.dim_x + info.dim_y <= LOW_DIMENSION || info.group == Group::LowDim {
            continue;
        }
        for seed in 0..3u64 {
            let (x, y) = task.draw(N, seed).unwrap();
            let (found, wilks) = normal_score_blocks(x.as_view(), y.as_view());
            let b = &found.blocks;
            let small = b.len() >= 2 && b.iter().all(|b| b.0.len() + b.1.len() <= LOW_DIMENSION);
            let truth = info.true_mi;
            if !small {
                println!("{id:44} seed {seed} truth {truth:6.3} | {} | not summed", describe(&found));
                continue;
            }
            // What `auto` does with these data (no columns left out and Wilks' test passed).
            let summed = if sums_blocks(x.as_view(), y.as_view()) { "auto sums" } else { "auto does not sum" };
            print!("{id:44} seed {seed} truth {truth:6.3} | {} wilks p {wilks:.3} ({summed})", describe(&found));
            let t = Instant::now();
            let s = blocks.estimate(x.as_view(), y.as_view(), seed).unwrap().value;
            let ts = t.elapsed().as_secs_f64();
            let k5 = ksg.estimate(x.as_view(), y.as_view(), seed).unwrap().value;
            let v = if skip_neural {
                String::new()
            } else {
                let t = Instant::now();
                let v = neural.estimate(x.as_view(), y.as_view(), seed).unwrap().value;
                format!(" | infonce {v:6.3} ({:4.1} s) err {:+.3}", t.elapsed().as_secs_f64(), v - truth)
            };
            println!(" | ksg-blocks {s:6.3} ({ts:4.1} s) err {:+.3} | ksg:k=5 {k5:6.3}{v}", s - truth);
        }
    }
}

/// `blocks [1+1 2+1] left x1/y0`: the blocks' sizes, and how many columns were left out.
fn describe(found: &Blocks) -> String {
    let sizes: Vec<String> = found.blocks.iter().map(|b| format!("{}+{}", b.0.len(), b.1.len())).collect();
    let (lx, ly) = &found.left_out;
    let left =
        if lx.is_empty() && ly.is_empty() { String::new() } else { format!(" left x{}/y{}", lx.len(), ly.len()) };
    format!("blocks [{}]{left}", sizes.join(" "))
}

/// `--low-dim`: the low-dimensional tasks of the half with at least two columns on each side
/// (the only ones that can split into two blocks), seeds 0–2: their blocks, whether `auto` sums
/// them (`sums_blocks`), and `ksg-blocks` beside the low-dimensional headline (KSG, k = 3, on
/// normal scores of all columns).
fn low_dimension(half: Split, settings: &Settings) {
    let headline = EstimatorSpec::parse("ksg:k=3:margins=normal").unwrap().build(settings).unwrap();
    let blocks = EstimatorSpec::parse("ksg-blocks").unwrap().build(settings).unwrap();
    for id in mibound::tasks::split_ids(half).iter().filter(|id| !id.starts_with("indep-")) {
        let task = mibound::tasks::get(id).unwrap();
        let info = task.info();
        if info.group != Group::LowDim || info.dim_x < 2 || info.dim_y < 2 {
            continue;
        }
        for seed in 0..3u64 {
            let (x, y) = task.draw(N, seed).unwrap();
            let (found, wilks) = normal_score_blocks(x.as_view(), y.as_view());
            let rule = sums_blocks(x.as_view(), y.as_view());
            let truth = info.true_mi;
            let h = headline.estimate(x.as_view(), y.as_view(), seed).unwrap().value;
            let s = blocks.estimate(x.as_view(), y.as_view(), seed).unwrap().value;
            println!(
                "{id:36} seed {seed} truth {truth:6.3} | {} wilks p {wilks:.3} rule {} | headline {h:6.3} err {:+.3} | ksg-blocks {s:6.3} err {:+.3}",
                describe(&found),
                if rule { "sums" } else { "no" },
                h - truth,
                s - truth
            );
        }
    }
}
