//! `ntt encode`: write the Reed-Solomon codeword of a witness.

use crate::error::CliError;
use crate::files::{self, FileArg};
use crate::{engine, input, report};
use clap::Args;
use ntt_pcs::memory;
use ntt_pcs::{CommitParams, Shape};
use ntt_shell::args::{DomainArgs, EngineArgs, JsonArgs, WitnessArgs};
use serde::Serialize;
use std::mem::MaybeUninit;
use std::time::Instant;

/// Flags of `ntt encode`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    ntt encode --input w.bin --lanes 64 --log-inv-rate 1 --output c.bin\n  \
    ntt witness --log-n 10 --output - | ntt encode --input - --lanes 4 --log-inv-rate 1 --output c.bin")]
pub(crate) struct EncodeArgs {
    #[command(flatten)]
    witness: WitnessArgs,
    /// Where to write the codeword (row-major, little-endian u64); `-` for standard output
    /// (the report then goes to standard error).
    #[arg(short, long, value_name = "FILE")]
    output: FileArg,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    domain: DomainArgs,
    #[command(flatten)]
    json: JsonArgs,
}

#[derive(Serialize)]
struct Report {
    output: String,
    basis: ntt_pcs::BasisName,
    log_rows: u32,
    lanes: usize,
    log_inv_rate: u32,
    threads: usize,
    /// How the workers are pinned: none, cores or pus.
    pin: &'static str,
    codeword_words: usize,
    encode_ms: f64,
}

pub(crate) fn run(args: EncodeArgs) -> Result<(), CliError> {
    let w = &args.witness;
    files::distinct(
        &[("--output", Some(&args.output))],
        &[("--input", Some(w.input()))],
    )?;
    let witness = input::read_words(w.input())?;
    let shape = Shape::of_witness(witness.len(), w.lanes, w.log_inv_rate, w.expansion.expansion())?;
    memory::ensure_available("the codeword", shape.codeword_bytes())?;
    let encoder = engine::encoder(args.engine)?.with_domain(args.domain.domain());
    let words = shape.codeword_words();
    let mut codeword: Vec<MaybeUninit<u64>> = Vec::new();
    codeword
        .try_reserve_exact(words)
        .map_err(|_| CliError::Allocation(shape.codeword_bytes()))?;
    codeword.resize(words, MaybeUninit::uninit());
    let start = Instant::now();
    encoder.encode(
        &witness,
        &mut codeword,
        CommitParams::lanes(w.lanes)
            .log_inv_rate(w.log_inv_rate)
            .layout(w.layout.into()),
        None,
    )?;
    let encode_ms = crate::report::ms(start.elapsed());
    // SAFETY: a successful encode wrote every word of the codeword; `MaybeUninit<u64>` and `u64`
    // have the same size and alignment.
    let codeword: &[u64] = unsafe { std::slice::from_raw_parts(codeword.as_ptr().cast(), codeword.len()) };
    files::write_words(&args.output, codeword)?;

    let report = Report {
        output: args.output.to_string(),
        basis: encoder.domain().basis().name(),
        log_rows: shape.log_rows(),
        lanes: w.lanes,
        log_inv_rate: w.log_inv_rate,
        threads: encoder.pool().num_workers(),
        pin: encoder.pool().pin_policy().name(),
        codeword_words: words,
        encode_ms,
    };
    let text = if args.json.json {
        report::json(&report)?
    } else {
        format!(
            "wrote 2^{} rows x {} ({} bytes) to {} in {:.3} ms\n",
            report.log_rows,
            crate::report::count(report.lanes, "lane"),
            words as u128 * 8,
            args.output.sink_name(),
            encode_ms
        )
    };
    if args.output.is_std() {
        eprint!("{text}");
        Ok(())
    } else {
        files::print(&text)
    }
}
