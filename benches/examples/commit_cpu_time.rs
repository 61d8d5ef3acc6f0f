//! Wall and process CPU time of the default commit workload, next to the encode alone.
//!
//! The workload of `benches/benches/commit.rs` (2^22-word witness, 64 lanes, rate 1/2,
//! lane-major; other sizes as arguments, log2 words), at 1 and 2 workers: the encode alone into
//! a reused buffer, the commit into that reused buffer, the commit into a fresh buffer (a
//! committer that keeps no buffers), and the commit of a committer whose pool holds the
//! previous commit's buffer. Prints the minimum and median of 15 runs of each, interleaved.
//! Process CPU time (`CLOCK_PROCESS_CPUTIME_ID`, all threads) is what the stage cost on the
//! cores, unaffected by waiting for other processes on a shared machine.
//!
//! `cargo run -p ntt-benches --release --example commit_cpu_time [-- 22 24]`

use std::mem::MaybeUninit;
use std::time::{Duration, Instant};

use ntt_benches::bytes::as_le_bytes;
use ntt_pcs::Committer;
use ntt_pcs::{CommitParams, Encoder};
use ntt_runtime::cpu_time::process_cpu;

const LANES: usize = 64;
const LOG_INV_RATE: u32 = 1;
/// The committed code: 64 lanes, lane-major, rate 1/2.
const PARAMS: CommitParams = CommitParams::lanes(LANES).log_inv_rate(LOG_INV_RATE);
const RUNS: usize = 15;

/// (wall, CPU) of `f`.
fn measure<T>(f: impl FnOnce() -> T) -> ((Duration, Duration), T) {
    let (wall, cpu) = (Instant::now(), process_cpu());
    let out = f();
    ((wall.elapsed(), process_cpu() - cpu), out)
}

fn report(name: &str, mut runs: Vec<(Duration, Duration)>) {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    runs.sort_by_key(|r| r.0);
    let (wall_min, wall_med) = (runs[0].0, runs[RUNS / 2].0);
    runs.sort_by_key(|r| r.1);
    let (cpu_min, cpu_med) = (runs[0].1, runs[RUNS / 2].1);
    println!(
        "{name:>28}: wall min {:6.1} ms, median {:6.1} ms | CPU min {:6.1} ms, median {:6.1} ms",
        ms(wall_min),
        ms(wall_med),
        ms(cpu_min),
        ms(cpu_med)
    );
}

fn main() {
    let sizes: Vec<u32> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("log2 words"))
        .collect();
    for log_n in if sizes.is_empty() { vec![22] } else { sizes } {
        println!("witness 2^{log_n} words");
        run(log_n);
    }
}

fn run(log_n: u32) {
    let witness = ntt_benches::witness(log_n);
    for workers in [1usize, 2] {
        let encoder = Encoder::builder()
            .workers(workers)
            .build()
            .expect("encoder sets up");
        let committer = Committer::new(encoder.clone());
        let unpooled = Committer::new(encoder.clone()).with_buffer_cap(0);
        let pooled = Committer::new(encoder.clone());
        let (commitment, prover) = committer.commit(&witness, PARAMS).expect("commits");
        let bytes = as_le_bytes(prover.codeword());
        assert_eq!(commitment.root(), *blake3::hash(bytes).as_bytes());
        let mut kept = Some(prover);
        let (mut encode, mut reused, mut fresh, mut hash) = (vec![], vec![], vec![], vec![]);
        let mut from_pool = vec![];
        drop(pooled.commit(&witness, PARAMS));
        for _ in 0..RUNS {
            let mut buffer = kept.take().expect("kept").into_codeword();
            let words = buffer.len();
            // SAFETY: `MaybeUninit<u64>` has the layout of `u64` and the encode writes only
            // initialised words, so `buffer` stays a valid `Vec<u64>`.
            let codeword = unsafe {
                std::slice::from_raw_parts_mut(buffer.as_mut_ptr().cast::<MaybeUninit<u64>>(), words)
            };
            let (t, r) = measure(|| encoder.encode(&witness, codeword, PARAMS, None));
            r.expect("encodes");
            encode.push(t);
            let (t, r) = measure(|| committer.commit_into(&witness, PARAMS, buffer));
            let (_, prover) = r.expect("commits");
            reused.push(t);
            hash.push(prover.timings().hash);
            kept = Some(prover);
            let (t, r) = measure(|| unpooled.commit(&witness, PARAMS));
            fresh.push(t);
            drop(r);
            let (t, r) = measure(|| pooled.commit(&witness, PARAMS));
            from_pool.push(t);
            drop(r);
        }
        println!("workers = {workers}");
        report("encode alone, reused buffer", encode);
        report("commit, reused buffer", reused);
        report("commit, fresh buffer", fresh);
        report("commit, pooled buffer", from_pool);
        hash.sort();
        println!(
            "{:>28}: median {:.1} ms (CommitTimings::hash)",
            "hash per worker",
            hash[RUNS / 2].as_secs_f64() * 1e3
        );
    }
}
