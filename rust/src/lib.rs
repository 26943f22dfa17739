//! iolab's simulator: a discrete-event engine for the queueing networks that iolab
//! compiles from scenarios. The engine exchanges plain data and has no Python types;
//! the PyO3 bindings live in `bindings.rs`, compiled only with the `python` feature.
//!
//! Use: [`prepare`] a JSON request (`{"network": ..., "options": ...}`), then
//! [`Prepared::run`] it with a [`Control`] (cancel flag, progress); or [`simulate`] in one go.

pub mod cache;
pub mod cap;
pub mod control;
pub mod defs;
pub mod engine;
pub mod error;
pub mod histogram;
pub(crate) mod index;
pub mod input;
pub mod load;
pub mod program;
pub mod queue;
pub mod report;
pub mod route;
pub mod rng;
pub mod series;
pub mod slots;
pub mod time;

#[cfg(feature = "python")]
mod bindings;

use std::sync::atomic::Ordering;

pub use engine::{Control, Limits, Stop};
pub use error::SimError;
pub use report::Report;

/// Most replications one request may ask for.
pub const MAX_REPLICATIONS: u32 = 1000;

/// The crate's version, as Cargo.toml states it.
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// A validated request, ready to run (any number of times: runs are pure).
#[derive(Debug, Clone)]
pub struct Prepared {
    pub program: program::Program,
    pub limits: Limits,
    pub seed: u64,
    pub replications: u32,
}

fn seconds_to_ns(v: f64, field: &str, allow_zero: bool) -> Result<u64, SimError> {
    let ok = v.is_finite() && (v > 0.0 || (allow_zero && v == 0.0)) && v < 1e7;
    if !ok {
        let what = if allow_zero { ">= 0" } else { "> 0" };
        return Err(SimError::new(field, format!("must be a number of seconds {what} and below 10,000,000, not {v}")));
    }
    Ok((v * 1e9).round() as u64)
}

/// Parses and validates a JSON request. Errors name the field (`options.ios`,
/// `network.classes[0].route[1].visit.resource`).
pub fn prepare(json: &str) -> Result<Prepared, SimError> {
    let input: input::Input =
        serde_json::from_str(json).map_err(|e| SimError::new("request", format!("not a valid request: {e}")))?;
    let o = &input.options;
    match (o.ios, o.duration) {
        (Some(_), Some(_)) => return Err(SimError::new("options", "give ios or duration, not both")),
        (None, None) => return Err(SimError::new("options", "give ios or duration")),
        (Some(0), _) => return Err(SimError::new("options.ios", "must be at least 1")),
        _ => {}
    }
    let duration = o.duration.map(|d| seconds_to_ns(d, "options.duration", false)).transpose()?;
    let ramp = seconds_to_ns(o.ramp, "options.ramp", true)?;
    let mut interval = o.interval.map(|d| seconds_to_ns(d, "options.interval", false)).transpose()?;
    if interval.is_none() {
        // A hundred points over a known duration; otherwise chosen as the run goes.
        interval = duration.map(|d| (d / 100).max(1));
    }
    if o.replications == 0 || o.replications > MAX_REPLICATIONS {
        return Err(SimError::new("options.replications", format!("must be between 1 and {MAX_REPLICATIONS}")));
    }
    let program = program::compile(&input.network)?;
    Ok(Prepared {
        program,
        limits: Limits { ramp, ios: o.ios, duration, interval },
        seed: o.seed,
        replications: o.replications,
    })
}

impl Prepared {
    /// The seed of each replication: successive splitmix64 values from the request's seed.
    pub fn seeds(&self) -> Vec<u64> {
        let mut state = self.seed;
        (0..self.replications).map(|_| rng::splitmix64(&mut state)).collect()
    }

    /// Runs every replication, in parallel on all cores (rayon's pool), and reports. Each
    /// replication is a pure function of its seed and the report merges them in seed order,
    /// so the report is the same, byte for byte, as [`Prepared::run_sequential`]'s.
    /// `control` must have been made with `Control::new(self.replications)`.
    pub fn run(&self, control: &Control) -> Report {
        use rayon::prelude::*;
        if self.replications == 1 {
            return self.run_sequential(control); // no pool to wake for one
        }
        let seeds = self.seeds();
        let runs = seeds.par_iter().enumerate().map(|(k, &seed)| self.replication(control, k, seed)).collect();
        self.report(runs)
    }

    /// The same as [`Prepared::run`], one replication after the other on this thread.
    pub fn run_sequential(&self, control: &Control) -> Report {
        let seeds = self.seeds();
        let runs = seeds.iter().enumerate().map(|(k, &seed)| self.replication(control, k, seed)).collect();
        self.report(runs)
    }

    /// Replication `k`, or None when the run was cancelled before it started.
    fn replication(&self, control: &Control, k: usize, seed: u64) -> Option<engine::RunResult> {
        if control.cancel.load(Ordering::Relaxed) && k > 0 {
            return None;
        }
        Some(engine::Engine::new(&self.program, self.limits, seed).run(control, k))
    }

    fn report(&self, runs: Vec<Option<engine::RunResult>>) -> Report {
        let n = runs.len();
        let runs: Vec<engine::RunResult> = runs.into_iter().flatten().collect();
        let mut rep = report::report(&self.program, self.seed, self.limits.ramp, &runs);
        if runs.len() < n {
            rep.partial = true;
            rep.stopped = "cancelled";
        }
        rep
    }
}

/// Parses, runs and reports a JSON request in one call (no cancel, no progress).
pub fn simulate(json: &str) -> Result<String, SimError> {
    let prepared = prepare(json)?;
    let control = Control::new(prepared.replications as usize);
    Ok(to_json(&prepared.run(&control)))
}

/// The report as JSON text.
pub fn to_json(report: &Report) -> String {
    serde_json::to_string(report).expect("a report always serialises")
}

#[cfg(test)]
mod tests {
    #[test]
    fn version_is_semver() {
        assert_eq!(super::version().split('.').count(), 3);
    }
}
