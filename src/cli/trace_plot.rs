//! The figure of an estimate's training trace (`estimate --plot`, `demo`).

use crate::estimators::Comparison;
use crate::plot::{Figure, PALETTE, Panel, Series, Style};

/// One panel per trained critic: fold 1's training values faint, every fold's validation
/// checks, and each reported bound's held-out estimate dashed.
pub fn trace_figure(est: &Comparison, title: &str) -> Figure {
    let mut labels: Vec<String> = Vec::new();
    for r in &est.trace {
        if !labels.contains(&r.bound) {
            labels.push(r.bound.clone());
        }
    }
    let folds = est.trace.iter().map(|r| r.fold + 1).max().unwrap_or(1);
    let panels = labels
        .iter()
        .map(|label| {
            let mut series = Vec::new();
            let rows: Vec<_> = est.trace.iter().filter(|r| &r.bound == label).collect();
            let first: Vec<(f64, f64)> =
                rows.iter().filter(|r| r.fold == 0).map(|r| (r.step as f64, r.train)).collect();
            series.push(Series::new("training batches (fold 1)", first, PALETTE[6], Style::Faint));
            for f in 0..folds {
                let v: Vec<(f64, f64)> = rows
                    .iter()
                    .filter(|r| r.fold == f && r.validation.is_finite())
                    .map(|r| (r.step as f64, r.validation))
                    .collect();
                let name = if f == 0 { "validation (each fold)" } else { "" };
                series.push(Series::new(name, v, PALETTE[0], Style::Line(2)));
            }
            let xmax = rows.iter().map(|r| r.step).max().unwrap_or(1) as f64;
            let mine: Vec<_> = est
                .estimates
                .iter()
                .filter(|e| e.settings.neural().is_some_and(|s| s.trained_with == *label))
                .collect();
            for (k, e) in mine.iter().enumerate() {
                let name =
                    format!("{} held-out {:.3} [{:.3}, {:.3}]", e.label, e.value, e.interval.low, e.interval.high);
                series.push(Series::new(
                    &name,
                    vec![(0.0, e.value), (xmax, e.value)],
                    PALETTE[1 + k % 5],
                    Style::Dashed,
                ));
            }
            // Keep the view on the estimates: validation values of exponential bounds collapse
            // to large negative numbers once the critic overfits.
            let centre: Vec<f64> = mine.iter().map(|e| e.value).filter(|v| v.is_finite()).collect();
            let top = rows.iter().map(|r| r.validation).filter(|v| v.is_finite()).fold(f64::NEG_INFINITY, f64::max);
            let lo = centre.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = centre.iter().copied().fold(top, f64::max);
            Panel {
                title: format!("critic trained with {label}"),
                x_label: "training step".into(),
                y_label: "bound value (nats)".into(),
                series,
                y_range: (lo.is_finite() && hi.is_finite()).then_some((lo - 1.5, hi + 0.5)),
                log_x: false,
                legend: Default::default(),
            }
        })
        .collect();
    Figure { title: title.into(), panels, cols: labels.len().clamp(1, 3), panel_size: (560, 400) }
}
