//! Reading what the user hands the CLI: raw word files, row lists and hex roots.

use crate::error::CliError;
use crate::files::{self, FileArg};
use crate::memory;

/// Reads a witness of little-endian `u64` words, from a file, a pipe or standard input (`-`).
/// The read stops at half the memory the process can still use: a witness that cannot fit with
/// its codeword (or an endless stream such as `/dev/zero`) is refused with both sizes named.
pub(crate) fn read_words(arg: &FileArg) -> Result<Vec<u64>, CliError> {
    // Half: the codeword needs at least as much again as the witness.
    let limit = memory::available_bytes().map_or(u64::MAX, |b| b / 2);
    let (mut words, bytes) = files::read_bounded_words(
        arg,
        limit,
        "a witness (half the memory available, the codeword needs the other half)",
    )?;
    if !bytes.is_multiple_of(8) {
        return Err(CliError::Input(format!(
            "{} is {bytes} bytes long, not a whole number of 8-byte little-endian words",
            arg.source_name(),
        )));
    }
    if cfg!(target_endian = "big") {
        words.iter_mut().for_each(|w| *w = u64::from_le(*w));
    }
    Ok(words)
}

/// Parses a 32-byte root written as 64 hex digits.
pub(crate) fn parse_root(hex_root: &str) -> Result<[u8; 32], String> {
    let bytes = hex::decode(hex_root.trim()).map_err(|e| format!("`{hex_root}` is not a hex root: {e}"))?;
    bytes.try_into().map_err(|b: Vec<u8>| {
        format!(
            "a root is 32 bytes (64 hex digits), `{hex_root}` has {} bytes",
            b.len()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_need_64_hex_digits() {
        assert!(parse_root(&"ab".repeat(32)).is_ok());
        assert!(parse_root("abcd").is_err());
        assert!(parse_root(&"zz".repeat(32)).is_err());
    }
}
