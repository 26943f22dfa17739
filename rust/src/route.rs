//! Routes compiled into instructions: a class's steps (visits, forks, holds) become one
//! flat array that the event loop walks with a program counter, with service times
//! precomputed and every resource and slot limit referred to by index.

use std::collections::BTreeMap;

pub use crate::defs::{ForkDef, Member};
use crate::defs::LoadDef;
use crate::error::SimError;
use crate::input::*;

/// How a delay visit's time is drawn around its mean.
#[derive(Debug, Clone, Copy)]
pub enum DelayKind {
    Deterministic,
    Exponential,
    /// `mean × exp(sigma × z − sigma² / 2)`, z standard normal; the factors after `mean`
    /// come in blocks from stream `stream` (one per distinct sigma, see `Program::sigmas`).
    Lognormal { sigma: f64, stream: u32 },
}

/// One instruction of a route.
#[derive(Debug, Clone, Copy)]
pub enum Op {
    /// Visit cap `cap`: `ops` and `bytes` are what the IO spends of credit buckets; `base` and
    /// `burst` the service times in ns at the baseline and burst caps. `ahead`: the visit is
    /// taken as soon as the IO gets there, without waiting for the clock (see [`chain`]).
    /// `next`: the instruction after (jumps folded in).
    Cap { cap: u32, ops: f64, bytes: f64, base: f64, burst: f64, ahead: bool, next: u32 },
    /// Spend a time drawn around `mean` ns, then go on at `next`.
    Delay { mean: f64, kind: DelayKind, next: u32 },
    /// Spend a time drawn around the mean load delay of law `law` (see [`crate::load`]),
    /// reporting `work` ns of the law's cap (`burst` at its burst rates); go on at `next`.
    Load { law: u32, kind: DelayKind, work: f64, burst: f64, next: u32 },
    /// Start branches of fork `fork`; the IO goes on at `next` once they all end.
    Fork { fork: u32, next: u32 },
    Acquire { slot: u32 },
    Release { slot: u32 },
    /// Go on at `pc` (the end of the branch a one-branch fork sent the IO down).
    Goto { pc: u32 },
    /// End of a fork's branch (its thread joins the fork's other branches).
    End,
    /// End of a route or of a background route: the IO completes (or its background
    /// work is done) when the clock gets there.
    Done,
    // The instructions below replace the general ones above where a route allows it
    // (see [`specialize`]): the same steps, without the checks the general ones make.
    /// A `Cap` visit of a cap at a fixed rate (no burst, deterministic service):
    /// `service` ns.
    Fixed { cap: u32, service: f64, ahead: bool, next: u32 },
    /// A `Fork` that sends the IO down one branch picked at random, every branch one
    /// `Fixed` visit going on at `next`: members `first..first + n` of `Program::members`.
    Stripe { first: u32, n: u32, next: u32 },
    /// A `Delay` of kind `Lognormal` (factors from stream `stream`). `wait`: the next
    /// instruction waits for the clock (see [`Op::waits`]), so the IO stops here when the
    /// delay takes it past the clock.
    Lognormal { mean: f64, stream: u32, wait: bool, next: u32 },
    /// A `Stripe` whose IOs go on at a `Lognormal` delay: the two in one instruction (one
    /// dispatch fewer), the delay's fields here and going on at its `next`. The delay's own
    /// instruction stays where it is: a member visit that waits for the clock goes on there.
    StripeLognormal { first: u32, n: u32, mean: f64, stream: u32, wait: bool, next: u32 },
}

impl Op {
    /// The cap a visit instruction visits and whether it is taken ahead of the clock.
    pub fn visit(&self) -> Option<(u32, bool)> {
        match *self {
            Op::Cap { cap, ahead, .. } | Op::Fixed { cap, ahead, .. } => Some((cap, ahead)),
            _ => None,
        }
    }
}

impl Op {
    /// Whether the instruction waits for the clock to reach the IO's time before it is
    /// taken (the events of an IO's walk are these instructions).
    pub fn waits(&self) -> bool {
        match *self {
            Op::Cap { ahead, .. } | Op::Fixed { ahead, .. } => !ahead,
            Op::Acquire { .. } | Op::Release { .. } | Op::Done => true,
            _ => false,
        }
    }
}

