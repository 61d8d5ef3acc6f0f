//! The `ntt` command line: commit, encode, open/verify, witnesses, the topology report, plan
//! explanations and tuning.

mod commands;
mod commitment_file;
mod engine;
mod error;
mod files;
mod input;
mod memory;
mod progress;
mod report;
mod stats;
mod touch_report;
mod tune;
mod what_if;
mod workload;

use clap::{Parser, Subcommand};
use error::CliError;
use std::process::ExitCode;

/// ntt: Reed-Solomon commitments to witnesses over GF(2^64), for binary-field SNARK provers.
///
/// ntt encodes a witness (raw little-endian u64 words, in lanes) with an additive NTT over
/// GF(2^64) and commits to the codeword with BLAKE3, hashing rows while they are still in cache;
/// it opens codeword rows with a proof and verifies such proofs. It also reports how it sees the
/// machine (caches, workers, plans) and measures which planner settings run fastest here.
///
/// Every file argument takes `-` for standard input or output. `--json` prints one versioned
/// JSON object (docs/CLI.md). Exit status: 0 success, 1 a proof that does not hold, 2 bad input,
/// 3 I/O or system failure.
#[derive(Debug, Parser)]
#[command(name = "ntt", version, propagate_version = true)]
#[command(
    after_help = "Environment (every NTT_* variable ntt reads; README lists their values):
  NTT_THREADS       worker threads (--threads overrides it)
  NTT_PIN           none|cores|pus: how workers are pinned (--pin overrides it)
  NTT_IDLE_SPIN_US  microseconds an idle worker looks for work before it parks
  NTT_BACKEND       the kernel backend (portable, pclmul, avx2, avx512, neon)
  NTT_COLUMNS       where the kernels start a row's full columns
  NTT_TOPOLOGY      sysfs|defaults; xml:FILE or synthetic:… plans for another machine
  NTT_WISDOM        the wisdom file (`off` reads none)
  NTT_HUGE_PAGES    auto|always|never: the pages of fresh buffers
  NTT_FIRST_TOUCH   populate|write|passes: who faults in a fresh buffer
  NTT_LOG           a tracing filter: NTT_LOG=info times each stage, =debug each pass too"
)]
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
    /// Check an opening proof against a commitment; print the rows when it holds.
    Verify(commands::verify::VerifyArgs),
    /// Write a seeded pseudo-random witness file.
    Witness(commands::witness::WitnessArgs),
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

/// `NTT_LOG` (a `tracing` filter, e.g. `debug` or `ntt_pcs=trace`) prints on stderr one line
/// per closed span with its time: the commit's stages and the encoder's passes.
///
/// # Errors
/// An `NTT_LOG` that is not UTF-8 or not a filter (exit code 2, as every `NTT_*` variable).
fn init_logging() -> Result<(), CliError> {
    use tracing_subscriber::EnvFilter;
    use tracing_subscriber::filter::LevelFilter;
    use tracing_subscriber::fmt::format::FmtSpan;
    let spec = ntt_runtime::env::var(LOG_ENV)
        .map_err(|e| CliError::Input(e.to_string()))?
        .unwrap_or_default();
    // As `EnvFilter::from_env` reads an unset variable: errors only.
    let filter = EnvFilter::builder()
        .with_default_directive(LevelFilter::ERROR.into())
        .parse(&spec)
        .map_err(|e| CliError::Input(format!("{LOG_ENV}={spec:?}: not a tracing filter: {e}")))?;
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_span_events(FmtSpan::CLOSE)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr)
        .init();
    Ok(())
}

/// The variable `init_logging` reads.
const LOG_ENV: &str = "NTT_LOG";

fn run(command: Command) -> Result<(), CliError> {
    match command {
        Command::Commit(args) => commands::commit::run(args),
        Command::Encode(args) => commands::encode::run(args),
        Command::Open(args) => commands::open::run(args),
        Command::Verify(args) => commands::verify::run(args),
        Command::Witness(args) => commands::witness::run(args),
        Command::Topology(args) => commands::topology::run(args),
        Command::Plan(args) => commands::plan::run(args),
        Command::Tune(args) => commands::tune::run(args),
    }
}

fn main() -> ExitCode {
    default_sigpipe();
    if let Err(e) = ntt_shell::remove_temporaries_on_signals() {
        eprintln!(
            "warning: cannot watch for SIGINT and SIGTERM ({e}); an interrupted write may leave a temporary file"
        );
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage(&e),
    };
    let checked = init_logging()
        .and_then(|()| ntt_shell::environment::check().map_err(|e| CliError::Input(e.to_string())));
    if let Err(err) = checked {
        eprintln!("error: {err}");
        return ExitCode::from(err.exit_code());
    }
    // A panic is a bug in the engine, never the user's input: report it as an internal failure
    // (the panic message is already on stderr) rather than with Rust's 101.
    let result = std::panic::catch_unwind(|| run(cli.command)).unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".to_owned());
        Err(CliError::Internal(what))
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(err.exit_code())
        }
    }
}

/// Help and version go to stdout (a failed write is an I/O failure, 3); usage errors go to
/// stderr with clap's exit code (2).
fn usage(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        return match files::print(&e.render().to_string()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                eprintln!("error: {err}");
                ExitCode::from(err.exit_code())
            }
        };
    }
    let _ = e.print();
    ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(error::EXIT_BAD_INPUT))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    /// The flags `ntt-mpi commit` and `ntt-mpi open` take too, from the same definitions.
    #[test]
    fn commit_and_open_take_the_shared_flags() {
        use ntt_shell::args::SHARED_ARGV;
        let command = Cli::command();
        for name in ["commit", "open"] {
            let flags = ntt_shell::args::flags_of(command.find_subcommand(name).unwrap());
            for flag in ntt_shell::args::shared_flags() {
                assert!(flags.contains(&flag), "ntt {name} lacks {flag}");
            }
        }
        let parse = |argv: &[&str]| Cli::try_parse_from(["ntt"].iter().chain(argv)).map(|cli| cli.command);
        assert!(matches!(
            parse(&[&["commit"], SHARED_ARGV].concat()),
            Ok(Command::Commit(_))
        ));
        let shared = &SHARED_ARGV[..SHARED_ARGV.len() - 2];
        let open = parse(&[&["open"], shared, &["--rows", "3,17", "-o", "p.bin"]].concat());
        assert!(matches!(open, Ok(Command::Open(_))), "{open:?}");
    }

    #[test]
    fn internal_errors_exit_3() {
        assert_eq!(CliError::Internal("x".into()).exit_code(), error::EXIT_FAILURE);
    }
}
