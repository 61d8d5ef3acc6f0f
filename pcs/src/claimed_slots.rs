//! [`ClaimedSlots`]: a buffer that many threads write at once, each the block it claimed.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// A buffer of slots that concurrent writers fill block by block: a [`RowSink`](crate::RowSink)
/// writing one result per row (a row digest, a tree node) into the slots of the block of rows it
/// was handed, from whichever worker finished those rows.
///
/// [`claim`](Self::claim) hands out a block's slots, mutably, only when the block lies inside
/// the buffer, starts at a multiple of its length, has the length every block has (fixed by
/// [`with_block_len`](Self::with_block_len), or else by the first block claimed) and was not
/// claimed before. Those rules make any two handed-out blocks disjoint, so each is written by
/// one writer alone; a block handed over twice, or one overlapping another, is refused rather
/// than raced. [`into_inner`](Self::into_inner) returns the buffer once the writers are done.
///
/// ```
/// use ntt_pcs::ClaimedSlots;
///
/// let slots = ClaimedSlots::<[u8; 32]>::try_zeroed(8).expect("allocates");
/// std::thread::scope(|s| {
///     for start in [0, 4] {
///         let slots = &slots;
///         s.spawn(move || slots.claim(start, 4).expect("a new block").fill([start as u8; 32]));
///     }
/// });
/// assert!(slots.claim(4, 4).is_err()); // claimed already
/// assert!(slots.claim(2, 2).is_err()); // not the blocks' length
/// assert_eq!(slots.into_inner()[5], [4; 32]);
/// ```
pub struct ClaimedSlots<T> {
    /// The slots. Never borrowed while the value lives: every access goes through `base`, so
    /// the blocks handed out stay the only references into it.
    buffer: Vec<T>,
    /// `buffer`'s first slot.
    base: *mut T,
    len: usize,
    /// Slots in every block; 0 until the first claim sets it, unless fixed at construction.
    block_len: AtomicUsize,
    /// Whether `block_len` was fixed at construction: then one claim bit per block, else one
    /// per slot (a block's bit is that of its first slot).
    per_block: bool,
    claimed: Box<[AtomicU64]>,
}

// SAFETY: a `ClaimedSlots<T>` owns its `T`s (`base` only aliases `buffer`'s heap buffer, which
// moves with it untouched), so sending it sends them.
unsafe impl<T: Send> Send for ClaimedSlots<T> {}
// SAFETY: through a shared reference, other threads only ever get `&mut` to disjoint blocks of
// `T`s (`claim`'s rules), never a `&T` shared between threads, so `T: Send` suffices; all the
// claim bookkeeping is atomics.
unsafe impl<T: Send> Sync for ClaimedSlots<T> {}

/// Why [`ClaimedSlots::claim`] refused a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ClaimError {
    /// A block of no slots.
    #[error("a block of no slots")]
    Empty,
    /// The block ends past the buffer.
    #[error("slots {start}..+{len} end past the buffer's {slots}")]
    OutOfRange {
        /// The block's first slot.
        start: usize,
        /// The block's length.
        len: usize,
        /// The buffer's length.
        slots: usize,
    },
    /// The block does not start at a multiple of its length.
    #[error("slots {start}..+{len} do not start at a multiple of their length")]
    Misaligned {
        /// The block's first slot.
        start: usize,
        /// The block's length.
        len: usize,
    },
    /// Another block length was fixed before.
    #[error("a block of {len} slots where every block has {block_len}")]
    OtherLength {
        /// The block's length.
        len: usize,
        /// The length every block has.
        block_len: usize,
    },
    /// The block was claimed before.
    #[error("slots {start}..+{len} were claimed before")]
    Claimed {
        /// The block's first slot.
        start: usize,
        /// The block's length.
        len: usize,
    },
}

impl<T> ClaimedSlots<T> {
    /// `buffer`'s slots, in blocks of the length the first claim has.
    pub fn from_vec(mut buffer: Vec<T>) -> Self {
        let base = buffer.as_mut_ptr();
        let len = buffer.len();
        Self {
            buffer,
            base,
            len,
            block_len: AtomicUsize::new(0),
            per_block: false,
            claimed: claim_bits(len),
        }
    }

