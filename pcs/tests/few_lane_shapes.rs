//! Few and odd lane counts (1–9, 24, 63, 64, 65) at every height from 2^0 to 2^16 rows: every
//! entry point (in place, row-major, lane-major), backend, worker count and plan family gives
//! the reference codeword byte for byte. These are the shapes whose last layers run across
//! blocks (segments shorter than a vector), so the per-step kernel choice is covered at every
//! block count. The small shapes run every combination; the large ones (above `FULL_WORDS`
//! codeword words) a seeded, strided sample of them, so the suite stays fast on two cores.

mod common;

use common::{assume_written, garbage_codeword, pool, rows_to_lanes, words};
use ntt_pcs::reference::encode_reference;
use ntt_pcs::{CommitParams, Encoder, MessageLayout, PlanConfig};

const LANES: [usize; 13] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 24, 63, 64, 65];
const MAX_LOG_ROWS: u32 = 16;
/// Codeword words up to which every backend × workers × plan combination runs.
const FULL_WORDS: usize = 1 << 11;
/// Largest codeword a sampled case may have (the bitwise oracle's cost).
const MAX_WORDS: usize = 1 << 18;

/// The plan families: the machine's own budgets, and budgets scaled down to the shape so that
/// gathered passes (narrow and wide) and L3 deep sub-blocks run even on small codewords.
fn configs(lanes: usize) -> [PlanConfig; 3] {
    let l2 = (8 * lanes) << 5;
    let scaled = |wide: bool| PlanConfig {
        l2_bytes: Some(l2),
        l3_bytes: Some(l2 << 2),
        wide: Some(wide),
        ..PlanConfig::default()
    };
    [PlanConfig::default(), scaled(false), scaled(true)]
}

fn check(lanes: usize, log_rows: u32, r: u32, enc: &Encoder, what: &str) {
    let msg = words(
        u64::from(log_rows) << 16 | (lanes as u64) << 4 | u64::from(r),
        lanes << (log_rows - r),
    );
    let expect = encode_reference(&msg, lanes, log_rows, r);

    let params = CommitParams::lanes(lanes).log_inv_rate(r);
    let mut data = vec![0u64; lanes << log_rows];
    data[..msg.len()].copy_from_slice(&msg);
    enc.encode_in_place(&mut data, params.layout(MessageLayout::Rows), None)
        .expect("in place");
    assert!(data == expect, "in place: {what}");
    for layout in [MessageLayout::Rows, MessageLayout::Lanes] {
        let input = match layout {
            MessageLayout::Rows => msg.clone(),
            MessageLayout::Lanes => rows_to_lanes(&msg, lanes),
        };
        let mut out = garbage_codeword(lanes << log_rows);
        enc.encode(&input, &mut out, params.layout(layout), None)
            .expect("encode");
        assert!(assume_written(out) == expect, "{layout} message: {what}");
    }
    enc.inverse_in_place(&mut data, lanes).expect("inverse");
    assert!(data[..msg.len()] == msg[..], "inverse: {what}");
}

#[test]
#[cfg_attr(miri, ignore = "large buffers")]
fn few_and_odd_lane_counts_match_the_reference_at_every_height() {
    let backends = common::backends();
    let pools = [pool(1), pool(2), pool(3)];
    let mut sampled = 0usize;
    for lanes in LANES {
        for log_rows in 0..=MAX_LOG_ROWS {
            let total = lanes << log_rows;
            if total > MAX_WORDS {
                continue;
            }
            let r = (log_rows % 3).min(log_rows);
            let mut combos = Vec::new();
            for (b, &backend) in backends.iter().enumerate() {
                for (w, workers) in pools.iter().enumerate() {
                    for (c, config) in configs(lanes).into_iter().enumerate() {
                        combos.push((b, w, c, backend, workers.clone(), config));
                    }
                }
            }
            let stride = if total <= FULL_WORDS {
                1
            } else {
                combos.len() / 2 + 1
            };
            // A different offset per shape, so every backend, pool and plan family is sampled
            // across the large shapes.
            let offset = (lanes * 7 + log_rows as usize * 5) % stride;
            for (b, w, c, backend, workers, config) in combos.into_iter().skip(offset).step_by(stride) {
                let enc = Encoder::builder()
                    .pool(workers)
                    .backend(backend)
                    .build()
                    .expect("an encoder on a given pool and backend sets up")
                    .with_config(config);
                let what =
                    format!("{lanes} lanes, 2^{log_rows} rows, r {r}, {backend:?}, pool {w}, plan {c} ({b})");
                check(lanes, log_rows, r, &enc, &what);
                sampled += 1;
            }
        }
    }
    assert!(sampled > 500, "only {sampled} cases ran");
}
