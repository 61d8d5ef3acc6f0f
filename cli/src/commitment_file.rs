//! The commitment file (`open --commitment`, `verify --commitment`): its form and bounds are
//! [`ntt_shell::commitment_file`]'s, shared with `ntt-mpi`; here it is written to and read from
//! file arguments (`-` included).

use crate::error::CliError;
use crate::files::{self, FileArg};
use ntt_pcs::Commitment;
use ntt_shell::commitment_file::{MAX_BYTES, parse, text};

pub(crate) fn write(arg: &FileArg, commitment: &Commitment) -> Result<(), CliError> {
    files::write_bytes(arg, text(commitment).as_bytes())
}

pub(crate) fn read(arg: &FileArg) -> Result<Commitment, CliError> {
    let bytes = files::read_bounded(arg, MAX_BYTES, "a commitment file")?;
    parse(&bytes).map_err(|why| {
        CliError::Input(format!(
            "{} is not a commitment file (as `ntt open --commitment` writes): {why}",
            arg.source_name()
        ))
    })
}
