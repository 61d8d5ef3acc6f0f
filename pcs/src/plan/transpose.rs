//! Rule: whether a lane-major message is transposed into the buffer before the passes.
//!
//! A gathered pass that reads a lane-major message takes, for each of its rows, one run of
//! adjacent residues from every lane, and its group must hold every lane to write whole
//! codeword rows: the L2 unit caps the residues, and so the runs the message is read in (16
//! residues of 64 lanes: 128-byte runs, each a DRAM page and a TLB entry of its own). Out of
//! cache those short runs, not the butterflies, set the pass's pace. Transposing the message
//! first, into the buffer's first rows where an in-place message lies, reads each lane in runs
//! of a page and writes whole rows: one more sweep of the message (not of the codeword), after
//! which the passes read row-major rows in runs as long as a group's rows.

use super::{PAGE_BYTES, Plan, PlanConfig, Source};
use crate::shape::MessageLayout;

/// Bytes of message rows the transpose writes at a time: a chunk of a 64-lane message is 512
/// rows, so each lane is read in runs of 4 KiB, a page, and the chunk stays in L2 while its lanes
/// are transposed into it.
pub const TRANSPOSE_CHUNK_BYTES: usize = 256 << 10;

/// Rows of one chunk of the transpose of a 2^log_message_rows-row message of `lanes` lanes, as a
/// log: about [`TRANSPOSE_CHUNK_BYTES`], at least 8 rows (a transpose's worth), at most the message.
pub fn transpose_chunk_log_rows(lanes: usize, log_message_rows: u32) -> u32 {
    let fit = (TRANSPOSE_CHUNK_BYTES / (8 * lanes.max(1))).max(8);
    (usize::BITS - 1 - fit.leading_zeros()).min(log_message_rows)
}

/// A message larger than this fraction of the last-level cache is transposed with
/// non-temporal stores.
const STREAM_FRACTION_OF_LLC: usize = 4;

/// Rule (transpose stores): non-temporal stores for a message over a quarter of the last-level
/// cache the pool can use, unless `PlanConfig::stream` forces one kind. The first gathered pass
/// reads the rows back right away, so a message that stays in the cache should be stored plainly;
/// one that does not would only be read in before each store line is written (measured on the
/// Xeon guest, whose hypervisor reports a 480 MiB L3: a 128 MiB message transposed 6 % faster in
/// all with streaming stores, a 32 MiB one 13 % slower).
pub(crate) fn streams(message_bytes: usize, llc_bytes: usize, config: &PlanConfig) -> bool {
    config
        .stream
        .unwrap_or(message_bytes > llc_bytes / STREAM_FRACTION_OF_LLC)
}

/// Rule (transpose first): unless forced, a lane-major message of at least 8 lanes (whole 8×8
/// transposes) whose first gathered pass would read it in runs shorter than a page.
pub(crate) fn transposes_first(plan: &Plan, config: &PlanConfig) -> bool {
    if plan.layout != Some(MessageLayout::Lanes) {
        return false;
    }
    if let Some(forced) = config.transpose_first {
        return forced;
    }
    let Some(first) = plan.gathered.first() else {
        return false;
    };
    debug_assert_eq!(first.source, Source::MessageLanes);
    let run_bytes = 8usize << first.log_residues;
    plan.shape.lanes() >= 8 && run_bytes < PAGE_BYTES
}

#[cfg(test)]
mod tests {
    use super::super::plan_for;
    use super::*;
    use crate::shape::Shape;
    use ntt_kernels::BackendKind;
    use ntt_runtime::WorkerBudget;

    fn plan(log_rows: u32, lanes: usize, layout: MessageLayout, config: &PlanConfig) -> Plan {
        let budget = WorkerBudget {
            l2_bytes: 1 << 20,
            l3_bytes: 16 << 20,
        };
        let shape = Shape::new(log_rows, lanes, 1).expect("valid shape");
        plan_for(shape, Some(layout), 1, &[budget], BackendKind::Avx512, config)
    }

    #[test]
    fn lane_major_messages_out_of_l2_are_transposed_first() {
        let cfg = PlanConfig::default();
        // 2^19 rows of 64 lanes: a gathered pass of at most 64 residues, 512-byte runs.
        let p = plan(19, 64, MessageLayout::Lanes, &cfg);
        assert!(p.transpose_first, "{p}");
        assert_eq!(p.layout, Some(MessageLayout::Lanes));
        // The passes are the in-place message's.
        assert_eq!(p.gathered[0].source, Source::InPlaceMessage, "{p}");
        assert!(
            !plan(19, 64, MessageLayout::Rows, &cfg).transpose_first,
            "row-major"
        );
        assert!(
            !plan(19, 4, MessageLayout::Lanes, &cfg).transpose_first,
            "no whole transposes"
        );
        assert!(
            !plan(9, 64, MessageLayout::Lanes, &cfg).transpose_first,
            "no gathered pass"
        );
        let forced = |on| PlanConfig {
            transpose_first: Some(on),
            ..PlanConfig::default()
        };
        assert!(!plan(19, 64, MessageLayout::Lanes, &forced(false)).transpose_first);
        assert!(plan(9, 4, MessageLayout::Lanes, &forced(true)).transpose_first);
        assert!(!plan(9, 4, MessageLayout::Rows, &forced(true)).transpose_first);
    }

    #[test]
    fn large_messages_are_transposed_with_streaming_stores() {
        let cfg = PlanConfig::default();
        assert!(streams(128 << 20, 480 << 20, &cfg));
        assert!(!streams(32 << 20, 480 << 20, &cfg));
        let forced = PlanConfig {
            stream: Some(false),
            ..PlanConfig::default()
        };
        assert!(!streams(1 << 30, 1 << 20, &forced));
        // The planner records it (the test budgets give a 16 MiB LLC).
        let p = plan(19, 64, MessageLayout::Lanes, &cfg);
        assert!(p.transpose_first && p.transpose_stream, "{p}");
    }

    #[test]
    fn chunks_are_a_quarter_mib_of_whole_transposes() {
        assert_eq!(transpose_chunk_log_rows(64, 20), 9, "512 rows of 512 bytes");
        assert_eq!(transpose_chunk_log_rows(64, 5), 5, "the whole message");
        assert_eq!(transpose_chunk_log_rows(1 << 16, 20), 3, "at least 8 rows");
        assert_eq!(transpose_chunk_log_rows(24, 20), 10);
    }
}
