//! `mibound._native`: the Python bindings of mibound (PyO3). The Python package `mibound`
//! (python/mibound) wraps these functions with docstrings, defaults and result classes.
//!
//! Inputs arrive as numpy arrays of float64 or float32, 1-D (one column) or 2-D (rows are
//! samples). A float64 array in Fortran (column-major) order is read in place, as the library's
//! column-major views; other layouts and float32 are copied into a float64 matrix once. The GIL
//! is released while estimating; the estimate runs on a worker thread while the calling thread
//! polls for signals (Ctrl-C), so a long estimate stops promptly with `KeyboardInterrupt`.

use mibound::bounds::BoundSpec;
use mibound::data::{Task, rng};
use mibound::error::Error;
use mibound::estimators::{Comparison, EstimatorSpec, Options, Unit, compare};
use mibound::train::Progress;
use nalgebra::{DMatrix, DMatrixView};
use numpy::ndarray::ArrayViewD;
use numpy::{PyArray2, PyArrayMethods, PyReadonlyArrayDyn};
use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;
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
        Error::Data { .. } | Error::Format { .. } => PyValueError::new_err(msg),
        Error::Io { .. } => PyOSError::new_err(msg),
        Error::Diverged { .. } => PyRuntimeError::new_err(msg),
        Error::Cancelled => PyKeyboardInterrupt::new_err(msg),
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

/// Cancels the library's run when the calling thread saw a signal.
#[derive(Default)]
struct Interrupt {
    cancel: AtomicBool,
}

impl Progress for Interrupt {
    fn advance(&self, _steps: u64) {}
    fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

/// Runs `work` on a worker thread with the GIL released, checking for signals every
/// [`SIGNAL_POLL`] on the calling thread. A signal whose handler raises (Ctrl-C's
/// `KeyboardInterrupt`) cancels the run through `interrupt` and is raised once the worker has
/// stopped. A panic in the worker becomes a `RuntimeError`, never a crash.
fn run_released<T: Send>(py: Python<'_>, interrupt: &Interrupt, work: impl FnOnce() -> T + Send) -> PyResult<T> {
    py.allow_threads(|| {
        std::thread::scope(|s| {
            let (done, finished) = std::sync::mpsc::channel::<()>();
            let worker = s.spawn(move || {
                let _done = done;
                work()
            });
            let mut raised = None;
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(SIGNAL_POLL) {
                if raised.is_none()
                    && let Err(e) = Python::with_gil(|py| py.check_signals())
                {
                    interrupt.cancel.store(true, Ordering::Relaxed);
                    raised = Some(e);
                }
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

/// The estimator names: a comma-separated string or a sequence of names.
fn estimator_specs(obj: &Bound<'_, PyAny>) -> PyResult<Vec<EstimatorSpec>> {
    let names: Vec<String> = if let Ok(s) = obj.downcast::<PyString>() {
        vec![s.to_str()?.to_string()]
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

/// `mibound.estimate`: every estimator of `estimators` on `x`, `y`, as `mibound estimate
/// --json` reports it (a dict).
#[pyfunction]
#[pyo3(signature = (x, y, estimators, seed, unit, critic=None, hidden=None, embed=None, batch=None, steps=None, lr=None, weight_decay=None, folds=None, transform=None))]
#[allow(clippy::too_many_arguments)]
fn estimate(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    y: &Bound<'_, PyAny>,
    estimators: &Bound<'_, PyAny>,
    seed: i64,
    unit: &str,
    critic: Option<String>,
    hidden: Option<Vec<i64>>,
    embed: Option<i64>,
    batch: Option<i64>,
    steps: Option<i64>,
    lr: Option<f64>,
    weight_decay: Option<f64>,
    folds: Option<i64>,
    transform: Option<String>,
) -> PyResult<PyObject> {
    let specs = estimator_specs(estimators)?;
    let seed = count("seed", seed)?;
    let unit = Unit::from_options(Some(unit), false).map_err(py_err)?;
    let mut o = Options::default();
    o.critic = critic.unwrap_or(o.critic);
    if let Some(h) = hidden {
        o.hidden = h.into_iter().map(|w| count("hidden", w).map(|w| w as usize)).collect::<PyResult<_>>()?;
    }
    o.embed = embed.map_or(Ok(o.embed as u64), |v| count("embed", v))? as usize;
    o.batch = batch.map_or(Ok(o.batch as u64), |v| count("batch", v))? as usize;
    o.steps = steps.map_or(Ok(o.steps), |v| count("steps", v))?;
    o.lr = lr.unwrap_or(o.lr);
    o.weight_decay = weight_decay.unwrap_or(o.weight_decay);
    o.folds = folds.map_or(Ok(o.folds as u64), |v| count("folds", v))? as usize;
    o.transform = transform.unwrap_or(o.transform);
    let settings = o.settings(str::to_string).map_err(py_err)?;
    let (xi, yi) = (Input::extract("x", x)?, Input::extract("y", y)?);
    let (xm, ym) = (xi.matrix("x").map_err(py_err)?, yi.matrix("y").map_err(py_err)?);
    let (xv, yv) = (xm.view(), ym.view());
    let interrupt = Interrupt::default();
    let run = |p: &Interrupt| {
        let started = std::time::Instant::now();
        let c = compare(&specs, &settings, xv, yv, seed, Some(p as &dyn Progress));
        LAST_COMPARE_NANOS.store(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        c
    };
    let c: Comparison = run_released(py, &interrupt, || run(&interrupt))?.map_err(py_err)?;
    from_json(py, &c.to_json(unit).map_err(py_err)?)
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
fn sample<'py>(py: Python<'py>, task: &str, n: i64, seed: i64, dim: i64, mi: f64) -> PyResult<Pair<'py>> {
    let n = count("n", n)? as usize;
    let seed = count("seed", seed)?;
    if n == 0 {
        return Err(py_err(Error::param("n", 0, "must be at least 1")));
    }
    let (x, y) = if Task::CATALOGUE.iter().any(|c| c.0 == task) {
        let s = Task::parse(task, count("dim", dim)? as usize).and_then(|t| t.at_mi(mi)).map_err(py_err)?;
        s.sample(n, &mut rng(seed))
    } else {
        let t = mibound::tasks::get(task).map_err(py_err)?;
        py.allow_threads(|| t.draw(n, seed)).map_err(py_err)?
    };
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
    m.add_function(wrap_pyfunction!(tasks, m)?)?;
    m.add_function(wrap_pyfunction!(sample, m)?)?;
    m.add_function(wrap_pyfunction!(bound, m)?)?;
    m.add_function(wrap_pyfunction!(_raise_error, m)?)?;
    m.add_function(wrap_pyfunction!(_last_compare_seconds, m)?)?;
    m.add("ESTIMATORS", EstimatorSpec::NAMES)?;
    m.add("BOUNDS", BoundSpec::NAMES)?;
    m.add("PARAMETRIC_TASKS", Task::CATALOGUE.iter().map(|c| c.0).collect::<Vec<_>>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
