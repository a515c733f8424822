//! Several estimators on one data set, with the diagnostics that need all of them.

use super::classical::{CiTestConfig, ConditionalSpec, ci_test, discrete_mi_codes, reads_labels};
use super::neural::{TraceRow, conditional_estimate, estimate_bounds};
use super::selfcheck::{SelfCheck, self_check};
use super::significance::{PermutationTest, dependence_test};
use super::{Estimate, EstimatorSpec, Kind, SettingsGuard, Warning, WarningCode, headline_index, reference};
use crate::data::kinds::{LabelColumns, codes};
use crate::error::{Error, Result};
use crate::rng::derive_seed;
use crate::train::{Phase, Progress};
use nalgebra::DMatrixView;
use serde::Serialize;

/// The estimates of [`compare`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Comparison {
    /// Rows used.
    pub n_samples: usize,
    /// Dimension of x.
    pub dim_x: usize,
    /// Dimension of y.
    pub dim_y: usize,
    /// Dimension of the conditioning set z, for `I(X; Y | Z)` ([`compare_given`]); `None` for
    /// `I(X; Y)`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub dim_z: Option<usize>,
    /// One estimate per requested estimator, in the order requested.
    pub estimates: Vec<Estimate>,
    /// Whether the permutation test of independence rejects at [`DEPENDENCE_LEVEL`] and the
    /// headline's interval lies above 0 (of conditional independence given z, with `dim_z`:
    /// the test alone, at the 5 % level): dependence detected.
    pub significant: bool,
    /// The permutation test of independence behind `significant` (Runge's local permutation
    /// test with `dim_z`).
    pub dependence_test: Option<PermutationTest>,
    /// Diagnostics that concern several estimates (bounds crossing).
    pub warnings: Vec<Warning>,
    /// The self-consistency checks of the headline estimator, when asked for
    /// ([`Comparison::with_self_check`]).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub selfcheck: Option<SelfCheck>,
    /// Per-step training values and validation checks of the neural estimators, for traces
    /// and plots.
    #[serde(skip)]
    pub trace: Vec<TraceRow>,
}

impl Comparison {
    /// The headline estimate ([`headline_index`]).
    pub fn headline(&self) -> Option<&Estimate> {
        self.headline_index().map(|i| &self.estimates[i])
    }

    /// The index of [`Comparison::headline`] among the estimates ([`headline_index`]).
    pub fn headline_index(&self) -> Option<usize> {
        headline_index(&self.estimates)
    }

    /// The comparison with the self-consistency checks ([`self_check`]) of its headline
    /// estimator, `specs[headline_index]` built with `settings`, on the same data and seed; a
    /// failed check adds a warning.
    /// `progress` is told the training steps of its six estimates (four on the data, two on a reference) (at most
    /// [`self_check_steps`]) and can stop them.
    pub fn with_self_check<S: SettingsGuard + ?Sized>(
        mut self,
        specs: &[EstimatorSpec],
        settings: &S,
        (x, y): (DMatrixView<'_, f64>, DMatrixView<'_, f64>),
        seed: u64,
        progress: Option<&dyn Progress>,
    ) -> Result<Self> {
        let Some(i) = self.headline_index() else { return Ok(self) };
        // A neural headline's training tells its own phase.
        tell(progress, Phase::Estimating);
        let spec = EstimatorSpec::resolve_for(specs, x, y, &settings.neural_config().labels)[i];
        let estimator = spec.build(settings)?;
        // Two copies side by side: the label columns of the second copy too.
        let mut twice = settings.to_settings();
        let labels = &mut twice.neural.labels;
        labels.x = labels.x.iter().copied().chain(labels.x.iter().map(|j| j + x.ncols())).collect();
        labels.y = labels.y.iter().copied().chain(labels.y.iter().map(|j| j + y.ncols())).collect();
        let doubled = spec.build(&twice)?;
        let labels_free = settings.neural_config().labels.is_empty();
        let check =
            self_check((estimator.as_ref(), doubled.as_ref()), &self.estimates[i], labels_free, x, y, seed, progress)?;
        for f in &check.failures {
            let message = format!("self-check of {}: {f}; do not trust it on this data", self.estimates[i].label);
            self.warnings.push(Warning::new(WarningCode::SelfCheck, message));
        }
        self.selfcheck = Some(check);
        Ok(self)
    }

    /// The comparison as JSON, as `mibound estimate --json` prints it (and the Python bindings
    /// return it): `value` and `interval` stay in nats; `unit` names `unit` and each estimate's
    /// `in_unit` holds `value`, `low` and `high` in it.
    pub fn to_json(&self, unit: Unit) -> Result<serde_json::Value> {
        let mut v = serde_json::to_value(self)
            .map_err(|e| Error::Format { context: "json output".into(), msg: e.to_string() })?;
        if let Some(list) = v.get_mut("estimates").and_then(|e| e.as_array_mut()) {
            for (obj, e) in list.iter_mut().zip(&self.estimates) {
                if let Some(obj) = obj.as_object_mut() {
                    obj.insert(
                        "in_unit".into(),
                        serde_json::json!({
                            "value": unit.convert(e.value),
                            "low": unit.convert(e.interval.low),
                            "high": unit.convert(e.interval.high),
                        }),
                    );
                }
            }
        }
        if let Some(obj) = v.as_object_mut() {
            obj.insert("unit".into(), unit.name().into());
            // Which estimate is the headline, chosen here once for every surface.
            obj.insert("headline".into(), self.headline_index().into());
        }
        Ok(v)
    }
}

/// The unit estimates are shown in (the library computes in nats).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Unit {
    /// Natural units (the library's unit).
    #[default]
    Nats,
    /// Bits: nats / ln 2.
    Bits,
}

