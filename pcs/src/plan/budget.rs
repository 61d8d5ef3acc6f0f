//! Rule: the cache units every other rule sizes its pieces to, from the pool's per-worker
//! budgets (or the forced values).

use super::{FALLBACK_BUDGET, PlanConfig, floor_log2};
use ntt_runtime::WorkerBudget;

/// The units of one plan, in bytes and in rows of the shape's lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Units {
    /// A gathered group or an L2 deep sub-block: the smallest worker's L2 share, so every
    /// worker's unit fits its own cache.
    pub l2_bytes: usize,
    /// An L3 deep sub-block: half the smallest worker's L3 share, at least the L2 unit.
    pub l3_bytes: usize,
    /// The last-level cache the pool can use: the largest per-worker L3 share × workers.
    pub llc_bytes: usize,
    /// Rows of `lanes` words the L2 unit holds, as a log; at least 1, so every pass progresses.
    pub log_fit_l2: u32,
    /// Rows the L3 unit holds, as a log, between `log_fit_l2` and `2·log_fit_l2` (an L3
    /// sub-block runs as one in-cache gathered step plus L2 pieces).
    pub log_fit_l3: u32,
}

/// The units of 64-word rows under a 1 MiB L2 unit (2^11 rows) and an 8 MiB L3 unit (2^14
/// rows): the planner rules' tests.
#[cfg(test)]
pub(crate) fn test_units() -> Units {
    Units {
        l2_bytes: 1 << 20,
        l3_bytes: 8 << 20,
        llc_bytes: 16 << 20,
        log_fit_l2: 11,
        log_fit_l3: 14,
    }
}

impl Units {
    /// The units for rows of `lanes` words, `workers` workers with `budgets` (none reported:
    /// [`FALLBACK_BUDGET`]), overridden by `config`'s forced sizes.
    pub(crate) fn new(lanes: usize, workers: usize, budgets: &[WorkerBudget], config: &PlanConfig) -> Self {
        let smallest =
            |f: fn(&WorkerBudget) -> usize, fallback: usize| budgets.iter().map(f).min().unwrap_or(fallback);
        let min_l2 = smallest(|b| b.l2_bytes, FALLBACK_BUDGET.l2_bytes);
        let min_l3 = smallest(|b| b.l3_bytes, FALLBACK_BUDGET.l3_bytes);
        let max_l3 = budgets
            .iter()
            .map(|b| b.l3_bytes)
            .max()
            .unwrap_or(FALLBACK_BUDGET.l3_bytes);
        let l2_bytes = config.l2_bytes.unwrap_or(min_l2).max(64);
        let l3_bytes = config.l3_bytes.unwrap_or(min_l3 / 2).max(l2_bytes);
        let fit = |bytes: usize| floor_log2(bytes / 8 / lanes.max(1));
        let log_fit_l2 = fit(l2_bytes).max(1);
        Self {
            l2_bytes,
            l3_bytes,
            llc_bytes: max_l3.saturating_mul(workers.max(1)),
            log_fit_l2,
            log_fit_l3: fit(l3_bytes).clamp(log_fit_l2, 2 * log_fit_l2),
        }
    }

    /// Adjacent residues of a 2^g-row group of `lanes`-word rows the L2 unit holds, as a log.
    pub(crate) fn residues_that_fit(&self, lanes: usize, g: u32) -> u32 {
        floor_log2(self.l2_bytes / 8 / (lanes << g).max(1))
    }
}

/// Rule: plain stores unless `PlanConfig::stream` forces streaming (non-temporal) ones. In
/// theory a codeword past the LLC is read back from DRAM anyway, so the write-allocate reads of
/// plain stores are waste; measured, streaming never won: within noise at 256 MiB on an AVX-512
/// machine with a 300 MiB L3, and 5–25 % more CPU time per encode at 64 MiB and 256 MiB on an
/// AVX2 machine with a 32 MiB LLC (the next pass finds part of a plainly stored buffer in
/// cache). See `docs/PERFORMANCE.md`.
pub(crate) fn streaming(config: &PlanConfig) -> bool {
    config.stream.unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(l2: usize, l3: usize) -> WorkerBudget {
        WorkerBudget {
            l2_bytes: l2,
            l3_bytes: l3,
        }
    }

    #[test]
    fn units_follow_the_smallest_worker() {
        let b = [budget(2 << 20, 32 << 20), budget(1 << 20, 16 << 20)];
        let u = Units::new(64, 2, &b, &PlanConfig::default());
        assert_eq!(
            (u.l2_bytes, u.l3_bytes, u.llc_bytes),
            (1 << 20, 8 << 20, 64 << 20)
        );
        // 1 MiB / 512 B per row = 2^11 rows; 8 MiB = 2^14 rows, within 2× the L2 layers.
        assert_eq!((u.log_fit_l2, u.log_fit_l3), (11, 14));
        assert_eq!(u.residues_that_fit(64, 8), 3);
    }

    #[test]
    fn units_have_floors_and_caps() {
        // No budgets: the fallback. A tiny forced L2 still holds 2 rows; L3 at most 2× L2 layers.
        let u = Units::new(1 << 20, 1, &[], &PlanConfig::default());
        assert_eq!(u.l2_bytes, FALLBACK_BUDGET.l2_bytes);
        assert_eq!(u.log_fit_l2, 1);
        let forced = PlanConfig {
            l2_bytes: Some(1),
            l3_bytes: Some(1 << 30),
            ..PlanConfig::default()
        };
        let u = Units::new(1, 1, &[budget(1 << 20, 1 << 20)], &forced);
        assert_eq!((u.l2_bytes, u.log_fit_l2, u.log_fit_l3), (64, 3, 6));
    }

    #[test]
    fn streaming_only_when_forced() {
        assert!(!streaming(&PlanConfig::default()));
        for forced in [false, true] {
            let config = PlanConfig {
                stream: Some(forced),
                ..PlanConfig::default()
            };
            assert_eq!(streaming(&config), forced);
        }
    }
}
