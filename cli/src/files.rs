//! File arguments (`-` is standard input or output), bounded reads, and writes through the
//! rules both binaries share ([`ntt_shell`]).

use crate::error::CliError;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::Path;

pub(crate) use ntt_shell::args::FileArg;

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
/// [`ntt_shell::write_atomically`]). Devices and FIFOs are written in place.
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
        FileArg::Path(path) => ntt_shell::write_atomically(path, body).map_err(write_err),
    }
}

/// An existing path that is not a regular file (a device, a FIFO): renaming over it would replace
/// it instead of writing to it.
fn is_special(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Refuses two outputs on one file (or both on standard output), and an output on the file of
/// an input: one would silently replace the other (see [`ntt_shell::refuse_overlaps`]).
///
/// # Errors
/// [`CliError::Input`] naming both arguments.
pub(crate) fn distinct(
    outputs: &[(&str, Option<&FileArg>)],
    inputs: &[(&str, Option<&FileArg>)],
) -> Result<(), CliError> {
    let std: Vec<&str> = outputs
        .iter()
        .filter(|(_, a)| a.is_some_and(FileArg::is_std))
        .map(|(name, _)| *name)
        .collect();
    if let [first, second, ..] = std[..] {
        return Err(CliError::Input(format!(
            "{first} and {second} cannot both write standard output (`-`)"
        )));
    }
    ntt_shell::refuse_overlaps(&paths(outputs), &paths(inputs)).map_err(|e| CliError::Input(e.to_string()))
}

/// The arguments that name paths, with their flags.
fn paths<'a>(args: &[(&'a str, Option<&'a FileArg>)]) -> Vec<(&'a str, &'a Path)> {
    args.iter()
        .filter_map(|&(name, arg)| match arg? {
            FileArg::Path(path) => Some((name, path.as_path())),
            FileArg::Std => None,
        })
        .collect()
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
    use std::path::PathBuf;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ntt-files-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
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
}
