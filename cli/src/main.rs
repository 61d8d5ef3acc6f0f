//! The `ntt` command line: commit, encode, open/verify, the topology report and plan explanations.

mod args;
mod commands;
mod engine;
mod error;
mod input;
mod progress;
mod stats;
mod tune;
mod what_if;
mod workload;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// ntt-engine: Reed-Solomon commitments over GF(2^64) by additive NTT and streaming BLAKE3.
#[derive(Debug, Parser)]
#[command(version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Encode and commit a witness (default: a built-in 2^22-word workload); print root and stage times.
    Commit(commands::commit::CommitArgs),
    /// Write the Reed-Solomon codeword of a witness.
    Encode(commands::encode::EncodeArgs),
    /// Commit to a witness and write an opening proof for some codeword rows.
    Open(commands::open::OpenArgs),
    /// Check an opening proof against a root; print the rows when it holds.
    Verify(commands::verify::VerifyArgs),
    /// Report the cache topology, the workers' budgets and the plans they lead to.
    Topology(commands::topology::TopologyArgs),
    /// Explain the plan for a shape.
    Plan(commands::plan::PlanArgs),
    /// Measure which cache budgets and plan families run fastest here; optionally save them as wisdom.
    Tune(commands::tune::TuneArgs),
}

/// Lets `ntt ... | head` end quietly, as other Unix tools do, instead of failing on a closed pipe.
fn default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in `main`, before any other thread exists; SIG_DFL is a valid
    // disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    default_sigpipe();
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("NTT_LOG"))
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Commit(args) => commands::commit::run(args),
        Command::Encode(args) => commands::encode::run(args),
        Command::Open(args) => commands::open::run(args),
        Command::Verify(args) => commands::verify::run(args),
        Command::Topology(args) => commands::topology::run(args),
        Command::Plan(args) => commands::plan::run(args),
        Command::Tune(args) => commands::tune::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(u8::try_from(err.exit_code()).unwrap_or(2))
        }
    }
}
