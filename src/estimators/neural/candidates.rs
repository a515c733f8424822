//! The candidate critics a fold chooses among, one type for every kind ([`Candidate`]): a
//! trained critic with its settings, a nearest-neighbour critic, or a closed-form elliptical
//! critic. The settings ([`Candidates`]) say which exist; [`Candidates::list`] makes the list,
//! in one place, each candidate with a stable [`CandidateId`] from which its seeds derive.

use crate::critics::{Activation, CriticSpec, Similarity, Tails};
use crate::rng::Stream;
use serde::{Deserialize, Serialize};

/// Neighbours per reference row in the graphs of the random-walk candidates
/// ([`Candidates::walks`]), and per query in their start distributions.
pub const WALK_NEIGHBOURS: usize = 10;
/// The most fit rows for which a fold compares random-walk candidates: their distributions over
/// the fit rows are dense (a test fold of `n/K` rows holds `n/K × M` of them per side).
pub const MAX_WALK_ROWS: usize = 8000;
/// The most fit rows a fold's nearest-neighbour candidates take as reference rows (a random
/// subset of more): each query's neighbours are searched among them all, so the search's
/// time is linear in them and its memory a block of 512 queries by them.
pub const MAX_KNN_REFERENCE: usize = 1 << 14;
pub use crate::blocks::BLOCK_LINK_Z;
/// The most blocks a blocked candidate sums: every block costs its own graphs and walks.
/// With more blocks found, there is no blocked candidate.
pub const MAX_BLOCKS: usize = 8;
/// The most columns (`dx + dy`) for which a fold looks for blocks: their correlations cost
/// `(dx + dy)²·M` (at 1024 columns and 3200 fit rows, 3.4·10⁹ multiply-adds).
pub const MAX_BLOCK_COLUMNS: usize = 1024;

/// A critic, with its own L2 weight decay, that each fold trains beside the configured one
/// ([`Candidates::alternatives`]); the fold keeps whichever validates highest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Alternative {
    /// The critic.
    pub critic: CriticSpec,
    /// Its L2 weight decay (the rest of the optimiser is [`super::NeuralConfig::adam`]).
    pub weight_decay: f64,
}

impl Alternative {
    /// The first default alternative: a separable critic with two hidden layers of 256 (ReLU)
    /// and 32-d embeddings, with weight decay 0.01 (docs/results.md, section 7, has the
    /// measurements behind it).
    pub fn regularised() -> Self {
        let critic = CriticSpec::Separable {
            hidden: vec![256, 256],
            embed: 32,
            activation: Activation::Relu,
            similarity: Similarity::Dot,
        };
        Alternative { critic, weight_decay: 0.01 }
    }

    /// The second default alternative: [`Alternative::regularised`] with softplus instead of
    /// ReLU units. A smooth unit represents the squared norms on which benchmark-mi's spiral
    /// depends with fewer units than a ReLU does: on `spiral-multinormal-sparse-25-25-2-2.0`
    /// (n = 5000, true MI 1.02), as the only alternative, it reads 0.80 over three seeds where
    /// the ReLU critics read 0.72–0.73, while on the 3 + 3 and 5 + 5 spirals the ReLU one is
    /// better (docs/results.md, section 7).
    pub fn smooth() -> Self {
        let mut a = Alternative::regularised();
        if let CriticSpec::Separable { activation, .. } = &mut a.critic {
            *activation = Activation::Softplus;
        }
        a
    }

    /// The alternatives of `--critic auto`: [`Alternative::regularised`] and
    /// [`Alternative::smooth`].
    pub fn defaults() -> Vec<Self> {
        vec![Alternative::regularised(), Alternative::smooth()]
    }
}

/// A nearest-neighbour candidate critic ([`crate::critics::Knn`]) of a fold, as the settings
/// name it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Neighbours {
    /// Counts in `k = factor·√M` neighbours ([`Candidates::knn`]).
    Counted {
        /// `k/√M`.
        factor: f64,
        /// Summed over the blocks of dependent columns ([`Candidates::blocks`]).
        blocks: bool,
        /// On the coordinates as given, not mapped ([`Candidates::given`]).
        given: bool,
    },
    /// A random walk on the [`WALK_NEIGHBOURS`]-nearest-neighbour graphs ([`Candidates::walks`]).
    Walk {
        /// Its steps.
        steps: usize,
        /// Summed over the blocks of dependent columns ([`Candidates::blocks`]).
        blocks: bool,
        /// On the coordinates as given, not mapped ([`Candidates::given`]).
        given: bool,
    },
}

