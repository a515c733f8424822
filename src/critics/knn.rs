//! A nearest-neighbour critic: the density ratio read off neighbour counts in a reference set,
//! with nothing to train.
//!
//! Given reference pairs `(x_t, y_t)`, `t = 1..M` (a fold's training rows), let `A(x)` be the
//! `k` reference rows whose `x_t` are nearest to `x` and `B(y)` the `k` whose `y_t` are nearest
//! to `y` (Euclidean). The reference rows in both,
//!
//! ```text
//! c(x, y) = |A(x) ∩ B(y)|,
//! ```
//!
//! estimate `M · P(X ∈ ball(x), Y ∈ ball(y))`, while under independence their expectation is
//! `k²/M`. So `c / (k²/M)` estimates the density ratio `p(x, y)/(p(x) p(y))` averaged over the
//! two balls — the same neighbourhoods KSG counts in (Kraskov et al. 2004), here turned into a
//! critic:
//!
//! ```text
//! S(x, y) = log((c(x, y) + a·k²/M) / ((1 + a)·k²/M))
//! ```
//!
//! with a pseudo-count `a` (here 0.1) so that an empty intersection is finite.
//!
//! **Random walks** ([`Knn::walks`]). Large neighbourhoods average the ratio over more rows but
//! reach across the boundaries of clusters; small ones stay inside a cluster but give counts of
//! a few rows. A random walk on the graph of the reference rows' `k` nearest neighbours
//! (small `k`, the edges made symmetric) spreads a small neighbourhood over the cluster it lies
//! in without crossing far — the diffusion maps of Coifman & Lafon (2006), the label
//! propagation of Zhou et al. (2004). Write `a(x)` for the uniform distribution on `A(x)`, `P`
//! for the walk's transition matrix (`P_st = 1/deg(s)` for each edge `s–t`) and `aₜ(x) = a(x) Pᵗ`;
//! then `M ⟨a(x), b(y)⟩ = c(x, y)/(k²/M)` is the ratio above, and the walk's critic is
//!
//! ```text
//! S(x, y) = log((M ⟨aₜ(x), bₜ(y)⟩ + a) / (1 + a)),
//! ```
//!
//! which for `t = 0` is the counting critic. Any function is a
//! critic, so a bound evaluated with it on rows outside the reference set is a valid bound; the
//! neural estimate uses it as one more candidate beside the trained critics and keeps it only
//! when it validates higher. It shines where neighbours carry the dependence — clustered data
//! such as images of a few classes — and fades in many smooth dimensions, where neighbours are
//! far (the curse of dimensionality that also biases KSG).
//!
//! **Sums over blocks** ([`KnnSum`]). When the columns fall into blocks `(X_b, Y_b)` that are
//! independent of each other, `p(x, y)/(p(x) p(y)) = Π_b p(x_b, y_b)/(p(x_b) p(y_b))`, so the
//! log-ratio — the optimal critic — is the sum of the blocks' log-ratios, and
//! `I(X; Y) = Σ_b I(X_b; Y_b)`. A neighbourhood in all columns at once must be close in every
//! block together (two images side by side: of the same classes in both), which takes far more
//! rows than being close in one block; the sum `Σ_b S_b(x_b, y_b)` of one critic per block
//! needs only the latter. [`crate::blocks::dependent_blocks`] finds candidate blocks from the columns'
//! correlations; since any function is a critic, wrong blocks cost tightness, not validity.

use crate::blocks::Block;
use crate::error::{Error, Result};
use crate::gemm::{Backend, Op, gemm};
use nalgebra::{DMatrix, DMatrixView};
use std::sync::Arc;

/// Pseudo-count, as a fraction of the independent expectation `k²/M`.
const PSEUDO_COUNT: f64 = 0.1;
/// Query rows per block of the distance computation (bounds its memory to block × M).
const QUERY_BLOCK: usize = 512;
/// Distribution entries (reference rows × query rows) that [`KnnSum::scores_batches`] scores at
/// once: 2²¹, 8 MB per side and checkpoint, one batch of 256 rows over 8000 reference rows.
const BATCHED_ENTRIES: usize = 1 << 21;
/// Queries per block of a random walk: 64 distributions over M = 3200 reference rows take
/// 1.6 MB, which stay in cache through the walk's steps.
const WALK_BLOCK: usize = 64;

/// The nearest-neighbour critic of a reference set (see the module docs).
#[derive(Clone, Debug)]
pub struct Knn {
    x_ref: Arc<DMatrix<f64>>,
    y_ref: Arc<DMatrix<f64>>,
    k: usize,
    /// The random walk's graphs on x's and y's reference rows and its steps (none: counts).
    walk: Option<(Arc<(Graph, Graph)>, usize)>,
}

/// The symmetric graph of each reference row's `k` nearest other rows: `adjacent[s]`, sorted,
/// and `1/deg(s)`.
#[derive(Debug)]
struct Graph {
    adjacent: Vec<Vec<u32>>,
    inverse_degree: Vec<f32>,
}