    /// The same slots, in blocks of `block_len` (at least 1) slots from the first claim on.
    ///
    /// # Panics
    /// If `block_len` is 0.
    #[must_use]
    pub fn with_block_len(self, block_len: usize) -> Self {
        assert!(block_len > 0, "blocks of at least one slot");
        Self {
            block_len: AtomicUsize::new(block_len),
            per_block: true,
            claimed: claim_bits(self.len.div_ceil(block_len)),
            ..self
        }
    }

    /// Slots in the buffer.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no slots.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Slots in every block, once fixed (at construction or by the first claim).
    pub fn block_len(&self) -> Option<usize> {
        Some(self.block_len.load(Ordering::Acquire)).filter(|&n| n > 0)
    }

    /// The slots `start..start + len`, for the caller alone to write.
    ///
    /// # Errors
    /// A [`ClaimError`] when the block is empty, ends past the buffer, does not start at a
    /// multiple of `len`, is not as long as every block, or was claimed before. A refused block
    /// changes nothing, except that the first block within the rules fixes the block length.
    #[expect(
        clippy::mut_from_ref,
        reason = "each block is handed out once, blocks are disjoint"
    )]
    pub fn claim(&self, start: usize, len: usize) -> Result<&mut [T], ClaimError> {
        if len == 0 {
            return Err(ClaimError::Empty);
        }
        if start.checked_add(len).is_none_or(|end| end > self.len) {
            return Err(ClaimError::OutOfRange {
                start,
                len,
                slots: self.len,
            });
        }
        if !start.is_multiple_of(len) {
            return Err(ClaimError::Misaligned { start, len });
        }
        let block_len = match self
            .block_len
            .compare_exchange(0, len, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => len,
            Err(fixed) => fixed,
        };
        if block_len != len {
            return Err(ClaimError::OtherLength { len, block_len });
        }
        let bit = if self.per_block { start / len } else { start };
        let mask = 1u64 << (bit % 64);
        if self.claimed[bit / 64].fetch_or(mask, Ordering::AcqRel) & mask != 0 {
            return Err(ClaimError::Claimed { start, len });
        }
        // SAFETY: `start < self.len` (the block is not empty and ends inside), so the offset
        // stays inside `buffer`'s allocation, which `base` points to.
        let first = unsafe { self.base.add(start) };
        // SAFETY: `start + len ≤ self.len`, so the slots lie inside `buffer`'s allocation, which
        // lives (unmoved on the heap) as long as `self`; they are initialized (`buffer` holds
        // `self.len` values). No other reference to them exists while the slice lives: `buffer`
        // is never borrowed while `self` lives, and every block handed out has the same length
        // (fixed once, never changed), starts at a multiple of it and has its own claim bit,
        // set just now for the first and only time, so any other block handed out is another
        // multiple of `len` and disjoint from this one.
        Ok(unsafe { std::slice::from_raw_parts_mut(first, len) })
    }

    /// The buffer, with whatever the writers wrote (the slots of blocks never claimed as they
    /// were at construction).
    pub fn into_inner(self) -> Vec<T> {
        self.buffer
    }
}

impl<const N: usize> ClaimedSlots<[u8; N]> {
    /// `len` slots of zero bytes, or `None` when the allocator refuses them. Zeroed by the
    /// allocator, as `vec![[0; N]; len]` is: fresh pages come zeroed from the OS, so nothing is
    /// written here and each page is first touched by the writer of its slots.
    pub fn try_zeroed(len: usize) -> Option<Self> {
        let layout = std::alloc::Layout::array::<[u8; N]>(len).ok()?;
        if layout.size() == 0 {
            return Some(Self::from_vec(vec![[0; N]; len]));
        }
        // SAFETY: the layout has a non-zero size (checked just above).
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<[u8; N]>();
        if ptr.is_null() {
            return None;
        }
        // SAFETY: `ptr` comes from the global allocator with the layout of `len` values of
        // `[u8; N]`, which is the layout a `Vec` of capacity `len` has; its `len` values are
        // initialized (all bytes zero, a valid `[u8; N]`).
        Some(Self::from_vec(unsafe { Vec::from_raw_parts(ptr, len, len) }))
    }
}

