//! ntt-engine's side of every comparison, set up the way the benches drive it: a pool of
//! `workers`, the detected backend (or `NTT_BACKEND`), and a [`Committer`] (with its encoder) on
//! them.

use ntt_pcs::{CommitParams, Committer, Encoder, MessageLayout};
use std::mem::MaybeUninit;

/// Our committer (and its encoder) on a pool of a fixed size.
#[derive(Debug)]
pub struct Ours {
    /// Workers in the pool.
    pub workers: usize,
    /// The committer; its encoder runs the encode-only measurements.
    pub committer: Committer,
}

impl Ours {
    /// Ours on `workers` workers, pinned by the pool's default policy.
    ///
    /// # Panics
    /// If the pool cannot start or `NTT_BACKEND` names a backend this CPU lacks (a bench has no
    /// better answer than stopping with the reason).
    pub fn new(workers: usize) -> Self {
        let encoder = Encoder::builder()
            .workers(workers)
            .build()
            .unwrap_or_else(|e| panic!("cannot set up {workers} workers: {e}"));
        let committer = Committer::new(encoder);
        Self { workers, committer }
    }

    /// The encoder.
    pub fn encoder(&self) -> &Encoder {
        self.committer.encoder()
    }

    /// Encodes the lane-major `witness` into `codeword` (no row sink).
    ///
    /// # Panics
    /// If the encoder rejects the shape (the benches only pass valid ones).
    pub fn encode_lanes(&self, witness: &[u64], codeword: &mut [MaybeUninit<u64>], params: CommitParams) {
        self.encoder()
            .encode(witness, codeword, params, None)
            .expect("a valid bench shape encodes");
    }

    /// Encodes in place: the row-major message is in the head of `data`.
    ///
    /// # Panics
    /// If the encoder rejects the shape.
    pub fn encode_in_place(&self, data: &mut [u64], params: CommitParams) {
        self.encoder()
            .encode_in_place(data, params.layout(MessageLayout::Rows), None)
            .expect("a valid bench shape encodes");
    }
}

/// A codeword buffer of `words` words whose pages are already faulted in (written once).
pub fn warm_buffer(words: usize) -> Vec<MaybeUninit<u64>> {
    vec![MaybeUninit::new(0); words]
}

/// The words of a buffer an encode has completely written.
///
/// # Safety
/// Every element of `buffer` must be initialized.
pub unsafe fn assume_init(buffer: &[MaybeUninit<u64>]) -> &[u64] {
    // SAFETY: the caller guarantees every element is initialized, and `MaybeUninit<u64>` has the
    // layout of `u64`.
    unsafe { core::slice::from_raw_parts(buffer.as_ptr().cast::<u64>(), buffer.len()) }
}
