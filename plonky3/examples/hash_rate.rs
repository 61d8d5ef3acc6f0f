//! The rate of Plonky3's many-message hashers alone, on rows as the engine's encoder hands them
//! over (blocks of 256 to 4096 rows) and on tree nodes (64-byte child pairs): what bounds a
//! commit with `KeccakMerkleMmcs`, `Blake3MerkleMmcs` or `Sha256MerkleMmcs` on one core. The last
//! column hashes the same Keccak messages one at a time (`hash_slice`), to show what the
//! many-message kernel gains. A second table times each tree's node function on child pairs:
//! the hash of the 64 bytes for Keccak and BLAKE3, one bare compression for SHA-256.
//!
//! ```text
//! RUSTFLAGS="-C target-cpu=native" cargo run --release -p ntt-plonky3 --example hash_rate
//! ```

use ntt_plonky3::{Blake3, Keccak256Hash, RowHash, Sha256};
use p3_symmetric::{CryptographicHasher, PseudoCompressionFunction};
use std::time::{Duration, Instant};

/// The median of nine timed runs of `run`.
fn median_time(mut run: impl FnMut()) -> Duration {
    let runs = (0..9).map(|_| {
        let start = Instant::now();
        run();
        start.elapsed().as_secs_f64()
    });
    Duration::from_secs_f64(ntt_runtime::stats::median(runs))
}

/// The median time to hash `bytes` as messages of `message` bytes, one `hash_slice` call each.
fn time_one_at_a_time<H: CryptographicHasher<u8, [u8; 32]>>(
    hasher: H,
    bytes: &[u8],
    message: usize,
) -> Duration {
    let mut out = vec![[0u8; 32]; bytes.len() / message];
    median_time(|| {
        for (m, o) in bytes.chunks(message).zip(out.iter_mut()) {
            *o = hasher.hash_slice(m);
        }
    })
}

/// The median time to hash `bytes` as messages of `message` bytes, `block` messages a call.
fn time<H: CryptographicHasher<u8, [u8; 32]>>(
    hasher: H,
    bytes: &[u8],
    message: usize,
    block: usize,
) -> Duration {
    let mut out = vec![[0u8; 32]; bytes.len() / message];
    median_time(|| {
        for (b, o) in bytes.chunks(block * message).zip(out.chunks_mut(block)) {
            hasher.hash_many(b, o);
        }
    })
}

/// The median time for `H`'s node function to compress `pairs` into their parents, 1024 a call.
fn time_nodes<H: RowHash>(pairs: &[[[u8; 32]; 2]]) -> Duration {
    let mut out = vec![[0u8; 32]; pairs.len()];
    median_time(|| {
        for (p, o) in pairs.chunks(1024).zip(out.chunks_mut(1024)) {
            H::COMPRESS.compress_many(p, o);
        }
    })
}

fn main() {
    // 4 MiB: every shape below hashes at least one whole block of its messages.
    let bytes: Vec<u8> = (0..1u32 << 22)
        .map(|i| (i.wrapping_mul(0x9e37_79b9) >> 13) as u8)
        .collect();
    println!(
        "{:>14} {:>8} {:>12} {:>12} {:>12} {:>14} {:>14} {:>14} {:>22}",
        "message bytes",
        "block",
        "keccak GB/s",
        "blake3 GB/s",
        "sha256 GB/s",
        "keccak ns/msg",
        "blake3 ns/msg",
        "sha256 ns/msg",
        "keccak 1-by-1 ns/msg"
    );
    for (message, block) in [(64, 1024), (128, 4096), (384, 256), (384, 512), (512, 4096)] {
        let bytes = &bytes[..bytes.len() / (message * block) * (message * block)];
        let rate = |d: Duration| bytes.len() as f64 / d.as_secs_f64() / 1e9;
        let per_message = |d: Duration| d.as_secs_f64() * 1e9 / (bytes.len() / message) as f64;
        let (keccak, blake3, sha256, keccak_single) = (
            time(Keccak256Hash, bytes, message, block),
            time(Blake3, bytes, message, block),
            time(Sha256, bytes, message, block),
            time_one_at_a_time(Keccak256Hash, bytes, message),
        );
        println!(
            "{message:>14} {block:>8} {:>12.3} {:>12.3} {:>12.3} {:>14.1} {:>14.1} {:>14.1} {:>22.1}",
            rate(keccak),
            rate(blake3),
            rate(sha256),
            per_message(keccak),
            per_message(blake3),
            per_message(sha256),
            per_message(keccak_single)
        );
    }
    let (pairs, _) = bytes.as_chunks::<32>().0.as_chunks::<2>();
    let per_node = |d: Duration| d.as_secs_f64() * 1e9 / pairs.len() as f64;
    println!(
        "\n{:>22} {:>14} {:>14} {:>14}",
        "node function", "keccak ns", "blake3 ns", "sha256 ns"
    );
    println!(
        "{:>22} {:>14.1} {:>14.1} {:>14.1}",
        "per 64-byte pair",
        per_node(time_nodes::<Keccak256Hash>(pairs)),
        per_node(time_nodes::<Blake3>(pairs)),
        per_node(time_nodes::<Sha256>(pairs))
    );
}
