//! `mibound._native`: the Python bindings of mibound (PyO3). The Python package `mibound`
//! (python/mibound) wraps these functions with docstrings, defaults and result classes.
//!
//! Inputs arrive as numpy arrays of float64 or float32, 1-D (one column) or 2-D (rows are
//! samples). A float64 array in Fortran (column-major) order is read in place, as the library's
//! column-major views; other layouts and float32 are copied into a float64 matrix once. The GIL
//! is released while estimating; the estimate runs on a worker thread while the calling thread
//! polls for signals (Ctrl-C), so a long estimate stops promptly with `KeyboardInterrupt`.

use mibound::bounds::BoundSpec;
use mibound::data::VarKind;
use mibound::data::kinds::{DISCRETE_MAX_LEVELS, LabelColumns, detect_kinds};
use mibound::data::rules;
use mibound::error::Error;
use mibound::estimators::classical::{
    CiTestConfig, ConditionalSpec, DEFAULT_K, GIVEN_LABEL_HINT, ROSS_DEFAULT_K, TieNoise,
};
use mibound::estimators::entry::{EstimateRequest, Features, FeaturesRequest, GivenRequest, Prepared};
use mibound::estimators::{Comparison, DEFAULT_SEED, Estimate, EstimatorSpec, Options, Settings, Unit};
use mibound::tasks::Parametric;
use mibound::train::Progress;
use nalgebra::{DMatrix, DMatrixView};
use numpy::ndarray::ArrayViewD;
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArrayDyn};
use pyo3::exceptions::{PyKeyboardInterrupt, PyMemoryError, PyOSError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// The wall time of the last `compare` call in nanoseconds (for the overhead measurement,
/// python/benchmarks/overhead.py: the time of a Python call minus this is what Python adds).
static LAST_COMPARE_NANOS: AtomicU64 = AtomicU64::new(0);

/// How often the calling thread checks for signals while an estimate runs.
const SIGNAL_POLL: Duration = Duration::from_millis(20);

/// The Python exception of a library error: bad input is a `ValueError` with the library's
/// message (the command line prints the same text after `error: `).
fn py_err(e: Error) -> PyErr {
    let msg = e.to_string();
    match e {
        Error::Shape { .. } | Error::Parameter { .. } | Error::NonFinite { .. } | Error::Unknown { .. } => {
            PyValueError::new_err(msg)
        }
        Error::Data { .. }
        | Error::Format { .. }
        | Error::Input { .. }
        | Error::VariableKind { .. }
        | Error::Singular { .. } => PyValueError::new_err(msg),
        Error::Io { .. } => PyOSError::new_err(msg),
        Error::Diverged { .. } => PyRuntimeError::new_err(msg),
        Error::Cancelled => PyKeyboardInterrupt::new_err(msg),
        Error::Memory { .. } => PyMemoryError::new_err(msg),
        // `Error` may grow variants; they are runtime errors until mapped here.
        #[allow(unreachable_patterns)]
        _ => PyRuntimeError::new_err(msg),
    }
}

/// A data matrix (rows = samples) from a numpy array: read in place when its memory already
/// is a column-major float64 matrix, copied otherwise.
enum Matrix<'a> {
    View(DMatrixView<'a, f64>),
    Owned(DMatrix<f64>),
}

impl Matrix<'_> {
    fn view(&self) -> DMatrixView<'_, f64> {
        match self {
            Matrix::View(v) => *v,
            Matrix::Owned(m) => m.as_view(),
        }
    }
}

/// `(rows, columns)` of a 1-D or 2-D array; anything else is a shape error naming `what`.
fn rows_cols(what: &str, shape: &[usize]) -> Result<(usize, usize), Error> {
    match *shape {
        [n] => Ok((n, 1)),
        [n, d] => Ok((n, d)),
        _ => Err(Error::Shape {
            what: what.into(),
            expected: "a 1-D array (one column) or a 2-D array (rows are samples)".into(),
            got: format!("{}-D array of shape {shape:?}", shape.len()),
        }),
    }
}

fn matrix_f64<'a>(what: &str, a: &ArrayViewD<'a, f64>) -> Result<Matrix<'a>, Error> {
    let (n, d) = rows_cols(what, a.shape())?;
    // Column-major memory (Fortran order, or any contiguous 1-D array) is nalgebra's layout.
    let fortran = a.ndim() == 1 || a.t().is_standard_layout();
    if fortran && let Some(s) = a.to_slice_memory_order() {
        return Ok(Matrix::View(DMatrixView::from_slice(s, n, d)));
    }
    Ok(Matrix::Owned(copy(a, n, d, |v| v)))
}

fn copy<T: Copy>(a: &ArrayViewD<'_, T>, n: usize, d: usize, f: impl Fn(T) -> f64) -> DMatrix<f64> {
    if a.ndim() == 1 {
        DMatrix::from_iterator(n, 1, a.iter().map(|&v| f(v)))
    } else {
        DMatrix::from_fn(n, d, |i, j| f(a[[i, j]]))
    }
}

