//! Unchecked indexing for the event loop's hot paths.

/// `s[i]` without a bounds check, for the event loop's hot paths. Every index used with
/// it comes from the compiled program, whose references are all checked when it is built
/// (instruction numbers, caps, forks and their branches, stripes' members, classes, jobs), from `alloc`
/// (thread numbers) or from the event queue's masks (bucket numbers below its ring size);
/// debug builds check them all the same.
#[inline(always)]
pub(crate) fn at<T>(s: &[T], i: usize) -> &T {
    debug_assert!(i < s.len());
    // SAFETY: `i < s.len()` by construction (see above).
    unsafe { s.get_unchecked(i) }
}

/// `&mut s[i]` without a bounds check (see [`at`]).
#[inline(always)]
pub(crate) fn at_mut<T>(s: &mut [T], i: usize) -> &mut T {
    debug_assert!(i < s.len());
    // SAFETY: as for `at`.
    unsafe { s.get_unchecked_mut(i) }
}
