//! The committer's buffer pool: dropped prover data hands its codeword buffer to the next
//! commit, within the cap; fresh, pooled and reused buffers give the same commitment.

use ntt_kernels::Backend;
use ntt_pcs::{CommitParams, Committer, Encoder};
use ntt_runtime::PinPolicy;

fn committer(workers: usize) -> Committer {
    let encoder = Encoder::builder()
        .workers(workers)
        .pin(PinPolicy::None)
        .backend(Backend::detect())
        .build()
        .expect("encoder");
    Committer::new(encoder)
}

fn witness(words: usize) -> Vec<u64> {
    (0..words as u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (i >> 3))
        .collect()
}

#[test]
fn a_dropped_commit_lends_its_buffer_to_the_next() {
    let committer = committer(2);
    let w = witness(1 << 16);
    let (first, prover) = committer
        .commit(&w, CommitParams::lanes(16).log_inv_rate(1))
        .expect("commit");
    let ptr = prover.codeword().as_ptr();
    let bytes = prover.codeword().len() * 8;
    assert_eq!(committer.kept_buffer_bytes(), 0, "held by the prover data");
    drop(prover);
    assert_eq!(committer.kept_buffer_bytes(), bytes);
    let (second, prover) = committer
        .commit(&w, CommitParams::lanes(16).log_inv_rate(1))
        .expect("commit");
    assert_eq!(prover.codeword().as_ptr(), ptr, "the pooled buffer was reused");
    assert_eq!(second, first);
    assert_eq!(committer.kept_buffer_bytes(), 0);
    // A smaller commit takes the larger kept buffer; a clone shares the pool.
    drop(prover);
    let clone = committer.clone();
    let small = witness(1 << 12);
    let (_, prover) = clone
        .commit(&small, CommitParams::lanes(16).log_inv_rate(1))
        .expect("commit");
    assert_eq!(prover.codeword().as_ptr(), ptr);
    drop(prover);
    assert_eq!(committer.release_buffers(), bytes);
    assert_eq!(committer.kept_buffer_bytes(), 0);
}

#[test]
fn the_cap_bounds_what_is_kept_and_roots_do_not_depend_on_the_buffer() {
    let w = witness(1 << 15);
    let unpooled = committer(1).with_buffer_cap(0);
    let (fresh, prover) = unpooled
        .commit(&w, CommitParams::lanes(8).log_inv_rate(2))
        .expect("commit");
    drop(prover);
    assert_eq!(unpooled.kept_buffer_bytes(), 0, "a cap of 0 keeps nothing");
    let small_cap = committer(2).with_buffer_cap(1 << 10);
    let (capped, prover) = small_cap
        .commit(&w, CommitParams::lanes(8).log_inv_rate(2))
        .expect("commit");
    drop(prover);
    assert_eq!(small_cap.kept_buffer_bytes(), 0, "larger than the cap: freed");
    assert_eq!(capped, fresh);
    let pooled = committer(2);
    for _ in 0..3 {
        let (again, prover) = pooled
            .commit(&w, CommitParams::lanes(8).log_inv_rate(2))
            .expect("commit");
        assert_eq!(again, fresh);
        drop(prover);
    }
    // into_codeword takes the buffer out of the pool's reach.
    let (_, prover) = pooled
        .commit(&w, CommitParams::lanes(8).log_inv_rate(2))
        .expect("commit");
    let buffer = prover.into_codeword();
    assert_eq!(pooled.kept_buffer_bytes(), 0);
    assert_eq!(buffer.len(), (1 << 15) << 2);
}