impl Graph {
    fn new(reference: &DMatrix<f64>, k: usize) -> Self {
        let m = reference.nrows();
        let mut adjacent: Vec<Vec<u32>> = vec![Vec::new(); m];
        // k + 1 nearest, the row itself dropped (or, among identical rows, the last found).
        for (s, nb) in nearest(reference.as_view(), reference, (k + 1).min(m)).into_iter().enumerate() {
            let own = nb.iter().position(|&t| t as usize == s).unwrap_or(nb.len() - 1);
            for (i, &t) in nb.iter().enumerate() {
                if i != own {
                    adjacent[s].push(t);
                    adjacent[t as usize].push(s as u32);
                }
            }
        }
        for a in &mut adjacent {
            a.sort_unstable();
            a.dedup();
        }
        let inverse_degree = adjacent.iter().map(|a| 1.0 / a.len().max(1) as f32).collect();
        Graph { adjacent, inverse_degree }
    }

    /// One step of the walk for every query at once: `dist` holds one column per reference
    /// row and one row per query (a distribution over the reference rows in each row); the
    /// step is `a ← a P`, that is column `t` becomes `Σ_{s ~ t} column s / deg(s)`.
    fn step(&self, dist: &DMatrix<f32>, out: &mut DMatrix<f32>) {
        let n = dist.nrows();
        let src = dist.as_slice();
        for (t, col) in out.as_mut_slice().chunks_exact_mut(n.max(1)).enumerate() {
            col.fill(0.0);
            for &s in &self.adjacent[t] {
                let w = self.inverse_degree[s as usize];
                let from = &src[s as usize * n..(s as usize + 1) * n];
                for (o, &v) in col.iter_mut().zip(from) {
                    *o += w * v;
                }
            }
        }
    }

    /// The distributions after each of `checkpoints` steps (ascending) of walks started
    /// uniformly on each query's `k` nearest reference rows. Queries walk in blocks of
    /// [`WALK_BLOCK`], whose distributions stay in cache through every step.
    fn walked(
        &self,
        queries: DMatrixView<'_, f64>,
        reference: &DMatrix<f64>,
        k: usize,
        checkpoints: &[usize],
    ) -> Vec<DMatrix<f32>> {
        let (n, m) = (queries.nrows(), reference.nrows());
        let mut out = vec![DMatrix::<f32>::zeros(n, m); checkpoints.len()];
        let starts = nearest(queries, reference, k);
        for first in (0..n).step_by(WALK_BLOCK) {
            let rows = WALK_BLOCK.min(n - first);
            let mut dist = DMatrix::<f32>::zeros(rows, m);
            for (j, nb) in starts[first..first + rows].iter().enumerate() {
                for &t in nb {
                    dist[(j, t as usize)] = 1.0 / k as f32;
                }
            }
            let mut next = dist.clone();
            let mut done = 0;
            for (&t, o) in checkpoints.iter().zip(out.iter_mut()) {
                while done < t {
                    self.step(&dist, &mut next);
                    std::mem::swap(&mut dist, &mut next);
                    done += 1;
                }
                o.rows_mut(first, rows).copy_from(&dist);
            }
        }
        out
    }
}

impl Knn {
    /// The critic with reference rows `x_ref`, `y_ref` (`M` rows each) and `k` neighbours
    /// (`1 ≤ k ≤ M`).
    pub fn new(x_ref: DMatrix<f64>, y_ref: DMatrix<f64>, k: usize) -> Result<Self> {
        let m = x_ref.nrows();
        if y_ref.nrows() != m {
            return Err(Error::Shape {
                what: "reference rows of the kNN critic".into(),
                expected: format!("{m} rows of y"),
                got: format!("{}", y_ref.nrows()),
            });
        }
        if k == 0 || k > m {
            return Err(Error::param("kNN critic neighbours k", k, &format!("must lie in 1..={m}")));
        }
        Ok(Knn { x_ref: Arc::new(x_ref), y_ref: Arc::new(y_ref), k, walk: None })
    }

    /// Random-walk critics on the graphs of the reference rows' `k` nearest neighbours, one
    /// per entry of `steps` (each ≥ 1), sharing the graphs (see the module docs).
    pub fn walks(x_ref: DMatrix<f64>, y_ref: DMatrix<f64>, k: usize, steps: &[usize]) -> Result<Vec<Self>> {
        let base = Knn::new(x_ref, y_ref, k)?;
        if let Some(t) = steps.iter().find(|&&t| t == 0) {
            return Err(Error::param("random-walk steps", t, "must be at least 1"));
        }
        if steps.is_empty() {
            return Ok(Vec::new());
        }
        let graphs = Arc::new(rayon::join(|| Graph::new(&base.x_ref, k), || Graph::new(&base.y_ref, k)));
        Ok(steps.iter().map(|&t| Knn { walk: Some((graphs.clone(), t)), ..base.clone() }).collect())
    }

    /// The random walk's steps (0: the counting critic).
    pub fn steps(&self) -> usize {
        self.walk.as_ref().map_or(0, |w| w.1)
    }

