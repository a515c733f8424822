//! The candidates that need no training: nearest-neighbour critics ([`KnnSum`]) and the
//! closed-form elliptical critics ([`Elliptical`]), built on a fold's reference rows and
//! compared on the same validation objective as the trained ones.

use super::candidates::{Candidate, CandidateKind};
use super::fold_data::FoldData;
use super::scoring::{Bounds, Scoring, mean_values, objective_bound};
use crate::blocks::Block;
use crate::bounds::BoundSpec;
use crate::critics::{Elliptical, KnnSum};
use crate::error::{Error, Result};
use crate::train::Dataset;
use std::sync::Arc;

/// The kinds of nearest-neighbour candidates, `(on the coordinates as given, summed over
/// blocks)`, in candidate order; the random walks of one kind share their graphs and batches.
const NEIGHBOUR_KINDS: [(bool, bool); 4] = [(false, false), (false, true), (true, false), (true, true)];

/// A critic that needs no training, built on a fold's reference rows.
pub(super) enum Untrained {
    Neighbours(KnnSum),
    Elliptical(Elliptical),
}

impl Scoring for Untrained {
    fn mean_values(&mut self, seen: &Dataset, bounds: &mut Bounds, batches: &[Vec<usize>]) -> Result<Vec<(f64, f64)>> {
        match self {
            Untrained::Neighbours(critic) => {
                let (x, y) = (seen.x.as_view(), seen.y.as_view());
                let scored = KnnSum::scores_batches(std::slice::from_ref(critic), x, y, batches);
                mean_values(bounds, scored.into_iter().next().expect("one critic's scores"))
            }
            Untrained::Elliptical(critic) => {
                let scores = |rows: &Vec<usize>| {
                    critic.scores(seen.x.select_rows(rows).as_view(), seen.y.select_rows(rows).as_view())
                };
                mean_values(bounds, batches.iter().map(scores))
            }
        }
    }
}

/// The untrained candidate of `candidates` with the highest validation objective (ties go to
/// the earlier), with that objective; none without such candidates. With `chosen_elsewhere`
/// (the choice was made on another fold: one candidate) it is built but not validated.
pub(super) fn best(
    fold: &FoldData,
    candidates: &[Candidate],
    chosen_elsewhere: bool,
    trainer: BoundSpec,
    seed: u64,
) -> Result<Option<(Candidate, Untrained, f64)>> {
    let mut built = build(fold, candidates, chosen_elsewhere)?;
    if chosen_elsewhere {
        return Ok(built.into_iter().next().map(|(c, u)| (c, u, f64::NEG_INFINITY)));
    }
    let validated = validate(fold, &mut built, trainer, seed)?;
    let mut best: Option<(Candidate, Untrained, f64)> = None;
    for ((c, u), v) in built.into_iter().zip(validated) {
        if best.as_ref().is_none_or(|b| v > b.2) {
            best = Some((c, u, v));
        }
    }
    Ok(best)
}

