//! The simulator's answer as plain data (serialised to JSON for the Python side).
//!
//! Units: seconds, ops/s, bytes/s, bytes. With several replications, counts and times add
//! up over the replications, rates and ratios are pooled (total over total), latency
//! quantiles come from the merged histograms, and the series over time are the first
//! replication's; `replications` holds each run's own summary.

use serde::Serialize;

use crate::engine::RunResult;
use crate::histogram::Histogram;
use crate::program::Program;

const NS: f64 = 1e9;

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct Latency {
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    #[serde(rename = "p99.9")]
    pub p99_9: f64,
    #[serde(rename = "p99.99")]
    pub p99_99: f64,
}

impl Latency {
    pub fn of(h: &Histogram) -> Self {
        Latency {
            mean: h.mean() / NS,
            min: h.min() as f64 / NS,
            max: h.max() as f64 / NS,
            p50: h.quantile(0.5) / NS,
            p90: h.quantile(0.9) / NS,
            p99: h.quantile(0.99) / NS,
            p99_9: h.quantile(0.999) / NS,
            p99_99: h.quantile(0.9999) / NS,
        }
    }
}

/// Throughput and latency of a set of IOs (a class, a job, a direction, all).
#[derive(Serialize, Debug, Clone)]
pub struct Stats {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub direction: Option<&'static str>,
    pub ios: u64,
    pub bytes: u64,
    pub iops: f64,
    pub bandwidth: f64,
    pub latency: Latency,
}

#[derive(Serialize, Debug, Clone)]
pub struct SeriesPoint {
    pub t: f64,
    pub iops: f64,
    pub bandwidth: f64,
}

#[derive(Serialize, Debug, Clone)]
pub struct ResourceReport {
    pub id: String,
    pub resource: String,
    pub kind: String,
    /// Share of the measured time the cap was busy (serving, or holding an IO for credit).
    pub utilization: f64,
    /// Seconds IOs spent waiting in the cap's queue, added up over IOs.
    pub throttled: f64,
    pub visits: u64,
    /// Mean seconds an IO waited there per visit.
    pub mean_wait: f64,
}

#[derive(Serialize, Debug, Clone)]
pub struct SlotReport {
    pub id: String,
    pub resource: String,
    pub kind: String,
    pub slots: u64,
    /// Mean share of the slots in use.
    pub utilization: f64,
    /// Seconds IOs spent waiting for a slot, added up over IOs.
    pub throttled: f64,
    pub entries: u64,
}

#[derive(Serialize, Debug, Clone)]
pub struct CreditPoint {
    pub t: f64,
    pub ops: Option<f64>,
    pub bytes: Option<f64>,
}

#[derive(Serialize, Debug, Clone)]
pub struct CreditReport {
    pub id: String,
    pub resource: String,
    pub series: Vec<CreditPoint>,
}

#[derive(Serialize, Debug, Clone)]
pub struct CachePoint {
    pub t: f64,
    pub lookups: u64,
    pub hit_ratio: Option<f64>,
}

#[derive(Serialize, Debug, Clone)]
pub struct CacheReport {
    pub id: String,
    pub resource: String,
    pub lookups: u64,
    pub hits: u64,
    pub hit_ratio: Option<f64>,
    pub series: Vec<CachePoint>,
}

/// One replication's own figures (for confidence intervals).
#[derive(Serialize, Debug, Clone)]
pub struct Replication {
    pub seed: u64,
    pub ios: u64,
    pub duration: f64,
    pub iops: f64,
    pub bandwidth: f64,
    pub latency: Latency,
    pub partial: bool,
}

#[derive(Serialize, Debug, Clone)]
pub struct Report {
    pub seed: u64,
    pub partial: bool,
    pub stopped: &'static str,
    pub ios: u64,
    pub duration: f64,
    pub ramp: f64,
    pub interval: f64,
    pub total: Stats,
    pub read: Option<Stats>,
    pub write: Option<Stats>,
    pub groups: Vec<Stats>,
    pub jobs: Vec<Stats>,
    pub classes: Vec<Stats>,
    pub series: Vec<SeriesPoint>,
    pub resources: Vec<ResourceReport>,
    pub slot_limits: Vec<SlotReport>,
    pub credits: Vec<CreditReport>,
    pub cache: Vec<CacheReport>,
    pub replications: Vec<Replication>,
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 { a / b } else { 0.0 }
}

fn stats(h: &Histogram, bytes: u64, seconds: f64) -> Stats {
    Stats {
        name: None,
        job: None,
        group: None,
        direction: None,
        ios: h.count(),
        bytes,
        iops: ratio(h.count() as f64, seconds),
        bandwidth: ratio(bytes as f64, seconds),
        latency: Latency::of(h),
    }
}

