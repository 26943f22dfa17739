//! Measurements over time: IO counts, bytes, credit balances and cache lookups per interval.
//!
//! Intervals start at the end of the ramp. With a given interval length, points are kept
//! until there are `MAX_POINTS`; past that (and always when the length is to be chosen,
//! from 1 µs up, with `MAX_ADAPTIVE` points) two neighbours merge into one and the
//! interval doubles, so the memory stays bounded however long the run.

/// Points at which a given interval starts doubling.
pub const MAX_POINTS: usize = 100_000;
/// Points at which a chosen interval doubles (leaving half as many).
pub const MAX_ADAPTIVE: usize = 200;
const FIRST_ADAPTIVE_NS: u64 = 1_000;

/// One interval: `end` ns after the ramp, `len` ns long.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub end: u64,
    pub len: u64,
    pub ios: u64,
    pub bytes: u64,
    /// Per burst cap: the ops and bytes credits at the end of the interval.
    pub credits: Vec<(Option<f64>, Option<f64>)>,
    /// Per cache: lookups and hits in the interval.
    pub cache: Vec<(u64, u64)>,
}

#[derive(Debug, Clone)]
pub struct Series {
    pub len: u64,
    limit: usize,
    start: u64,
    /// The time the current interval ends.
    pub next: u64,
    pub points: Vec<Point>,
    pub ios: u64,
    pub bytes: u64,
}

impl Series {
    /// Intervals of `len` ns from `start` (the end of the ramp); `None` chooses the length.
    pub fn new(start: u64, len: Option<u64>) -> Self {
        let (len, limit) = match len {
            Some(l) => (l.max(1), MAX_POINTS),
            None => (FIRST_ADAPTIVE_NS, MAX_ADAPTIVE),
        };
        Series { len, limit, start, next: start + len, points: Vec::new(), ios: 0, bytes: 0 }
    }

    /// Closes the current interval at `self.next` with the given samples.
    pub fn close(&mut self, credits: Vec<(Option<f64>, Option<f64>)>, cache: Vec<(u64, u64)>) {
        let end = self.next - self.start;
        self.push(Point { end, len: self.len, ios: self.ios, bytes: self.bytes, credits, cache });
        self.next += self.len;
        if self.points.len() >= self.limit {
            self.halve();
        }
    }

    /// Closes a last, shorter interval ending at `t` (nothing when it would be empty).
    pub fn finish(&mut self, t: u64, credits: Vec<(Option<f64>, Option<f64>)>, cache: Vec<(u64, u64)>) {
        let begin = self.next - self.len;
        if t > begin {
            let end = t - self.start;
            self.push(Point { end, len: t - begin, ios: self.ios, bytes: self.bytes, credits, cache });
        }
    }

    fn push(&mut self, p: Point) {
        self.points.push(p);
        self.ios = 0;
        self.bytes = 0;
    }

    fn halve(&mut self) {
        let old = std::mem::take(&mut self.points);
        let mut it = old.into_iter();
        while let Some(a) = it.next() {
            match it.next() {
                Some(b) => self.points.push(Point {
                    end: b.end,
                    len: a.len + b.len,
                    ios: a.ios + b.ios,
                    bytes: a.bytes + b.bytes,
                    credits: b.credits,
                    cache: a.cache.iter().zip(&b.cache).map(|(x, y)| (x.0 + y.0, x.1 + y.1)).collect(),
                }),
                None => self.points.push(a),
            }
        }
        self.len *= 2;
        // The next boundary stays where it was when the merged points end on a pair.
        let last_end = self.points.last().map(|p| p.end).unwrap_or(0);
        self.next = self.start + last_end + self.len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chosen_interval_stays_bounded() {
        let mut s = Series::new(0, None);
        let mut t = 0u64;
        while t < 10_000_000_000 {
            t += 1_000_000;
            s.ios += 1;
            while t >= s.next {
                s.close(vec![], vec![]);
            }
        }
        assert!(s.points.len() <= MAX_ADAPTIVE && s.points.len() >= MAX_ADAPTIVE / 2);
        let total: u64 = s.points.iter().map(|p| p.ios).sum::<u64>() + s.ios;
        assert_eq!(total, 10_000);
        // Contiguous intervals.
        let mut end = 0;
        for p in &s.points {
            assert_eq!(p.end, end + p.len);
            end = p.end;
        }
    }
}
