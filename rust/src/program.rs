//! The network compiled for the event loop: every route flattened into one array of
//! instructions, every id replaced by an index, every service time precomputed.
//!
//! Compiling also validates: a reference to an unknown resource, slot limit, cache or job,
//! or a value out of range, is a [`SimError`] naming the field (`classes[2].route[0].visit.resource`).

use std::collections::BTreeMap;

pub use crate::defs::*;
pub use crate::error::SimError;
use crate::input::*;
pub use crate::route::{DelayKind, Op};
use crate::route::RouteBuilder;

/// Most blocks the cache tracks per job; a larger working set is tracked in coarser blocks.
pub const MAX_TRACKED_BLOCKS: u64 = 1 << 22;
/// Most IOs a closed job may keep in flight (a larger population needs a `rate`).
pub const MAX_CLOSED_POPULATION: u64 = 1_000_000;
/// Most background flushes pending per host cache (an assumption: the cache holds at most
/// this many unflushed writes). A write that finds them all pending is acknowledged only
/// when one completes, so steady writes run at the flush path's rate.
pub const DIRTY_LIMIT: u32 = 256;

/// The compiled network.
#[derive(Debug, Clone)]
pub struct Program {
    pub ops: Vec<Op>,
    pub forks: Vec<ForkDef>,
    /// The branches of the `Stripe` instructions.
    pub members: Vec<Member>,
    pub turns: usize,
    pub resources: Vec<ResourceDef>,
    pub caps: Vec<CapDef>,
    pub slots: Vec<SlotDef>,
    pub caches: Vec<CacheDef>,
    pub classes: Vec<ClassDef>,
    pub jobs: Vec<JobDef>,
    pub groups: Vec<String>,
    /// Load delays' laws (see [`crate::load`]).
    pub loads: Vec<LoadDef>,
    /// The sigma of each stream of lognormal delays.
    pub sigmas: Vec<f64>,
    /// Flush queues (see [`ClassDef::dirty`]): one per cache, then one per job.
    pub dirties: usize,
}

fn positive(v: Option<f64>, field: &str) -> Result<Option<f64>, SimError> {
    match v {
        Some(x) if !(x.is_finite() && x > 0.0) => Err(SimError::new(field, format!("must be a positive number, not {x}"))),
        _ => Ok(v),
    }
}

