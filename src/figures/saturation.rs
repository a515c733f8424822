//! InfoNCE against the batch size: `log N − L ≤ I` and the saturation at `log N`.

use super::{FigureOpts, save_both, write_jsonl};
use crate::bounds::{Bound, BoundSpec, InfoNce};
use crate::critics::CriticSpec;
use crate::data::{CorrelatedGaussian, Sampler, rng};
use crate::error::Result;
use crate::plot::{Figure, PALETTE, Panel, Series, Style};
use crate::tasks::Parametric;
use crate::train::{Data, Schedule, TrainConfig, train};
use plotters::style::BLACK;
use rayon::prelude::*;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
struct Row {
    critic: &'static str,
    true_mi: f64,
    batch: usize,
    mean: f64,
    se: f64,
}

/// InfoNCE at N ∈ {8 … 1024} for I ∈ {2, 5, 10} nats (d = 20): the optimal critic averaged over
/// batches, and separable critics trained at N ∈ {16, 64, 256}.
// Long because it is one figure script: compute the curves, then draw them, in reading order.
pub fn saturation(o: &FigureOpts) -> Result<()> {
    let mis = [2.0, 5.0, 10.0];
    let ns: Vec<usize> = if o.quick { vec![8, 32, 128] } else { (3..=10).map(|k| 1usize << k).collect() };
    let trained_ns: Vec<usize> = if o.quick { vec![16] } else { vec![16, 64, 256] };
    let steps = if o.quick { 30 } else { 3000 };
    let optimal: Vec<Row> = mis
        .iter()
        .flat_map(|&mi| ns.iter().map(move |&n| (mi, n)))
        .collect::<Vec<_>>()
        .par_iter()
        .map(|&(mi, n)| {
            let task = CorrelatedGaussian::with_mi(20, mi)?;
            let batches = if o.quick { 4 } else { (65536 / n).clamp(16, 512) };
            let mut g = rng(o.seed ^ (n as u64) ^ mi.to_bits());
            let v: Vec<f64> = (0..batches)
                .map(|_| {
                    let (x, y) = task.sample(n, &mut g);
                    InfoNce::<f64>::new()
                        .value(&task.optimal_critic(&x, &y).unwrap_or_else(|| nalgebra::DMatrix::zeros(n, n)))
                })
                .collect::<Result<_>>()?;
            let (mean, std) = crate::train::mean_std(v.iter().copied());
            Ok(Row { critic: "optimal", true_mi: mi, batch: n, mean, se: std / (v.len() as f64).sqrt() })
        })
        .collect::<Result<_>>()?;
    let trained: Vec<Row> = mis
        .iter()
        .flat_map(|&mi| trained_ns.iter().map(move |&n| (mi, n)))
        .collect::<Vec<_>>()
        .par_iter()
        .map(|&(mi, n)| {
            let data = Data::stream(Parametric::Gaussian { dim: 20 }, Schedule::Constant { mi })?;
            let mut cfg = TrainConfig::new(CriticSpec::poole_separable(), BoundSpec::InfoNce, n, steps);
            cfg.seed = o.seed;
            let r = train::<f32>(&data, &cfg)?;
            let t = r.tail(0.2).unwrap_or(crate::train::Window {
                from: 0,
                to: 0,
                mean: f64::NAN,
                std: f64::NAN,
                true_mi: None,
            });
            Ok(Row { critic: "trained separable", true_mi: mi, batch: n, mean: t.mean, se: t.std })
        })
        .collect::<Result<_>>()?;
    let panels = mis
        .iter()
        .map(|&mi| {
            let pick = |rows: &[Row]| {
                rows.iter().filter(|r| r.true_mi == mi).map(|r| (r.batch as f64, r.mean)).collect::<Vec<_>>()
            };
            let n_max = *ns.last().unwrap_or(&8) as f64;
            Panel {
                title: format!("I = {mi} nats"),
                x_label: "batch size N (log scale)".into(),
                y_label: "InfoNCE (nats)".into(),
                series: vec![
                    Series::new(
                        "log N",
                        ns.iter().map(|&n| (n as f64, (n as f64).ln())).collect(),
                        PALETTE[6],
                        Style::Dashed,
                    ),
                    Series::new("true MI", vec![(8.0, mi), (n_max, mi)], BLACK, Style::Line(2)),
                    Series::new("optimal critic", pick(&optimal), PALETTE[0], Style::Line(2)),
                    Series::new("trained critic (3000 steps)", pick(&trained), PALETTE[1], Style::Points),
                ],
                y_range: Some((0.0, 11.0)),
                log_x: true,
                legend: if mi < 10.0 { crate::plot::Legend::UpperLeft } else { crate::plot::Legend::LowerRight },
            }
        })
        .collect();
    let fig = Figure {
        title: "InfoNCE saturates at log N: log N − L ≤ I (d = 20 correlated Gaussian)".into(),
        panels,
        cols: 3,
        panel_size: (460, 380),
    };
    save_both(&fig, &o.out, "saturation")?;
    let mut rows = optimal;
    rows.extend(trained);
    write_jsonl(&o.path("saturation.jsonl"), &rows)
}