/// One input array: float64 or float32 (anything else is a `TypeError`; the Python wrapper
/// converts lists and integer arrays to float64 first).
enum Input<'py> {
    F64(PyReadonlyArrayDyn<'py, f64>),
    F32(PyReadonlyArrayDyn<'py, f32>),
}

impl<'py> Input<'py> {
    fn extract(what: &str, obj: &Bound<'py, PyAny>) -> PyResult<Self> {
        if let Ok(a) = obj.extract::<PyReadonlyArrayDyn<'py, f64>>() {
            return Ok(Input::F64(a));
        }
        if let Ok(a) = obj.extract::<PyReadonlyArrayDyn<'py, f32>>() {
            return Ok(Input::F32(a));
        }
        Err(PyTypeError::new_err(format!(
            "{what}: expected a numpy array of float64 or float32, got {}",
            obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "an object".into())
        )))
    }

    fn matrix(&self, what: &str) -> Result<Matrix<'_>, Error> {
        match self {
            Input::F64(a) => matrix_f64(what, &a.as_array()),
            Input::F32(a) => {
                let a = a.as_array();
                let (n, d) = rows_cols(what, a.shape())?;
                Ok(Matrix::Owned(copy(&a, n, d, f64::from)))
            }
        }
    }
}

/// Cancels the library's run when the calling thread saw a signal, and counts the training
/// steps taken for the progress callback.
#[derive(Default)]
struct Interrupt {
    cancel: AtomicBool,
    steps: AtomicU64,
}

