//! Codeword words as the bytes the commitment hashes (u64 little-endian).

/// The little-endian bytes of `words`, borrowed without a copy.
#[cfg(target_endian = "little")]
pub fn as_le_bytes(words: &[u64]) -> &[u8] {
    // SAFETY: u8 has alignment 1 and no invalid values; the byte slice covers exactly the memory
    // of `words` and borrows it for the same lifetime. On a little-endian target the in-memory
    // bytes of a u64 are its little-endian encoding.
    unsafe { core::slice::from_raw_parts(words.as_ptr().cast::<u8>(), size_of_val(words)) }
}

#[cfg(not(target_endian = "little"))]
compile_error!("the benches hash codewords in place and assume a little-endian target");

#[cfg(test)]
mod tests {
    #[test]
    fn bytes_are_little_endian() {
        let words = [0x0102_0304_0506_0708u64, 1];
        let bytes = super::as_le_bytes(&words);
        assert_eq!(&bytes[..9], &[8, 7, 6, 5, 4, 3, 2, 1, 1]);
        assert_eq!(bytes.len(), 16);
    }
}