    /// Neighbours `k`.
    pub fn k(&self) -> usize {
        self.k
    }

    /// The score matrices of several critics on the same rows, in order. Random walks made by
    /// one call of [`Knn::walks`] share their walks: each step is taken once.
    pub fn scores_each(critics: &[Knn], x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>) -> Vec<DMatrix<f64>> {
        on_all_rows(critics, x, y, Knn::scored)
    }

    /// `out[c][b]`: critic `c`'s scores of rows `at_x[b]` of `x` against rows `at_y[b]` of `y`,
    /// each row's neighbours and walks found once.
    fn scored(
        critics: &[Knn],
        x: DMatrixView<'_, f64>,
        y: DMatrixView<'_, f64>,
        at_x: &[Vec<usize>],
        at_y: &[Vec<usize>],
    ) -> Vec<Vec<DMatrix<f64>>> {
        let mut out: Vec<Option<Vec<DMatrix<f64>>>> = vec![None; critics.len()];
        for (i, c) in critics.iter().enumerate() {
            if out[i].is_some() {
                continue;
            }
            let Some((graphs, _)) = &c.walk else {
                let (a, b) = rayon::join(|| nearest(x, &c.x_ref, c.k), || nearest(y, &c.y_ref, c.k));
                out[i] = Some(at_x.iter().zip(at_y).map(|(px, py)| c.counted_scores(&a, &b, px, py)).collect());
                continue;
            };
            let family: Vec<usize> = (i..critics.len())
                .filter(|&j| critics[j].walk.as_ref().is_some_and(|w| Arc::ptr_eq(&w.0, graphs)))
                .collect();
            let mut checkpoints: Vec<usize> = family.iter().map(|&j| critics[j].steps()).collect();
            checkpoints.sort_unstable();
            checkpoints.dedup();
            let (a, b) = rayon::join(
                || graphs.0.walked(x, &c.x_ref, c.k, &checkpoints),
                || graphs.1.walked(y, &c.y_ref, c.k, &checkpoints),
            );
            let m = c.x_ref.nrows() as f64;
            let denominator = (1.0 + PSEUDO_COUNT).ln();
            for &j in &family {
                let t = checkpoints.binary_search(&critics[j].steps()).expect("a checkpoint per critic");
                let scored = at_x.iter().zip(at_y).map(|(px, py)| {
                    let (a, b) = (picked(&a[t], px), picked(&b[t], py));
                    let mut ratio = DMatrix::<f32>::zeros(px.len(), py.len());
                    gemm(Backend::Native, 1.0, a.as_view(), Op::N, b.as_view(), Op::T, 0.0, ratio.as_view_mut());
                    ratio.map(|r| (m * r as f64 + PSEUDO_COUNT).ln() - denominator)
                });
                out[j] = Some(scored.collect());
            }
        }
        out.into_iter().map(|s| s.expect("every critic scored")).collect()
    }

    /// The score matrix `S_ij = S(x_i, y_j)` of the rows of `x` against the rows of `y`.
    pub fn scores(&self, x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>) -> DMatrix<f64> {
        Knn::scores_each(std::slice::from_ref(self), x, y).remove(0)
    }

    /// The counting critic's scores of the rows at positions `px` of `a` (x's neighbours)
    /// against those at `py` of `b` (y's).
    fn counted_scores(&self, a: &[Vec<u32>], b: &[Vec<u32>], px: &[usize], py: &[usize]) -> DMatrix<f64> {
        let m = self.x_ref.nrows();
        // Which queries of y have reference row t among their neighbours.
        let mut owners: Vec<Vec<u32>> = vec![Vec::new(); m];
        for (j, &r) in py.iter().enumerate() {
            for &t in &b[r] {
                owners[t as usize].push(j as u32);
            }
        }
        let base = (self.k * self.k) as f64 / m as f64;
        let mut counts = DMatrix::<f64>::zeros(px.len(), py.len());
        for (i, &r) in px.iter().enumerate() {
            for &t in &a[r] {
                for &j in &owners[t as usize] {
                    counts[(i, j as usize)] += 1.0;
                }
            }
        }
        let denominator = ((1.0 + PSEUDO_COUNT) * base).ln();
        counts.map(|c| (c + PSEUDO_COUNT * base).ln() - denominator)
    }
}

/// Critics' scores of the rows at positions `at_x[b]` of `x` against those at `at_y[b]` of `y`:
/// `out[c][b]`.
type Scored<C> =
    fn(&[C], DMatrixView<'_, f64>, DMatrixView<'_, f64>, &[Vec<usize>], &[Vec<usize>]) -> Vec<Vec<DMatrix<f64>>>;

