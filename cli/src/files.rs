//! File arguments (`-` is standard input or output), bounded reads and atomic writes.

use crate::error::CliError;
use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// A file argument: a path, or `-` for standard input (when read) or standard output (when written).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum FileArg {
    Std,
    Path(PathBuf),
}

impl From<OsString> for FileArg {
    fn from(arg: OsString) -> Self {
        if arg == "-" {
            Self::Std
        } else {
            Self::Path(arg.into())
        }
    }
}

/// As given on the command line: `-` or the path.
impl std::fmt::Display for FileArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Std => f.write_str("-"),
            Self::Path(p) => write!(f, "{}", p.display()),
        }
    }
}

impl FileArg {
    pub(crate) fn is_std(&self) -> bool {
        matches!(self, Self::Std)
    }

    /// How messages name it when read.
    pub(crate) fn source_name(&self) -> String {
        match self {
            Self::Std => "standard input".to_owned(),
            Self::Path(p) => format!("`{}`", p.display()),
        }
    }

    /// How messages name it when written.
    pub(crate) fn sink_name(&self) -> String {
        match self {
            Self::Std => "standard output".to_owned(),
            Self::Path(p) => format!("`{}`", p.display()),
        }
    }
}

/// Refuses two arguments that would both read standard input.
pub(crate) fn one_stdin(args: &[(&str, Option<&FileArg>)]) -> Result<(), CliError> {
    let std: Vec<&str> = args
        .iter()
        .filter(|(_, a)| a.is_some_and(FileArg::is_std))
        .map(|(name, _)| *name)
        .collect();
    if std.len() > 1 {
        return Err(CliError::Input(format!(
            "{} cannot all read standard input (`-`)",
            std.join(" and ")
        )));
    }
    Ok(())
}

/// Opens `arg` for reading; the size is known for regular files.
fn open(arg: &FileArg) -> Result<(Box<dyn Read>, Option<u64>), CliError> {
    let read_err = |source| CliError::Read {
        what: arg.source_name(),
        source,
    };
    match arg {
        FileArg::Std => Ok((Box::new(io::stdin().lock()), None)),
        FileArg::Path(path) => {
            let file = File::open(path).map_err(read_err)?;
            let meta = file.metadata().map_err(read_err)?;
            if meta.is_dir() {
                return Err(CliError::Input(format!("{} is a directory", arg.source_name())));
            }
            let len = meta.is_file().then_some(meta.len());
            Ok((Box::new(file), len))
        }
    }
}

/// Reads all of `arg`, refusing more than `limit` bytes (`what` names the content in messages).
/// Pipes, process substitution and devices are read as streams, with the same limit; memory is
/// reserved fallibly, so a stream that outgrows memory is an error, not an abort.
pub(crate) fn read_bounded(arg: &FileArg, limit: u64, what: &str) -> Result<Vec<u8>, CliError> {
    Ok(read_plain::<u8>(arg, limit, what)?.0)
}

/// [`read_bounded`] into `u64` words (native order; the caller converts), without a second copy
/// of the data. Also returns the byte count, which need not be a whole number of words.
pub(crate) fn read_bounded_words(
    arg: &FileArg,
    limit: u64,
    what: &str,
) -> Result<(Vec<u64>, usize), CliError> {
    read_plain::<u64>(arg, limit, what)
}

/// Plain integers: every byte pattern is a valid value, so their buffers can be read into as bytes.
trait Plain: Copy + Default {}
impl Plain for u8 {}
impl Plain for u64 {}