/// Service time in ns of `bytes` at `ops_rate` ops/s and `byte_rate` bytes/s (0 when uncapped).
fn demand(ops: f64, bytes: f64, ops_rate: Option<f64>, byte_rate: Option<f64>) -> f64 {
    let mut d = 0.0f64;
    if let Some(r) = ops_rate {
        d = ops / r;
    }
    if let Some(r) = byte_rate {
        d = d.max(bytes / r);
    }
    d * 1e9
}

/// Flattens routes into one array of instructions, checking every reference.
pub struct RouteBuilder<'a> {
    pub resources: &'a [ResourceIn],
    /// The cap index of each resource (None for delays).
    pub cap_of: Vec<Option<u32>>,
    pub res_index: BTreeMap<&'a str, u32>,
    pub slot_index: BTreeMap<&'a str, u32>,
    turn_index: BTreeMap<String, u32>,
    /// The first instruction of each route built, by its steps (see `route`).
    routes: BTreeMap<String, u32>,
    pub ops: Vec<Op>,
    pub forks: Vec<ForkDef>,
    pub loads: Vec<LoadDef>,
    /// The sigma of each lognormal stream.
    pub sigmas: Vec<f64>,
}

impl<'a> RouteBuilder<'a> {
    pub fn new(
        resources: &'a [ResourceIn],
        cap_of: Vec<Option<u32>>,
        res_index: BTreeMap<&'a str, u32>,
        slot_index: BTreeMap<&'a str, u32>,
    ) -> Self {
        RouteBuilder {
            resources,
            cap_of,
            res_index,
            slot_index,
            turn_index: BTreeMap::new(),
            routes: BTreeMap::new(),
            ops: Vec::new(),
            forks: Vec::new(),
            loads: Vec::new(),
            sigmas: Vec::new(),
        }
    }

    /// Round-robin counters needed (one per distinct set of fork branches).
    pub fn turns(&self) -> usize {
        self.turn_index.len()
    }

    /// Appends a route (or a background route) ending in `End`; returns its first instruction.
    /// Routes with the same steps share their instructions (the reads' and the writes'
    /// often do): an IO's first instructions then do not depend on its class.
    pub fn route(&mut self, steps: &[StepIn], field: &str) -> Result<u32, SimError> {
        let key = format!("{steps:?}");
        if let Some(&at) = self.routes.get(&key) {
            return Ok(at);
        }
        let at = self.ops.len() as u32;
        self.steps(steps, field)?;
        self.ops.push(Op::Done);
        self.routes.insert(key, at);
        Ok(at)
    }

    /// Whether an IO walking `steps` surely spends time (at least 1 ns on average) even on
    /// an idle path: a cap that serves it, or a delay, on every way through.
    pub fn takes_time(&self, steps: &[StepIn]) -> bool {
        steps.iter().any(|s| match s {
            StepIn::Visit(v) => match self.visit_op(v, "") {
                Ok(Op::Cap { base, burst, .. }) => base.min(burst) >= 1.0,
                Ok(Op::Delay { mean, .. }) => mean >= 1.0,
                _ => false,
            },
            StepIn::Hold(h) => self.takes_time(&h.steps),
            StepIn::Load(_) => false, // nothing at a light load
            StepIn::Fork(f) => {
                let timed = f.branches.iter().filter(|b| self.takes_time(b)).count();
                // The fork lasts as long as its slowest chosen branch.
                timed + f.choose.min(f.branches.len()) > f.branches.len()
            }
        })
    }

