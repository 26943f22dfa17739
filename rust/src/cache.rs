//! A host cache by block address: which blocks are resident, evicted first in, first out.
//!
//! Blocks are numbered in the cache's own space (each job using the cache has a range of
//! it). The cache holds at most `size` bytes; a block takes its job's tracked block size.
//! For uniform random access every eviction order gives a hit ratio of capacity / working
//! set, so FIFO is enough.

use std::collections::VecDeque;

use crate::defs::{CacheDef, JobDef};

#[derive(Debug, Clone)]
pub struct HostCache {
    resident: Vec<u64>,
    fifo: VecDeque<(u64, u64)>,
    used: u64,
    size: u64,
    /// Measured lookups and hits (after the ramp), in total and in the current interval.
    pub lookups: u64,
    pub hits: u64,
    pub interval_lookups: u64,
    pub interval_hits: u64,
}

impl HostCache {
    pub fn new(def: &CacheDef, jobs: &[JobDef]) -> Self {
        let mut c = HostCache {
            resident: vec![0; def.blocks.div_ceil(64) as usize],
            fifo: VecDeque::new(),
            used: 0,
            size: def.size,
            lookups: 0,
            hits: 0,
            interval_lookups: 0,
            interval_hits: 0,
        };
        if def.warm {
            // Fill with the users' blocks in turn, up to the capacity.
            let mut next = vec![0u64; def.users.len()];
            'fill: loop {
                let mut added = false;
                for (u, user) in def.users.iter().enumerate() {
                    if next[u] < user.blocks {
                        let bytes = jobs[user.job as usize].block_bytes;
                        if c.used + bytes > c.size {
                            break 'fill;
                        }
                        c.insert(user.offset + next[u], bytes);
                        next[u] += 1;
                        added = true;
                    }
                }
                if !added {
                    break;
                }
            }
        }
        c
    }

    #[inline]
    pub fn contains(&self, block: u64) -> bool {
        self.resident[(block >> 6) as usize] & (1 << (block & 63)) != 0
    }

    /// Makes `block` (of `bytes` bytes) resident, evicting the oldest blocks to make room.
    /// A block larger than the whole cache is not kept.
    #[inline]
    pub fn insert(&mut self, block: u64, bytes: u64) {
        if self.contains(block) || bytes > self.size {
            return;
        }
        while self.used + bytes > self.size {
            let (b, old) = self.fifo.pop_front().expect("used bytes without blocks");
            self.used -= b;
            self.resident[(old >> 6) as usize] &= !(1 << (old & 63));
        }
        self.fifo.push_back((bytes, block));
        self.used += bytes;
        self.resident[(block >> 6) as usize] |= 1 << (block & 63);
    }
}
