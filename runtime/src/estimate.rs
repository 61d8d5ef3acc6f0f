//! How far a caller's work estimates are from the time its inline runs really take.
//!
//! [`ThreadPool::with_work_estimate`](crate::ThreadPool::with_work_estimate) decides from an
//! estimate whether a job is worth handing to the workers. A caller's cost model is tuned on
//! some machine; on another the same job may take half the time (a CPU whose carry-less
//! multiplies are twice as fast), and then jobs that gain nothing from the workers are
//! handed to them. An inline run runs on its caller alone, so timing it measures the
//! estimate's error exactly; each thread times one in [`TIME_ONE_IN`] of its inline runs, and
//! the pool keeps a running mean of `actual / estimate` over them and scales later estimates
//! by it.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// The scale's fixed-point unit: 1.0 (fine enough that an eighth of the smallest scale is
/// still a step).
const ONE: u32 = 1 << 20;
/// A single run moves the scale at most this far (in either direction), so one run
/// preempted by the OS, or one whose estimate was badly off, cannot swing the decisions.
const MAX_STEP: u32 = 8;
/// Each run's ratio enters the running mean with weight 1/`WEIGHT`.
const WEIGHT: u64 = 8;
/// Runs estimated below this are not timed: a clock read is then a visible part of the run.
const MIN_TIMED: Duration = Duration::from_micros(2);
/// Of the runs long enough to time, a thread times one in this many: two clock reads cost
/// 2 % of a 2 µs encode (measured), an eighth of that is noise, and the mean still follows
/// within a few dozen runs.
const TIME_ONE_IN: u32 = 8;

thread_local! {
    /// Runs this thread could have timed since it last timed one.
    static UNTIMED: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// The running mean of `actual / estimate` over the inline runs, as a multiple of [`ONE`].
#[derive(Debug)]
pub(crate) struct EstimateScale(AtomicU32);

impl EstimateScale {
    pub(crate) const fn new() -> Self {
        Self(AtomicU32::new(ONE))
    }

    /// `estimate` corrected by what the inline runs so far measured.
    pub(crate) fn apply(&self, estimate: Duration) -> Duration {
        let scale = u128::from(self.0.load(Ordering::Relaxed));
        let nanos = estimate.as_nanos().saturating_mul(scale) / u128::from(ONE);
        Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
    }

    /// Whether a run estimated at `estimate` is long enough to be timed for
    /// [`EstimateScale::observe`].
    pub(crate) fn times(estimate: Duration) -> bool {
        estimate >= MIN_TIMED
    }

    /// Whether this thread times its next run estimated at `estimate`: one in
    /// [`TIME_ONE_IN`] of those long enough, the first one included.
    pub(crate) fn samples(estimate: Duration) -> bool {
        Self::times(estimate)
            && UNTIMED
                .try_with(|n| {
                    let k = n.get();
                    n.set(if k + 1 >= TIME_ONE_IN { 0 } else { k + 1 });
                    k == 0
                })
                .unwrap_or(false)
    }

    /// Folds in one inline run that took `actual` for an (uncorrected) `estimate`.
    /// Concurrent updates may lose one another's step: the scale is a hint.
    pub(crate) fn observe(&self, estimate: Duration, actual: Duration) {
        if !Self::times(estimate) {
            return;
        }
        let old = u64::from(self.0.load(Ordering::Relaxed));
        let ratio = actual.as_nanos().saturating_mul(u128::from(ONE)) / estimate.as_nanos();
        let ratio = u64::try_from(ratio).unwrap_or(u64::MAX);
        let step = u64::from(MAX_STEP);
        let ratio = ratio.clamp(old / step, old.saturating_mul(step));
        let new = (old * (WEIGHT - 1) + ratio) / WEIGHT;
        // Between 1/1024 and 1024: an estimate is never taken as free, nor as endless.
        let new = new.clamp(u64::from(ONE >> 10), u64::from(ONE) << 10);
        let new = u32::try_from(new).unwrap_or(u32::MAX);
        self.0.store(new, Ordering::Relaxed);
    }

    /// The current scale (1.0 = estimates are taken as they are).
    pub(crate) fn factor(&self) -> f64 {
        f64::from(self.0.load(Ordering::Relaxed)) / f64::from(ONE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_follows_the_ratio_of_actual_to_estimated_time() {
        let s = EstimateScale::new();
        assert_eq!(s.apply(Duration::from_micros(100)), Duration::from_micros(100));
        for _ in 0..100 {
            s.observe(Duration::from_micros(100), Duration::from_micros(50));
        }
        assert!((s.factor() - 0.5).abs() < 0.02, "{}", s.factor());
        let half = s.apply(Duration::from_micros(100)).as_secs_f64() * 1e6;
        assert!((half - 50.0).abs() < 2.0, "{half}");
        for _ in 0..100 {
            s.observe(Duration::from_micros(100), Duration::from_micros(200));
        }
        assert!((s.factor() - 2.0).abs() < 0.05, "{}", s.factor());
    }

    #[test]
    fn one_outlier_moves_the_scale_by_at_most_an_eighth_of_its_bound() {
        let s = EstimateScale::new();
        // A run preempted for a second: the ratio is clamped to 8, and weighs 1/8.
        s.observe(Duration::from_micros(10), Duration::from_secs(1));
        assert!(s.factor() <= 1.0 + 7.0 / 8.0 + 1e-9, "{}", s.factor());
        let s = EstimateScale::new();
        s.observe(Duration::from_micros(10), Duration::ZERO);
        assert!(s.factor() >= 1.0 - 1.0 / 8.0 - 1e-3, "{}", s.factor());
    }

    #[test]
    fn runs_too_short_to_time_are_ignored() {
        let s = EstimateScale::new();
        s.observe(Duration::from_nanos(500), Duration::from_secs(1));
        assert_eq!(s.factor(), 1.0);
        assert!(!EstimateScale::times(Duration::from_nanos(500)));
    }
}
