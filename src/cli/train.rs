//! `mibound train`: one critic through a staircase of MI levels.

use super::TrainOpts;
use crate::bounds::BoundSpec;
use crate::critics::CriticSpec;
use crate::error::{Error, Result};
use crate::tasks::Parametric;

/// `mibound train`: one run of the runner on a staircase, one line (or JSON object) per level.
pub fn train(o: &TrainOpts) -> Result<()> {
    use crate::train::{Data, Schedule, TrainConfig};
    if o.mi.is_empty() || o.steps == 0 || o.threads == 0 || !(o.tail > 0.0 && o.tail <= 1.0) {
        return Err(Error::param(
            "mi/steps/threads/tail",
            format!("{:?}/{}/{}/{}", o.mi, o.steps, o.threads, o.tail),
            "need at least one MI level, steps ≥ 1, threads ≥ 1 and 0 < tail ≤ 1",
        ));
    }
    let task = Parametric::parse(&o.task, o.dim)?;
    let data = Data::stream(task, Schedule::Staircase { levels: o.mi.clone(), steps_per_level: o.steps })?;
    let mut cfg = TrainConfig::new(
        CriticSpec::parse(&o.critic)?,
        BoundSpec::parse(&o.bound)?,
        o.batch,
        o.steps * o.mi.len() as u64,
    );
    cfg.adam.lr = o.lr;
    cfg.compute = crate::compute::Compute::with_threads(o.threads)?;
    cfg.seed = o.seed;
    cfg.trace = o.trace.clone();
    let mut observers: Vec<Box<dyn crate::train::Observer>> = Vec::new();
    if !(o.quiet || o.json) {
        let label = cfg.bound.build::<f32>()?.label();
        observers.push(Box::new(super::progress::ProgressObserver::new(cfg.steps, &label)));
    }
    // On a pool of o.threads workers of its own (no process-wide rayon setting).
    let res = cfg.compute.install(|| crate::train::train_observed::<f32>(&data, &cfg, observers))??;
    let (wall, sps) = (res.wall_seconds, res.steps_per_second());
    let log_n = (o.batch as f64).ln();
    if !o.json {
        println!(
            "{} · {} critic · {} task, d = {} · N = {} (log N = {log_n:.3}) · {} steps per level · {} thread(s)",
            res.meta.bound_label, o.critic, o.task, o.dim, o.batch, o.steps, o.threads
        );
        println!("  true MI   estimate ± std (last {:.0} % of the level)", 100.0 * o.tail);
    }
    for (level, w) in res.levels(o.steps, o.tail).iter().enumerate() {
        let true_mi = w.true_mi.unwrap_or(f64::NAN);
        if o.json {
            let v = serde_json::json!({"tool": "mibound", "estimator": o.bound, "critic": o.critic, "task": o.task,
                "batch": o.batch, "threads": o.threads, "seed": o.seed, "dim": o.dim, "level": level,
                "true_mi": true_mi, "log_batch": log_n, "steps": o.steps, "tail_steps": w.to - w.from,
                "estimate_mean": w.mean, "estimate_std": w.std, "run_wall_s": wall, "steps_per_s": sps,
                "backend": res.meta.backend, "n_params": res.params.len()});
            println!("{v}");
        } else {
            println!("  {true_mi:7.3}   {:8.3} ± {:.3}", w.mean, w.std);
        }
    }
    if !o.json {
        println!("{} steps in {wall:.2} s ({sps:.0} steps/s, {} backend)", res.trace.len(), res.meta.backend);
    }
    Ok(())
}
