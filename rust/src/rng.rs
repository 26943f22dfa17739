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

/// `2^(j/32)` for `j` in `0..32`, correctly rounded.
const EXP2_32THS: [f64; 32] = [
    1.0, 1.0218971486541166, 1.0442737824274138, 1.0671404006768237, 1.0905077326652577,
    1.1143867425958924, 1.1387886347566916, 1.1637248587775775, 1.189207115002721, 1.215247359980469,
    1.241857812073484, 1.2690509571917332, 1.2968395546510096, 1.3252366431597413, 1.3542555469368927,
    1.383909881963832, 1.4142135623730951, 1.4451808069770467, 1.4768261459394993, 1.5091644275934228,
    1.5422108254079407, 1.5759808451078865, 1.6104903319492543, 1.645755478153965, 1.681792830507429,
    1.718619298122478, 1.7562521603732995, 1.7947090750031072, 1.8340080864093424, 1.8741676341103,
    1.9152065613971474, 1.9571441241754002,
];

/// `e^x` for |x| up to 700 (clamped beyond), within 1e-14 relative: `x = (32m + j) ln2/32 + r`
/// with `m`, `j` whole and |r| <= ln2/64, so `e^x = 2^m × 2^(j/32) × e^r`, `2^(j/32)` from a
/// table and `e^r` by its Taylor series to degree 5 (error below 3e-15). Our own, so that
/// draws are the same on every platform (and several times faster than the C library's).
#[inline]
pub fn exp(x: f64) -> f64 {
    // Adding 1.5 × 2^52 rounds to the nearest whole number, which then sits in the low
    // bits of the sum (two's complement for negative numbers): no libm call, no branch.
    const ROUND: f64 = 6_755_399_441_055_744.0;
    const INV: f64 = 46.16624130844683; // 32 / ln 2
    // ln 2 / 32 in two parts (Cody and Waite): the first has 16 zero bits at its end, so
    // that n × it is exact for every |n| < 2^16.
    const LN2_32_HI: f64 = 0.021660849392446835;
    const LN2_32_LO: f64 = 5.145609244655338e-14;
    let x = if x > -700.0 { x } else { -700.0 }; // (NaN becomes -700: no NaN reaches here)
    let x = if x < 700.0 { x } else { 700.0 };
    let shifted = x * INV + ROUND;
    let k = shifted.to_bits() as i64 as i32; // round(x × 32 / ln 2)
    let n = shifted - ROUND;
    let r = (x - n * LN2_32_HI) - n * LN2_32_LO;
    let p = 1.0 + r * (1.0 + r * (0.5 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0)))));
    let table = EXP2_32THS[(k & 31) as usize];
    // 2^m by adding m to the table entry's exponent (1 <= entry < 2, |m| < 1011: no overflow).
    let scaled = f64::from_bits((table.to_bits() as i64).wrapping_add(((k >> 5) as i64) << 52) as u64);
    p * scaled
}

/// The ziggurat of the standard normal density (Marsaglia and Tsang, 2000, in Doornik's
/// 2005 formulation): 128 layers of equal area; `x[i]` is the right edge of layer `i`
/// (`x[0]` the pseudo-width of the base layer with its tail) and `ratio[i] = x[i+1] / x[i]`.
struct Ziggurat {
    x: [f64; ZIG_LAYERS + 1],
    ratio: [f64; ZIG_LAYERS],
}

const ZIG_LAYERS: usize = 128;
const ZIG_R: f64 = 3.442619855899;
const ZIG_V: f64 = 9.91256303526217e-3;

fn ziggurat() -> &'static Ziggurat {
    static TABLE: std::sync::OnceLock<Ziggurat> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut x = [0.0; ZIG_LAYERS + 1];
        let mut f = (-0.5 * ZIG_R * ZIG_R).exp();
        x[0] = ZIG_V / f;
        x[1] = ZIG_R;
        for i in 2..ZIG_LAYERS {
            x[i] = (-2.0 * (ZIG_V / x[i - 1] + f).ln()).sqrt();
            f = (-0.5 * x[i] * x[i]).exp();
        }
        x[ZIG_LAYERS] = 0.0;
        let mut ratio = [0.0; ZIG_LAYERS];
        for i in 0..ZIG_LAYERS {
            ratio[i] = x[i + 1] / x[i];
        }
        Ziggurat { x, ratio }
    })
}

/// Lognormal factors drawn a block at a time.
const BLOCK: usize = 128;

/// Factors `exp(sigma × z − sigma² / 2)` (mean 1), z standard normal, made a block at a
/// time: the block's normals first, then their exponentials in a loop of independent
/// steps, which the processor overlaps (one draw at a time would wait for each
/// exponential's chain of multiplications in turn). Each factor still uses its own normal:
/// only the order in which the generator's numbers are used changes.
#[derive(Debug, Clone)]
pub struct Lognormals {
    sigma: f64,
    next: usize,
    values: Box<[f64; BLOCK]>,
}

impl Lognormals {
    pub fn new(sigma: f64) -> Self {
        Lognormals { sigma, next: BLOCK, values: Box::new([0.0; BLOCK]) }
    }

