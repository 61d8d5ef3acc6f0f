//! What the loops that split on demand share: an interval of indices that its owner takes from
//! the front and a thief halves from the back (the owner's wait for a stolen token is
//! `WorkerThread::reclaim`).
//!
//! [`ThreadPool::for_each`](crate::ThreadPool::for_each) (`adaptive.rs`) keeps its grains in one,
//! a graph run its roots (`roots.rs`).

use std::sync::atomic::{AtomicU64, Ordering};

/// Indices `front..back` not yet taken, packed as `back << 32 | front`.
///
/// Relaxed everywhere: only the exclusivity of the indices is at stake, which the single
/// modification order of the word gives; the work's writes travel through latches and the
/// run's counters.
pub(crate) struct Interval(AtomicU64);

fn unpack(v: u64) -> (u32, u32) {
    (v as u32, (v >> 32) as u32)
}

fn pack(front: u32, back: u32) -> u64 {
    (u64::from(back) << 32) | u64::from(front)
}

impl Interval {
    pub(crate) fn new(front: u32, back: u32) -> Self {
        Self(AtomicU64::new(pack(front, back)))
    }

    /// Whether no index is left.
    pub(crate) fn is_empty(&self) -> bool {
        let (front, back) = unpack(self.0.load(Ordering::Relaxed));
        front >= back
    }

    /// The owner's next index, with one `fetch_add`. An owner that finds the interval empty
    /// moves `front` one past `back`, so `back` must stay far enough below `u32::MAX` for the
    /// owner's frames (one per steal) not to carry into it.
    pub(crate) fn take_front(&self) -> Option<u32> {
        let (front, back) = unpack(self.0.fetch_add(1, Ordering::Relaxed));
        (front < back).then_some(front)
    }

    /// The owner's next share: `front..front + k`, with `k` what is left divided by `divisor`
    /// (at least 1).
    pub(crate) fn take_share(&self, divisor: u32) -> Option<(u32, u32)> {
        let mut current = self.0.load(Ordering::Relaxed);
        loop {
            let (front, back) = unpack(current);
            if front >= back {
                return None;
            }
            let share = ((back - front) / divisor.max(1)).max(1);
            match self.0.compare_exchange_weak(
                current,
                pack(front + share, back),
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return Some((front, front + share)),
                Err(seen) => current = seen,
            }
        }
    }

    /// A thief's share: the upper half (rounded up) of what is left, or `None` if nothing is.
    pub(crate) fn steal_half(&self) -> Option<(u32, u32)> {
        let mut current = self.0.load(Ordering::Relaxed);
        loop {
            let (front, back) = unpack(current);
            if front >= back {
                return None;
            }
            let mid = front + (back - front) / 2;
            match self.0.compare_exchange_weak(
                current,
                pack(front, mid),
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return Some((mid, back)),
                Err(seen) => current = seen,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thief_takes_the_upper_half_rounded_up() {
        let piece = Interval::new(0, 5);
        assert_eq!(piece.take_front(), Some(0));
        // Grains 1..5 left: the thief takes 3..5, the owner keeps 1..3.
        assert_eq!(piece.steal_half(), Some((3, 5)));
        assert_eq!(piece.take_front(), Some(1));
        // One grain left: a thief takes it (the owner is busy with grain 1).
        assert_eq!(piece.steal_half(), Some((2, 3)));
        assert_eq!(piece.take_front(), None);
        // An owner that ran past the end leaves nothing to steal.
        assert_eq!(piece.steal_half(), None);
        assert_eq!(piece.take_front(), None);
        assert!(piece.is_empty());
        let last = Interval::new(7, 8);
        assert_eq!(last.steal_half(), Some((7, 8)));
        assert_eq!(last.take_front(), None);
    }

    #[test]
    fn the_owner_takes_a_share_and_a_thief_half_of_the_rest() {
        let span = Interval::new(0, 1000);
        assert_eq!(span.take_share(16), Some((0, 62)));
        assert_eq!(span.steal_half(), Some((531, 1000)));
        assert_eq!(span.take_share(16), Some((62, 91)));
        // Small intervals go one index at a time.
        let few = Interval::new(5, 8);
        assert_eq!(few.take_share(32), Some((5, 6)));
        assert_eq!(few.steal_half(), Some((7, 8)));
        assert!(!few.is_empty());
        assert_eq!(few.take_share(32), Some((6, 7)));
        assert_eq!(few.take_share(32), None);
        assert_eq!(few.steal_half(), None);
        assert!(few.is_empty());
    }
}
