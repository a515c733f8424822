//! The self-check of the default estimate (`auto`, as `mibound estimate --selfcheck` runs it) on
//! tasks with known MI: for each (task, seed) pair the headline, one half of the rows, both
//! halves side by side (the additivity ratio, which must read 2 ± 0.4), the monotone map and the
//! shuffle, and the checks that failed; then a summary by group.
//!
//!     cargo run --release --example selfcheck_suite -- --tasks ID,ID,… --seeds 0,1,2
//!
//! n = 5000 rows (`--n` to change). Constant columns are dropped first, as `--drop-constant`.
use mibound::estimators::{EstimatorSpec, Settings, compare};
use std::collections::BTreeMap;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut tasks, mut seeds, mut n) = (Vec::new(), vec![0u64], 5000usize);
    for pair in args.chunks(2) {
        match (pair[0].as_str(), pair.get(1)) {
            ("--tasks", Some(v)) => tasks = v.split(',').map(String::from).collect(),
            ("--seeds", Some(v)) => seeds = v.split(',').map(|s| s.parse().expect("seeds are numbers")).collect(),
            ("--n", Some(v)) => n = v.parse().expect("--n takes a number"),
            _ => {
                eprintln!("usage: selfcheck_suite --tasks ID,… [--seeds 0,1,2] [--n ROWS]");
                std::process::exit(2);
            }
        }
    }
    let settings = Settings::default();
    let specs = [EstimatorSpec::Auto];
    let mut by_group: BTreeMap<String, Tally> = BTreeMap::new();
    for id in &tasks {
        let task = mibound::tasks::get(id).expect("a task id");
        let info = task.info();
        for &seed in &seeds {
            let (x, y) = task.draw(n, seed).unwrap();
            let (x, y) = (drop_constant(&x), drop_constant(&y));
            let c = compare(&specs, &settings, x.as_view(), y.as_view(), seed, None).unwrap();
            let c = c.with_self_check(&specs, &settings, (x.as_view(), y.as_view()), seed, None).unwrap();
            let s = c.selfcheck.as_ref().expect("self-check run");
            let failed = |what: &str| s.failures.iter().any(|f| f.starts_with(what));
            let g = by_group.entry(info.group.name().to_string()).or_default();
            g.pairs += 1;
            if s.additivity_ratio.is_finite() {
                g.within += usize::from(!failed("additivity"));
                g.ratios.push(s.additivity_ratio);
            }
            g.invariance += usize::from(failed("invariance"));
            g.independence += usize::from(failed("independence"));
            println!(
                "{id:44} seed {seed} truth {:6.3} | {} {:6.3} | half {:6.3} doubled {:6.3} ratio {:5.2} | mapped {:6.3} shuffled {:6.3} | failed: {}",
                info.true_mi,
                s.estimator,
                s.value,
                s.single,
                s.doubled,
                s.additivity_ratio,
                s.mapped,
                s.shuffled,
                s.failures.iter().map(|f| f.split(':').next().unwrap_or("")).collect::<Vec<_>>().join(", ")
            );
        }
    }
    println!(
        "\n| group | pairs | additivity ratio: mean (min–max) | within 2 ± 0.4 | invariance failed | independence failed |"
    );
    println!("|---|---:|---|---:|---:|---:|");
    for (g, t) in &by_group {
        let Tally { pairs, within, invariance: inv, independence: ind, ratios } = t;
        let judged = ratios.len();
        let mean = ratios.iter().sum::<f64>() / ratios.len().max(1) as f64;
        let lo = ratios.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        println!("| {g} | {pairs} | {mean:.2} ({lo:.2}–{hi:.2}) | {within}/{judged} | {inv}/{pairs} | {ind}/{pairs} |");
    }
}

/// One group's self-checks: (task, seed) pairs, additivity ratios (finite ones) and how many
/// were within 2 ± 0.4, invariance and independence failures.
#[derive(Default)]
struct Tally {
    pairs: usize,
    within: usize,
    invariance: usize,
    independence: usize,
    ratios: Vec<f64>,
}

/// The columns of `m` that are not constant.
fn drop_constant(m: &nalgebra::DMatrix<f64>) -> nalgebra::DMatrix<f64> {
    m.clone().remove_columns_at(&mibound::numerics::constant_columns(m.as_view()))
}
