//! One entry point per call a user makes, below every surface: the command line
//! (`src/cli`) and the Python bindings (`python/src/lib.rs`) read their inputs and options
//! and hand them here, so the same data and options give the same refusal, notes and numbers
//! on both by construction.
//!
//! - [`EstimateRequest::prepare`] → [`Prepared`]: `I(X; Y)` (`mibound estimate`,
//!   `mibound.estimate`, `MutualInformation.fit`): the data rules
//!   ([`crate::data::rules::check`]), the declared labels checked against the estimators, the
//!   settings checked once, `auto` resolved once for these data
//!   ([`EstimatorSpec::resolve_for`]); then [`Prepared::steps`] (a progress bar's length),
//!   [`Prepared::compare`] (the comparison with progress and cancellation, and the
//!   self-check when asked) or [`Prepared::single`] (one estimator alone).
//! - [`GivenRequest::prepare`] → [`PreparedGiven`]: `I(X; Y | Z)` (`estimate --given`,
//!   `mibound.conditional_test`): the rules for x and y, for z, and for copies of rows of the
//!   three together.
//! - [`FeaturesRequest::features`] and [`FeaturesRequest::matrix`]: the per-feature MI
//!   (`mibound features`, `mutual_info_regression` / `mutual_info_classif`) and the matrix
//!   (`mibound matrix`, `mi_matrix`), after the same data rules (repeated rows included).
//!
//! What differs between surfaces is only how they name their options in sentences
//! ([`Rules::drop_option`], the label hint's words) and which files a refusal names
//! ([`Origin`]).

use super::classical::{
    CiTestConfig, ConditionalSpec, DEFAULT_CONDITIONAL, TieNoise, check_label_columns, feature_mi, mi_matrix,
    reads_labels,
};
use super::{
    CheckedSettings, Comparison, Estimate, EstimatorSpec, Settings, Warning, apply_entropy_ceiling, compare,
    compare_given, self_check_steps, training_steps,
};
use crate::data::VarKind;
use crate::data::kinds::{DISCRETE_MAX_LEVELS, KindNote, LabelColumns, detect_kinds};
use crate::data::rules::{self, Checked, Column, Input, InputError, Note, Rules, Side};
use crate::error::{Error, Result};
use crate::train::Progress;
use nalgebra::{DMatrix, DMatrixView};
use std::path::PathBuf;

/// The files the inputs were read from, by side, so that a refusal of the data rules names
/// those it concerns (the command line's); none for arrays (Python's).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Origin {
    /// x's file.
    pub x: Option<PathBuf>,
    /// y's file.
    pub y: Option<PathBuf>,
    /// z's file.
    pub z: Option<PathBuf>,
}

impl Origin {
    /// The files of `sides`, each once, in order.
    pub fn files(&self, sides: &[Side]) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = Vec::new();
        for s in sides {
            let file = match s {
                Side::X => &self.x,
                Side::Y => &self.y,
                Side::Z => &self.z,
            };
            if let Some(f) = file.as_ref().filter(|f| !out.contains(f)) {
                out.push(f.clone());
            }
        }
        out
    }

    /// A refusal of the data rules, naming the files of the inputs it concerns.
    pub fn refusal(&self, problem: InputError) -> Error {
        Error::Input { origin: self.files(&problem.sides()), problem }
    }

    /// A refusal of the data rules about the conditioning set, naming z's file.
    fn given_refusal(&self, problem: InputError) -> Error {
        Error::Input { origin: self.files(&[Side::Z]), problem }
    }
}

/// Two inputs after the data rules: views of the inputs when every row and column is used,
/// else the rows and columns used, copied.
struct Data<'a> {
    views: (DMatrixView<'a, f64>, DMatrixView<'a, f64>),
    owned: Option<(DMatrix<f64>, DMatrix<f64>)>,
}

impl<'a> Data<'a> {
    fn new(checked: &Checked, x: &Input<'a>, y: &Input<'a>) -> Self {
        let owned = (!checked.uses_all(x, y)).then(|| checked.select(x, y));
        Data { views: (x.values, y.values), owned }
    }

    fn xy(&self) -> (DMatrixView<'_, f64>, DMatrixView<'_, f64>) {
        match &self.owned {
            Some((x, y)) => (x.as_view(), y.as_view()),
            None => self.views,
        }
    }
}

