//! Times one radix-8 group on an L1-resident block, contiguous and as a strided gather/scatter,
//! minimum of many short runs, under every column start ([`ColumnStart`]) with the block 16
//! bytes into a cache line, as a `Vec<u64>` from the system allocator usually is:
//! `cargo run --release -p ntt-benches --example group_speed -- [lanes ...]` (`NTT_BACKEND`
//! picks the backend; the lanes are the segment width in words).

use ntt_kernels::{Backend, ColumnStart, StridedRows};
use std::time::Instant;

const CALLS: usize = 100;

/// Where the block starts: two words (16 bytes) past a 64-byte boundary.
const OFFSET_WORDS: usize = 2;

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

/// `words` words starting [`OFFSET_WORDS`] past a cache-line boundary inside `storage`.
fn in_line(storage: &mut Vec<u64>, words: usize) -> &mut [u64] {
    storage.resize(words + 16, 1);
    let to_line = storage.as_ptr().align_offset(64);
    let start = to_line + OFFSET_WORDS;
    &mut storage[start..start + words]
}

fn main() {
    let widths: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("lanes: a positive integer"))
        .collect();
    let widths = if widths.is_empty() { vec![64] } else { widths };
    let tw = [
        3u64,
        0x1234_5678_9abc_def1,
        0xfedc_ba98,
        u64::MAX,
        1 << 63,
        0x1b,
        0x0f0f_0f0f_0f0f_0f0f,
    ];
    for lanes in widths {
        for columns in ColumnStart::ALL {
            let backend = Backend::from_env().expect("backend").with_column_start(columns);
            let per_butterfly = |t: f64| t * 1e9 / (12.0 * lanes as f64);
            let mut storage = Vec::new();
            let block = in_line(&mut storage, 8 * lanes);
            block
                .iter_mut()
                .enumerate()
                .for_each(|(i, w)| *w = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
            let contiguous = best_of(|| backend.radix8(block, tw));
            // The same rows spread at twice their width (a gathered group), transformed in place.
            let mut spread_storage = Vec::new();
            let spread = in_line(&mut spread_storage, 16 * lanes);
            let strided = best_of(|| {
                let rows = StridedRows {
                    src: spread.as_ptr(),
                    src_stride: 2 * lanes,
                    dst: spread.as_mut_ptr(),
                    dst_stride: 2 * lanes,
                    seg_rows: 1,
                    width: lanes,
                };
                // SAFETY: eight rows of `lanes` words at stride `2·lanes` lie inside `spread`, in
                // place.
                unsafe { backend.radix_rows(rows, &tw, false) };
            });
            println!(
                "radix-8 group, 8 rows × {lanes} lanes in L1, 16 bytes into a line, {}, columns {columns}: \
                 contiguous {:.3} ns/lane-butterfly, strided {:.3}",
                backend.name(),
                per_butterfly(contiguous),
                per_butterfly(strided)
            );
        }
    }
}