impl Progress for Interrupt {
    fn advance(&self, steps: u64) {
        self.steps.fetch_add(steps, Ordering::Relaxed);
    }
    fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

/// A Python callable `progress(done, total)` told the training steps taken so far, from the
/// calling thread (with the GIL) between signal checks.
struct Reporter {
    callback: Option<PyObject>,
    total: u64,
    shown: u64,
}

impl Reporter {
    fn report(&mut self, py: Python<'_>, done: u64) -> PyResult<()> {
        if let Some(cb) = &self.callback
            && done != self.shown
        {
            self.shown = done;
            cb.call1(py, (done.min(self.total), self.total))?;
        }
        Ok(())
    }
}

/// Runs `work` on a worker thread with the GIL released, checking for signals every
/// [`SIGNAL_POLL`] on the calling thread (and telling `reporter` the steps taken). A signal
/// whose handler raises (Ctrl-C's `KeyboardInterrupt`), or an exception in the progress
/// callback, cancels the run through `interrupt` and is raised once the worker has stopped. A
/// panic in the worker becomes a `RuntimeError`, never a crash.
fn run_released<T: Send>(
    py: Python<'_>,
    interrupt: &Interrupt,
    reporter: &mut Reporter,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    py.allow_threads(|| {
        std::thread::scope(|s| {
            let (done, finished) = std::sync::mpsc::channel::<()>();
            let worker = s.spawn(move || {
                let _done = done;
                work()
            });
            let mut raised = None;
            let mut poll = || {
                Python::with_gil(|py| {
                    py.check_signals()?;
                    reporter.report(py, interrupt.steps.load(Ordering::Relaxed))
                })
            };
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(SIGNAL_POLL) {
                if raised.is_none()
                    && let Err(e) = poll()
                {
                    interrupt.cancel.store(true, Ordering::Relaxed);
                    raised = Some(e);
                }
            }
            if raised.is_none()
                && let Err(e) = poll()
            {
                raised = Some(e);
            }
            let out = worker.join().map_err(|payload| {
                let what = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                PyRuntimeError::new_err(format!("mibound: internal error (please report it): {what}"))
            });
            match raised {
                Some(e) => Err(e),
                None => out,
            }
        })
    })
}

/// A Python object from JSON text (through the `json` module, so floats round-trip exactly).
fn from_json(py: Python<'_>, v: &serde_json::Value) -> PyResult<PyObject> {
    let text = serde_json::to_string(v).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    Ok(py.import("json")?.call_method1("loads", (text,))?.unbind())
}

/// A non-negative integer option; a negative one is a `ValueError` naming it.
fn count(name: &str, v: i64) -> PyResult<u64> {
    u64::try_from(v).map_err(|_| py_err(Error::param(name, v, "must not be negative")))
}

/// A seed: an integer from 0 to 2^64 − 1 (the Python wrapper draws one from a numpy
/// Generator); anything else is a `ValueError` naming it.
fn seed_of(name: &str, v: &Bound<'_, PyAny>) -> PyResult<u64> {
    v.extract::<u64>().map_err(|_| match v.extract::<i64>() {
        Ok(n) if n < 0 => py_err(Error::param(name, n, "must not be negative")),
        _ => py_err(Error::param(name, v, "must be an integer from 0 to 2^64 − 1")),
    })
}

/// The estimator names: a comma-separated string or a sequence of names.
fn estimator_specs(obj: &Bound<'_, PyAny>) -> PyResult<Vec<EstimatorSpec>> {
    let names: Vec<String> = if obj.downcast::<PyString>().is_ok() {
        vec![obj.extract::<String>()?]
    } else {
        obj.extract::<Vec<String>>()
            .map_err(|_| PyTypeError::new_err("estimators: expected a string or a sequence of strings"))?
    };
    let mut specs = Vec::new();
    for n in &names {
        specs.extend(EstimatorSpec::parse_list(n).map_err(py_err)?);
    }
    Ok(specs)
}

/// The keys of the options object, in the order of [`defaults`].
const OPTION_KEYS: [&str; 17] = [
    "estimators",
    "seed",
    "unit",
    "critic",
    "hidden",
    "embed",
    "batch",
    "steps",
    "lr",
    "weight_decay",
    "folds",
    "transform",
    "max_memory_mb",
    "drop_constant",
    "repeats",
    "discrete_x",
    "discrete_y",
];

/// The options of one call, read from the options object (a dict of [`OPTION_KEYS`]; a
/// missing key takes the library's default, an unknown one is a `ValueError`): the library's
/// request ([`EstimateRequest`]) and the unit of the result.
struct Call {
    request: EstimateRequest,
    unit: Unit,
}

impl Call {
    fn from_options(options: &Bound<'_, PyDict>) -> PyResult<Self> {
        for key in options.keys() {
            let key: String = key.extract()?;
            if !OPTION_KEYS.contains(&key.as_str()) {
                return Err(py_err(Error::Unknown { kind: "option", name: key, known: OPTION_KEYS.join(", ") }));
            }
        }
        let get = |k: &str| options.get_item(k).map(|v| v.filter(|v| !v.is_none()));
        let specs = match get("estimators")? {
            Some(e) => estimator_specs(&e)?,
            None => EstimatorSpec::defaults(),
        };
        let seed = get("seed")?.map_or(Ok(DEFAULT_SEED), |v| seed_of("seed", &v))?;
        let unit: Option<String> = get("unit")?.map(|v| v.extract()).transpose()?;
        let unit = Unit::from_options(unit.as_deref(), false).map_err(py_err)?;
        let settings = settings_of(options)?;
        let drop_constant = get("drop_constant")?.map(|v| v.extract::<bool>()).transpose()?.unwrap_or_default();
        let repeats = match get("repeats")?.map(|v| v.extract::<String>()).transpose()? {
            None => rules::RepeatPolicy::default(),
            Some(name) => rules::RepeatPolicy::parse(&name)
                .ok_or_else(|| py_err(Error::param("repeats", name, "must be 'drop' or 'keep'")))?,
        };
        let columns = |k: &str| -> PyResult<Vec<usize>> {
            let v: Vec<i64> = get(k)?.map(|v| v.extract()).transpose()?.unwrap_or_default();
            v.into_iter().map(|j| count(k, j).map(|j| j as usize)).collect()
        };
        let labels = LabelColumns { x: columns("discrete_x")?, y: columns("discrete_y")? };
        let rules = rules::Rules {
            drop_constant,
            drop_option: Some("drop_constant=True".into()),
            repeats,
            repeats_option: Some("repeats='keep'".into()),
            // Used by the library only where nothing is declared and an estimator reads numbers.
            label_hint: Some(LABEL_HINT.into()),
            ..rules::Rules::default()
        };
        let request = EstimateRequest { specs, settings, labels, rules, seed, ..EstimateRequest::default() };
        Ok(Call { request, unit })
    }
}

/// The neural settings of the options object, checked by the library's [`Options::settings`]
/// with the options named as in Python.
fn settings_of(options: &Bound<'_, PyDict>) -> PyResult<Settings> {
    let get = |k: &str| options.get_item(k).map(|v| v.filter(|v| !v.is_none()));
    let int =
        |k: &str, default: u64| -> PyResult<u64> { get(k)?.map_or(Ok(default), |v| count(k, v.extract::<i64>()?)) };
    let mut o = Options::default();
    if let Some(c) = get("critic")? {
        o.critic = c.extract()?;
    }
    if let Some(h) = get("hidden")? {
        let widths: Vec<i64> = h.extract()?;
        o.hidden = widths.into_iter().map(|w| count("hidden", w).map(|w| w as usize)).collect::<PyResult<_>>()?;
    }
    o.embed = int("embed", o.embed as u64)? as usize;
    o.batch = int("batch", o.batch as u64)? as usize;
    o.steps = int("steps", o.steps)?;
    o.folds = int("folds", o.folds as u64)? as usize;
    if let Some(v) = get("lr")? {
        o.lr = v.extract()?;
    }
    if let Some(v) = get("weight_decay")? {
        o.weight_decay = v.extract()?;
    }
    if let Some(v) = get("transform")? {
        o.transform = v.extract()?;
    }
    if let Some(v) = get("max_memory_mb")? {
        o.max_memory_mb = Some(count("max_memory_mb", v.extract::<i64>()?)?);
    }
    o.settings(str::to_string).map_err(py_err)
}

/// What `estimate` tells a user whose columns look like class labels (the command line says
/// the same with its own option names).
const LABEL_HINT: &str = "declare it (discrete_x=, discrete_y=) and use an estimator for labels (estimators='discrete', 'ross', 'mixed-ksg', or a neural bound such as 'infonce', which embeds them) or mibound.mutual_info_classif";

/// `_native.defaults()`: every option of the options object with the library's default, in
/// the order of [`OPTION_KEYS`].
#[pyfunction]
fn defaults(py: Python<'_>) -> PyResult<PyObject> {
    let o = Options::default();
    let specs: Vec<String> = EstimatorSpec::defaults().iter().map(|s| s.to_string()).collect();
    let v = serde_json::json!({
        "estimators": specs, "seed": DEFAULT_SEED, "unit": Unit::default().name(), "critic": o.critic,
        "hidden": o.hidden, "embed": o.embed, "batch": o.batch, "steps": o.steps, "lr": o.lr,
        "weight_decay": o.weight_decay, "folds": o.folds, "transform": o.transform,
        "max_memory_mb": o.max_memory_mb,
        "drop_constant": rules::Rules::default().drop_constant,
        "repeats": rules::Rules::default().repeats.name(),
        "discrete_x": LabelColumns::default().x, "discrete_y": LabelColumns::default().y,
    });
    let all = from_json(py, &v)?;
    let all = all.bind(py);
    let ordered = PyDict::new(py);
    for key in OPTION_KEYS {
        ordered.set_item(key, all.get_item(key)?)?;
    }
    Ok(ordered.into_any().unbind())
}

/// How the user knows the columns of one input: their names (a DataFrame's), and the levels of
/// those of text read as categories (in the order of their codes), for messages.
#[derive(Default)]
struct Names {
    names: Option<Vec<String>>,
    levels: Option<Vec<Option<Vec<String>>>>,
}

impl Names {
    fn input<'a>(&self, m: DMatrixView<'a, f64>) -> rules::Input<'a> {
        let input = match &self.names {
            Some(n) => rules::Input::named(m, n),
            None => rules::Input::new(m),
        };
        input.with_levels(self.levels.clone().unwrap_or_default())
    }
}

