//! Times as both binaries' JSON prints them: milliseconds, rounded to the microsecond, so that a
//! report carries no more digits than the clocks behind it resolve.

use std::time::Duration;

/// A duration in milliseconds, rounded to the microsecond.
pub fn ms(d: Duration) -> f64 {
    round_ms(d.as_secs_f64() * 1e3)
}

/// Milliseconds rounded to the microsecond (the nearest `f64` to a three-decimal number).
pub fn round_ms(ms: f64) -> f64 {
    (ms * 1e3).round() / 1e3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_rounded_to_the_microsecond() {
        assert_eq!(ms(Duration::from_nanos(1_234_567)), 1.235);
        assert_eq!(ms(Duration::from_nanos(499)), 0.0);
        assert_eq!(round_ms(2.0005000001), 2.001);
        assert_eq!(
            serde_json::to_string(&ms(Duration::from_nanos(12_345_678))).unwrap(),
            "12.346"
        );
    }
}
