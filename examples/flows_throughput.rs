//! Throughput of one joint training step of the flow-Gaussianisation estimator: 20-d cubic task,
//! two standard flows (`blocks` × [Mixing, Coupling 10 → 64 → 64 → 20]), batch 256, f64, one
//! thread. Prints one JSON line; `benches/torch_flow_step.py` times the same step in PyTorch and
//! `benches/compare_flow_torch.sh` prints the ratio.
//!
//! `cargo run --release --example flows_throughput -- [steps] [batch] [blocks]`

use mibound::data::{CorrelatedGaussian, Sampler, Transformed, rng};
use mibound::flows::{FlowGaussianisation, GaussianisationConfig, Trainable};

fn main() -> mibound::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, d: usize| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(d);
    let (steps, batch, blocks) = (num(0, 500), num(1, 256), num(2, 4));
    let task = Transformed::cubic_y(CorrelatedGaussian::with_mi(20, 4.0)?);
    let (x, y) = task.sample(16_384, &mut rng(0));
    let (xv, yv) = task.sample(256, &mut rng(1));
    let cfg = GaussianisationConfig { blocks, batch, marginal_steps: 0, cca_init: false, ..Default::default() };
    let mut model = FlowGaussianisation::new(&x, &y, &xv, &yv, &cfg)?;
    let mut params = model.init_params()?;
    for s in 0..20 {
        model.step(&mut params, s)?;
    }
    let t = std::time::Instant::now();
    for s in 0..steps as u64 {
        model.step(&mut params, 20 + s)?;
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{{\"tool\": \"mibound\", \"steps_per_s\": {:.2}, \"ms_per_step\": {:.3}, \"batch\": {batch}, \"blocks\": {blocks}, \"params\": {}, \"steps\": {steps}}}",
        steps as f64 / secs,
        1e3 * secs / steps as f64,
        model.n_params()
    );
    Ok(())
}
