//! The data of one fold: its coordinates mapped by marginal maps fitted on its training rows
//! (and, for the candidates that want them, with their squares or as given), its rows, and the
//! batches its candidates are validated on.

use super::candidates::{BLOCK_LINK_Z, CandidateId, CandidateKind, MAX_BLOCK_COLUMNS, MAX_BLOCKS};
use super::config::NeuralConfig;
use super::plan::{FoldRows, Plan};
use crate::blocks::{Block, dependent_blocks};
use crate::error::Result;
use crate::estimators::marginal::MarginalTransform;
use crate::rng::Stream;
use crate::train::{Data, Dataset, Progress, random_batches};
use nalgebra::DMatrixView;
use std::sync::Arc;

/// Random validation batches per check.
const VALIDATION_BATCHES: usize = 8;

/// One fold, ready to train: the settings, the plan, the fold's transformed data and rows.
pub(super) struct FoldData<'a> {
    pub cfg: &'a NeuralConfig,
    pub plan: &'a Plan,
    data: Data,
    /// The data with the squares of the coordinates ([`super::Candidates::squares`]).
    wide: Option<Data>,
    /// The coordinates as given, label columns one-hot, for the nearest-neighbour candidates
    /// that see them ([`super::Candidates::given`]); none where the map leaves them as given.
    given: Option<Data>,
    /// The fold's rows, numbered as the rows of its data.
    pub rows: FoldRows,
    /// The fold's index.
    pub index: usize,
    pub progress: Option<&'a dyn Progress>,
}

impl<'a> FoldData<'a> {
    /// Fold `index` of `plan`: its marginal maps fitted on its training rows, applied to all rows.
    pub fn new(
        cfg: &'a NeuralConfig,
        plan: &'a Plan,
        (x, y): (DMatrixView<'_, f64>, DMatrixView<'_, f64>),
        index: usize,
        progress: Option<&'a dyn Progress>,
    ) -> Result<Self> {
        // The fold keeps only the rows it uses (plan.rs bounds them), renumbered in order.
        let (rows, used) = renumbered(&plan.folds[index]);
        let training = rows.training();
        let (x, y) = (x.select_rows(&used), y.select_rows(&used));
        let mx = cfg.transform.fit_with_labels(&x, &training, "x", &cfg.labels.x)?;
        let my = cfg.transform.fit_with_labels(&y, &training, "y", &cfg.labels.y)?;
        // The runner's data set: it draws training batches from `train` (here the fit rows);
        // validation and test rows are passed explicitly.
        let dataset = |x, y| Data::Dataset(Dataset { x, y, train: rows.fit.clone(), test: rows.val.clone() });
        let (fx, fy) = (mx.apply(&x), my.apply(&y));
        let c = &cfg.candidates;
        let wide = c.squares.then(|| dataset(mx.with_squares(&fx), my.with_squares(&fy)));
        let given = if c.given && cfg.transform != MarginalTransform::None && !c.neighbours().is_empty() {
            let gx = MarginalTransform::None.fit_with_labels(&x, &training, "x", &cfg.labels.x)?.apply(&x);
            let gy = MarginalTransform::None.fit_with_labels(&y, &training, "y", &cfg.labels.y)?.apply(&y);
            Some(dataset(gx, gy))
        } else {
            None
        };
        let data = dataset(fx, fy);
        Ok(FoldData { cfg, plan, data, wide, given, rows, index, progress })
    }

    /// The mapped coordinates.
    pub fn dataset(&self) -> &Dataset {
        dataset_of(&self.data)
    }

    /// Whether the fold has the coordinates as given apart from the mapped ones.
    pub fn has_given(&self) -> bool {
        self.given.is_some()
    }

    /// The data a trained candidate sees: the coordinates, and with `squares` their squares.
    pub fn trained_data(&self, squares: bool) -> &Data {
        match &self.wide {
            Some(wide) if squares => wide,
            _ => &self.data,
        }
    }

    /// The rows a candidate of `kind` sees: the mapped coordinates, with their squares for a
    /// trained critic on the squares, or as given for a nearest-neighbour critic on those.
    pub fn seen_by(&self, kind: &CandidateKind) -> &Dataset {
        match kind {
            CandidateKind::Trained { squares, .. } => dataset_of(self.trained_data(*squares)),
            CandidateKind::Neighbours(n) => match &self.given {
                Some(g) if n.given() => dataset_of(g),
                _ => self.dataset(),
            },
            CandidateKind::Elliptical(_) => self.dataset(),
        }
    }

    /// The batches of validation rows candidate `id` is checked on in a critic group seeded
    /// with `seed`: [`VALIDATION_BATCHES`] random batches, or one of every validation row when
    /// a batch holds them all (as a test fold's evaluation does): more would be the same rows
    /// again in other orders, and every bound is a function of the set of rows.
    pub fn validation_batches(&self, id: CandidateId, seed: u64) -> Vec<Vec<usize>> {
        let seed = Stream::ValidationBatches.seed(id.seed(seed));
        random_batches(&self.rows.val, self.plan.batch, self.validation_count(), seed)
    }

    /// How many batches [`FoldData::validation_batches`] draws.
    fn validation_count(&self) -> usize {
        if self.plan.batch >= self.rows.val.len() { 1 } else { VALIDATION_BATCHES }
    }

    /// The blocks of dependent columns of the fold's reference rows ([`dependent_blocks`] at
    /// [`BLOCK_LINK_Z`]) when a critic summed over them differs from one of every column: two to
    /// [`MAX_BLOCKS`] blocks, or one that leaves columns out. None with more than
    /// [`MAX_BLOCK_COLUMNS`] columns (the correlations cost `(dx + dy)²·M`).
    pub fn blocks(&self) -> Option<Arc<Vec<Block>>> {
        let d = self.dataset();
        let (dx, dy) = (d.x.ncols(), d.y.ncols());
        if dx + dy > MAX_BLOCK_COLUMNS {
            return None;
        }
        let (x, y) = (d.x.select_rows(&self.rows.reference), d.y.select_rows(&self.rows.reference));
        let blocks = dependent_blocks(x.as_view(), y.as_view(), BLOCK_LINK_Z);
        let whole = blocks.len() == 1 && blocks[0].0.len() == dx && blocks[0].1.len() == dy;
        (!blocks.is_empty() && blocks.len() <= MAX_BLOCKS && !whole).then(|| Arc::new(blocks))
    }
}

/// The data set of a fold's data.
pub(super) fn dataset_of(data: &Data) -> &Dataset {
    let Data::Dataset(d) = data else { unreachable!("a fold's data is a data set") };
    d
}

/// `rows` renumbered in the order of the data's rows (which keeps every choice the same), with
/// the rows of the whole data it keeps, in order.
fn renumbered(rows: &FoldRows) -> (FoldRows, Vec<usize>) {
    let mut used: Vec<usize> = rows.fit.iter().chain(&rows.val).chain(&rows.test).copied().collect();
    used.sort_unstable();
    used.dedup();
    let at = |r: &Vec<usize>| r.iter().map(|i| used.binary_search(i).expect("a used row")).collect();
    let fold =
        FoldRows { fit: at(&rows.fit), val: at(&rows.val), test: at(&rows.test), reference: at(&rows.reference) };
    (fold, used)
}
