//! `ntt witness`: write a seeded pseudo-random witness file for the other commands.

use crate::commands::plan::shape_for;
use crate::error::CliError;
use crate::files::{self, FileArg};
use crate::{report, workload};
use clap::Args;
use ntt_shell::args::JsonArgs;
use serde::Serialize;

/// Flags of `ntt witness`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    ntt witness --log-n 16 --lanes 64 --seed 1 --output w.bin\n  \
    ntt witness --log-n 22 --output w.bin    # the witness `ntt commit` uses by default")]
pub(crate) struct WitnessArgs {
    /// Log2 of the witness size in words.
    #[arg(long, value_name = "N")]
    log_n: u32,
    /// Lanes the witness is meant for: a power of two no larger than 2^log-n, so that it comes
    /// out as whole rows.
    #[arg(long, value_name = "N", default_value_t = workload::DEFAULT_LANES)]
    lanes: usize,
    /// Seed of the pseudo-random words (ChaCha8); the same seed gives the same file everywhere.
    #[arg(long, value_name = "S", default_value_t = workload::DEFAULT_SEED)]
    seed: u64,
    /// Where to write the words (little-endian u64); `-` for standard output (the report then
    /// goes to standard error).
    #[arg(short, long, value_name = "FILE")]
    output: FileArg,
    #[command(flatten)]
    json: JsonArgs,
}

/// Largest witness the command writes: 2^32 words, 32 GiB.
const MAX_LOG_N: u32 = 32;

#[derive(Serialize)]
struct Report {
    output: String,
    log_n: u32,
    words: usize,
    lanes: usize,
    seed: u64,
}

pub(crate) fn run(args: WitnessArgs) -> Result<(), CliError> {
    if args.log_n > MAX_LOG_N {
        return Err(CliError::Input(format!(
            "--log-n {} is more than the {MAX_LOG_N} this command writes (2^{MAX_LOG_N} words, 32 GiB)",
            args.log_n
        )));
    }
    shape_for(args.log_n, args.lanes, 0, ntt_pcs::Expansion::Bounded)?;
    files::write_output(&args.output, |out| {
        workload::write_witness(args.log_n, args.seed, out)
    })?;
    let words = 1usize << args.log_n;
    let report = Report {
        output: args.output.to_string(),
        log_n: args.log_n,
        words,
        lanes: args.lanes,
        seed: args.seed,
    };
    let text = if args.json.json {
        report::json(&report)?
    } else {
        format!(
            "wrote 2^{} words ({} bytes; {} of {}) to {}\n",
            args.log_n,
            words * 8,
            report::count(words / args.lanes, "row"),
            report::count(args.lanes, "lane"),
            args.output.sink_name()
        )
    };
    if args.output.is_std() {
        eprint!("{text}");
        Ok(())
    } else {
        files::print(&text)
    }
}
