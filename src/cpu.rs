//! Which SIMD instructions the kernels may use: the one place they ask.
//!
//! A kernel with an AVX2, AVX-512 (or BMI) version calls one of these functions instead of
//! `is_x86_feature_detected!` itself, and runs its portable version when it answers `false`. The
//! standard library caches what it detects, so a call costs a load and a test.
//!
//! With the `portable` cargo feature every function here answers `false`, and the x86_64 SSE2
//! paths (compiled in, as SSE2 is part of x86_64's baseline) are compiled out by their own
//! `not(feature = "portable")` cfg: the build then runs the code that a processor without these
//! instructions runs (aarch64 today), so its speed can be measured on an x86_64 machine
//! (`benchmarks/bench_portable.py`). A backend for another architecture (NEON) would answer here
//! too.

// On other architectures the callers are compiled out: nothing calls these functions.
#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]

/// `is_x86_feature_detected!($feature)` on x86_64 without the `portable` feature; `false`
/// elsewhere.
macro_rules! detected {
    ($feature:tt) => {{
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        {
            std::arch::is_x86_feature_detected!($feature)
        }
        #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
        {
            false
        }
    }};
}

/// Whether the processor has AVX2 (and the build may use it).
#[inline]
pub fn has_avx2() -> bool {
    detected!("avx2")
}

/// Whether the processor has AVX-512 BW (byte and word lanes of 512 bits, and AVX-512 F).
#[inline]
pub fn has_avx512bw() -> bool {
    detected!("avx512bw")
}

/// Whether the processor has AVX-512 VBMI (byte permutes across a whole register).
#[inline]
pub fn has_avx512vbmi() -> bool {
    detected!("avx512vbmi")
}

/// Whether the processor has AVX-512 VBMI2 (byte compress and expand).
#[inline]
pub fn has_avx512vbmi2() -> bool {
    detected!("avx512vbmi2")
}

/// Whether the processor has BMI1 (`andn`, `blsr`, `tzcnt`...).
#[inline]
pub fn has_bmi1() -> bool {
    detected!("bmi1")
}

/// Whether the processor has BMI2 (`pdep`, `pext`...).
#[inline]
pub fn has_bmi2() -> bool {
    detected!("bmi2")
}

/// Whether the processor has `popcnt`.
#[inline]
pub fn has_popcnt() -> bool {
    detected!("popcnt")
}

/// Whether the processor has `lzcnt`.
#[inline]
pub fn has_lzcnt() -> bool {
    detected!("lzcnt")
}

/// Whether the processor has AVX2 and the bit instructions every processor with AVX2 has beside
/// it (BMI1, BMI2, POPCNT, LZCNT): what the kernels compiled a second time for such processors
/// (`target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")`) need. Checked once, then one
/// load: the five checks cost about 30 instructions and 9 branches, too much for a call per row.
#[inline(always)]
pub fn has_avx2_bits() -> bool {
    use std::sync::atomic::{AtomicU8, Ordering};
    /// 0 until checked, then 1 (no) or 2 (yes).
    static CHECKED: AtomicU8 = AtomicU8::new(0);
    #[cold]
    #[inline(never)]
    fn check() -> bool {
        let yes = has_avx2() && has_bmi1() && has_bmi2() && has_popcnt() && has_lzcnt();
        CHECKED.store(if yes { 2 } else { 1 }, Ordering::Relaxed);
        yes
    }
    match CHECKED.load(Ordering::Relaxed) {
        2 => true,
        1 => false,
        _ => check(),
    }
}

#[cfg(test)]
mod tests {
    /// The `portable` feature answers no to every question; otherwise the answers are the
    /// standard library's.
    #[test]
    fn answers_follow_the_feature() {
        let answers = [
            super::has_avx2(),
            super::has_avx512bw(),
            super::has_avx512vbmi(),
            super::has_avx512vbmi2(),
            super::has_bmi1(),
            super::has_bmi2(),
            super::has_popcnt(),
            super::has_lzcnt(),
        ];
        if cfg!(feature = "portable") || !cfg!(target_arch = "x86_64") {
            assert_eq!(answers, [false; 8]);
        }
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        assert_eq!(
            answers,
            [
                std::arch::is_x86_feature_detected!("avx2"),
                std::arch::is_x86_feature_detected!("avx512bw"),
                std::arch::is_x86_feature_detected!("avx512vbmi"),
                std::arch::is_x86_feature_detected!("avx512vbmi2"),
                std::arch::is_x86_feature_detected!("bmi1"),
                std::arch::is_x86_feature_detected!("bmi2"),
                std::arch::is_x86_feature_detected!("popcnt"),
                std::arch::is_x86_feature_detected!("lzcnt"),
            ]
        );
        // Asked twice: the first answer is worked out, the second read back.
        for _ in 0..2 {
            assert_eq!(
                super::has_avx2_bits(),
                answers[0] && answers[4..].iter().all(|&yes| yes)
            );
        }
    }
}
