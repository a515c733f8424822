//! One training step (sample, critic forward, InfoNCE, backward, Adam) for each gemm backend
//! compiled in; and the training runner against a plain loop over the same steps (the
//! runner's overhead). `cargo bench --bench train_step` (add `--features blas` for OpenBLAS).

use criterion::{Criterion, criterion_group, criterion_main};
use mibound::bounds::BoundSpec;
use mibound::compute::Compute;
use mibound::critics::{CriticSpec, Init};
use mibound::data::rng;
use mibound::gemm::{Backend, set_blas_threads};
use mibound::optim::{Adam, AdamConfig};
use mibound::tasks::Parametric;
use mibound::train::{Cursor, Data, Schedule, TrainConfig, TrainStep, train};
use std::hint::black_box;

fn poole_data() -> Data {
    Data::stream(Parametric::Gaussian { dim: 20 }, Schedule::Constant { mi: 4.0 }).unwrap()
}

fn step(c: &mut Criterion) {
    set_blas_threads(1);
    let data = poole_data();
    for &backend in Backend::available() {
        let compute = Compute::new(backend, 1).unwrap();
        for (critic, n) in [
            (CriticSpec::poole_separable(), 64),
            (CriticSpec::poole_separable(), 512),
            (CriticSpec::poole_concat(), 64),
        ] {
            let cr = critic.build_with::<f32>(20, 20, compute).unwrap();
            let mut params = cr.init_params(Init::Torch, 0);
            let adam = Adam::new(AdamConfig::default(), params.len()).unwrap();
            let name = format!("step/{}/{}/N={n}", backend.name(), cr.name());
            let mut st = TrainStep::new(cr, BoundSpec::InfoNce.build().unwrap(), adam, n, (20, 20));
            let (mut g, mut cursor, mut k) = (rng(1), Cursor::default(), 0u64);
            c.bench_function(&name, |b| {
                b.iter(|| {
                    k += 1;
                    black_box(st.run(&mut params, &data, &mut g, &mut cursor, k).unwrap())
                })
            });
        }
    }
}

/// 200 steps through the runner (`train`) against 200 plain `TrainStep::run` calls.
fn runner_overhead(c: &mut Criterion) {
    let data = poole_data();
    let cfg = TrainConfig::new(CriticSpec::poole_separable(), BoundSpec::InfoNce, 64, 200);
    let mut group = c.benchmark_group("runner/separable/N=64/200 steps");
    group.sample_size(10);
    group.bench_function("runner", |b| b.iter(|| black_box(train::<f32>(&data, &cfg).unwrap())));
    group.bench_function("plain loop", |b| {
        b.iter(|| {
            let (mut t, mut params) = mibound::train::trainer::<f32>(&data, &cfg).unwrap();
            let mut g = rng(cfg.seed);
            let mut cursor = Cursor::default();
            for k in 0..200 {
                black_box(t.step.run(&mut params, &data, &mut g, &mut cursor, k).unwrap());
            }
        })
    });
    group.finish();
}

criterion_group!(benches, step, runner_overhead);
criterion_main!(benches);
