//! An output several processes write at offsets (the ranks of an MPI job, on one machine or on a
//! shared file system), whole or not at all.
//!
//! ```text
//!   creator (rank 0)                         every other process
//!   create: sweep stale temporaries,
//!           .NAME.<16 hex>.partial, O_EXCL,
//!           full length, locked      ──name──▶ join: open it, O_NOFOLLOW
//!   write_at its part, sync                    write_at its part, sync
//!                      ◀──── all agree that every part is written ────▶
//!   publish: rename over the target           drop (the name is rank 0's to rename)
//! ```
//!
//! `O_TMPFILE` cannot serve here: a file with no name cannot be opened by another process, on
//! another machine. The name is unguessable instead (64 random bits), and created exclusively,
//! so nothing planted there is followed or truncated.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::target::{Target, keep_mode};
use crate::temporaries::Listed;

/// The temporary of an output several processes write, listed for
/// [`remove_temporaries_on_signals`](crate::remove_temporaries_on_signals) in each of them, so
/// that a signal to any process removes it. The process that created it removes it when it is
/// dropped unpublished (a failure anywhere in the job); a temporary whose writers were all
/// killed at once (SIGKILL) is stale, and the next [`create`](Self::create) for the same target
/// removes it: the creator holds a lock on its temporary for as long as it lives.
#[derive(Debug)]
pub struct SharedOutput {
    file: File,
    temporary: PathBuf,
    /// The file it replaces, for the process that created it (which alone renames it).
    target: Option<Target>,
    published: bool,
    _listed: Listed,
}

impl SharedOutput {
    /// Creates the temporary of an output at `path`, `len` bytes long (zeros until written),
    /// beside the file it replaces (see [`write_atomically`](crate::write_atomically) for the
    /// rule for modes and links), after removing that target's stale temporaries.
    ///
    /// # Errors
    /// The I/O error that stopped the creation; nothing is left behind then.
    pub fn create(path: &Path, len: u64) -> io::Result<Self> {
        let target = Target::of(path);
        sweep_stale(&target);
        let (file, temporary) = loop {
            let temporary = target.dir().join(format!(
                ".{}.{:016x}.partial",
                target.name(),
                rand::random::<u64>()
            ));
            let created = OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o666)
                .custom_flags(libc::O_NOFOLLOW)
                .open(&temporary);
            match created {
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                other => break (other?, temporary),
            }
        };
        let existing_mode = target.existing_mode;
        // Listed, and removed when dropped on an error, from here on.
        let output = Self {
            file,
            temporary: temporary.clone(),
            target: Some(target),
            published: false,
            _listed: Listed::new(temporary),
        };
        lock(&output.file, libc::LOCK_EX)?;
        keep_mode(&output.file, existing_mode)?;
        output.file.set_len(len)?;
        Ok(output)
    }

    /// Opens the temporary another process [`create`](Self::create)d, `len` bytes long, to write
    /// its own part.
    ///
    /// # Errors
    /// The open's error; [`io::ErrorKind::InvalidData`] when the path is not a regular file of
    /// `len` bytes (not the temporary that was created).
    pub fn join(temporary: &Path, len: u64) -> io::Result<Self> {
        let file = OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(temporary)?;
        let meta = file.metadata()?;
        if !meta.is_file() || meta.len() != len {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{} is not the {len}-byte temporary that was created",
                    temporary.display()
                ),
            ));
        }
        Ok(Self {
            file,
            temporary: temporary.to_owned(),
            target: None,
            published: false,
            _listed: Listed::new(temporary.to_owned()),
        })
    }

    /// The temporary's path, for the other processes to [`join`](Self::join).
    pub fn temporary(&self) -> &Path {
        &self.temporary
    }

    /// Writes `bytes` at `offset`.
    ///
    /// # Errors
    /// The write's error.
    pub fn write_at(&self, bytes: &[u8], offset: u64) -> io::Result<()> {
        self.file.write_all_at(bytes, offset)
    }

    /// Syncs what this process wrote to the disk (every process does, before the creator
    /// publishes).
    ///
    /// # Errors
    /// The sync's error.
    pub fn sync(&self) -> io::Result<()> {
        self.file.sync_data()
    }

    /// Once every process has written and synced its part: the creator renames the temporary
    /// over the target; for the others this only forgets it.
    ///
    /// # Errors
    /// The rename's error; the temporary is removed then.
    pub fn publish(mut self) -> io::Result<()> {
        let Some(target) = &self.target else {
            return Ok(());
        };
        self.file.sync_all()?;
        std::fs::rename(&self.temporary, &target.path)?;
        self.published = true;
        Ok(())
    }
}

