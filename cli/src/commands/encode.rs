//! `ntt encode`: write the Reed-Solomon codeword of a witness.

use crate::args::{EngineArgs, WitnessArgs};
use crate::error::CliError;
use crate::{engine, input};
use clap::Args;
use ntt_pcs::Shape;
use ntt_pcs::shape::memory;
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
}

pub fn run(args: EncodeArgs) -> Result<(), CliError> {
    let w = &args.witness;
    let witness = input::read_words(&w.input)?;
    let shape = Shape::of_witness(witness.len(), w.lanes, w.log_inv_rate, w.expansion.expansion())?;
    memory::ensure_available("the codeword", shape.codeword_bytes())?;
    let encoder = engine::encoder(args.engine.threads)?;
    let words = shape.codeword_words();
    let mut codeword: Vec<MaybeUninit<u64>> = Vec::new();
    codeword
        .try_reserve_exact(words)
        .map_err(|_| CliError::Allocation(shape.codeword_bytes()))?;
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
