//! The binned (histogram) plug-in estimate, for low dimension.
//!
//! **Bin rule.** Each coordinate is cut into `B` equal-width bins over its sample range
//! `[min, max]`: value `v` falls in bin `⌊B (v − min)/(max − min)⌋`, the maximum in the last bin
//! (so the bins are those of `numpy.histogramdd(..., bins=B)` with the default range). A constant
//! coordinate has one bin. The default `B` (`binned` without `bins=`) is
//! `max(2, ⌊(N/5)^{1/(d_x+d_y)}⌋)`, chosen so that the `B^{d_x+d_y}` joint cells hold at least
//! five points on average.
//!
//! **Estimate.** With counts `c_xy` of the joint cells (cells of x and of y being products of the
//! coordinates' bins) and their margins `c_x`, `c_y`:
//! `Î = Σ (c_xy/N) ln(N c_xy / (c_x c_y))` over the occupied cells — the MI of the empirical
//! distribution on the cells. It is biased: upward by about `(K_xy − K_x − K_y + 1)/(2N)` for
//! `K` occupied cells (Miller 1955; reported as the diagnostic `miller_madow_bias`), and downward
//! by the discretisation (binning loses information), which dominates in more than a few
//! dimensions. Use it for one- or two-dimensional sides. With more joint cells `B^{d_x+d_y}`
//! than rows, and more bins than the default rule's, most rows sit alone in their cell and the
//! estimate reads the binning (up to `ln N`: `bins=60` on 300 rows read 1.7 nats for a truth of
//! 0.35); the estimate says so in a warning ([`WarningCode::SparseCells`]) with the rule's bins.

use super::interval::DEFAULT_SUBSAMPLES;
use super::{Core, run};
use crate::error::{Error, Result};
use crate::estimators::{Estimate, Estimator, EstimatorSpec, Kind, SettingsUsed, Warning, WarningCode, check_inputs};
use nalgebra::DMatrixView;
use std::collections::HashMap;

/// The default number of bins per coordinate for `n` rows and `d = d_x + d_y` coordinates:
/// `max(2, ⌊(n/5)^{1/d}⌋)`.
pub fn default_bins(n: usize, d: usize) -> usize {
    (((n as f64 / 5.0).powf(1.0 / d.max(1) as f64)).floor() as usize).max(2)
}

/// Bin indices of every row of `m` with `bins` equal-width bins per column, as dense cell ids.
fn cells(m: DMatrixView<'_, f64>, bins: usize) -> (Vec<u32>, usize) {
    let n = m.nrows();
    let mut keys: Vec<Vec<u32>> = vec![Vec::with_capacity(m.ncols()); n];
    for col in m.column_iter() {
        let (lo, hi) = col.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
        let width = hi - lo;
        for (key, &v) in keys.iter_mut().zip(col.iter()) {
            let b = if width > 0.0 { ((bins as f64) * ((v - lo) / width)).floor() as usize } else { 0 };
            key.push(b.min(bins - 1) as u32);
        }
    }
    let mut ids: HashMap<Vec<u32>, u32> = HashMap::new();
    let out = keys
        .into_iter()
        .map(|k| {
            let next = ids.len() as u32;
            *ids.entry(k).or_insert(next)
        })
        .collect();
    (out, ids.len())
}

/// The binned estimate with its Miller–Madow bias term.
#[derive(Clone, Debug, PartialEq)]
pub struct BinnedResult {
    /// `Î` in nats.
    pub mi: f64,
    /// `(K_xy − K_x − K_y + 1)/(2N)`.
    pub miller_madow_bias: f64,
    /// Bins per coordinate used.
    pub bins: usize,
}

/// The binned estimate (module docs) with `bins` per coordinate, or the default rule.
pub fn binned(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, bins: Option<usize>) -> Result<BinnedResult> {
    check_inputs(x, y, 2)?;
    let n = x.nrows();
    let bins = bins.unwrap_or_else(|| default_bins(n, x.ncols() + y.ncols()));
    if bins < 2 {
        return Err(Error::param("binned bins", bins, "must be at least 2"));
    }
    if bins > u32::MAX as usize {
        return Err(Error::param("binned bins", bins, "at most 2³² − 1"));
    }
    let (cx, kx) = cells(x, bins);
    let (cy, ky) = cells(y, bins);
    let mut count_x = vec![0usize; kx];
    let mut count_y = vec![0usize; ky];
    let mut joint: HashMap<u64, usize> = HashMap::new();
    for (&a, &b) in cx.iter().zip(&cy) {
        count_x[a as usize] += 1;
        count_y[b as usize] += 1;
        *joint.entry((u64::from(a) << 32) | u64::from(b)).or_insert(0) += 1;
    }
    let nf = n as f64;
    let mut cells_sorted: Vec<(u64, usize)> = joint.into_iter().collect();
    cells_sorted.sort_unstable();
    let mi = cells_sorted
        .iter()
        .map(|&(key, c)| {
            let (a, b) = ((key >> 32) as usize, (key & 0xffff_ffff) as usize);
            let c = c as f64;
            c / nf * (nf * c / (count_x[a] as f64 * count_y[b] as f64)).ln()
        })
        .sum::<f64>();
    let miller_madow_bias = (cells_sorted.len() as f64 - kx as f64 - ky as f64 + 1.0) / (2.0 * nf);
    Ok(BinnedResult { mi, miller_madow_bias, bins })
}

