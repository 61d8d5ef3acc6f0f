//! Rules: the residues and column tiles of each gathered pass, and how its rows are gathered.

use super::budget::Units;
use super::gate::{Gate, wide_residues};
use super::radix8_kernel::{Radix8Steps, contiguous_steps, gathered_steps};
use super::{GatheredPass, PAGE_BYTES, PlanConfig, Source, TILE_FRACTION_OF_L2};
use ntt_kernels::BackendKind;
use serde::{Deserialize, Serialize};

/// How a gathered pass's first step gets its rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Gather {
    /// The first step's strided groups load the rows straight from their source (no copy).
    Fused,
    /// A lane-major message: each group's rows are first transposed into scratch (8×8 register
    /// tiles), which the first step then reads.
    Transposed,
}

impl Gather {
    /// The gather of a pass reading `source`.
    pub fn of(source: Source) -> Self {
        if source == Source::MessageLanes {
            Self::Transposed
        } else {
            Self::Fused
        }
    }
}

/// The layers of the shape the gathered passes see.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Geometry {
    pub lanes: usize,
    pub log_rows: u32,
    pub workers: usize,
    pub message: Source,
    /// The kernels the pass's radix-8 steps are chosen for.
    pub backend: BackendKind,
}

/// Rule (residues): a wide pass takes [`wide_residues`] (at least 8 when forced wide), or the
/// forced count, never more than the pass's row stride allows; then, unless forced, fewer until
/// the pass has at least four groups per worker.
pub(crate) fn pass_residues(
    geo: &Geometry,
    (g, log_step, blocks_per_group): (u32, u32, usize),
    gate: &Gate,
    units: &Units,
    config: &PlanConfig,
) -> u32 {
    let mut log_r = if gate.wide {
        let derived = wide_residues(geo.lanes, g, units);
        let derived = if config.wide == Some(true) {
            derived.max(3)
        } else {
            derived
        };
        config.log_residues.unwrap_or(derived).min(log_step)
    } else {
        0
    };
    if config.log_residues.is_none() {
        while log_r > 0 && (blocks_per_group << (log_step - log_r)) < 4 * geo.workers {
            log_r -= 1;
        }
    }
    log_r
}

/// Rule (column tiles): a message group done in several blocks (`layer > 0`) is transformed a
/// tile of columns at a time, in every block, so each tile of the message is read once while it
/// is in L2: a tile is at most a quarter of the L2 unit, at least a page per row (shorter strided
/// runs cost a DRAM page and a TLB entry each), in whole vectors.
pub(crate) fn tile_columns(source: Source, layer: u32, g: u32, width: usize, units: &Units) -> usize {
    if source.is_message() && layer > 0 {
        let fit = (units.l2_bytes / TILE_FRACTION_OF_L2 / 8) >> g;
        (fit / 8 * 8).max(PAGE_BYTES / 8).min(width)
    } else {
        width
    }
}

/// The gathered passes of `split` (layers each) from layer `start`: the first reads the message,
/// the others the buffer.
pub(crate) fn gathered_passes(
    geo: &Geometry,
    start: u32,
    split: &[u32],
    gate: &Gate,
    units: &Units,
    config: &PlanConfig,
) -> Vec<GatheredPass> {
    let mut layer = start;
    let mut passes = Vec::with_capacity(split.len());
    for (p, &g) in split.iter().enumerate() {
        let log_step = geo.log_rows - layer - g;
        let source = if p == 0 { geo.message } else { Source::Buffer };
        // A message group is done in every block; a buffer group in one.
        let blocks_per_group = if source.is_message() { 1 } else { 1usize << layer };
        let log_r = pass_residues(geo, (g, log_step, blocks_per_group), gate, units, config);
        let width = geo.lanes << log_r;
        passes.push(GatheredPass {
            first_layer: layer,
            log_group_rows: g,
            log_residues: log_r,
            log_step,
            groups: blocks_per_group << (log_step - log_r),
            group_bytes: (width << g) * 8,
            tile_columns: tile_columns(source, layer, g, width, units),
            source,
            gather: Gather::of(source),
            radix8: Radix8Steps {
                forward: gathered_steps(geo.backend, width, layer, layer + g),
                inverse: contiguous_steps(geo.backend, width, layer, layer + g),
            },
        });
        layer += g;
    }
    passes
}

#[cfg(test)]
mod tests {
    use super::super::gate::GateReason;
    use super::*;

    use super::super::budget::test_units as units;

    const WIDE: Gate = Gate {
        wide: true,
        reason: GateReason::FillL2 { log_residues: 3 },
    };

    fn geo(workers: usize) -> Geometry {
        Geometry {
            lanes: 64,
            log_rows: 24,
            workers,
            message: Source::MessageLanes,
            backend: BackendKind::Avx512,
        }
    }

    #[test]
    fn residues_leave_groups_for_every_worker() {
        let cfg = PlanConfig::default();
        // 2^8-row groups take 8 residues when the stride is long…
        assert_eq!(pass_residues(&geo(1), (8, 12, 1), &WIDE, &units(), &cfg), 3);
        // …but keep 4 groups per worker: a stride of 2^4 residues gives one worker 4 groups of
        // 4 residues, four workers 16 groups of one.
        assert_eq!(pass_residues(&geo(1), (8, 4, 1), &WIDE, &units(), &cfg), 2);
        assert_eq!(pass_residues(&geo(4), (8, 4, 1), &WIDE, &units(), &cfg), 0);
        // Narrow: one residue; forced: as given, within the stride.
        let narrow = Gate {
            wide: false,
            reason: GateReason::NoRoom,
        };
        assert_eq!(pass_residues(&geo(1), (8, 12, 1), &narrow, &units(), &cfg), 0);
        let forced = PlanConfig {
            log_residues: Some(5),
            ..PlanConfig::default()
        };
        assert_eq!(pass_residues(&geo(64), (8, 4, 1), &WIDE, &units(), &forced), 4);
    }

    #[test]
    fn message_groups_tile_their_columns() {
        let u = units();
        // 2^8 rows of 512 words: a quarter of 1 MiB is 2^15 words, 128 per row, under a page.
        assert_eq!(tile_columns(Source::MessageRows, 1, 8, 512, &u), 512);
        assert_eq!(tile_columns(Source::MessageRows, 1, 4, 4096, &u), 2048);
        // A buffer pass, or a message pass done in one block, is never tiled.
        assert_eq!(tile_columns(Source::Buffer, 1, 4, 4096, &u), 4096);
        assert_eq!(tile_columns(Source::MessageRows, 0, 4, 4096, &u), 4096);
    }

    #[test]
    fn passes_chain_their_layers_and_sources() {
        let p = gathered_passes(&geo(2), 1, &[9, 9], &WIDE, &units(), &PlanConfig::default());
        assert_eq!(
            (p[0].first_layer, p[1].first_layer, p[1].end_layer()),
            (1, 10, 19)
        );
        assert_eq!(
            (p[0].source, p[0].gather),
            (Source::MessageLanes, Gather::Transposed)
        );
        assert_eq!((p[1].source, p[1].gather), (Source::Buffer, Gather::Fused));
        assert_eq!(p[1].log_step, 24 - 19);
        assert_eq!(p[1].groups, (1 << 10) << (5 - p[1].log_residues));
    }
}