impl<T> std::fmt::Debug for ClaimedSlots<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let claimed: u32 = self
            .claimed
            .iter()
            .map(|w| w.load(Ordering::Relaxed).count_ones())
            .sum();
        f.debug_struct("ClaimedSlots")
            .field("len", &self.len)
            .field("block_len", &self.block_len())
            .field("claimed_blocks", &claimed)
            .finish()
    }
}

/// Claim bits for `n` blocks, all clear.
fn claim_bits(n: usize) -> Box<[AtomicU64]> {
    (0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_is_handed_out_once() {
        let slots = ClaimedSlots::from_vec(vec![0u32; 8]);
        slots.claim(4, 4).expect("new").fill(7);
        assert_eq!(slots.claim(4, 4), Err(ClaimError::Claimed { start: 4, len: 4 }));
        assert_eq!(slots.block_len(), Some(4));
        assert_eq!(slots.into_inner(), [0, 0, 0, 0, 7, 7, 7, 7]);
    }

    #[test]
    fn misaligned_out_of_range_and_empty_blocks_are_refused() {
        let slots = ClaimedSlots::from_vec(vec![0u8; 12]);
        assert_eq!(
            slots.claim(2, 4),
            Err(ClaimError::Misaligned { start: 2, len: 4 })
        );
        assert!(matches!(slots.claim(12, 4), Err(ClaimError::OutOfRange { .. })));
        assert!(matches!(slots.claim(8, 8), Err(ClaimError::OutOfRange { .. })));
        assert!(matches!(
            slots.claim(usize::MAX, 2),
            Err(ClaimError::OutOfRange { .. })
        ));
        assert_eq!(slots.claim(0, 0), Err(ClaimError::Empty));
        // None of those fixed the block length.
        assert_eq!(slots.block_len(), None);
        assert_eq!(slots.claim(8, 4).map(|b| b.len()), Ok(4));
    }

    #[test]
    fn blocks_of_another_length_are_refused() {
        let slots = ClaimedSlots::from_vec(vec![0u8; 16]);
        slots.claim(0, 4).expect("the first block fixes the length");
        assert_eq!(
            slots.claim(8, 8),
            Err(ClaimError::OtherLength { len: 8, block_len: 4 })
        );
        assert!(matches!(slots.claim(1, 1), Err(ClaimError::OtherLength { .. })));
        let fixed = ClaimedSlots::from_vec(vec![0u8; 16]).with_block_len(2);
        assert_eq!(fixed.block_len(), Some(2));
        assert!(matches!(fixed.claim(0, 4), Err(ClaimError::OtherLength { .. })));
        fixed.claim(14, 2).expect("a block of the fixed length");
        assert!(matches!(fixed.claim(14, 2), Err(ClaimError::Claimed { .. })));
    }

    #[test]
    fn zeroed_slots_start_zero() {
        let slots = ClaimedSlots::<[u8; 32]>::try_zeroed(130).expect("allocates");
        assert_eq!(slots.len(), 130);
        assert!(
            ClaimedSlots::<[u8; 32]>::try_zeroed(0)
                .expect("allocates")
                .is_empty()
        );
        assert!(slots.into_inner().iter().all(|d| *d == [0; 32]));
    }

    #[test]
    fn threads_fill_disjoint_blocks() {
        const BLOCK: usize = 4;
        let blocks = if cfg!(miri) { 32 } else { 1024 };
        for fixed in [false, true] {
            let mut slots = ClaimedSlots::from_vec(vec![usize::MAX; blocks * BLOCK]);
            if fixed {
                slots = slots.with_block_len(BLOCK);
            }
            let won = AtomicUsize::new(0);
            std::thread::scope(|s| {
                for t in 0..4 {
                    let (slots, won) = (&slots, &won);
                    // Every thread tries every block, in its own order: each block is won once.
                    s.spawn(move || {
                        for k in (0..blocks).map(|k| (k * 7 + t * 13) % blocks) {
                            if let Ok(block) = slots.claim(k * BLOCK, BLOCK) {
                                block.iter_mut().enumerate().for_each(|(i, v)| *v = k * BLOCK + i);
                                won.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                    });
                }
            });
            assert_eq!(won.into_inner(), blocks);
            assert!(slots.into_inner().into_iter().enumerate().all(|(i, v)| i == v));
        }
    }
}