/// What the rules said, for the Python result: `notes` (code and message) and the names of the
/// columns used.
fn rules_json(c: &rules::Checked) -> serde_json::Value {
    let names = |cols: &[rules::Column]| cols.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
    serde_json::json!({"notes": notes_json(&c.notes), "x_columns": names(&c.x_columns), "y_columns": names(&c.y_columns)})
}

/// The rules' notes as JSON objects (`code`, `message`).
fn notes_json(notes: &[rules::Note]) -> Vec<serde_json::Value> {
    notes.iter().map(|n| serde_json::json!({"code": n.code(), "message": n.to_string()})).collect()
}

/// Runs `work` on the request prepared by the library (the data rules, the labels, the
/// settings checked, `auto` resolved: [`EstimateRequest::prepare`]) with the GIL released,
/// Ctrl-C and progress (see [`run_released`]) over [`Prepared::steps`].
fn run_on<T: Send>(
    py: Python<'_>,
    (x, y): (&Bound<'_, PyAny>, &Bound<'_, PyAny>),
    names: (Names, Names),
    request: &EstimateRequest,
    progress: Option<PyObject>,
    work: impl Fn(&Prepared<'_>, &Interrupt) -> mibound::error::Result<T> + Sync,
) -> PyResult<(T, serde_json::Value)> {
    let (xi, yi) = (Input::extract("x", x)?, Input::extract("y", y)?);
    let (xm, ym) = (xi.matrix("x").map_err(py_err)?, yi.matrix("y").map_err(py_err)?);
    let (ix, iy) = (names.0.input(xm.view()), names.1.input(ym.view()));
    let prepared = request.prepare(&ix, &iy).map_err(py_err)?;
    let mut reporter = Reporter { callback: progress, total: prepared.steps(), shown: u64::MAX };
    let interrupt = Interrupt::default();
    let out = run_released(py, &interrupt, &mut reporter, || {
        let started = std::time::Instant::now();
        let r = work(&prepared, &interrupt);
        LAST_COMPARE_NANOS.store(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        r
    })?
    .map_err(py_err)?;
    Ok((out, rules_json(&prepared.checked)))
}

/// Adds the rules' fields (`notes`, `x_columns`, `y_columns`) to a JSON object.
fn with_rules(mut v: serde_json::Value, r: serde_json::Value) -> serde_json::Value {
    if let (Some(obj), serde_json::Value::Object(extra)) = (v.as_object_mut(), r) {
        obj.extend(extra);
    }
    v
}

/// `mibound.estimate`: every estimator of the options on `x`, `y`, as `mibound estimate
/// --json` reports it (a dict), with the data rules' `notes` and the columns used; with
/// `selfcheck`, the headline's self-consistency checks too (`mibound estimate --selfcheck`).
#[pyfunction]
#[pyo3(signature = (x, y, options, x_names=None, y_names=None, progress=None, selfcheck=false, x_levels=None, y_levels=None))]
#[allow(clippy::too_many_arguments)] // the Python signature: data, options, names, progress, one flag, levels
fn estimate(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    y: &Bound<'_, PyAny>,
    options: &Bound<'_, PyDict>,
    x_names: Option<Vec<String>>,
    y_names: Option<Vec<String>>,
    progress: Option<PyObject>,
    selfcheck: bool,
    x_levels: Option<Vec<Option<Vec<String>>>>,
    y_levels: Option<Vec<Option<Vec<String>>>>,
) -> PyResult<PyObject> {
    let mut call = Call::from_options(options)?;
    call.request.selfcheck = selfcheck;
    let names = (Names { names: x_names, levels: x_levels }, Names { names: y_names, levels: y_levels });
    let (c, r) = run_on(py, (x, y), names, &call.request, progress, |p, i| p.compare(Some(i as &dyn Progress)))?;
    let c: Comparison = c;
    from_json(py, &with_rules(c.to_json(call.unit).map_err(py_err)?, r))
}

/// `mibound.MutualInformation` and the bmi adapter: one estimator alone (the options'
/// `estimators` must name exactly one), without the comparison's permutation test. Returns
/// the estimate as `estimate` reports each of its estimates, with `n_samples`, `dim_x`,
/// `dim_y`, `unit`, the rules' `notes` and the columns used.
#[pyfunction]
#[pyo3(signature = (x, y, options, x_names=None, y_names=None, progress=None, x_levels=None, y_levels=None))]
#[allow(clippy::too_many_arguments)] // the Python signature: data, options, names, progress, levels
fn estimate_one(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    y: &Bound<'_, PyAny>,
    options: &Bound<'_, PyDict>,
    x_names: Option<Vec<String>>,
    y_names: Option<Vec<String>>,
    progress: Option<PyObject>,
    x_levels: Option<Vec<Option<Vec<String>>>>,
    y_levels: Option<Vec<Option<Vec<String>>>>,
) -> PyResult<PyObject> {
    let call = Call::from_options(options)?;
    // One estimator named, checked before the data are read.
    call.request.single().map_err(py_err)?;
    let names = (Names { names: x_names, levels: x_levels }, Names { names: y_names, levels: y_levels });
    let (e, r) = run_on(py, (x, y), names, &call.request, progress, |p, i| p.single(Some(i as &dyn Progress)))?;
    let e: Estimate = e;
    let mut v = serde_json::to_value(&e).map_err(|err| PyRuntimeError::new_err(err.to_string()))?;
    let unit = call.unit;
    if let Some(obj) = v.as_object_mut() {
        obj.insert(
            "in_unit".into(),
            serde_json::json!({"value": unit.convert(e.value), "low": unit.convert(e.interval.low), "high": unit.convert(e.interval.high)}),
        );
        obj.insert("unit".into(), unit.name().into());
    }
    from_json(py, &with_rules(v, r))
}

/// `mibound.tasks()`: the task suite as `mibound tasks --json` lists it (without the
/// parametric tasks, which `sample` reaches with `dim` and `mi`).
#[pyfunction]
fn tasks(py: Python<'_>) -> PyResult<PyObject> {
    let list = mibound::tasks::catalogue().map_err(py_err)?;
    let v = serde_json::to_value(&list).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    from_json(py, &v)
}

/// A row-major float64 numpy array from a matrix.
fn to_numpy<'py>(py: Python<'py>, m: &DMatrix<f64>) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let rows: Vec<Vec<f64>> = m.row_iter().map(|r| r.iter().copied().collect()).collect();
    if m.nrows() == 0 {
        return Ok(PyArray2::zeros(py, [0, m.ncols()], false));
    }
    PyArray2::from_vec2(py, &rows).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// Two float64 arrays: `x` and `y`.
type Pair<'py> = (Bound<'py, PyArray2<f64>>, Bound<'py, PyArray2<f64>>);

/// `mibound.sample`: `n` rows of a task, `(x, y)` as float64 arrays; a task-suite id, or a
/// parametric task (`gaussian`, `cubic`, `asinh-cubic`) at `dim` and `mi`.
#[pyfunction]
#[pyo3(signature = (task, n, seed, dim, mi))]
fn sample<'py>(
    py: Python<'py>,
    task: &str,
    n: i64,
    seed: &Bound<'py, PyAny>,
    dim: i64,
    mi: f64,
) -> PyResult<Pair<'py>> {
    let n = count("n", n)? as usize;
    let seed = seed_of("seed", seed)?;
    if n == 0 {
        return Err(py_err(Error::param("n", 0, "must be at least 1")));
    }
    // `dim` only matters (and is only checked) for a parametric task.
    let dim = if Parametric::is_name(task) { count("dim", dim)? as usize } else { 0 };
    let t = mibound::tasks::named(task, dim, mi).map_err(py_err)?;
    let (x, y) = py.allow_threads(|| t.draw(n, seed)).map_err(py_err)?;
    Ok((to_numpy(py, &x)?, to_numpy(py, &y)?))
}

