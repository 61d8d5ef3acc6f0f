//! Times a whole transform of a cache-resident block, minimum of many short runs:
//! `cargo run --release -p ntt-benches --example kernel_speed -- [lanes] [rows]`. (One radix group
//! alone is timed by the `group_speed` example.)

use ntt_pcs::reference::encode_reference;
use ntt_pcs::{CommitParams, MessageLayout};
use std::time::Instant;

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("number"))
        .collect();
    let lanes = args.first().copied().unwrap_or(64);
    let log_rows = args.get(1).copied().unwrap_or(9) as u32;
    let msg: Vec<u64> = (0..lanes << log_rows)
        .map(|i| (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .collect();
    // A whole transform of a cache-resident block: radix-8 groups only when log_rows % 3 == 0.
    let enc = ntt_pcs::Encoder::builder().workers(1).build().expect("encoder");
    let backend = enc.backend();
    let mut data = msg.clone();
    let params = CommitParams::lanes(lanes)
        .log_inv_rate(0)
        .layout(MessageLayout::Rows);
    enc.encode_in_place(&mut data, params, None).expect("encode");
    assert_eq!(data, encode_reference(&msg, lanes, log_rows, 0));
    let lbf = (lanes << log_rows) as f64 / 2.0 * f64::from(log_rows);
    let mut best = f64::MAX;
    for _ in 0..2000 {
        let t0 = Instant::now();
        enc.encode_in_place(&mut data, params, None).expect("encode");
        best = best.min(t0.elapsed().as_secs_f64());
    }
    println!(
        "{} lanes × 2^{log_rows} rows on {}: best {:.1} µs, {:.3} ns/lane-butterfly",
        lanes,
        backend.name(),
        best * 1e6,
        best * 1e9 / lbf
    );
}
