//! `ntt verify`: check an opening proof against a root and print the opened rows.

use crate::error::CliError;
use crate::input;
use clap::Args;
use ntt_pcs::{Commitment, Opening};
use std::path::PathBuf;

/// Flags of `ntt verify`.
#[derive(Debug, Args)]
#[command(after_help = "Example:\n  \
    ntt verify --root 5e1f...c3 --lanes 64 --log-rows 17 --rows 3,17 --proof p.bin\n\
    Exit status: 0 when the proof holds, 1 when it does not, 2 for bad input.")]
pub struct VerifyArgs {
    /// The commitment root, 64 hex digits.
    #[arg(long, value_name = "HEX", value_parser = input::parse_root)]
    root: [u8; 32],
    /// Lanes per row.
    #[arg(long, value_name = "N")]
    lanes: usize,
    /// Log2 of the codeword row count.
    #[arg(long, value_name = "D")]
    log_rows: u32,
    /// The opened rows, comma-separated, as given to `ntt open`.
    #[arg(long, value_name = "LIST", value_parser = input::parse_rows)]
    rows: input::RowList,
    /// The proof file written by `ntt open`.
    #[arg(long, value_name = "PROOF")]
    proof: PathBuf,
}

pub fn run(args: VerifyArgs) -> Result<(), CliError> {
    let bytes = input::read_bytes(&args.proof)?;
    let opening = Opening::from_bytes(&bytes)?;
    let commitment = Commitment {
        root: args.root,
        log_rows: args.log_rows,
        lanes: args.lanes,
        basis: Default::default(),
    };
    let rows = ntt_pcs::verify(&commitment, &args.rows.0, &opening)?;
    println!("proof holds for {} row(s)", rows.len());
    for (index, row) in args.rows.0.iter().zip(&rows) {
        let words: Vec<String> = row.iter().map(|w| format!("{w:016x}")).collect();
        println!("row {index}: {}", words.join(" "));
    }
    Ok(())
}
