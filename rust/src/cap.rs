//! A cap: a FIFO single server whose service time is the IO's demand at the cap's rates,
//! optionally running at burst rates while a credit bucket lasts.
//!
//! Because the queue is FIFO and a service time is known when the IO starts, the time an
//! IO leaves is known the moment it arrives: it starts when the server is free and the
//! bucket can pay, and leaves one service time later. So a cap needs no queue and no refill
//! events, only the time the server frees up and the bucket's level at its last change.

use crate::defs::{CapDef, Tank};
use crate::rng::Rng;

/// A credit bucket: `level` credits at time `at` (ns), accruing `rate` per ns up to `size`.
#[derive(Debug, Clone, Copy)]
pub struct Bucket {
    pub level: f64,
    pub at: f64,
    pub size: f64,
    pub rate: f64,
}

impl Bucket {
    fn new(t: &Tank) -> Self {
        Bucket { level: t.initial, at: 0.0, size: t.size, rate: t.rate }
    }

    /// The level at `t` (the level of the last change when `t` is before it).
    pub fn level_at(&self, t: f64) -> f64 {
        if t <= self.at {
            return self.level;
        }
        (self.level + (t - self.at) * self.rate).min(self.size)
    }

    /// The earliest time >= `t` when the bucket holds `cost` (a cost above the size waits
    /// for a full bucket).
    fn ready(&self, t: f64, cost: f64) -> f64 {
        let cost = cost.min(self.size);
        let t = t.max(self.at);
        let level = self.level_at(t);
        if level >= cost {
            t
        } else {
            t + (cost - level) / self.rate
        }
    }

    fn pay(&mut self, t: f64, cost: f64) {
        self.level = (self.level_at(t) - cost).max(0.0);
        self.at = t;
    }
}

/// The state of one cap during a run, with its measurements from `measure_from` on.
///
/// Times inside are fractional nanoseconds, so that a cap whose service time is not a
/// whole number of nanoseconds still delivers exactly its rate; IOs leave at the nearest ns.
#[derive(Debug, Clone)]
pub struct CapServer {
    free_at: f64,
    exponential: bool,
    bursts: bool,
    pub ops: Option<Bucket>,
    pub bytes: Option<Bucket>,
    measure_from: u64,
    from: f64,
    /// Nanoseconds busy (serving or waiting for credit) after `measure_from`.
    busy: f64,
    /// Nanoseconds IOs arriving after `measure_from` waited before their service began.
    pub waited: f64,
    pub visits: u64,
}

impl CapServer {
    pub fn new(def: &CapDef, measure_from: u64) -> Self {
        CapServer {
            free_at: 0.0,
            exponential: def.exponential,
            bursts: def.bursts,
            ops: def.ops_tank.as_ref().map(Bucket::new),
            bytes: def.bytes_tank.as_ref().map(Bucket::new),
            measure_from,
            from: measure_from as i64 as f64,
            busy: 0.0,
            waited: 0.0,
            visits: 0,
        }
    }

    /// An IO arrives at `now` (never before an earlier visit's arrival); returns when it
    /// leaves. `base`/`burst` are its service times in ns at the baseline and burst rates;
    /// `ops`/`bytes` what it spends of the buckets.
    #[inline(always)]
    pub fn visit(&mut self, now: u64, ops: f64, bytes: f64, base: f64, burst: f64, rng: &mut Rng) -> u64 {
        let nowf = now as i64 as f64; // times stay far below 2^63 ns; i64 converts faster
        // Plain compares (no NaN can occur): cheaper than f64::max.
        let free = if self.free_at > nowf { self.free_at } else { nowf };
        let (start, service) = if self.bursts || self.exponential {
            self.start_and_service(free, ops, bytes, base, burst, rng)
        } else {
            (free, base) // a fixed rate: the common case
        };
        self.depart(now, nowf, free, start, service)
    }

    /// An IO arrives at `now` at a cap at a fixed rate (no burst, deterministic service):
    /// [`CapServer::visit`] without the checks.
    #[inline(always)]
    pub fn visit_fixed(&mut self, now: u64, service: f64) -> u64 {
        debug_assert!(!self.bursts && !self.exponential);
        let nowf = now as i64 as f64;
        let free = if self.free_at > nowf { self.free_at } else { nowf };
        self.depart(now, nowf, free, free, service)
    }

