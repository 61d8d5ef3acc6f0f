//! [`Backend`]'s across-blocks radix-8 groups: many small blocks per call, one block per vector
//! slot (see [`crate::across`]).

use crate::{Backend, BackendKind, across, dispatch_across};

/// Block b's twiddles: `tw0 ⊕ Σ_{k ∈ bits(b)} steps[k]`, for b = 0, 1, 2, … in turn.
fn each_block_twiddles(tw0: [u64; 7], steps: &[[u64; 7]], blocks: usize, mut f: impl FnMut(usize, [u64; 7])) {
    let mut tw = tw0;
    for b in 0..blocks {
        f(b, tw);
        let mut flipped = b ^ (b + 1);
        while flipped != 0 {
            let k = flipped.trailing_zeros() as usize;
            if k < steps.len() {
                for j in 0..7 {
                    tw[j] ^= steps[k][j];
                }
            }
            flipped &= flipped - 1;
        }
    }
}

impl Backend {
    /// The longest segment, in words, [`Backend::radix8_across`] takes.
    pub const MAX_ACROSS_SEGMENT: usize = across::MAX_SEGMENT;

    /// Radix-8 groups (as [`Backend::radix8`]) on every block of `buf`, blocks of `8·seg` words,
    /// with block b's twiddles `tw0 ⊕ Σ_{k ∈ bits(b)} steps[k]` (XOR per twiddle; the
    /// transform's twiddles are affine in the block index this way).
    ///
    /// Meant for segments shorter than a vector (`seg < vector_width()`, the last layers of a
    /// matrix with few lanes): SIMD backends put one block in each vector slot (register tile
    /// transposes into an L1 scratch), where [`Backend::radix8`] would leave most of every vector
    /// idle; the portable backend runs the blocks one by one. Identical bytes either way.
    ///
    /// # Panics
    /// If `seg` is 0 or above [`Backend::MAX_ACROSS_SEGMENT`], `buf` is not whole groups of 8
    /// blocks, or `steps` lacks a bit of the last block's index (or has fewer than 3 entries).
    pub fn radix8_across(self, buf: &mut [u64], seg: usize, tw0: [u64; 7], steps: &[[u64; 7]]) {
        check_across(buf, seg, steps);
        match self.kind() {
            BackendKind::Portable => each_block_twiddles(tw0, steps, buf.len() / (8 * seg), |b, tw| {
                self.radix8(&mut buf[b * 8 * seg..(b + 1) * 8 * seg], tw);
            }),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: a `Pclmul` backend exists only where its features were detected; shape
            // checked above.
            BackendKind::Pclmul => unsafe { dispatch_across::pclmul::radix8_across(buf, seg, tw0, steps) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above, for `Avx2`.
            BackendKind::Avx2 => unsafe { dispatch_across::avx2::radix8_across(buf, seg, tw0, steps) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above, for `Avx512`.
            BackendKind::Avx512 => unsafe { dispatch_across::avx512::radix8_across(buf, seg, tw0, steps) },
            #[cfg(target_arch = "aarch64")]
            // SAFETY: as above, for `Neon`.
            BackendKind::Neon => unsafe { dispatch_across::neon::radix8_across(buf, seg, tw0, steps) },
            other => unreachable!("a `{other}` backend cannot be made on this architecture"),
        }
    }

    /// Undoes [`Backend::radix8_across`] with the same twiddles (as [`Backend::inverse_radix8`]
    /// on every block).
    ///
    /// # Panics
    /// As [`Backend::radix8_across`].
    pub fn inverse_radix8_across(self, buf: &mut [u64], seg: usize, tw0: [u64; 7], steps: &[[u64; 7]]) {
        check_across(buf, seg, steps);
        match self.kind() {
            BackendKind::Portable => each_block_twiddles(tw0, steps, buf.len() / (8 * seg), |b, tw| {
                self.inverse_radix8(&mut buf[b * 8 * seg..(b + 1) * 8 * seg], tw);
            }),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: a `Pclmul` backend exists only where its features were detected; shape
            // checked above.
            BackendKind::Pclmul => unsafe {
                dispatch_across::pclmul::inverse_radix8_across(buf, seg, tw0, steps)
            },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above, for `Avx2`.
            BackendKind::Avx2 => unsafe {
                dispatch_across::avx2::inverse_radix8_across(buf, seg, tw0, steps)
            },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above, for `Avx512`.
            BackendKind::Avx512 => unsafe {
                dispatch_across::avx512::inverse_radix8_across(buf, seg, tw0, steps)
            },
            #[cfg(target_arch = "aarch64")]
            // SAFETY: as above, for `Neon`.
            BackendKind::Neon => unsafe {
                dispatch_across::neon::inverse_radix8_across(buf, seg, tw0, steps)
            },
            other => unreachable!("a `{other}` backend cannot be made on this architecture"),
        }
    }
}

/// The shape contract of the across-blocks groups.
fn check_across(buf: &[u64], seg: usize, steps: &[[u64; 7]]) {
    assert!(
        (1..=across::MAX_SEGMENT).contains(&seg),
        "radix8_across: segment of {seg} words (1..={})",
        across::MAX_SEGMENT
    );
    assert_eq!(
        buf.len() % (64 * seg),
        0,
        "radix8_across: not whole groups of 8 blocks"
    );
    let blocks = buf.len() / (8 * seg);
    let bits = (usize::BITS - blocks.saturating_sub(1).leading_zeros()) as usize;
    assert!(
        steps.len() >= bits.max(3),
        "radix8_across: {} twiddle steps for {blocks} blocks",
        steps.len()
    );
}