    fn steps(&mut self, steps: &[StepIn], field: &str) -> Result<(), SimError> {
        for (i, s) in steps.iter().enumerate() {
            let f = format!("{field}[{i}]");
            match s {
                StepIn::Visit(v) => self.visit(v, &format!("{f}.visit"))?,
                StepIn::Fork(fk) => self.fork(fk, &format!("{f}.fork"))?,
                StepIn::Hold(h) => {
                    let slot = *self.slot_index.get(h.slot_limit.as_str()).ok_or_else(|| {
                        SimError::new(format!("{f}.hold.slot_limit"), format!("unknown slot limit '{}'", h.slot_limit))
                    })?;
                    self.ops.push(Op::Acquire { slot });
                    self.steps(&h.steps, &format!("{f}.hold.steps"))?;
                    self.ops.push(Op::Release { slot });
                }
                StepIn::Load(l) => {
                    let op = self.load(l, &format!("{f}.load"))?;
                    self.ops.push(op);
                }
            }
        }
        Ok(())
    }

    fn visit(&mut self, v: &VisitIn, field: &str) -> Result<(), SimError> {
        let mut op = self.visit_op(v, field)?;
        let after = self.ops.len() as u32 + 1;
        if let Op::Cap { next, .. } | Op::Delay { next, .. } = &mut op {
            *next = after;
        }
        if let Op::Delay { kind: DelayKind::Lognormal { sigma, stream }, .. } = &mut op {
            // Delays with the same sigma share a stream.
            *stream = match self.sigmas.iter().position(|s| s.to_bits() == sigma.to_bits()) {
                Some(k) => k as u32,
                None => {
                    self.sigmas.push(*sigma);
                    (self.sigmas.len() - 1) as u32
                }
            };
        }
        self.ops.push(op);
        Ok(())
    }

    /// The instruction of one visit: a cap's service times, or a delay's mean and law.
    fn visit_op(&self, v: &VisitIn, field: &str) -> Result<Op, SimError> {
        let r = *self
            .res_index
            .get(v.resource.as_str())
            .ok_or_else(|| SimError::new(format!("{field}.resource"), format!("unknown resource '{}'", v.resource)))?;
        let res = &self.resources[r as usize];
        if let Some(cap) = &res.cap {
            let ops = match cap.io_unit {
                Some(u) if u > 0 => (v.bytes.div_ceil(u)).max(1) as f64,
                _ => 1.0,
            };
            let b = v.bytes as f64;
            let base = demand(ops, b, cap.ops_per_s, cap.bytes_per_s);
            let burst = match &cap.burst {
                Some(bu) => demand(ops, b, bu.ops_per_s.or(cap.ops_per_s), bu.bytes_per_s.or(cap.bytes_per_s)),
                None => base,
            };
            let cap = self.cap_of[r as usize].expect("a resource with a cap has a cap index");
            Ok(Op::Cap { cap, ops, bytes: b, base, burst, ahead: false, next: 0 })
        } else {
            let d = res.delay.as_ref().expect("a resource without a cap is a delay");
            if !(v.latency.is_finite() && v.latency >= 0.0) {
                return Err(SimError::new(format!("{field}.latency"), "must be a number of seconds >= 0"));
            }
            let kind = match d.distribution {
                Distribution::Deterministic => DelayKind::Deterministic,
                Distribution::Exponential => DelayKind::Exponential,
                Distribution::Lognormal => DelayKind::Lognormal { sigma: (1.0 + d.cv * d.cv).ln().sqrt(), stream: 0 },
            };
            Ok(Op::Delay { mean: v.latency * 1e9, kind, next: 0 })
        }
    }

    /// The instruction of a load step: its law (shared by equal laws), the delay's law of
    /// draws, and the IO's service time at the law's cap.
    fn load(&mut self, l: &LoadIn, field: &str) -> Result<Op, SimError> {
        let kind = match self.visit_op(&VisitIn { resource: l.resource.clone(), bytes: l.bytes, latency: 0.0 }, field)? {
            Op::Delay { kind, .. } => kind,
            _ => return Err(SimError::new(format!("{field}.resource"), format!("'{}' is not a delay", l.resource))),
        };
        let at = VisitIn { resource: l.cap.clone(), bytes: l.bytes, latency: 0.0 };
        let (cap, work, burst) = match self.visit_op(&at, &format!("{field}.cap")) {
            Ok(Op::Cap { cap, base, burst, .. }) => (cap, base, burst),
            Ok(_) => return Err(SimError::new(format!("{field}.cap"), format!("'{}' is not a cap", l.cap))),
            Err(e) => return Err(SimError::new(format!("{field}.cap"), e.message)),
        };
        let def = LoadDef::new(l, cap, field)?;
        let law = match self.loads.iter().position(|d| *d == def) {
            Some(i) => i,
            None => {
                self.loads.push(def);
                self.loads.len() - 1
            }
        } as u32;
        Ok(Op::Load { law, kind, work, burst, next: self.ops.len() as u32 + 1 })
    }