    /// The IO that arrived at `now` (`nowf`), taken by the server at `free`, starts its
    /// service at `start`: books it and returns when it leaves.
    #[inline(always)]
    fn depart(&mut self, now: u64, nowf: f64, free: f64, start: f64, service: f64) -> u64 {
        let leave = start + service;
        self.free_at = leave;
        // Busy from when the server took the IO (or the measured period began) to its
        // departure.
        if now >= self.measure_from {
            // (Then free >= now >= the period's start.)
            self.busy += leave - free;
            self.waited += start - nowf;
            self.visits += 1;
        } else {
            // Nothing when it all was before the period.
            let from = self.from;
            let busy = leave - if free > from { free } else { from };
            self.busy += if busy > 0.0 { busy } else { 0.0 };
        }
        // (leave >= 0: the clamp at 0 of `nearest` is not needed.)
        crate::time::nearest_above_zero(leave)
    }

    /// When an IO the server can take at `free` starts (once the buckets can pay, which
    /// they then do) and how long it is served (exponential around its mean, if so).
    #[inline(never)]
    fn start_and_service(&mut self, free: f64, ops: f64, bytes: f64, base: f64, burst: f64, rng: &mut Rng) -> (f64, f64) {
        let mut start = free;
        let mean = if self.bursts {
            if let Some(b) = &self.ops {
                start = start.max(b.ready(start, ops));
            }
            if let Some(b) = &self.bytes {
                start = start.max(b.ready(start, bytes));
            }
            if let Some(b) = &mut self.ops {
                b.pay(start, ops);
            }
            if let Some(b) = &mut self.bytes {
                b.pay(start, bytes);
            }
            burst
        } else {
            base
        };
        let service = if self.exponential { mean * rng.exp1() } else { mean };
        (start, service)
    }

    /// Nanoseconds busy in [measure_from, end].
    pub fn busy_until(&self, end: u64) -> f64 {
        let end = end.max(self.measure_from) as f64;
        (self.busy - (self.free_at - end).max(0.0)).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cap(tank: Option<Tank>) -> CapServer {
        CapServer::new(
            &CapDef { resource: 0, exponential: false, bursts: tank.is_some(), ops_tank: tank, bytes_tank: None },
            0,
        )
    }

    #[test]
    fn fifo_spacing() {
        let mut c = cap(None);
        let mut rng = Rng::new(1);
        // 1,000 ops/s: 1 ms each; three IOs at once leave 1, 2 and 3 ms later.
        let t: Vec<u64> = (0..3).map(|_| c.visit(0, 1.0, 0.0, 1e6, 1e6, &mut rng)).collect();
        assert_eq!(t, vec![1_000_000, 2_000_000, 3_000_000]);
        assert_eq!(c.waited, 3e6);
        assert_eq!(c.busy_until(2_500_000), 2.5e6);
        // An IO arriving at an idle server is not delayed.
        assert_eq!(c.visit(10_000_000, 1.0, 0.0, 1e6, 1e6, &mut rng), 11_000_000);
    }

    #[test]
    fn empty_bucket_falls_to_baseline() {
        // Baseline 1,000/s, burst 2,000/s, bucket of 10 ops, full.
        let mut c = cap(Some(Tank { size: 10.0, rate: 1e-6, initial: 10.0 }));
        let mut rng = Rng::new(1);
        let mut t = 0;
        let mut leaves = Vec::new();
        for _ in 0..1000 {
            t = c.visit(t, 1.0, 0.0, 1e6, 5e5, &mut rng);
            leaves.push(t);
        }
        // Bursting at first (0.5 ms each) ...
        assert_eq!(leaves[0], 500_000);
        // ... then exactly the baseline: 1 ms per IO.
        let late = (leaves[999] - leaves[499]) as f64 / 500.0;
        assert!((late - 1e6).abs() < 2.0, "{late}");
    }
}
