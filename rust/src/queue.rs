//! The event queue: a calendar queue (R. Brown, 1988) over a 4-ary heap.
//!
//! A discrete-event simulation never schedules before the event it is processing, so
//! events can wait in buckets of `2^shift` ns on a ring: pushing is linking the event into
//! its bucket's list, popping sorts the next non-empty bucket (a few events) and takes them
//! in order; a bitmap of the non-empty buckets finds the next one without stepping through
//! empty ones. Events beyond the ring's horizon wait in a 4-ary heap until the ring comes
//! round to them. Every `ADAPT_EVERY` events the bucket width is set to about two events per
//! bucket and the ring to about twice as many buckets as pending events (rebuilt when
//! either is off by 4×), so the cost per event stays constant whatever the network's time
//! scale and population. The lists live in one array of nodes (16 bytes per pending event)
//! and the ring is one array of list heads: a few kilobytes for a few hundred pending
//! events, in the processor's first-level cache. Events with equal times leave in an order
//! fixed by the sequence of operations: runs stay deterministic.

use crate::{at, at_mut};

/// Fewest and most buckets in the ring (the most: 16 MB of list heads; past 262,144
/// pending events the ring reaches fewer of them and more wait in the heap).
const MIN_RING: usize = 256;
const MAX_RING: usize = 1 << 22;
/// Events taken between two looks at the bucket width and the ring size.
const ADAPT_EVERY: u64 = 8192;
const NIL: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
struct Node {
    time: u64,
    what: u32,
    next: u32,
}

#[derive(Debug, Clone)]
pub struct EventQueue {
    shift: u32,
    /// Ring size − 1 (the ring size is a power of two).
    mask: u64,
    /// Bucket number (`time >> shift`) of the bucket being taken.
    base: u64,
    /// The current bucket's events in time order; `cur[head..]` are still to come.
    cur: Vec<(u64, u32)>,
    head: usize,
    /// First node of each bucket's list (NIL: empty).
    heads: Vec<u32>,
    /// One bit per bucket: whether it holds events.
    occupied: Vec<u64>,
    nodes: Vec<Node>,
    /// First free node (NIL: none).
    free: u32,
    in_ring: usize,
    far: Heap4,
    /// Events taken since the width was last looked at, and the time then.
    taken: u64,
    since: u64,
    #[cfg(debug_assertions)]
    last: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        Self::new()
    }
}