    fn fork(&mut self, fk: &ForkIn, field: &str) -> Result<(), SimError> {
        if fk.branches.is_empty() {
            return Err(SimError::new(format!("{field}.branches"), "a fork needs at least one branch"));
        }
        if fk.choose == 0 {
            return Err(SimError::new(format!("{field}.choose"), "must be at least 1"));
        }
        let at = self.ops.len();
        let fork = self.forks.len() as u32;
        self.ops.push(Op::Fork { fork, next: 0 });
        // Forks over the same resources (the reads' and the writes' spread over the same
        // connections) take turns from one counter.
        let key = format!("{:?}|{}|{}", fk.pick, fk.choose, self.signature(&fk.branches));
        let n = self.turn_index.len() as u32;
        let turn = *self.turn_index.entry(key).or_insert(n);
        self.forks.push(ForkDef {
            choose: fk.choose.min(fk.branches.len()) as u32,
            pick: fk.pick,
            starts: Vec::new(),
            turn,
        });
        // A fork that takes one branch needs no join: the IO itself goes down the branch
        // and jumps back (`Goto`) at its end.
        let alone = fk.choose == 1 || fk.branches.len() == 1;
        let mut starts = Vec::with_capacity(fk.branches.len());
        let mut ends = Vec::with_capacity(fk.branches.len());
        for (b, branch) in fk.branches.iter().enumerate() {
            starts.push(self.ops.len() as u32);
            self.steps(branch, &format!("{field}.branches[{b}]"))?;
            ends.push(self.ops.len());
            self.ops.push(Op::End);
        }
        self.forks[fork as usize].starts = starts;
        let next = self.ops.len() as u32;
        if alone {
            for e in ends {
                self.ops[e] = Op::Goto { pc: next };
            }
        }
        self.ops[at] = Op::Fork { fork, next };
        Ok(())
    }

    fn signature(&self, branches: &[Vec<StepIn>]) -> String {
        fn walk(steps: &[StepIn], out: &mut String) {
            for s in steps {
                match s {
                    StepIn::Visit(v) => out.push_str(&format!("v:{};", v.resource)),
                    StepIn::Load(l) => out.push_str(&format!("l:{};", l.resource)),
                    StepIn::Hold(h) => {
                        out.push_str(&format!("h:{}(", h.slot_limit));
                        walk(&h.steps, out);
                        out.push(')');
                    }
                    StepIn::Fork(f) => {
                        out.push_str("f(");
                        for b in &f.branches {
                            walk(b, out);
                            out.push('|');
                        }
                        out.push(')');
                    }
                }
            }
        }
        let mut out = String::new();
        for b in branches {
            walk(b, &mut out);
            out.push('/');
        }
        out
    }
}


/// Shortens the walk through routes once they are all built: visits go straight to where
/// the jumps after them lead, and visits that need not wait for the clock are marked
/// (see [`chain`]). `bursts` tells whether a cap bursts.
pub fn fuse(ops: &mut [Op], forks: &[ForkDef], bursts: impl Fn(u32) -> bool) {
    for k in 0..ops.len() {
        if let Op::Cap { next, .. } | Op::Delay { next, .. } = ops[k] {
            let mut to = next;
            while let Op::Goto { pc } = ops[to as usize] {
                to = pc;
            }
            if let Op::Cap { next, .. } | Op::Delay { next, .. } = &mut ops[k] {
                *next = to;
            }
        }
    }
    chain(ops, forks, bursts);
}

