//! The trained candidates' race in one fold: each candidate trains through the pilot
//! ([`super::Candidates::pilot_steps`]) on the one training loop ([`Runner`]: started, advanced
//! to the pilot's end, paused), the one with the best validation objective so far is advanced
//! to the end and the others' runs are finished where they stand.

use super::TraceRow;
use super::candidates::{Candidate, CandidateKind};
use super::fold_data::{FoldData, dataset_of};
use super::scoring::{Bounds, Scoring, objective_bound};
use crate::bounds::BoundSpec;
use crate::critics::{Critic, Init};
use crate::error::Result;
use crate::optim::{Adam, AdamConfig};
use crate::rng::Stream;
use crate::train::{
    CriticTrainer, Dataset, Observer, Outcome, ProgressCounter, RunState, Runner, StepRecord, TrainStep, Validation,
    evaluate_batches,
};
use std::sync::{Arc, Mutex};

/// A trained critic with its outcome and trace.
pub(super) struct TrainedCritic {
    critic: Box<dyn Critic<f32>>,
    pub outcome: Outcome<f32>,
    pub trace: Vec<TraceRow>,
}

impl Scoring for TrainedCritic {
    fn mean_values(&mut self, seen: &Dataset, bounds: &mut Bounds, batches: &[Vec<usize>]) -> Result<Vec<(f64, f64)>> {
        evaluate_batches(self.critic.as_mut(), &self.outcome.params, bounds, &seen.x, &seen.y, batches)
    }
}

/// Trains the trained `candidates` in parallel through the pilot, or to the end when there is
/// no pilot (one candidate, or `pilot_steps = 0`). Each trains from the seed of its id whether
/// or not the others train beside it, so the order they run in changes nothing.
pub(super) fn start<'f>(
    fold: &'f FoldData<'f>,
    trainer: BoundSpec,
    candidates: &[Candidate],
    seed: u64,
) -> Result<Vec<CandidateRun<'f>>> {
    use rayon::prelude::*;
    let cfg = fold.cfg;
    let pilot = cfg.candidates.pilot_steps;
    let pilot = if candidates.len() > 1 && pilot > 0 { pilot } else { cfg.max_steps };
    let start = |c: &Candidate| -> Result<CandidateRun<'f>> {
        let mut run = CandidateRun::start(fold, trainer, c, seed)?;
        run.advance(pilot)?;
        Ok(run)
    };
    // Started last first: the default alternatives follow the configured critic and are larger
    // than it, so the longest runs start first and the shorter ones, and the untrained
    // candidates beside them, fill in. (With other settings the order may not be the best; it
    // never changes a number.)
    let mut runs: Vec<CandidateRun<'f>> = candidates.par_iter().rev().map(start).collect::<Result<_>>()?;
    runs.reverse();
    Ok(runs)
}

/// After [`start`]: keeps the run with the highest validation objective (ties go to the
/// earlier) and trains it on to the step limit. When that objective is below `floor` (an
/// untrained critic validated that high), every run ends there and no trained critic is
/// returned. Returns the kept candidate and its trained critic, and the steps taken by all.
pub(super) fn keep_best(
    fold: &FoldData,
    mut runs: Vec<CandidateRun<'_>>,
    floor: f64,
) -> Result<(Option<(Candidate, TrainedCritic)>, u64)> {
    let mut steps: u64 = runs.iter().map(|r| r.state.steps()).sum();
    let Some(best) = (0..runs.len())
        .reduce(|b, i| if runs[i].state.best_objective() > runs[b].state.best_objective() { i } else { b })
    else {
        return Ok((None, 0));
    };
    let kept = (runs[best].state.best_objective() >= floor).then(|| runs.swap_remove(best));
    for dropped in runs {
        // Ends the dropped candidates' runs, so their observers report their last steps.
        dropped.finish()?;
    }
    let Some(mut kept) = kept else { return Ok((None, steps)) };
    let before = kept.state.steps();
    kept.advance(fold.cfg.max_steps)?;
    steps += kept.state.steps() - before;
    let candidate = kept.candidate.clone();
    Ok((Some((candidate, kept.finish()?)), steps))
}

