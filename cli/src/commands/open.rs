//! `ntt open`: commit to a witness and write a proof for some of its codeword rows.

use crate::args::{DomainArgs, EngineArgs, WitnessArgs};
use crate::error::CliError;
use crate::{engine, input};
use clap::Args;
use std::path::PathBuf;

/// Flags of `ntt open`.
#[derive(Debug, Args)]
#[command(after_help = "Example:\n  \
    ntt open --input w.bin --lanes 64 --log-inv-rate 1 --rows 3,17 --output p.bin\n  \
    (prints the root and log-rows that `ntt verify` needs)")]
pub struct OpenArgs {
    #[command(flatten)]
    witness: WitnessArgs,
    /// Codeword rows to open, comma-separated.
    #[arg(long, value_name = "LIST", value_parser = input::parse_rows)]
    rows: input::RowList,
    /// Where to write the proof (the compact binary format of docs/FORMAT.md).
    #[arg(long, value_name = "PROOF")]
    output: PathBuf,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    domain: DomainArgs,
}

pub fn run(args: OpenArgs) -> Result<(), CliError> {
    let w = &args.witness;
    let witness = input::read_words(&w.input)?;
    input::log_message_rows(witness.len(), w.lanes)?;
    let committer = engine::committer_on(args.engine.threads, args.domain.domain())?;
    let (commitment, data) = committer.commit(&witness, w.layout.into(), w.lanes, w.log_inv_rate)?;
    let opening = data.open(&args.rows.0)?;
    input::write_bytes(&args.output, &opening.to_bytes())?;
    println!("root      {}", hex::encode(commitment.root));
    println!("log-rows  {}", commitment.log_rows);
    println!("lanes     {}", commitment.lanes);
    println!("basis     {}", commitment.basis);
    Ok(())
}
