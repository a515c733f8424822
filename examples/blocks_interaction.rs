//! The power and false-alarm rate of the kernel test of the blocks' joint independence
//! (`mibound::blocks::blocks_interaction_p`) that `auto` runs before summing KSG over blocks:
//! on blocks whose relation another block modulates (a sign or a scale set by `|x₁|`, at
//! several strengths), and on independent blocks, over 100 data sets each at 2000 rows.
//!
//!     cargo run --release --example blocks_interaction [-- --record docs/runs/blocks-interaction.jsonl]

use mibound::blocks::blocks_interaction_p;
use mibound::estimators::classical::gaussian::copula_transform;
use mibound::rng::rng;
use nalgebra::DMatrix;
use rand_distr::{Distribution, StandardNormal};

/// x₁, x₂ standard normal; y₁ = x₁ + e₁; y₂ = g(x₁)·x₂ + 0.3 e₂ with g = a above the median of
/// |x₁| and b below.
fn modulated(n: usize, (a, b): (f64, f64), seed: u64) -> (DMatrix<f64>, DMatrix<f64>) {
    let mut g = rng(seed);
    let mut normal = || -> f64 { StandardNormal.sample(&mut g) };
    let x = DMatrix::from_fn(n, 2, |_, _| normal());
    let y = DMatrix::from_fn(n, 2, |i, j| match j {
        0 => x[(i, 0)] + normal(),
        _ => (if x[(i, 0)].abs() > 0.6745 { a } else { b }) * x[(i, 1)] + 0.3 * normal(),
    });
    (x, y)
}

fn main() {
    let blocks = vec![(vec![0], vec![0]), (vec![1], vec![1])];
    let runs = 100;
    let record = std::env::args().skip_while(|a| a != "--record").nth(1);
    let mut lines = Vec::new();
    println!("| relation of block 2 (y₂ = g·x₂ + 0.3e) | g above / below the median of abs(x₁) | rejected at 1 % |");
    println!("|---|---|---:|");
    for (what, ab) in [
        ("independent blocks", (1.0, 1.0)),
        ("sign flip", (1.0, -1.0)),
        ("scale", (2.0, 0.5)),
        ("weak scale", (1.3, 0.7)),
        ("weak sign", (1.0, 0.5)),
    ] {
        let rejected = (0..runs)
            .filter(|&s| {
                let (x, y) = modulated(2000, ab, s);
                let (xs, ys) = (copula_transform(x.as_view()), copula_transform(y.as_view()));
                blocks_interaction_p(xs.as_view(), ys.as_view(), &blocks) <= 0.01
            })
            .count();
        println!("| {what} | {} / {} | {rejected} of {runs} |", ab.0, ab.1);
        let q = |v: &str| serde_json::to_string(v).expect("a string");
        lines.push(format!(
            "{{\"table\": \"blocks-interaction\", \"run\": \"the kernel test of the blocks' joint independence\", \"command\": \"cargo run --release --example blocks_interaction\", \"source\": \"examples/blocks_interaction.rs\", \"date\": {}, \"row\": {{{}: {}, {}: {}, {}: {}}}}}",
            q(&std::env::var("MIBOUND_RUN_DATE").unwrap_or_default()),
            q("relation of block 2, y₂ = g·x₂ + 0.3e"),
            q(what),
            q("g above / below the median of abs(x₁)"),
            q(&format!("{} / {}", ab.0, ab.1)),
            q("rejected at 1 % (2000 rows)"),
            q(&format!("{rejected} of {runs}"))
        ));
    }
    if let Some(path) = record {
        std::fs::write(path, lines.join("\n") + "\n").expect("write the record");
    }
}
