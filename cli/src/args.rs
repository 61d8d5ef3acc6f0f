//! Flags shared by several commands. One name per concept: `--input`, `--output`, `--lanes`,
//! `--log-inv-rate`, `--log-n`, `--threads`, `--pin`, `--repeat`, `--json` mean the same
//! everywhere, and so do the short forms `-i` (input), `-o` (output) and `-j` (threads). A
//! witness file may also be given positionally (`ntt commit w.bin`).

use crate::files::FileArg;
use clap::{Args, ValueEnum};
use ntt_pcs::{Expansion, MessageLayout};
use ntt_runtime::PinPolicy;

/// How the witness words are arranged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Layout {
    /// Lane-major: lane t is the contiguous block t of the witness.
    Lanes,
    /// Row-major: word `row·lanes + lane`.
    Rows,
}

impl Layout {
    pub fn name(self) -> &'static str {
        match self {
            Self::Lanes => "lanes",
            Self::Rows => "rows",
        }
    }
}

impl From<Layout> for MessageLayout {
    fn from(layout: Layout) -> Self {
        match layout {
            Layout::Lanes => MessageLayout::Lanes,
            Layout::Rows => MessageLayout::Rows,
        }
    }
}

/// The evaluation domain's basis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum BasisArg {
    /// β_j = x^j: row k is evaluated at the integer k.
    #[default]
    Polynomial,
    /// The Cantor basis: Plonky3's additive NTT domain.
    Cantor,
}

impl From<BasisArg> for ntt_pcs::Basis {
    fn from(basis: BasisArg) -> Self {
        match basis {
            BasisArg::Polynomial => ntt_pcs::Basis::Polynomial,
            BasisArg::Cantor => ntt_pcs::Basis::Cantor,
        }
    }
}

/// Where the codeword is evaluated.
#[derive(Clone, Debug, Args)]
pub(crate) struct DomainArgs {
    /// Basis of the evaluation domain.
    #[arg(long, value_enum, default_value_t = BasisArg::Polynomial)]
    pub basis: BasisArg,
}

impl DomainArgs {
    pub(crate) fn domain(&self) -> ntt_pcs::Domain {
        ntt_pcs::Domain::new(self.basis.into())
    }
}

/// How workers are pinned to CPUs (`--pin`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PinArg {
    /// Not bound: the OS schedules the workers (for sharing a machine without `taskset`).
    None,
    /// Each worker bound to one core (its SMT siblings included).
    Cores,
    /// Each worker bound to one PU (hardware thread).
    Pus,
}

impl From<PinArg> for PinPolicy {
    fn from(pin: PinArg) -> Self {
        match pin {
            PinArg::None => PinPolicy::None,
            PinArg::Cores => PinPolicy::Cores,
            PinArg::Pus => PinPolicy::Pus,
        }
    }
}

/// The worker pool and kernels a command runs on.
#[derive(Clone, Copy, Debug, Default, Args)]
pub(crate) struct EngineArgs {
    /// Worker threads (default: `NTT_THREADS`, else one per allowed core).
    #[arg(short = 'j', long, value_name = "T")]
    pub threads: Option<usize>,
    /// Pin workers to cores, to PUs, or not at all (default: `NTT_PIN`, else cores when there
    /// is a core per worker). Two engines on one machine: `taskset` each to its own CPUs, or
    /// `--pin none`.
    #[arg(long, value_enum, value_name = "POLICY")]
    pub pin: Option<PinArg>,
}

impl EngineArgs {
    /// The pinning `--pin` asks for, else `NTT_PIN`'s (`None`: the pool's default).
    ///
    /// # Errors
    /// A malformed `NTT_PIN` (exit code 2).
    pub(crate) fn pin_policy(self) -> Result<Option<PinPolicy>, ntt_runtime::BuildError> {
        match self.pin {
            Some(pin) => Ok(Some(pin.into())),
            None => PinPolicy::from_env(),
        }
    }
}

/// A witness file and how to read it as a message.
#[derive(Clone, Debug, Args)]
pub(crate) struct WitnessArgs {
    /// Raw little-endian u64 words; `-` reads standard input (pipes and `<(...)` work too). The
    /// same as --input.
    #[arg(
        value_name = "FILE",
        required_unless_present = "input",
        conflicts_with = "input"
    )]
    pub input_file: Option<FileArg>,
    /// The witness file, as the positional FILE.
    #[arg(short, long, value_name = "FILE")]
    pub input: Option<FileArg>,
    /// Lanes (independent codewords) per row.
    #[arg(long, value_name = "N")]
    pub lanes: usize,
    /// Log2 of the inverse code rate (1 = rate 1/2).
    #[arg(long, value_name = "R")]
    pub log_inv_rate: u32,
    /// Arrangement of the witness words.
    #[arg(long, value_enum, default_value_t = Layout::Lanes)]
    pub layout: Layout,
    #[command(flatten)]
    pub expansion: ExpansionArgs,
}

impl WitnessArgs {
    /// The witness file, given positionally or with --input (clap requires one of them).
    pub(crate) fn input(&self) -> &FileArg {
        self.input_file
            .as_ref()
            .or(self.input.as_ref())
            .expect("clap requires FILE or --input")
    }
}

/// Whether a codeword may be more than 16 times its witness.
#[derive(Clone, Copy, Debug, Args)]
pub(crate) struct ExpansionArgs {
    /// Allow a log inverse rate above 4 (a codeword more than 16 times the witness).
    #[arg(long)]
    pub allow_large_expansion: bool,
}

impl ExpansionArgs {
    /// The library's setting for the flag.
    pub(crate) fn expansion(self) -> Expansion {
        if self.allow_large_expansion {
            Expansion::Unbounded
        } else {
            Expansion::Bounded
        }
    }
}

/// `--json`: one JSON object (docs/CLI.md) instead of text.
#[derive(Clone, Copy, Debug, Args)]
pub(crate) struct JsonArgs {
    /// Print one JSON object instead of text (keys in docs/CLI.md).
    #[arg(long)]
    pub json: bool,
}
