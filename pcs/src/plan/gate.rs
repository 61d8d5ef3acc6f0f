//! Rule: the narrow/wide gate, and why it chose.
//!
//! A gathered group takes the 2^g rows `residue + i·2^log_step` of a block for 2^log_residues
//! adjacent residues, so each of its rows is `lanes << log_residues` contiguous words. Narrow
//! groups take one residue; wide ones take as many as fill the L2 unit, and more (up to twice
//! the unit) where that is what makes each row a page-long run: a strided row shorter than a page
//! costs its own TLB entry and DRAM page, which costs more than a group spilling from L2 into
//! L3 for its first and last steps (see `docs/ARCHITECTURE.md`).

use super::budget::Units;
use super::{MAX_LOG_RESIDUES, PAGE_BYTES, PlanConfig, ceil_log2, floor_log2};
use serde::{Deserialize, Serialize};

/// Why the gate chose narrow or wide (recorded in the plan; `ntt plan` prints it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GateReason {
    /// `PlanConfig::wide` forced the choice.
    Forced,
    /// No gathered pass, so no group to widen.
    NoGatheredPass,
    /// The first pass's groups are whole blocks (row stride 1): no adjacent residue to add.
    WholeBlocks,
    /// 2^log_residues adjacent residues fit the L2 unit beside each other.
    FillL2 {
        /// Residues the gate would take, as a log.
        log_residues: u32,
    },
    /// 2^log_residues adjacent residues make each row a page-long run; the group then takes up
    /// to twice the L2 unit.
    PageRuns {
        /// Residues the gate would take, as a log.
        log_residues: u32,
    },
    /// One residue's group already fills the L2 unit and its rows are already page-long.
    RowsLongEnough,
    /// Not even two adjacent residues of the first pass's group fit twice the L2 unit.
    NoRoom,
}

impl core::fmt::Display for GateReason {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::Forced => f.write_str("forced by the plan config"),
            Self::NoGatheredPass => f.write_str("no gathered pass"),
            Self::WholeBlocks => f.write_str("the first pass's groups are whole blocks"),
            Self::FillL2 { log_residues } => {
                write!(f, "{} adjacent residues fit the L2 unit", 1u64 << log_residues)
            }
            Self::PageRuns { log_residues } => write!(
                f,
                "{} adjacent residues make page-long rows (group up to 2× the L2 unit)",
                1u64 << log_residues
            ),
            Self::RowsLongEnough => {
                f.write_str("one residue fills the L2 unit and its rows are already page-long")
            }
            Self::NoRoom => f.write_str("two residues of a group exceed 2× the L2 unit"),
        }
    }
}

/// The gate's decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Gate {
    pub wide: bool,
    pub reason: GateReason,
}

/// Residues a wide group of 2^g rows of `lanes` words takes, as a log: enough for its rows to
/// be page-long runs (4 KiB), at least what the L2 unit holds, never more than twice what it
/// holds, nor more than [`MAX_LOG_RESIDUES`].
pub(crate) fn wide_residues(lanes: usize, g: u32, units: &Units) -> u32 {
    let (fit, page_runs, twice_the_unit) = residue_bounds(lanes, g, units);
    fit.max(page_runs).min(twice_the_unit).min(MAX_LOG_RESIDUES)
}

/// Residues of a 2^g-row group, as logs: what the L2 unit holds, what makes page-long rows,
/// what twice the unit holds.
fn residue_bounds(lanes: usize, g: u32, units: &Units) -> (u32, u32, u32) {
    (
        units.residues_that_fit(lanes, g),
        ceil_log2(PAGE_BYTES.div_ceil(8 * lanes)),
        floor_log2(2 * (units.l2_bytes / 8) / (lanes << g).max(1)),
    )
}

/// Rule (the gate): wide when the first gathered pass (`first`: its layers g and row stride
/// 2^log_step, if there is one) can take at least two adjacent residues.
pub(crate) fn gate(lanes: usize, first: Option<(u32, u32)>, units: &Units, config: &PlanConfig) -> Gate {
    if let Some(wide) = config.wide {
        return Gate {
            wide,
            reason: GateReason::Forced,
        };
    }
    let narrow = |reason| Gate { wide: false, reason };
    let Some((g, log_step)) = first else {
        return narrow(GateReason::NoGatheredPass);
    };
    if log_step == 0 {
        return narrow(GateReason::WholeBlocks);
    }
    let log_residues = wide_residues(lanes, g, units);
    let (fit, _, twice_the_unit) = residue_bounds(lanes, g, units);
    if log_residues == 0 {
        return narrow(if twice_the_unit == 0 {
            GateReason::NoRoom
        } else {
            GateReason::RowsLongEnough
        });
    }
    let reason = if log_residues <= fit {
        GateReason::FillL2 { log_residues }
    } else {
        GateReason::PageRuns { log_residues }
    };
    Gate { wide: true, reason }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1 MiB L2 unit.
    fn units() -> Units {
        Units {
            l2_bytes: 1 << 20,
            l3_bytes: 8 << 20,
            llc_bytes: 16 << 20,
            log_fit_l2: 0,
            log_fit_l3: 0,
        }
    }

    #[test]
    fn wide_residues_aim_for_page_runs_within_twice_the_unit() {
        let u = units();
        // 64 lanes (512 B rows): pages need 8 residues; a 2^11-row group fills the unit, so
        // twice the unit allows only 2.
        assert_eq!(wide_residues(64, 11, &u), 1);
        // A 2^8-row group: the unit holds 8 residues, exactly page runs.
        assert_eq!(wide_residues(64, 8, &u), 3);
        // A 2^4-row group: the unit holds 128, capped at 64.
        assert_eq!(wide_residues(64, 4, &u), MAX_LOG_RESIDUES);
        // 1024 lanes (8 KiB rows): already page-long; a 2^6-row group fills half the unit.
        assert_eq!(wide_residues(1024, 6, &u), 1);
        assert_eq!(wide_residues(1024, 7, &u), 0);
    }

    #[test]
    fn the_gate_explains_itself() {
        let u = units();
        let cfg = PlanConfig::default();
        let gate_for = |lanes, first| gate(lanes, first, &u, &cfg);
        assert_eq!(
            gate_for(64, None),
            Gate {
                wide: false,
                reason: GateReason::NoGatheredPass
            }
        );
        assert_eq!(
            gate_for(64, Some((8, 0))),
            Gate {
                wide: false,
                reason: GateReason::WholeBlocks
            }
        );
        assert_eq!(
            gate_for(64, Some((11, 8))),
            Gate {
                wide: true,
                reason: GateReason::PageRuns { log_residues: 1 }
            }
        );
        assert_eq!(
            gate_for(64, Some((8, 8))),
            Gate {
                wide: true,
                reason: GateReason::FillL2 { log_residues: 3 }
            }
        );
        assert_eq!(
            gate_for(1024, Some((7, 8))),
            Gate {
                wide: false,
                reason: GateReason::RowsLongEnough
            }
        );
        assert_eq!(
            gate_for(1024, Some((8, 8))),
            Gate {
                wide: false,
                reason: GateReason::NoRoom
            }
        );
        let forced = PlanConfig {
            wide: Some(true),
            ..PlanConfig::default()
        };
        assert_eq!(
            gate(64, None, &u, &forced),
            Gate {
                wide: true,
                reason: GateReason::Forced
            }
        );
        assert_eq!(
            GateReason::PageRuns { log_residues: 3 }
                .to_string()
                .split(' ')
                .next(),
            Some("8")
        );
    }
}
