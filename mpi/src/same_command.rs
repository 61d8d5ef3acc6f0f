//! Every rank must run the same command: `mpirun` gives each rank its own argument list (a
//! wrapper script, or `mpirun -np 1 A : -np 1 B`), and ranks that disagree on the shape or the
//! files would commit to a codeword no one asked for, or wait forever for one another in a step
//! only some of them take. Rank 0 sends its flags to all; a rank whose flags differ makes every
//! rank stop with bad input (exit 2) before any work.

use mpi::traits::*;
use ntt_mpi::{Error, agree};

use crate::args::Command;
use crate::broadcast::broadcast_bytes;

/// Checks that every rank was given rank 0's command and flags (but its own `--input`, which
/// the ranks compare by size, and `--threads`, which may differ per node). Collective.
///
/// # Errors
/// [`Error::Arguments`] on a rank whose flags differ, naming them; [`Error::OtherRank`] on the
/// others.
pub(crate) fn agree_on_command<C: Communicator>(world: &C, command: &Command) -> Result<(), Error> {
    let mine = command.agreed_flags();
    let encoded = encode(&mine);
    let root = broadcast_bytes(world, (world.rank() == 0).then(|| encoded.clone()));
    let local = if root == encoded {
        Ok(())
    } else {
        Err(Error::Arguments(difference(&mine, &root)))
    };
    agree(world, local)
}

/// One line per flag, `--flag=value` (values in Rust's quoted form, so no line break is in one).
fn encode(flags: &[(&'static str, String)]) -> Vec<u8> {
    flags
        .iter()
        .map(|(flag, value)| format!("{flag}={value:?}\n"))
        .collect::<String>()
        .into_bytes()
}

/// What differs between this rank's `flags` and rank 0's `root` encoding.
fn difference(flags: &[(&'static str, String)], root: &[u8]) -> String {
    let root = String::from_utf8_lossy(root);
    let theirs: Vec<&str> = root.lines().collect();
    let differing: Vec<String> = flags
        .iter()
        .enumerate()
        .filter_map(|(i, (flag, value))| {
            let here = format!("{flag}={value:?}");
            let there = theirs.get(i).copied().unwrap_or("nothing");
            (here != there).then(|| format!("here {here}, rank 0 {there}"))
        })
        .collect();
    if differing.is_empty() {
        format!("rank 0 gave {} flags, this rank {}", theirs.len(), flags.len())
    } else {
        differing.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_differing_flags_are_named() {
        let here = [("--lanes", "4".to_owned()), ("--log-inv-rate", "1".to_owned())];
        let root = encode(&[("--lanes", "8".to_owned()), ("--log-inv-rate", "1".to_owned())]);
        assert_eq!(
            difference(&here, &root),
            "here --lanes=\"4\", rank 0 --lanes=\"8\""
        );
        assert_eq!(encode(&here), b"--lanes=\"4\"\n--log-inv-rate=\"1\"\n");
        let path = [("--output", "a\nb".to_owned())];
        assert_eq!(encode(&path).iter().filter(|&&b| b == b'\n').count(), 1);
    }
}