impl Unit {
    /// The unit named `name` (`nats` or `bits`; default nats), or bits with `bits` (the command
    /// line's `--unit` and `--bits`).
    pub fn from_options(name: Option<&str>, bits: bool) -> Result<Self> {
        let unit = match name.map(str::to_ascii_lowercase).as_deref() {
            None => Unit::Nats,
            Some("nats" | "nat") => Unit::Nats,
            Some("bits" | "bit") => Unit::Bits,
            Some(_) => return Err(Error::param("unit", name.unwrap_or_default(), "must be nats or bits")),
        };
        if bits && name.is_some() && unit == Unit::Nats {
            return Err(Error::param("unit", name.unwrap_or_default(), "contradicts --bits"));
        }
        Ok(if bits { Unit::Bits } else { unit })
    }

    /// The unit's name.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Nats => "nats",
            Unit::Bits => "bits",
        }
    }

    /// A value in nats, in this unit.
    pub fn convert(self, nats: f64) -> f64 {
        match self {
            Unit::Nats => nats,
            Unit::Bits => nats / std::f64::consts::LN_2,
        }
    }
}

/// The level at which [`compare`]'s permutation test says "dependence detected": 1 %, the
/// observed statistic above all 99 permutations, and only where the headline's 95 % interval
/// lies above 0 too. A claim of dependence is then made falsely on fewer than one independent
/// data set in a hundred, not one in twenty (the trust suite counts each as a failure;
/// docs/trust.md); the p-value is reported either way.
pub const DEPENDENCE_LEVEL: f64 = 0.01;

/// Runs every estimator of `specs` on `x`, `y` with `seed`. Neural bounds that share a training
/// objective share their critics (with the same numbers as alone). `progress`, when given, is
/// told the counts of training steps as they are taken; when it says the run is cancelled, the
/// neural training stops within a step and `compare` returns [`Error::Cancelled`] (the other
/// estimators are checked between one and the next).
pub fn compare<S: SettingsGuard + ?Sized>(
    specs: &[EstimatorSpec],
    settings: &S,
    x: DMatrixView<'_, f64>,
    y: DMatrixView<'_, f64>,
    seed: u64,
    progress: Option<&dyn Progress>,
) -> Result<Comparison> {
    if specs.is_empty() {
        return Err(Error::param("estimators", "(none)", "ask for at least one"));
    }
    let asked_copula = specs.contains(&EstimatorSpec::Copula);
    let specs = &EstimatorSpec::resolve_for(specs, x, y, &settings.neural_config().labels);
    let bounds: Vec<_> = specs.iter().filter_map(|s| s.bound()).collect();
    let (mut from_neural, trace) = if bounds.is_empty() {
        (Vec::new().into_iter(), Vec::new())
    } else {
        let run = estimate_bounds(&bounds, &settings.checked()?.neural, x, y, seed, progress)?;
        (run.estimates.into_iter(), run.trace)
    };
    let cancelled = || progress.is_some_and(|p| p.cancelled());
    tell(progress, Phase::Estimating);
    let (mut estimates, mut kept) = (Vec::with_capacity(specs.len()), Vec::with_capacity(specs.len()));
    for s in specs {
        if cancelled() {
            return Err(Error::Cancelled);
        }
        estimates.push(match s.bound() {
            Some(_) => from_neural.next().expect("one neural estimate per bound"),
            None if !bounds.is_empty() && is_neighbour_estimator(s) => cross_check_estimate(s, settings, x, y, seed)?,
            None if !bounds.is_empty() && *s == EstimatorSpec::Copula => {
                match super::auto::copula_beside_bound(settings, x, y, seed) {
                    // Added by `auto`'s plan, not asked for: normal scores it cannot fit (a
                    // column repeated in other units) leave it out, not the call.
                    Err(Error::Singular { .. }) if !asked_copula => continue,
                    e => e?,
                }
            }
            None => s.build(settings)?.estimate(x, y, seed)?,
        });
        kept.push(*s);
    }
    let specs = &kept;
    apply_entropy_ceiling(&mut estimates, x, y, &settings.neural_config().labels)?;
    // The reference has the rows the cross-check read (beside a lower bound: at most
    // cross_check_rows).
    let shape = (x.ncols(), y.ncols(), x.nrows().min(cross_check_rows(x.ncols() + y.ncols())));
    let reference = cross_check_reference(specs, &estimates, settings, shape, seed)?;
    let mut warnings = diagnostics(specs, &estimates, x.ncols(), y.ncols(), x.nrows(), reference);
    warnings.extend(below_zero(&estimates));
    if cancelled() {
        return Err(Error::Cancelled);
    }
    tell(progress, Phase::Testing);
    let test = dependence_test(x, y, &settings.neural_config().labels, seed)?;
    // Both must say so: the permutation test, and the headline's interval above 0.
    let headline_above_zero = headline_index(&estimates)
        .map(|i| &estimates[i])
        .is_none_or(|h| h.interval.low > 0.0 || h.interval.low.is_nan());
    let significant = test.significant(DEPENDENCE_LEVEL) && headline_above_zero;
    Ok(Comparison {
        n_samples: x.nrows(),
        dim_x: x.ncols(),
        dim_y: y.ncols(),
        dim_z: None,
        estimates,
        significant,
        dependence_test: Some(test),
        warnings,
        selfcheck: None,
        trace,
    })
}

/// Tells `progress`, when there is one, that the run starts `phase`.
fn tell(progress: Option<&dyn Progress>, phase: Phase) {
    if let Some(p) = progress {
        p.phase(phase);
    }
}