fn read_plain<T: Plain>(arg: &FileArg, limit: u64, what: &str) -> Result<(Vec<T>, usize), CliError> {
    const STEP: usize = 1 << 20;
    let size = std::mem::size_of::<T>();
    let (mut reader, len) = open(arg)?;
    let too_large = |at_least: u64| {
        CliError::Input(format!(
            "{} holds {}{at_least} bytes; {what} can be at most {limit} bytes",
            arg.source_name(),
            if len.is_some() { "" } else { "more than " },
        ))
    };
    if let Some(len) = len.filter(|&len| len > limit) {
        return Err(too_large(len));
    }
    let read_err = |source| CliError::Read {
        what: arg.source_name(),
        source,
    };
    // Never more than the limit plus one byte, which tells the end of the input.
    let most = usize::try_from(limit.saturating_add(1)).unwrap_or(usize::MAX);
    let mut out: Vec<T> = Vec::new();
    if let Some(len) = len {
        reserve(
            &mut out,
            (len as usize).saturating_add(1).div_ceil(size),
            arg,
            what,
        )?;
    }
    let mut filled = 0usize;
    let mut limited = (&mut reader).take(limit);
    loop {
        if out.capacity() * size <= filled {
            let extra = (out.capacity() * size).max(STEP).min(most.saturating_sub(filled));
            reserve(&mut out, extra.div_ceil(size).max(1), arg, what)?;
        }
        let end = (out.capacity() * size).min(filled + STEP);
        out.resize(end.div_ceil(size), T::default());
        // SAFETY: `out` holds `out.len()` initialised plain integers, which are `out.len() * size`
        // initialised bytes; any bytes written through the view are valid values of `T`.
        let view = unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<u8>(), out.len() * size) };
        let n = loop {
            match limited.read(&mut view[filled..end]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(source) => return Err(read_err(source)),
            }
        };
        filled += n;
        if n == 0 {
            break;
        }
    }
    out.truncate(filled.div_ceil(size));
    // One byte past the limit tells input that is too long from input that just fits.
    if filled as u64 == limit {
        let mut probe = [0u8; 1];
        if reader.read(&mut probe).map_err(read_err)? > 0 {
            return Err(too_large(limit));
        }
    }
    Ok((out, filled))
}

fn reserve<T>(out: &mut Vec<T>, extra: usize, arg: &FileArg, what: &str) -> Result<(), CliError> {
    out.try_reserve(extra).map_err(|_| {
        CliError::System(format!(
            "out of memory reading {what} from {} ({} bytes read, {} more could not be reserved)",
            arg.source_name(),
            out.len() * std::mem::size_of::<T>(),
            extra * std::mem::size_of::<T>()
        ))
    })
}

/// Writes an output through `body`: to standard output for `-`, else whole or not at all (see
/// [`write_atomically`]). Devices and FIFOs are written in place.
pub(crate) fn write_output(
    arg: &FileArg,
    body: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), CliError> {
    let write_err = |source| CliError::Write {
        what: arg.sink_name(),
        source,
    };
    match arg {
        FileArg::Std => {
            let mut out = io::BufWriter::with_capacity(1 << 20, io::stdout().lock());
            body(&mut out).and_then(|()| out.flush()).map_err(write_err)
        }
        FileArg::Path(path) if is_special(path) => {
            let mut out = io::BufWriter::new(File::create(path).map_err(write_err)?);
            body(&mut out).and_then(|()| out.flush()).map_err(write_err)
        }
        FileArg::Path(path) => write_atomically(path, body).map_err(write_err),
    }
}