/// The critics of `candidates` as the fold builds them, in candidate order. A fold leaves out
/// the nearest-neighbour candidates its rows do not allow (walks on too few or too many rows),
/// those summed over blocks when its columns fall into none, those on the coordinates as given
/// when the map leaves them as given, and any that repeats an earlier one (the same `k`, steps,
/// blocks and coordinates) — except the one chosen on another fold, which it builds whatever
/// its own columns (without blocks, as one block of every column). Each kind's random walks
/// share their graphs.
fn build(fold: &FoldData, candidates: &[Candidate], chosen_elsewhere: bool) -> Result<Vec<(Candidate, Untrained)>> {
    let wants_blocks = candidates.iter().any(|c| matches!(c.kind, CandidateKind::Neighbours(n) if n.blocks()));
    let blocks = if wants_blocks { fold.blocks() } else { None };
    let (m, with) = (fold.rows.reference.len(), (blocks.is_some() || chosen_elsewhere, fold.has_given()));
    let sized = sized_neighbours(candidates, m, with);
    let mut out = Vec::with_capacity(candidates.len());
    for (given, blocked) in NEIGHBOUR_KINDS {
        let kind: Vec<_> = sized.iter().filter(|(c, ..)| neighbour_kind(c) == Some((given, blocked))).collect();
        let Some(&&(first, ..)) = kind.first() else { continue };
        let d = fold.seen_by(&first.kind);
        let (x, y) = (d.x.select_rows(&fold.rows.reference), d.y.select_rows(&fold.rows.reference));
        let blocks: Option<Arc<Vec<Block>>> = if blocked { blocks.clone() } else { None };
        for &&(c, k, _) in kind.iter().filter(|s| s.2 == 0) {
            out.push((c.clone(), Untrained::Neighbours(KnnSum::counted(&x, &y, blocks.clone(), k)?)));
        }
        let walks: Vec<_> = kind.iter().filter(|s| s.2 > 0).collect();
        if let Some(&&&(_, k, _)) = walks.first() {
            let steps: Vec<usize> = walks.iter().map(|s| s.2).collect();
            let sums = KnnSum::walks(&x, &y, blocks.clone(), k, &steps)?;
            out.extend(walks.iter().zip(sums).map(|(s, critic)| (s.0.clone(), Untrained::Neighbours(critic))));
        }
    }
    let elliptical: Vec<_> = candidates
        .iter()
        .filter_map(|c| match c.kind {
            CandidateKind::Elliptical(tails) => Some((c, tails)),
            _ => None,
        })
        .collect();
    if !elliptical.is_empty() {
        // One covariance for every model's tails.
        let (d, reference) = (fold.dataset(), &fold.rows.reference);
        let fit = Elliptical::fit(d.x.select_rows(reference).as_view(), d.y.select_rows(reference).as_view())?;
        for (c, tails) in elliptical {
            out.push((c.clone(), Untrained::Elliptical(fit.with_tails(tails)?)));
        }
    }
    if chosen_elsewhere && !candidates.is_empty() && out.len() != 1 {
        let why = "the critic chosen on the first fold cannot be built on this fold's rows";
        return Err(Error::param("folds", fold.index + 1, why));
    }
    Ok(out)
}

/// The nearest-neighbour candidates of `candidates` a fold with `m` reference rows builds, with
/// their `k` and walk steps ([`super::Neighbours::sized`]), in order: those its rows allow, summed
/// over blocks only with `blocks` and on the coordinates as given only with `given`, each
/// unless it repeats an earlier one.
fn sized_neighbours(
    candidates: &[Candidate],
    m: usize,
    (blocks, given): (bool, bool),
) -> Vec<(&Candidate, usize, usize)> {
    let mut sized: Vec<(&Candidate, usize, usize)> = Vec::new();
    for c in candidates {
        let CandidateKind::Neighbours(n) = c.kind else { continue };
        let Some((k, steps)) = n.sized(m) else { continue };
        let repeats = |&&(o, ok, os): &&(&Candidate, usize, usize)| {
            let CandidateKind::Neighbours(on) = o.kind else { return false };
            (ok, os, on.blocks(), on.given()) == (k, steps, n.blocks(), n.given())
        };
        if (!n.blocks() || blocks) && (!n.given() || given) && !sized.iter().any(|s| repeats(&s)) {
            sized.push((c, k, steps));
        }
    }
    sized
}

/// `(on the coordinates as given, summed over blocks)` of a nearest-neighbour candidate.
fn neighbour_kind(c: &Candidate) -> Option<(bool, bool)> {
    match c.kind {
        CandidateKind::Neighbours(n) => Some((n.given(), n.blocks())),
        _ => None,
    }
}

