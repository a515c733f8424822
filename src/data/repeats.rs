//! Repeated rows: copies of a row (an export appended twice, an oversampled class, resampled
//! data) that an estimator for continuous data reads as dependence.
//!
//! Under a density, two rows are equal with probability 0, and two rows closer than a
//! thousandth of the usual distance between neighbours are nearly as rare. KSG counts a copy
//! as a neighbour at distance 0 in the joint space *and* in each margin; a neural critic that
//! saw a row in training scores its copy in the test fold far above the other pairs. Either way
//! copies read as information: independent 1 + 1 data with every row twice read 0.75 nats by
//! KSG, and 1.65 by the held-out InfoNCE bound with a 10⁻⁶ jitter on the copies.
//!
//! Rows repeat by nature too, where every column takes few values (ages in years, counts,
//! prices in cents). [`scan`] tells the two apart without a model of the data:
//!
//! - **Exact repeats.** Rows equal to an earlier row in every column. They are *copies* when
//!   some column has no tie among the distinct rows (that column alone tells rows apart, so
//!   only copying can make two rows equal), or when equal rows are far more frequent than rows
//!   one step apart: for a density that is smooth at the scale of the values' grid, a pair of
//!   rows in the same cell is about as likely as a pair in cells that differ by one level of
//!   one column, so with `A` such adjacent pairs over `d` columns (each pair counted once) and
//!   `R` equal pairs, `R ≈ A / (2d)`. Copies make `R` far larger: they are declared when
//!   `R > 4·A/(2d) + 3·√(A/(2d) + 1) + 2`. Columns with at most
//!   [`DISCRETE_MAX_LEVELS`] values (labels, flags) do not
//!   count as dimensions of that test, and data made only of such columns is left alone: its
//!   rows repeat by nature. So do the rows of an *atom* ([`ATOM_ROWS`] equal rows or more whose
//!   value in each column is shared by more rows than the set: values censored at a detection
//!   limit, the zeros of zero-inflated data): they take no part in the test and are kept.
//! - **Near repeats.** Among the distinct rows, pairs closer (max-norm, standardised columns)
//!   than [`NEAR_FRACTION`] of a typical distance between rows that are close (the median
//!   distance from a row to its 8th neighbour along a projection, rarely a copy even where
//!   every row has several), found among the 8 neighbours of each row in two random
//!   projections (seeded, so the same data give the same
//!   answer), and closer than [`NEAR_FRACTION`] of each row's own nearest neighbour beyond
//!   that threshold too (where rows lie on a set of lower dimension — a column censored at a
//!   detection limit, a column of labels — neighbours along it are far closer than the median
//!   says, and a pair there is no rarer than a pair on a line); they are copies when there are
//!   at least [`near_minimum`] of them.
//!
//! What to do with copies is the caller's choice ([`RepeatPolicy`]): by default one row of each
//! set of copies is kept.

use super::kinds::{DISCRETE_MAX_LEVELS, integer_levels};
use crate::rng::{derive_seed, rng};
use nalgebra::DMatrixView;
use rand_distr::{Distribution, StandardNormal};
use std::cmp::Ordering;
use std::collections::HashMap;

/// What the data rules do with rows judged copies ([`scan`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RepeatPolicy {
    /// Keep one row of each set of copies (the first).
    #[default]
    Drop,
    /// Keep every row as it is.
    Keep,
}

impl RepeatPolicy {
    /// The policy named `name`: `drop` or `keep`.
    pub fn parse(name: &str) -> Option<Self> {
        match name.trim().to_ascii_lowercase().as_str() {
            "drop" => Some(RepeatPolicy::Drop),
            "keep" => Some(RepeatPolicy::Keep),
            _ => None,
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            RepeatPolicy::Drop => "drop",
            RepeatPolicy::Keep => "keep",
        }
    }
}

/// Two distinct rows closer than this fraction of the typical distance between close rows are
/// near repeats ([`scan`]): a jitter of 10⁻⁶ on standardised values is far below it.
pub const NEAR_FRACTION: f64 = 1e-4;

/// The fewest near-repeated pairs among `n` rows that make them copies: 5, or one in a
/// thousand rows. Below, a few coincidences among many rows change no estimate.
pub fn near_minimum(n: usize) -> usize {
    5.max(n / 1000)
}