/// A score matrix in the library's orientation (row i = x sample, column j = y sample).
fn scores<T: mibound::real::Real + numpy::Element>(a: &PyReadonlyArrayDyn<'_, T>) -> Result<DMatrix<T>, Error> {
    let a = a.as_array();
    match *a.shape() {
        [r, c] => Ok(DMatrix::from_fn(r, c, |i, j| a[[i, j]])),
        _ => Err(Error::Shape {
            what: "score matrix".into(),
            expected: "N × M with M ≥ N ≥ 2".into(),
            got: format!("{}-D array of shape {:?}", a.ndim(), a.shape()),
        }),
    }
}

/// The bound's value, training objective and `∂ objective / ∂S` (in the dtype of `S`).
fn evaluate<'py, T: mibound::real::Real + numpy::Element>(
    py: Python<'py>,
    spec: &BoundSpec,
    s: &PyReadonlyArrayDyn<'py, T>,
) -> PyResult<(f64, f64, Bound<'py, PyAny>)> {
    let m = scores(s).map_err(py_err)?;
    let mut bound = spec.build::<T>().map_err(py_err)?;
    let mut grad = DMatrix::<T>::zeros(m.nrows(), m.ncols());
    let v = bound.evaluate(&m, &mut grad).map_err(py_err)?;
    let shape = [grad.nrows(), grad.ncols()];
    // Column-major gradient → row-major array.
    let flat: Vec<T> = grad.transpose().as_slice().to_vec();
    let g = numpy::PyArray1::from_vec(py, flat).reshape(shape)?;
    Ok((v.value, v.objective, g.into_any()))
}

