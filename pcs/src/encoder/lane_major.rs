//! Reading a lane-major message (lane t is the contiguous block t) as rows.

use ntt_kernels::Backend;

/// Fills `dst` (`count` rows of `lanes` words) with message rows `first_row .. first_row + count`:
/// `dst[q·lanes + t] = msg[t·msg_rows + first_row + q]`.
///
/// Whole 8×8 tiles (8 lanes × 8 rows) go through the backend's register transpose; the lanes
/// and rows left over are copied one word at a time.
pub(crate) fn gather_lane_rows(
    backend: Backend,
    msg: &[u64],
    lanes: usize,
    msg_rows: usize,
    first_row: usize,
    count: usize,
    dst: &mut [u64],
) {
    debug_assert_eq!(msg.len(), lanes * msg_rows);
    debug_assert!(first_row + count <= msg_rows);
    debug_assert_eq!(dst.len(), count * lanes);
    if lanes < 8 {
        // Few lanes: no whole tile. One lane is already a row-major column; a few lanes are
        // interleaved row by row (the lanes' runs are read in step, each sequentially).
        if lanes == 1 {
            dst.copy_from_slice(&msg[first_row..first_row + count]);
            return;
        }
        let runs: [&[u64]; 8] = core::array::from_fn(|t| {
            if t < lanes {
                &msg[t * msg_rows + first_row..][..count]
            } else {
                &[]
            }
        });
        for (q, row) in dst.chunks_exact_mut(lanes).enumerate() {
            for (t, word) in row.iter_mut().enumerate() {
                *word = runs[t][q];
            }
        }
        return;
    }
    let full_lanes = lanes - lanes % 8;
    let full_rows = count - count % 8;
    if full_rows > 0 {
        for t0 in (0..full_lanes).step_by(8) {
            for q0 in (0..full_rows).step_by(8) {
                let src_at = t0 * msg_rows + first_row + q0;
                let dst_at = q0 * lanes + t0;
                backend.transpose8x8(
                    &msg[src_at..src_at + 7 * msg_rows + 8],
                    msg_rows,
                    &mut dst[dst_at..dst_at + 7 * lanes + 8],
                    lanes,
                );
            }
        }
    }
    // Lanes outside whole tiles, every row.
    for t in full_lanes..lanes {
        let lane = &msg[t * msg_rows + first_row..t * msg_rows + first_row + count];
        for (q, &word) in lane.iter().enumerate() {
            dst[q * lanes + t] = word;
        }
    }
    // Rows outside whole tiles, lanes inside them.
    for t in 0..full_lanes {
        let lane = &msg[t * msg_rows + first_row..t * msg_rows + first_row + count];
        for q in full_rows..count {
            dst[q * lanes + t] = lane[q];
        }
    }
}

/// Asks for message rows `first_row .. first_row + count` (every lane's run of `count` words) to
/// be brought into L2 ahead of a [`gather_lane_rows`] of them. A lane-major gather reads one short
/// run from each of many lanes, more streams than the hardware prefetchers follow, so without
/// this every run starts with a DRAM miss.
pub(crate) fn prefetch_lane_rows(
    backend: Backend,
    msg: &[u64],
    lanes: usize,
    msg_rows: usize,
    first_row: usize,
    count: usize,
) {
    if first_row + count > msg_rows {
        return;
    }
    for t in 0..lanes {
        backend.prefetch_l2(&msg[t * msg_rows + first_row..t * msg_rows + first_row + count]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gathers_any_window() {
        let backend = Backend::portable();
        for lanes in [1, 3, 8, 9, 17] {
            let msg_rows = 40;
            let msg: Vec<u64> = (0..lanes * msg_rows).map(|i| i as u64 * 7 + 1).collect();
            for (first, count) in [(0, 40), (3, 17), (8, 16), (39, 1), (5, 0)] {
                let mut dst = vec![0; count * lanes];
                gather_lane_rows(backend, &msg, lanes, msg_rows, first, count, &mut dst);
                for q in 0..count {
                    for t in 0..lanes {
                        assert_eq!(dst[q * lanes + t], msg[t * msg_rows + first + q]);
                    }
                }
            }
        }
    }
}
