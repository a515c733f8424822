//! A labelled heat map of a square matrix (e.g. `mibound matrix`: MI between all columns), with
//! a sequential white → blue scale from 0 to the largest finite entry, the value in each cell and
//! a colour bar. Non-finite entries (the diagonal of an MI matrix) are drawn grey.

use super::register_fonts;
use crate::error::{Error, Result};
use nalgebra::DMatrix;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// White at 0, dark blue at 1.
fn sequential(t: f64) -> RGBColor {
    let t = t.clamp(0.0, 1.0);
    let mix = |end: f64| (255.0 + (end - 255.0) * t).round() as u8;
    RGBColor(mix(8.0), mix(69.0), mix(148.0))
}

/// The most pixels a side of a heat map takes, whatever the number of columns.
pub const MAX_SIDE: i32 = 4000;

/// The smallest cell (pixels) drawn with its row's and column's labels and its value.
const LABELLED_CELL: i32 = 14;

/// Draws `m` (`p × p`) with row and column `labels` and `title` to `path` (PNG or SVG by
/// extension), written atomically.
pub fn heatmap(labels: &[String], m: &DMatrix<f64>, title: &str, path: &Path) -> Result<()> {
    if m.nrows() != labels.len() || m.ncols() != labels.len() {
        return Err(Error::Shape {
            what: "heat map".into(),
            expected: format!("{0} × {0} for {0} labels", labels.len()),
            got: format!("{} × {}", m.nrows(), m.ncols()),
        });
    }
    super::check_folder(path)?;
    register_fonts();
    let p = labels.len() as i32;
    // Cells shrink so that the figure stays within MAX_SIDE pixels a side (1000 columns drew a
    // 22158 × 22098 PNG of 315 MB); below LABELLED_CELL pixels the labels and values, which
    // would overlap, are left out.
    let cell = (if p > 30 { 22 } else { 48 }).min(((MAX_SIDE - 400) / p.max(1)).max(1));
    let longest = if cell < LABELLED_CELL { 1 } else { labels.iter().map(|l| l.chars().count()).max().unwrap_or(1) };
    let left = 20 + 7 * longest.min(30) as i32;
    let top = 50;
    let (w, h) = ((left + cell * p + 110) as u32, (top + cell * p + left) as u32);
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("png").to_ascii_lowercase();
    let tmp = path.with_extension(format!("tmp.{ext}"));
    let res = if ext == "svg" {
        draw(labels, m, title, SVGBackend::new(&tmp, (w, h)).into_drawing_area(), (cell, left, top))
    } else {
        draw(labels, m, title, BitMapBackend::new(&tmp, (w, h)).into_drawing_area(), (cell, left, top))
    };
    res.map_err(|msg| Error::Format { context: format!("drawing {}", path.display()), msg })?;
    std::fs::rename(&tmp, path).map_err(|source| Error::Io { path: path.to_path_buf(), source })
}

fn draw<DB: DrawingBackend>(
    labels: &[String],
    m: &DMatrix<f64>,
    title: &str,
    root: DrawingArea<DB, Shift>,
    (cell, left, top): (i32, i32, i32),
) -> std::result::Result<(), String> {
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    root.fill(&WHITE).map_err(e)?;
    let max = m.iter().copied().filter(|v| v.is_finite()).fold(0.0f64, f64::max).max(1e-12);
    let font = ("sans-serif", 12).into_font();
    let small = ("sans-serif", if cell < 30 { 8 } else { 11 }).into_font();
    root.draw(&Text::new(title.to_string(), (10, 10), ("sans-serif", 18).into_font())).map_err(e)?;
    let p = labels.len();
    let labelled = cell >= LABELLED_CELL;
    for (i, label) in labels.iter().enumerate() {
        let y = top + cell * i as i32;
        for j in 0..p {
            let x = left + cell * j as i32;
            let v = m[(i, j)];
            let fill = if v.is_finite() { sequential(v / max) } else { RGBColor(200, 200, 200) };
            root.draw(&Rectangle::new([(x, y), (x + cell - 1, y + cell - 1)], fill.filled())).map_err(e)?;
            if v.is_finite() && labelled {
                let ink = if v / max > 0.6 { WHITE } else { BLACK };
                root.draw(&Text::new(format!("{v:.2}"), (x + 3, y + cell / 2 - 5), small.clone().color(&ink)))
                    .map_err(e)?;
            }
        }
        if !labelled {
            continue;
        }
        root.draw(&Text::new(label.clone(), (10, y + cell / 2 - 6), font.clone())).map_err(e)?;
        let vertical = font.clone().transform(FontTransform::Rotate90);
        root.draw(&Text::new(
            label.clone(),
            (left + cell * i as i32 + cell / 2 + 6, top + cell * p as i32 + 6),
            vertical,
        ))
        .map_err(e)?;
    }
    let bx = left + cell * p as i32 + 20;
    let bh = (cell * p as i32).max(100);
    for s in 0..50 {
        let (y0, y1) = (top + bh * s / 50, top + bh * (s + 1) / 50);
        root.draw(&Rectangle::new([(bx, y0), (bx + 18, y1)], sequential(1.0 - (s as f64 + 0.5) / 50.0).filled()))
            .map_err(e)?;
    }
    for (frac, v) in [(0.0, max), (1.0, 0.0)] {
        root.draw(&Text::new(format!("{v:.2}"), (bx + 24, top + (bh as f64 * frac) as i32 - 6), font.clone()))
            .map_err(e)?;
    }
    root.present().map_err(e)
}