impl Drop for SharedOutput {
    fn drop(&mut self) {
        if self.target.is_some() && !self.published {
            let _ = std::fs::remove_file(&self.temporary);
        }
    }
}

fn lock(file: &File, operation: libc::c_int) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: `file`'s descriptor is open for the call; flock has no memory preconditions.
    if unsafe { libc::flock(file.as_raw_fd(), operation) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Whether `name` is a temporary's name for the target named `target_name`.
fn is_temporary_of(name: &str, target_name: &str) -> bool {
    let Some(rest) = name
        .strip_prefix('.')
        .and_then(|n| n.strip_prefix(target_name))
        .and_then(|n| n.strip_prefix('.'))
        .and_then(|n| n.strip_suffix(".partial"))
    else {
        return false;
    };
    rest.len() == 16 && rest.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Removes the target's temporaries that no living creator locks: what a job killed with
/// SIGKILL on every process left behind. Best effort: what cannot be read or locked is left.
fn sweep_stale(target: &Target) {
    let Ok(entries) = std::fs::read_dir(target.dir()) else {
        return;
    };
    let name = target.name();
    for entry in entries.flatten() {
        if !entry
            .file_name()
            .to_str()
            .is_some_and(|n| is_temporary_of(n, &name))
        {
            continue;
        }
        let path = entry.path();
        let opened = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(&path);
        let Ok(file) = opened else { continue };
        let regular = file.metadata().is_ok_and(|m| m.is_file());
        // Removed while locked, so a creator cannot take it in between.
        if regular && lock(&file, libc::LOCK_EX | libc::LOCK_NB).is_ok() {
            let _ = std::fs::remove_file(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ntt-shell-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn parts_written_by_two_writers_are_published_whole() {
        let dir = scratch("shared");
        let path = dir.join("out.bin");
        let creator = SharedOutput::create(&path, 8).unwrap();
        let joined = SharedOutput::join(creator.temporary(), 8).unwrap();
        creator.write_at(b"abcd", 0).unwrap();
        joined.write_at(b"efgh", 4).unwrap();
        joined.sync().unwrap();
        joined.publish().unwrap();
        assert!(!path.exists(), "only the creator publishes");
        creator.publish().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"abcdefgh");
        assert_eq!(names(&dir), ["out.bin"]);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_dropped_or_refused_output_leaves_nothing() {
        let dir = scratch("shared-drop");
        let path = dir.join("out.bin");
        std::fs::write(&path, b"old").unwrap();
        drop(SharedOutput::create(&path, 8).unwrap());
        assert_eq!(names(&dir), ["out.bin"]);
        // A directory cannot be replaced: the rename fails, the temporary goes.
        let sub = dir.join("sub");
        std::fs::create_dir(&sub).unwrap();
        assert!(SharedOutput::create(&sub, 8).unwrap().publish().is_err());
        assert_eq!(names(&dir), ["out.bin", "sub"]);
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        // A joiner refuses what is not the temporary.
        assert!(SharedOutput::join(&path, 8).is_err(), "wrong length");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn stale_temporaries_are_swept_and_live_ones_kept() {
        let dir = scratch("shared-sweep");
        let path = dir.join("out.bin");
        let stale = dir.join(".out.bin.0123456789abcdef.partial");
        std::fs::write(&stale, b"left by a killed job").unwrap();
        let unrelated = dir.join(".out.bin.not-ours.partial");
        std::fs::write(&unrelated, b"").unwrap();
        let live = SharedOutput::create(&path, 4).unwrap();
        assert!(!stale.exists(), "a temporary nobody locks is stale");
        assert!(unrelated.exists());
        // A second creator of the same target keeps the first one's locked temporary.
        let second = SharedOutput::create(&path, 4).unwrap();
        assert!(live.temporary().exists());
        drop((live, second));
        assert_eq!(names(&dir), [".out.bin.not-ours.partial"]);
        assert!(is_temporary_of(".x.0123456789ABCDEF.partial", "x"));
        assert!(!is_temporary_of(".x.0123456789abcde.partial", "x"));
        let _ = std::fs::remove_dir_all(dir);
    }
}
