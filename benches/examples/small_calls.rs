//! The fixed cost of a small encode: an in-place rate-1/2 encode of about 2^10 words on one
//! worker, at 2–24 lanes, against the same butterflies run as bare kernel calls (twiddles made
//! once beforehand, no plan, no pool), and the planner alone. Overhead = call − kernels.
//!
//! ```text
//! cargo run --release -p ntt-benches --example small_calls -- [log_words] [rounds] [calls] [lanes,..]
//! ```
//!
//! Each round times `calls` encodes back to back (each on the last one's output), then as many
//! bare-kernel runs, then as many plans; it prints the medians over `rounds` rounds and, as the
//! figure least disturbed by other load on a shared machine, the fastest round of each.

use ntt_kernels::Backend;
use ntt_pcs::plan::radix8_kernel::{Radix8Kernel, radix8_kernel};
use ntt_pcs::{CommitParams, Encoder, Expansion, MessageLayout, Shape};
use std::hint::black_box;
use std::time::Instant;

/// Layers one step takes when `left` remain (the encoder's order: leftovers first).
fn step_layers(left: u32) -> u32 {
    match left % 3 {
        0 => 3,
        k => k,
    }
}

/// The encode's arithmetic as bare kernel calls: the message copied into each replica, then its
/// layers in radix-8/4/2 steps on each replica, across blocks where the encoder would.
fn bare_kernels(backend: Backend, data: &mut [u64], lanes: usize, log_rows: u32) {
    let log_msg = log_rows - 1;
    let half = data.len() / 2;
    let (msg, rest) = data.split_at_mut(half);
    rest.copy_from_slice(msg);
    let tw = [0x9e37_79b9_7f4a_7c15u64; 7];
    let steps = [[0x1234_5678_9abc_def1u64; 7]; 64];
    for replica in [rest, msg] {
        let mut layer = 0;
        while layer < log_msg {
            let k = step_layers(log_msg - layer);
            let block_words = lanes << (log_msg - layer);
            let blocks = replica.len() / block_words;
            if k == 3 && radix8_kernel(backend.kind(), block_words / 8, blocks) == Radix8Kernel::AcrossBlocks
            {
                let n = blocks.trailing_zeros().max(3) as usize;
                backend.radix8_across(replica, block_words / 8, tw, &steps[..n]);
            } else {
                for block in replica.chunks_exact_mut(block_words) {
                    match k {
                        3 => backend.radix8(block, tw),
                        2 => backend.radix4(block, [tw[0], tw[1], tw[2]]),
                        _ => {
                            let (u, v) = block.split_at_mut(block_words / 2);
                            backend.butterfly(u, v, tw[0]);
                        }
                    }
                }
            }
            layer += k;
        }
    }
}

/// Mean µs of `calls` runs of `f`.
fn mean_us(calls: usize, mut f: impl FnMut()) -> f64 {
    let t0 = Instant::now();
    for _ in 0..calls {
        f();
    }
    t0.elapsed().as_secs_f64() * 1e6 / calls as f64
}

/// The median and the fastest.
fn median_min(v: Vec<f64>) -> (f64, f64) {
    let s = ntt_runtime::stats::Spread::of(v);
    (s.median, s.min)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: usize| args.get(i).map_or(default, |a| a.parse().expect("a number"));
    let log_words = arg(0, 10) as u32;
    let rounds = arg(1, 101);
    let calls = arg(2, 200);
    let lane_counts: Vec<usize> = args.get(3).map_or(vec![2, 4, 8, 16, 24], |a| {
        a.split(',').map(|l| l.parse().expect("lanes")).collect()
    });
    let enc = Encoder::builder().workers(1).build().expect("encoder");
    let backend = enc.backend();
    println!(
        "backend {}, 2^{log_words} words, rate 1/2, in place, 1 worker; medians of {rounds} rounds of {calls} calls",
        backend.name()
    );
    println!(
        "{:>5} {:>8} {:>10} {:>10} {:>10} {:>10}   fastest: {:>8} {:>8} {:>8}",
        "lanes", "log_rows", "call µs", "kernels µs", "overhead", "plan µs", "call", "kernels", "overhead"
    );
    for lanes in lane_counts {
        // 24 lanes: the 2^6 rows of the few-lane table (1536 words).
        let log_rows = log_words - lanes.next_power_of_two().trailing_zeros().min(log_words - 2);
        let log_rows = if lanes == 24 { log_rows + 1 } else { log_rows };
        let shape = Shape::with_expansion(log_rows, lanes, 1, Expansion::Unbounded).expect("shape");
        let params = CommitParams::lanes(lanes)
            .log_inv_rate(1)
            .layout(MessageLayout::Rows);
        let mut data: Vec<u64> = (0..shape.codeword_words() as u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        let mut bare = data.clone();
        let (mut call, mut kern, mut plan) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..rounds {
            call.push(mean_us(calls, || {
                enc.encode_in_place(&mut data, params, None).expect("encode");
            }));
            kern.push(mean_us(calls, || {
                bare_kernels(backend, black_box(&mut bare), lanes, log_rows);
            }));
            plan.push(mean_us(calls, || {
                black_box(enc.plan_in_place(black_box(shape)));
            }));
        }
        let ((c, c0), (k, k0), (p, _)) = (median_min(call), median_min(kern), median_min(plan));
        println!(
            "{lanes:>5} {log_rows:>8} {c:>10.3} {k:>10.3} {:>10.3} {p:>10.3}            {c0:>8.3} {k0:>8.3} {:>8.3}",
            c - k,
            c0 - k0
        );
    }
}
