//! The thin PyO3 layer: JSON text in, JSON text out. No engine logic lives here.
//!
//! Bad input raises `ValueError(field, message)`. Simulating releases the GIL.
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use crate::{prepare, to_json, Control, Prepared, Report, SimError};

fn value_error(e: SimError) -> PyErr {
    PyValueError::new_err((e.field, e.message))
}

#[pyfunction]
fn version() -> &'static str {
    crate::version()
}

/// Runs a request to the end and returns the report as JSON text.
#[pyfunction]
fn simulate(py: Python<'_>, request: &str) -> PyResult<String> {
    let prepared = prepare(request).map_err(value_error)?;
    Ok(py.allow_threads(|| {
        let control = Control::new(prepared.replications as usize);
        to_json(&prepared.run(&control))
    }))
}

/// A simulation running in a background thread, with progress and cancellation.
#[pyclass(frozen, module = "iolab._sim")]
struct Simulation {
    prepared: Arc<Prepared>,
    control: Arc<Control>,
    done: Arc<(Mutex<bool>, Condvar)>,
    handle: Mutex<Option<JoinHandle<Report>>>,
    result: Mutex<Option<String>>,
}

#[pymethods]
impl Simulation {
    #[new]
    fn new(request: &str) -> PyResult<Self> {
        let prepared = prepare(request).map_err(value_error)?;
        let control = Control::new(prepared.replications as usize);
        Ok(Simulation {
            prepared: Arc::new(prepared),
            control: Arc::new(control),
            done: Arc::new((Mutex::new(false), Condvar::new())),
            handle: Mutex::new(None),
            result: Mutex::new(None),
        })
    }

    fn start(&self) -> PyResult<()> {
        let mut handle = self.handle.lock().unwrap();
        if handle.is_some() || self.result.lock().unwrap().is_some() {
            return Err(PyRuntimeError::new_err("the simulation was already started"));
        }
        let (prepared, control, done) = (self.prepared.clone(), self.control.clone(), self.done.clone());
        *handle = Some(std::thread::spawn(move || {
            let report = prepared.run(&control);
            let (lock, cv) = &*done;
            *lock.lock().unwrap() = true;
            cv.notify_all();
            report
        }));
        Ok(())
    }

    /// Share of the work done, 0 to 1.
    fn progress(&self) -> f64 {
        self.control.fraction()
    }

    /// IOs measured so far, over all replications.
    fn completed(&self) -> u64 {
        self.control.ios.load(Ordering::Relaxed)
    }

    fn cancel(&self) {
        self.control.cancel.store(true, Ordering::Relaxed);
    }

    /// Waits up to `timeout` seconds; True when the simulation has finished.
    fn wait(&self, py: Python<'_>, timeout: f64) -> bool {
        let done = self.done.clone();
        py.allow_threads(move || {
            let (lock, cv) = &*done;
            let finished = lock.lock().unwrap();
            let (finished, _) = cv
                .wait_timeout_while(finished, Duration::from_secs_f64(timeout.clamp(0.0, 3600.0)), |d| !*d)
                .unwrap();
            *finished
        })
    }

    /// Waits for the end and returns the report as JSON text.
    fn result(&self, py: Python<'_>) -> PyResult<String> {
        if let Some(r) = self.result.lock().unwrap().as_ref() {
            return Ok(r.clone());
        }
        let handle = self
            .handle
            .lock()
            .unwrap()
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("the simulation was not started"))?;
        let json = py
            .allow_threads(move || handle.join().map(|report| to_json(&report)))
            .map_err(|_| PyRuntimeError::new_err("the simulator failed"))?;
        *self.result.lock().unwrap() = Some(json.clone());
        Ok(json)
    }
}

impl Drop for Simulation {
    /// A simulation nobody can ask for any more stops (its thread ends on its own).
    fn drop(&mut self) {
        self.control.cancel.store(true, Ordering::Relaxed);
    }
}

#[pymodule]
fn _sim(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_class::<Simulation>()?;
    Ok(())
}
