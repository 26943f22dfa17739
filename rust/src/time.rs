//! Simulated time: whole nanoseconds from seconds and rates, rounded the fast way.

/// [`nearest`] of a time known to be >= 0 (a departure: a start plus a service time).
#[inline]
pub fn nearest_above_zero(x: f64) -> u64 {
    const TOP: f64 = 9.2e18; // below 2^63
    debug_assert!(x >= 0.0);
    let x = x + 0.5;
    let x = if x < TOP { x } else { TOP };
    // SAFETY: 0.5 <= x < 2^63 (or x = TOP for NaN, which `x < TOP` sends there), so the
    // truncation fits an i64.
    unsafe { x.to_int_unchecked::<i64>() as u64 }
}

/// The nearest whole number of a non-negative time (faster than `f64::round`), kept
/// within 0 and 2^63 − 1 ns (292 years; NaN gives the top).
#[inline]
pub fn nearest(x: f64) -> u64 {
    const TOP: f64 = 9.2e18; // below 2^63
    let x = x + 0.5;
    let x = if x < TOP { x } else { TOP };
    let x = if x > 0.0 { x } else { 0.0 };
    // SAFETY: 0 <= x < 2^63, so the truncation fits an i64 (a plain `as` adds checks for
    // out-of-range values that the two compares above already rule out).
    unsafe { x.to_int_unchecked::<i64>() as u64 }
}