/// An estimate of `I(X; Y)` as a user asks for it: the estimators, their settings, the
/// declared label columns, the data rules, the seed and whether to self-check.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EstimateRequest {
    /// The estimators (`auto` among them is resolved by [`EstimateRequest::prepare`]).
    pub specs: Vec<EstimatorSpec>,
    /// Their settings (the label columns are set from [`EstimateRequest::labels`]).
    pub settings: Settings,
    /// The declared label columns, as positions in the inputs as given (before the rules).
    pub labels: LabelColumns,
    /// The data rules; [`Rules::label_hint`] holds the surface's words for columns that look
    /// like labels, used only where no column is declared one and an estimator reads numbers.
    pub rules: Rules,
    /// The seed.
    pub seed: u64,
    /// The headline's self-consistency checks after the comparison ([`Comparison::with_self_check`]).
    pub selfcheck: bool,
    /// The files of the inputs, for refusals.
    pub origin: Origin,
}

/// An [`EstimateRequest`] on data that passed the rules, ready to run.
pub struct Prepared<'a> {
    data: Data<'a>,
    /// What the data rules found: the rows and columns used, their names, the notes.
    pub checked: Checked,
    /// The estimators with `auto` resolved for these data (once).
    pub specs: Vec<EstimatorSpec>,
    /// The estimators as asked.
    pub asked: Vec<EstimatorSpec>,
    /// The settings, checked, with the label columns among the columns used.
    pub settings: CheckedSettings,
    seed: u64,
    selfcheck: bool,
}

impl EstimateRequest {
    /// The data rules on `x` and `y`, the declared labels checked against the estimators, the
    /// settings checked and `auto` resolved (module docs).
    pub fn prepare<'a>(&self, x: &Input<'a>, y: &Input<'a>) -> Result<Prepared<'a>> {
        let numbers = self.specs.iter().any(|s| !reads_labels(s));
        let hint = self.rules.label_hint.clone().filter(|_| self.labels.is_empty() && numbers);
        let rules = Rules { label_hint: hint, ..self.rules.clone() };
        let checked = rules::check(x, y, &rules).map_err(|p| self.origin.refusal(p))?;
        let declared = self.labels.validate(x.values.ncols(), y.values.ncols())?;
        let at = |cols: &[usize], kept: &[usize]| -> Vec<usize> {
            cols.iter().filter_map(|j| kept.iter().position(|k| k == j)).collect()
        };
        let labels = LabelColumns { x: at(&declared.x, &checked.x), y: at(&declared.y, &checked.y) };
        check_label_columns(&self.specs, &labels, checked.x.len(), checked.y.len())?;
        let mut settings = self.settings.clone();
        settings.neural.labels = labels;
        // Checked once, here, for everything the call runs.
        let settings = settings.check()?;
        let data = Data::new(&checked, x, y);
        let (xv, yv) = data.xy();
        let specs = EstimatorSpec::resolve_for(&self.specs, xv, yv, &settings.neural.labels);
        Ok(Prepared {
            data,
            checked,
            specs,
            asked: self.specs.clone(),
            settings,
            seed: self.seed,
            selfcheck: self.selfcheck,
        })
    }

    /// The one estimator of a single-estimator call ([`Prepared::single`]): the request must
    /// name exactly one.
    pub fn single(&self) -> Result<EstimatorSpec> {
        only(&self.specs)
    }
}

/// The one estimator of `specs`; more or none is an error naming them.
fn only(specs: &[EstimatorSpec]) -> Result<EstimatorSpec> {
    match specs {
        [spec] => Ok(*spec),
        _ => {
            let names: Vec<String> = specs.iter().map(|s| s.to_string()).collect();
            Err(Error::param("estimator", names.join(","), "name exactly one estimator"))
        }
    }
}

