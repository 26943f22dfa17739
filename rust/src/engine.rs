//! The event loop of one replication.
//!
//! An IO is a *thread* walking its class's instructions with its own clock `tl`. Steps that
//! touch nothing shared (a delay, joining a fork) advance `tl` at once; steps whose order
//! matters (arriving at a cap, taking or giving back a slot, completing) wait until the
//! simulation clock reaches `tl`, as an event in the event queue. Times are integer
//! nanoseconds; every operation is deterministic, so a run is a pure function of its seed.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;

use crate::cache::HostCache;
use crate::cap::CapServer;
pub use crate::control::{Control, Limits, Stop};
use crate::histogram::Histogram;
use crate::input::Pick;
use crate::load::LoadMeter;
use crate::program::{ClassDef, DelayKind, Op, Program, DIRTY_LIMIT};
use crate::queue::EventQueue;
use crate::rng::{Lognormals, Rng};
use crate::series::Series;
use crate::slots::SlotState;
use crate::index::{at, at_mut};
use crate::time::nearest;

/// Ops and bytes credits of a bursting cap (None: no such bucket).
type Credit = (Option<f64>, Option<f64>);

const NONE: u32 = u32::MAX;
const ARRIVAL: u32 = 1 << 31;
/// With [`ARRIVAL`]: a job's IO slot wakes from its think time (`ARRIVAL | WAKE | job`).
const WAKE: u32 = 1 << 30;
/// Most threads (IOs and fork branches) alive at once, beyond twice the closed jobs'
/// populations, before a run stops as overloaded.
pub const MAX_LIVE: usize = 4_000_000;
/// Events between two looks at the cancel flag (and two progress updates).
const CHECK_EVERY: u64 = 4096;

const ROOT: u8 = 0;
const BRANCH: u8 = 1;
const BACKGROUND: u8 = 2;

#[derive(Debug, Clone, Copy)]
struct Thread {
    pc: u32,
    parent: u32,
    remaining: u32,
    class: u32,
    kind: u8,
    /// For an IO that looked its block up in a cache: 1 missed, 2 hit (0: no lookup).
    lookup: u8,
    start: u64,
    tl: u64,
}

/// A host cache's unflushed writes: the background flushes under way, and the writes
/// waiting for one of them to finish before they are acknowledged (first in, first out).
#[derive(Debug, Clone, Default)]
struct Dirty {
    pending: u32,
    parked: VecDeque<u32>,
}

#[derive(Debug, Clone, Default)]
struct JobState {
    busy: u64,
    backlog: u64,
    cursor: u64,
    arrivals: u64,
}

/// What one replication measured.
#[derive(Debug, Clone)]
pub struct RunResult {
    pub seed: u64,
    pub stop: Stop,
    /// Measured nanoseconds (from the end of the ramp to the stop).
    pub measured: u64,
    pub classes: Vec<Histogram>,
    pub series: Series,
    pub caps: Vec<CapServer>,
    /// Busy ns of each cap in the measured period.
    pub busy: Vec<f64>,
    pub slots: Vec<SlotState>,
    pub caches: Vec<(u64, u64)>,
}

pub struct Engine<'p> {
    p: &'p Program,
    limits: Limits,
    seed: u64,
    rng: Rng,
    lognormals: Vec<Lognormals>,
    now: u64,
    heap: EventQueue,
    threads: Vec<Thread>,
    free: Vec<u32>,
    stack: Vec<u32>,
    caps: Vec<CapServer>,
    slots: Vec<SlotState>,
    caches: Vec<HostCache>,
    turns: Vec<u64>,
    perms: Vec<Vec<u32>>,
    jobs: Vec<JobState>,
    hist: Vec<Histogram>,
    counted: u64,
    series: Series,
    max_live: usize,
    meters: Vec<LoadMeter>,
    dirty: Vec<Dirty>,
}