impl Neighbours {
    /// Whether the critic is summed over blocks of dependent columns.
    pub fn blocks(&self) -> bool {
        match *self {
            Neighbours::Counted { blocks, .. } | Neighbours::Walk { blocks, .. } => blocks,
        }
    }

    /// Whether the critic sees the coordinates as given instead of the fold's mapped ones.
    pub fn given(&self) -> bool {
        match *self {
            Neighbours::Counted { given, .. } | Neighbours::Walk { given, .. } => given,
        }
    }

    /// Its neighbours `k` and walk steps (0: counts) among `m` reference rows: counted ones
    /// have `k = factor·√m` (at least 1, at most `m`); walks have [`WALK_NEIGHBOURS`] (at most
    /// `m − 1`) and need more than one and at most [`MAX_WALK_ROWS`] rows (`None` otherwise).
    pub(super) fn sized(&self, m: usize) -> Option<(usize, usize)> {
        match *self {
            Neighbours::Counted { factor, .. } => {
                Some((((factor * (m as f64).sqrt()).round() as usize).clamp(1, m.max(1)), 0))
            }
            Neighbours::Walk { steps, .. } if m > 1 && m <= MAX_WALK_ROWS => Some((WALK_NEIGHBOURS.min(m - 1), steps)),
            Neighbours::Walk { .. } => None,
        }
    }
}

impl std::fmt::Display for Neighbours {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Neighbours::Counted { factor, .. } => write!(f, "nearest neighbours (k = {factor}·√M)")?,
            Neighbours::Walk { steps, .. } => {
                write!(f, "a {steps}-step random walk on the {WALK_NEIGHBOURS}-nearest-neighbour graphs")?
            }
        }
        if self.blocks() {
            write!(f, ", summed over blocks of dependent columns")?;
        }
        if self.given() {
            write!(f, ", on the coordinates as given")?;
        }
        Ok(())
    }
}

/// Which candidates each fold compares beside the configured critic, and how it chooses among
/// them ([`super::NeuralConfig::candidates`]). Fields missing from a serialised form take the
/// defaults' values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Candidates {
    /// Further critics for the lower bounds (not the conditional model), each trained on every
    /// fold beside the configured critic. Empty: that critic alone.
    pub alternatives: Vec<Alternative>,
    /// The trained candidates of the lower bounds are trained a second time on each mapped
    /// coordinate and its square
    /// ([`crate::estimators::marginal::FittedTransform::with_squares`]); the conditional models
    /// and the untrained critics see the coordinates alone.
    pub squares: bool,
    /// Nearest-neighbour critics ([`crate::critics::Knn`]) compared beside the trained
    /// candidates of the lower bounds, one per factor `c`: `k = c·√M` neighbours among a fold's
    /// `M` fit rows. Empty: none.
    pub knn: Vec<f64>,
    /// Random-walk critics ([`crate::critics::Knn::walks`]), one per number of steps on the
    /// graphs of the fit rows' [`WALK_NEIGHBOURS`] nearest neighbours (only with at most
    /// [`MAX_WALK_ROWS`] fit rows). Empty: none.
    pub walks: Vec<usize>,
    /// The nearest-neighbour candidates again, each summed over the blocks of dependent
    /// columns of a fold's fit rows ([`crate::blocks::dependent_blocks`] at
    /// [`BLOCK_LINK_Z`]), when there are 2 to [`MAX_BLOCKS`] blocks or they leave columns out.
    pub blocks: bool,
    /// The nearest-neighbour candidates again on the coordinates as given (label columns
    /// one-hot), where the marginal map changes them: normal scores give every coordinate the
    /// same spread, which on images lets rarely inked border pixels weigh as much as the
    /// strokes in a distance (docs/results.md, section 27).
    pub given: bool,
    /// The closed-form elliptical critics ([`crate::critics::Elliptical`]: the log density
    /// ratio of a jointly Gaussian or Student-t model of the mapped coordinates, its covariance
    /// shrunk by Ledoit–Wolf, fitted once on a fold's fit rows), one per model's tails, after
    /// the nearest-neighbour ones. Empty: none.
    pub elliptical: Vec<Tails>,
    /// With several trained candidates, the steps each trains before the fold keeps the one
    /// with the best validation objective so far and trains only it on (successive halving in
    /// one round); `0`, or at least `max_steps`, trains every candidate to the end.
    pub pilot_steps: u64,
    /// Choose the critic once per estimate, on the first fold (its candidates trained on its
    /// fit rows and compared on its validation rows), and train only that one on the other
    /// folds; `false` chooses in every fold.
    pub choose_once: bool,
}