/// The binned estimate of `I(X; Y)` in nats with `bins` per coordinate (`None`: the default
/// rule of the module docs).
pub fn binned_mi(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, bins: Option<usize>) -> Result<f64> {
    binned(x, y, bins).map(|r| r.mi)
}

/// The binned estimator (`binned`, `binned:bins=B`); see the module docs.
#[derive(Clone, Debug, PartialEq)]
pub struct Binned {
    /// Bins per coordinate; `None` for the default rule.
    pub bins: Option<usize>,
    /// Subsamples for the interval (default [`DEFAULT_SUBSAMPLES`]; 0 for none).
    pub subsamples: usize,
}

impl Binned {
    /// With `bins` per coordinate (`≥ 2`) or the default rule.
    pub fn new(bins: Option<usize>) -> Result<Self> {
        if let Some(b) = bins
            && b < 2
        {
            return Err(Error::param("binned bins", b, "must be at least 2"));
        }
        Ok(Binned { bins, subsamples: DEFAULT_SUBSAMPLES })
    }
}

impl Estimator for Binned {
    fn name(&self) -> String {
        EstimatorSpec::Binned { bins: self.bins }.to_string()
    }

    fn kind(&self) -> Kind {
        Kind::Estimate
    }

    fn estimate(&self, x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, seed: u64) -> Result<Estimate> {
        check_inputs(x, y, 2)?;
        let d = x.ncols() + y.ncols();
        // The subsamples use the full sample's bin count, so that they estimate the same thing.
        let bins = self.bins.unwrap_or_else(|| default_bins(x.nrows(), d));
        let mut warnings = Vec::new();
        // More joint cells than rows: most occupied cells hold one row, and the plug-in reads
        // the binning (up to ln N), not the data.
        let cells = (bins as f64).powi(d as i32);
        if cells > x.nrows() as f64 && bins > default_bins(x.nrows(), d) {
            let n = x.nrows();
            let shown = if cells < 1e15 { format!("{cells:.0}") } else { format!("{cells:.1e}") };
            warnings.push(
                Warning::new(
                    WarningCode::SparseCells,
                    format!(
                        "binned with {bins} bins per coordinate: {bins}^{d} = {shown} joint cells for {n} rows, fewer rows than cells, so most rows sit alone in their cell and the estimate (at most ln {n} = {:.2}) measures the binning, not the data; use at most {} bins (the default rule, five rows per cell on average)",
                        (n as f64).ln(),
                        default_bins(n, d)
                    ),
                )
                .with("bins", bins as f64)
                .with("cells", cells)
                .with("rows", n as f64),
            );
        }
        if d > 4 {
            warnings.push(
                Warning::new(
                    WarningCode::HighDimension,
                    format!("binning in {d} dimensions: {bins}^{d} cells, expect a large bias"),
                )
                .with("dimensions", d as f64),
            );
        }
        let settings = SettingsUsed::Binned {
            bins,
            rule: if self.bins.is_some() { "given" } else { "max(2, floor((N/5)^(1/(dx+dy))))" },
            binning: "equal width over the sample range, per coordinate",
            subsamples: self.subsamples,
        };
        let core = |a: DMatrixView<'_, f64>, b: DMatrixView<'_, f64>| -> Result<Core> {
            let r = binned(a, b, Some(bins))?;
            Ok(Core {
                value: r.mi,
                values: vec![("bins".into(), r.bins as f64), ("miller_madow_bias".into(), r.miller_madow_bias)],
                warnings: Vec::new(),
            })
        };
        let label = format!("Binned ({bins} bins)");
        let mut est = run(self.name(), label, settings, x, y, self.subsamples, 2, seed, &core)?;
        est.diagnostics.warnings.splice(0..0, warnings);
        Ok(est)
    }
}
