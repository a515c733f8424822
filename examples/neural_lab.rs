//! A laboratory for the neural default: InfoNCE estimates of several variants of the neural
//! settings on the same samples of chosen tasks and seeds, with the truth, the absolute error and
//! the wall time of each, and a summary per variant (mean absolute error, pairs within
//! max(0.25, 25 %) of the truth, mean seconds).
//!
//!     cargo run --release --example neural_lab -- --tasks digits-0.3,digits-0.6 --seeds 0,1,2 \
//!         base wd=weight_decay:0.01 alone=critic:separable
//!
//! A variant is `NAME` (the defaults) or `NAME=KEY:VALUE;KEY:VALUE…` with keys `critic`
//! (`auto`, `separable`, …, as `--critic`), `hidden` (`512` or `256+256`), `embed`,
//! `weight_decay`, `lr`, `batch`, `steps`, `pilot_steps`, `patience`, `folds`, `squares`,
//! `symmetric`, `test_batch` (`0`: the whole test fold), `knn` and `walks` (`1+2+4`; empty:
//! none), `blocks` (`0` or `1`: the nearest-neighbour candidates summed over blocks of columns),
//! `given` (`0` or `1`: them again on the coordinates as given), `elliptical` (`normal+4+16`: the tails of the elliptical critics; empty: none) and
//! `transform`. Options `--n ROWS` (5000). (Learning-rate decays on validation plateaus and
//! noise on the training inputs were tried with this example and not adopted; they left the
//! library.)
//! Only for choosing defaults on the tuning half (docs/tasks.md): it prints the truth.
use mibound::critics::Tails;
use mibound::estimators::{EstimatorSpec, Options, Settings};
use std::time::Instant;

struct Variant {
    name: String,
    settings: Settings,
}

fn variant(text: &str) -> Variant {
    let (name, body) = text.split_once('=').unwrap_or((text, ""));
    let mut o = Options::default();
    let mut post: Vec<(String, String)> = Vec::new();
    for kv in body.split(';').filter(|s| !s.is_empty()) {
        let (k, v) = kv.split_once(':').unwrap_or_else(|| panic!("{kv}: KEY:VALUE"));
        match k {
            "critic" => o.critic = v.into(),
            "hidden" => o.hidden = v.split('+').map(|h| h.parse().unwrap()).collect(),
            "embed" => o.embed = v.parse().unwrap(),
            "weight_decay" => o.weight_decay = v.parse().unwrap(),
            "lr" => o.lr = v.parse().unwrap(),
            "batch" => o.batch = v.parse().unwrap(),
            "steps" => o.steps = v.parse().unwrap(),
            "folds" => o.folds = v.parse().unwrap(),
            "transform" => o.transform = v.into(),
            _ => post.push((k.into(), v.into())),
        }
    }
    let mut settings = o.settings(|f| f.to_string()).unwrap();
    let n = &mut settings.neural;
    for (k, v) in post {
        let c = &mut n.candidates;
        match k.as_str() {
            "pilot_steps" => c.pilot_steps = v.parse().unwrap(),
            "patience" => n.patience = v.parse().unwrap(),
            "squares" => c.squares = v == "1",
            "test_batch" => n.test_batch = if v == "none" { None } else { Some(v.parse().unwrap()) },
            "symmetric" => n.symmetric = v == "1",
            "knn" => c.knn = v.split('+').filter(|s| !s.is_empty()).map(|c| c.parse().unwrap()).collect(),
            "walks" => c.walks = v.split('+').filter(|s| !s.is_empty()).map(|c| c.parse().unwrap()).collect(),
            "blocks" => c.blocks = v == "1",
            "given" => c.given = v == "1",
            "elliptical" => {
                let tails =
                    |t: &str| if t == "normal" { Tails::Normal } else { Tails::Student { dof: t.parse().unwrap() } };
                c.elliptical = v.split('+').filter(|s| !s.is_empty()).map(tails).collect()
            }
            other => panic!("unknown key {other}"),
        }
    }
    Variant { name: name.into(), settings }
}

#[derive(Default)]
struct Tally {
    pairs: usize,
    err: f64,
    within: usize,
    secs: f64,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut tasks, mut seeds, mut n, mut variants) = (Vec::new(), vec![0u64], 5000usize, Vec::new());
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--tasks" => {
                tasks = args[i + 1].split(',').map(String::from).collect();
                i += 1;
            }
            "--seeds" => {
                seeds = args[i + 1].split(',').map(|s| s.parse().unwrap()).collect();
                i += 1;
            }
            "--n" => {
                n = args[i + 1].parse().unwrap();
                i += 1;
            }
            v => variants.push(variant(v)),
        }
        i += 1;
    }
    if variants.is_empty() {
        variants.push(variant("base"));
    }
    let mut tally: Vec<Tally> = variants.iter().map(|_| Tally::default()).collect();
    for id in &tasks {
        let task = mibound::tasks::get(id).expect("a task id");
        let truth = task.info().true_mi;
        for &seed in &seeds {
            let (x, y) = task.draw(n, seed).unwrap();
            let (x, y) = drop_constant(x, y);
            for (v, t) in variants.iter().zip(tally.iter_mut()) {
                let e = EstimatorSpec::parse("infonce").unwrap().build(&v.settings).unwrap();
                let clock = Instant::now();
                let r = e.estimate(x.as_view(), y.as_view(), seed).unwrap();
                let secs = clock.elapsed().as_secs_f64();
                let err = (r.value - truth).abs();
                t.pairs += 1;
                t.err += err;
                t.within += usize::from(err <= 0.25f64.max(0.25 * truth));
                t.secs += secs;
                let chosen: Vec<_> =
                    r.settings.neural().map(|s| s.chosen_per_fold.iter().map(|c| c.id).collect()).unwrap_or_default();
                println!(
                    "{id:44} seed {seed} truth {truth:6.3} | {:12} {:6.3} [{:6.3}, {:6.3}] err {err:5.3} {secs:6.1} s {chosen:?}",
                    v.name, r.value, r.interval.low, r.interval.high
                );
            }
        }
    }
    println!("\n| variant | pairs | MAE | within tolerance | mean s |\n|---|---:|---:|---:|---:|");
    for (v, t) in variants.iter().zip(&tally) {
        let k = t.pairs.max(1) as f64;
        println!("| {} | {} | {:.3} | {}/{} | {:.1} |", v.name, t.pairs, t.err / k, t.within, t.pairs, t.secs / k);
    }
}

/// Drops the columns that are constant in x or in y (as `--drop-constant` does).
fn drop_constant(
    x: nalgebra::DMatrix<f64>,
    y: nalgebra::DMatrix<f64>,
) -> (nalgebra::DMatrix<f64>, nalgebra::DMatrix<f64>) {
    let varying = |m: nalgebra::DMatrix<f64>| {
        let constant = mibound::numerics::constant_columns(m.as_view());
        m.remove_columns_at(&constant)
    };
    (varying(x), varying(y))
}