/// An existing path that is not a regular file (a device, a FIFO): renaming over it would replace
/// it instead of writing to it.
fn is_special(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// The directory a file at `path` lies in.
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// Writes the file at `path` through `body`, whole or not at all, by one rule for every output:
///
/// * The data goes to a file with no name in `path`'s directory (Linux `O_TMPFILE`; elsewhere,
///   or where the file system lacks it, a hidden `.NAME.XXXXXX.tmp`), which is given its name
///   only once everything is written and synced: a failure, a signal (see
///   [`remove_temporaries_on_signals`]) or, with `O_TMPFILE`, even `SIGKILL` leaves no partial
///   file and the old one untouched.
/// * A new file gets mode 0666 less the umask; a file that is replaced keeps its permission bits
///   (not its owner: it becomes the writer's).
/// * A symbolic link is followed: the file it names is replaced and the link stays. A hard link
///   is not: the path gets a new file, the file's other names keep the old contents.
pub(crate) fn write_atomically(
    path: &Path,
    body: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let target = follow_symlink(path);
    let existing_mode = existing_mode(&target);
    #[cfg(target_os = "linux")]
    if let Some(file) = anonymous::create(parent_dir(&target), existing_mode)? {
        let file = write_through(file, body)?;
        return anonymous::publish(&file, &target, existing_mode.is_some());
    }
    write_named_temporary(&target, existing_mode, body)
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

/// Writes everything through a large buffer, then syncs the file to disk.
fn write_through(file: File, body: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<File> {
    let mut out = io::BufWriter::with_capacity(1 << 20, file);
    body(&mut out)?;
    let file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
    file.sync_all()?;
    Ok(file)
}

/// The portable scheme: a named hidden temporary, renamed over `target` when complete.
fn write_named_temporary(
    target: &Path,
    existing_mode: Option<u32>,
    body: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        // As a plain create would: 0666 less the umask (tempfile's default is 0600).
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    // Dropping the temporary file on an error removes it; a signal removes it through the list.
    let tmp = builder.tempfile_in(parent_dir(target))?;
    let _listed = Temporary::list(tmp.path().to_owned());
    keep_mode(tmp.as_file(), existing_mode)?;
    let (file, tmp_path) = tmp.into_parts();
    let file = write_through(file, body)?;
    drop(file);
    tmp_path.persist(target).map_err(|e| e.error)?;
    Ok(())
}

/// Gives `file` the mode of the file it replaces, if it replaces one.
fn keep_mode(file: &File, existing_mode: Option<u32>) -> io::Result<()> {
    #[cfg(unix)]
    if let Some(mode) = existing_mode {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(mode))?;
    }
    #[cfg(not(unix))]
    let _ = (file, existing_mode);
    Ok(())
}

/// Files with no name until they are complete (`O_TMPFILE`), linked in with `linkat`.
#[cfg(target_os = "linux")]
mod anonymous {
    use super::{Temporary, keep_mode};
    use std::ffi::CString;
    use std::fs::File;
    use std::io;
    use std::os::fd::{AsRawFd, FromRawFd};
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;

    /// A file with no name in `dir`, with the mode the rule gives it; `None` where the kernel
    /// or the file system has no `O_TMPFILE`, or `/proc` (through which it is linked) is missing.
    pub(super) fn create(dir: &Path, existing_mode: Option<u32>) -> io::Result<Option<File>> {
        if !Path::new("/proc/self/fd").is_dir() {
            return Ok(None);
        }
        let dir = CString::new(dir.as_os_str().as_bytes()).map_err(io::Error::other)?;
        let flags = libc::O_TMPFILE | libc::O_WRONLY | libc::O_CLOEXEC;
        // SAFETY: `dir` is a NUL-terminated path that outlives the call; the flags and the mode
        // (0666, less the umask, as a plain create) are plain integers.
        let fd = unsafe { libc::open(dir.as_ptr(), flags, 0o666 as libc::c_uint) };
        if fd < 0 {
            let err = io::Error::last_os_error();
            return match err.raw_os_error() {
                // No O_TMPFILE here: older kernels read the flag as O_DIRECTORY (EISDIR), file
                // systems without it say EOPNOTSUPP.
                Some(libc::EOPNOTSUPP | libc::EISDIR | libc::EINVAL) => Ok(None),
                _ => Err(err),
            };
        }
        // SAFETY: `fd` was just opened and is owned by nothing else.
        let file = unsafe { File::from_raw_fd(fd) };
        keep_mode(&file, existing_mode)?;
        Ok(Some(file))
    }

    /// Gives the complete `file` the name `target`: directly when there is no file there yet,
    /// else under a hidden temporary name renamed over it (the only moment a name other than
    /// the target exists, and a signal then removes it).
    pub(super) fn publish(file: &File, target: &Path, replaces: bool) -> io::Result<()> {
        if !replaces {
            match link(file, target) {
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {} // created meanwhile
                done => return done,
            }
        }
        let dir = super::parent_dir(target);
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        loop {
            let tmp = dir.join(format!(".{name}.{:06x}.tmp", rand::random::<u32>() & 0xff_ffff));
            let listed = Temporary::list(tmp.clone());
            match link(file, &tmp) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
            let renamed = std::fs::rename(&tmp, target);
            if renamed.is_err() {
                let _ = std::fs::remove_file(&tmp);
            }
            drop(listed);
            return renamed;
        }
    }

    fn link(file: &File, to: &Path) -> io::Result<()> {
        let from = CString::new(format!("/proc/self/fd/{}", file.as_raw_fd())).map_err(io::Error::other)?;
        let to = CString::new(to.as_os_str().as_bytes()).map_err(io::Error::other)?;
        // SAFETY: both are NUL-terminated paths that outlive the call. AT_SYMLINK_FOLLOW links
        // the file the /proc entry names, which needs no privilege (AT_EMPTY_PATH would).
        let rc = unsafe {
            libc::linkat(
                libc::AT_FDCWD,
                from.as_ptr(),
                libc::AT_FDCWD,
                to.as_ptr(),
                libc::AT_SYMLINK_FOLLOW,
            )
        };
        if rc == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }
}

/// Paths of temporary files that exist now: what a signal must remove before the process ends.
static TEMPORARIES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A temporary's place on the list, for as long as it is held.
struct Temporary(PathBuf);

impl Temporary {
    fn list(path: PathBuf) -> Self {
        lock_temporaries().push(path.clone());
        Self(path)
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        let mut list = lock_temporaries();
        if let Some(at) = list.iter().position(|p| *p == self.0) {
            list.swap_remove(at);
        }
    }
}

fn lock_temporaries() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    TEMPORARIES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// On SIGINT or SIGTERM, removes the temporary files of outputs being written and exits with
/// 128 + the signal's number (130, 143), as shells expect of a process a signal stopped.
///
/// # Errors
/// When the signal handlers cannot be installed or their thread started.
pub(crate) fn remove_temporaries_on_signals() -> io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    std::thread::Builder::new()
        .name("ntt-signals".to_owned())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                for path in lock_temporaries().drain(..) {
                    let _ = std::fs::remove_file(path);
                }
                // SAFETY: `_exit` ends the process at once; it has no preconditions. Unlike
                // `exit`, it takes no lock another thread (a blocked write) may hold.
                unsafe { libc::_exit(128 + signal) };
            }
        })?;
    Ok(())
}