/// Rows a nearest-neighbour estimator uses beside a neural bound, where it is the classical
/// cross-check, up to [`CROSS_CHECK_DIMENSIONS`] joint dimensions: a random subset of larger data
/// sets. Its neighbour searches grow faster than the rows in many dimensions (at 10⁵ rows of
/// 16 + 16 dims KSG took most of an estimate's time); on 10⁴ rows the cross-check's spread is
/// that of KSG on 10⁴ rows, and its bias in many dimensions (which the cross-check's hints allow
/// for) that of 10⁴ rows.
pub const CROSS_CHECK_ROWS: usize = 10_000;
/// Joint dimensions up to which the cross-check reads [`CROSS_CHECK_ROWS`] rows; above, fewer
/// ([`cross_check_rows`]).
pub const CROSS_CHECK_DIMENSIONS: usize = 128;

/// Rows the cross-check reads at most with `dims` joint dimensions: [`CROSS_CHECK_ROWS`] up to
/// [`CROSS_CHECK_DIMENSIONS`], then `CROSS_CHECK_ROWS·√(CROSS_CHECK_DIMENSIONS/dims)`, so that its
/// neighbour searches (`rows²·dims` distance terms, a search in hundreds of dimensions being a
/// scan) cost no more than at 128 dimensions: 5000 rows at 512 dimensions, where KSG alone took
/// 34 s on 10⁴ rows (and its calibration reference as much again), 2500 at 2048.
pub fn cross_check_rows(dims: usize) -> usize {
    if dims <= CROSS_CHECK_DIMENSIONS {
        return CROSS_CHECK_ROWS;
    }
    (CROSS_CHECK_ROWS as f64 * (CROSS_CHECK_DIMENSIONS as f64 / dims as f64).sqrt()).round() as usize
}

/// The estimators that search neighbours (KSG and its kin).
fn is_neighbour_estimator(s: &EstimatorSpec) -> bool {
    matches!(
        s,
        EstimatorSpec::Ksg { .. }
            | EstimatorSpec::KsgBlocks { .. }
            | EstimatorSpec::MixedKsg { .. }
            | EstimatorSpec::Ross { .. }
    )
}

/// `s` on [`cross_check_rows`] random rows of larger data, with a note saying so.
fn cross_check_estimate<S: SettingsGuard + ?Sized>(
    s: &EstimatorSpec,
    settings: &S,
    x: DMatrixView<'_, f64>,
    y: DMatrixView<'_, f64>,
    seed: u64,
) -> Result<Estimate> {
    let (n, rows) = (x.nrows(), cross_check_rows(x.ncols() + y.ncols()));
    let mut e = super::auto::on_random_rows(s, settings, x, y, seed, rows)?;
    if n > rows {
        let message = format!(
            "{}: the cross-check ran on a random {rows} of the {n} rows, so that its neighbour searches stay fast",
            e.label
        );
        e.diagnostics
            .warnings
            .push(Warning::new(WarningCode::Subsampled, message).with("rows", rows as f64).with("of", n as f64));
    }
    Ok(e)
}

/// The entropy ceiling of declared labels, for every estimate of one data set: when every
/// column of x, or of y, is a class label (`labels`), `I(X; Y) ≤ H` of that side. `H` is
/// estimated by the plug-in entropy with Miller–Madow's correction (`discrete_mi_codes(L, L)`)
/// and its standard error by the delta method, `√((Σ p̂ ln² p̂ − Ĥ²)/n)` (zero for equally
/// frequent labels). A lower bound or a point estimate (not an upper bound, not a training
/// objective):
///
/// - reading above `Ĥ` gets an [`WarningCode::AboveEntropy`] warning among its diagnostics
///   (with the correction, an estimate near the truth is not taken for one above it);
/// - reading at or below it has its interval's upper end capped at `Ĥ + 1.96 SE`, an upper
///   95 % limit of `H` (neither the MI nor a lower bound's value can lie above `H`), never
///   below the interval's lower end; the interval's method says so.
///
/// The one place this is applied: [`compare`] calls it, as does Python's single-estimator call.
pub fn apply_entropy_ceiling(
    estimates: &mut [Estimate],
    x: DMatrixView<'_, f64>,
    y: DMatrixView<'_, f64>,
    labels: &LabelColumns,
) -> Result<()> {
    let labels = labels.validate(x.ncols(), y.ncols())?;
    let side = |m: DMatrixView<'_, f64>, cols: &[usize]| {
        (!cols.is_empty() && cols.len() == m.ncols()).then(|| label_entropy(m)).transpose()
    };
    let (entropy, se) = match (side(x, &labels.x)?, side(y, &labels.y)?) {
        (Some(a), Some(b)) => {
            if a.0 <= b.0 {
                a
            } else {
                b
            }
        }
        (Some(h), None) | (None, Some(h)) => h,
        (None, None) => return Ok(()),
    };
    let cap = entropy + 1.96 * se;
    for e in estimates.iter_mut().filter(|e| matches!(e.kind, Kind::Lower | Kind::Estimate)) {
        if e.value > entropy {
            let message = format!(
                "{} ({:.3}) is above the entropy of the labels, {entropy:.3} nats, which no MI with a label can exceed: the estimate is biased up on this data",
                e.label, e.value
            );
            let w = Warning::new(WarningCode::AboveEntropy, message).with("value", e.value).with("entropy", entropy);
            e.diagnostics.warnings.push(w);
        } else if e.interval.high > cap {
            e.interval.high = cap.max(e.interval.low);
            e.interval.method += &format!(
                "; upper end capped at {cap:.3} nats, the labels' entropy {entropy:.3} + 1.96 × its standard error"
            );
            e.diagnostics.values.insert("interval_capped_at".into(), cap);
        }
    }
    Ok(())
}

