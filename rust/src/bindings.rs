//! The thin PyO3 layer: plain data in, plain data out. No engine logic lives here.
use pyo3::prelude::*;

#[pyfunction]
fn version() -> &'static str {
    crate::version()
}

#[pymodule]
fn _sim(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(version, m)?)?;
    Ok(())
}
