//! Reading what the user hands the CLI: raw word files, row lists and hex roots.

use crate::error::CliError;
use std::path::Path;

/// Reads a file of little-endian `u64` words.
pub fn read_words(path: &Path) -> Result<Vec<u64>, CliError> {
    let bytes = std::fs::read(path).map_err(|source| CliError::Read {
        path: path.to_owned(),
        source,
    })?;
    if !bytes.len().is_multiple_of(8) {
        return Err(CliError::Input(format!(
            "`{}` is {} bytes long, not a whole number of 8-byte little-endian words",
            path.display(),
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(8)
        .map(|w| u64::from_le_bytes(w.try_into().expect("chunks of 8")))
        .collect())
}

/// Writes `words` as little-endian bytes.
pub fn write_words(path: &Path, words: &[u64]) -> Result<(), CliError> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    write_bytes(path, &bytes)
}

pub fn write_bytes(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    std::fs::write(path, bytes).map_err(|source| CliError::Write {
        path: path.to_owned(),
        source,
    })
}

pub fn read_bytes(path: &Path) -> Result<Vec<u8>, CliError> {
    std::fs::read(path).map_err(|source| CliError::Read {
        path: path.to_owned(),
        source,
    })
}

/// Row indices given as `3,17,4`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowList(pub Vec<usize>);

/// Parses `3,17,4` into row indices.
pub fn parse_rows(list: &str) -> Result<RowList, String> {
    let rows: Result<Vec<usize>, String> = list
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<usize>()
                .map_err(|_| format!("`{s}` is not a row index"))
        })
        .collect();
    match rows {
        Ok(rows) if rows.is_empty() => Err("no row indices given".to_owned()),
        other => other.map(RowList),
    }
}

/// Parses a 32-byte root written as 64 hex digits.
pub fn parse_root(hex_root: &str) -> Result<[u8; 32], String> {
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
    fn rows_parse_and_reject_garbage() {
        assert_eq!(parse_rows("3, 17,0").unwrap(), RowList(vec![3, 17, 0]));
        assert!(parse_rows("3,x").is_err());
        assert!(parse_rows("").is_err());
    }

    #[test]
    fn roots_need_64_hex_digits() {
        assert!(parse_root(&"ab".repeat(32)).is_ok());
        assert!(parse_root("abcd").is_err());
        assert!(parse_root(&"zz".repeat(32)).is_err());
    }
}