/// Replaces general instructions by the special ones (see [`Op`]) where the route allows:
/// visits of fixed-rate caps (`fixed` tells which caps are), lognormal delays, and random
/// stripes over fixed-rate caps. Returns the stripes' members. Run once the routes are
/// fused and chained: it changes no instruction's position, so every jump stays valid.
pub fn specialize(ops: &mut [Op], forks: &[ForkDef], fixed: impl Fn(u32) -> bool) -> Vec<Member> {
    for op in ops.iter_mut() {
        if let Op::Cap { cap, base, ahead, next, .. } = *op {
            if fixed(cap) {
                *op = Op::Fixed { cap, service: base, ahead, next };
            }
        }
    }
    for k in 0..ops.len() {
        if let Op::Delay { mean, kind: DelayKind::Lognormal { stream, .. }, next } = ops[k] {
            let wait = ops[next as usize].waits();
            ops[k] = Op::Lognormal { mean, stream, wait, next };
        }
    }
    let mut members = Vec::new();
    for k in 0..ops.len() {
        let Op::Fork { fork, next } = ops[k] else { continue };
        let f = &forks[fork as usize];
        if f.choose != 1 || f.pick != Pick::Random || f.starts.len() < 2 {
            continue;
        }
        let branch = |&pc: &u32| match ops[pc as usize] {
            Op::Fixed { cap, service, ahead, next: to } if to == next => Some(Member { cap, ahead, pc, service }),
            _ => None,
        };
        if let Some(list) = f.starts.iter().map(branch).collect::<Option<Vec<Member>>>() {
            ops[k] = Op::Stripe { first: members.len() as u32, n: list.len() as u32, next };
            members.extend(list);
        }
    }
    for k in 0..ops.len() {
        let Op::Stripe { first, n, next } = ops[k] else { continue };
        if let Op::Lognormal { mean, stream, wait, next } = ops[next as usize] {
            ops[k] = Op::StripeLognormal { first, n, mean, stream, wait, next };
        }
    }
    members
}

