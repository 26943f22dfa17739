//! iolab's simulator: a discrete-event engine for the queueing networks that iolab
//! compiles from scenarios. The engine exchanges plain data and has no Python types;
//! the PyO3 bindings live in `bindings.rs`, compiled only with the `python` feature.

#[cfg(feature = "python")]
mod bindings;

/// The crate's version, as Cargo.toml states it.
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[cfg(test)]
mod tests {
    #[test]
    fn version_is_semver() {
        assert_eq!(super::version().split('.').count(), 3);
    }
}