impl Default for Candidates {
    /// The candidates of `--critic auto` (docs/results.md): [`Alternative::defaults`] (section
    /// 7), each trained critic again on the squares (section 26), nearest-neighbour critics at
    /// k = √M, 2√M and 4√M (section 9), random walks of 1, 2, 4, 8 and 16 steps (section 12),
    /// all of those again summed over blocks (section 20) and again on the coordinates as
    /// given (section 27), and the elliptical critics of [`default_tails`]; chosen once per
    /// estimate, on the first fold, after a pilot of 500 steps (section 8).
    fn default() -> Self {
        Candidates {
            alternatives: Alternative::defaults(),
            squares: true,
            knn: vec![1.0, 2.0, 4.0],
            walks: vec![1, 2, 4, 8, 16],
            blocks: true,
            given: true,
            elliptical: default_tails(),
            pilot_steps: 500,
            choose_once: true,
        }
    }
}

/// The tails of the default elliptical candidates: Gaussian, and Student-t with 4 and 16
/// degrees of freedom, a grid a factor 4 apart (heavy tails, moderate ones); which is kept is
/// chosen by validation like every candidate (docs/results.md, "Above: the neural headline").
pub fn default_tails() -> Vec<Tails> {
    vec![Tails::Normal, Tails::Student { dof: 4.0 }, Tails::Student { dof: 16.0 }]
}

/// A candidate's stable id: its number among the trained candidates, or among those that need
/// no training. The untrained ones number on from the trained ones on the coordinates alone,
/// so that adding the candidates on the squares changes none of their seeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum CandidateId {
    /// A trained critic.
    Trained(u32),
    /// A critic that needs no training.
    Untrained(u32),
}

impl CandidateId {
    /// The seed of everything random about the candidate (its initial parameters, its batches)
    /// in a critic group with seed `seed`; the configured critic keeps the group's seed.
    pub fn seed(self, seed: u64) -> u64 {
        let (CandidateId::Trained(n) | CandidateId::Untrained(n)) = self;
        Stream::Candidate(u64::from(n)).seed(seed)
    }
}

/// What a candidate critic is.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum CandidateKind {
    /// A critic trained on the fold's fit rows.
    Trained {
        /// The critic.
        critic: CriticSpec,
        /// Its L2 weight decay (the rest of the optimiser is the configured one).
        weight_decay: f64,
        /// It sees the coordinates and their squares ([`Candidates::squares`]).
        squares: bool,
    },
    /// A nearest-neighbour critic built on the fold's reference rows.
    Neighbours(Neighbours),
    /// A closed-form elliptical critic fitted on the fold's reference rows.
    Elliptical(Tails),
}

/// One candidate critic of a fold: what it is, and its id.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Candidate {
    /// Its stable id, from which its seeds derive.
    pub id: CandidateId,
    /// The critic.
    pub kind: CandidateKind,
}

impl Candidate {
    /// Whether it is trained.
    pub fn is_trained(&self) -> bool {
        matches!(self.kind, CandidateKind::Trained { .. })
    }
}

impl Candidates {
    /// Only the configured critic: the settings of `--critic separable` (and every named critic).
    pub fn none() -> Self {
        Candidates {
            alternatives: Vec::new(),
            squares: false,
            knn: Vec::new(),
            walks: Vec::new(),
            blocks: false,
            given: false,
            elliptical: Vec::new(),
            ..Candidates::default()
        }
    }

    /// Every nearest-neighbour candidate, in candidate order: [`Candidates::knn`]'s, then
    /// [`Candidates::walks`]'s, then with [`Candidates::blocks`] both again summed over blocks,
    /// then with [`Candidates::given`] all of them on the coordinates as given.
    pub fn neighbours(&self) -> Vec<Neighbours> {
        let sides: &[bool] = if self.blocks { &[false, true] } else { &[false] };
        let inputs: &[bool] = if self.given { &[false, true] } else { &[false] };
        let (knn, walks) = (&self.knn, &self.walks);
        inputs
            .iter()
            .flat_map(|&given| sides.iter().map(move |&blocks| (given, blocks)))
            .flat_map(|(given, blocks)| {
                let counted = knn.iter().map(move |&factor| Neighbours::Counted { factor, blocks, given });
                counted.chain(walks.iter().map(move |&steps| Neighbours::Walk { steps, blocks, given }))
            })
            .collect()
    }

