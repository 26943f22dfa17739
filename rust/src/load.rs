//! Load delays: a share's latency rising as its volume nears its quota.
//!
//! A load step spends a delay whose mean follows the recent utilization `u` of a cap (the
//! share's quota): `scale × x^exponent` with `x = (u − onset) / (1 − onset)` clamped to
//! [0, 1]. The cap's utilization is measured by the load step itself, from the IOs that pass
//! it: each adds its service time at the cap (at the burst rates while the cap bursts) to
//! an exponentially weighted rate over `window` ns of simulated time,
//! `r ← r × e^(−Δt / window) + work / window`, whose mean is the share of time the cap's
//! work takes, its utilization. Times are the simulation clock's, so the measure is
//! deterministic and never goes back in time.

use crate::cap::CapServer;
use crate::defs::LoadDef;
#[cfg(test)]
use crate::error::SimError;

/// The recent utilization of one law's cap, as the IOs passing the law's steps report it.
#[derive(Debug, Clone, Default)]
pub struct LoadMeter {
    rate: f64,
    at: u64,
}

impl LoadMeter {
    /// An IO whose service time at the cap is `work` ns (`burst` at the burst rates) passes
    /// at `now`; returns the mean delay it is to spend.
    #[inline]
    pub fn pass(&mut self, def: &LoadDef, cap: &CapServer, now: u64, work: f64, burst: f64) -> f64 {
        let elapsed = now.saturating_sub(self.at) as f64;
        if elapsed > 0.0 {
            self.rate *= crate::rng::exp(-elapsed / def.window);
            self.at = now;
        }
        let spent = if bursting(cap, now) { burst } else { work };
        self.rate += spent / def.window;
        def.delay(self.rate)
    }
}

/// Whether a bursting cap still has credit at `now` (then it serves at its burst rates).
fn bursting(cap: &CapServer, now: u64) -> bool {
    let t = now as f64;
    let has = |b: &Option<crate::cap::Bucket>| b.map_or(true, |b| b.level_at(t) >= 1.0);
    (cap.ops.is_some() || cap.bytes.is_some()) && has(&cap.ops) && has(&cap.bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::{CapDef, Tank};

    fn law(window: f64) -> LoadDef {
        LoadDef { cap: 0, scale: 1e6, onset: 0.3, exponent: 1.0, window }
    }

    fn plain() -> CapServer {
        CapServer::new(&CapDef { resource: 0, exponential: false, bursts: false, ops_tank: None, bytes_tank: None }, 0)
    }

    #[test]
    fn the_law() {
        let l = law(1e7);
        assert_eq!(l.delay(0.0), 0.0);
        assert_eq!(l.delay(0.3), 0.0);
        assert!((l.delay(0.65) - 0.5e6).abs() < 1e-6);
        assert_eq!(l.delay(1.0), 1e6);
        assert_eq!(l.delay(2.0), 1e6);
    }

    #[test]
    fn a_steady_stream_reads_as_its_utilization() {
        // One IO every 10 µs, each 8 µs of the cap's time: 80 % busy.
        let (l, cap) = (law(1e7), plain());
        let mut m = LoadMeter::default();
        let mut mean = 0.0;
        for i in 0..20_000u64 {
            mean = m.pass(&l, &cap, i * 10_000, 8_000.0, 8_000.0);
        }
        let expect = l.delay(0.8);
        assert!((mean - expect).abs() < 0.01 * expect, "{mean} vs {expect}");
        // Idle for ten windows: the measure decays to nearly nothing.
        assert!(m.pass(&l, &cap, 20_000 * 10_000 + 100_000_000, 8_000.0, 8_000.0) < 1.0);
    }

    fn network(load: serde_json::Value) -> Result<crate::program::Program, SimError> {
        use serde_json::json;
        let net: crate::input::NetworkIn = serde_json::from_value(json!({
            "resources": [
                {"id": "q", "label": "quota", "kind": "service", "cap": {"ops_per_s": 1000.0}},
                {"id": "z", "label": "latency", "kind": "service", "delay": {"distribution": "deterministic"}}],
            "jobs": [{"name": "j", "group": "j", "population": 4, "working_set": 1 << 20}],
            "classes": [{"id": "c", "job": 0, "direction": "read", "probability": 1.0, "bytes": 4096,
                         "route": [{"visit": {"resource": "q", "bytes": 4096}},
                                   {"visit": {"resource": "z", "bytes": 4096, "latency": 0.001}}, load]}],
        }))
        .unwrap();
        crate::program::compile(&net)
    }

    #[test]
    fn a_load_step_names_its_cap_and_delay() {
        use serde_json::json;
        let p = network(json!({"load": {"resource": "z", "bytes": 4096, "cap": "q", "scale": 0.001, "onset": 0.3}})).unwrap();
        // 1,000 ops/s: 1 ms of the cap per IO; one law.
        assert_eq!(p.loads, vec![LoadDef { cap: 0, scale: 1e6, onset: 0.3, exponent: 1.0, window: 1e7 }]);
        assert!(p.ops.iter().any(|op| matches!(op, crate::route::Op::Load { work, .. } if (*work - 1e6).abs() < 1e-6)));
        let swapped = network(json!({"load": {"resource": "q", "bytes": 4096, "cap": "q", "scale": 0.001}})).unwrap_err();
        assert!(swapped.field.ends_with("route[2].load.resource"), "{swapped}");
        let not_cap = network(json!({"load": {"resource": "z", "bytes": 4096, "cap": "z", "scale": 0.001}})).unwrap_err();
        assert!(not_cap.field.ends_with("route[2].load.cap"), "{not_cap}");
        let bad = network(json!({"load": {"resource": "z", "bytes": 4096, "cap": "q", "scale": 0.001, "onset": 1.0}})).unwrap_err();
        assert!(bad.field.ends_with("route[2].load.onset"), "{bad}");
    }

    #[test]
    fn a_bursting_cap_counts_its_burst_service_time() {
        let tank = Tank { size: 1e9, rate: 1e-6, initial: 1e9 };
        let cap = CapServer::new(&CapDef { resource: 0, exponential: false, bursts: true, ops_tank: Some(tank), bytes_tank: None }, 0);
        assert!(bursting(&cap, 0));
        assert!(!bursting(&plain(), 0));
    }
}