/// Each critic's scores of every row of `x` against every row of `y`.
fn on_all_rows<C>(
    critics: &[C],
    x: DMatrixView<'_, f64>,
    y: DMatrixView<'_, f64>,
    scored: Scored<C>,
) -> Vec<DMatrix<f64>> {
    let (all_x, all_y): (Vec<usize>, Vec<usize>) = ((0..x.nrows()).collect(), (0..y.nrows()).collect());
    let out = scored(critics, x, y, std::slice::from_ref(&all_x), std::slice::from_ref(&all_y));
    out.into_iter().map(|mut s| s.remove(0)).collect()
}

/// Each critic's scores on each of `batches` (paired rows of `x` and `y`), `out[c][b]`. The
/// batches are taken in groups whose distinct rows are scored together, each row once; a group
/// grows while its distinct rows stay within [`BATCHED_ENTRIES`]` / M` (`M` the reference rows),
/// so that its walks' distributions take no more memory than one batch of 256 rows did at the
/// largest `M` that walks (`MAX_WALK_ROWS` = 8000 in the neural estimate).
fn on_batches<C>(
    critics: &[C],
    (x, y): (DMatrixView<'_, f64>, DMatrixView<'_, f64>),
    batches: &[Vec<usize>],
    reference_rows: usize,
    scored: Scored<C>,
) -> Vec<Vec<DMatrix<f64>>> {
    let cap = BATCHED_ENTRIES / reference_rows.max(1);
    let distinct = |group: &[Vec<usize>]| {
        let mut rows: Vec<usize> = group.iter().flatten().copied().collect();
        rows.sort_unstable();
        rows.dedup();
        rows
    };
    let mut out: Vec<Vec<DMatrix<f64>>> = (0..critics.len()).map(|_| Vec::with_capacity(batches.len())).collect();
    let mut start = 0;
    while start < batches.len() {
        let mut end = start + 1;
        while end < batches.len() && distinct(&batches[start..=end]).len() <= cap {
            end += 1;
        }
        let rows = distinct(&batches[start..end]);
        let at: Vec<Vec<usize>> = batches[start..end]
            .iter()
            .map(|b| b.iter().map(|r| rows.binary_search(r).expect("a row of the batches")).collect())
            .collect();
        let (xu, yu) = (x.select_rows(&rows), y.select_rows(&rows));
        for (o, s) in out.iter_mut().zip(scored(critics, xu.as_view(), yu.as_view(), &at, &at)) {
            o.extend(s);
        }
        start = end;
    }
    out
}

/// The rows `positions` of `m`, borrowed when they are all its rows in order.
fn picked<'a>(m: &'a DMatrix<f32>, positions: &[usize]) -> std::borrow::Cow<'a, DMatrix<f32>> {
    if positions.len() == m.nrows() && positions.iter().enumerate().all(|(i, &p)| i == p) {
        std::borrow::Cow::Borrowed(m)
    } else {
        std::borrow::Cow::Owned(m.select_rows(positions))
    }
}

/// A sum of nearest-neighbour critics, one per block of columns: `S(x, y) = Σ_b S_b(x_b, y_b)`
/// with `S_b` the [`Knn`] critic of block `b`'s columns (the same `k` and steps in each). With
/// one block of every column ([`KnnSum::whole`]) it is that one critic. Any function is a
/// critic, so the sum is one too; where the blocks are independent pairs it adds their
/// evidence, which a critic of all columns at once can only do with neighbours that agree in
/// every block at the same time.
#[derive(Clone, Debug)]
pub struct KnnSum {
    /// The blocks (none: every column, one part).
    blocks: Option<Arc<Vec<Block>>>,
    parts: Vec<Knn>,
}

impl KnnSum {
    /// The one critic of every column.
    pub fn whole(critic: Knn) -> Self {
        KnnSum { blocks: None, parts: vec![critic] }
    }

    /// The counting critics of `k` neighbours on each block of the reference rows (none: one of
    /// every column).
    pub fn counted(
        x_ref: &DMatrix<f64>,
        y_ref: &DMatrix<f64>,
        blocks: Option<Arc<Vec<Block>>>,
        k: usize,
    ) -> Result<Self> {
        let parts = per_block(x_ref, y_ref, blocks.as_deref(), |x, y| Knn::new(x, y, k))?;
        Ok(KnnSum { blocks, parts })
    }

    /// The random walks of [`Knn::walks`] on each block of the reference rows (none: one of
    /// every column), one sum per entry of `steps`; the sums share each block's graphs.
    pub fn walks(
        x_ref: &DMatrix<f64>,
        y_ref: &DMatrix<f64>,
        blocks: Option<Arc<Vec<Block>>>,
        k: usize,
        steps: &[usize],
    ) -> Result<Vec<Self>> {
        let walks = per_block(x_ref, y_ref, blocks.as_deref(), |x, y| Knn::walks(x, y, k, steps))?;
        Ok((0..steps.len())
            .map(|i| KnnSum { blocks: blocks.clone(), parts: walks.iter().map(|w| w[i].clone()).collect() })
            .collect())
    }

    /// The blocks (none: one critic of every column).
    pub fn blocks(&self) -> Option<&[Block]> {
        self.blocks.as_deref().map(|b| b.as_slice())
    }