/// Marks the visits that need not wait for the simulation clock (`ahead`), so that an IO
/// walks through them at once instead of waiting as an event.
///
/// A cap's visits must be taken in the order of their arrival times. A FIFO cap hands its
/// IOs on in the order they arrived, at non-decreasing times, whatever its service times.
/// So when every visit of cap `C` comes straight after a visit of one same other cap `P`
/// (the instruction before it, or before the fork whose branch it starts), `C`'s arrivals
/// are `P`'s departures, produced in `P`'s visiting order: taking `C`'s visits as soon as
/// they are known keeps them in time order. (`P`'s own visits are in time order, waited for
/// or chained themselves.) Bursting caps always wait: their credit levels are sampled
/// over time.
fn chain(ops: &mut [Op], forks: &[ForkDef], bursts: impl Fn(u32) -> bool) {
    // The fork instruction whose branch starts at each instruction.
    let mut fork_at = vec![u32::MAX; ops.len()];
    let mut fork_pos = vec![0u32; forks.len()];
    for (k, op) in ops.iter().enumerate() {
        if let Op::Fork { fork, .. } = op {
            fork_pos[*fork as usize] = k as u32;
        }
    }
    for (f, def) in forks.iter().enumerate() {
        for &s in &def.starts {
            fork_at[s as usize] = fork_pos[f];
        }
    }
    // The cap visited straight before instruction k, if any.
    let before = |mut k: usize| -> Option<u32> {
        while fork_at[k] != u32::MAX {
            k = fork_at[k] as usize;
        }
        match k.checked_sub(1).map(|j| &ops[j]) {
            Some(Op::Cap { cap, .. }) => Some(*cap),
            _ => None,
        }
    };
    // Per cap: the one cap before all its visits (None: not the same one every time).
    let mut feeder: BTreeMap<u32, Option<u32>> = BTreeMap::new();
    for (k, op) in ops.iter().enumerate() {
        if let Op::Cap { cap, .. } = op {
            let p = before(k).filter(|p| p != cap);
            feeder.entry(*cap).and_modify(|f| if *f != p { *f = None }).or_insert(p);
        }
    }
    for op in ops.iter_mut() {
        if let Op::Cap { cap, ahead, .. } = op {
            *ahead = !bursts(*cap) && feeder[cap].is_some();
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::input::NetworkIn;
    use crate::program::compile;
    use serde_json::{json, Value};

    fn cap(id: &str, burst: bool) -> Value {
        let burst = if burst { json!({"ops_per_s": 2000.0, "credit_ops": 1e5}) } else { Value::Null };
        json!({"id": id, "label": id, "kind": "disk", "cap": {"ops_per_s": 1000.0, "burst": burst}})
    }

    fn visit(r: &str) -> Value {
        json!({"visit": {"resource": r, "bytes": 4096}})
    }

    /// The resources whose visits are taken at once, for classes with these routes.
    fn ahead(resources: Vec<Value>, routes: Vec<Vec<Value>>) -> Vec<String> {
        let classes: Vec<Value> = routes
            .into_iter()
            .enumerate()
            .map(|(i, r)| json!({"id": format!("c{i}"), "job": 0, "direction": "read", "probability": 1.0,
                                 "bytes": 4096, "route": r}))
            .collect();
        let net: NetworkIn = serde_json::from_value(json!({
            "resources": resources,
            "jobs": [{"name": "j", "group": "j", "population": 4, "working_set": 1 << 20}],
            "classes": classes,
        }))
        .unwrap();
        let p = compile(&net).unwrap();
        let mut out: Vec<String> = p
            .ops
            .iter()
            .filter_map(|op| match op {
                _ => match op.visit() {
                    Some((cap, true)) => Some(p.resources[p.caps[cap as usize].resource as usize].id.clone()),
                    _ => None,
                },
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }

    #[test]
    fn a_stripe_behind_one_cap_is_visited_at_once() {
        let stripe = json!({"fork": {"branches": [[visit("d0")], [visit("d1")]], "choose": 1}});
        let both = json!({"fork": {"branches": [[visit("d0")], [visit("d1")]], "choose": 2}});
        let res = vec![cap("vm", false), cap("d0", false), cap("d1", false)];
        assert_eq!(ahead(res.clone(), vec![vec![visit("vm"), stripe.clone()]]), ["d0", "d1"]);
        // Every branch of a fork that takes them all follows the cap before the fork too.
        assert_eq!(ahead(res.clone(), vec![vec![visit("vm"), both]]), ["d0", "d1"]);
        // Reads and writes both reach the disks through the VM: still in order.
        assert_eq!(ahead(res.clone(), vec![vec![visit("vm"), stripe.clone()], vec![visit("vm"), stripe]]), ["d0", "d1"]);
    }

    #[test]
    fn caps_fed_otherwise_wait_for_the_clock() {
        let res = vec![cap("a", false), cap("b", false), cap("c", false)];
        // The first cap of a route waits (its IOs come from the clock).
        assert_eq!(ahead(res.clone(), vec![vec![visit("a")]]), Vec::<String>::new());
        // c is reached from a in one class and from b in the other: two streams, out of order.
        assert_eq!(ahead(res.clone(), vec![vec![visit("a"), visit("c")], vec![visit("b"), visit("c")]]), Vec::<String>::new());
        // c after a in one class, first in the other.
        assert_eq!(ahead(res.clone(), vec![vec![visit("a"), visit("c")], vec![visit("c")]]), Vec::<String>::new());
        // A cap visited twice in a row feeds itself.
        assert_eq!(ahead(res.clone(), vec![vec![visit("a"), visit("a")]]), Vec::<String>::new());
        // A delay between two caps breaks the chain.
        let lat = json!({"id": "z", "label": "z", "kind": "disk", "delay": {"distribution": "exponential"}});
        let with_delay = vec![visit("a"), json!({"visit": {"resource": "z", "bytes": 4096, "latency": 0.001}}), visit("b")];
        assert_eq!(ahead(vec![cap("a", false), cap("b", false), lat], vec![with_delay]), Vec::<String>::new());
        // A bursting cap always waits: its credit levels are sampled over time.
        assert_eq!(ahead(vec![cap("a", false), cap("b", true)], vec![vec![visit("a"), visit("b")]]), Vec::<String>::new());
        // A chain of three: b after a, c after b.
        assert_eq!(ahead(res, vec![vec![visit("a"), visit("b"), visit("c")]]), ["b", "c"]);
    }
}
