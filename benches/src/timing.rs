//! Repeated timings and their medians.
//!
//! The machine is noisy, so figures are medians, and comparisons run their candidates
//! round-robin in one process ([`interleaved`]) so that noise falls on all of them alike.

use ntt_runtime::stats::Spread;
use serde::Serialize;
use std::time::Instant;

/// Seconds of each timed run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Samples {
    /// Each run's seconds, in the order they ran.
    pub secs: Vec<f64>,
}

impl Samples {
    /// The median, fastest and slowest run (ntt-runtime's one definition).
    ///
    /// # Panics
    /// If there are no samples.
    pub fn spread(&self) -> Spread {
        Spread::of(self.secs.iter().copied())
    }

    /// The median run (mean of the middle two for an even count).
    ///
    /// # Panics
    /// If there are no samples.
    pub fn median(&self) -> f64 {
        self.spread().median
    }

    /// The fastest run.
    ///
    /// # Panics
    /// If there are no samples.
    pub fn min(&self) -> f64 {
        self.spread().min
    }

    /// The slowest run.
    ///
    /// # Panics
    /// If there are no samples.
    pub fn max(&self) -> f64 {
        self.spread().max
    }
}

/// Seconds `f` takes.
pub fn time(f: impl FnOnce()) -> f64 {
    let start = Instant::now();
    f();
    start.elapsed().as_secs_f64()
}

/// Runs `run` `warmup` times untimed-for-the-result, then `repeats` times, and keeps what each
/// run returns: its own measured seconds (so it can keep setup out of the figure).
pub fn repeat(warmup: usize, repeats: usize, mut run: impl FnMut() -> f64) -> Samples {
    for _ in 0..warmup {
        run();
    }
    Samples {
        secs: (0..repeats).map(|_| run()).collect(),
    }
}

/// Runs the candidates round-robin: one warm-up round, then `rounds` rounds; candidate i's
/// samples come back at index i. Each candidate returns its own measured seconds.
pub fn interleaved(rounds: usize, candidates: &mut [&mut dyn FnMut() -> f64]) -> Vec<Samples> {
    let mut out = vec![Samples::default(); candidates.len()];
    for round in 0..=rounds {
        for (c, samples) in candidates.iter_mut().zip(out.iter_mut()) {
            let secs = c();
            if round > 0 {
                samples.secs.push(secs);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        let s = Samples {
            secs: vec![3.0, 1.0, 2.0],
        };
        assert_eq!(s.median(), 2.0);
        let s = Samples {
            secs: vec![4.0, 1.0, 2.0, 3.0],
        };
        assert_eq!(s.median(), 2.5);
        assert_eq!((s.min(), s.max()), (1.0, 4.0));
    }

    #[test]
    fn interleaved_drops_the_warmup_round() {
        let mut calls = [0usize; 2];
        let (a, b) = calls.split_at_mut(1);
        let mut first = || {
            a[0] += 1;
            a[0] as f64
        };
        let mut second = || {
            b[0] += 1;
            10.0
        };
        let s = interleaved(3, &mut [&mut first, &mut second]);
        assert_eq!(s[0].secs, [2.0, 3.0, 4.0]);
        assert_eq!(s[1].secs, [10.0; 3]);
        assert_eq!(calls, [4, 4]);
    }
}
