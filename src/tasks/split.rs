//! The tuning / held-out split of the suite and the groups of families.
//!
//! Every listed task (bmi's 40 and the extra tasks, [`super::suite_ids`]) belongs to one
//! *stratum*: the outermost prefix of its id for a transformed task (`normal_cdf`, `spiral`,
//! `rotate`, `small_n`, …) and otherwise its family (`multinormal-sparse`, `gaussian-mixture`,
//! `digits`, …). Within each stratum the tasks alternate between the two halves in suite order;
//! the half of a stratum's first task is the parity of the FNV-1a hash of the stratum's name. So
//! every stratum with two or more tasks has tasks in both halves, the assignment depends on
//! nothing but the ids (no estimator's results), and adding a task to one stratum moves no task
//! of another. An `indep-` twin is in its task's half; an id outside the listed suite is in
//! neither.
//!
//! The tasks at representation scale ([`super::SCALE_IDS`]) are split by the same rule among
//! themselves, their stratum `scale:` and their family (`scale:rotate ∘ staircase`,
//! `scale:embed`, …), so they change neither the suite's halves nor its groups.

use serde::Serialize;

/// The half of the suite a task belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Split {
    /// Defaults may be chosen on these tasks.
    Tuning,
    /// Only for judging defaults chosen on the tuning half.
    HeldOut,
}

impl Split {
    /// `tuning` or `held-out`.
    pub fn name(self) -> &'static str {
        match self {
            Split::Tuning => "tuning",
            Split::HeldOut => "held-out",
        }
    }
}

/// The group of families a task belongs to, for results by group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Group {
    /// `dim_x + dim_y ≤ 4` (and not images).
    LowDim,
    /// The digit-image tasks.
    Images,
    /// Everything else.
    HighDim,
    /// The tasks at representation scale (`scale-N-…`, [`super::SCALE_IDS`]), whatever their
    /// dimensions.
    Scale,
}

impl Group {
    /// `low-dim`, `images`, `high-dim` or `scale`.
    pub fn name(self) -> &'static str {
        match self {
            Group::LowDim => "low-dim",
            Group::Images => "images",
            Group::HighDim => "high-dim",
            Group::Scale => "scale",
        }
    }

    /// The group of a task with these dimensions (`images` for the digit tasks; `scale` is
    /// given by the `scale-` prefix, not by dimensions).
    pub fn of(dim_x: usize, dim_y: usize, images: bool) -> Self {
        if images {
            Group::Images
        } else if dim_x + dim_y <= 4 {
            Group::LowDim
        } else {
            Group::HighDim
        }
    }
}

/// The halves of `tasks` (`(id, stratum)` in suite order), by the rule of the module docs.
pub(super) fn assign<'a>(tasks: impl Iterator<Item = (&'a str, &'a str)>) -> Vec<Split> {
    let mut seen: std::collections::HashMap<&str, u64> = std::collections::HashMap::new();
    tasks
        .map(|(_, stratum)| {
            let k = seen.entry(stratum).or_insert(0);
            let half = (crate::rng::fnv1a(stratum.bytes()) + *k) % 2;
            *k += 1;
            if half == 0 { Split::Tuning } else { Split::HeldOut }
        })
        .collect()
}
