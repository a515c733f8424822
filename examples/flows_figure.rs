//! The figure for issue #18: estimated against true MI on the 20-d cubic task for the flow
//! estimator (this crate's `flows`, read from the CSV files `examples/flows_cubic.rs` prints, one
//! per seed) beside InfoNCE and SMILE(τ = 5).
//!
//! The InfoNCE and SMILE values are **not re-run here**: they are the measured means over the
//! last 500 steps of each level of the project's staircase run (docs/results.md, "cubic,
//! separable": N = 64, 4000 steps per level, streamed samples, f32), copied below. KSG is not in
//! this branch of the crate and is not shown.
//!
//! `cargo run --release --example flows_figure -- OUT.png seed0.csv [seed1.csv …]`

use mibound::plot::{Figure, Legend, PALETTE, Panel, Series, Style};
use plotters::style::RGBColor;

/// docs/results.md, "cubic, separable" (true MI 2, 4, 6, 8, 10).
const INFONCE: [f64; 5] = [1.31, 2.54, 3.34, 3.77, 3.98];
const SMILE: [f64; 5] = [1.24, 3.00, 5.00, 7.05, 9.14];
const LEVELS: [f64; 5] = [2.0, 4.0, 6.0, 8.0, 10.0];

fn main() -> mibound::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (out, csvs) = args.split_first().ok_or_else(|| mibound::Error::param("arguments", "none", "OUT.png CSV…"))?;
    let mut flow = Vec::new();
    for path in csvs {
        let text = std::fs::read_to_string(path).map_err(|source| mibound::Error::Io { path: path.into(), source })?;
        for line in text.lines().filter(|l| l.chars().next().is_some_and(|c| c.is_ascii_digit())) {
            let f: Vec<f64> = line.split(',').take(2).filter_map(|v| v.parse().ok()).collect();
            if f.len() == 2 {
                flow.push((f[0], f[1]));
            }
        }
    }
    let pts = |v: &[f64]| LEVELS.iter().copied().zip(v.iter().copied()).collect::<Vec<_>>();
    let panel = Panel {
        title: "20-d cubic task (y ↦ y³)".into(),
        x_label: "true MI (nats)".into(),
        y_label: "estimate (nats)".into(),
        series: vec![
            Series::new("true MI", vec![(1.5, 1.5), (10.5, 10.5)], RGBColor(0, 0, 0), Style::Line(1)),
            Series::new("log 64", vec![(1.5, 64f64.ln()), (10.5, 64f64.ln())], RGBColor(120, 120, 120), Style::Dashed),
            Series::new("InfoNCE, N = 64 (staircase run)", pts(&INFONCE), PALETTE[1], Style::Line(2)),
            Series::new("SMILE τ = 5 (staircase run)", pts(&SMILE), PALETTE[2], Style::Line(2)),
            Series::new("flow Gaussianisation, n = 20 000 (held-out)", flow, PALETTE[0], Style::Points),
        ],
        y_range: Some((0.0, 11.0)),
        log_x: false,
        legend: Legend::UpperLeft,
    };
    Figure { title: "MI estimates against the truth".into(), panels: vec![panel], cols: 1, panel_size: (720, 520) }
        .save(std::path::Path::new(out))
}