/// `mibound.bounds.evaluate(name, S)`: a bound on one score matrix.
#[pyfunction]
fn bound<'py>(py: Python<'py>, name: &str, s: &Bound<'py, PyAny>) -> PyResult<(f64, f64, Bound<'py, PyAny>)> {
    let spec = BoundSpec::parse(name).map_err(py_err)?;
    match Input::extract("S", s)? {
        Input::F64(a) => evaluate(py, &spec, &a),
        Input::F32(a) => evaluate(py, &spec, &a),
    }
}

/// A column of numbers from a 1-D array (or an `n × 1` one), named `what` in errors.
fn column_vec(what: &str, obj: &Bound<'_, PyAny>) -> PyResult<Vec<f64>> {
    let input = Input::extract(what, obj)?;
    let m = input.matrix(what).map_err(py_err)?;
    if m.view().ncols() != 1 {
        return Err(py_err(Error::Shape {
            what: what.into(),
            expected: "one column (a 1-D array)".into(),
            got: format!("{} columns", m.view().ncols()),
        }));
    }
    Ok(m.view().column(0).iter().copied().collect())
}

/// Runs `work` with the GIL released and Ctrl-C checked (no training steps to report).
fn released<T: Send>(py: Python<'_>, work: impl FnOnce() -> mibound::error::Result<T> + Send) -> PyResult<T> {
    let mut reporter = Reporter { callback: None, total: 0, shown: u64::MAX };
    run_released(py, &Interrupt::default(), &mut reporter, work)?.map_err(py_err)
}

/// `discrete_features="auto"`: the library's detection of label-like columns of `x` (whole
/// numbers, at most `DISCRETE_MAX_LEVELS` values) — `(discrete mask, notes)`, one note per
/// column assumed discrete, naming it by `x_names` when given. The columns `labels` (of text
/// or pandas categories, coded) are labels by nature: neither detected nor noted.
#[pyfunction]
#[pyo3(signature = (x, x_names=None, labels=None))]
fn column_kinds(
    x: &Bound<'_, PyAny>,
    x_names: Option<Vec<String>>,
    labels: Option<Vec<usize>>,
) -> PyResult<(Vec<bool>, Vec<String>)> {
    let input = Input::extract("X", x)?;
    let m = input.matrix("X").map_err(py_err)?;
    let labels = labels.unwrap_or_default();
    let declared: Vec<Option<VarKind>> =
        (0..m.view().ncols()).map(|j| labels.contains(&j).then_some(VarKind::Discrete)).collect();
    let (kinds, mut notes) = detect_kinds(m.view(), "X", &declared, DISCRETE_MAX_LEVELS);
    for n in &mut notes {
        if let Some(name) = x_names.as_ref().and_then(|names| names.get(n.column)) {
            n.name = name.clone();
        }
    }
    let notes = notes.iter().map(|n| format!("{n} (pass discrete_features to declare the kinds)")).collect();
    Ok((kinds.iter().map(|&k| k == VarKind::Discrete).collect(), notes))
}

/// The request of Python's scikit-learn functions: every column's kind declared (`discrete`;
/// "auto" is [`column_kinds`]'s, made before), constant columns kept (scikit-learn reads their
/// MI as 0), copies of rows left out as every surface leaves them out, the noise draws given
/// for every row (those of the rows kept are read).
fn sklearn_request(discrete: &[bool], target: Option<VarKind>, k: i64, noise: TieNoise) -> PyResult<FeaturesRequest> {
    let kind = |d: bool| if d { VarKind::Discrete } else { VarKind::Continuous };
    Ok(FeaturesRequest {
        rules: rules::Rules { keep_constant: true, ..rules::Rules::default() },
        kinds: discrete.iter().map(|&d| Some(kind(d))).collect(),
        detect: false,
        target,
        k: count("n_neighbors", k)? as usize,
        noise,
        origin: Default::default(),
    })
}

/// The sentences of warnings and notes, for Python.
type Said = (Vec<String>, Vec<String>);

/// A result with the sentences of its warnings and of the data rules' notes.
type WithSaid<T> = (T, Vec<String>, Vec<String>);

fn said(f: &Features) -> Said {
    (f.warnings.iter().map(|w| w.to_string()).collect(), f.checked.notes.iter().map(|n| n.to_string()).collect())
}

