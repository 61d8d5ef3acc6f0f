//! What the `ntt` and `ntt-mpi` commands share about the files and the environment they are
//! given, so that both follow one set of rules (docs/CLI.md):
//!
//! - [`args`]: the flags both take (the witness, the domain, the engine, the tree, the
//!   commitment file, `--json`), defined once as `clap` structs each flattens.
//! - [`write_atomically`]: an output written by one process, whole or not at all, through a file
//!   with no name (Linux `O_TMPFILE`) or an unguessable one, never following a planted link.
//! - [`SharedOutput`]: an output several processes (the ranks of an MPI job) write at offsets,
//!   through an unguessable temporary one of them creates, renamed by it when all are done.
//! - [`remove_temporaries_on_signals`]: SIGINT and SIGTERM remove the temporaries of outputs
//!   being written and end the process with 130 and 143.
//! - [`refuse_overlaps`]: two outputs on one file, or an output on an input, refused before any
//!   work.
//! - [`environment::check`]: every `NTT_*` variable valid, or named in the error.
//! - [`millis`]: times in milliseconds, rounded to the microsecond, as both JSON reports print
//!   them.
//! - [`commitment_file`]: the commitment file both write and `ntt verify` reads, and
//!   [`unique_keys`], the JSON reader that refuses a key given twice.
//!
//! The rule for modes and links is the same everywhere: a new file gets mode 0666 less the
//! umask, a replaced file keeps its permission bits, a symbolic link is followed (the file it
//! names is replaced, the link stays), and a hard link is not.

#![deny(missing_docs)]

#[cfg(target_os = "linux")]
mod anonymous;
pub mod args;
mod atomic;
pub mod commitment_file;
pub mod environment;
pub mod millis;
mod same_file;
mod shared;
mod target;
mod temporaries;
mod tree_report;
pub mod unique_keys;
mod wisdom;

pub use atomic::write_atomically;
pub use same_file::{Overlap, refuse_overlaps};
pub use shared::SharedOutput;
pub use temporaries::remove_temporaries_on_signals;
pub use tree_report::TreeReport;
pub use wisdom::with_machine_wisdom;
