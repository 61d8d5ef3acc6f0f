//! `ntt-mpi`: one commitment computed by the ranks of an MPI job (`mpirun -np P ntt-mpi commit …`),
//! with `ntt commit`'s flags and files; rank 0 prints the root one machine prints.

mod args;
mod output;
mod report;

use std::process::ExitCode;

use clap::Parser;
use mpi::Threading;
use mpi::traits::*;

use args::{Cli, Command};

fn main() -> ExitCode {
    // Usage errors exit 2 here, on every rank, before MPI starts and before any work.
    let cli = Cli::parse();
    let Command::Commit(args) = cli.command;
    if let Err(message) = args.check() {
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
    let code = match report::commit(&world, &args) {
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