impl<'p> Engine<'p> {
    pub fn new(p: &'p Program, limits: Limits, seed: u64) -> Self {
        Engine {
            p,
            limits,
            seed,
            rng: Rng::new(seed),
            lognormals: p.sigmas.iter().map(|&s| Lognormals::new(s)).collect(),
            now: 0,
            heap: EventQueue::new(),
            threads: Vec::new(),
            free: Vec::new(),
            stack: Vec::new(),
            caps: p.caps.iter().map(|c| CapServer::new(c, limits.ramp)).collect(),
            slots: p.slots.iter().map(|s| SlotState::new(s.slots, limits.ramp)).collect(),
            caches: p.caches.iter().map(|c| HostCache::new(c, &p.jobs)).collect(),
            turns: vec![0; p.turns],
            perms: p.forks.iter().map(|f| (0..f.starts.len() as u32).collect()).collect(),
            jobs: vec![JobState::default(); p.jobs.len()],
            hist: vec![Histogram::new(); p.classes.len()],
            counted: 0,
            series: Series::new(limits.ramp, limits.interval),
            max_live: MAX_LIVE
                + 2 * p.jobs.iter().filter(|j| j.rate.is_none()).map(|j| j.population as usize).sum::<usize>(),
            meters: vec![LoadMeter::default(); p.loads.len()],
            dirty: vec![Dirty::default(); p.dirties],
        }
    }

    /// Runs until the limits, the cancel flag or an overload stop it. `rep` is this
    /// replication's index in `control.fractions`.
    pub fn run(mut self, control: &Control, rep: usize) -> RunResult {
        for j in 0..self.p.jobs.len() {
            let job = &self.p.jobs[j];
            match job.rate {
                Some(rate) => {
                    let first = if job.poisson { nearest(self.rng.exp1() / rate) } else { 0 };
                    self.heap.push(first, ARRIVAL | j as u32);
                }
                None => {
                    for _ in 0..job.population {
                        self.issue(j);
                    }
                }
            }
        }
        self.drain();
        // No limit: never reached.
        let end = self.limits.duration.map_or(u64::MAX, |d| self.limits.ramp + d);
        let ios = self.limits.ios.unwrap_or(u64::MAX);
        let mut events = 0u64;
        let mut reported = 0u64;
        let p = self.p;
        let stop = loop {
            let Some((t, what)) = self.heap.pop() else {
                break Stop::Stalled;
            };
            if t >= end {
                self.now = end;
                break Stop::Duration;
            }
            self.now = t;
            while t >= self.series.next {
                self.close_interval();
            }
            if what & ARRIVAL != 0 {
                let j = (what & !(ARRIVAL | WAKE)) as usize;
                if what & WAKE != 0 {
                    self.wake(j);
                } else {
                    self.arrival(j);
                }
            } else {
                self.walk(p, what); // inlined: one walk per event, most often
            }
            if !self.stack.is_empty() {
                self.drain();
            }
            if self.counted >= ios {
                break Stop::Ios;
            }
            events += 1;
            if events.is_multiple_of(CHECK_EVERY) {
                control.ios.fetch_add(self.counted - reported, Ordering::Relaxed);
                reported = self.counted;
                control.fractions[rep].store(self.fraction().to_bits(), Ordering::Relaxed);
                if control.cancel.load(Ordering::Relaxed) {
                    break Stop::Cancelled;
                }
                if self.threads.len() - self.free.len() > self.max_live {
                    break Stop::Overload;
                }
            }
        };
        control.ios.fetch_add(self.counted - reported, Ordering::Relaxed);
        control.fractions[rep].store(1f64.to_bits(), Ordering::Relaxed);
        self.finish(stop)
    }

    fn fraction(&self) -> f64 {
        match (self.limits.ios, self.limits.duration) {
            (Some(n), _) => self.counted as f64 / n as f64,
            (None, Some(d)) => self.now as f64 / (self.limits.ramp + d) as f64,
            _ => 0.0,
        }
    }

    fn finish(mut self, stop: Stop) -> RunResult {
        let end = self.now.max(self.limits.ramp);
        while self.series.next <= end && stop == Stop::Duration {
            self.close_interval();
        }
        let (credits, cache) = self.samples(end);
        self.series.finish(end, credits, cache);
        let ramp = self.limits.ramp;
        for s in &mut self.slots {
            s.finish(end);
        }
        RunResult {
            seed: self.seed,
            stop,
            measured: end - ramp,
            classes: self.hist,
            busy: self.caps.iter().map(|c| c.busy_until(end)).collect(),
            caps: self.caps,
            series: self.series,
            slots: self.slots,
            caches: self.caches.iter().map(|c| (c.lookups, c.hits)).collect(),
        }
    }

