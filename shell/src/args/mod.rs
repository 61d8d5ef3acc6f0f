//! The flags `ntt` and `ntt-mpi` share, defined once: a command flattens these `clap` structs
//! (`#[command(flatten)]`), so the names, short forms, defaults and meanings cannot drift apart
//! between the two binaries (docs/CLI.md).
//!
//! - [`WitnessArgs`] takes the witness file (positional, `-i`/`--input`), `--lanes`,
//!   `--log-inv-rate`, `--layout` and [`ExpansionArgs`] (`--allow-large-expansion`).
//! - [`DomainArgs`] takes `--basis`.
//! - [`EngineArgs`] takes `-j`/`--threads` and `--pin`.
//! - [`TreeArgs`] takes `--tree`, `--hash` and `--cap-height`, and gives the
//!   [`Scheme`](ntt_pcs::Scheme) they name.
//! - [`CommitmentOutputArgs`] takes `-o`/`--output`, the commitment file of `commit`, and
//!   [`JsonArgs`] takes `--json`.
//! - [`parse_rows`] reads `--rows 3,17,4` into a [`RowList`].

mod domain;
mod engine;
mod file;
mod output;
mod rows;
mod tree;
mod witness;

pub use domain::{BasisArg, DomainArgs};
pub use engine::{EngineArgs, PinArg};
pub use file::FileArg;
pub use output::{CommitmentOutputArgs, JsonArgs};
pub use rows::{RowList, parse_rows};
pub use tree::{HashArg, TreeArg, TreeArgs, TreeArgsError};
pub use witness::{ExpansionArgs, Layout, WitnessArgs};

/// An argument list giving every shared flag, short forms where there are some and the witness
/// positionally: `commit` of both binaries accepts it, and so does `open` with `--rows` (and
/// its own `-o`) instead of the last two. The binaries' tests parse it to check that they take
/// the same flags.
pub const SHARED_ARGV: &[&str] = &[
    "w.bin",
    "--lanes",
    "8",
    "--log-inv-rate",
    "2",
    "--layout",
    "rows",
    "--allow-large-expansion",
    "--basis",
    "cantor",
    "-j",
    "2",
    "--pin",
    "pus",
    "--tree",
    "rows",
    "--hash",
    "keccak",
    "--cap-height",
    "1",
    "--json",
    "-o",
    "c.json",
];

/// Every flag the shared structs define, as `--long` and `-s`: the binaries' tests check that
/// their commands take each with the same meaning.
pub fn shared_flags() -> Vec<String> {
    use clap::Args as _;
    let mut command = clap::Command::new("shared");
    command = WitnessArgs::augment_args(command);
    command = EngineArgs::augment_args(command);
    command = DomainArgs::augment_args(command);
    command = TreeArgs::augment_args(command);
    command = CommitmentOutputArgs::augment_args(command);
    command = JsonArgs::augment_args(command);
    flags_of(&command)
}

/// The flags `command` takes, as `--long` and `-s`.
pub fn flags_of(command: &clap::Command) -> Vec<String> {
    command
        .get_arguments()
        .flat_map(|arg| {
            let long = arg.get_long().map(|l| format!("--{l}"));
            let short = arg.get_short().map(|s| format!("-{s}"));
            long.into_iter().chain(short)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shared_flag_is_listed() {
        let flags = shared_flags();
        for flag in [
            "--input",
            "-i",
            "--lanes",
            "--log-inv-rate",
            "--layout",
            "--allow-large-expansion",
            "--basis",
            "--threads",
            "-j",
            "--pin",
            "--tree",
            "--hash",
            "--cap-height",
            "--output",
            "-o",
            "--json",
        ] {
            assert!(flags.iter().any(|f| f == flag), "{flag} in {flags:?}");
        }
        assert_eq!(flags.len(), 16, "{flags:?}");
    }
}
