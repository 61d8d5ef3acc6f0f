//! The commitment file `ntt open --commitment` writes and `ntt verify --commitment` reads:
//! `{"version": 1, "format_version": 1, "root": "<64 hex digits>", "log_rows": D, "lanes": N, ...}`,
//! or for a row tree `"tree": "rows", "hash", "cap_height", "cap": [...]` in place of `"root"`
//! (docs/FORMAT.md).

use crate::error::CliError;
use crate::files::{self, FileArg};
use crate::report::{self, JSON_VERSION};
use ntt_pcs::Commitment;
use serde::Deserialize;

/// A commitment file is a few hundred bytes; anything much larger is not one.
const MAX_BYTES: u64 = 64 << 10;

pub fn write(arg: &FileArg, commitment: &Commitment) -> Result<(), CliError> {
    files::write_bytes(arg, report::json(commitment)?.as_bytes())
}

#[derive(Deserialize)]
struct CommitmentFile {
    version: u32,
    #[serde(flatten)]
    commitment: Commitment,
}

pub fn read(arg: &FileArg) -> Result<Commitment, CliError> {
    let bytes = files::read_bounded(arg, MAX_BYTES, "a commitment file")?;
    let file: CommitmentFile = serde_json::from_slice(&bytes).map_err(|e| {
        CliError::Input(format!(
            "{} is not a commitment file (as `ntt open --commitment` writes): {e}",
            arg.source_name()
        ))
    })?;
    if file.version != JSON_VERSION {
        return Err(CliError::Input(format!(
            "{} is a version {} commitment file; this build reads version {JSON_VERSION}",
            arg.source_name(),
            file.version
        )));
    }
    Ok(file.commitment)
}
