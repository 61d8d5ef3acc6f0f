//! Thread CPU time of the streaming hasher against `blake3::hash`, on one thread.
//!
//! Hashes a 64 MiB codeword (2^17 rows × 64 lanes) fed in the encoder's 512 KiB blocks, at several
//! piece levels, and `blake3::hash` of the same bytes; prints the minimum and median over 9 runs
//! of each. CPU time (`CLOCK_THREAD_CPUTIME_ID`) rather than wall time, so that other processes on
//! a shared machine do not drown differences of a few percent.
//!
//! `cargo run -p ntt-benches --release --example hash_cpu_time`

use ntt_benches::bytes::as_le_bytes;
use ntt_pcs::CodewordShape;
use ntt_pcs::RowSink;
use ntt_pcs::StreamingHasher;
use ntt_runtime::cpu_time::thread_cpu;

const LOG_ROWS: u32 = 17;
const LANES: usize = 64;
const LOG_BLOCK_ROWS: u32 = 10;
const RUNS: usize = 9;

fn cpu_time_of(f: impl FnOnce()) -> u64 {
    let start = thread_cpu();
    f();
    (thread_cpu() - start).as_nanos() as u64
}

fn main() {
    let codeword = ntt_benches::seeded_words(LANES << LOG_ROWS, 1);
    let bytes = as_le_bytes(&codeword);
    let root = *blake3::hash(bytes).as_bytes();
    let codeword_shape = CodewordShape::new(LOG_ROWS, LANES).expect("a valid shape");
    let levels = [2u32, 4, 5, 6, 7, 9];

    let mut times: Vec<Vec<u64>> = vec![Vec::new(); levels.len() + 1];
    for _ in 0..RUNS {
        times[0].push(cpu_time_of(|| assert_eq!(*blake3::hash(bytes).as_bytes(), root)));
        for (slot, &level) in times[1..].iter_mut().zip(&levels) {
            slot.push(cpu_time_of(|| {
                let hasher = StreamingHasher::with_piece_level(codeword_shape, LOG_BLOCK_ROWS, level)
                    .expect("valid shape");
                for (k, block) in codeword.chunks(LANES << LOG_BLOCK_ROWS).enumerate() {
                    hasher
                        .absorb(k << LOG_BLOCK_ROWS, block)
                        .expect("aligned blocks, each once");
                }
                assert_eq!(hasher.finish(), Ok(root));
            }));
        }
    }
    let names =
        std::iter::once("blake3::hash".to_string()).chain(levels.iter().map(|l| format!("piece_level={l}")));
    for (name, mut runs) in names.zip(times) {
        runs.sort_unstable();
        let ms = |ns: u64| ns as f64 / 1e6;
        println!(
            "{name:>16}: min {:6.2} ms, median {:6.2} ms",
            ms(runs[0]),
            ms(runs[RUNS / 2])
        );
    }
}