    /// The random walk's steps (0: counts).
    pub fn steps(&self) -> usize {
        self.parts[0].steps()
    }

    /// The score matrices of several sums on the same rows, in order; sums on the same blocks
    /// share their walks as [`Knn::scores_each`] does.
    pub fn scores_each(critics: &[KnnSum], x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>) -> Vec<DMatrix<f64>> {
        on_all_rows(critics, x, y, KnnSum::scored)
    }

    /// The score matrices of several sums on batches of the same rows: `out[c][b]` is sum
    /// `c`'s on rows `batches[b]` of `x` and `y` (paired rows). What a critic needs of a query
    /// row — its neighbours, its walks — is found once per row however many batches hold it
    /// (random validation batches of a few hundred rows hold each several times; the batches are
    /// taken in groups that bound the walks' memory to 2²¹ entries a side and step count), and sums on the same
    /// blocks share their walks as [`Knn::scores_each`] does. A row's scores do not depend
    /// on the other rows scored with it: the numbers are those of [`KnnSum::scores_each`] on each
    /// batch alone, to the bit.
    pub fn scores_batches(
        critics: &[KnnSum],
        x: DMatrixView<'_, f64>,
        y: DMatrixView<'_, f64>,
        batches: &[Vec<usize>],
    ) -> Vec<Vec<DMatrix<f64>>> {
        on_batches(critics, (x, y), batches, critics.first().map_or(0, |c| c.parts[0].x_ref.nrows()), KnnSum::scored)
    }

    /// `out[c][b]` as [`Knn::scored`], summed over each sum's blocks.
    fn scored(
        critics: &[KnnSum],
        x: DMatrixView<'_, f64>,
        y: DMatrixView<'_, f64>,
        at_x: &[Vec<usize>],
        at_y: &[Vec<usize>],
    ) -> Vec<Vec<DMatrix<f64>>> {
        let mut out: Vec<Option<Vec<DMatrix<f64>>>> = vec![None; critics.len()];
        for i in 0..critics.len() {
            if out[i].is_some() {
                continue;
            }
            let same = |c: &KnnSum| match (&c.blocks, &critics[i].blocks) {
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            };
            let family: Vec<usize> = (i..critics.len()).filter(|&j| out[j].is_none() && same(&critics[j])).collect();
            let mut sums: Vec<Option<Vec<DMatrix<f64>>>> = vec![None; family.len()];
            for b in 0..critics[i].parts.len() {
                let members: Vec<Knn> = family.iter().map(|&j| critics[j].parts[b].clone()).collect();
                let scored = match &critics[i].blocks {
                    None => Knn::scored(&members, x, y, at_x, at_y),
                    Some(blocks) => {
                        let (bx, by) = (x.select_columns(&blocks[b].0), y.select_columns(&blocks[b].1));
                        Knn::scored(&members, bx.as_view(), by.as_view(), at_x, at_y)
                    }
                };
                for (sum, s) in sums.iter_mut().zip(scored) {
                    match sum {
                        Some(total) => total.iter_mut().zip(s).for_each(|(t, s)| *t += s),
                        None => *sum = Some(s),
                    }
                }
            }
            for (&j, s) in family.iter().zip(sums) {
                out[j] = s;
            }
        }
        out.into_iter().map(|s| s.expect("every critic scored")).collect()
    }

    /// The score matrix `S_ij = S(x_i, y_j)`.
    pub fn scores(&self, x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>) -> DMatrix<f64> {
        KnnSum::scores_each(std::slice::from_ref(self), x, y).remove(0)
    }
}

/// `make` on the reference rows' columns of each block (none: on every column, once).
fn per_block<T>(
    x_ref: &DMatrix<f64>,
    y_ref: &DMatrix<f64>,
    blocks: Option<&Vec<Block>>,
    make: impl Fn(DMatrix<f64>, DMatrix<f64>) -> Result<T>,
) -> Result<Vec<T>> {
    match blocks {
        None => Ok(vec![make(x_ref.clone(), y_ref.clone())?]),
        Some(b) => b.iter().map(|(bx, by)| make(x_ref.select_columns(bx), y_ref.select_columns(by))).collect(),
    }
}

