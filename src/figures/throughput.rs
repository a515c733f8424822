//! Training steps per second against the batch size, for each critic and gemm backend.

use super::{FigureOpts, save_both, write_jsonl};
use crate::bounds::BoundSpec;
use crate::compute::Compute;
use crate::critics::{CriticSpec, Init};
use crate::data::rng;
use crate::error::Result;
use crate::gemm::Backend;
use crate::optim::{Adam, AdamConfig};
use crate::plot::{Figure, PALETTE, Panel, Series, Style};
use crate::tasks::Parametric;
use crate::train::{Cursor, Data, Schedule, TrainStep};
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
struct Row {
    critic: String,
    backend: &'static str,
    batch: usize,
    steps_per_s: f64,
    gflops: f64,
}

/// How long a throughput measurement times the step.
#[derive(Clone, Copy, Debug)]
pub enum Budget {
    /// Exactly this many steps.
    Steps(u64),
    /// At least this many seconds (and at least three steps).
    Seconds(f64),
}

/// Steps per second and GFLOP/s (from `Critic::macs_per_step`) of the Poole et al. InfoNCE
/// training step (x, y ∈ R²⁰ correlated with I = 4 nats, Adam, f32) with the critic `spec` at
/// batch size `n`, after `warmup` untimed steps. The loop runs on the thread pool when a step
/// may use more than one thread ([`Compute::on_pool`]).
pub fn measure(spec: &CriticSpec, n: usize, warmup: u64, budget: Budget, compute: Compute) -> Result<(f64, f64)> {
    let data = Data::stream(Parametric::Gaussian { dim: 20 }, Schedule::Constant { mi: 4.0 })?;
    let c = spec.build_with::<f32>(20, 20, compute)?;
    let macs = c.macs_per_step(n);
    let mut p = c.init_params(Init::Torch, 0);
    let mut adam = Adam::new(AdamConfig::default(), p.len())?;
    adam.set_compute(compute);
    let mut st = TrainStep::new(c, BoundSpec::InfoNce.build()?, adam, n, (20, 20));
    let (mut g, mut cur) = (rng(1), Cursor::default());
    compute.on_pool(|| {
        for k in 0..warmup {
            st.run(&mut p, &data, &mut g, &mut cur, k)?;
        }
        let t = std::time::Instant::now();
        let mut k = 0;
        while match budget {
            Budget::Steps(s) => k < s,
            Budget::Seconds(secs) => t.elapsed().as_secs_f64() < secs || k < 3,
        } {
            st.run(&mut p, &data, &mut g, &mut cur, warmup + k)?;
            k += 1;
        }
        let sps = k as f64 / t.elapsed().as_secs_f64();
        Ok((sps, 2.0 * macs * sps / 1e9))
    })
}

/// One thread, sequential measurements (no other run competes for the cores).
pub fn throughput(o: &FigureOpts) -> Result<()> {
    let seconds = if o.quick { 0.05 } else { 2.0 };
    let sep_ns: Vec<usize> = if o.quick { vec![32, 64] } else { vec![32, 64, 128, 256, 512] };
    let cat_ns: Vec<usize> = if o.quick { vec![16] } else { vec![16, 32, 64, 128] };
    let critics = [
        ("separable", CriticSpec::poole_separable(), &sep_ns),
        ("cpc (bilinear)", CriticSpec::parse("cpc")?, &sep_ns),
        ("concat", CriticSpec::poole_concat(), &cat_ns),
    ];
    let mut rows = Vec::new();
    for &b in Backend::available() {
        crate::gemm::set_blas_threads(1);
        for (name, spec, ns) in &critics {
            for &n in ns.iter() {
                let (sps, gflops) = measure(spec, n, 3, Budget::Seconds(seconds), Compute::new(b, 1)?)?;
                rows.push(Row { critic: name.to_string(), backend: b.name(), batch: n, steps_per_s: sps, gflops });
            }
        }
    }
    let mut series = Vec::new();
    let mut k = 0;
    for &b in Backend::available() {
        for (name, _, _) in &critics {
            let pts = rows
                .iter()
                .filter(|r| r.backend == b.name() && r.critic == *name)
                .map(|r| (r.batch as f64, r.steps_per_s.log10()))
                .collect();
            let style = if b == Backend::Native { Style::Line(2) } else { Style::Dashed };
            series.push(Series::new(&format!("{name}, {}", b.name()), pts, PALETTE[k % 3], style));
            k += 1;
        }
    }
    let fig = Figure {
        title: "Training throughput (InfoNCE, d = 20, MLPs 256 × 2, f32, 1 thread)".into(),
        panels: vec![Panel {
            title: "steps per second".into(),
            x_label: "batch size N (log scale)".into(),
            y_label: "log10 steps/s".into(),
            series,
            y_range: None,
            log_x: true,
            legend: Default::default(),
        }],
        cols: 1,
        panel_size: (720, 460),
    };
    save_both(&fig, &o.out, "throughput")?;
    write_jsonl(&o.path("throughput.jsonl"), &rows)
}
