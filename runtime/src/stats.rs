//! The median, minimum and maximum of repeated measurements: one definition for the `ntt`
//! command's reports, the benches and the examples, so that a median means the same in each.

use serde::Serialize;
use std::time::Duration;

/// The median, minimum and maximum of a set of measurements.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Spread {
    /// The middle value; for an even count, the mean of the middle two.
    pub median: f64,
    /// The smallest value.
    pub min: f64,
    /// The largest value.
    pub max: f64,
}

impl Spread {
    /// The spread of `values` (ordered by [`f64::total_cmp`]).
    ///
    /// ```
    /// let s = ntt_runtime::stats::Spread::of([4.0, 1.0, 3.0, 2.0]);
    /// assert_eq!((s.median, s.min, s.max), (2.5, 1.0, 4.0));
    /// ```
    ///
    /// # Panics
    /// If `values` is empty.
    pub fn of(values: impl IntoIterator<Item = f64>) -> Self {
        let mut v: Vec<f64> = values.into_iter().collect();
        assert!(!v.is_empty(), "the spread of no measurements");
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        Self {
            median,
            min: v[0],
            max: v[n - 1],
        }
    }

    /// The spread of `samples`, in milliseconds.
    ///
    /// # Panics
    /// If `samples` is empty.
    pub fn of_ms(samples: &[Duration]) -> Self {
        Self::of(samples.iter().map(|d| d.as_secs_f64() * 1e3))
    }
}

/// The median of `values`: [`Spread::of`]'s.
///
/// # Panics
/// If `values` is empty.
pub fn median(values: impl IntoIterator<Item = f64>) -> f64 {
    Spread::of(values).median
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_and_even_counts() {
        let s = Spread::of([5.0, 1.0, 3.0]);
        assert_eq!((s.median, s.min, s.max), (3.0, 1.0, 5.0));
        assert_eq!(median([4.0, 1.0, 3.0, 2.0]), 2.5);
        let ms = Spread::of_ms(&[Duration::from_millis(2), Duration::from_micros(500)]);
        assert_eq!((ms.median, ms.min, ms.max), (1.25, 0.5, 2.0));
    }

    #[test]
    #[should_panic(expected = "no measurements")]
    fn no_values_panic() {
        median([]);
    }
}
