//! Seeded pseudo-random numbers: xoshiro256++ seeded through splitmix64.
//!
//! Every random choice of the simulator draws from one [`Rng`] per replication, so a run is
//! a pure function of its input and seed.

/// One step of splitmix64: advances `state` and returns a well-mixed 64-bit value.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// xoshiro256++ (Blackman and Vigna): fast, 256 bits of state, period 2^256 − 1.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
    spare_normal: Option<f64>,
}

impl Rng {
    /// A generator whose whole state derives from `seed` (any value, 0 included).
    pub fn new(seed: u64) -> Self {
        let mut sm = seed;
        let s = [
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
        ];
        Rng { s, spare_normal: None }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in (0, 1]: never 0, so `ln` of it is finite.
    #[inline]
    pub fn open01(&mut self) -> f64 {
        ((self.next_u64() >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in `0..n` (`n` > 0), by multiply-shift (bias below 2^-32 for our n).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Exponential with mean 1.
    #[inline]
    pub fn exp1(&mut self) -> f64 {
        -self.open01().ln()
    }

    /// Standard normal (Box–Muller; the second value of each pair is kept for the next call).
    pub fn normal(&mut self) -> f64 {
        if let Some(z) = self.spare_normal.take() {
            return z;
        }
        let r = (-2.0 * self.open01().ln()).sqrt();
        let theta = std::f64::consts::TAU * self.open01();
        self.spare_normal = Some(r * theta.sin());
        r * theta.cos()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
        assert_ne!(Rng::new(7).next_u64(), Rng::new(8).next_u64());
    }

    #[test]
    fn moments() {
        let mut r = Rng::new(1);
        let n = 200_000;
        let (mut se, mut sn, mut sn2) = (0.0, 0.0, 0.0);
        for _ in 0..n {
            se += r.exp1();
            let z = r.normal();
            sn += z;
            sn2 += z * z;
        }
        let n = n as f64;
        assert!((se / n - 1.0).abs() < 0.01);
        assert!((sn / n).abs() < 0.01);
        assert!((sn2 / n - 1.0).abs() < 0.01);
        let mut counts = [0u32; 5];
        for _ in 0..50_000 {
            counts[r.below(5) as usize] += 1;
        }
        assert!(counts.iter().all(|&c| (c as f64 - 10_000.0).abs() < 400.0));
    }
}