/// What [`scan`] found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Repeats {
    /// Rows equal to an earlier row in every column.
    pub exact: usize,
    /// Whether the exact repeats are copies (module docs) rather than rows that repeat by
    /// nature.
    pub exact_copies: bool,
    /// Distinct rows within [`NEAR_FRACTION`] of the neighbour distance of another row, judged
    /// copies (0 when too few to matter).
    pub near: usize,
    /// One copy and the earlier row it repeats (0-based), to name in a message.
    pub example: Option<(usize, usize)>,
    /// The rows to leave out to keep one of each set of copies, ascending.
    pub copies: Vec<usize>,
}

/// Finds the repeated rows of `x` and `y` side by side (module docs). Seeded by the data alone.
pub fn scan(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>) -> Repeats {
    // Each column as it is where it holds no −0 (equal to 0, but not to the comparisons below),
    // a copy with 0 for −0 otherwise: at 10⁶ rows of 32 + 32 columns, copying every column
    // was a quarter of the command line's peak memory.
    let negative_zero = |v: &f64| v.to_bits() == (-0.0f64).to_bits();
    let owned: Vec<Option<Vec<f64>>> = x
        .column_iter()
        .chain(y.column_iter())
        .map(|c| c.iter().any(negative_zero).then(|| c.iter().map(|&v| if v == 0.0 { 0.0 } else { v }).collect()))
        .collect();
    let columns: Vec<&[f64]> = owned
        .iter()
        .zip(x.column_iter().chain(y.column_iter()))
        .map(|(o, c)| match o {
            Some(v) => v.as_slice(),
            None => c.data.into_slice(),
        })
        .collect();
    let n = x.nrows();
    if n < 2 || columns.is_empty() {
        return Repeats::default();
    }
    let few: Vec<bool> =
        columns.iter().map(|c| integer_levels(c.iter().copied(), DISCRETE_MAX_LEVELS).is_some()).collect();
    if few.iter().all(|&f| f) {
        return Repeats::default();
    }
    let (first_of, _) = exact_repeats(&columns, n);
    let natural = atom_repeats(&columns, &first_of, &few);
    let repeat = |i: usize| first_of[i] != i && !natural[i];
    let exact = (0..n).filter(|&i| repeat(i)).count();
    let mut out = Repeats { exact, ..Repeats::default() };
    let mut copies = Vec::new();
    if exact > 0 {
        out.exact_copies = exact_are_copies(&columns, &first_of, &few, &natural);
        if out.exact_copies {
            copies.extend((0..n).filter(|&i| repeat(i)));
        }
        out.example = (0..n).find(|&i| repeat(i)).map(|i| (i, first_of[i]));
    }
    let distinct: Vec<usize> = (0..n).filter(|&i| first_of[i] == i).collect();
    let near = near_repeats(&columns, &distinct);
    if near.len() >= near_minimum(n) {
        out.near = near.len();
        if out.example.is_none() {
            out.example = near.first().map(|&(i, j)| (i.max(j), i.min(j)));
        }
        copies.extend(near.iter().map(|&(i, j)| i.max(j)));
    }
    copies.sort_unstable();
    copies.dedup();
    out.copies = copies;
    out
}

/// For each row, the first row equal to it (itself when none is earlier), and how many rows
/// repeat an earlier one. Rows are sorted by their values (no copy of the data).
fn exact_repeats(columns: &[&[f64]], n: usize) -> (Vec<usize>, usize) {
    let cmp = |a: usize, b: usize| -> Ordering {
        columns.iter().map(|c| c[a].total_cmp(&c[b])).find(|o| o.is_ne()).unwrap_or(Ordering::Equal)
    };
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| cmp(a, b).then(a.cmp(&b)));
    let mut first_of: Vec<usize> = (0..n).collect();
    let mut repeats = 0;
    let mut start = 0;
    for k in 1..=n {
        if k == n || cmp(order[start], order[k]).is_ne() {
            // order[start..k] are equal rows, ascending by index: the first is order[start].
            for &i in &order[start + 1..k] {
                first_of[i] = order[start];
                repeats += 1;
            }
            start = k;
        }
    }
    (first_of, repeats)
}

/// The fewest equal rows that can be an atom of the data's distribution (the module docs):
/// copies come a few times each (appended exports, oversampled classes; a bootstrap sample
/// repeats a row 10 times or more with probability 1.1·10⁻⁷, Poisson(1)).
pub const ATOM_ROWS: usize = 10;

