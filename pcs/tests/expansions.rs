//! High expansions (rate 1/2^4 to 1/2^10), the opening rounds of WHIR: a short message read by
//! many replicas. An in-place deep pass either runs as a graph in which each replica-0 task
//! waits only for its readers' first steps (few tasks), or as two loops, readers then replica 0
//! (many tasks); both, and the encode from a separate row-major or lane-major message, give the
//! reference codeword on every backend and worker count.

mod common;

use common::{Recorder, assume_written, encoder, garbage_codeword, rows_to_lanes, words};
use ntt_kernels::Backend;
use ntt_pcs::reference::encode_reference;
use ntt_pcs::{CommitParams, Expansion, MessageLayout, Shape};

/// (lanes, message rows as log2, log inverse rate). The last three have few tasks with sub-blocks
/// larger than L1, which run split into first-step pieces and segments at 2 and 3 workers.
const SHAPES: [(usize, u32, u32); 12] = [
    (48, 4, 10),
    (48, 6, 7),
    (48, 10, 4),
    (16, 9, 1),
    (3, 8, 6),
    (1, 12, 1),
    (8, 7, 3),
    (24, 5, 8),
    (64, 3, 9),
    (24, 12, 1),
    (3, 14, 1),
    (64, 10, 2),
];

#[test]
#[cfg_attr(miri, ignore = "large buffers")]
fn high_expansions_match_the_reference_in_place_and_from_a_message() {
    let mut schedules = [false; 2];
    for (lanes, log_msg_rows, r) in SHAPES {
        let log_rows = log_msg_rows + r;
        let msg = words(
            (lanes as u64) << 16 | u64::from(log_rows) << 8 | u64::from(r),
            lanes << log_msg_rows,
        );
        let expect = encode_reference(&msg, lanes, log_rows, r);
        let params = CommitParams::lanes(lanes)
            .log_inv_rate(r)
            .layout(MessageLayout::Rows);
        let shape = Shape::with_expansion(log_rows, lanes, r, Expansion::Unbounded).expect("shape");
        for backend in Backend::available() {
            for workers in [1, 2, 3] {
                let enc = encoder(workers, backend);
                let what =
                    format!("{lanes} lanes, 2^{log_rows} rows, rate 1/2^{r}, {backend:?}, {workers} workers");
                if let Some(deep) = enc.plan_in_place(shape).deep {
                    schedules[usize::from(workers == 1 || deep.tasks > 8 * workers)] = true;
                }
                let mut data = vec![0u64; lanes << log_rows];
                data[..msg.len()].copy_from_slice(&msg);
                let sink = Recorder::default();
                enc.encode_in_place(&mut data, params, Some(&sink))
                    .expect("in place");
                assert!(data == expect, "in place: {what}");
                if let Err(e) = sink.check(&data, lanes) {
                    panic!("in place, sink: {e}: {what}");
                }
                for layout in [MessageLayout::Rows, MessageLayout::Lanes] {
                    let input = match layout {
                        MessageLayout::Rows => msg.clone(),
                        MessageLayout::Lanes => rows_to_lanes(&msg, lanes),
                    };
                    let mut out = garbage_codeword(lanes << log_rows);
                    let sink = Recorder::default();
                    enc.encode(&input, &mut out, params.layout(layout), Some(&sink))
                        .expect("encode");
                    let out = assume_written(out);
                    assert!(out == expect, "{layout} message: {what}");
                    if let Err(e) = sink.check(&out, lanes) {
                        panic!("{layout} message, sink: {e}: {what}");
                    }
                }
            }
        }
    }
    assert_eq!(
        schedules,
        [true, true],
        "both in-place schedules (graph and loops) ran"
    );
}
