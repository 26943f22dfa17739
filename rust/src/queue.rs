//! The event queue: a 4-ary min-heap of `(time, what)`.
//!
//! Four children per node halve the depth of a binary heap; popping moves the hole down
//! along the smallest children to a leaf and sifts the last item up from there (fewer
//! compares, as most items belong near the bottom). Items with equal times leave in an
//! order fixed by the sequence of operations, so runs stay deterministic.

#[derive(Debug, Clone, Default)]
pub struct EventQueue {
    items: Vec<(u64, u32)>,
}

impl EventQueue {
    pub fn new() -> Self {
        EventQueue { items: Vec::new() }
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
