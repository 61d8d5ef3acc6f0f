//! Medians and spreads over repeated runs: ntt-runtime's, shared with the benches, in the
//! milliseconds rounded to the microsecond that the reports print.

use std::time::Duration;

pub(crate) use ntt_runtime::stats::Spread;

/// The spread of `samples` in milliseconds, each figure rounded to the microsecond.
///
/// # Panics
/// If `samples` is empty (callers always run at least once).
pub(crate) fn spread_ms(samples: &[Duration]) -> Spread {
    let s = Spread::of_ms(samples);
    let round = crate::report::round_ms;
    Spread {
        median: round(s.median),
        min: round(s.min),
        max: round(s.max),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounded_to_the_microsecond() {
        let us = |v: &[u64]| v.iter().map(|&x| Duration::from_nanos(x)).collect::<Vec<_>>();
        let s = spread_ms(&us(&[5_000_400, 1_000_000, 3_000_600]));
        assert_eq!((s.median, s.min, s.max), (3.001, 1.0, 5.0));
        assert_eq!(
            spread_ms(&us(&[4_000_000, 1_000_000, 3_000_000, 2_000_000])).median,
            2.5
        );
    }
}
