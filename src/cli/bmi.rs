//! `mibound bmi`: benchmark-mi's external-estimator protocol.

use super::EstimateOpts;
use super::estimate::config;
use crate::data::files::read_csv;
use crate::data::rules;
use crate::error::{Error, Result};
use std::path::Path;

/// `mibound bmi SAMPLE DIM_X DIM_Y`: prints the headline estimate and nothing else.
pub fn bmi(sample: &Path, dim_x: usize, dim_y: usize, opts: &EstimateOpts) -> Result<()> {
    let t = read_csv(sample)?;
    if t.columns.len() != dim_x + dim_y {
        return Err(Error::Data {
            path: sample.to_path_buf(),
            msg: format!("{} columns, but DIM_X + DIM_Y = {}", t.columns.len(), dim_x + dim_y),
        });
    }
    let cx: Vec<usize> = (0..dim_x).collect();
    let cy: Vec<usize> = (dim_x..dim_x + dim_y).collect();
    let ((vx, nx), (vy, ny)) = (t.select(sample, &cx)?, t.select(sample, &cy)?);
    let ix = rules::Input { values: vx.as_view(), columns: nx, lines: &t.lines, levels: Vec::new() };
    let iy = rules::Input { values: vy.as_view(), columns: ny, lines: &t.lines, levels: Vec::new() };
    rules::check(&ix, &iy, &rules::Rules::default())
        .map_err(|problem| Error::Input { origin: vec![sample.to_path_buf()], problem })?;
    let (specs, settings) = config(opts)?;
    let settings = settings.check()?;
    // Only the headline estimate is printed: run only that estimator (the first lower bound,
    // else the first estimator named).
    let head = specs
        .iter()
        .find(|s| s.build(&settings).is_ok_and(|e| e.kind() == crate::estimators::Kind::Lower))
        .unwrap_or(&specs[0]);
    let (x, y) = (vx, vy);
    let est = head.build(&settings)?.estimate(x.as_view(), y.as_view(), opts.seed)?;
    println!("{}", est.value);
    Ok(())
}
