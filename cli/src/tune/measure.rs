//! Interleaved timing: every candidate runs once per round, so drift in the machine (other
//! load, clocks, thermal state) spreads over all candidates instead of biasing the ones that ran
//! last.

use std::time::{Duration, Instant};

/// Runs `run(candidate)` for `rounds` rounds over `candidates` candidates, after one untimed
/// warm-up round. Rounds alternate direction (A B C, C B A, ...) so no candidate always follows
/// the same neighbour. Returns the samples per candidate, in candidate order.
pub(crate) fn interleaved<E>(
    candidates: usize,
    rounds: usize,
    mut run: impl FnMut(usize) -> Result<(), E>,
    mut after_each: impl FnMut(),
) -> Result<Vec<Vec<Duration>>, E> {
    for c in 0..candidates {
        run(c)?;
    }
    let mut samples = vec![Vec::with_capacity(rounds); candidates];
    for round in 0..rounds {
        for step in 0..candidates {
            let c = if round % 2 == 0 {
                step
            } else {
                candidates - 1 - step
            };
            let start = Instant::now();
            run(c)?;
            samples[c].push(start.elapsed());
            after_each();
        }
    }
    Ok(samples)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_candidate_gets_every_round_interleaved() {
        let mut order = Vec::new();
        let samples = interleaved::<()>(
            3,
            4,
            |c| {
                order.push(c);
                Ok(())
            },
            || {},
        )
        .unwrap();
        assert_eq!(samples.iter().map(Vec::len).collect::<Vec<_>>(), vec![4, 4, 4]);
        // Warm-up, then A B C, C B A, A B C, C B A.
        assert_eq!(order, vec![0, 1, 2, 0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0]);
    }

    #[test]
    fn errors_stop_the_run() {
        let r = interleaved(2, 3, |c| if c == 1 { Err("boom") } else { Ok(()) }, || {});
        assert_eq!(r, Err("boom"));
    }
}
