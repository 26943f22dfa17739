//! What a caller shares with running replications, and when a replication stops.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Why a run stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The requested number of IOs was measured.
    Ios,
    /// The requested measured duration was reached.
    Duration,
    /// The cancel flag was set.
    Cancelled,
    /// Too many IOs were in flight at once: the offered load exceeds the network.
    Overload,
    /// Nothing was left to happen: every IO waits for a slot that none will give back.
    Stalled,
}

impl Stop {
    /// Whether the run stopped before its limit.
    pub fn early(self) -> bool {
        matches!(self, Stop::Cancelled | Stop::Overload | Stop::Stalled)
    }

    pub fn name(self) -> &'static str {
        match self {
            Stop::Ios => "ios",
            Stop::Duration => "duration",
            Stop::Cancelled => "cancelled",
            Stop::Overload => "overload",
            Stop::Stalled => "stalled",
        }
    }
}

/// Shared with the caller while runs go on: a cancel flag, the count of measured IOs over
/// all replications, and each replication's progress as a fraction (f64 bits).
#[derive(Debug, Default)]
pub struct Control {
    pub cancel: AtomicBool,
    pub ios: AtomicU64,
    pub fractions: Vec<AtomicU64>,
}

impl Control {
    pub fn new(replications: usize) -> Self {
        Control {
            cancel: AtomicBool::new(false),
            ios: AtomicU64::new(0),
            fractions: (0..replications).map(|_| AtomicU64::new(0f64.to_bits())).collect(),
        }
    }

    /// Progress of all replications, 0 to 1.
    pub fn fraction(&self) -> f64 {
        if self.fractions.is_empty() {
            return 0.0;
        }
        let s: f64 = self.fractions.iter().map(|f| f64::from_bits(f.load(Ordering::Relaxed))).sum();
        s / self.fractions.len() as f64
    }
}

/// When a replication stops: after `ios` measured IOs or at `duration` ns after the ramp;
/// `interval` ns per point of the series (chosen as the run goes when None).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub ramp: u64,
    pub ios: Option<u64>,
    pub duration: Option<u64>,
    pub interval: Option<u64>,
}