/// The repeats (every row of a set but its first) that are an atom of the data's distribution,
/// not copies: a set of at least [`ATOM_ROWS`] equal rows whose value in every column that is
/// not a label is shared by more rows than the set — a value censored at a detection limit, a
/// zero of zero-inflated data, in each column — where the rows of a copied row share their
/// values with nothing else.
fn atom_repeats(columns: &[&[f64]], first_of: &[usize], few: &[bool]) -> Vec<bool> {
    let n = first_of.len();
    let mut size = vec![0usize; n];
    first_of.iter().for_each(|&f| size[f] += 1);
    let mut atom = vec![false; n];
    let heavy: Vec<usize> = (0..n).filter(|&f| size[f] >= ATOM_ROWS).collect();
    if heavy.is_empty() {
        return atom;
    }
    let counts: Vec<HashMap<u64, usize>> = columns
        .iter()
        .map(|c| {
            let mut m = HashMap::new();
            c.iter().for_each(|v| *m.entry(v.to_bits()).or_default() += 1);
            m
        })
        .collect();
    for f in heavy {
        atom[f] = (0..columns.len()).filter(|&j| !few[j]).all(|j| counts[j][&columns[j][f].to_bits()] > size[f]);
    }
    (0..n).map(|i| first_of[i] != i && atom[first_of[i]]).collect()
}

/// Whether the exact repeats are copies (module docs): a column with no tie among the distinct
/// rows, or far more equal pairs than pairs one level apart in one column. The `natural`
/// repeats ([`atom_repeats`]) take no part.
fn exact_are_copies(columns: &[&[f64]], first_of: &[usize], few: &[bool], natural: &[bool]) -> bool {
    let distinct: Vec<usize> = (0..first_of.len()).filter(|&i| first_of[i] == i).collect();
    // Each column's values as level numbers (0, 1, … in increasing order of the value).
    let levels: Vec<Vec<u32>> = columns.iter().map(|c| level_numbers(c)).collect();
    let count_levels =
        |j: usize| distinct.iter().map(|&i| levels[j][i]).collect::<std::collections::HashSet<_>>().len();
    if (0..columns.len()).any(|j| count_levels(j) == distinct.len()) {
        return true;
    }
    let mut cells: HashMap<Vec<u32>, usize> = HashMap::new();
    for i in (0..first_of.len()).filter(|&i| !natural[i]) {
        let cell: Vec<u32> = levels.iter().map(|l| l[i]).collect();
        *cells.entry(cell).or_default() += 1;
    }
    let equal: f64 = cells.values().map(|&c| (c * (c - 1) / 2) as f64).sum();
    let dims: Vec<usize> = (0..columns.len()).filter(|&j| !few[j]).collect();
    let mut adjacent = 0.0;
    for (cell, &c) in &cells {
        for &j in &dims {
            let mut next = cell.clone();
            next[j] += 1;
            adjacent += (c * cells.get(&next).copied().unwrap_or(0)) as f64;
        }
    }
    let expected = adjacent / (2 * dims.len()) as f64;
    equal > 4.0 * expected + 3.0 * (expected + 1.0).sqrt() + 2.0
}

/// The level number of each value of `c`: its rank among the distinct values.
fn level_numbers(c: &[f64]) -> Vec<u32> {
    let mut sorted: Vec<f64> = c.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.dedup();
    c.iter().map(|v| sorted.partition_point(|s| s.total_cmp(v).is_lt()) as u32).collect()
}