impl EventQueue {
    pub fn new() -> Self {
        EventQueue {
            shift: 10,
            mask: MIN_RING as u64 - 1,
            base: 0,
            cur: Vec::new(),
            head: 0,
            heads: vec![NIL; MIN_RING],
            occupied: vec![0; MIN_RING / 64],
            nodes: Vec::new(),
            free: NIL,
            in_ring: 0,
            far: Heap4::new(),
            taken: 0,
            since: 0,
            #[cfg(debug_assertions)]
            last: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.cur.len() - self.head + self.in_ring + self.far.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Schedules `what` at `time` (ns), which must not be before the last event popped.
    #[inline(always)]
    pub fn push(&mut self, time: u64, what: u32) {
        #[cfg(debug_assertions)]
        debug_assert!(time >= self.last, "events must not be scheduled in the past");
        let b = time >> self.shift;
        let d = b - self.base;
        if d.wrapping_sub(1) < self.mask {
            // 1 <= d < ring size: a later bucket of the ring (the common case).
            self.link((b & self.mask) as usize, time, what);
        } else {
            self.push_other(time, what, d);
        }
    }

    /// Links an event into the list of ring bucket `slot`.
    #[inline(always)]
    fn link(&mut self, slot: usize, time: u64, what: u32) {
        // (`slot` is a bucket number masked to the ring: below `heads.len()`, and
        // `slot >> 6` below `occupied.len()`; free nodes are nodes.)
        let next = *at(&self.heads, slot);
        let node = Node { time, what, next };
        let n = if self.free != NIL {
            let n = self.free;
            let cell = at_mut(&mut self.nodes, n as usize);
            self.free = cell.next;
            *cell = node;
            n
        } else {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        };
        *at_mut(&mut self.heads, slot) = n;
        *at_mut(&mut self.occupied, slot >> 6) |= 1 << (slot & 63);
        self.in_ring += 1;
    }

    /// Into the current bucket (d = 0) or beyond the ring's horizon.
    #[inline(never)]
    fn push_other(&mut self, time: u64, what: u32, d: u64) {
        if d == 0 {
            // Into the sorted current bucket, from its latest end (after equal times).
            let mut j = self.cur.len();
            while j > self.head && self.cur[j - 1].0 > time {
                j -= 1;
            }
            self.cur.insert(j, (time, what));
        } else {
            self.far.push(time, what);
        }
    }

    /// Removes an earliest event.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(u64, u32)> {
        let e = if self.head < self.cur.len() {
            let e = self.cur[self.head];
            self.head += 1;
            e
        } else {
            self.next_bucket()?
        };
        #[cfg(debug_assertions)]
        {
            self.last = e.0;
        }
        Some(e)
    }

    /// How many buckets after `base` the next non-empty one is (1 to ring size − 1); None
    /// when the ring is empty.
    #[inline]
    fn next_occupied(&self) -> Option<u64> {
        if self.in_ring == 0 {
            return None;
        }
        let words = self.occupied.len();
        let from = (self.base + 1) & self.mask;
        let (w0, bit) = ((from >> 6) as usize, from & 63);
        let first = *at(&self.occupied, w0) & (!0u64 << bit);
        let at = if first != 0 {
            ((w0 as u64) << 6) + first.trailing_zeros() as u64
        } else {
            let mut w = w0;
            loop {
                w = if w + 1 == words { 0 } else { w + 1 };
                let word = self.occupied[w];
                if word != 0 {
                    break ((w as u64) << 6) + word.trailing_zeros() as u64;
                }
            }
        };
        Some((at.wrapping_sub(self.base) & self.mask).max(1))
    }

    /// Moves on to the next non-empty bucket and takes its earliest event (the others, if
    /// any, wait in `cur`); None when there is no event at all.
    #[inline(always)]
    fn next_bucket(&mut self) -> Option<(u64, u32)> {
        self.cur.clear();
        self.head = 0;
        loop {
            let far = self.far.peek().map(|(t, _)| t >> self.shift);
            let base = match (self.next_occupied(), far) {
                (None, None) => return None,
                (Some(d), None) => self.base + d,
                (Some(d), Some(f)) => (self.base + d).min(f),
                (None, Some(f)) => f,
            };
            self.base = base;
            let slot = (base & self.mask) as usize;
            let n = *at(&self.heads, slot);
            if n != NIL {
                *at_mut(&mut self.heads, slot) = NIL;
                *at_mut(&mut self.occupied, slot >> 6) &= !(1 << (slot & 63));
                let node = *at(&self.nodes, n as usize);
                if node.next == NIL && far.is_none_or(|f| f - base > self.mask) {
                    // One event, and no far one to bring in: the common case.
                    at_mut(&mut self.nodes, n as usize).next = self.free;
                    self.free = n;
                    self.in_ring -= 1;
                    self.count_taken(1, node.time);
                    return Some((node.time, node.what));
                }
                // The bucket's events become the current ones; their nodes are freed.
                let mut n = n;
                while n != NIL {
                    let node = &mut self.nodes[n as usize];
                    self.cur.push((node.time, node.what));
                    let next = node.next;
                    node.next = self.free;
                    self.free = n;
                    n = next;
                }
                self.in_ring -= self.cur.len();
            }
            // Far events that the ring now reaches come into it.
            while let Some((t, w)) = self.far.peek() {
                let b = t >> self.shift;
                if b - base > self.mask {
                    break;
                }
                self.far.pop();
                if b == base {
                    self.cur.push((t, w));
                } else {
                    self.link((b & self.mask) as usize, t, w);
                }
            }
            if !self.cur.is_empty() {
                break;
            }
        }
        self.sort_current();
        let first = self.cur[0];
        self.count_taken(self.cur.len() as u64, first.0);
        // (Re-bucketing may have moved the events: take the first of `cur` again.)
        let e = self.cur[self.head];
        self.head += 1;
        Some(e)
    }

    /// Sorts the current bucket's events by time, stably.
    fn sort_current(&mut self) {
        let n = self.cur.len();
        if n > 1 {
            // A list holds its events latest-linked first: back to the order they were
            // scheduled in, then sorted stably (equal times keep that order).
            self.cur.reverse();
            if n <= 8 {
                for i in 1..n {
                    let e = self.cur[i];
                    let mut j = i;
                    while j > 0 && self.cur[j - 1].0 > e.0 {
                        self.cur[j] = self.cur[j - 1];
                        j -= 1;
                    }
                    self.cur[j] = e;
                }
            } else {
                self.cur.sort_by_key(|e| e.0);
            }
        }
    }

    /// Counts `n` events taken at `now`; re-buckets every `ADAPT_EVERY` of them.
    #[inline(always)]
    fn count_taken(&mut self, n: u64, now: u64) {
        self.taken += n;
        if self.taken >= ADAPT_EVERY {
            self.adapt(now);
        }
    }

    /// Re-buckets when the mean time between events or the number of pending events has
    /// drifted away from the bucket width or the ring size.
    #[cold]
    fn adapt(&mut self, now: u64) {
        let gap = (now - self.since) / self.taken;
        self.since = now;
        self.taken = 0;
        // A quarter to half an event per bucket: most buckets that hold events hold one
        // (the branches on a bucket's size are then predictable), and the bitmap skips the
        // empty ones. A ring of sixteen buckets per pending event reaches past most of them.
        let want = 64 - (gap / 2).max(1).leading_zeros() - 1;
        let ring = (16 * self.len()).next_power_of_two().clamp(MIN_RING, MAX_RING);
        let size = self.heads.len();
        if want.abs_diff(self.shift) < 2 && ring.max(size) / ring.min(size) < 4 {
            return;
        }
        let mut all: Vec<(u64, u32)> = self.cur.drain(self.head..).collect();
        self.cur.clear();
        self.head = 0;
        for slot in 0..self.heads.len() {
            let mut n = self.heads[slot];
            while n != NIL {
                let node = self.nodes[n as usize];
                all.push((node.time, node.what));
                n = node.next;
            }
        }
        while let Some(e) = self.far.pop() {
            all.push(e);
        }
        self.heads = vec![NIL; ring];
        self.occupied = vec![0; ring / 64];
        self.mask = ring as u64 - 1;
        self.nodes.clear();
        self.free = NIL;
        self.in_ring = 0;
        self.shift = want;
        // The earliest event left (none is before `now`) sets the base: every later push
        // is at or after it.
        self.base = now >> want;
        all.sort_by_key(|e| e.0);
        for (t, w) in all {
            let d = (t >> self.shift) - self.base;
            if d == 0 {
                self.cur.push((t, w));
            } else {
                self.push(t, w);
            }
        }
    }
}

/// A 4-ary min-heap of `(time, what)`.
///
/// Four children per node halve the depth of a binary heap; popping moves the hole down
/// along the smallest children to a leaf and sifts the last item up from there (fewer
/// compares, as most items belong near the bottom).
#[derive(Debug, Clone, Default)]
pub struct Heap4 {
    items: Vec<(u64, u32)>,
}

impl Heap4 {
    pub fn new() -> Self {
        Heap4 { items: Vec::new() }
    }

