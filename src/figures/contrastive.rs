//! Why temperature matters: the weight InfoNCE's gradient puts on each negative.

use super::{FigureOpts, save_both, write_jsonl};
use crate::bounds::contrastive::negative_weights;
use crate::error::Result;
use crate::plot::{Figure, PALETTE, Panel, Series, Style};
use serde::Serialize;

#[derive(Serialize)]
struct Row {
    tau: f64,
    similarity: f64,
    weight: f64,
}

/// `∂L/∂s_j = softmax(s/τ)_j / τ` for 201 negatives with cosine similarities evenly spread over
/// [−1, 1], at τ ∈ {0.02, 0.1, 0.5, 1}: a small τ puts nearly all the weight on the hardest
/// (most similar) negatives, a large τ spreads it almost uniformly.
pub fn temperature(o: &FigureOpts) -> Result<()> {
    let s: Vec<f64> = (0..=200).map(|k| -1.0 + k as f64 / 100.0).collect();
    let mut rows = Vec::new();
    let mut series = Vec::new();
    for (k, tau) in [0.02, 0.1, 0.5, 1.0].into_iter().enumerate() {
        let w = negative_weights(&s, tau);
        series.push(Series::new(
            &format!("τ = {tau}"),
            s.iter().zip(&w).map(|(&x, &v)| (x, v.max(1e-30).log10())).collect(),
            PALETTE[k],
            Style::Line(2),
        ));
        rows.extend(s.iter().zip(&w).map(|(&x, &v)| Row { tau, similarity: x, weight: v }));
    }
    let fig = Figure {
        title: "Temperature and hard negatives in InfoNCE".into(),
        panels: vec![Panel {
            title: "gradient weight of each of 201 negatives (similarities spread over [−1, 1])".into(),
            x_label: "similarity of the negative to the anchor".into(),
            y_label: "log10 gradient weight exp(s/τ)/Σexp(s/τ)/τ".into(),
            series,
            y_range: Some((-12.0, 2.0)),
            log_x: false,
        }],
        cols: 1,
        panel_size: (760, 460),
    };
    save_both(&fig, &o.out, "temperature")?;
    write_jsonl(&o.path("temperature.jsonl"), &rows)
}