impl Prepared<'_> {
    /// x and y as the estimators read them (the rows and columns the rules kept).
    pub fn xy(&self) -> (DMatrixView<'_, f64>, DMatrixView<'_, f64>) {
        self.data.xy()
    }

    /// The most training steps [`Prepared::compare`] takes, the self-check's included: a
    /// progress bar's length.
    pub fn steps(&self) -> u64 {
        // `auto` is resolved already: these count without searching for blocks again.
        let (x, y) = self.xy();
        let check = if self.selfcheck { self_check_steps(&self.specs, &self.settings, x, y) } else { 0 };
        training_steps(&self.specs, &self.settings, x, y) + check
    }

    /// Every estimator on the data ([`compare`]), then the headline's self-check when asked;
    /// `progress` is told the training steps of both and can stop them.
    pub fn compare(&self, progress: Option<&dyn Progress>) -> Result<Comparison> {
        let (x, y) = self.xy();
        let c = compare(&self.specs, &self.settings, x, y, self.seed, progress)?;
        if !self.selfcheck {
            return Ok(c);
        }
        c.with_self_check(&self.specs, &self.settings, (x, y), self.seed, progress)
    }

    /// The one estimator asked ([`EstimateRequest::single`]) alone, without the comparison's
    /// test, trained with `progress` where it trains: `auto` is the headline it stands for on
    /// these data, resolved once by [`EstimateRequest::prepare`] (the choice the
    /// [`super::auto::Auto`] estimator makes, whose block search is not repeated here); the
    /// labels' entropy ceiling applied as [`compare`] applies it.
    pub fn single(&self, progress: Option<&dyn Progress>) -> Result<Estimate> {
        let asked = only(&self.asked)?;
        let spec = if asked == EstimatorSpec::Auto { self.specs[0] } else { asked };
        let (x, y) = self.xy();
        let mut e = spec.build(&self.settings)?.estimate_with_progress(x, y, self.seed, progress)?;
        apply_entropy_ceiling(std::slice::from_mut(&mut e), x, y, &self.settings.neural.labels)?;
        Ok(e)
    }
}

/// The conditional estimators for the estimators named: each one's conditional form
/// ([`ConditionalSpec::from_spec`]), `auto` standing for [`DEFAULT_CONDITIONAL`] (each once).
pub fn conditional_specs(specs: &[EstimatorSpec]) -> Result<Vec<ConditionalSpec>> {
    let mut out: Vec<ConditionalSpec> = Vec::new();
    for s in specs {
        let forms =
            if *s == EstimatorSpec::Auto { DEFAULT_CONDITIONAL.to_vec() } else { vec![ConditionalSpec::from_spec(s)?] };
        for f in forms {
            if !out.contains(&f) {
                out.push(f);
            }
        }
    }
    Ok(out)
}

/// An estimate of `I(X; Y | Z)` as a user asks for it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GivenRequest {
    /// The estimators named (`auto`: [`DEFAULT_CONDITIONAL`]; [`conditional_specs`]).
    pub specs: Vec<EstimatorSpec>,
    /// The settings of the neural ones.
    pub settings: Settings,
    /// Runge's local permutation test.
    pub test: CiTestConfig,
    /// The data rules (the label hint: the words of [`super::classical::GIVEN_LABEL_HINT`] or
    /// the surface's).
    pub rules: Rules,
    /// The seed.
    pub seed: u64,
    /// The files of the inputs, for refusals.
    pub origin: Origin,
}

/// A [`GivenRequest`] on data that passed the rules, ready to run.
pub struct PreparedGiven {
    x: DMatrix<f64>,
    y: DMatrix<f64>,
    z: DMatrix<f64>,
    /// What the rules found for x and y (columns used, notes).
    pub checked: Checked,
    /// The columns of z used.
    pub z_columns: Vec<Column>,
    /// The notes of the rules for z and for copies of rows of x, z and y together.
    pub notes: Vec<Note>,
    specs: Vec<ConditionalSpec>,
    settings: CheckedSettings,
    test: CiTestConfig,
    seed: u64,
}

impl GivenRequest {
    /// The rules for x and y (copies kept for now), for z, then for copies of rows of x and z
    /// beside y (the user's choice of what to do with them); the settings checked.
    pub fn prepare(&self, x: &Input<'_>, y: &Input<'_>, z: &Input<'_>) -> Result<PreparedGiven> {
        let specs = conditional_specs(&self.specs)?;
        let settings = self.settings.check()?;
        let keep = Rules { repeats: rules::RepeatPolicy::Keep, ..self.rules.clone() };
        let mut checked = rules::check(x, y, &keep).map_err(|p| self.origin.refusal(p))?;
        // Copies are judged on x, z and y together, below: not on x and y alone.
        checked.notes.retain(|n| !matches!(n, Note::RepeatedRows { .. }));
        let (kept, mut notes) =
            rules::check_given(z, x.values.nrows(), &self.rules).map_err(|p| self.origin.given_refusal(p))?;
        let (x_used, y_used) = checked.select(x, y);
        let z_used = z.values.select_columns(&kept);
        let xz = super::side_by_side(x_used.as_view(), z_used.as_view());
        let rows = rules::copies(xz.as_view(), y_used.as_view(), x.lines, &self.rules, &mut notes)
            .map_err(|p| self.origin.given_refusal(p))?;
        let pick = |m: DMatrix<f64>| match &rows {
            Some(rows) => m.select_rows(rows),
            None => m,
        };
        let z_columns = kept.iter().map(|&j| z.columns[j].clone()).collect();
        Ok(PreparedGiven {
            x: pick(x_used),
            y: pick(y_used),
            z: pick(z_used),
            checked,
            z_columns,
            notes,
            specs,
            settings,
            test: self.test,
            seed: self.seed,
        })
    }
}

