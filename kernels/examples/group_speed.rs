//! Times one radix-8 group on an L1-resident block, contiguous and as a strided gather/scatter,
//! minimum of many short runs: `cargo run --release -p ntt-kernels --example group_speed --
//! [lanes]` (`NTT_BACKEND` picks the backend).

use ntt_kernels::{Backend, StridedRows};
use std::time::Instant;

const CALLS: usize = 100;

/// Best time of one call of `f`, over 2000 runs of `CALLS` calls.
fn best_of(mut f: impl FnMut()) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..2000 {
        let t0 = Instant::now();
        for _ in 0..CALLS {
            f();
        }
        best = best.min(t0.elapsed().as_secs_f64() / CALLS as f64);
    }
    best
}

fn main() {
    let lanes: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("lanes"))
        .unwrap_or(64);
    let backend = Backend::from_env().expect("backend");
    let tw = [
        3u64,
        0x1234_5678_9abc_def1,
        0xfedc_ba98,
        u64::MAX,
        1 << 63,
        0x1b,
        0x0f0f_0f0f_0f0f_0f0f,
    ];
    let mut block: Vec<u64> = (0..8 * lanes as u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .collect();
    let per_butterfly = |t: f64| t * 1e9 / (12.0 * lanes as f64);
    let contiguous = best_of(|| backend.radix8(&mut block, tw));
    // The same rows spread at twice their width (a gathered group), transformed in place.
    let mut spread = vec![1u64; 16 * lanes];
    let strided = best_of(|| {
        let rows = StridedRows {
            src: spread.as_ptr(),
            src_stride: 2 * lanes,
            dst: spread.as_mut_ptr(),
            dst_stride: 2 * lanes,
            seg_rows: 1,
            width: lanes,
        };
        // SAFETY: eight rows of `lanes` words at stride `2·lanes` lie inside `spread`, in place.
        unsafe { backend.radix_rows(rows, &tw, false) };
    });
    println!(
        "radix-8 group, 8 rows × {lanes} lanes in L1, {}: contiguous {:.3} ns/lane-butterfly, \
         strided {:.3}",
        backend.name(),
        per_butterfly(contiguous),
        per_butterfly(strided)
    );
}