/// `mibound.mutual_info_regression` / `mutual_info_classif`: the library's per-feature MI
/// ([`FeaturesRequest::features`]: the data rules, then scikit-learn's estimators) of each
/// column of `x` (kinds `discrete`) against `y`, with the tie-breaking noise draws handed over
/// (`noise_x`: rows × continuous columns; `noise_y`: one per row for a continuous `y`), in
/// nats, clipped at 0; and the sentences of the warnings about them and of the data rules'
/// notes (columns named by `x_names`).
#[pyfunction]
#[pyo3(signature = (x, y, discrete, y_discrete, k, noise_x, noise_y=None, x_names=None))]
#[allow(clippy::too_many_arguments)]
fn feature_mi<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    y: &Bound<'py, PyAny>,
    discrete: Vec<bool>,
    y_discrete: bool,
    k: i64,
    noise_x: &Bound<'py, PyAny>,
    noise_y: Option<&Bound<'py, PyAny>>,
    x_names: Option<Vec<String>>,
) -> PyResult<WithSaid<Bound<'py, PyArray1<f64>>>> {
    let input = Input::extract("X", x)?;
    let m = input.matrix("X").map_err(py_err)?;
    let yv = column_vec("y", y)?;
    let ex = Input::extract("noise", noise_x)?.matrix("noise").map_err(py_err)?.view().into_owned();
    let ey = noise_y.map(|e| column_vec("noise", e)).transpose()?.unwrap_or_default();
    let y_kind = if y_discrete { VarKind::Discrete } else { VarKind::Continuous };
    let request = sklearn_request(&discrete, Some(y_kind), k, TieNoise::Given { x: ex, y: ey })?;
    let ym = DMatrix::from_column_slice(yv.len(), 1, &yv);
    let (ix, iy) = (Names { names: x_names, levels: None }.input(m.view()), rules::Input::new(ym.as_view()));
    let f = released(py, || request.features(&ix, &iy))?;
    let (warnings, notes) = said(&f);
    Ok((PyArray1::from_vec(py, f.mi.as_slice().to_vec()), warnings, notes))
}

/// `mibound.mi_matrix`: the library's symmetric matrix of MI between all columns of `x`
/// ([`FeaturesRequest::matrix`]; kinds `discrete`, noise draws `noise_x`: rows × continuous
/// columns), in nats, NaN on the diagonal; and the sentences of the warnings about it and of
/// the data rules' notes (columns named by `x_names`).
#[pyfunction]
#[pyo3(signature = (x, discrete, k, noise_x, x_names=None))]
fn mi_matrix<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    discrete: Vec<bool>,
    k: i64,
    noise_x: &Bound<'py, PyAny>,
    x_names: Option<Vec<String>>,
) -> PyResult<WithSaid<Bound<'py, PyArray2<f64>>>> {
    let input = Input::extract("X", x)?;
    let m = input.matrix("X").map_err(py_err)?;
    let ex = Input::extract("noise", noise_x)?.matrix("noise").map_err(py_err)?.view().into_owned();
    let request = sklearn_request(&discrete, None, k, TieNoise::Given { x: ex, y: Vec::new() })?;
    let table = Names { names: x_names, levels: None }.input(m.view());
    let f = released(py, || request.matrix(&table))?;
    let (warnings, notes) = said(&f);
    Ok((to_numpy(py, &f.mi)?, warnings, notes))
}

/// The three matrices of a conditional call.
fn xyz<'a>(inputs: &'a [Input<'a>; 3]) -> PyResult<[Matrix<'a>; 3]> {
    let m = |i: usize, what: &str| inputs[i].matrix(what).map_err(py_err);
    Ok([m(0, "x")?, m(1, "y")?, m(2, "z")?])
}

/// `mibound.conditional_mi`: the Frenzel–Pompe estimate of `I(X; Y | Z)` in nats with `k`
/// neighbours (the library's `ConditionalEstimator`, columns standardised, seeded
/// tie-breaking noise), without an interval.
#[pyfunction]
#[pyo3(signature = (x, y, z, k, seed))]
fn conditional_mi(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    y: &Bound<'_, PyAny>,
    z: &Bound<'_, PyAny>,
    k: i64,
    seed: &Bound<'_, PyAny>,
) -> PyResult<f64> {
    let k = count("n_neighbors", k)? as usize;
    let seed = seed_of("random_state", seed)?;
    let inputs = [Input::extract("x", x)?, Input::extract("y", y)?, Input::extract("z", z)?];
    let [xm, ym, zm] = xyz(&inputs)?;
    let (xv, yv, zv) = (xm.view(), ym.view(), zm.view());
    released(py, || {
        let mut est = ConditionalSpec::Ksg { k }.build()?;
        est.subsamples = 0;
        Ok(est.estimate(xv, yv, zv, seed)?.value)
    })
}

