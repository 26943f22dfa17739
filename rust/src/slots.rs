//! A slot limit during a run: a semaphore whose waiters are served first in, first out,
//! with its measurements after the ramp.

use std::collections::VecDeque;

#[derive(Debug, Clone, Default)]
pub struct SlotState {
    free: u64,
    /// Waiting threads and the time each began to wait.
    queue: VecDeque<(u32, u64)>,
    in_use: u64,
    last: u64,
    ramp: u64,
    /// Slot-nanoseconds in use and ns waited by IOs queued after the ramp; entries after it.
    pub area: u128,
    pub waited: u128,
    pub entries: u64,
}

impl SlotState {
    pub fn new(slots: u64, ramp: u64) -> Self {
        SlotState { free: slots, last: ramp, ramp, ..Default::default() }
    }

    /// Adds the slot-time in use since the last change (after the ramp).
    #[inline]
    fn account(&mut self, now: u64) {
        if now > self.last {
            self.area += self.in_use as u128 * (now - self.last) as u128;
            self.last = now;
        }
    }

    /// Thread `tid` asks for a slot at `now`: true when it has one, false when it waits.
    #[inline]
    pub fn acquire(&mut self, tid: u32, now: u64) -> bool {
        if self.free == 0 {
            self.queue.push_back((tid, now));
            return false;
        }
        self.account(now);
        self.free -= 1;
        self.in_use += 1;
        if now >= self.ramp {
            self.entries += 1;
        }
        true
    }

    /// A slot comes back at `now`; it passes straight to the first waiter, if any, returned.
    #[inline]
    pub fn release(&mut self, now: u64) -> Option<u32> {
        match self.queue.pop_front() {
            Some((w, since)) => {
                if since >= self.ramp {
                    self.waited += (now - since) as u128;
                    self.entries += 1;
                }
                Some(w)
            }
            None => {
                self.account(now);
                self.free += 1;
                self.in_use -= 1;
                None
            }
        }
    }

    /// Closes the measurement at `end`.
    pub fn finish(&mut self, end: u64) {
        self.account(end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiters_are_served_in_turn() {
        let mut s = SlotState::new(1, 0);
        assert!(s.acquire(1, 0));
        assert!(!s.acquire(2, 10));
        assert!(!s.acquire(3, 20));
        assert_eq!(s.release(100), Some(2));
        assert_eq!(s.release(200), Some(3));
        assert_eq!(s.release(300), None);
        s.finish(400);
        assert_eq!(s.waited, 90 + 180);
        assert_eq!(s.area, 300);
        assert_eq!(s.entries, 3);
    }
}
