//! Plonky3's additive NTT, `p3-binary-dft` `LchNtt` over `p3-binary-field` `Poly64`: the same field
//! GF(2)\[x\]/(x^64 + x^4 + x^3 + x + 1), but its domain is spanned by the Cantor basis, so its
//! codewords differ from ours and only speed on equal shapes is compared.
//!
//! Its SIMD kernels are chosen at compile time: without AVX2 + VPCLMULQDQ (x86) or AES (aarch64)
//! in the target features it runs a portable multiply. [`has_clmul_kernels`] says which one this
//! build got; the benchmark commands build with `RUSTFLAGS="-C target-cpu=native"`.
//!
//! Parallelism comes from rayon's current pool (`p3-maybe-rayon` with `parallel`): call it inside
//! `ThreadPool::install` to fix the worker count.

use p3_binary_dft::{AdditiveNtt, LchNtt};
use p3_binary_field::Poly64;
use p3_matrix::dense::RowMajorMatrix;

/// Whether this build compiled p3's carry-less multiply kernels (rather than its portable one).
pub const fn has_clmul_kernels() -> bool {
    cfg!(any(
        all(
            target_arch = "x86_64",
            target_feature = "avx2",
            target_feature = "vpclmulqdq"
        ),
        all(
            target_arch = "aarch64",
            target_endian = "little",
            target_feature = "aes"
        )
    ))
}

/// Writes the row-major message into the head of `buffer` and zeroes the tail, the input
/// `ntt_batch_padded` requires.
///
/// # Panics
/// If the message is longer than the buffer.
pub fn fill_padded(buffer: &mut [Poly64], message_rows: &[u64]) {
    let (head, tail) = buffer.split_at_mut(message_rows.len());
    for (dst, &src) in head.iter_mut().zip(message_rows) {
        *dst = Poly64::new(src);
    }
    tail.fill(Poly64::new(0));
}

/// A padded input buffer for a row-major message at rate `1/2^log_inv_rate`.
pub fn padded(message_rows: &[u64], log_inv_rate: u32) -> Vec<Poly64> {
    let mut buffer = vec![Poly64::new(0); message_rows.len() << log_inv_rate];
    fill_padded(&mut buffer, message_rows);
    buffer
}

/// The Reed-Solomon encode of a padded buffer of `lanes` columns, in place, on the current rayon
/// pool: `LchNtt::<Poly64>::ntt_batch_padded`.
pub fn encode(padded: Vec<Poly64>, lanes: usize, log_inv_rate: u32) -> Vec<Poly64> {
    LchNtt::<Poly64>::default()
        .ntt_batch_padded(RowMajorMatrix::new(padded, lanes), log_inv_rate as usize)
        .values
}

#[cfg(test)]
mod tests {
    use super::*;

    fn in_pool<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool")
            .install(f)
    }

    #[test]
    fn encodes_the_shape_it_is_given() {
        let (lanes, log_inv_rate) = (64, 1);
        let message = crate::witness(14);
        let one = in_pool(1, || encode(padded(&message, log_inv_rate), lanes, log_inv_rate));
        let two = in_pool(2, || encode(padded(&message, log_inv_rate), lanes, log_inv_rate));
        assert_eq!(one.len(), message.len() << log_inv_rate);
        assert_eq!(one, two, "worker count does not change p3's output");
        // Row 0 is the evaluation at 0, where only the constant basis polynomial is nonzero.
        let row0: Vec<u64> = one[..lanes].iter().map(|p| p.to_bits()).collect();
        assert_eq!(row0, message[..lanes]);
        // A systematic-free code: the tail is not left zero.
        assert!(one[message.len()..].iter().any(|p| p.to_bits() != 0));
    }

    #[test]
    fn a_constant_message_encodes_to_constant_rows() {
        // Only coefficient 0 set: every evaluation equals it.
        let lanes = 4;
        let mut message = vec![0u64; lanes << 6];
        message[..lanes].copy_from_slice(&[1, 2, 3, 0xffff]);
        let code = in_pool(2, || encode(padded(&message, 2), lanes, 2));
        for row in code.chunks_exact(lanes) {
            let row: Vec<u64> = row.iter().map(|p| p.to_bits()).collect();
            assert_eq!(row, [1, 2, 3, 0xffff]);
        }
    }
}
