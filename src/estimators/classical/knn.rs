//! Nearest-neighbour searches shared by KSG and Kozachenko–Leonenko.
//!
//! Points are stored row-major (`data[i * d + j]`). Up to 12 dimensions the
//! searches use `kiddo`'s immutable k-d tree (its `Chebyshev` metric for the max-norm, its
//! `SquaredEuclidean` metric for the Euclidean norm); above that a tree prunes almost nothing
//! and an exact brute-force scan is used. One-dimensional range counts use a sorted copy and
//! binary search. Queries run in parallel on rayon's pool; every result is a pure function of
//! the input, so it does not depend on the number of threads.
//!
//! All distances are computed as `|a − b|` (max-norm) or `Σ (a − b)²` (squared Euclidean) in
//! `f64`, in the same way by the tree, the sorted array and the brute-force scan, so the strict
//! and non-strict comparisons of KSG agree exactly between the three paths.

use kiddo::immutable::float::kdtree::ImmutableKdTree;
use kiddo::{Chebyshev, SquaredEuclidean};
use rayon::prelude::*;
use std::num::NonZero;

/// Bucket size of the k-d tree leaves.
const BUCKET: usize = 32;

type Tree<const K: usize> = ImmutableKdTree<f64, u32, K, BUCKET>;

/// The norm of a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Norm {
    /// `max_j |a_j − b_j|`.
    Max,
    /// `Σ_j (a_j − b_j)²` (squared Euclidean; take the square root for the distance).
    SquaredEuclidean,
}

/// The distance of two points (rows of `d` coordinates) in `norm`.
#[inline]
pub(crate) fn distance(a: &[f64], b: &[f64], norm: Norm) -> f64 {
    match norm {
        Norm::Max => a.iter().zip(b).map(|(&p, &q)| (p - q).abs()).fold(0.0, f64::max),
        Norm::SquaredEuclidean => a.iter().zip(b).map(|(&p, &q)| (p - q) * (p - q)).sum(),
    }
}

/// For each point `i` of `data` (`n × d`, row-major), the `k` nearest other points: calls
/// `f(i, dist_k, neighbours)` with the distance to the k-th of them (squared for the Euclidean
/// norm) and their indices (in increasing distance), and collects the results. Duplicates of
/// point `i` count as neighbours at distance 0. Needs `1 ≤ k < n`.
pub(crate) fn knn_map<R, F>(data: &[f64], d: usize, k: usize, norm: Norm, f: F) -> Vec<R>
where
    R: Send,
    F: Fn(usize, f64, &[u32]) -> R + Sync,
{
    // The search is not generic over the callers' closures: the k-d tree's code is compiled
    // once per dimension, not once per dimension and caller (96 copies before).
    macro_rules! tree {
        ($($k:literal)*) => {
            match d {
                $($k => knn_tree::<$k>(data, k, norm),)*
                _ => knn_brute(data, d, k, norm),
            }
        };
    }
    let found = tree!(1 2 3 4 5 6 7 8 9 10 11 12);
    found.kth.par_iter().enumerate().map(|(i, &r)| f(i, r, &found.items[i * k..(i + 1) * k])).collect()
}

/// The `k` nearest other points of each point: `kth[i]` the distance to the k-th of them,
/// `items[i * k..(i + 1) * k]` their indices in increasing distance.
struct Nearest {
    kth: Vec<f64>,
    items: Vec<u32>,
}

impl Nearest {
    /// Fills the result for each of `n` points in parallel: `search(i, best)` leaves the `k`
    /// nearest of point `i` in `best`, as `(distance, index)` in increasing distance.
    fn search<S>(n: usize, k: usize, search: S) -> Self
    where
        S: Fn(usize, &mut Vec<(f64, u32)>) + Sync,
    {
        let mut found = Nearest { kth: vec![0.0; n], items: vec![0; n * k] };
        found.kth.par_iter_mut().zip(found.items.par_chunks_mut(k)).enumerate().for_each_init(
            || Vec::with_capacity(k + 1),
            |best, (i, (kth, items))| {
                search(i, best);
                *kth = best[k - 1].0;
                for (slot, &(_, j)) in items.iter_mut().zip(best.iter()) {
                    *slot = j;
                }
            },
        );
        found
    }
}

fn as_points<const K: usize>(data: &[f64]) -> Vec<[f64; K]> {
    data.chunks_exact(K)
        .map(|c| {
            let mut p = [0.0; K];
            p.copy_from_slice(c);
            p
        })
        .collect()
}

fn knn_tree<const K: usize>(data: &[f64], k: usize, norm: Norm) -> Nearest {
    let points = as_points::<K>(data);
    let tree: Tree<K> = ImmutableKdTree::new_from_slice(&points);
    let qty = NonZero::new(k + 1).expect("k + 1 > 0");
    Nearest::search(points.len(), k, |i, best| {
        let p = &points[i];
        // Unsorted (a binary heap inside kiddo, cheaper than its sorted vector): sorted below.
        let found = match norm {
            Norm::Max => tree.nearest_n_within::<Chebyshev>(p, f64::INFINITY, qty, false),
            Norm::SquaredEuclidean => tree.nearest_n_within::<SquaredEuclidean>(p, f64::INFINITY, qty, false),
        };
        best.clear();
        best.extend(found.iter().filter(|nb| nb.item as usize != i).map(|nb| (nb.distance, nb.item)));
        best.sort_by(|a, b| a.0.total_cmp(&b.0));
        best.truncate(k);
    })
}