/// `mibound.conditional_test`: `mibound estimate --given` on arrays, through the same entry
/// point ([`GivenRequest`]): the data rules for x, y and z, each conditional estimator of the
/// options' `estimators` (`auto`: the library's) with the options' settings, its interval and
/// Runge's local permutation test (`permutations`, `k_perm`; default: the library's), as a
/// dict of the command line's JSON with `dim_z`, the rules' notes and the columns used.
#[pyfunction]
#[pyo3(signature = (x, y, z, options, permutations=None, k_perm=None, x_names=None, y_names=None, z_names=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn conditional_test(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    y: &Bound<'_, PyAny>,
    z: &Bound<'_, PyAny>,
    options: &Bound<'_, PyDict>,
    permutations: Option<i64>,
    k_perm: Option<i64>,
    x_names: Option<Vec<String>>,
    y_names: Option<Vec<String>>,
    z_names: Option<Vec<String>>,
    progress: Option<PyObject>,
) -> PyResult<PyObject> {
    let call = Call::from_options(options)?;
    let EstimateRequest { specs, settings, rules, seed, .. } = call.request;
    let mut test = CiTestConfig::default();
    if let Some(p) = permutations {
        test.permutations = count("permutations", p)? as usize;
    }
    if let Some(k) = k_perm {
        test.k_perm = count("k_perm", k)? as usize;
    }
    let rules = rules::Rules { label_hint: Some(GIVEN_LABEL_HINT.into()), ..rules };
    let request = GivenRequest { specs, settings, test, rules, seed, origin: Default::default() };
    let inputs = [Input::extract("x", x)?, Input::extract("y", y)?, Input::extract("z", z)?];
    let [xm, ym, zm] = xyz(&inputs)?;
    let named = |n: Option<Vec<String>>| Names { names: n, levels: None };
    let (ix, iy, iz) =
        (named(x_names).input(xm.view()), named(y_names).input(ym.view()), named(z_names).input(zm.view()));
    let prepared = request.prepare(&ix, &iy, &iz).map_err(py_err)?;
    let mut reporter = Reporter { callback: progress, total: prepared.steps(), shown: u64::MAX };
    let interrupt = Interrupt::default();
    let c = run_released(py, &interrupt, &mut reporter, || prepared.compare(Some(&interrupt as &dyn Progress)))?
        .map_err(py_err)?;
    let mut notes = notes_json(&prepared.checked.notes);
    notes.extend(notes_json(&prepared.notes));
    let names = |cols: &[rules::Column]| cols.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
    let extra = serde_json::json!({
        "notes": notes,
        "x_columns": names(&prepared.checked.x_columns),
        "y_columns": names(&prepared.checked.y_columns),
        "z_columns": names(&prepared.z_columns),
    });
    from_json(py, &with_rules(c.to_json(call.unit).map_err(py_err)?, extra))
}

/// Raises the exception that the library error of kind `kind` becomes (for the tests of the
/// mapping: not every error can be provoked through the Python API).
#[pyfunction]
fn _raise_error(kind: &str) -> PyResult<()> {
    let e = match kind {
        "shape" => Error::Shape { what: "x".into(), expected: "a".into(), got: "b".into() },
        "parameter" => Error::param("batch", 1, "must be at least 2"),
        "non_finite" => Error::NonFinite { what: "x".into(), row: 1, col: 2, value: f64::NAN },
        "unknown" => Error::Unknown { kind: "estimator", name: "foo".into(), known: "infonce".into() },
        "diverged" => Error::Diverged { step: 3, what: "loss NaN".into() },
        "data" => Error::Data { path: "data.csv".into(), msg: "row 2: not a number".into() },
        "io" => Error::Io { path: "data.csv".into(), source: std::io::Error::other("disk on fire") },
        "format" => Error::Format { context: "checkpoint".into(), msg: "bad JSON".into() },
        "cancelled" => Error::Cancelled,
        other => return Err(PyValueError::new_err(format!("no error kind '{other}'"))),
    };
    Err(py_err(e))
}

/// Seconds the library's `compare` took in the last `estimate` (the rest of the call is the
/// bindings' overhead).
#[pyfunction]
fn _last_compare_seconds() -> f64 {
    LAST_COMPARE_NANOS.load(Ordering::Relaxed) as f64 * 1e-9
}

/// The native part of the `mibound` package.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(estimate, m)?)?;
    m.add_function(wrap_pyfunction!(estimate_one, m)?)?;
    m.add_function(wrap_pyfunction!(defaults, m)?)?;
    m.add_function(wrap_pyfunction!(tasks, m)?)?;
    m.add_function(wrap_pyfunction!(sample, m)?)?;
    m.add_function(wrap_pyfunction!(bound, m)?)?;
    m.add_function(wrap_pyfunction!(column_kinds, m)?)?;
    m.add_function(wrap_pyfunction!(feature_mi, m)?)?;
    m.add_function(wrap_pyfunction!(mi_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(conditional_mi, m)?)?;
    m.add_function(wrap_pyfunction!(conditional_test, m)?)?;
    m.add_function(wrap_pyfunction!(_raise_error, m)?)?;
    m.add_function(wrap_pyfunction!(_last_compare_seconds, m)?)?;
    m.add("ESTIMATORS", EstimatorSpec::NAMES)?;
    m.add("BOUNDS", BoundSpec::NAMES)?;
    m.add("PARAMETRIC_TASKS", Parametric::CATALOGUE.iter().map(|c| c.0).collect::<Vec<_>>())?;
    m.add("PARAMETRIC_DIM", Parametric::DEFAULT_DIM)?;
    m.add("PARAMETRIC_MI", Parametric::DEFAULT_MI)?;
    m.add("FEATURE_NEIGHBORS", ROSS_DEFAULT_K)?;
    m.add("CONDITIONAL_NEIGHBORS", DEFAULT_K)?;
    m.add("DEFAULT_SEED", DEFAULT_SEED)?;
    m.add("TEXT_ADVICE", mibound::data::files::TEXT_ADVICE)?;
    m.add("GIVEN_TEXT_ADVICE", mibound::data::files::GIVEN_TEXT_ADVICE)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
