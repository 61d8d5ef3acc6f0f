//! Codeword buffers: kept across commits in a capped pool, faulted in by the workers in
//! parallel when fresh, backed by transparent huge pages where the OS offers them.
//!
//! A fresh 64 MiB codeword is 16384 page faults of 4 KiB on first touch, which on a virtual
//! machine costs more than the encode itself, and the faults of one thread do not scale.
//! Three things keep them off the commit's critical path:
//! - Huge pages: asking Linux for transparent huge pages (`MADV_HUGEPAGE`, honoured when
//!   `/sys/kernel/mm/transparent_hugepage/enabled` is `always` or `madvise`) makes it 32 faults
//!   of 2 MiB, while they come fast (see [`ntt_runtime::pages`]). The advice changes no contents and
//!   is only a hint: if it is refused the buffer works the same with small pages.
//! - Parallel first touch: a fresh buffer is faulted in by all of the pool's workers together
//!   before the encode, in 2 MiB chunks taken on demand (see [`ntt_runtime::touch`]).
//! - The pool: a [`Committer`](super::Committer) keeps the buffers of dropped
//!   [`ProverData`](super::ProverData) (up to a cap) and hands them to later commits, so only
//!   the first commit of a size pays for faults at all.

use std::collections::TryReserveError;
use std::sync::Mutex;

use ntt_runtime::ThreadPool;

use ntt_runtime::touch::{Populated, populate};

/// Bytes of codeword buffers a committer keeps by default: 4 GiB, a few commits' worth of the
/// sizes provers use (2^24 words at rate 1/4 is 512 MiB), small beside the machines that run them.
pub const DEFAULT_POOL_CAP_BYTES: usize = 4 << 30;

/// Codeword buffers kept for reuse, at most `cap_bytes` of capacity in all.
#[derive(Debug)]
pub(crate) struct BufferPool {
    kept: Mutex<Vec<Vec<u64>>>,
    cap_bytes: usize,
}

impl BufferPool {
    pub(crate) fn new(cap_bytes: usize) -> Self {
        Self {
            kept: Mutex::new(Vec::new()),
            cap_bytes,
        }
    }

    pub(crate) fn cap_bytes(&self) -> usize {
        self.cap_bytes
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Vec<u64>>> {
        // A panic while holding the lock leaves a list of whole buffers: still valid.
        self.kept
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The smallest kept buffer with room for `words` words, else a new empty one.
    pub(crate) fn take(&self, words: usize) -> Vec<u64> {
        let mut kept = self.lock();
        let best = kept
            .iter()
            .enumerate()
            .filter(|(_, b)| b.capacity() >= words)
            .min_by_key(|(_, b)| b.capacity())
            .map(|(i, _)| i);
        best.map(|i| kept.swap_remove(i)).unwrap_or_default()
    }

    /// Keeps `buffer` for a later commit if it fits under the cap; frees it otherwise.
    pub(crate) fn give(&self, buffer: Vec<u64>) {
        let bytes = buffer.capacity() * 8;
        if bytes == 0 {
            return;
        }
        let mut kept = self.lock();
        let held: usize = kept.iter().map(|b| b.capacity() * 8).sum();
        if held + bytes <= self.cap_bytes {
            kept.push(buffer);
        }
    }

    /// Bytes of capacity kept now.
    pub(crate) fn kept_bytes(&self) -> usize {
        self.lock().iter().map(|b| b.capacity() * 8).sum()
    }

    /// Frees every kept buffer; returns the bytes freed.
    pub(crate) fn release(&self) -> usize {
        let freed: Vec<Vec<u64>> = std::mem::take(&mut *self.lock());
        freed.iter().map(|b| b.capacity() * 8).sum()
    }
}

/// Empties `buffer` and makes room for `words` words; when that needs new memory, has `pool`'s
/// workers fault it in together on the pages the huge-page policy asks for ([`populate`]).
/// Returns what that cost when the memory was new, `None` when the buffer was reused.
///
/// # Errors
/// The allocator's refusal (the size comes from input, so it is not left to abort the process).
pub(crate) fn reserve_codeword(
    buffer: &mut Vec<u64>,
    words: usize,
    pool: &ThreadPool,
) -> Result<Option<Populated>, TryReserveError> {
    buffer.clear();
    if buffer.capacity() >= words {
        return Ok(None);
    }
    // A buffer too small is dropped rather than grown: growing would copy nothing useful.
    let mut new = Vec::new();
    new.try_reserve_exact(words)?;
    *buffer = new;
    let ptr = buffer.as_mut_ptr().cast::<u8>();
    // SAFETY: `[ptr, ptr + 8 * words)` is the spare capacity of `buffer`, borrowed mutably here;
    // its contents are unspecified until the encode writes every word.
    Ok(Some(unsafe { populate(pool, ptr, words * 8) }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ntt_runtime::{PinPolicy, ThreadPoolBuilder};

    fn pool(workers: usize) -> ThreadPool {
        ThreadPoolBuilder::new()
            .num_threads(workers)
            .pin(PinPolicy::None)
            .build()
            .expect("pool")
    }

    #[test]
    #[cfg_attr(miri, ignore = "madvise is a foreign call")]
    fn reserve_keeps_capacity_and_empties() {
        let pool = pool(2);
        let mut buffer = vec![7u64; 10];
        let touched = reserve_codeword(&mut buffer, 5 << 20, &pool).expect("40 MiB");
        // Fresh: the workers' shares (empty when the passes fault the pages in;
        // `touch`'s tests check the shares of the first touch before the passes).
        let touch = touched.expect("a fresh buffer");
        let bytes: usize = touch.workers.iter().map(|w| w.bytes).sum();
        assert!(
            bytes == 0 || bytes == 40 << 20,
            "every byte once, or none: {bytes}"
        );
        assert!(buffer.is_empty() && buffer.capacity() >= 5 << 20);
        let ptr = buffer.as_ptr();
        assert!(
            reserve_codeword(&mut buffer, 4 << 20, &pool)
                .expect("reused")
                .is_none()
        );
        assert_eq!(buffer.as_ptr(), ptr, "a large enough buffer is reused");
        assert!(
            reserve_codeword(&mut buffer, usize::MAX / 8, &pool).is_err(),
            "refused, not aborted"
        );
    }

    #[test]
    fn the_pool_keeps_up_to_its_cap_and_hands_out_the_best_fit() {
        let pool = BufferPool::new(3 << 20);
        pool.give(Vec::with_capacity(1 << 17)); // 1 MiB
        pool.give(Vec::with_capacity(1 << 18)); // 2 MiB
        pool.give(Vec::with_capacity(1 << 16)); // over the cap: freed
        assert_eq!(pool.kept_bytes(), 3 << 20);
        assert_eq!(pool.take(1 << 16).capacity(), 1 << 17, "smallest that fits");
        assert_eq!(pool.take(1 << 19).capacity(), 0, "nothing fits: a new buffer");
        assert_eq!(pool.release(), 2 << 20);
        assert_eq!(pool.kept_bytes(), 0);
        let none = BufferPool::new(0);
        none.give(Vec::with_capacity(8));
        assert_eq!(none.kept_bytes(), 0, "a cap of 0 keeps nothing");
    }
}
