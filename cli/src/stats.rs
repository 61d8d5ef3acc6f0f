//! Medians and spreads over repeated runs.

use serde::Serialize;
use std::time::Duration;

/// Median, minimum and maximum of a set of durations, in milliseconds rounded to the
/// microsecond.
#[derive(Clone, Copy, Debug, Serialize)]
pub(crate) struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl Spread {
    /// # Panics
    /// If `samples` is empty (callers always run at least once).
    pub(crate) fn of(samples: &[Duration]) -> Self {
        let mut ms: Vec<f64> = samples.iter().map(|&d| crate::report::ms(d)).collect();
        ms.sort_by(f64::total_cmp);
        let n = ms.len();
        let median = if n % 2 == 1 {
            ms[n / 2]
        } else {
            crate::report::round_ms((ms[n / 2 - 1] + ms[n / 2]) / 2.0)
        };
        Self {
            median,
            min: ms[0],
            max: ms[n - 1],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        let ms = |v: &[u64]| v.iter().map(|&x| Duration::from_millis(x)).collect::<Vec<_>>();
        let s = Spread::of(&ms(&[5, 1, 3]));
        assert_eq!((s.median, s.min, s.max), (3.0, 1.0, 5.0));
        assert_eq!(Spread::of(&ms(&[4, 1, 3, 2])).median, 2.5);
    }
}
