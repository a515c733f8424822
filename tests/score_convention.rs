//! Pins the crate's one score convention: S[(i, j)] = f(x_i, y_j), row = x, column = y,
//! diagonal = joint pairs.

use mibound::bounds::{Bound, InfoNce};
use mibound::data::{Sampler, SplitGaussian, rng};
use nalgebra::DMatrix;

#[test]
fn optimal_critic_rows_are_x_and_columns_are_y() {
    // dim_x = 1, dim_y = 2, so a transposed critic could not even have the right shape for
    // unequal batch sizes; check one entry by hand as well.
    let cov = DMatrix::from_row_slice(3, 3, &[1.0, 0.6, 0.3, 0.6, 1.0, 0.2, 0.3, 0.2, 1.0]);
    let task = SplitGaussian::new(cov, 1).unwrap();
    let (x, _) = task.sample(3, &mut rng(1));
    let (_, y) = task.sample(5, &mut rng(2));
    let s = task.optimal_critic(&x, &y).unwrap();
    assert_eq!(s.shape(), (3, 5), "rows follow x, columns follow y");
    // By hand: y | x ~ N(A x, C), A = Σyx/Σxx = [0.6, 0.3], C = Σyy − Σyx Σxy.
    let (i, j) = (2, 4);
    let mu = [0.6 * x[(i, 0)], 0.3 * x[(i, 0)]];
    let c = nalgebra::Matrix2::new(1.0 - 0.36, 0.2 - 0.18, 0.2 - 0.18, 1.0 - 0.09);
    let syy = nalgebra::Matrix2::new(1.0, 0.2, 0.2, 1.0);
    let yj = nalgebra::Vector2::new(y[(j, 0)], y[(j, 1)]);
    let r = yj - nalgebra::Vector2::new(mu[0], mu[1]);
    let log_n = |v: &nalgebra::Vector2<f64>, m: &nalgebra::Matrix2<f64>| {
        -0.5 * (v.transpose() * m.try_inverse().unwrap() * v)[0] - 0.5 * m.determinant().ln()
    };
    let want = log_n(&r, &c) - log_n(&yj, &syy);
    assert!((s[(i, j)] - want).abs() < 1e-12, "S[(2,4)] = {} vs {want}", s[(i, j)]);
}

#[test]
fn infonce_normalises_each_row_over_the_y_candidates() {
    // Row 0 strongly prefers its own y (diagonal), column 0 does not dominate its column:
    // the row-wise and column-wise InfoNCE differ, and the crate must use rows.
    let s = DMatrix::from_row_slice(3, 3, &[5.0, 0.0, 0.0, 4.0, 1.0, 0.0, 4.0, 0.0, 1.0]);
    let lse = |v: &[f64]| v.iter().map(|x| x.exp()).sum::<f64>().ln();
    let rows: f64 = (0..3).map(|i| s[(i, i)] - lse(&[s[(i, 0)], s[(i, 1)], s[(i, 2)]])).sum::<f64>() / 3.0;
    let cols: f64 = (0..3).map(|j| s[(j, j)] - lse(&[s[(0, j)], s[(1, j)], s[(2, j)]])).sum::<f64>() / 3.0;
    let got = InfoNce::<f64>::new().value(&s).unwrap();
    assert!((got - (3f64.ln() + rows)).abs() < 1e-12);
    assert!((got - (3f64.ln() + cols)).abs() > 0.1, "must not be the column-wise (transposed) form");
}
