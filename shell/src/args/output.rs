//! `-o`/`--output` of `commit` and `--json`: what a command writes and prints.

use clap::Args;

use super::FileArg;

/// `--json`: one JSON object (docs/CLI.md) instead of text.
#[derive(Clone, Copy, Debug, Args)]
pub struct JsonArgs {
    /// Print one JSON object instead of text (keys in docs/CLI.md).
    #[arg(long)]
    pub json: bool,
}

/// `commit`'s `-o`/`--output`: the commitment file `ntt verify --commitment` reads, written
/// through [`commitment_file`](crate::commitment_file).
#[derive(Clone, Debug, Args)]
pub struct CommitmentOutputArgs {
    /// Write the commitment file `ntt verify --commitment` reads (as `open --commitment`); `-`
    /// for standard output (the report then goes to standard error).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<FileArg>,
}
