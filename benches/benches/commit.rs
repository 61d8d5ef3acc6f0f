//! The commit: encode + streaming BLAKE3 commitment of the default workload.
//!
//! Workload (issue 5): a 2^22-word witness, 64 lanes, rate 1/2, lane-major, so a 2^17-row,
//! 64 MiB codeword. Groups, each at 1 and 2 workers:
//! * `commit/fresh`: `Committer::commit` on a committer that keeps no buffers, a freshly
//!   allocated codeword every iteration (its page faults included; dropping it is not timed,
//!   `iter_with_large_drop`).
//! * `commit/reused`: `Committer::commit_reusing`, the previous codeword's buffer reused.
//! * `encode/reused`: the encode alone, no sink, into the buffer `commit/reused` used: the
//!   baseline that `commit/reused` is compared against (hashing may add at most 35%).
//! * `blake3/serial`: `blake3::hash` of the 64 MiB codeword on one thread, the reference for the
//!   hashing work itself.
//!
//! Group `hash/stream` (one thread, no encode) feeds the same 64 MiB in the encoder's 512 KiB
//! blocks to the streaming hasher at several piece levels (2^level KiB hashed per BLAKE3 call), to
//! show what the stored-CV granularity costs against `blake3/serial`.
//!
//! Before timing, each committer's root is checked against `blake3::hash` of its codeword.

use std::mem::MaybeUninit;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ntt_benches::bytes::as_le_bytes;
use ntt_pcs::RowSink;
use ntt_pcs::{CodewordShape, Encoder};
use ntt_pcs::{CommitParams, Committer, StreamingHasher};

const LOG_WITNESS_WORDS: u32 = 22;
const LANES: usize = 64;
const LOG_INV_RATE: u32 = 1;
/// The committed code: 64 lanes, lane-major, rate 1/2.
const PARAMS: CommitParams = CommitParams::lanes(LANES).log_inv_rate(LOG_INV_RATE);

/// The commit bench's witness.
fn witness() -> Vec<u64> {
    ntt_benches::witness(LOG_WITNESS_WORDS)
}

fn bytes_of(words: &[u64]) -> Vec<u8> {
    as_le_bytes(words).to_vec()
}

fn commit(c: &mut Criterion) {
    let witness = witness();
    let codeword_bytes = (witness.len() << LOG_INV_RATE) as u64 * 8;
    let mut group = c.benchmark_group(format!(
        "commit/log_n={LOG_WITNESS_WORDS}/lanes={LANES}/r={LOG_INV_RATE}"
    ));
    group.throughput(Throughput::Bytes(codeword_bytes));
    group.sample_size(20);

    let mut reference_codeword = None;
    for workers in [1usize, 2] {
        let encoder = Encoder::builder()
            .workers(workers)
            .build()
            .expect("encoder sets up");
        let committer = Committer::new(encoder.clone());
        let (commitment, prover) = committer.commit(&witness, PARAMS).expect("commits");
        assert_eq!(
            commitment.root(),
            *blake3::hash(&bytes_of(prover.codeword())).as_bytes(),
            "root is BLAKE3"
        );
        let id = |what: &str| BenchmarkId::new(what, format!("workers={workers}"));

        let unpooled = Committer::new(encoder.clone()).with_buffer_cap(0);
        group.bench_function(id("commit/fresh"), |b| {
            b.iter_with_large_drop(|| unpooled.commit(&witness, PARAMS).expect("commits"))
        });

        let mut kept = Some(prover);
        group.bench_function(id("commit/reused"), |b| {
            b.iter(|| {
                let reuse = kept.take().expect("kept between iterations");
                let (commitment, prover) = committer
                    .commit_reusing(&witness, PARAMS, reuse)
                    .expect("commits");
                kept = Some(prover);
                commitment
            })
        });

        // The encode alone writes into the very buffer the reused commits wrote into (same pages,
        // huge or not), so the two differ only by the hashing.
        let prover = kept.expect("kept between iterations");
        reference_codeword = Some(bytes_of(prover.codeword()));
        let mut buffer = prover.into_codeword();
        let words = buffer.len();
        // SAFETY: `MaybeUninit<u64>` has the layout of `u64`, and the encode only writes
        // initialised words, so `buffer` stays a valid `Vec<u64>` throughout.
        let codeword =
            unsafe { std::slice::from_raw_parts_mut(buffer.as_mut_ptr().cast::<MaybeUninit<u64>>(), words) };
        group.bench_function(id("encode/reused"), |b| {
            b.iter(|| encoder.encode(&witness, codeword, PARAMS, None))
        });
    }

    let bytes = reference_codeword.expect("a codeword was made");
    group.bench_function(BenchmarkId::new("blake3/serial", "workers=1"), |b| {
        b.iter(|| blake3::hash(&bytes))
    });
    group.finish();
}

fn stream_hash(c: &mut Criterion) {
    let codeword: Vec<u64> = [witness(), witness().iter().map(|w| !w).collect()].concat();
    let bytes = bytes_of(&codeword);
    let expected = *blake3::hash(&bytes).as_bytes();
    let (log_rows, log_block_rows) = ((codeword.len() / LANES).ilog2(), 10);
    let codeword_shape = CodewordShape::new(log_rows, LANES).expect("a valid bench shape");
    let mut group = c.benchmark_group("hash/stream/64MiB/blocks=512KiB");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.sample_size(20);
    group.bench_function("blake3/serial", |b| b.iter(|| blake3::hash(&bytes)));
    for piece_level in [2, 4, 5, 6, 9] {
        group.bench_function(
            BenchmarkId::new("streaming", format!("piece_level={piece_level}")),
            |b| {
                b.iter(|| {
                    let hasher =
                        StreamingHasher::with_piece_level(codeword_shape, log_block_rows, piece_level)
                            .expect("valid shape");
                    for (k, block) in codeword.chunks(LANES << log_block_rows).enumerate() {
                        hasher
                            .absorb(k << log_block_rows, block)
                            .expect("aligned blocks, each once");
                    }
                    assert_eq!(hasher.finish(), Ok(expected));
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, commit, stream_hash);
criterion_main!(benches);
