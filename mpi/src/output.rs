//! Files the job writes: each under a temporary name beside its final one, renamed by rank 0
//! only once every rank has written its part, so a failed or killed job leaves no file under
//! the final name.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use mpi::traits::*;
use ntt_mpi::{Error, Split, agree};

/// The temporary name every rank derives for `path`: `.NAME.ntt-mpi-partial` in its directory.
fn partial_name(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.ntt-mpi-partial"))
}

fn write_error(path: &Path) -> impl Fn(io::Error) -> Error + '_ {
    move |source| Error::Write {
        what: path.display().to_string(),
        source,
    }
}

/// Words per write: the share goes out in pieces of 1 MiB, little-endian.
const PIECE_WORDS: usize = 1 << 17;

/// Writes the codeword to `path`: rank 0 creates the file at its full size under the temporary
/// name, every rank writes its rows at their offset, and rank 0 renames the file once all have.
/// Collective.
pub(crate) fn save_codeword<C: Communicator>(
    world: &C,
    path: &Path,
    split: &Split,
    rows: &[u64],
) -> Result<(), Error> {
    let partial = partial_name(path);
    let err = write_error(path);
    let created = if world.rank() == 0 {
        File::create(&partial)
            .and_then(|f| f.set_len(split.shape().codeword_bytes()))
            .map_err(&err)
    } else {
        Ok(())
    };
    agree(world, created)?;
    let written = (|| {
        let file = OpenOptions::new().write(true).open(&partial)?;
        let mut bytes = Vec::with_capacity(PIECE_WORDS * 8);
        let mut offset = split.share_offset();
        for piece in rows.chunks(PIECE_WORDS) {
            bytes.clear();
            bytes.extend(piece.iter().flat_map(|w| w.to_le_bytes()));
            file.write_all_at(&bytes, offset)?;
            offset += bytes.len() as u64;
        }
        file.sync_data()
    })()
    .map_err(&err);
    let written = agree(world, written);
    let renamed = match (&written, world.rank()) {
        (Ok(()), 0) => fs::rename(&partial, path).map_err(&err),
        (Err(_), 0) => {
            let _ = fs::remove_file(&partial);
            Ok(())
        }
        _ => Ok(()),
    };
    written?;
    agree(world, renamed)
}

/// Writes `bytes` to `path` from this rank alone, through a temporary name.
pub(crate) fn write_bytes(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let partial = partial_name(path);
    let result = File::create(&partial)
        .and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_data()))
        .and_then(|()| fs::rename(&partial, path));
    if result.is_err() {
        let _ = fs::remove_file(&partial);
    }
    result.map_err(write_error(path))
}