/// Combines the replications' results (in replication order) into one report.
pub fn report(p: &Program, seed: u64, ramp: u64, runs: &[RunResult]) -> Report {
    let first = &runs[0];
    let seconds: f64 = runs.iter().map(|r| r.measured as f64 / NS).sum();
    let mut classes = vec![Histogram::new(); p.classes.len()];
    for r in runs {
        for (a, b) in classes.iter_mut().zip(&r.classes) {
            a.merge(b);
        }
    }
    let bytes_of = |c: usize| classes[c].count() * p.classes[c].bytes;
    let merged = |pick: &dyn Fn(usize) -> bool| {
        let mut h = Histogram::new();
        let mut bytes = 0;
        for (c, hist) in classes.iter().enumerate() {
            if pick(c) {
                h.merge(hist);
                bytes += bytes_of(c);
            }
        }
        stats(&h, bytes, seconds)
    };
    let total = merged(&|_| true);
    let read = merged(&|c| p.classes[c].read);
    let write = merged(&|c| !p.classes[c].read);
    let groups = (0..p.groups.len())
        .map(|g| Stats {
            name: Some(p.groups[g].clone()),
            ..merged(&|c| p.jobs[p.classes[c].job as usize].group as usize == g)
        })
        .collect();
    let jobs = (0..p.jobs.len())
        .map(|j| Stats {
            name: Some(p.jobs[j].name.clone()),
            group: Some(p.groups[p.jobs[j].group as usize].clone()),
            ..merged(&|c| p.classes[c].job as usize == j)
        })
        .collect();
    let class_stats = (0..p.classes.len())
        .map(|c| {
            let k = &p.classes[c];
            Stats {
                name: Some(k.id.clone()),
                job: Some(p.jobs[k.job as usize].name.clone()),
                direction: Some(if k.read { "read" } else { "write" }),
                ..stats(&classes[c], bytes_of(c), seconds)
            }
        })
        .collect();

    let series = first
        .series
        .points
        .iter()
        .map(|pt| SeriesPoint {
            t: pt.end as f64 / NS,
            iops: ratio(pt.ios as f64, pt.len as f64 / NS),
            bandwidth: ratio(pt.bytes as f64, pt.len as f64 / NS),
        })
        .collect();

    let resources = p
        .caps
        .iter()
        .enumerate()
        .map(|(k, cap)| {
            let r = &p.resources[cap.resource as usize];
            let busy: f64 = runs.iter().map(|run| run.busy[k]).sum::<f64>() / NS;
            let waited: f64 = runs.iter().map(|run| run.caps[k].waited).sum::<f64>() / NS;
            let visits: u64 = runs.iter().map(|run| run.caps[k].visits).sum();
            ResourceReport {
                id: r.id.clone(),
                resource: r.label.clone(),
                kind: r.kind.clone(),
                utilization: ratio(busy, seconds),
                throttled: waited,
                visits,
                mean_wait: ratio(waited, visits as f64),
            }
        })
        .collect();

    let slot_limits = p
        .slots
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let area: f64 = runs.iter().map(|r| r.slots[k].area as f64).sum::<f64>() / NS;
            SlotReport {
                id: s.id.clone(),
                resource: s.label.clone(),
                kind: s.kind.clone(),
                slots: s.slots,
                utilization: ratio(area, seconds * s.slots as f64),
                throttled: runs.iter().map(|r| r.slots[k].waited as f64).sum::<f64>() / NS,
                entries: runs.iter().map(|r| r.slots[k].entries).sum(),
            }
        })
        .collect();

    let credits = p
        .caps
        .iter()
        .filter(|c| c.bursts)
        .enumerate()
        .map(|(k, cap)| {
            let r = &p.resources[cap.resource as usize];
            CreditReport {
                id: r.id.clone(),
                resource: r.label.clone(),
                series: first
                    .series
                    .points
                    .iter()
                    .map(|pt| CreditPoint { t: pt.end as f64 / NS, ops: pt.credits[k].0, bytes: pt.credits[k].1 })
                    .collect(),
            }
        })
        .collect();

    let cache = p
        .caches
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let lookups: u64 = runs.iter().map(|r| r.caches[k].0).sum();
            let hits: u64 = runs.iter().map(|r| r.caches[k].1).sum();
            CacheReport {
                id: c.id.clone(),
                resource: c.label.clone(),
                lookups,
                hits,
                hit_ratio: (lookups > 0).then(|| hits as f64 / lookups as f64),
                series: first
                    .series
                    .points
                    .iter()
                    .map(|pt| {
                        let (l, h) = pt.cache[k];
                        CachePoint { t: pt.end as f64 / NS, lookups: l, hit_ratio: (l > 0).then(|| h as f64 / l as f64) }
                    })
                    .collect(),
            }
        })
        .collect();

    let replications = runs
        .iter()
        .map(|r| {
            let mut h = Histogram::new();
            let mut bytes = 0;
            for (c, hc) in r.classes.iter().enumerate() {
                h.merge(hc);
                bytes += hc.count() * p.classes[c].bytes;
            }
            let s = r.measured as f64 / NS;
            Replication {
                seed: r.seed,
                ios: h.count(),
                duration: s,
                iops: ratio(h.count() as f64, s),
                bandwidth: ratio(bytes as f64, s),
                latency: Latency::of(&h),
                partial: r.stop.early(),
            }
        })
        .collect();

    let worst = runs.iter().map(|r| r.stop).find(|s| s.early()).unwrap_or(first.stop);
    Report {
        seed,
        partial: worst.early(),
        stopped: worst.name(),
        ios: total.ios,
        duration: seconds,
        ramp: ramp as f64 / NS,
        interval: first.series.len as f64 / NS,
        read: (read.ios > 0).then_some(read),
        write: (write.ios > 0).then_some(write),
        total,
        groups,
        jobs,
        classes: class_stats,
        series,
        resources,
        slot_limits,
        credits,
        cache,
        replications,
    }
}