/// Compiles and validates a network. Errors name the field under `network.`.
pub fn compile(net: &NetworkIn) -> Result<Program, SimError> {
    let mut res_index = BTreeMap::new();
    let mut resources = Vec::new();
    let mut caps = Vec::new();
    for (i, r) in net.resources.iter().enumerate() {
        let f = format!("network.resources[{i}]");
        if res_index.insert(r.id.as_str(), i as u32).is_some() {
            return Err(SimError::new(format!("{f}.id"), format!("duplicate resource id '{}'", r.id)));
        }
        let cap = match (&r.cap, &r.delay) {
            (Some(c), None) => {
                positive(c.ops_per_s, &format!("{f}.cap.ops_per_s"))?;
                positive(c.bytes_per_s, &format!("{f}.cap.bytes_per_s"))?;
                let (mut ops_tank, mut bytes_tank) = (None, None);
                if let Some(b) = &c.burst {
                    let bf = format!("{f}.cap.burst");
                    positive(b.ops_per_s, &format!("{bf}.ops_per_s"))?;
                    positive(b.bytes_per_s, &format!("{bf}.bytes_per_s"))?;
                    positive(b.credit_ops, &format!("{bf}.credit_ops"))?;
                    positive(b.credit_bytes, &format!("{bf}.credit_bytes"))?;
                    if !(0.0..=1.0).contains(&b.initial) {
                        return Err(SimError::new(format!("{bf}.initial"), "must be a fraction between 0 and 1"));
                    }
                    if let (Some(size), Some(rate)) = (b.credit_ops, c.ops_per_s) {
                        ops_tank = Some(Tank { size, rate: rate / 1e9, initial: b.initial * size });
                    }
                    if let (Some(size), Some(rate)) = (b.credit_bytes, c.bytes_per_s) {
                        bytes_tank = Some(Tank { size, rate: rate / 1e9, initial: b.initial * size });
                    }
                }
                caps.push(CapDef {
                    resource: i as u32,
                    exponential: c.service == Service::Exponential,
                    bursts: c.burst.is_some(),
                    ops_tank,
                    bytes_tank,
                });
                Some(caps.len() as u32 - 1)
            }
            (None, Some(d)) => {
                if !(d.cv.is_finite() && d.cv >= 0.0) {
                    return Err(SimError::new(format!("{f}.delay.cv"), "must be a number >= 0"));
                }
                None
            }
            _ => return Err(SimError::new(f, "exactly one of cap and delay must be set")),
        };
        resources.push(ResourceDef { id: r.id.clone(), label: r.label.clone(), kind: r.kind.clone(), cap });
    }

    let mut slot_index = BTreeMap::new();
    let mut slots = Vec::new();
    for (i, s) in net.slot_limits.iter().enumerate() {
        if s.slots == 0 {
            return Err(SimError::new(format!("network.slot_limits[{i}].slots"), "must be at least 1"));
        }
        slot_index.insert(s.id.as_str(), i as u32);
        slots.push(SlotDef { id: s.id.clone(), label: s.label.clone(), kind: s.kind.clone(), slots: s.slots });
    }

    let mut jobs = Vec::new();
    let mut groups: Vec<String> = Vec::new();
    for (i, j) in net.jobs.iter().enumerate() {
        let f = format!("network.jobs[{i}]");
        if j.population == 0 {
            return Err(SimError::new(format!("{f}.population"), "must be at least 1"));
        }
        positive(j.rate, &format!("{f}.rate"))?;
        if j.rate.is_none() && j.population > MAX_CLOSED_POPULATION {
            return Err(SimError::new(
                format!("{f}.population"),
                format!("at most {MAX_CLOSED_POPULATION} IOs in flight without a rate (an open source needs a rate)"),
            ));
        }
        if j.block == 0 {
            return Err(SimError::new(format!("{f}.block"), "must be at least 1 byte"));
        }
        let fine = j.working_set.div_ceil(j.block).max(1);
        let coarse = fine.div_ceil(MAX_TRACKED_BLOCKS);
        let group = match groups.iter().position(|g| *g == j.group) {
            Some(g) => g,
            None => {
                groups.push(j.group.clone());
                groups.len() - 1
            }
        } as u32;
        jobs.push(JobDef {
            name: j.name.clone(),
            group,
            population: j.population,
            rate: j.rate.map(|r| r / 1e9),
            think: crate::time::nearest(j.think * 1e9),
            poisson: j.arrival == Arrival::Poisson,
            sequential: j.sequential,
            fine,
            coarse,
            blocks: fine.div_ceil(coarse),
            block_bytes: j.block * coarse,
            choices: Vec::new(),
            route: None,
        });
    }

    let mut cache_index = BTreeMap::new();
    let mut caches = Vec::new();
    for (i, c) in net.caches.iter().enumerate() {
        cache_index.insert(c.id.as_str(), i as u32);
        caches.push(CacheDef {
            id: c.id.clone(),
            label: c.label.clone(),
            size: c.size,
            warm: c.warm,
            users: Vec::new(),
            blocks: 0,
        });
    }

    let cap_of = resources.iter().map(|r: &ResourceDef| r.cap).collect();
    let mut routes = RouteBuilder::new(&net.resources, cap_of, res_index, slot_index);
    let mut classes = Vec::with_capacity(net.classes.len());

    // Per job: (probability, hit class, miss class, cache, lookup) before normalising.
    type Draw = (f64, u32, Option<u32>, Option<u32>, bool);
    // Whether some class of each job takes time: a closed job whose IOs all take none
    // would issue IOs forever without the clock moving.
    let mut timed = vec![false; net.jobs.len()];
    let mut draws: Vec<Vec<Draw>> = vec![Vec::new(); net.jobs.len()];
    for (i, c) in net.classes.iter().enumerate() {
        let f = format!("network.classes[{i}]");
        if c.job >= net.jobs.len() {
            return Err(SimError::new(format!("{f}.job"), format!("no job {} (there are {})", c.job, net.jobs.len())));
        }
        if !(c.probability.is_finite() && c.probability >= 0.0) {
            return Err(SimError::new(format!("{f}.probability"), "must be a number >= 0"));
        }
        let cache = match &c.cache {
            Some(id) => Some(*cache_index.get(id.as_str()).ok_or_else(|| {
                SimError::new(format!("{f}.cache"), format!("unknown cache '{id}'"))
            })?),
            None => None,
        };
        let route = routes.route(&c.route, &format!("{f}.route"))?;
        if routes.takes_time(&c.route) {
            timed[c.job] = true;
        }
        let background = if c.background.is_empty() {
            None
        } else {
            Some(routes.route(&c.background, &format!("{f}.background"))?)
        };
        let k = i as u32;
        classes.push(ClassDef {
            id: c.id.clone(),
            job: c.job as u32,
            read: c.direction == Direction::Read,
            bytes: c.bytes,
            route,
            background,
            dirty: background.map(|_| cache.unwrap_or(net.caches.len() as u32 + c.job as u32)),
            lookup: match (cache, c.outcome) {
                (Some(ci), Some(o)) if c.direction == Direction::Read => Some((ci, o == Outcome::Hit)),
                _ => None,
            },
            plain: false,
        });
        let list = &mut draws[c.job];
        match (cache, c.outcome) {
            (Some(ci), Some(outcome)) if c.direction == Direction::Read => {
                // The hit and miss classes of one (job, cache) are one draw: reading the
                // block decides which. (Writes only make their block resident.)
                let same = list.iter().position(|d| d.3 == Some(ci) && d.4);
                let slot = match same {
                    Some(s) => s,
                    None => {
                        list.push((0.0, u32::MAX, None, Some(ci), true));
                        list.len() - 1
                    }
                };
                let d = &mut list[slot];
                d.0 += c.probability;
                match outcome {
                    Outcome::Hit => d.1 = k,
                    Outcome::Miss => d.2 = Some(k),
                }
                if d.1 == u32::MAX {
                    d.1 = k; // a miss class alone until its hit sibling shows up
                }
            }
            _ => list.push((c.probability, k, None, cache, false)),
        }
    }
    crate::route::fuse(&mut routes.ops, &routes.forks, |c| caps[c as usize].bursts);
    let fixed = |c: u32| !caps[c as usize].bursts && !caps[c as usize].exponential;
    let members = crate::route::specialize(&mut routes.ops, &routes.forks, fixed);
    let mut p = Program {
        members,
        turns: routes.turns(),
        sigmas: routes.sigmas,
        ops: routes.ops,
        forks: routes.forks,
        resources,
        caps,
        slots,
        caches,
        classes,
        jobs,
        groups,
        loads: routes.loads,
        dirties: net.caches.len() + net.jobs.len(),
    };

    for (j, job) in net.jobs.iter().enumerate() {
        if job.rate.is_none() && job.think == 0.0 && !timed[j] {
            return Err(SimError::new(
                format!("network.jobs[{j}]"),
                format!("the IOs of job '{}' take no time (no cap and no latency on their route)", job.name),
            ));
        }
    }
    for (j, list) in draws.into_iter().enumerate() {
        let total: f64 = list.iter().map(|d| d.0).sum();
        if list.is_empty() || total <= 0.0 {
            return Err(SimError::new(
                format!("network.jobs[{j}]"),
                format!("job '{}' has no class with a positive probability", net.jobs[j].name),
            ));
        }
        let mut cum = 0.0;
        let n = list.len();
        let mut choices = Vec::with_capacity(n);
        for (idx, (share, first, miss, cache, lookup)) in list.into_iter().enumerate() {
            cum += share / total;
            // `first` is the hit class when one exists, else the only (miss) class.
            let hit_is_hit = net.classes[first as usize].outcome != Some(Outcome::Miss);
            let (hit, miss) = match (lookup, hit_is_hit, miss) {
                (true, true, Some(m)) => (first, m),
                _ => (first, first),
            };
            let cache = cache.map(|ci| {
                let c = &mut p.caches[ci as usize];
                let offset = match c.users.iter().find(|u| u.job == j as u32) {
                    Some(u) => u.offset,
                    None => {
                        let off = c.blocks;
                        c.users.push(CacheUse { job: j as u32, offset: off, blocks: p.jobs[j].blocks });
                        c.blocks += p.jobs[j].blocks;
                        off
                    }
                };
                (ci, offset)
            });
            let cum = if idx + 1 == n { 1.0 } else { cum };
            let below = (cum * (1u64 << 53) as f64).floor() as u64;
            let (hit_route, miss_route) = (p.classes[hit as usize].route, p.classes[miss as usize].route);
            choices.push(Choice { cum, below, hit, miss, hit_route, miss_route, cache, lookup });
        }
        let first = choices[0].hit_route;
        if choices.iter().all(|c| c.hit_route == first && c.miss_route == first) {
            p.jobs[j].route = Some(first);
        }
        p.jobs[j].choices = choices;
    }
    if p.jobs.is_empty() {
        return Err(SimError::new("network.jobs", "the network has no job"));
    }
    for c in &mut p.classes {
        let job = &p.jobs[c.job as usize];
        let closed = job.rate.is_none() && job.think == 0;
        c.plain = closed && c.lookup.is_none() && c.background.is_none() && c.dirty.is_none();
    }
    Ok(p)
}