/// The entropy (nats) of the rows of `m`, each row one symbol ([`codes`]), and its standard
/// error: `H(L) = I(L; L)`, the discrete plug-in estimate with Miller–Madow's correction, which
/// for a variable with itself is `(K − 1)/(2n)` (K symbols seen) — its downward bias; the
/// standard error of the plug-in by the delta method, `√((Σ p̂ ln² p̂ − Ĥ²)/n)`.
fn label_entropy(m: DMatrixView<'_, f64>) -> Result<(f64, f64)> {
    let (ids, levels) = codes(m);
    let h = discrete_mi_codes(&ids, &ids)?.miller_madow;
    let n = ids.len() as f64;
    let mut count = vec![0usize; levels];
    ids.iter().for_each(|&c| count[c as usize] += 1);
    let (mut plug, mut second) = (0.0, 0.0);
    for p in count.iter().filter(|&&c| c > 0).map(|&c| c as f64 / n) {
        plug -= p * p.ln();
        second += p * p.ln() * p.ln();
    }
    Ok((h, ((second - plug * plug).max(0.0) / n).sqrt()))
}

/// What the classical cross-check reads on a reference Gaussian with the data's rows and
/// dimensions whose MI is the headline lower bound's plus a material margin
/// ([`reference::material`]): `(that MI, the mean reading)`. `None` without a lower bound, or
/// where the check is not KSG or the copula estimate (an estimator for labels has no Gaussian
/// reference).
fn cross_check_reference<S: SettingsGuard + ?Sized>(
    specs: &[EstimatorSpec],
    estimates: &[Estimate],
    settings: &S,
    shape: (usize, usize, usize),
    seed: u64,
) -> Result<Option<(f64, f64)>> {
    let headline = headline_index(estimates).map(|i| &estimates[i]).filter(|h| h.kind == Kind::Lower);
    let Some(h) = headline.filter(|h| h.value.is_finite()) else {
        return Ok(None);
    };
    let Some((spec, _)) = check_of(specs, estimates) else { return Ok(None) };
    if !matches!(spec, EstimatorSpec::Ksg { .. } | EstimatorSpec::Copula) {
        return Ok(None);
    }
    let check = spec.build(settings)?;
    let edge = h.value.max(0.0) + reference::material(h.value.max(0.0));
    let read = |a: DMatrixView<'_, f64>, b: DMatrixView<'_, f64>, s: u64| check.reading(a, b, s);
    let reading = reference::mean_reading(&read, shape, edge, derive_seed(seed, "cross-check reference"))?;
    Ok(Some((edge, reading)))
}

/// The cross-check's spec and estimate: KSG, else an estimator for labels, else the copula
/// estimate. Found by the specs, not by the estimates' names.
fn check_of<'a>(specs: &'a [EstimatorSpec], estimates: &'a [Estimate]) -> Option<(&'a EstimatorSpec, &'a Estimate)> {
    let with_spec = |want: fn(&EstimatorSpec) -> bool| specs.iter().zip(estimates).find(|(s, _)| want(s));
    with_spec(|s| matches!(s, EstimatorSpec::Ksg { .. }))
        .or_else(|| with_spec(reads_labels))
        .or_else(|| with_spec(|s| matches!(s, EstimatorSpec::Copula)))
}

/// A warning for each lower bound or estimate that reads below 0 by more than a material margin
/// ([`reference::material`] of 0): MI is never negative, so such a reading is off by at least
/// that much.
fn below_zero(estimates: &[Estimate]) -> Vec<Warning> {
    estimates
        .iter()
        .filter(|e| matches!(e.kind, Kind::Lower | Kind::Estimate) && e.value < -reference::material(0.0))
        .map(|e| {
            let message = format!(
                "{} reads {:.3}, below 0, which no MI can be: it found no dependence it could tell from noise in {} rows; read it as 0, with its interval's upper end {:.3} as the most it allows",
                e.label, e.value, e.n_samples, e.interval.high
            );
            Warning::new(WarningCode::Negative, message).with("value", e.value)
        })
        .collect()
}

/// The diagnostics that need several estimates, in this order: upper bounds that cannot be
/// ones (below 0, or below the headline lower bound), the classical cross-check (judged against
/// `reference`, [`cross_check_reference`], where there is one), intervals too wide for `n`
/// rows, and lower bounds above upper bounds. `estimates` are in the order of `specs`.
fn diagnostics(
    specs: &[EstimatorSpec],
    estimates: &[Estimate],
    dx: usize,
    dy: usize,
    n: usize,
    reference: Option<(f64, f64)>,
) -> Vec<Warning> {
    debug_assert_eq!(specs.len(), estimates.len(), "resolved specs, one per estimate");
    let headline = headline_index(estimates).map(|i| &estimates[i]).filter(|h| h.kind == Kind::Lower);
    let (mut warnings, flagged) = impossible_upper_bounds(estimates, headline);
    warnings.extend(match reference {
        Some(edge) => calibrated_cross_check(specs, estimates, headline, edge),
        None => cross_check(specs, estimates, headline, dx, dy),
    });
    warnings.extend(sum_above_bound(specs, estimates, headline));
    warnings.extend(wide_intervals(estimates, n));
    warnings.extend(crossing_bounds(estimates, &flagged));
    warnings
}

/// A warning where the sum over blocks (`ksg-blocks`) reads above the headline lower bound,
/// the intervals apart: the sum rests on the blocks' independence, so either they are not
/// independent (beside `auto`'s bound: the kernel test of their interaction rejected it,
/// [`super::auto::BlocksVerdict::Interacting`]) or the bound is short. Below the bound, the
/// sum is shown wrong by the bound itself, and nothing is said.
fn sum_above_bound(specs: &[EstimatorSpec], estimates: &[Estimate], headline: Option<&Estimate>) -> Option<Warning> {
    let h = headline?;
    let (_, sum) = specs.iter().zip(estimates).find(|(s, _)| matches!(s, EstimatorSpec::KsgBlocks { .. }))?;
    // Written so that a NaN interval (a failed estimate) says nothing.
    if sum.interval.low.partial_cmp(&h.interval.high) != Some(std::cmp::Ordering::Greater) {
        return None;
    }
    let message = format!(
        "{} reads {:.3} [{:.3}, {:.3}], above the lower bound {} ({:.3} [{:.3}, {:.3}]): the sum holds only for independent blocks, so either the blocks are not independent (beside the default, a kernel test of their independence rejected it at 1 %) or the bound is short; the MI is at least {:.3}",
        sum.label,
        sum.value,
        sum.interval.low,
        sum.interval.high,
        h.label,
        h.value,
        h.interval.low,
        h.interval.high,
        h.value
    );
    Some(Warning::new(WarningCode::Blocks, message).with("sum", sum.value).with("headline", h.value))
}

