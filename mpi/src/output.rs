//! Files the job writes, by the rules `ntt` follows ([`ntt_shell`]): the codeword by every rank
//! at its offset through one temporary that rank 0 creates and renames once all have written
//! their part; the proof and the commitment file by rank 0 alone, through a file with no name.
//! A failed or signalled job leaves no file under the final name and no temporary.

use std::ffi::OsString;
use std::io;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use mpi::traits::*;
use ntt_mpi::{Error, Split, agree};
use ntt_pcs::Commitment;
use ntt_shell::SharedOutput;

use crate::broadcast::broadcast_bytes;

fn write_error(path: &Path) -> impl Fn(io::Error) -> Error + '_ {
    move |source| Error::Write {
        what: path.display().to_string(),
        source,
    }
}

/// Words per write: the share goes out in pieces of 1 MiB, little-endian.
const PIECE_WORDS: usize = 1 << 17;

/// Writes the codeword to `path`: rank 0 creates the temporary at its full size and hands its
/// name to every rank, every rank writes its rows at their offset, and rank 0 renames it once
/// all have. Collective.
pub(crate) fn save_codeword<C: Communicator>(
    world: &C,
    path: &Path,
    split: &Split,
    rows: &[u64],
) -> Result<(), Error> {
    let err = write_error(path);
    let len = split.shape().codeword_bytes();
    let created = if world.rank() == 0 {
        SharedOutput::create(path, len).map(Some).map_err(&err)
    } else {
        Ok(None)
    };
    let created = agree(world, created)?;
    let temporary = created
        .as_ref()
        .map(|output| output.temporary().as_os_str().as_bytes().to_vec());
    let temporary = PathBuf::from(OsString::from_vec(broadcast_bytes(world, temporary)));
    let output = match created {
        Some(output) => Ok(output),
        None => SharedOutput::join(&temporary, len).map_err(&err),
    };
    let output = agree(world, output)?;
    let written = write_share(&output, split, rows).map_err(&err);
    agree(world, written)?;
    // Rank 0 renames; the others only forget the temporary. A failed rename drops it.
    agree(world, output.publish().map_err(&err))
}

/// This rank's rows at their offset, then synced.
fn write_share(output: &SharedOutput, split: &Split, rows: &[u64]) -> io::Result<()> {
    let mut bytes = Vec::with_capacity(PIECE_WORDS * 8);
    let mut offset = split.share_offset();
    for piece in rows.chunks(PIECE_WORDS) {
        bytes.clear();
        bytes.extend(piece.iter().flat_map(|w| w.to_le_bytes()));
        output.write_at(&bytes, offset)?;
        offset += bytes.len() as u64;
    }
    output.sync()
}

/// Writes `bytes` to `path` from this rank alone, whole or not at all.
pub(crate) fn write_bytes(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    ntt_shell::write_atomically(path, |out| out.write_all(bytes)).map_err(write_error(path))
}

/// Writes the commitment file `ntt verify --commitment` reads: the bytes `ntt open --commitment`
/// writes for the same commitment.
pub(crate) fn write_commitment(path: &Path, commitment: &Commitment) -> Result<(), Error> {
    write_bytes(path, ntt_shell::commitment_file::text(commitment).as_bytes())
}
