//! The estimate's table, JSON and trace CSV.

use crate::error::{Error, Result};
use crate::estimators::{Comparison, Unit};

/// The comparison as the table `estimate` prints.
pub(super) fn table(c: &Comparison, unit: Unit) -> String {
    let neural = c.estimates.iter().find_map(|e| e.settings.neural());
    let (nc, batch) = (neural.map(|s| s.folds), neural.map(|s| s.batch));
    let test_batch = neural.map(|s| s.eval_batch);
    let mut s = format!("mibound estimate: {} samples, x in R^{}, y in R^{}", c.n_samples, c.dim_x, c.dim_y);
    if let Some(dz) = c.dim_z {
        s += &format!(", given z in R^{dz}: I(X; Y | Z)");
    }
    if let (Some(k), Some(b), Some(t)) = (nc, batch, test_batch) {
        s += &format!("; neural bounds held-out over {k} folds, batch {b}, test batches of {t} rows");
        if let Some(c) = neural.and_then(|n| n.nearest_neighbour_kept()) {
            s += &format!("; critic: {c}, which validated above the trained critics");
        }
    }
    s += "\n\n";
    let head = format!("95% interval ({})", unit.name());
    // The estimator column fits the longest label ("KSG-1 (k=3, normal scores)").
    let w = c.estimates.iter().map(|e| e.label.chars().count()).max().unwrap_or(0).max(16);
    s += &format!("  {:<w$} {:<8} {:>9}   {head:<20}\n", "estimator", "kind", "estimate");
    for e in &c.estimates {
        // No interval (too few rows to subsample, or every half-sample alike): its warning says
        // why; `[v, v]` would read as certainty.
        let none = e.diagnostics.warnings.iter().any(|w| w.code == crate::estimators::WarningCode::NoInterval);
        let interval = if none {
            "none".to_string()
        } else {
            format!("[{:.3}, {:.3}]", unit.convert(e.interval.low), unit.convert(e.interval.high))
        };
        s += &format!("  {:<w$} {:<8} {:>9.3}   {interval}\n", e.label, e.kind.short(), unit.convert(e.value));
    }
    if c.estimates.iter().any(|e| e.kind == crate::estimators::Kind::UpperIfExact) {
        s += "  (upper*: an upper bound only if the conditional model q(y|x) equals p(y|x))\n";
    }
    if let Some(t) = &c.dependence_test {
        let (what, verdict) = match (c.significant, c.dim_z.is_some()) {
            (true, false) => ("dependence detected", "rejects independence at 1 %"),
            (false, false) if t.p_value <= crate::estimators::DEPENDENCE_LEVEL => {
                ("no significant dependence", "rejects independence at 1 %, but the estimate's interval reaches 0")
            }
            (false, false) => ("no significant dependence", "does not reject independence at 1 %"),
            (true, true) => ("dependence given z detected", "rejects conditional independence"),
            (false, true) => ("no significant dependence given z", "does not reject conditional independence"),
        };
        s += &format!(
            "\n  {what}: a permutation test ({}, {} permutations, {} rows) {verdict}: p = {:.2}\n",
            t.statistic, t.permutations, t.rows, t.p_value
        );
    }
    if let Some(sc) = &c.selfcheck {
        s += &format!(
            "\n  self-check of {}: two halves side by side {:.3} / one half {:.3} = {:.2} (a Gaussian of this shape reads {:.2}, ± {:.2}); monotone map {:.3} (was {:.3}); y shuffled {:.3} (must be 0 within its noise): {}\n",
            sc.estimator,
            unit.convert(sc.doubled),
            unit.convert(sc.single),
            sc.additivity_ratio,
            sc.reference_ratio,
            sc.ratio_allowed,
            unit.convert(sc.mapped),
            unit.convert(sc.value),
            unit.convert(sc.shuffled),
            if sc.passed() { "passed" } else { "FAILED (see the warnings)" }
        );
    }
    // Notes about the data (small, duplicated rows) reach every estimate: print each once.
    let mut seen = std::collections::HashSet::new();
    for w in c.estimates.iter().flat_map(|e| &e.diagnostics.warnings).chain(&c.warnings) {
        if seen.insert(&w.message) {
            s += &format!("  warning: {w}\n");
        }
    }
    s
}

/// The comparison as JSON ([`Comparison::to_json`]).
pub(super) fn json(est: &Comparison, unit: Unit) -> Result<String> {
    serde_json::to_string(&est.to_json(unit)?)
        .map_err(|e| Error::Format { context: "json output".into(), msg: e.to_string() })
}

/// The training trace as CSV (`--trace`).
pub(super) fn trace_csv(est: &Comparison) -> String {
    let mut s = String::from("fold,bound,step,train,validation\n");
    for r in &est.trace {
        let v = if r.validation.is_finite() { r.validation.to_string() } else { String::new() };
        s += &format!("{},{},{},{},{}\n", r.fold, r.bound, r.step, r.train, v);
    }
    s
}