fn knn_brute(data: &[f64], d: usize, k: usize, norm: Norm) -> Nearest {
    Nearest::search(data.len() / d, k, |i, best| {
        best.clear();
        let p = &data[i * d..(i + 1) * d];
        for j in (0..data.len() / d).filter(|&j| j != i) {
            let dist = distance(p, &data[j * d..(j + 1) * d], norm);
            if best.len() < k || dist < best[k - 1].0 {
                let at = best.partition_point(|&(b, _)| b <= dist);
                best.insert(at, (dist, j as u32));
                best.truncate(k);
            }
        }
    })
}

/// For each point `i` of `data` (`n × d`, row-major), the number of other points `j ≠ i` with
/// max-norm distance `< radii[i]` (`strict`) or `≤ radii[i]`.
pub(crate) fn count_within(data: &[f64], d: usize, radii: &[f64], strict: bool) -> Vec<u32> {
    macro_rules! tree {
        ($($k:literal)*) => {
            match d {
                1 => count_sorted(data, radii, strict),
                $($k => count_tree::<$k>(data, radii, strict),)*
                _ => count_brute(data, d, radii, strict),
            }
        };
    }
    tree!(2 3 4 5 6 7 8 9 10 11 12)
}

/// Whether point `i` itself (at distance 0) is inside its own ball.
#[inline]
fn self_inside(r: f64, strict: bool) -> u32 {
    u32::from(!strict || r > 0.0)
}

fn count_sorted(data: &[f64], radii: &[f64], strict: bool) -> Vec<u32> {
    Sorted::new(data).count_within(data, radii, strict)
}

/// A one-dimensional sample sorted once, for many range counts (the marginal counts of a column
/// that is paired with many others: per-feature MI, the all-pairs matrix).
pub(crate) struct Sorted(Vec<f64>);

impl Sorted {
    /// Sorts a copy of `data`.
    pub(crate) fn new(data: &[f64]) -> Self {
        let mut sorted = data.to_vec();
        sorted.sort_by(f64::total_cmp);
        Sorted(sorted)
    }

    /// For each `points[i]` (itself one of the sorted values), the number of other values at
    /// distance `< radii[i]` (`strict`) or `≤ radii[i]`.
    pub(crate) fn count_within(&self, points: &[f64], radii: &[f64], strict: bool) -> Vec<u32> {
        points.par_iter().zip(radii.par_iter()).map(|(&q, &r)| self.count_one(q, r, strict)).collect()
    }

    /// The number of values equal to `q` (`q` itself included when it is one of them).
    pub(crate) fn count_equal(&self, q: f64) -> usize {
        self.0.partition_point(|&v| v <= q) - self.0.partition_point(|&v| v < q)
    }

    /// The count of [`Sorted::count_within`] for one point.
    #[inline]
    pub(crate) fn count_one(&self, q: f64, r: f64, strict: bool) -> u32 {
        let sorted = &self.0;
        // Left of q the distance fl(q − v) decreases with v, right of it fl(v − q) increases:
        // the points inside form one run, found by two binary searches on the exact predicate.
        let pos = sorted.partition_point(|&v| v < q);
        let (left, right) = sorted.split_at(pos);
        let count = if strict {
            (left.len() - left.partition_point(|&v| q - v >= r)) + right.partition_point(|&v| v - q < r)
        } else {
            (left.len() - left.partition_point(|&v| q - v > r)) + right.partition_point(|&v| v - q <= r)
        };
        count as u32 - self_inside(r, strict)
    }
}

fn count_tree<const K: usize>(data: &[f64], radii: &[f64], strict: bool) -> Vec<u32> {
    let points = as_points::<K>(data);
    let tree: Tree<K> = ImmutableKdTree::new_from_slice(&points);
    points
        .par_iter()
        .zip(radii.par_iter())
        .map(|(p, &r)| {
            let inside = tree.within_unsorted_exclusive::<Chebyshev>(p, r, !strict).len() as u32;
            inside - self_inside(r, strict)
        })
        .collect()
}

fn count_brute(data: &[f64], d: usize, radii: &[f64], strict: bool) -> Vec<u32> {
    let n = data.len() / d;
    (0..n)
        .into_par_iter()
        .map(|i| {
            let p = &data[i * d..(i + 1) * d];
            let r = radii[i];
            (0..n)
                .filter(|&j| j != i)
                .filter(|&j| {
                    let dist = distance(p, &data[j * d..(j + 1) * d], Norm::Max);
                    if strict { dist < r } else { dist <= r }
                })
                .count() as u32
        })
        .collect()
}
