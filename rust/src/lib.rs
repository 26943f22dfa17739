//! iolab's simulator: a discrete-event engine for the queueing networks that iolab
//! compiles from scenarios. The engine exchanges plain data and has no Python types;
//! the PyO3 bindings live in `bindings.rs`, compiled only with the `python` feature.
//!
//! Use: [`prepare`] a JSON request (`{"network": ..., "options": ...}`), then
//! [`Prepared::run`] it with a [`Control`] (cancel flag, progress); or [`simulate`] in one go.

pub mod cache;
pub mod cap;
pub mod control;
pub mod engine;
pub mod histogram;
pub mod input;
pub mod program;
pub mod queue;
pub mod report;
pub mod route;
pub mod rng;
pub mod series;
pub mod slots;

#[cfg(feature = "python")]
mod bindings;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

pub use engine::{Control, Limits, Stop};
pub use program::SimError;
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

    /// Runs every replication (in parallel, at most one thread per core) and reports.
    /// `control` must have been made with `Control::new(self.replications)`.
    pub fn run(&self, control: &Control) -> Report {
        let seeds = self.seeds();
        let n = seeds.len();
        let workers = std::thread::available_parallelism().map(|c| c.get()).unwrap_or(1).min(n).max(1);
        let results: Vec<Mutex<Option<engine::RunResult>>> = (0..n).map(|_| Mutex::new(None)).collect();
        let next = AtomicUsize::new(0);
        let work = || loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            if k >= n {
                break;
            }
            let r = if control.cancel.load(Ordering::Relaxed) && k > 0 {
                None // cancelled before it started: left out
            } else {
                Some(engine::Engine::new(&self.program, self.limits, seeds[k]).run(control, k))
            };
            *results[k].lock().unwrap() = r;
        };
        if workers == 1 {
            work();
        } else {
            std::thread::scope(|s| {
                for _ in 0..workers {
                    s.spawn(work);
                }
            });
        }
        let runs: Vec<engine::RunResult> = results.into_iter().filter_map(|m| m.into_inner().unwrap()).collect();
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