/// A warning for each upper bound below 0 or below the headline lower bound, and the names of
/// the estimators so flagged.
fn impossible_upper_bounds(estimates: &[Estimate], headline: Option<&Estimate>) -> (Vec<Warning>, Vec<String>) {
    let (mut warnings, mut flagged) = (Vec::new(), Vec::new());
    for up in estimates.iter().filter(|e| e.kind == Kind::UpperIfExact) {
        if up.value < 0.0 {
            let message = format!(
                "{} ({:.3}) is below 0, which no upper bound on MI can be: its conditional model q(y|x) is too poor here — ignore it",
                up.label, up.value
            );
            warnings.push(Warning::new(WarningCode::InvalidUpperBound, message).with("upper", up.value));
            flagged.push(up.estimator.clone());
        } else if let Some(lo) = headline.filter(|lo| up.value < lo.value) {
            let message = format!(
                "{} ({:.3}) lies below the lower bound {} ({:.3}): it is not an upper bound on this data (its conditional model q(y|x) is too poor) — trust the lower bound, not it",
                up.label, up.value, lo.label, lo.value
            );
            warnings.push(
                Warning::new(WarningCode::InvalidUpperBound, message).with("upper", up.value).with("lower", lo.value),
            );
            flagged.push(up.estimator.clone());
        }
    }
    (warnings, flagged)
}

/// The classical cross-check of a lower bound against KSG or the copula estimate, judged by a
/// reference ([`cross_check_reference`]): `(edge, reading)` says the check reads `reading` on a
/// Gaussian with the data's shape and MI `edge`, the headline's plus a material margin. The
/// check reading more than that on the data, and more than the bound itself, says its MI is
/// likely beyond the edge: the lower bound is then short by more than the margin, and a
/// warning says so. The check reading less
/// says nothing against a valid lower bound (KSG's bias downwards grows with the dimension and
/// with structure a Gaussian lacks).
fn calibrated_cross_check(
    specs: &[EstimatorSpec],
    estimates: &[Estimate],
    headline: Option<&Estimate>,
    (edge, reading): (f64, f64),
) -> Option<Warning> {
    let (_, c) = check_of(specs, estimates)?;
    let h = headline?;
    // Written so that a NaN (a failed estimate) warns of nothing. KSG reading less than the
    // bound itself is no evidence that the bound is short, whatever the reference says (on
    // images, whose pixels span few dimensions, KSG reads far more than on a full-rank
    // Gaussian of as many columns: 9 of 9 right readings of the images group were warned).
    let above = |v: f64| c.value.partial_cmp(&v) == Some(std::cmp::Ordering::Greater);
    if !above(reading) || !above(h.value) {
        return None;
    }
    let message = format!(
        "cross-check: {} reads {:.3} on this data, more than the {:.3} it reads on a Gaussian with the same rows and dimensions and MI {edge:.3}; the lower bound {} ({:.3}) is likely short by more than a quarter: the data may hold more than it shows",
        c.label, c.value, reading, h.label, h.value
    );
    Some(
        Warning::new(WarningCode::CrossCheck, message)
            .with("headline", h.value)
            .with("cross_check", c.value)
            .with("reference_mi", edge)
            .with("reference_reading", reading),
    )
}

/// The classical cross-check without a reference (an estimator for labels, or a headline that
/// is not a lower bound): the headline and the check should not disagree by more than their
/// intervals allow.
fn cross_check(
    specs: &[EstimatorSpec],
    estimates: &[Estimate],
    headline: Option<&Estimate>,
    dx: usize,
    dy: usize,
) -> Option<Warning> {
    let (check_spec, c) = check_of(specs, estimates)?;
    let h = headline?;
    // Written so that a NaN interval (a failed estimate) disagrees with nothing.
    let disagree = h.interval.high < c.interval.low || c.interval.high < h.interval.low;
    if !disagree {
        return None;
    }
    let hint = if h.value < c.value {
        format!("{} is a lower bound (and capped at log N); the data may hold more than it shows", h.label)
    } else if matches!(check_spec, EstimatorSpec::Ksg { .. }) && dx + dy > 10 {
        format!("KSG underestimates in high dimension ({dx} + {dy} here)")
    } else if matches!(check_spec, EstimatorSpec::Copula) {
        "the copula estimate sees only Gaussian-copula (monotone) dependence".to_string()
    } else {
        "one of them is biased here; compare more estimators".to_string()
    };
    let message = format!(
        "cross-check: {} ({:.3} [{:.3}, {:.3}]) and {} ({:.3} [{:.3}, {:.3}]) disagree by more than their intervals allow; {hint}",
        h.label, h.value, h.interval.low, h.interval.high, c.label, c.value, c.interval.low, c.interval.high
    );
    Some(Warning::new(WarningCode::CrossCheck, message).with("headline", h.value).with("cross_check", c.value))
}