/// What a path names, to tell whether two arguments are the same file: an existing regular
/// file by device and inode (so hard links, symbolic links and `./x` versus `x` all match), a
/// path that does not exist yet by its directory's canonical path and its name. Devices and
/// FIFOs have none: writing `/dev/null` twice is fine.
#[derive(Debug, PartialEq, Eq)]
enum Identity {
    #[cfg(unix)]
    Inode(u64, u64),
    Path(PathBuf),
}

fn identity(arg: &FileArg) -> Option<Identity> {
    let FileArg::Path(path) = arg else {
        return None;
    };
    match std::fs::metadata(path) {
        #[cfg(unix)]
        Ok(meta) if meta.is_file() => {
            use std::os::unix::fs::MetadataExt;
            Some(Identity::Inode(meta.dev(), meta.ino()))
        }
        Ok(meta) if meta.is_file() => std::fs::canonicalize(path).ok().map(Identity::Path),
        Ok(_) => None,
        Err(_) => {
            let dir = std::fs::canonicalize(parent_dir(path)).ok()?;
            Some(Identity::Path(dir.join(path.file_name()?)))
        }
    }
}

/// Refuses two outputs on one file (or both on standard output), and an output on the file of
/// an input: one would silently replace the other.
///
/// # Errors
/// [`CliError::Input`] naming both arguments.
pub(crate) fn distinct(
    outputs: &[(&str, Option<&FileArg>)],
    inputs: &[(&str, Option<&FileArg>)],
) -> Result<(), CliError> {
    let outputs: Vec<(&str, &FileArg)> = outputs.iter().filter_map(|(n, a)| Some((*n, (*a)?))).collect();
    for (i, &(name, arg)) in outputs.iter().enumerate() {
        for &(other, other_arg) in &outputs[..i] {
            if arg.is_std() && other_arg.is_std() {
                return Err(CliError::Input(format!(
                    "{other} and {name} cannot both write standard output (`-`)"
                )));
            }
            if identity(arg).is_some_and(|id| Some(id) == identity(other_arg)) {
                return Err(CliError::Input(format!(
                    "{other} and {name} name the same file ({}): one would replace the other",
                    arg.sink_name()
                )));
            }
        }
        for &(input, input_arg) in inputs {
            let Some(input_arg) = input_arg else { continue };
            if identity(arg).is_some_and(|id| Some(id) == identity(input_arg)) {
                return Err(CliError::Input(format!(
                    "{name} {} is the file {input} reads ({}): writing it would replace the input",
                    arg.sink_name(),
                    input_arg.source_name()
                )));
            }
        }
    }
    Ok(())
}

