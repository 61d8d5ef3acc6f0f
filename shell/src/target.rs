//! Where an output lands and what mode it gets: the one rule for modes and links.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// The file an output at `path` replaces and the mode it must keep.
#[derive(Clone, Debug)]
pub(crate) struct Target {
    /// `path`, or the file its symbolic links lead to when they lead to one: a link is followed
    /// and stays, the file it names is replaced.
    pub(crate) path: PathBuf,
    /// The permission bits of the regular file there now, if there is one.
    pub(crate) existing_mode: Option<u32>,
}

impl Target {
    pub(crate) fn of(path: &Path) -> Self {
        let path = follow_symlink(path);
        let existing_mode = existing_mode(&path);
        Self { path, existing_mode }
    }

    /// The directory the target lies in, where its temporaries go (a rename stays within one
    /// file system).
    pub(crate) fn dir(&self) -> &Path {
        parent_dir(&self.path)
    }

    /// The target's file name, for naming its temporaries.
    pub(crate) fn name(&self) -> String {
        self.path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

/// The directory a file at `path` lies in.
pub(crate) fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// `path`, or the file its symbolic links lead to when they lead to one.
fn follow_symlink(path: &Path) -> PathBuf {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    match is_link.then(|| std::fs::canonicalize(path)) {
        Some(Ok(target)) => target,
        _ => path.to_owned(),
    }
}

/// The permission bits of the regular file at `path`, if there is one.
fn existing_mode(path: &Path) -> Option<u32> {
    let meta = std::fs::metadata(path).ok().filter(std::fs::Metadata::is_file)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        Some(meta.permissions().mode() & 0o777)
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        Some(0o666)
    }
}

/// Gives `file` the mode of the file it replaces, if it replaces one.
pub(crate) fn keep_mode(file: &File, existing_mode: Option<u32>) -> io::Result<()> {
    #[cfg(unix)]
    if let Some(mode) = existing_mode {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(mode))?;
    }
    #[cfg(not(unix))]
    let _ = (file, existing_mode);
    Ok(())
}
