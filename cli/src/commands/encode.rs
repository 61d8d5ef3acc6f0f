//! `ntt encode`: write the Reed-Solomon codeword of a witness.

use crate::args::{DomainArgs, EngineArgs, WitnessArgs};
use crate::error::CliError;
use crate::{engine, input};
use clap::Args;
use std::mem::MaybeUninit;
use std::path::PathBuf;

/// Flags of `ntt encode`.
#[derive(Debug, Args)]
#[command(after_help = "Example:\n  ntt encode --input w.bin --lanes 64 --log-inv-rate 1 --output c.bin")]
pub struct EncodeArgs {
    #[command(flatten)]
    witness: WitnessArgs,
    /// Where to write the codeword (row-major, little-endian u64).
    #[arg(long, value_name = "FILE")]
    output: PathBuf,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    domain: DomainArgs,
}

pub fn run(args: EncodeArgs) -> Result<(), CliError> {
    let w = &args.witness;
    let witness = input::read_words(&w.input)?;
    input::log_message_rows(witness.len(), w.lanes)?;
    let words = witness
        .len()
        .checked_shl(w.log_inv_rate)
        .filter(|&n| n >> w.log_inv_rate == witness.len())
        .ok_or_else(|| CliError::Input(format!("--log-inv-rate {} is too large", w.log_inv_rate)))?;
    let encoder = engine::encoder(args.engine.threads)?.with_domain(args.domain.domain());
    let mut codeword: Vec<MaybeUninit<u64>> = Vec::with_capacity(words);
    codeword.resize(words, MaybeUninit::uninit());
    encoder.encode(
        &witness,
        w.layout.into(),
        &mut codeword,
        w.lanes,
        w.log_inv_rate,
        None,
    )?;
    let codeword: Vec<u64> = codeword
        .into_iter()
        // SAFETY: a successful encode wrote every word of the codeword.
        .map(|word| unsafe { word.assume_init() })
        .collect();
    input::write_words(&args.output, &codeword)
}