impl PreparedGiven {
    /// The most training steps [`PreparedGiven::compare`] takes: two terms per neural bound
    /// (the chain rule).
    pub fn steps(&self) -> u64 {
        let bounds: Vec<_> = self
            .specs
            .iter()
            .filter_map(|s| if let ConditionalSpec::Neural { bound } = s { Some(*bound) } else { None })
            .collect();
        2 * self.settings.neural.max_training_steps(&bounds)
    }

    /// Every conditional estimator and the permutation test ([`compare_given`]).
    pub fn compare(&self, progress: Option<&dyn Progress>) -> Result<Comparison> {
        let (x, y, z) = (self.x.as_view(), self.y.as_view(), self.z.as_view());
        compare_given(&self.specs, &self.settings, x, y, z, &self.test, self.seed, progress)
    }
}

/// The per-feature MI or the matrix, as a user asks for it.
#[derive(Clone, Debug, PartialEq)]
pub struct FeaturesRequest {
    /// The data rules (Python's scikit-learn functions keep constant columns,
    /// [`Rules::keep_constant`]).
    pub rules: Rules,
    /// Each input column's declared kind; `None`: detected when [`FeaturesRequest::detect`]
    /// ([`detect_kinds`], with a note), else continuous.
    pub kinds: Vec<Option<VarKind>>,
    /// Whether undeclared columns are detected.
    pub detect: bool,
    /// The target's declared kind (`None`: detected).
    pub target: Option<VarKind>,
    /// Neighbours.
    pub k: usize,
    /// The tie-breaking noise; draws given for every input row are read for the rows used.
    pub noise: TieNoise,
    /// The files of the inputs, for refusals.
    pub origin: Origin,
}

/// What [`FeaturesRequest::features`] and [`FeaturesRequest::matrix`] return.
#[derive(Clone, Debug, PartialEq)]
pub struct Features {
    /// The MI of each feature with the target (clipped at 0), or the matrix (row-major,
    /// `p × p`, NaN on the diagonal).
    pub mi: DMatrix<f64>,
    /// Each column's kind (the features', or the matrix's columns').
    pub kinds: Vec<VarKind>,
    /// The target's kind (features only).
    pub target_kind: Option<VarKind>,
    /// What the data rules found: the columns used (x's: the features or the table's
    /// columns; y's: the target), the notes.
    pub checked: Checked,
    /// The columns whose kind was detected.
    pub kind_notes: Vec<KindNote>,
    /// Warnings about the values.
    pub warnings: Vec<Warning>,
}

impl FeaturesRequest {
    /// The kinds of the columns `used` (positions in the input) of `m` (the columns used):
    /// declared, else detected with a note naming the input's column, else continuous.
    fn kinds_of(&self, m: DMatrixView<'_, f64>, used: &[usize], columns: &[Column]) -> (Vec<VarKind>, Vec<KindNote>) {
        let decl: Vec<Option<VarKind>> = used
            .iter()
            .map(|&j| self.kinds.get(j).copied().flatten().or((!self.detect).then_some(VarKind::Continuous)))
            .collect();
        let (kinds, mut notes) = detect_kinds(m, "the table", &decl, DISCRETE_MAX_LEVELS);
        for n in &mut notes {
            let c = &columns[n.column];
            (n.column, n.name) = (c.index, c.name.clone());
        }
        (kinds, notes)
    }

    /// The noise for the rows used.
    fn noise_for(&self, checked: &Checked) -> TieNoise {
        match &checked.rows {
            Some(rows) => self.noise.rows(rows),
            None => self.noise.clone(),
        }
    }