    /// Every candidate of a critic group, in the order ties are broken in (the earlier wins):
    /// the `configured` critic with `weight_decay`, then the alternatives, then (with
    /// [`Candidates::squares`]) all of them again on the squares; then the nearest-neighbour
    /// candidates and the elliptical critics. A conditional model (`log_density`) is the
    /// configured critic alone.
    pub fn list(&self, configured: &CriticSpec, weight_decay: f64, log_density: bool) -> Vec<Candidate> {
        let mut plain = vec![(configured, weight_decay)];
        if !log_density {
            plain.extend(self.alternatives.iter().map(|a| (&a.critic, a.weight_decay)));
        }
        let squares: &[bool] = if self.squares && !log_density { &[false, true] } else { &[false] };
        let trained = squares.iter().flat_map(|&squares| {
            plain.iter().map(move |&(critic, weight_decay)| CandidateKind::Trained {
                critic: critic.clone(),
                weight_decay,
                squares,
            })
        });
        let mut out: Vec<Candidate> =
            trained.zip(0..).map(|(kind, n)| Candidate { id: CandidateId::Trained(n), kind }).collect();
        if !log_density {
            let neighbours = self.neighbours().into_iter().map(CandidateKind::Neighbours);
            let untrained = neighbours.chain(self.elliptical.iter().map(|&t| CandidateKind::Elliptical(t)));
            let first = plain.len() as u32;
            out.extend(untrained.zip(first..).map(|(kind, n)| Candidate { id: CandidateId::Untrained(n), kind }));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn separable(width: usize) -> CriticSpec {
        CriticSpec::Separable {
            hidden: vec![width],
            embed: 8,
            activation: Activation::Relu,
            similarity: Similarity::Dot,
        }
    }

    #[test]
    fn the_list_numbers_trained_and_untrained_candidates_apart() {
        let c = Candidates { knn: vec![1.0, 2.0], walks: vec![2, 8], ..Candidates::default() };
        let list = c.list(&separable(16), 0.0, false);
        // 3 trained, again on the squares; 4 neighbour kinds of 4 critics each; 3 elliptical.
        assert_eq!(list.len(), 6 + 16 + 3);
        let ids: Vec<CandidateId> = list.iter().map(|c| c.id).collect();
        let trained: Vec<CandidateId> = (0..6).map(CandidateId::Trained).collect();
        let untrained: Vec<CandidateId> = (3..22).map(CandidateId::Untrained).collect();
        assert_eq!(ids, [trained, untrained].concat());
        assert_eq!(list[3].kind, CandidateKind::Trained { critic: separable(16), weight_decay: 0.0, squares: true });
        let n = |i: usize| match list[i].kind {
            CandidateKind::Neighbours(n) => n,
            ref other => panic!("{other:?}"),
        };
        assert_eq!(n(6), Neighbours::Counted { factor: 1.0, blocks: false, given: false });
        assert_eq!(n(6 + 5), Neighbours::Counted { factor: 2.0, blocks: true, given: false });
        assert_eq!(n(6 + 11), Neighbours::Walk { steps: 8, blocks: false, given: true });
        assert_eq!(list[22].kind, CandidateKind::Elliptical(Tails::Normal));
        assert_eq!(list[24].kind, CandidateKind::Elliptical(Tails::Student { dof: 16.0 }));
        // A conditional model is the configured critic alone; so is every candidate with none.
        assert_eq!(c.list(&separable(16), 0.0, true).len(), 1);
        assert_eq!(Candidates::none().list(&separable(16), 0.0, false).len(), 1);
        // The configured critic keeps the group's seed.
        assert_eq!(CandidateId::Trained(0).seed(7), 7);
    }

    #[test]
    fn neighbours_are_sized_by_the_reference_rows() {
        let counted = |factor| Neighbours::Counted { factor, blocks: false, given: false };
        let walk = Neighbours::Walk { steps: 2, blocks: false, given: false };
        // 3200 fit rows: k = 57 and 113 counted, the walks on 10 neighbours.
        assert_eq!((counted(1.0).sized(3200), counted(2.0).sized(3200)), (Some((57, 0)), Some((113, 0))));
        assert_eq!(walk.sized(3200), Some((10, 2)));
        // Above MAX_WALK_ROWS no walk; with 4 rows k = 2 and 4, walks on 3 neighbours.
        assert_eq!(walk.sized(MAX_WALK_ROWS + 1), None);
        assert_eq!(
            (counted(1.0).sized(4), counted(2.0).sized(4), walk.sized(4)),
            (Some((2, 0)), Some((4, 0)), Some((3, 2)))
        );
        // One row: k = 1, and no graph to walk on.
        assert_eq!((counted(2.0).sized(1), walk.sized(1)), (Some((1, 0)), None));
    }
}