    pub fn peek(&self) -> Option<(u64, u32)> {
        self.items.first().copied()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Schedules `what` at `time` (ns).
    #[inline]
    pub fn push(&mut self, time: u64, what: u32) {
        let k = &mut self.items;
        let mut i = k.len();
        k.push((time, what));
        while i > 0 {
            let parent = (i - 1) / 4;
            let p = k[parent];
            if p.0 <= time {
                break;
            }
            k[i] = p;
            i = parent;
        }
        k[i] = (time, what);
    }

    /// Removes an earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(u64, u32)> {
        let k = &mut self.items;
        let top = *k.first()?;
        let last = k.pop().unwrap();
        let n = k.len();
        if n > 0 {
            let mut i = 0;
            loop {
                let c = 4 * i + 1;
                if c + 4 <= n {
                    // A full node: the smallest of four, without branches on the data.
                    let q = &k[c..c + 4];
                    let a = if q[1].0 < q[0].0 { 1 } else { 0 };
                    let b = if q[3].0 < q[2].0 { 3 } else { 2 };
                    let m = if q[b].0 < q[a].0 { b } else { a };
                    k[i] = q[m];
                    i = c + m;
                } else {
                    if c < n {
                        let mut m = c;
                        for j in c + 1..n {
                            if k[j].0 < k[m].0 {
                                m = j;
                            }
                        }
                        k[i] = k[m];
                        i = m;
                    }
                    break;
                }
            }
            while i > 0 {
                let parent = (i - 1) / 4;
                let p = k[parent];
                if p.0 <= last.0 {
                    break;
                }
                k[i] = p;
                i = parent;
            }
            k[i] = last;
        }
        Some(top)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn heap_pops_in_time_order() {
        let mut q = Heap4::new();
        let mut rng = Rng::new(9);
        let mut times: Vec<u64> = (0..1000).map(|_| rng.below(1 << 30)).collect();
        for (i, &t) in times.iter().enumerate() {
            q.push(t, i as u32);
        }
        times.sort();
        let popped: Vec<u64> = std::iter::from_fn(|| q.pop().map(|e| e.0)).collect();
        assert_eq!(popped, times);
    }

    #[test]
    fn pops_in_time_order_across_time_scales() {
        // Gaps from nanoseconds to hours, so that the buckets re-size and events go far.
        let mut q = EventQueue::new();
        let mut rng = Rng::new(5);
        let mut reference = std::collections::BinaryHeap::new();
        let mut now = 0u64;
        for i in 0..200 {
            let t = rng.below(1000);
            q.push(t, i);
            reference.push(std::cmp::Reverse(t));
        }
        let mut popped = 0;
        while let Some((t, _)) = q.pop() {
            assert_eq!(std::cmp::Reverse(t), reference.pop().unwrap());
            assert!(t >= now);
            now = t;
            popped += 1;
            if popped < 100_000 {
                let scale = [4, 10, 20, 30, 42][(popped / 20_000) as usize % 5];
                let bits = rng.below(scale) as u32;
                let t2 = t + rng.below(1 << bits);
                q.push(t2, 0);
                reference.push(std::cmp::Reverse(t2));
            }
        }
        assert_eq!(popped, 100_000 + 199);
        assert!(q.is_empty() && reference.is_empty());
    }

    #[test]
    fn many_pending_events_grow_the_ring_and_keep_their_order() {
        // 50,000 events pending at once (a large population), then 2,000: the ring grows
        // and shrinks with them; every event leaves once, in time order, ties included.
        let mut q = EventQueue::new();
        let mut rng = Rng::new(11);
        let mut reference = std::collections::BinaryHeap::new();
        for i in 0..50_000u32 {
            let t = rng.below(1 << 24) & !7; // multiples of 8 ns: many equal times
            q.push(t, i);
            reference.push(std::cmp::Reverse((t, i)));
        }
        let mut popped = 0u32;
        let mut seen = vec![false; 400_000];
        while let Some((t, w)) = q.pop() {
            let std::cmp::Reverse((rt, _)) = reference.pop().unwrap();
            assert_eq!(t, rt);
            assert!(!seen[w as usize]);
            seen[w as usize] = true;
            popped += 1;
            if popped < 300_000 && (popped > 100_000 || popped % 25 != 0) {
                let id = 50_000 + popped;
                let t2 = t + (rng.below(1 << 24) & !7);
                q.push(t2, id);
                reference.push(std::cmp::Reverse((t2, id)));
            }
        }
        assert!(q.is_empty() && reference.is_empty());
        assert!(popped > 290_000);
    }

    #[test]
    fn pops_in_time_order_while_pushing() {
        let mut q = EventQueue::new();
        let mut rng = Rng::new(4);
        for i in 0..100 {
            q.push(rng.below(1000), i);
        }
        let mut now = 0;
        let mut popped = 0;
        while let Some((t, _)) = q.pop() {
            assert!(t >= now, "{t} after {now}");
            now = t;
            popped += 1;
            if popped < 10_000 {
                let bits = rng.below(40) as u32;
                q.push(t + rng.below(1 << bits), 0);
            }
        }
        assert_eq!(popped, 10_000 + 99);
        assert!(q.is_empty());
    }
}
