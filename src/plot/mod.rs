//! Figures with plotters: multi-panel line charts written as PNG or SVG (by extension), with
//! the bundled DejaVu Sans font so no system font packages are needed.

mod heatmap;
pub use heatmap::{MAX_SIDE, heatmap};

use crate::error::{Error, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;
use std::path::Path;
use std::sync::Once;

static FONT: &[u8] = include_bytes!("fonts/DejaVuSans.ttf");
static INIT: Once = Once::new();

/// A figure's folder must exist: a missing one is refused with a sentence naming it, before
/// anything is drawn (the drawing backend's own error names neither).
pub fn check_folder(path: &Path) -> Result<()> {
    match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(folder) if !folder.is_dir() => Err(Error::Data {
            path: path.to_path_buf(),
            msg: format!("the folder '{}' does not exist: create it first", folder.display()),
        }),
        _ => Ok(()),
    }
}

/// Registers the bundled DejaVu Sans as plotters' `sans-serif` font (idempotent). Figures call it
/// themselves; call it before drawing with plotters directly (e.g. `evcxr_figure` in a notebook).
pub fn register_fonts() {
    INIT.call_once(|| {
        for style in [FontStyle::Normal, FontStyle::Bold, FontStyle::Italic, FontStyle::Oblique] {
            // The font is bundled and valid; a failure here would only lose text, not data.
            let _ = plotters::style::register_font("sans-serif", style, FONT);
        }
    });
}

/// The palette (colour-blind-safe Okabe–Ito).
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(120, 120, 120),
    RGBColor(240, 228, 66),
];

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Style {
    /// A solid line of the given width.
    Line(u32),
    /// A faint (translucent) thin line, for raw noisy estimates.
    Faint,
    /// A dashed line.
    Dashed,
    /// Points.
    Points,
}

/// One series of a panel.
#[derive(Clone, Debug)]
pub struct Series {
    /// Legend label (empty: no legend entry).
    pub label: String,
    /// `(x, y)` points.
    pub points: Vec<(f64, f64)>,
    /// Colour.
    pub color: RGBColor,
    /// Drawing style.
    pub style: Style,
}

impl Series {
    /// A series.
    pub fn new(label: &str, points: Vec<(f64, f64)>, color: RGBColor, style: Style) -> Self {
        Series { label: label.into(), points, color, style }
    }
}

/// One chart.
#[derive(Clone, Debug, Default)]
pub struct Panel {
    /// Title above the chart.
    pub title: String,
    /// x-axis label (with units).
    pub x_label: String,
    /// y-axis label (with units).
    pub y_label: String,
    /// The series.
    pub series: Vec<Series>,
    /// Fixed y range; otherwise from the data (finite values only).
    pub y_range: Option<(f64, f64)>,
    /// Logarithmic x axis.
    pub log_x: bool,
    /// Where the legend goes (lower right by default).
    pub legend: Legend,
}

/// Legend placement inside a panel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Legend {
    /// Lower right.
    #[default]
    LowerRight,
    /// Upper left.
    UpperLeft,
    /// Lower left.
    LowerLeft,
}

/// A grid of panels with an overall title.
#[derive(Clone, Debug)]
pub struct Figure {
    /// Overall title.
    pub title: String,
    /// Panels, row after row.
    pub panels: Vec<Panel>,
    /// Panels per row.
    pub cols: usize,
    /// Size of one panel in pixels.
    pub panel_size: (u32, u32),
}