    #[inline(always)]
    pub fn draw(&mut self, rng: &mut Rng) -> f64 {
        let k = if self.next < BLOCK {
            self.next
        } else {
            self.fill(rng);
            0
        };
        self.next = k + 1;
        self.values[k] // (k < BLOCK: no bounds check)
    }

    /// Makes the next block of factors (the caller hands out the first).
    #[inline(never)]
    fn fill(&mut self, rng: &mut Rng) {
        let (sigma, shift) = (self.sigma, 0.5 * self.sigma * self.sigma);
        // A copy that the compiler keeps in registers through the loop (the caller's
        // generator is in memory: every draw would load and store its state).
        let mut g = *rng;
        for v in self.values.iter_mut() {
            *v = g.normal();
        }
        *rng = g;
        for v in self.values.iter_mut() {
            *v = exp(sigma * *v - shift);
        }
    }
}

/// xoshiro256++ (Blackman and Vigna): fast, 256 bits of state, period 2^256 − 1.
#[derive(Clone, Copy)]
pub struct Rng {
    s: [u64; 4],
    zig: &'static Ziggurat,
}

impl std::fmt::Debug for Rng {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rng").field("s", &self.s).finish()
    }
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
        Rng { s, zig: ziggurat() }
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
        self.open01_units() as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// The draw of [`Rng::open01`] in units of 2^-53: uniform in 1..=2^53.
    #[inline]
    pub fn open01_units(&mut self) -> u64 {
        (self.next_u64() >> 11) + 1
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

    /// Standard normal, by the ziggurat: one draw and one compare almost always.
    #[inline]
    pub fn normal(&mut self) -> f64 {
        let z = self.zig;
        let bits = self.next_u64();
        let (i, u) = Self::layer(bits);
        if u.abs() < z.ratio[i] {
            return u * z.x[i];
        }
        // The rare rest by value, so that a caller's copy of the generator stays in
        // registers (a reference to it would make the compiler keep it in memory).
        let (v, g) = Self::normal_rest(*self, i, u);
        *self = g;
        v
    }

    /// The layer (7 bits) and the uniform in (−1, 1) (53 other bits) of a ziggurat draw.
    #[inline(always)]
    fn layer(bits: u64) -> (usize, f64) {
        // (bits >> 11) × 2^-52 − 1 is 2 × ((bits >> 11) × 2^-53) − 1 exactly: one step fewer.
        ((bits & 0x7f) as usize, (bits >> 11) as f64 * (1.0 / (1u64 << 52) as f64) - 1.0)
    }

    /// The ziggurat past its first compare: the draw `(i, u)` fell in the base layer's
    /// tail or in a layer's wedge; goes on drawing as [`Rng::normal`] would.
    #[cold]
    #[inline(never)]
    fn normal_rest(mut g: Rng, mut i: usize, mut u: f64) -> (f64, Rng) {
        let z = g.zig;
        loop {
            if u.abs() < z.ratio[i] {
                return (u * z.x[i], g);
            }
            if i == 0 {
                return (g.normal_tail(u < 0.0), g);
            }
            let x = u * z.x[i];
            let f0 = (-0.5 * (z.x[i] * z.x[i] - x * x)).exp();
            let f1 = (-0.5 * (z.x[i + 1] * z.x[i + 1] - x * x)).exp();
            if f1 + g.open01() * (f0 - f1) < 1.0 {
                return (x, g);
            }
            (i, u) = Self::layer(g.next_u64());
        }
    }

    /// A normal beyond the ziggurat's base edge (Marsaglia's tail method).
    #[cold]
    fn normal_tail(&mut self, negative: bool) -> f64 {
        loop {
            let x = self.open01().ln() / ZIG_R;
            let y = self.open01().ln();
            if -2.0 * y >= x * x {
                return if negative { x - ZIG_R } else { ZIG_R - x };
            }
        }
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

    #[test]
    fn exp_is_accurate() {
        let mut x = -700.0;
        while x < 700.0 {
            let (got, want) = (exp(x), x.exp());
            assert!((got - want).abs() <= 1e-14 * want, "exp({x}) = {got}, not {want}");
            x += 0.001237;
        }
        assert_eq!(exp(0.0), 1.0);
        // Beyond ±700 the argument is clamped (the simulator never gets there).
        assert_eq!(exp(-1e300), exp(-700.0));
        assert_eq!(exp(1e300), exp(700.0));
    }

    #[test]
    fn normal_quantiles() {
        // The share below z matches Φ(z) at the body and in the tails.
        let mut r = Rng::new(3);
        let n = 2_000_000;
        let mut below = [0u32; 5];
        let cuts = [-3.0, -1.0, 0.0, 1.0, 3.5];
        for _ in 0..n {
            let z = r.normal();
            for (k, c) in cuts.iter().enumerate() {
                below[k] += (z < *c) as u32;
            }
        }
        let phi = [0.0013498980, 0.1586552539, 0.5, 0.8413447461, 0.9997673709];
        for k in 0..5 {
            let got = below[k] as f64 / n as f64;
            let sd = (phi[k] * (1.0 - phi[k]) / n as f64).sqrt();
            assert!((got - phi[k]).abs() < 5.0 * sd, "Φ({}) = {} vs {}", cuts[k], got, phi[k]);
        }
    }
}