/// The validation objectives of `built`: the trainer's objective (symmetrised as for the
/// trained candidates) on each candidate's validation batches. The random walks of each kind
/// share the batches of the first of them, so that their walks are shared; the counting
/// critics are validated first, then the walks, kind by kind (on one bound), and the elliptical
/// critics last (each on its own).
fn validate(fold: &FoldData, built: &mut [(Candidate, Untrained)], trainer: BoundSpec, seed: u64) -> Result<Vec<f64>> {
    let mut bound = [objective_bound(fold.cfg, trainer)?];
    let mut out = vec![f64::NEG_INFINITY; built.len()];
    let walk = |u: &Untrained| match u {
        Untrained::Neighbours(k) if k.steps() > 0 => Some(k.clone()),
        _ => None,
    };
    for (j, (c, u)) in built.iter_mut().enumerate() {
        if matches!(u, Untrained::Neighbours(k) if k.steps() == 0) {
            out[j] = u.mean_values(fold.seen_by(&c.kind), &mut bound, &fold.validation_batches(c.id, seed))?[0].1;
        }
    }
    for kind in NEIGHBOUR_KINDS {
        let of_kind = |j: &usize| neighbour_kind(&built[*j].0) == Some(kind);
        let (walks, family): (Vec<usize>, Vec<KnnSum>) =
            (0..built.len()).filter(of_kind).filter_map(|j| walk(&built[j].1).map(|k| (j, k))).unzip();
        let Some(&first) = walks.first() else { continue };
        let c = &built[first].0;
        let (seen, batches) = (fold.seen_by(&c.kind), fold.validation_batches(c.id, seed));
        for (&j, scored) in
            walks.iter().zip(KnnSum::scores_batches(&family, seen.x.as_view(), seen.y.as_view(), &batches))
        {
            out[j] = mean_values(&mut bound, scored)?[0].1;
        }
    }
    for (j, (c, u)) in built.iter_mut().enumerate() {
        if matches!(u, Untrained::Elliptical(_)) {
            let mut own = [objective_bound(fold.cfg, trainer)?];
            out[j] = u.mean_values(fold.seen_by(&c.kind), &mut own, &fold.validation_batches(c.id, seed))?[0].1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::critics::{Activation, CriticSpec, Similarity};
    use crate::estimators::neural::{CandidateId, Candidates};

    #[test]
    fn a_fold_builds_the_neighbour_candidates_its_rows_and_columns_allow() {
        let critic = CriticSpec::Separable {
            hidden: vec![8],
            embed: 4,
            activation: Activation::Relu,
            similarity: Similarity::Dot,
        };
        let c = Candidates { knn: vec![1.0, 2.0], walks: vec![2, 8], squares: false, ..Candidates::default() };
        let list = c.list(&critic, 0.0, false);
        let built = |m: usize, with: (bool, bool)| -> Vec<(CandidateId, usize, usize)> {
            sized_neighbours(&list, m, with).into_iter().map(|(c, k, steps)| (c.id, k, steps)).collect()
        };
        let u = CandidateId::Untrained;
        // 3200 reference rows: k = 57 and 113 counted, the walks on 10 neighbours; the blocked
        // ones (ids 7..11, after the 3 trained) only with blocks, those as given (11..19) only
        // with the coordinates as given.
        let whole = vec![(u(3), 57, 0), (u(4), 113, 0), (u(5), 10, 2), (u(6), 10, 8)];
        assert_eq!(built(3200, (false, false)), whole);
        let blocked: Vec<_> = whole.iter().map(|&(id, k, s)| (u(number(id) + 4), k, s)).collect();
        assert_eq!(built(3200, (true, false)), [whole.clone(), blocked].concat());
        assert_eq!(built(3200, (true, true)).len(), 16);
        assert_eq!(built(3200, (true, true))[8].0, u(11));
        // Above MAX_WALK_ROWS no walk; with 4 rows k = 2 and 4, walks on 3 neighbours.
        assert_eq!(built(crate::estimators::neural::MAX_WALK_ROWS + 1, (false, false)).len(), 2);
        assert_eq!(built(4, (false, false)), vec![(u(3), 2, 0), (u(4), 4, 0), (u(5), 3, 2), (u(6), 3, 8)]);
        // One row: k = 1 once (the second factor repeats it), and no graph to walk on.
        assert_eq!(built(1, (false, false)), vec![(u(3), 1, 0)]);
    }

    fn number(id: CandidateId) -> u32 {
        let (CandidateId::Trained(n) | CandidateId::Untrained(n)) = id;
        n
    }
}
