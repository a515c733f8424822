//! `mibound throughput`: training steps per second.

use super::ThroughputOpts;
use crate::critics::CriticSpec;
use crate::error::{Error, Result};

/// `mibound throughput`.
pub fn throughput(o: &ThroughputOpts) -> Result<()> {
    let (critic, batch, threads, gemm_threads, steps, warmup, as_json) =
        (o.critic.as_str(), o.batch, o.threads, o.gemm_threads, o.steps, o.warmup, o.json);
    use crate::figures::{Budget, measure_throughput};
    if steps == 0 || batch < 2 || threads == 0 {
        return Err(Error::param(
            "steps/batch/threads",
            format!("{steps}/{batch}/{threads}"),
            "need steps ≥ 1, batch ≥ 2, threads ≥ 1",
        ));
    }
    let b = match &o.backend {
        Some(name) => name.parse()?,
        None => crate::gemm::Backend::default(),
    };
    let compute = crate::compute::Compute::new(b, threads)?;
    if gemm_threads > 1 && b != crate::gemm::Backend::Blas {
        return Err(Error::param("gemm threads", gemm_threads, "only the blas backend threads inside a product"));
    }
    let spec = match critic {
        "separable" => CriticSpec::poole_separable(),
        "concat" => CriticSpec::poole_concat(),
        "bilinear" | "cpc" => CriticSpec::parse("cpc")?,
        other => {
            return Err(Error::Unknown {
                kind: "critic",
                name: other.into(),
                known: "separable, concat, bilinear".into(),
            });
        }
    };
    // OpenBLAS's threads only for the run, on a rayon pool of its own (no process-wide setting).
    let run = || measure_throughput(&spec, batch, warmup, Budget::Steps(steps), compute);
    let (sps, gflops) = crate::gemm::with_blas_threads(gemm_threads.max(1), || compute.install(run))??;
    let secs = steps as f64 / sps;
    let n_params = spec.build::<f32>(20, 20)?.n_params();
    // The single-thread gemm peak of this backend, measured now, beside the run.
    let peak = if o.peak {
        let peak =
            || crate::gemm::PEAK_SHAPES.iter().map(|&sh| crate::gemm::measure_gflops(b, sh, 20)).fold(0.0, f64::max);
        Some(crate::gemm::with_blas_threads(1, peak))
    } else {
        None
    };
    if as_json {
        let v = serde_json::json!({"tool": "mibound", "critic": critic, "batch": batch, "threads": threads, "gemm_threads": gemm_threads, "steps": steps,
            "seconds": secs, "steps_per_s": sps, "gflops": gflops, "backend": b.name(), "params": n_params,
            "peak_gflops": peak});
        println!("{v}");
    } else {
        println!(
            "{critic} critic, N = {batch}, {threads} thread(s), {} backend ({gemm_threads} per product): {sps:.1} steps/s ({:.3} ms/step), {gflops:.1} GFLOP/s",
            b.name(),
            1e3 / sps
        );
        if let Some(p) = peak {
            println!(
                "single-thread gemm peak of this backend, measured now: {p:.1} GFLOP/s ({:.0} % of it)",
                100.0 * gflops / p
            );
        }
    }
    Ok(())
}