/// The indices of the `k` rows of `reference` nearest (Euclidean) to each row of `queries`.
fn nearest(queries: DMatrixView<'_, f64>, reference: &DMatrix<f64>, k: usize) -> Vec<Vec<u32>> {
    let ref_sq: Vec<f64> = reference.row_iter().map(|r| r.norm_squared()).collect();
    let mut out = Vec::with_capacity(queries.nrows());
    let mut d: Vec<(f64, u32)> = Vec::with_capacity(reference.nrows());
    for start in (0..queries.nrows()).step_by(QUERY_BLOCK) {
        let rows = QUERY_BLOCK.min(queries.nrows() - start);
        let q = queries.rows(start, rows);
        // ‖q − r‖² = ‖q‖² + ‖r‖² − 2 q·r; ‖q‖² is the same for every r and does not change the
        // order, so it is left out.
        let dots = q * reference.transpose();
        for i in 0..rows {
            d.clear();
            d.extend(ref_sq.iter().enumerate().map(|(t, &r)| (r - 2.0 * dots[(i, t)], t as u32)));
            d.select_nth_unstable_by(k - 1, |a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            out.push(d[..k].iter().map(|p| p.1).collect());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_shared_neighbours_against_the_independent_expectation() {
        // Reference pairs on a line: x_t = t, y_t = t (t = 0..=7, M = 8). With k = 2, the query
        // x = 0.1 has neighbours {0, 1}; y = 0.9 has {1, 0}: both shared, c = 2, k²/M = 0.5, so
        // S = ln((2 + 0.05) / 0.55). y = 7.1 has {7, 6}: none shared, S = ln(0.05 / 0.55).
        let r = DMatrix::from_fn(8, 1, |t, _| t as f64);
        let critic = Knn::new(r.clone(), r, 2).unwrap();
        let x = DMatrix::from_row_slice(1, 1, &[0.1]);
        let y = DMatrix::from_row_slice(2, 1, &[0.9, 7.1]);
        let s = critic.scores(x.as_view(), y.as_view());
        assert!((s[(0, 0)] - (2.05f64 / 0.55).ln()).abs() < 1e-12);
        assert!((s[(0, 1)] - (0.05f64 / 0.55).ln()).abs() < 1e-12);
    }

    /// The walk's critic computed densely from its definition: the graph's adjacency matrix
    /// `W` (each row's `k` nearest other rows, made symmetric), `P = D⁻¹W`, start rows uniform
    /// on the `k` nearest reference rows, `S = ln((M ⟨a Pᵗ, b Pᵗ⟩ + 0.1)/1.1)`.
    fn dense_walk(
        xr: &DMatrix<f64>,
        yr: &DMatrix<f64>,
        k: usize,
        t: usize,
        x: &DMatrix<f64>,
        y: &DMatrix<f64>,
    ) -> DMatrix<f64> {
        let m = xr.nrows();
        let d2 = |a: &DMatrix<f64>, i: usize, b: &DMatrix<f64>, j: usize| (a.row(i) - b.row(j)).norm_squared();
        // The k nearest rows of `refs` to row i of `q` (ties to the lower index), skipping `skip`.
        let near = |q: &DMatrix<f64>, i: usize, refs: &DMatrix<f64>, skip: Option<usize>| {
            let mut order: Vec<usize> = (0..m).filter(|&s| Some(s) != skip).collect();
            order.sort_by(|&a, &b| d2(q, i, refs, a).total_cmp(&d2(q, i, refs, b)).then(a.cmp(&b)));
            order.truncate(k);
            order
        };
        let transition = |r: &DMatrix<f64>| {
            let mut w = DMatrix::<f64>::zeros(m, m);
            for s in 0..m {
                for t in near(r, s, r, Some(s)) {
                    w[(s, t)] = 1.0;
                    w[(t, s)] = 1.0;
                }
            }
            let deg: Vec<f64> = w.row_iter().map(|r| r.sum()).collect();
            DMatrix::from_fn(m, m, |s, t| w[(s, t)] / deg[s])
        };
        let walked = |q: &DMatrix<f64>, r: &DMatrix<f64>| {
            let mut a = DMatrix::<f64>::zeros(q.nrows(), m);
            for i in 0..q.nrows() {
                for s in near(q, i, r, None) {
                    a[(i, s)] = 1.0 / k as f64;
                }
            }
            let p = transition(r);
            (0..t).fold(a, |a, _| a * &p)
        };
        let r = walked(x, xr) * walked(y, yr).transpose();
        r.map(|v| ((m as f64 * v + 0.1) / 1.1).ln())
    }

    /// Reference rows in two clusters (around 0 and around 10), y a noisy copy of x.
    fn clustered(m: usize, offset: f64) -> (DMatrix<f64>, DMatrix<f64>) {
        let x = DMatrix::from_fn(m, 2, |i, j| 10.0 * (i % 2) as f64 + ((i * 7 + j * 3) as f64 * 0.37 + offset).sin());
        let y = DMatrix::from_fn(m, 1, |i, _| x[(i, 0)] + 0.5 * ((i * 5) as f64 * 0.91 + offset).cos());
        (x, y)
    }

    #[test]
    fn a_walk_is_the_dense_walk_of_its_definition() {
        // 70 queries span two walk blocks (64 + 6).
        let (xr, yr) = clustered(40, 0.0);
        let (xq, yq) = clustered(70, 0.5);
        let steps = [1, 3, 8];
        let critics = Knn::walks(xr.clone(), yr.clone(), 3, &steps).unwrap();
        let shared = Knn::scores_each(&critics, xq.as_view(), yq.as_view());
        for (c, (t, s)) in critics.iter().zip(steps.iter().zip(&shared)) {
            assert_eq!(c.steps(), *t);
            let expected = dense_walk(&xr, &yr, 3, *t, &xq, &yq);
            let alone = c.scores(xq.as_view(), yq.as_view());
            // The walks and their product are in f32: a step sums at most deg + 1 ≤ M = 40
            // terms, the product M, so over t ≤ 8 steps the ratio's relative error is at most
            // (8 · 40 + 40) · 2⁻²⁴ < 3e-5, and so is the log's absolute error.
            let off = (s - &expected).amax();
            assert!(off < 3e-5, "{t} steps: off the dense walk by {off}");
            assert_eq!(&alone, s, "a walk scored alone and beside the others must agree");
        }
        // The graph has no edge between the clusters (10 apart; a cluster spans at most 2√2),
        // so a walk never leaves its cluster: pairs across them share no mass, S = ln(0.1/1.1).
        // Within a cluster the walks' mass is shared, and the pairs score above 0 on average
        // (their mean ratio is about 2: the clusters are equally likely).
        let s = &shared[2];
        let (mut within, mut pairs) = (0.0, 0);
        for i in 0..70 {
            for j in 0..70 {
                if i % 2 == j % 2 {
                    within += s[(i, j)];
                    pairs += 1;
                } else {
                    assert!((s[(i, j)] - (0.1f64 / 1.1).ln()).abs() < 1e-12, "across clusters: {}", s[(i, j)]);
                }
            }
        }
        println!("mean score within the clusters: {}", within / pairs as f64);
        assert!(within / pairs as f64 > 0.2, "within the clusters: {}", within / pairs as f64);
    }

    /// Two independent pairs side by side: pair A is x0 = u, x2 = u + v with y1 = u + e,
    /// y3 = v + e'; pair B the same on x1, x3 and y0, y2 (u, v, e, e' independent normals, the
    /// noises of sd 0.5); x4 depends on nothing and y4 is nearly constant (1 in every 997th row).
    fn two_pairs(m: usize, seed: u64) -> (DMatrix<f64>, DMatrix<f64>) {
        use rand_distr::{Distribution, StandardNormal};
        let mut r = crate::rng::rng(seed);
        let mut draw = || -> f64 { StandardNormal.sample(&mut r) };
        let mut x = DMatrix::zeros(m, 5);
        let mut y = DMatrix::zeros(m, 5);
        for i in 0..m {
            for (xs, ys) in [([0, 2], [1, 3]), ([1, 3], [0, 2])] {
                let (u, v) = (draw(), draw());
                x[(i, xs[0])] = u;
                x[(i, xs[1])] = u + v;
                y[(i, ys[0])] = u + 0.5 * draw();
                y[(i, ys[1])] = v + 0.5 * draw();
            }
            x[(i, 4)] = draw();
            y[(i, 4)] = if i % 997 == 0 { 1.0 } else { 0.0 };
        }
        (x, y)
    }

    #[test]
    fn finds_independent_blocks_of_dependent_columns() {
        use crate::blocks::dependent_blocks;
        let (x, y) = two_pairs(2000, 7);
        let blocks = dependent_blocks(x.as_view(), y.as_view(), 6.0);
        assert_eq!(blocks, vec![(vec![0, 2], vec![1, 3]), (vec![1, 3], vec![0, 2])]);
        // x against itself: each pair's x columns, and x4 with its own copy.
        let own = dependent_blocks(x.as_view(), x.as_view(), 6.0);
        assert_eq!(own, vec![(vec![0, 2], vec![0, 2]), (vec![1, 3], vec![1, 3]), (vec![4], vec![4])]);
        // Columns of x against independent ones: no block has both sides.
        let (other, _) = two_pairs(2000, 8);
        assert!(dependent_blocks(x.as_view(), other.as_view(), 6.0).is_empty());
        // A link seen in one half of the rows only is no link: on the even rows x4 becomes
        // 10·y4 (plus a trace of noise), so over all rows it correlates with y4 far beyond 6
        // standard errors, but on the odd rows it is still independent noise.
        let mut half = x.clone();
        for i in (0..2000).step_by(2) {
            half[(i, 4)] = y[(i, 4)] * 10.0 + 0.001 * x[(i, 4)];
        }
        assert!(dependent_blocks(half.as_view(), y.as_view(), 6.0).iter().all(|b| !b.0.contains(&4)));
    }

    #[test]
    fn a_sum_over_blocks_adds_the_blocks_critics() {
        let (x, y) = two_pairs(300, 3);
        let (xq, yq) = two_pairs(70, 4);
        let blocks = Arc::new(vec![(vec![0, 2], vec![1, 3]), (vec![1, 3], vec![0, 2])]);
        let part = |b: usize, k: usize, t: &[usize]| {
            let (bx, by) = &blocks[b];
            let (xr, yr) = (x.select_columns(bx), y.select_columns(by));
            let (qx, qy) = (xq.select_columns(bx), yq.select_columns(by));
            if t.is_empty() {
                vec![Knn::new(xr, yr, k).unwrap().scores(qx.as_view(), qy.as_view())]
            } else {
                let walks = Knn::walks(xr, yr, k, t).unwrap();
                Knn::scores_each(&walks, qx.as_view(), qy.as_view())
            }
        };
        let counted = KnnSum::counted(&x, &y, Some(blocks.clone()), 17).unwrap();
        assert_eq!(counted.scores(xq.as_view(), yq.as_view()), &part(0, 17, &[])[0] + &part(1, 17, &[])[0]);
        let walks = KnnSum::walks(&x, &y, Some(blocks.clone()), 5, &[1, 4]).unwrap();
        let (a, b) = (part(0, 5, &[1, 4]), part(1, 5, &[1, 4]));
        let mut family = vec![counted.clone()];
        family.extend(walks.iter().cloned());
        let shared = KnnSum::scores_each(&family, xq.as_view(), yq.as_view());
        for (i, w) in walks.iter().enumerate() {
            assert_eq!(w.steps(), [1, 4][i]);
            assert_eq!(shared[i + 1], &a[i] + &b[i], "walk {i} summed over the blocks");
            assert_eq!(w.scores(xq.as_view(), yq.as_view()), shared[i + 1]);
        }
        // One block of every column is the critic itself, to the bit.
        let whole = Knn::new(x.clone(), y.clone(), 17).unwrap();
        assert_eq!(
            KnnSum::whole(whole.clone()).scores(xq.as_view(), yq.as_view()),
            whole.scores(xq.as_view(), yq.as_view())
        );
        let no_blocks = KnnSum::counted(&x, &y, None, 17).unwrap();
        assert_eq!(no_blocks.scores(xq.as_view(), yq.as_view()), whole.scores(xq.as_view(), yq.as_view()));
        assert!(no_blocks.blocks().is_none() && KnnSum::whole(whole).blocks().is_none());
        assert_eq!(counted.blocks(), Some(&blocks[..]));
    }

    #[test]
    fn batches_score_as_each_batch_alone_to_the_bit() {
        // Batches that share rows, one of 3 rows (below nalgebra's size for matrixmultiply, so
        // its distances take another path) and one of 70 (two walk blocks); 7 columns, so the
        // larger ones go through matrixmultiply.
        let wide = |m: usize, offset: f64| {
            let (x, y) = clustered(m, offset);
            let x7 = DMatrix::from_fn(m, 7, |i, j| x[(i, j % 2)] + 0.1 * ((i * 3 + j) as f64 * 0.77 + offset).sin());
            (x7, y)
        };
        let (xr, yr) = wide(60, 0.0);
        let (xq, yq) = wide(90, 0.5);
        let batches = vec![(0..70).collect::<Vec<usize>>(), vec![5, 3, 88], (20..90).rev().step_by(2).collect()];
        let mut critics = vec![KnnSum::whole(Knn::new(xr.clone(), yr.clone(), 4).unwrap())];
        critics.extend(Knn::walks(xr.clone(), yr.clone(), 3, &[1, 5]).unwrap().into_iter().map(KnnSum::whole));
        let blocks = Arc::new(vec![(vec![0, 2, 4, 6], vec![0]), (vec![1, 3], vec![0])]);
        critics.extend(KnnSum::walks(&xr, &yr, Some(blocks.clone()), 3, &[2]).unwrap());
        critics.push(KnnSum::counted(&xr, &yr, Some(blocks), 5).unwrap());
        let batched = KnnSum::scores_batches(&critics, xq.as_view(), yq.as_view(), &batches);
        // In groups of at most 75 distinct rows, as over many reference rows: the first two
        // batches (71 distinct rows; with the third's they would be 81), then the third.
        let (q, grouped) = ((xq.as_view(), yq.as_view()), BATCHED_ENTRIES / 75);
        let in_groups = on_batches(&critics, q, &batches, grouped, KnnSum::scored);
        for (b, rows) in batches.iter().enumerate() {
            let (x, y) = (xq.select_rows(rows), yq.select_rows(rows));
            let alone = KnnSum::scores_each(&critics, x.as_view(), y.as_view());
            for (c, s) in alone.iter().enumerate() {
                assert_eq!((s.nrows(), s.ncols()), (rows.len(), rows.len()));
                assert_eq!(&batched[c][b], s, "critic {c}, batch {b}");
                assert_eq!(&in_groups[c][b], s, "critic {c}, batch {b}, in groups");
            }
        }
    }

    #[test]
    fn refuses_a_walk_of_no_steps() {
        let r = DMatrix::from_fn(6, 1, |t, _| t as f64);
        assert!(Knn::walks(r.clone(), r.clone(), 2, &[0]).is_err());
        assert!(Knn::walks(r.clone(), r, 2, &[1, 0]).is_err());
    }

    #[test]
    fn refuses_impossible_neighbour_counts() {
        let r = DMatrix::zeros(4, 1);
        assert!(Knn::new(r.clone(), r.clone(), 0).is_err());
        assert!(Knn::new(r.clone(), r.clone(), 5).is_err());
        assert!(Knn::new(r, DMatrix::zeros(3, 1), 2).is_err());
    }
}