    /// Credit levels of the bursting caps at `t`, and the caches' lookups and hits since the
    /// last sample (which this resets).
    fn samples(&mut self, t: u64) -> (Vec<Credit>, Vec<(u64, u64)>) {
        let credits = self
            .p
            .caps
            .iter()
            .zip(&self.caps)
            .filter(|(d, _)| d.bursts)
            .map(|(_, c)| (c.ops.map(|b| b.level_at(t as f64)), c.bytes.map(|b| b.level_at(t as f64))))
            .collect();
        let cache = self
            .caches
            .iter_mut()
            .map(|c| {
                let v = (c.interval_lookups, c.interval_hits);
                c.interval_lookups = 0;
                c.interval_hits = 0;
                v
            })
            .collect();
        (credits, cache)
    }

    fn close_interval(&mut self) {
        let (credits, cache) = self.samples(self.series.next);
        self.series.close(credits, cache);
    }

    #[inline]
    fn alloc(&mut self, th: Thread) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.threads[i as usize] = th;
                i
            }
            None => {
                self.threads.push(th);
                (self.threads.len() - 1) as u32
            }
        }
    }

    fn arrival(&mut self, j: usize) {
        let job = &self.p.jobs[j];
        if self.jobs[j].busy < job.population {
            self.issue(j);
        } else {
            self.jobs[j].backlog += 1;
        }
        let rate = job.rate.expect("arrivals only for rated jobs");
        let next = if job.poisson {
            self.now + nearest(self.rng.exp1() / rate)
        } else {
            // Even spacing from time 0, without drift.
            self.jobs[j].arrivals += 1;
            nearest(self.jobs[j].arrivals as f64 / rate)
        };
        self.heap.push(next, ARRIVAL | j as u32);
    }

    /// Starts job `j`'s next IO now in a new thread.
    fn issue(&mut self, j: usize) {
        self.jobs[j].busy += 1;
        self.resume(j);
    }

    /// Starts job `j`'s next IO now in a new thread, in a slot already counted busy.
    fn resume(&mut self, j: usize) {
        let th = self.next_io(self.p, j);
        let t = self.alloc(th);
        self.stack.push(t);
    }

    /// A slot of job `j` ends its think time: a closed job issues its next IO in it; a
    /// rate-limited one only when an arrival waits, else the slot is free.
    fn wake(&mut self, j: usize) {
        if self.p.jobs[j].rate.is_none() {
            self.resume(j);
        } else if self.jobs[j].backlog > 0 {
            self.jobs[j].backlog -= 1;
            self.resume(j);
        } else {
            self.jobs[j].busy -= 1;
        }
    }

    /// Job `j`'s next IO, starting now: draws its class, looks its block up in the cache.
    /// (The caller counts it in the job's busy IOs.)
    #[inline(always)]
    fn next_io(&mut self, p: &Program, j: usize) -> Thread {
        let job = at(&p.jobs, j);
        let n = job.choices.len();
        let choice = if n == 1 {
            &job.choices[0]
        } else {
            // The first choice whose cumulative probability reaches u = m / 2^53 (as
            // `Rng::open01` makes it), counted without a branch on u (the draw decides
            // nothing the processor could predict), in integers.
            let m = self.rng.open01_units();
            let k = if n == 2 {
                (m > job.choices[0].below) as usize
            } else {
                job.choices[..n - 1].iter().map(|c| (m > c.below) as usize).sum()
            };
            at(&job.choices, k)
        };
        let mut class = choice.hit;
        let mut lookup = 0;
        if let Some((ci, offset)) = choice.cache {
            let state = &mut self.jobs[j];
            let block = if job.sequential {
                let b = state.cursor / job.coarse;
                state.cursor = (state.cursor + 1) % job.fine;
                b
            } else {
                self.rng.below(job.blocks)
            };
            let id = offset + block;
            let cache = &mut self.caches[ci as usize];
            if choice.lookup {
                let hit = cache.contains(id);
                if !hit {
                    class = choice.miss;
                }
                lookup = 1 + hit as u8;
            }
            cache.insert(id, job.block_bytes);
        }
        let pc = match job.route {
            Some(route) => route, // the same whatever the draw
            None if lookup == 1 => choice.miss_route,
            None => choice.hit_route,
        };
        Thread { pc, parent: NONE, remaining: 0, class, kind: ROOT, lookup, start: self.now, tl: self.now }
    }

    #[inline(never)]
    fn drain(&mut self) {
        while let Some(t) = self.stack.pop() {
            self.exec(t);
        }
    }

    #[inline(always)]
    fn delay(&mut self, mean: f64, kind: DelayKind) -> u64 {
        let d = match kind {
            DelayKind::Deterministic => mean,
            DelayKind::Exponential => mean * self.rng.exp1(),
            DelayKind::Lognormal { stream, .. } => mean * at_mut(&mut self.lognormals, stream as usize).draw(&mut self.rng),
        };
        nearest(d)
    }

    /// A load delay of law `law` drawn now (see [`crate::load`]).
    fn load(&mut self, law: u32, kind: DelayKind, work: f64, burst: f64) -> u64 {
        let def = &self.p.loads[law as usize];
        let mean = self.meters[law as usize].pass(def, &self.caps[def.cap as usize], self.now, work, burst);
        self.delay(mean, kind)
    }

    /// The `k`-th branch (0-based) that fork `fork` takes this time: the next in turn, or
    /// a partial Fisher–Yates shuffle of the fork's branch numbers (distinct branches).
    #[inline(always)]
    fn pick(&mut self, fork: u32, k: u32) -> u32 {
        let f = &self.p.forks[fork as usize];
        let n = f.starts.len() as u32;
        match f.pick {
            Pick::RoundRobin => {
                let turn = &mut self.turns[f.turn as usize];
                let b = (*turn % n as u64) as u32;
                *turn += 1;
                b
            }
            Pick::Random if n == 1 => 0,
            Pick::Random if f.choose == 1 => self.rng.below(n as u64) as u32,
            Pick::Random => {
                let r = k + self.rng.below((n - k) as u64) as u32;
                let perm = &mut self.perms[fork as usize];
                perm.swap(k as usize, r as usize);
                perm[k as usize]
            }
        }
    }

    /// A visit of stripe `first..first + n` (see [`Op::Stripe`]) by an IO at `tl`: when
    /// it leaves the member it picked, or (when the visit waits for the clock) the
    /// member's instruction.
    #[inline(always)]
    fn stripe(&mut self, p: &Program, first: u32, n: u32, tl: u64) -> Result<u64, u32> {
        let k = self.rng.below(n as u64) as u32;
        let m = *at(&p.members, (first + k) as usize);
        if !m.ahead && tl > self.now {
            return Err(m.pc);
        }
        Ok(at_mut(&mut self.caps, m.cap as usize).visit_fixed(tl, m.service))
    }

    /// A lognormal delay of mean `mean` with factors from stream `stream` (ns).
    #[inline(always)]
    fn lognormal(&mut self, mean: f64, stream: u32) -> u64 {
        nearest(mean * at_mut(&mut self.lognormals, stream as usize).draw(&mut self.rng))
    }

    /// Walks thread `tid` as far as it can go now.
    #[inline(never)]
    fn exec(&mut self, tid: u32) {
        self.walk(self.p, tid)
    }

    /// Walks thread `tid` as far as it can go now. Its program counter and clock live in
    /// locals while it walks and are stored back when it stops. (The program comes as an
    /// argument so that the compiler knows it does not change while the state does: its
    /// arrays' addresses stay in registers.)
    #[inline(always)]
    fn walk(&mut self, p: &Program, tid: u32) {
        let i = tid as usize;
        let (mut pc, mut tl) = (at(&self.threads, i).pc, at(&self.threads, i).tl);
        loop {
            match *at(&p.ops, pc as usize) {
                Op::Cap { cap, ops, bytes, base, burst, ahead, next } => {
                    if !ahead && tl > self.now {
                        break;
                    }
                    tl = at_mut(&mut self.caps, cap as usize).visit(tl, ops, bytes, base, burst, &mut self.rng);
                    pc = next;
                }
                Op::Fixed { cap, service, ahead, next } => {
                    if !ahead && tl > self.now {
                        break;
                    }
                    tl = at_mut(&mut self.caps, cap as usize).visit_fixed(tl, service);
                    pc = next;
                }
                Op::Stripe { first, n, next } => {
                    match self.stripe(p, first, n, tl) {
                        Ok(t) => tl = t,
                        Err(at) => {
                            pc = at; // to visit the member when the clock gets there
                            break;
                        }
                    }
                    pc = next;
                }
                Op::Lognormal { mean, stream, wait, next } => {
                    tl += self.lognormal(mean, stream);
                    pc = next;
                    if wait && tl > self.now {
                        break;
                    }
                }
                Op::StripeLognormal { first, n, mean, stream, wait, next } => {
                    match self.stripe(p, first, n, tl) {
                        Ok(t) => tl = t + self.lognormal(mean, stream),
                        Err(at) => {
                            pc = at;
                            break;
                        }
                    }
                    pc = next;
                    if wait && tl > self.now {
                        break;
                    }
                }
                Op::Delay { mean, kind, next } => {
                    tl += self.delay(mean, kind);
                    pc = next;
                }
                Op::Load { law, kind, work, burst, next } => {
                    tl += self.load(law, kind, work, burst);
                    pc = next;
                }
                Op::Fork { fork, next } => {
                    let f = at(&p.forks, fork as usize);
                    if f.choose == 1 {
                        // One branch: the IO goes down it itself (it ends in a Goto).
                        let n = f.starts.len();
                        let b = if f.pick == Pick::Random && n > 1 {
                            self.rng.below(n as u64) as usize // a stripe: the common case
                        } else {
                            self.pick(fork, 0) as usize
                        };
                        pc = *at(&f.starts, b);
                        continue;
                    }
                    let n = f.starts.len() as u32;
                    let t = &mut self.threads[i];
                    t.pc = next;
                    t.tl = tl;
                    t.remaining = f.choose;
                    let child = Thread { parent: tid, remaining: 0, kind: BRANCH, ..*t };
                    for k in 0..f.choose {
                        let b = if f.choose == n { k } else { self.pick(fork, k) };
                        let c = self.alloc(Thread { pc: f.starts[b as usize], ..child });
                        self.stack.push(c);
                    }
                    return;
                }
                Op::Goto { pc: to } => pc = to,
                Op::Acquire { slot } => {
                    if tl > self.now {
                        break;
                    }
                    if !self.slots[slot as usize].acquire(tid, self.now) {
                        // Parked until a release hands it the slot.
                        let t = &mut self.threads[i];
                        t.pc = pc;
                        t.tl = tl;
                        return;
                    }
                    pc += 1;
                }
                Op::Release { slot } => {
                    if tl > self.now {
                        break;
                    }
                    pc += 1;
                    if let Some(w) = self.slots[slot as usize].release(self.now) {
                        let wt = &mut self.threads[w as usize];
                        wt.pc += 1;
                        wt.tl = self.now;
                        self.stack.push(w);
                    }
                }
                Op::End => {
                    let th = *at(&self.threads, i);
                    debug_assert_eq!(th.kind, BRANCH);
                    self.free.push(tid);
                    let par = &mut self.threads[th.parent as usize];
                    par.tl = par.tl.max(tl);
                    par.remaining -= 1;
                    if par.remaining == 0 {
                        self.stack.push(th.parent);
                    }
                    return;
                }
                Op::Done => {
                    if tl > self.now {
                        break;
                    }
                    let th = *at(&self.threads, i);
                    let class = at(&p.classes, th.class as usize);
                    if class.plain {
                        // The common case (see `ClassDef::plain`): the IO completes and its
                        // thread is its job's next IO, walked on at once.
                        debug_assert_eq!(th.kind, ROOT);
                        self.record(class, th);
                        let next = self.next_io(p, class.job as usize);
                        let t = at_mut(&mut self.threads, i);
                        t.class = next.class;
                        t.lookup = next.lookup;
                        t.start = next.start;
                        pc = next.pc;
                        tl = self.now;
                        continue;
                    }
                    match th.kind {
                        BACKGROUND => {
                            self.free.push(tid);
                            self.flushed(p, th.class);
                        }
                        _ => {
                            debug_assert_eq!(th.kind, ROOT);
                            if let Some(d) = at(&p.classes, th.class as usize).dirty {
                                let dirty = &mut self.dirty[d as usize];
                                if dirty.pending >= DIRTY_LIMIT {
                                    // The cache is full of unflushed writes: acknowledged
                                    // when a flush completes (see `flushed`).
                                    dirty.parked.push_back(tid);
                                    let t = &mut self.threads[i];
                                    t.pc = pc;
                                    t.tl = tl;
                                    return;
                                }
                            }
                            if let Some(next) = self.complete(p, tid, th) {
                                // The thread is the job's next IO now: walk it on.
                                pc = next;
                                tl = self.now;
                                continue;
                            }
                        }
                    }
                    return;
                }
            }
        }
        // Waits for the clock to reach `tl`.
        let t = at_mut(&mut self.threads, i);
        t.pc = pc;
        t.tl = tl;
        self.heap.push(tl, tid);
    }

    /// A background flush of class `class` has finished now: one unflushed write fewer, which
    /// lets the oldest parked write (if any) complete.
    fn flushed(&mut self, p: &Program, class: u32) {
        let Some(d) = at(&p.classes, class as usize).dirty else { return };
        let dirty = &mut self.dirty[d as usize];
        dirty.pending -= 1;
        if let Some(w) = dirty.parked.pop_front() {
            let th = self.threads[w as usize];
            if let Some(pc) = self.complete(p, w, th) {
                // The job's next IO, starting now.
                let t = at_mut(&mut self.threads, w as usize);
                t.pc = pc;
                t.tl = self.now;
                self.stack.push(w);
            }
        }
    }

    /// Measures IO `th`, of class `class`, completing now (after the ramp).
    #[inline(always)]
    fn record(&mut self, class: &ClassDef, th: Thread) {
        if self.now < self.limits.ramp {
            return;
        }
        at_mut(&mut self.hist, th.class as usize).record(self.now - th.start);
        self.counted += 1;
        self.series.ios += 1;
        self.series.bytes += class.bytes;
        if let (Some((c, _)), true) = (class.lookup, th.lookup > 0) {
            // Lookups are counted as IOs are, when they complete.
            let hit = th.lookup == 2;
            let cache = &mut self.caches[c as usize];
            cache.lookups += 1;
            cache.interval_lookups += 1;
            cache.hits += hit as u64;
            cache.interval_hits += hit as u64;
        }
    }

    /// IO `tid` (whose state was `th`) completes now. When its thread becomes its job's
    /// next IO, returns the instruction it starts at (the caller stores it, and the IO's
    /// time, now, in the thread when it stops); otherwise the thread is freed.
    #[inline(always)]
    fn complete(&mut self, p: &Program, tid: u32, th: Thread) -> Option<u32> {
        let class = at(&p.classes, th.class as usize);
        let j = class.job as usize;
        self.record(class, th);
        if let Some(pc) = class.background {
            if let Some(d) = class.dirty {
                self.dirty[d as usize].pending += 1;
            }
            let bg = self.alloc(Thread {
                pc,
                parent: NONE,
                remaining: 0,
                class: th.class,
                kind: BACKGROUND,
                lookup: 0,
                start: self.now,
                tl: self.now,
            });
            self.stack.push(bg);
        }
        let think = at(&p.jobs, j).think;
        if think > 0 {
            // The slot stays busy while it thinks; its next IO (if any) starts at the wake.
            self.free.push(tid);
            self.heap.push(self.now + think, ARRIVAL | WAKE | j as u32);
            return None;
        }
        let again = if at(&p.jobs, j).rate.is_none() {
            true
        } else if self.jobs[j].backlog > 0 {
            self.jobs[j].backlog -= 1;
            true
        } else {
            false
        };
        if again {
            // One IO in for one out: busy stays. (The thread stays a root IO: its parent,
            // branch count and kind do not change.)
            let next = self.next_io(p, j);
            let t = at_mut(&mut self.threads, tid as usize);
            t.class = next.class;
            t.lookup = next.lookup;
            t.start = next.start;
            Some(next.pc)
        } else {
            self.jobs[j].busy -= 1;
            self.free.push(tid);
            None
        }
    }
}