impl Figure {
    /// Writes the figure to `path`: SVG for `.svg`, PNG otherwise. The file appears only when
    /// drawing succeeded (written to a temporary name, then renamed).
    pub fn save(&self, path: &Path) -> Result<()> {
        check_folder(path)?;
        register_fonts();
        let cols = self.cols.max(1);
        let rows = self.panels.len().div_ceil(cols).max(1);
        let size = (self.panel_size.0 * cols as u32, self.panel_size.1 * rows as u32 + 40);
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("png").to_ascii_lowercase();
        let tmp = path.with_extension(format!("tmp.{ext}"));
        let res = if ext == "svg" {
            self.draw(SVGBackend::new(&tmp, size).into_drawing_area(), rows, cols)
        } else {
            self.draw(BitMapBackend::new(&tmp, size).into_drawing_area(), rows, cols)
        };
        res.map_err(|msg| Error::Format { context: format!("drawing {}", path.display()), msg })?;
        std::fs::rename(&tmp, path).map_err(|source| Error::Io { path: path.to_path_buf(), source })
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: DrawingArea<DB, Shift>,
        rows: usize,
        cols: usize,
    ) -> std::result::Result<(), String> {
        let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
        root.fill(&WHITE).map_err(e)?;
        let root = root.titled(&self.title, ("sans-serif", 22).into_font()).map_err(e)?;
        let areas = root.split_evenly((rows, cols));
        for (panel, area) in self.panels.iter().zip(areas) {
            draw_panel(panel, &area).map_err(e)?;
        }
        root.present().map_err(e)
    }
}

/// Tick labels without spurious decimals: `20000`, `2.5`, `0.01`.
fn fmt_tick(v: f64) -> String {
    if v == v.round() && v.abs() < 1e7 {
        format!("{v:.0}")
    } else if v.abs() >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

fn bounds(panel: &Panel) -> ((f64, f64), (f64, f64)) {
    let pts = panel.series.iter().flat_map(|s| s.points.iter()).filter(|p| p.0.is_finite() && p.1.is_finite());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    for &(x, y) in pts {
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
    }
    if !x0.is_finite() {
        (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
    }
    if let Some(r) = panel.y_range {
        (y0, y1) = r;
    }
    let pad = ((y1 - y0) * 0.05).max(1e-6);
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    ((x0, x1), (y0 - pad, y1 + pad))
}

fn draw_panel<DB: DrawingBackend>(
    panel: &Panel,
    area: &DrawingArea<DB, Shift>,
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let ((x0, x1), (y0, y1)) = bounds(panel);
    let mut b = ChartBuilder::on(area);
    b.caption(&panel.title, ("sans-serif", 17).into_font()).margin(10).x_label_area_size(38).y_label_area_size(52);
    macro_rules! body {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .x_desc(panel.x_label.as_str())
                .y_desc(panel.y_label.as_str())
                .label_style(("sans-serif", 13))
                .axis_desc_style(("sans-serif", 14))
                .light_line_style(WHITE)
                .x_labels(6)
                .x_label_formatter(&|v| fmt_tick(*v))
                .y_label_formatter(&|v| fmt_tick(*v))
                .draw()?;
            let mut any_label = false;
            for s in &panel.series {
                let pts: Vec<(f64, f64)> =
                    s.points.iter().copied().filter(|p| p.0.is_finite() && p.1.is_finite()).collect();
                let color = s.color;
                let anno = match s.style {
                    Style::Line(w) => chart.draw_series(LineSeries::new(pts, color.stroke_width(w)))?,
                    Style::Faint => chart.draw_series(LineSeries::new(pts, color.mix(0.25).stroke_width(1)))?,
                    Style::Dashed => chart.draw_series(DashedLineSeries::new(pts, 6, 4, color.stroke_width(2)))?,
                    Style::Points => chart.draw_series(pts.into_iter().map(|p| Circle::new(p, 3, color.filled())))?,
                };
                if !s.label.is_empty() {
                    any_label = true;
                    anno.label(s.label.as_str())
                        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(3)));
                }
            }
            if any_label {
                chart
                    .configure_series_labels()
                    .position(match panel.legend {
                        Legend::LowerRight => SeriesLabelPosition::LowerRight,
                        Legend::UpperLeft => SeriesLabelPosition::UpperLeft,
                        Legend::LowerLeft => SeriesLabelPosition::LowerLeft,
                    })
                    .background_style(WHITE.mix(0.85))
                    .border_style(RGBColor(200, 200, 200))
                    .label_font(("sans-serif", 12))
                    .draw()?;
            }
        }};
    }
    if panel.log_x {
        body!(b.build_cartesian_2d((x0.max(1e-12)..x1).log_scale(), y0..y1)?);
    } else {
        body!(b.build_cartesian_2d(x0..x1, y0..y1)?);
    }
    Ok(())
}
