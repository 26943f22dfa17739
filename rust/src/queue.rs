//! The event queue: a calendar queue (R. Brown, 1988) over a 4-ary heap.
//!
//! A discrete-event simulation never schedules before the event it is processing, so
//! events can wait in buckets of `2^shift` ns on a ring: pushing is linking the event at
//! the head of its bucket's list, popping is unlinking the earliest event of the first
//! non-empty bucket (equal times in the order they were scheduled), which a bitmap of the
//! non-empty buckets finds without stepping through empty ones. Events
//! beyond the ring's horizon wait in a 4-ary heap until the ring comes round to them.
//! Every `ADAPT_EVERY` events the bucket width is set to an eighth to a quarter of an event
//! per bucket and the ring to about 32 buckets per pending event (rebuilt when either is
//! off by 4×), so the cost per event stays constant whatever the network's time scale and
//! population, and a bucket that holds events almost always holds one. The lists live in
//! one array of nodes (16 bytes per pending event) and the ring is one array of list
//! heads: a few kilobytes for a few hundred pending events, in the processor's first-level
//! cache. Events with equal times leave in an order fixed by the sequence of operations:
//! runs stay deterministic.

use crate::index::{at, at_mut};

/// Fewest and most buckets in the ring (the most: 16 MB of list heads; past 131,072
/// pending events the ring reaches fewer of them and more wait in the heap).
const MIN_RING: usize = 256;
const MAX_RING: usize = 1 << 22;
/// Events taken between two looks at the bucket width and the ring size.
const ADAPT_EVERY: u64 = 8192;
const NIL: u32 = u32::MAX;
/// The far heap's earliest bucket when it is empty.
const NONE: u64 = u64::MAX;

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
    /// Bucket number (`time >> shift`) of the last event taken: the buckets of the events
    /// in the ring are all in `base..=base + mask`, one per ring slot.
    base: u64,
    /// First node of each bucket's list (NIL: empty).
    heads: Vec<u32>,
    /// One bit per bucket: whether it holds events.
    occupied: Vec<u64>,
    nodes: Vec<Node>,
    /// First free node (NIL: none).
    free: u32,
    in_ring: usize,
    far: Heap4,
    /// The bucket of the far heap's earliest event (NONE: the heap is empty).
    far_bucket: u64,
    /// The earliest event, already out of the ring (time NONE: no event at all). Popping
    /// hands it out and takes the next one out of the ring at once: the processor does
    /// that while the caller works on the event handed out, and the next pop finds its
    /// event ready.
    first: (u64, u32),
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
            heads: vec![NIL; MIN_RING],
            occupied: vec![0; MIN_RING / 64],
            nodes: Vec::new(),
            free: NIL,
            in_ring: 0,
            far: Heap4::new(),
            far_bucket: NONE,
            first: (NONE, 0),
            taken: 0,
            since: 0,
            #[cfg(debug_assertions)]
            last: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.in_ring + self.far.len() + (self.first.0 != NONE) as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Schedules `what` at `time` (ns), which must not be before the last event popped.
    #[inline(always)]
    pub fn push(&mut self, time: u64, what: u32) {
        #[cfg(debug_assertions)]
        debug_assert!(time >= self.last, "events must not be scheduled in the past");
        if time < self.first.0 {
            // Before the event held out (or none is): it takes its place.
            let (t, w) = std::mem::replace(&mut self.first, (time, what));
            if t != NONE {
                self.insert(t, w);
            }
        } else {
            self.insert(time, what);
        }
    }

    /// Puts an event (not before the one held out) into the ring or the far heap.
    #[inline(always)]
    fn insert(&mut self, time: u64, what: u32) {
        let b = time >> self.shift;
        if b - self.base <= self.mask {
            self.link((b & self.mask) as usize, time, what);
        } else {
            self.push_far(time, what);
        }
    }

    /// Links an event into the list of ring bucket `slot` (at its head: a list holds its
    /// events latest scheduled first).
    #[inline(always)]
    fn link(&mut self, slot: usize, time: u64, what: u32) {
        // (`slot` is a bucket number masked to the ring: below `heads.len()`, and
        // `slot >> 6` below `occupied.len()`; list and free nodes are nodes.)
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

    /// Beyond the ring's horizon.
    #[inline(never)]
    fn push_far(&mut self, time: u64, what: u32) {
        debug_assert!(time >> self.shift >= self.base);
        self.far.push(time, what);
        self.far_bucket = self.far_bucket.min(time >> self.shift);
    }

    /// Removes an earliest event.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(u64, u32)> {
        let e = self.first;
        if e.0 == NONE {
            return None;
        }
        self.first = self.take_first();
        #[cfg(debug_assertions)]
        {
            self.last = e.0;
        }
        Some(e)
    }

    /// Takes the earliest event out of the ring and the far heap (time NONE: none left).
    #[inline(always)]
    fn take_first(&mut self) -> (u64, u32) {
        loop {
            // The first non-empty bucket of the ring, and whether a far event may come
            // before the end of it.
            let b = if self.in_ring > 0 { self.next_occupied() } else { NONE };
            if b < self.far_bucket {
                return self.take(b);
            }
            if self.far_bucket == NONE {
                return (NONE, 0);
            }
            self.bring_far(b);
        }
    }

    /// The bucket number of the first non-empty bucket of the ring (which is not empty).
    #[inline(always)]
    fn next_occupied(&self) -> u64 {
        let from = self.base & self.mask;
        let (w0, bit) = ((from >> 6) as usize, from & 63);
        let first = *at(&self.occupied, w0) & (!0u64 << bit);
        let slot = if first != 0 {
            ((w0 as u64) << 6) + first.trailing_zeros() as u64
        } else {
            self.scan(w0)
        };
        self.base + (slot.wrapping_sub(from) & self.mask)
    }

    /// The first non-empty slot after word `w0` of the bitmap, round the ring.
    #[inline(never)]
    fn scan(&self, w0: usize) -> u64 {
        let words = self.occupied.len();
        let mut w = w0;
        loop {
            w = if w + 1 == words { 0 } else { w + 1 };
            let word = self.occupied[w];
            if word != 0 {
                return ((w as u64) << 6) + word.trailing_zeros() as u64;
            }
        }
    }

    /// Takes the earliest event of ring bucket `b` (which holds events).
    #[inline(always)]
    fn take(&mut self, b: u64) -> (u64, u32) {
        self.base = b;
        let slot = (b & self.mask) as usize;
        let n = *at(&self.heads, slot);
        // (Field by field: a copy of the whole node would go through the stack.)
        let cell = at(&self.nodes, n as usize);
        let (time, what) = if cell.next == NIL {
            // The bucket's only event: the common case.
            let e = (cell.time, cell.what);
            *at_mut(&mut self.heads, slot) = NIL;
            *at_mut(&mut self.occupied, slot >> 6) &= !(1 << (slot & 63));
            at_mut(&mut self.nodes, n as usize).next = self.free;
            self.free = n;
            e
        } else {
            self.take_earliest(slot)
        };
        self.in_ring -= 1;
        self.taken += 1;
        if self.taken >= ADAPT_EVERY {
            self.adapt(time);
        }
        (time, what)
    }

    /// Unlinks and frees the earliest event of the list of ring slot `slot`, which holds
    /// several; of equal times, the first scheduled (the last in the list).
    #[inline(never)]
    fn take_earliest(&mut self, slot: usize) -> (u64, u32) {
        let (mut prev, mut n) = (NIL, self.heads[slot]);
        let (mut best_prev, mut best) = (prev, n);
        while n != NIL {
            if self.nodes[n as usize].time <= self.nodes[best as usize].time {
                (best_prev, best) = (prev, n);
            }
            (prev, n) = (n, self.nodes[n as usize].next);
        }
        let node = self.nodes[best as usize];
        if best_prev == NIL {
            self.heads[slot] = node.next;
        } else {
            self.nodes[best_prev as usize].next = node.next;
        }
        self.nodes[best as usize].next = self.free;
        self.free = best;
        (node.time, node.what)
    }

    /// Moves the ring on to the far heap's earliest bucket when it comes before bucket `b`
    /// (the ring's first, or NONE), and brings into the ring the far events it then
    /// reaches.
    #[cold]
    fn bring_far(&mut self, b: u64) {
        self.base = self.far_bucket.min(b);
        while let Some((t, w)) = self.far.peek() {
            let fb = t >> self.shift;
            if fb - self.base > self.mask {
                break;
            }
            self.far.pop();
            self.link((fb & self.mask) as usize, t, w);
        }
        self.far_bucket = self.far.peek().map_or(NONE, |(t, _)| t >> self.shift);
    }

    /// Re-buckets when the mean time between events or the number of pending events has
    /// drifted away from the bucket width or the ring size. `now` is the time of the event
    /// being taken (already out of the ring; no other is earlier); the count starts again
    /// from it.
    #[cold]
    fn adapt(&mut self, now: u64) {
        let gap = (now - self.since) / self.taken;
        self.since = now;
        self.taken = 0;
        // An eighth to a quarter of an event per bucket: most buckets that hold events hold
        // one (the branch on a bucket's size is then predictable; half an event per bucket
        // was 4 % slower on the worked example), and the bitmap skips the empty ones. A ring
        // of thirty-two buckets per pending event reaches past most of them.
        let want = 64 - (gap / 4).max(1).leading_zeros() - 1;
        let ring = (32 * self.len()).next_power_of_two().clamp(MIN_RING, MAX_RING);
        let size = self.heads.len();
        if want.abs_diff(self.shift) < 2 && ring.max(size) / ring.min(size) < 4 {
            return;
        }
        // Every event, each bucket's in the order they were scheduled, then sorted by time
        // (stably).
        let mut all: Vec<(u64, u32)> = Vec::with_capacity(self.len());
        for slot in 0..self.heads.len() {
            let from = all.len();
            let mut n = self.heads[slot];
            while n != NIL {
                let node = self.nodes[n as usize];
                all.push((node.time, node.what));
                n = node.next;
            }
            all[from..].reverse();
        }
        while let Some(e) = self.far.pop() {
            all.push(e);
        }
        all.sort_by_key(|e| e.0);
        self.heads = vec![NIL; ring];
        self.occupied = vec![0; ring / 64];
        self.mask = ring as u64 - 1;
        self.nodes.clear();
        self.free = NIL;
        self.in_ring = 0;
        self.far_bucket = NONE;
        self.shift = want;
        // No event left is before `now`: every later push is at or after its bucket.
        self.base = now >> want;
        for (t, w) in all {
            self.insert(t, w);
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
