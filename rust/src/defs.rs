//! The compiled program's tables, beside the program: caps and their credit tanks,
//! resources, slot limits, caches, classes, jobs, load laws and forks. Each is plain data,
//! indexed by the instructions [`crate::program::Program`] holds.

use crate::error::SimError;
use crate::input::{LoadIn, Pick};

#[derive(Debug, Clone, Copy)]
pub struct Tank {
    pub size: f64,
    /// Credits accrued per nanosecond (the baseline cap).
    pub rate: f64,
    pub initial: f64,
}

#[derive(Debug, Clone)]
pub struct CapDef {
    pub resource: u32,
    pub exponential: bool,
    pub bursts: bool,
    pub ops_tank: Option<Tank>,
    pub bytes_tank: Option<Tank>,
}

#[derive(Debug, Clone)]
pub struct ResourceDef {
    pub id: String,
    pub label: String,
    pub kind: String,
    /// Index in `Program::caps` when the resource is a cap.
    pub cap: Option<u32>,
}

#[derive(Debug, Clone)]
pub struct SlotDef {
    pub id: String,
    pub label: String,
    pub kind: String,
    pub slots: u64,
}

/// A job's share of a cache's block space.
#[derive(Debug, Clone)]
pub struct CacheUse {
    pub job: u32,
    pub offset: u64,
    pub blocks: u64,
}

#[derive(Debug, Clone)]
pub struct CacheDef {
    pub id: String,
    pub label: String,
    pub size: u64,
    pub warm: bool,
    pub users: Vec<CacheUse>,
    /// Blocks tracked over all users.
    pub blocks: u64,
}

#[derive(Debug, Clone)]
pub struct ClassDef {
    pub id: String,
    pub job: u32,
    pub read: bool,
    pub bytes: u64,
    pub route: u32,
    pub background: Option<u32>,
    /// For a class with a background route: the index of its flush queue (its cache's,
    /// or, without a cache, its job's: `caches.len() + job`), whose pending flushes
    /// [`DIRTY_LIMIT`](crate::program::DIRTY_LIMIT) bounds.
    pub dirty: Option<u32>,
    /// For the hit and miss classes of a cache lookup: the cache and whether it is the hit
    /// class. (A lookup whose other outcome has no class of its own takes this one.)
    pub lookup: Option<(u32, bool)>,
    /// An IO of a closed job without think time, cache lookup and background work: when it completes,
    /// its thread becomes its job's next IO at once (the common case, taken first).
    pub plain: bool,
}

/// One draw of a job's next IO: a class, or a cache lookup that resolves to `hit` or `miss`.
#[derive(Debug, Clone)]
pub struct Choice {
    /// Cumulative probability (the last choice of a job holds 1).
    pub cum: f64,
    /// `floor(cum × 2^53)`: a draw `m / 2^53` (m in 1..=2^53) is above `cum` exactly when
    /// `m > below` (the comparison in integers, same outcome).
    pub below: u64,
    pub hit: u32,
    pub miss: u32,
    /// The first instructions of the hit and miss classes' routes.
    pub hit_route: u32,
    pub miss_route: u32,
    /// The cache (index) and this job's offset in its block space.
    pub cache: Option<(u32, u64)>,
    /// Whether the choice looks the block up (hit/miss classes) or only makes it resident.
    pub lookup: bool,
}

#[derive(Debug, Clone)]
pub struct JobDef {
    pub name: String,
    pub group: u32,
    pub population: u64,
    /// Arrivals per nanosecond when rate-limited.
    pub rate: Option<f64>,
    /// Nanoseconds an IO slot waits after a completion before its next IO (0: none).
    pub think: u64,
    pub poisson: bool,
    pub sequential: bool,
    /// Blocks of the working set (`fine`), tracked in groups of `coarse` blocks: `blocks`
    /// tracked blocks of `block_bytes` each.
    pub fine: u64,
    pub coarse: u64,
    pub blocks: u64,
    pub block_bytes: u64,
    pub choices: Vec<Choice>,
    /// The route all the job's classes share, if they do (then an IO's first
    /// instructions are known before its class is drawn).
    pub route: Option<u32>,
}

/// One load law (compiled from a `load` step; steps with the same law share it).
#[derive(Debug, Clone, PartialEq)]
pub struct LoadDef {
    /// The cap whose utilization the law follows (index in `Program::caps`).
    pub cap: u32,
    /// The delay at a full cap, ns.
    pub scale: f64,
    pub onset: f64,
    pub exponent: f64,
    /// ns.
    pub window: f64,
}

impl LoadDef {
    /// Checks a `load` step's law; `field` names the step.
    pub fn new(l: &LoadIn, cap: u32, field: &str) -> Result<Self, SimError> {
        if !(l.scale.is_finite() && l.scale >= 0.0) {
            return Err(SimError::new(format!("{field}.scale"), "must be a number of seconds >= 0"));
        }
        if !(l.onset.is_finite() && (0.0..1.0).contains(&l.onset)) {
            return Err(SimError::new(format!("{field}.onset"), "must be a fraction from 0 up to (not including) 1"));
        }
        if !(l.exponent.is_finite() && l.exponent > 0.0) {
            return Err(SimError::new(format!("{field}.exponent"), "must be a positive number"));
        }
        if !(l.window.is_finite() && l.window > 0.0) {
            return Err(SimError::new(format!("{field}.window"), "must be a positive number of seconds"));
        }
        Ok(LoadDef { cap, scale: l.scale * 1e9, onset: l.onset, exponent: l.exponent, window: l.window * 1e9 })
    }

    /// The mean delay (ns) at utilization `u`.
    pub fn delay(&self, u: f64) -> f64 {
        let x = (u.clamp(0.0, 1.0) - self.onset) / (1.0 - self.onset);
        if x <= 0.0 {
            0.0
        } else {
            self.scale * x.powf(self.exponent)
        }
    }
}

/// One branch of a `Op::Stripe`: its `Fixed` visit, at instruction `pc`.
#[derive(Debug, Clone, Copy)]
pub struct Member {
    pub cap: u32,
    pub ahead: bool,
    pub pc: u32,
    pub service: f64,
}

#[derive(Debug, Clone)]
pub struct ForkDef {
    pub choose: u32,
    pub pick: Pick,
    /// First instruction of each branch.
    pub starts: Vec<u32>,
    /// Round-robin counter shared by forks over the same resources.
    pub turn: u32,
}
