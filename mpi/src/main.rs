//! `ntt-mpi`: one commitment computed by the ranks of an MPI job (`mpirun -np P ntt-mpi commit …`),
//! with `ntt commit`'s flags and files; rank 0 prints the root one machine prints. `open` writes
//! the proof `ntt open` writes.

mod args;
mod broadcast;
mod output;
mod report;
mod same_command;

use std::process::ExitCode;

use clap::Parser;
use mpi::Threading;
use mpi::traits::*;

use args::{Cli, Command};

fn main() -> ExitCode {
    // As `ntt`: SIGINT and SIGTERM remove this rank's temporaries and exit 130 and 143.
    if let Err(e) = ntt_shell::remove_temporaries_on_signals() {
        eprintln!(
            "ntt-mpi: warning: cannot watch for SIGINT and SIGTERM ({e}); an interrupted write may leave a temporary file"
        );
    }
    // Usage errors, overlapping files and malformed NTT_* variables exit 2 here, on every rank,
    // before MPI starts and before any work.
    let cli = Cli::parse();
    let checked = cli
        .command
        .check()
        .and_then(|()| ntt_shell::environment::check().map_err(|e| e.to_string()));
    if let Err(message) = checked {
        eprintln!("ntt-mpi: error: {message}");
        return ExitCode::from(2);
    }
    // Only the main thread calls MPI; the engine's workers never do.
    let Some((universe, _)) = mpi::initialize_with_threading(Threading::Funneled) else {
        eprintln!("ntt-mpi: error: MPI could not be initialised (or was already)");
        return ExitCode::from(3);
    };
    let world = universe.world();
    let rank = world.rank();
    let done = same_command::agree_on_command(&world, &cli.command).and_then(|()| match &cli.command {
        Command::Commit(args) => report::commit(&world, args),
        Command::Open(args) => report::open(&world, args),
    });
    let code = match done {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("ntt-mpi: rank {rank}: error: {e}");
            e.exit_code()
        }
    };
    // Every rank reaches here after the same agreements, so all finalize together.
    drop(universe);
    ExitCode::from(code)
}