/// A warning for each lower bound whose interval lies above an upper bound's (one not already
/// flagged by [`impossible_upper_bounds`]).
fn crossing_bounds(estimates: &[Estimate], flagged: &[String]) -> Vec<Warning> {
    let mut warnings = Vec::new();
    for lo in estimates.iter().filter(|e| e.kind == Kind::Lower) {
        for up in estimates.iter().filter(|e| e.kind == Kind::UpperIfExact && !flagged.contains(&e.estimator)) {
            if lo.interval.low > up.interval.high {
                let message = format!(
                    "bounds cross: the lower bound {} ({:.3}) lies above the upper bound {} ({:.3}); the conditional model q(y|x) is probably too poor — trust neither",
                    lo.label, lo.value, up.label, up.value
                );
                warnings.push(
                    Warning::new(WarningCode::BoundsCross, message).with("lower", lo.value).with("upper", up.value),
                );
            }
        }
    }
    warnings
}

/// A warning for each estimate whose interval is wider than `ln n` (no estimate from `n` rows
/// can resolve more than about `log n` nats of spread), or whose half-width exceeds the
/// material margin of its value ([`reference::material`]: a quarter of it, at least 0.25 nats),
/// so that the reading may well be off by more than that (lower bounds and estimates: an
/// upper bound is judged against the lower bound instead).
fn wide_intervals(estimates: &[Estimate], n: usize) -> Vec<Warning> {
    let ln_n = (n as f64).ln();
    estimates
        .iter()
        .filter_map(|e| {
            let width = e.interval.high - e.interval.low;
            // A NaN width (a non-finite estimate) is flagged too.
            let message = if width > ln_n || width.is_nan() {
                format!(
                    "{}: the 95 % interval [{:.3}, {:.3}] is wider than log n = {ln_n:.2} nats, more than {n} rows can support; the estimate is not informative",
                    e.label, e.interval.low, e.interval.high
                )
            } else if matches!(e.kind, Kind::Lower | Kind::Estimate) && width / 2.0 > reference::material(e.value.max(0.0)) {
                format!(
                    "{}: the 95 % interval [{:.3}, {:.3}] is ±{:.3} wide, more than a quarter of the estimate (at least 0.25 nats): from {n} rows the reading may be off by that much",
                    e.label,
                    e.interval.low,
                    e.interval.high,
                    width / 2.0
                )
            } else {
                return None;
            };
            Some(Warning::new(WarningCode::WideInterval, message).with("width", width))
        })
        .collect()
}

/// The most training steps [`compare`] takes for `specs` on `x` and `y` (`auto` resolved
/// first, as `compare` resolves it), for a progress bar's length.
pub fn training_steps<S: SettingsGuard + ?Sized>(
    specs: &[EstimatorSpec],
    settings: &S,
    x: DMatrixView<'_, f64>,
    y: DMatrixView<'_, f64>,
) -> u64 {
    let cfg = settings.neural_config();
    let resolved = EstimatorSpec::resolve_for(specs, x, y, &cfg.labels);
    let bounds: Vec<_> = resolved.iter().filter_map(|s| s.bound()).collect();
    cfg.max_training_steps(&bounds)
}

/// The most training steps the self-check of a comparison of `specs` on `x` and `y` takes:
/// six estimates by its headline (four on the data, two on a reference) ([`Comparison::headline_index`]: the first lower bound, else
/// the first estimator; 0 when it trains nothing), for a progress bar's length.
pub fn self_check_steps<S: SettingsGuard + ?Sized>(
    specs: &[EstimatorSpec],
    settings: &S,
    x: DMatrixView<'_, f64>,
    y: DMatrixView<'_, f64>,
) -> u64 {
    let lower = |b: &crate::bounds::BoundSpec| b.build::<f32>().is_ok_and(|b| b.kind() == Kind::Lower);
    let resolved = EstimatorSpec::resolve_for(specs, x, y, &settings.neural_config().labels);
    let headline =
        resolved.iter().filter_map(|s| s.bound()).find(lower).or_else(|| resolved.first().and_then(|s| s.bound()));
    headline.map_or(0, |b| 6 * settings.neural_config().max_training_steps(&[b]))
}