/// Writes `bytes` to an output (see [`write_output`]).
pub(crate) fn write_bytes(arg: &FileArg, bytes: &[u8]) -> Result<(), CliError> {
    write_output(arg, |out| out.write_all(bytes))
}

/// Writes `words` as little-endian bytes, without a second copy of the whole buffer.
pub(crate) fn write_words(arg: &FileArg, words: &[u64]) -> Result<(), CliError> {
    write_output(arg, |out| {
        let mut bytes = Vec::with_capacity(8 << 12);
        for block in words.chunks(1 << 12) {
            bytes.clear();
            bytes.extend(block.iter().flat_map(|w| w.to_le_bytes()));
            out.write_all(&bytes)?;
        }
        Ok(())
    })
}

/// Prints `text` on standard output, reporting a failed write (a full disk, `/dev/full`) as an
/// error instead of panicking as `println!` does. A closed pipe ends the process quietly
/// (SIGPIPE is left at its default).
pub(crate) fn print(text: &str) -> Result<(), CliError> {
    write_output(&FileArg::Std, |out| out.write_all(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ntt-files-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn dash_is_standard_io() {
        assert_eq!(FileArg::from(OsString::from("-")), FileArg::Std);
        assert_eq!(
            FileArg::from(OsString::from("./-")),
            FileArg::Path(PathBuf::from("./-"))
        );
    }

    #[test]
    fn reads_are_bounded() {
        let dir = scratch("bounded");
        let path = dir.join("f.bin");
        std::fs::write(&path, [7u8; 100]).unwrap();
        let arg = FileArg::Path(path);
        assert_eq!(read_bounded(&arg, 100, "x").unwrap().len(), 100);
        let err = read_bounded(&arg, 99, "a thing").unwrap_err();
        assert!(err.to_string().contains("at most 99 bytes"), "{err}");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary() {
        let dir = scratch("atomic");
        let path = dir.join("out.bin");
        std::fs::write(&path, b"old").unwrap();
        let arg = FileArg::Path(path.clone());
        let err = write_output(&arg, |out| {
            out.write_all(b"new, half")?;
            Err(io::Error::other("the disk filled up"))
        })
        .unwrap_err();
        assert!(err.to_string().contains("the disk filled up"));
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "a temporary was left"
        );
        write_bytes(&arg, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        let _ = std::fs::remove_dir_all(dir);
    }
}