/// Pairs of `rows` closer than [`NEAR_FRACTION`] of the median neighbour distance (module
/// docs), each pair once, in the order found.
fn near_repeats(columns: &[&[f64]], rows: &[usize]) -> Vec<(usize, usize)> {
    const PROJECTIONS: usize = 2;
    const WINDOW: usize = 8;
    let m = rows.len();
    if m < 3 {
        return Vec::new();
    }
    let scale: Vec<f64> = columns
        .iter()
        .map(|c| {
            let mean = rows.iter().map(|&i| c[i]).sum::<f64>() / m as f64;
            let var = rows.iter().map(|&i| (c[i] - mean).powi(2)).sum::<f64>() / m as f64;
            if var > 0.0 { 1.0 / var.sqrt() } else { 0.0 }
        })
        .collect();
    let distance = |a: usize, b: usize| -> f64 {
        columns.iter().zip(&scale).map(|(c, s)| ((c[a] - c[b]) * s).abs()).fold(0.0, f64::max)
    };
    let mut g = rng(derive_seed(m as u64, "near repeats projections"));
    let orders: Vec<Vec<usize>> = (0..PROJECTIONS)
        .map(|_| {
            let direction: Vec<f64> = columns.iter().map(|_| StandardNormal.sample(&mut g)).collect();
            let projected: Vec<f64> = rows
                .iter()
                .map(|&i| columns.iter().zip(&scale).zip(&direction).map(|((c, s), u)| c[i] * s * u).sum())
                .collect();
            let mut order: Vec<usize> = (0..m).collect();
            order.sort_by(|&a, &b| projected[a].total_cmp(&projected[b]));
            order
        })
        .collect();
    // Each row with the next WINDOW rows of each order: (a, b, distance).
    let candidates = || {
        orders.iter().flat_map(|order| {
            order.iter().enumerate().flat_map(move |(p, &a)| {
                order.iter().skip(p + 1).take(WINDOW).map(move |&b| (a, b, distance(rows[a], rows[b])))
            })
        })
    };
    // The scale: each row's distance to its WINDOW-th neighbour along each projection, which
    // is rarely a copy even when every row has several.
    let mut far: Vec<f64> = orders
        .iter()
        .flat_map(|order| order.windows(WINDOW + 1).map(|w| distance(rows[w[0]], rows[w[WINDOW]])))
        .collect();
    if far.is_empty() {
        return Vec::new();
    }
    let mid = far.len() / 2;
    let median = *far.select_nth_unstable_by(mid, f64::total_cmp).1;
    let threshold = NEAR_FRACTION * median;
    // The local scale: each row's nearest candidate farther than the threshold (its nearest
    // neighbour that is not a copy). Where rows lie on a set of lower dimension (a censored
    // or a label column: a line in the plane), neighbours along it are far closer than the
    // median says, and a pair is a near repeat only if it is also within NEAR_FRACTION of it.
    let mut local = vec![f64::INFINITY; m];
    for (a, b, d) in candidates().filter(|p| p.2 > threshold) {
        local[a] = local[a].min(d);
        local[b] = local[b].min(d);
    }
    let mut close: Vec<(usize, usize)> = candidates()
        .filter(|&(a, b, d)| d <= threshold && d <= NEAR_FRACTION * local[a].max(local[b]))
        .map(|(a, b, _)| (rows[a].min(rows[b]), rows[a].max(rows[b])))
        .collect();
    close.sort_unstable();
    close.dedup();
    close
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::rng;
    use nalgebra::DMatrix;

    fn gaussian(n: usize, d: usize, seed: u64) -> DMatrix<f64> {
        let mut g = rng(seed);
        DMatrix::from_fn(n, d, |_, _| StandardNormal.sample(&mut g))
    }

    fn twice(m: &DMatrix<f64>) -> DMatrix<f64> {
        DMatrix::from_fn(2 * m.nrows(), m.ncols(), |i, j| m[(i % m.nrows(), j)])
    }

    #[test]
    fn continuous_rows_twice_are_copies() {
        let (x, y) = (gaussian(500, 1, 1), gaussian(500, 1, 2));
        let r = scan(twice(&x).as_view(), twice(&y).as_view());
        assert_eq!((r.exact, r.exact_copies, r.copies.len()), (500, true, 500));
        assert_eq!(r.copies, (500..1000).collect::<Vec<_>>());
        assert_eq!(r.example, Some((500, 0)));
        let none = scan(x.as_view(), y.as_view());
        assert_eq!(none, Repeats::default());
    }

    #[test]
    fn jittered_copies_are_near_repeats() {
        let (x, y) = (gaussian(1000, 5, 3), gaussian(1000, 5, 4));
        let mut g = rng(5);
        let mut jitter = |m: &DMatrix<f64>| {
            let mut t = twice(m);
            t.iter_mut().for_each(|v| {
                let e: f64 = StandardNormal.sample(&mut g);
                *v += 1e-6 * e
            });
            t
        };
        let (xj, yj) = (jitter(&x), jitter(&y));
        let r = scan(xj.as_view(), yj.as_view());
        assert_eq!(r.exact, 0);
        // Every copy is found (two projections, eight neighbours each).
        assert_eq!(r.near, 1000, "{r:?}");
        assert_eq!(r.copies, (1000..2000).collect::<Vec<_>>());
    }

    /// Values on a grid (whole numbers from rounding a correlated Gaussian): rows repeat by
    /// nature and are kept; the same data appended to itself are copies.
    #[test]
    fn quantised_rows_repeat_by_nature_but_appended_rows_are_copies() {
        let mut g = rng(7);
        let n = 442;
        let (mut x, mut y) = (DMatrix::zeros(n, 1), DMatrix::zeros(n, 1));
        for i in 0..n {
            let a: f64 = StandardNormal.sample(&mut g);
            let b: f64 = StandardNormal.sample(&mut g);
            x[(i, 0)] = (a * 12.0).round();
            y[(i, 0)] = ((0.3 * a + 0.95 * b) * 30.0).round();
        }
        let r = scan(x.as_view(), y.as_view());
        assert!(r.exact > 0, "rounded values repeat: {r:?}");
        assert!(!r.exact_copies && r.copies.is_empty(), "{r:?}");
        let r2 = scan(twice(&x).as_view(), twice(&y).as_view());
        assert!(r2.exact_copies && r2.copies.len() >= n, "{r2:?}");
    }

    /// Rows on lines (a column censored at a detection limit, a column of labels beside a
    /// continuous one) have neighbours along the line far closer than the plane's median: no
    /// near repeats at 2000 or 20 000 rows; the same data appended with a jitter of 10⁻⁹ still
    /// are copies.
    #[test]
    fn rows_on_lines_are_not_near_repeats() {
        for n in [2000, 20_000] {
            let (x, e) = (gaussian(n, 1, 11), gaussian(n, 1, 12));
            let censored = DMatrix::from_fn(n, 1, |i, _| (0.8 * x[(i, 0)] + 0.6 * e[(i, 0)]).max(0.0));
            let labels = DMatrix::from_fn(n, 1, |i, _| f64::from(e[(i, 0)] > 0.0));
            for y in [&censored, &labels] {
                let r = scan(x.as_view(), y.as_view());
                assert_eq!((r.near, r.copies.len()), (0, 0), "n = {n}: {r:?}");
            }
        }
        let (x, e) = (gaussian(1000, 1, 13), gaussian(1000, 1, 14));
        let censored = DMatrix::from_fn(1000, 1, |i, _| (0.8 * x[(i, 0)] + 0.6 * e[(i, 0)]).max(0.0));
        let mut g = rng(15);
        let mut xj = twice(&x);
        xj.iter_mut().for_each(|v| {
            let e: f64 = StandardNormal.sample(&mut g);
            *v += 1e-9 * e
        });
        let r = scan(xj.as_view(), twice(&censored).as_view());
        assert_eq!(r.copies.len(), 1000, "{r:?}");
    }

    /// Both columns censored at a detection limit: the rows at both limits repeat by nature
    /// (an atom of the distribution) and are kept; copies of the other rows are still found.
    #[test]
    fn atoms_repeat_by_nature() {
        let (x, y) = (gaussian(2000, 1, 21), gaussian(2000, 1, 22));
        let limit = |m: &DMatrix<f64>| m.map(|v| v.max(-0.5));
        let (cx, cy) = (limit(&x), limit(&y));
        let r = scan(cx.as_view(), cy.as_view());
        assert_eq!((r.exact, r.copies.len()), (0, 0), "{r:?}");
        let r2 = scan(twice(&cx).as_view(), twice(&cy).as_view());
        let at_limits = (0..2000).filter(|&i| cx[(i, 0)] == -0.5 && cy[(i, 0)] == -0.5).count();
        assert!(at_limits > 100, "{at_limits}");
        assert!(r2.exact_copies, "{r2:?}");
        assert_eq!(r2.copies.len(), 2000 - at_limits, "{r2:?}");
    }

    #[test]
    fn labels_alone_repeat_by_nature() {
        let x = DMatrix::from_fn(100, 1, |i, _| (i % 3) as f64);
        let y = DMatrix::from_fn(100, 1, |i, _| (i % 2) as f64);
        assert_eq!(scan(x.as_view(), y.as_view()), Repeats::default());
    }
}
