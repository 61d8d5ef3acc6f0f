//! Helpers shared by the encoder tests.
#![allow(dead_code)]

use ntt_kernels::{Backend, ColumnStart};
use ntt_pcs::{Encoder, RowSink, RowSinkError};
use ntt_runtime::{ThreadPool, ThreadPoolBuilder};
use std::collections::HashMap;
use std::mem::MaybeUninit;
use std::sync::{Arc, Mutex, OnceLock};

/// One pool per worker count, shared by every test of the binary.
pub(crate) fn pool(workers: usize) -> Arc<ThreadPool> {
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<ThreadPool>>>> = OnceLock::new();
    let pools = POOLS.get_or_init(|| Mutex::new(HashMap::new()));
    pools
        .lock()
        .expect("pool map lock")
        .entry(workers)
        .or_insert_with(|| {
            Arc::new(
                ThreadPoolBuilder::new()
                    .num_threads(workers)
                    .build()
                    .expect("test pool builds"),
            )
        })
        .clone()
}

/// Every backend this CPU has, those with 64-byte vectors once per [`ColumnStart`] (the only
/// ones whose columns can start at a cache-line boundary): every entry must give the same bytes.
pub(crate) fn backends() -> Vec<Backend> {
    Backend::available()
        .into_iter()
        .flat_map(|b| {
            let starts: &[ColumnStart] = if b.vector_width() == 8 {
                &ColumnStart::ALL
            } else {
                &[ColumnStart::Line]
            };
            starts.iter().map(move |&c| b.with_column_start(c))
        })
        .collect()
}

/// An encoder with `backend` on the shared pool of `workers` workers.
pub(crate) fn encoder(workers: usize, backend: Backend) -> Encoder {
    Encoder::builder()
        .pool(pool(workers))
        .backend(backend)
        .build()
        .expect("an encoder on a given pool and backend sets up")
}

/// Deterministic pseudo-random words (splitmix64).
pub(crate) fn words(seed: u64, count: usize) -> Vec<u64> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0xd1b5_4a32_d192_ed03;
    (0..count)
        .map(|_| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        })
        .collect()
}

/// Lane-major from row-major.
pub(crate) fn rows_to_lanes(rows: &[u64], lanes: usize) -> Vec<u64> {
    let count = rows.len() / lanes;
    let mut out = vec![0; rows.len()];
    for r in 0..count {
        for t in 0..lanes {
            out[t * count + r] = rows[r * lanes + t];
        }
    }
    out
}

/// An uninitialised codeword buffer (filled with garbage first, so stale data cannot pass).
pub(crate) fn garbage_codeword(len: usize) -> Vec<MaybeUninit<u64>> {
    (0..len)
        .map(|i| MaybeUninit::new(0xdead_beef_0000_0000 ^ i as u64))
        .collect()
}

/// The words of a codeword buffer after an encode wrote every one of them.
pub(crate) fn assume_written(buf: Vec<MaybeUninit<u64>>) -> Vec<u64> {
    // MaybeUninit::new above initialised every word already; the encode overwrote them.
    buf.into_iter()
        .map(|w| {
            // SAFETY: every element was created with `MaybeUninit::new`.
            unsafe { w.assume_init() }
        })
        .collect()
}

/// Records every block the encoder hands over.
#[derive(Default)]
pub(crate) struct Recorder {
    pub blocks: Mutex<Vec<(usize, Vec<u64>)>>,
}

impl RowSink for Recorder {
    fn absorb(&self, first_row: usize, rows: &[u64]) -> Result<(), RowSinkError> {
        self.blocks
            .lock()
            .expect("recorder lock")
            .push((first_row, rows.to_vec()));
        Ok(())
    }
}

impl Recorder {
    /// Checks the blocks: same power-of-two row count, aligned, tiling all rows exactly once,
    /// and equal to the final codeword. Returns the block row count.
    pub(crate) fn check(&self, codeword: &[u64], lanes: usize) -> Result<usize, String> {
        let mut blocks = self.blocks.lock().expect("recorder lock").clone();
        let rows = codeword.len() / lanes;
        if blocks.is_empty() {
            return Err("the sink received nothing".into());
        }
        let block_rows = blocks[0].1.len() / lanes;
        if !block_rows.is_power_of_two() {
            return Err(format!("block of {block_rows} rows"));
        }
        blocks.sort_by_key(|b| b.0);
        let mut next = 0;
        for (first, words) in &blocks {
            if words.len() != block_rows * lanes {
                return Err(format!(
                    "blocks of different sizes ({} vs {block_rows} rows)",
                    words.len() / lanes
                ));
            }
            if *first != next || first % block_rows != 0 {
                return Err(format!(
                    "block at row {first}, expected {next} (aligned to {block_rows})"
                ));
            }
            if words[..] != codeword[first * lanes..(first + block_rows) * lanes] {
                return Err(format!("block at row {first} is not the final codeword"));
            }
            next += block_rows;
        }
        if next != rows {
            return Err(format!("blocks cover {next} of {rows} rows"));
        }
        Ok(block_rows)
    }
}
