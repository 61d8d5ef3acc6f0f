//! The witness file and how to read it as a message: the file, `--lanes`, `--log-inv-rate`,
//! `--layout` and `--allow-large-expansion`.

use clap::{Args, ValueEnum};
use ntt_pcs::{Expansion, MessageLayout};

use super::FileArg;

/// How the witness words are arranged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Layout {
    /// Lane-major: lane t is the contiguous block t of the witness.
    Lanes,
    /// Row-major: word `row·lanes + lane`.
    Rows,
}

impl Layout {
    /// The name reports give it (as the flag's value).
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

/// A witness file and how to read it as a message.
#[derive(Clone, Debug, Args)]
pub struct WitnessArgs {
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
    #[allow(missing_docs)]
    pub expansion: ExpansionArgs,
}

impl WitnessArgs {
    /// The witness file, given positionally or with --input (clap requires one of them).
    pub fn input(&self) -> &FileArg {
        self.input_file
            .as_ref()
            .or(self.input.as_ref())
            .expect("clap requires FILE or --input")
    }
}

/// Whether a codeword may be more than 16 times its witness.
#[derive(Clone, Copy, Debug, Args)]
pub struct ExpansionArgs {
    /// Allow a log inverse rate above 4 (a codeword more than 16 times the witness).
    #[arg(long)]
    pub allow_large_expansion: bool,
}

impl ExpansionArgs {
    /// The library's setting for the flag.
    pub fn expansion(self) -> Expansion {
        if self.allow_large_expansion {
            Expansion::Unbounded
        } else {
            Expansion::Bounded
        }
    }
}
