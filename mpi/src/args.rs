//! The command line: `ntt commit`'s flags, the same names and meanings.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use ntt_pcs::{Basis, Domain, Expansion, MessageLayout};

/// One commitment computed by the ranks of an MPI job: run under `mpirun -np P` (P a power of
/// two); rank 0 prints the root `ntt commit` prints on one machine.
#[derive(Debug, Parser)]
#[command(name = "ntt-mpi", version)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Encode and commit a witness, each rank its share of the codeword.
    #[command(after_help = "Example:\n  \
        mpirun -np 4 ntt-mpi commit --input w.bin --lanes 64 --log-inv-rate 2 --json\n  \
        ntt commit --input w.bin --lanes 64 --log-inv-rate 2          # the same root")]
    Commit(CommitArgs),
}

/// How the witness words are arranged (as `ntt commit --layout`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Layout {
    /// Lane-major: lane t is the contiguous block t of the witness.
    Lanes,
    /// Row-major: word `row·lanes + lane`.
    Rows,
}

/// The evaluation domain's basis (as `ntt commit --basis`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BasisArg {
    /// β_j = x^j: row k is evaluated at the integer k.
    Polynomial,
    /// The Cantor basis: Plonky3's additive NTT domain.
    Cantor,
}

/// Flags of `ntt-mpi commit`.
#[derive(Debug, Args)]
pub struct CommitArgs {
    /// Raw little-endian u64 witness words; every rank reads this path (a shared file system, or
    /// the same file on every node).
    #[arg(long, value_name = "FILE")]
    pub input: PathBuf,
    /// Lanes (independent codewords) per row.
    #[arg(long, value_name = "N")]
    pub lanes: usize,
    /// Log2 of the inverse code rate (1 = rate 1/2).
    #[arg(long, value_name = "R")]
    pub log_inv_rate: u32,
    /// Arrangement of the witness words.
    #[arg(long, value_enum, default_value_t = Layout::Lanes)]
    pub layout: Layout,
    /// Allow a log inverse rate above 4 (a codeword more than 16 times the witness).
    #[arg(long)]
    pub allow_large_expansion: bool,
    /// Basis of the evaluation domain.
    #[arg(long, value_enum, default_value_t = BasisArg::Polynomial)]
    pub basis: BasisArg,
    /// Worker threads per rank (default: `NTT_THREADS`, else one per core the rank may use).
    #[arg(long, value_name = "T")]
    pub threads: Option<usize>,
    /// Write the commitment (root, log-rows, lanes, basis) as JSON for `ntt verify --commitment`.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Write the codeword (row-major, little-endian u64) to this file, each rank its own byte
    /// range (a shared file system across nodes).
    #[arg(long, value_name = "FILE")]
    pub save_codeword: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

impl CommitArgs {
    /// What clap cannot check: every rank reads and writes files at offsets, so no `-`.
    pub fn check(&self) -> Result<(), String> {
        let dash = |p: &Option<PathBuf>| p.as_ref().is_some_and(|p| p.as_os_str() == "-");
        if self.input.as_os_str() == "-" || dash(&self.output) || dash(&self.save_codeword) {
            return Err("ntt-mpi reads and writes files at offsets on every rank: `-` (standard input or output) is not supported".to_owned());
        }
        if self.threads == Some(0) {
            return Err("--threads must be at least 1".to_owned());
        }
        Ok(())
    }

    pub fn layout(&self) -> MessageLayout {
        match self.layout {
            Layout::Lanes => MessageLayout::Lanes,
            Layout::Rows => MessageLayout::Rows,
        }
    }

    pub fn layout_name(&self) -> &'static str {
        match self.layout {
            Layout::Lanes => "lanes",
            Layout::Rows => "rows",
        }
    }

    pub fn domain(&self) -> Domain {
        Domain::new(match self.basis {
            BasisArg::Polynomial => Basis::Polynomial,
            BasisArg::Cantor => Basis::Cantor,
        })
    }

    pub fn expansion(&self) -> Expansion {
        if self.allow_large_expansion {
            Expansion::Unbounded
        } else {
            Expansion::Bounded
        }
    }
}