    /// The MI of every column of `x` with the one column of `y` (the target), after the data
    /// rules: scikit-learn's `mutual_info_regression` / `mutual_info_classif`
    /// ([`feature_mi`]).
    pub fn features(&self, x: &Input<'_>, y: &Input<'_>) -> Result<Features> {
        let checked = rules::check(x, y, &self.rules).map_err(|p| self.origin.refusal(p))?;
        let data = Data::new(&checked, x, y);
        let (xv, yv) = data.xy();
        let (kinds, mut kind_notes) = self.kinds_of(xv, &checked.x, &checked.x_columns);
        let target = FeaturesRequest { kinds: vec![self.target], detect: true, ..self.clone() };
        let (target_kind, notes) = target.kinds_of(yv, &[0], &checked.y_columns);
        kind_notes.extend(notes);
        let names: Vec<String> = checked.x_columns.iter().map(|c| c.name.clone()).collect();
        let yc: Vec<f64> = yv.column(0).iter().copied().collect();
        let noise = self.noise_for(&checked);
        let (mi, warnings) = feature_mi(xv, &kinds, &yc, target_kind[0], self.k, &noise, &names)?;
        let mi = DMatrix::from_vec(mi.len(), 1, mi);
        Ok(Features { mi, kinds, target_kind: Some(target_kind[0]), checked, kind_notes, warnings })
    }

    /// The matrix of MI between all columns of `table` after the data rules (the table as
    /// both sides): [`mi_matrix`].
    pub fn matrix(&self, table: &Input<'_>) -> Result<Features> {
        let checked = rules::check(table, table, &self.rules).map_err(|p| self.origin.refusal(p))?;
        let data = Data::new(&checked, table, table);
        let (m, _) = data.xy();
        let (kinds, kind_notes) = self.kinds_of(m, &checked.x, &checked.x_columns);
        let names: Vec<String> = checked.x_columns.iter().map(|c| c.name.clone()).collect();
        let (mi, warnings) = mi_matrix(m, &kinds, self.k, &self.noise_for(&checked), &names)?;
        Ok(Features { mi, kinds, target_kind: None, checked, kind_notes, warnings })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specs(names: &str) -> Vec<EstimatorSpec> {
        EstimatorSpec::parse_list(names).unwrap()
    }

    /// The surface's words for label-like columns are used only where nothing is declared and
    /// an estimator reads numbers.
    #[test]
    fn the_label_hint_is_given_only_where_it_applies() {
        let x = DMatrix::from_fn(40, 1, |i, _| (i % 3) as f64);
        let y = DMatrix::from_fn(40, 1, |i, _| ((i * 7) % 11) as f64 * 0.37 + (i % 3) as f64);
        let (ix, iy) = (Input::new(x.as_view()), Input::new(y.as_view()));
        let hinted = |names: &str, labels: LabelColumns| {
            let rules = Rules { label_hint: Some("say so".into()), ..Rules::default() };
            let r = EstimateRequest { specs: specs(names), labels, rules, ..EstimateRequest::default() };
            r.prepare(&ix, &iy).unwrap().checked.notes.iter().any(|n| n.code() == "label-like")
        };
        assert!(hinted("ksg", LabelColumns::default()));
        assert!(!hinted("mixed-ksg,infonce", LabelColumns { x: vec![0], y: vec![] }), "declared");
        let r = EstimateRequest { specs: specs("ksg,gaussian"), ..EstimateRequest::default() };
        assert!(r.single().unwrap_err().to_string().contains("name exactly one estimator"));
    }

    /// Given noise draws are read for the rows the rules keep.
    #[test]
    fn given_noise_follows_the_rows_kept() {
        let noise =
            TieNoise::Given { x: DMatrix::from_fn(4, 2, |i, j| (10 * i + j) as f64), y: vec![0.0, 1.0, 2.0, 3.0] };
        let TieNoise::Given { x, y } = noise.rows(&[0, 2, 3]) else { unreachable!() };
        assert_eq!((x.column(1).as_slice(), y.as_slice()), (&[1.0, 21.0, 31.0][..], &[0.0, 2.0, 3.0][..]));
        assert_eq!(TieNoise::Seeded(5).rows(&[1]), TieNoise::Seeded(5));
    }
}