/// One candidate critic's training, which can pause after the pilot and resume.
pub(super) struct CandidateRun<'f> {
    candidate: Candidate,
    compute: crate::compute::Compute,
    model: CriticTrainer<'f, f32>,
    runner: Runner<'f>,
    state: RunState<f32>,
    trace: Arc<Mutex<Vec<TraceRow>>>,
}

impl<'f> CandidateRun<'f> {
    /// Builds `candidate` on the fold's fit rows (validated on its validation rows) and starts
    /// its run from a critic that carries no information.
    fn start(fold: &'f FoldData<'f>, trainer: BoundSpec, candidate: &Candidate, group_seed: u64) -> Result<Self> {
        let cfg = fold.cfg;
        let CandidateKind::Trained { critic: spec, weight_decay, squares } = &candidate.kind else {
            unreachable!("a trained candidate")
        };
        let seed = candidate.id.seed(group_seed);
        let data = fold.trained_data(*squares);
        let d = dataset_of(data);
        let dims = (d.x.ncols(), d.y.ncols());
        let critic = spec.build_with::<f32>(dims.0, dims.1, cfg.compute)?;
        let mut params = critic.init_params(Init::Torch, seed);
        // Start from a critic that carries no information (every bound at 0): on independent
        // data nothing trained beats it on validation, and the estimate stays at 0 instead of
        // the negative value of a critic fitted to noise.
        critic.zero_output(&mut params);
        let mut opt = Adam::new(AdamConfig { weight_decay: *weight_decay, ..cfg.adam.clone() }, params.len())?;
        opt.set_compute(cfg.compute);
        let label = trainer.build::<f32>()?.label();
        let step = TrainStep::new(critic, objective_bound(cfg, trainer)?, opt, fold.plan.batch, dims);
        let validation = fold.validation_batches(candidate.id, group_seed);
        let mut model = CriticTrainer::new(step, data, Stream::CriticInit.rng(seed), cfg.max_steps as usize)
            .with_validation(objective_bound(cfg, trainer)?, validation)?;
        let trace = Arc::new(Mutex::new(Vec::new()));
        let mut runner = Runner::new(cfg.max_steps)
            .validate(Validation { every: fold.plan.eval_every, patience: cfg.patience })
            .observe(TraceRecorder { rows: trace.clone(), fold: fold.index, label });
        if let Some(f) = fold.progress {
            runner = runner.observe(ProgressCounter::new(f, 50));
        }
        let state = cfg.compute.on_pool(|| runner.start(&mut model, params))?;
        Ok(CandidateRun { candidate: candidate.clone(), compute: cfg.compute, model, runner, state, trace })
    }

    /// Trains on until `until` steps or a stop.
    fn advance(&mut self, until: u64) -> Result<()> {
        let CandidateRun { compute, model, runner, state, .. } = self;
        compute.on_pool(|| runner.advance(model, state, until))
    }

    /// Ends the run: the critic with its best validated parameters.
    fn finish(self) -> Result<TrainedCritic> {
        let CandidateRun { model, mut runner, state, trace, .. } = self;
        let outcome = runner.finish(state)?;
        drop(runner);
        let trace = std::mem::take(&mut *trace.lock().expect("trace lock"));
        Ok(TrainedCritic { critic: model.step.critic, outcome, trace })
    }
}

/// Records training values and validation checks of one critic for the trace.
struct TraceRecorder {
    rows: Arc<Mutex<Vec<TraceRow>>>,
    fold: usize,
    label: String,
}

impl Observer for TraceRecorder {
    fn step(&mut self, r: &StepRecord) -> Result<()> {
        let (fold, bound) = (self.fold, self.label.clone());
        let row = TraceRow { fold, bound, step: r.step, train: r.value, validation: f64::NAN };
        self.rows.lock().expect("trace lock").push(row);
        Ok(())
    }
    fn validated(&mut self, step: u64, objective: f64) -> Result<()> {
        if let Some(last) = self.rows.lock().expect("trace lock").last_mut().filter(|r| r.step + 1 == step) {
            last.validation = objective;
        }
        Ok(())
    }
}