/// Runs every conditional estimator of `specs` on `x`, `y` given `z` with `seed`, and Runge's
/// local permutation test of `X ⊥ Y | Z` ([`ci_test`] with `test`): `I(X; Y | Z)` as a
/// [`Comparison`] with `dim_z` set, the test in `dependence_test`. A neural bound trains with
/// `settings.neural` (the chain rule of [`conditional_estimate`]; `progress` counts its steps);
/// the classical estimators use nothing of `settings`.
#[allow(clippy::too_many_arguments)]
pub fn compare_given<S: SettingsGuard + ?Sized>(
    specs: &[ConditionalSpec],
    settings: &S,
    x: DMatrixView<'_, f64>,
    y: DMatrixView<'_, f64>,
    z: DMatrixView<'_, f64>,
    test: &CiTestConfig,
    seed: u64,
    progress: Option<&dyn Progress>,
) -> Result<Comparison> {
    if specs.is_empty() {
        return Err(Error::param("estimators", "(none)", "ask for at least one"));
    }
    // Checked once, when the first neural estimator needs them.
    let mut checked = None;
    let mut estimates = Vec::with_capacity(specs.len());
    for s in specs {
        estimates.push(match *s {
            ConditionalSpec::Neural { bound } => {
                let cfg = match &mut checked {
                    Some(c) => c,
                    None => checked.insert(settings.checked()?),
                };
                conditional_estimate(bound, &cfg.neural, (x, y, z), seed, progress)?
            }
            s => {
                tell(progress, Phase::Estimating);
                s.build()?.estimate(x, y, z, seed)?
            }
        });
    }
    let warnings = wide_intervals(&estimates, x.nrows());
    tell(progress, Phase::Testing);
    let test = ci_test(x, y, z, test, seed)?;
    Ok(Comparison {
        n_samples: x.nrows(),
        dim_x: x.ncols(),
        dim_y: y.ncols(),
        dim_z: Some(z.ncols()),
        significant: test.significant(0.05),
        dependence_test: Some(test),
        estimates,
        warnings,
        selfcheck: None,
        trace: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimators::Interval;

    fn est(name: &str, kind: Kind, value: f64, low: f64, high: f64) -> Estimate {
        Estimate::new(name, name.to_uppercase(), value, Interval::new(low, high, "test"), kind, (1000, 20, 20))
    }

    fn specs(names: &str) -> Vec<EstimatorSpec> {
        EstimatorSpec::parse_list(names).unwrap()
    }

    /// The sum over blocks above the lower bound, intervals apart, is said; overlapping, or
    /// below the bound (the bound then shows the sum wrong), or NaN, it is not.
    #[test]
    fn a_sum_over_blocks_above_the_bound_is_said() {
        let bound = est("infonce", Kind::Lower, 0.744, 0.698, 0.790);
        let sum = |v: f64| est("ksg-blocks", Kind::Estimate, v, v - 0.045, v + 0.045);
        let list = specs("infonce,ksg-blocks");
        let w = sum_above_bound(&list, &[bound.clone(), sum(0.946)], Some(&bound)).expect("a warning");
        assert_eq!((w.code, w.values["sum"], w.values["headline"]), (WarningCode::Blocks, 0.946, 0.744));
        assert!(w.message.contains("the MI is at least 0.744"), "{}", w.message);
        assert!(sum_above_bound(&list, &[bound.clone(), sum(0.82)], Some(&bound)).is_none());
        assert!(sum_above_bound(&list, &[bound.clone(), sum(0.3)], Some(&bound)).is_none());
        assert!(sum_above_bound(&list, &[bound.clone(), sum(f64::NAN)], Some(&bound)).is_none());
        assert!(sum_above_bound(&list, &[bound.clone(), sum(0.946)], None).is_none());
    }

    #[test]
    fn each_hint_of_the_cross_check() {
        let lo = |v: f64| est("infonce", Kind::Lower, v, v - 0.1, v + 0.1);
        let ksg = est("ksg:k=5", Kind::Estimate, 0.5, 0.45, 0.55);
        let copula = est("copula", Kind::Estimate, 0.5, 0.45, 0.55);
        // Headline below the check: the lower-bound hint, whichever check.
        let w = diagnostics(&specs("infonce,ksg"), &[lo(0.1), ksg.clone()], 20, 20, 1000, None);
        assert!(w.len() == 1 && w[0].message.contains("INFONCE is a lower bound"), "{w:?}");
        assert_eq!(
            (w[0].code, w[0].values["headline"], w[0].values["cross_check"]),
            (WarningCode::CrossCheck, 0.1, 0.5)
        );
        // Above KSG in 40 dimensions: KSG's downward bias; in 4 dimensions: no such excuse.
        let w = diagnostics(&specs("infonce,ksg"), &[lo(2.0), ksg.clone()], 20, 20, 1000, None);
        assert!(w.len() == 1 && w[0].message.contains("KSG underestimates in high dimension (20 + 20 here)"), "{w:?}");
        let w = diagnostics(&specs("infonce,ksg"), &[lo(2.0), ksg.clone()], 2, 2, 1000, None);
        assert!(w.len() == 1 && w[0].message.contains("one of them is biased here"), "{w:?}");
        // Without KSG, the copula estimate is the check; with both, KSG is, wherever listed.
        let w = diagnostics(&specs("infonce,copula"), &[lo(2.0), copula.clone()], 20, 20, 1000, None);
        assert!(w.len() == 1 && w[0].message.contains("sees only Gaussian-copula"), "{w:?}");
        let w = diagnostics(&specs("infonce,copula,ksg"), &[lo(2.0), copula.clone(), ksg.clone()], 20, 20, 1000, None);
        assert!(w.len() == 1 && w[0].message.contains("and KSG:K=5 (0.500"), "{w:?}");
        // Overlapping intervals, or a NaN interval, disagree with nothing.
        assert!(diagnostics(&specs("infonce,ksg"), &[lo(0.6), ksg.clone()], 20, 20, 1000, None).is_empty());
        let nan = est("infonce", Kind::Lower, f64::NAN, f64::NAN, f64::NAN);
        let w = diagnostics(&specs("infonce,ksg"), &[nan, ksg], 20, 20, 1000, None);
        assert!(w.iter().all(|w| w.code != WarningCode::CrossCheck), "{w:?}");
        assert!(
            w.iter().any(|w| w.code == WarningCode::WideInterval && w.message.contains("wider than log n")),
            "a NaN interval is flagged as uninformative: {w:?}"
        );
    }

    #[test]
    fn label_entropy_counts_rows_as_symbols() {
        // Rows (0,1), (−0,1), (1,0), (2,2): probabilities ½, ¼, ¼ → plug-in ½ ln 2 + 2 · ¼ ln 4
        // = 1.5 ln 2, plus Miller–Madow's (3 − 1)/(2 · 4) = ¼.
        let m = nalgebra::DMatrix::from_row_slice(4, 2, &[0.0, 1.0, -0.0, 1.0, 1.0, 0.0, 2.0, 2.0]);
        let (h, se) = label_entropy(m.as_view()).unwrap();
        assert!((h - (1.5 * std::f64::consts::LN_2 + 0.25)).abs() < 1e-12);
        // Σ p ln² p = ½ ln² 2 + ½ ln² 4 = 2.5 ln² 2, plug-in 1.5 ln 2: variance (2.5 − 2.25) ln² 2 / 4.
        assert!((se - (0.0625f64).sqrt() * std::f64::consts::LN_2).abs() < 1e-12, "{se}");
    }

    /// Lower bounds and point estimates above the ceiling are warned about, upper bounds and
    /// estimates below it are not, and those below it have their intervals capped at it;
    /// without a side made of labels there is no ceiling.
    #[test]
    fn estimates_above_the_label_entropy_are_warned_about() {
        // y: four equally frequent labels in 8 rows: H = ln 4 + 3/16.
        let y = nalgebra::DMatrix::from_fn(8, 1, |i, _| (i % 4) as f64);
        let x = nalgebra::DMatrix::from_fn(8, 1, |i, _| i as f64 * 0.3);
        let h = 4f64.ln() + 3.0 / 16.0;
        let mut e = vec![
            est("infonce", Kind::Lower, h + 0.01, 0.0, 2.0),
            est("mixed-ksg:k=5", Kind::Estimate, h + 0.01, 0.0, 2.0),
            est("club", Kind::UpperIfExact, h + 0.5, 0.0, 2.0),
            est("ross:k=3", Kind::Estimate, h - 0.01, 0.0, 2.0),
        ];
        let labels = LabelColumns { x: vec![], y: vec![0] };
        apply_entropy_ceiling(&mut e, x.as_view(), y.as_view(), &labels).unwrap();
        let warned: Vec<bool> = e.iter().map(|e| !e.diagnostics.warnings.is_empty()).collect();
        assert_eq!(warned, [true, true, false, false]);
        assert_eq!(e[0].diagnostics.warnings[0].code, WarningCode::AboveEntropy);
        assert!((e[0].diagnostics.warnings[0].values["entropy"] - h).abs() < 1e-12);
        // Below the ceiling, the interval's upper end is capped at it (equally frequent labels:
        // standard error 0), except an upper bound's.
        let highs: Vec<f64> = e.iter().map(|e| e.interval.high).collect();
        assert_eq!(highs, [2.0, 2.0, 2.0, h]);
        assert!(e[3].interval.method.contains("the labels' entropy"), "{}", e[3].interval.method);
        // Unequal frequencies: the cap is the upper limit Ĥ + 1.96 SE, never below the low end.
        let y3 = nalgebra::DMatrix::from_fn(8, 1, |i, _| if i < 6 { 0.0 } else { (i - 5) as f64 });
        let (h3, se3) = label_entropy(y3.as_view()).unwrap();
        assert!(se3 > 0.0);
        let mut e3 = vec![
            est("ross:k=3", Kind::Estimate, h3 - 0.01, 0.0, 3.0),
            est("ross:k=3", Kind::Estimate, h3 - 0.01, h3 + 0.9, 3.0),
        ];
        apply_entropy_ceiling(&mut e3, x.as_view(), y3.as_view(), &labels).unwrap();
        assert!((e3[0].interval.high - (h3 + 1.96 * se3)).abs() < 1e-12);
        assert_eq!(e3[1].interval.high, h3 + 0.9);
        let mut inside = vec![est("ross:k=3", Kind::Estimate, 1.0, 0.9, 1.1)];
        apply_entropy_ceiling(&mut inside, x.as_view(), y.as_view(), &labels).unwrap();
        assert_eq!((inside[0].interval.high, inside[0].diagnostics.values.get("interval_capped_at")), (1.1, None));
        let mut e = vec![est("infonce", Kind::Lower, 5.0, 0.0, 6.0)];
        let mixed = LabelColumns { x: vec![], y: vec![0] };
        let xy = nalgebra::DMatrix::from_fn(8, 2, |i, j| if j == 0 { (i % 4) as f64 } else { i as f64 });
        apply_entropy_ceiling(&mut e, x.as_view(), xy.as_view(), &mixed).unwrap();
        assert!(e[0].diagnostics.warnings.is_empty(), "y is not all labels: no ceiling");
    }

    #[test]
    fn the_cross_check_reads_fewer_rows_in_more_dimensions_at_the_cost_of_128() {
        assert_eq!(cross_check_rows(10), CROSS_CHECK_ROWS);
        assert_eq!(cross_check_rows(CROSS_CHECK_DIMENSIONS), CROSS_CHECK_ROWS);
        assert_eq!(cross_check_rows(512), 5000);
        assert_eq!(cross_check_rows(2048), 2500);
        for d in [129, 200, 512, 1000, 2048, 4096] {
            let (r, base) = (cross_check_rows(d) as f64, CROSS_CHECK_ROWS as f64);
            let (cost, cap) = (r * r * d as f64, base * base * CROSS_CHECK_DIMENSIONS as f64);
            assert!(cost <= cap * 1.001 && cost >= cap * 0.99, "{d}: {cost} against {cap}");
            assert!(cross_check_rows(d) >= cross_check_rows(d + 1));
        }
    }

    #[test]
    fn upper_bounds_are_flagged_once_in_order() {
        let lo = est("infonce", Kind::Lower, 1.0, 0.9, 1.1);
        let below_zero = est("l1out", Kind::UpperIfExact, -0.2, -0.3, -0.1);
        let below_lower = est("club", Kind::UpperIfExact, 0.8, 0.75, 0.85);
        let w = diagnostics(&specs("infonce,l1out,club"), &[lo.clone(), below_zero, below_lower], 2, 2, 1000, None);
        // Each upper bound once, in the order of the estimates: not also as a crossing.
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].message.starts_with("L1OUT (-0.200) is below 0"), "{w:?}");
        assert!(w[1].message.starts_with("CLUB (0.800) lies below the lower bound INFONCE"), "{w:?}");
        // An upper bound above the lower bound's value whose interval still lies below the
        // lower bound's interval: a crossing, after the wide-interval warnings.
        let crossed = est("club", Kind::UpperIfExact, 1.05, 0.0, 0.85);
        let w = diagnostics(&specs("infonce,club"), &[lo, crossed], 2, 2, 1000, None);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].message.starts_with("bounds cross: the lower bound INFONCE"), "{w:?}");
        assert_eq!(w[0].code, WarningCode::BoundsCross);
    }
}
