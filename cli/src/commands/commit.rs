//! `ntt commit`: encode and commit a witness, report the root and the stage times.

use crate::args::{DomainArgs, EngineArgs, Layout};
use crate::error::CliError;
use crate::stats::Spread;
use crate::{engine, input, progress, workload};
use clap::Args;
use ntt_pcs::{MessageLayout, ProverData, Shape};
use serde::Serialize;
use std::path::PathBuf;

/// Flags of `ntt commit`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    ntt commit                                  # the built-in 2^22-word workload\n  \
    ntt commit --repeat 10 --threads 1 --json\n  \
    ntt commit --input w.bin --lanes 64 --log-inv-rate 2 --save-codeword c.bin")]
pub struct CommitArgs {
    /// Raw little-endian u64 witness words (default: a seeded random 2^22-word witness).
    #[arg(long, value_name = "FILE")]
    input: Option<PathBuf>,
    /// Arrangement of the witness words.
    #[arg(long, value_enum, default_value_t = Layout::Lanes)]
    layout: Layout,
    /// Lanes (independent codewords) per row.
    #[arg(long, value_name = "N", default_value_t = workload::DEFAULT_LANES)]
    lanes: usize,
    /// Log2 of the inverse code rate (1 = rate 1/2).
    #[arg(long, value_name = "R", default_value_t = workload::DEFAULT_LOG_INV_RATE)]
    log_inv_rate: u32,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    domain: DomainArgs,
    /// Commit this many times, reusing the buffers, and report median, min and max.
    #[arg(long, value_name = "K", default_value_t = 1)]
    repeat: usize,
    /// Write the codeword (row-major, little-endian u64) to this file.
    #[arg(long, value_name = "FILE")]
    save_codeword: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Times {
    encode: f64,
    hash: f64,
    total: f64,
}

#[derive(Serialize)]
struct Report {
    root: String,
    log_rows: u32,
    lanes: usize,
    log_inv_rate: u32,
    basis: ntt_pcs::BasisName,
    threads: usize,
    backend: String,
    layout: &'static str,
    witness_words: usize,
    repeat: usize,
    plan: String,
    times_ms: Times,
    spread_ms: SpreadReport,
    gib_per_s: f64,
}

#[derive(Serialize)]
struct SpreadReport {
    encode: Spread,
    hash: Spread,
    total: Spread,
}

pub fn run(args: CommitArgs) -> Result<(), CliError> {
    if args.repeat == 0 {
        return Err(CliError::Input("--repeat must be at least 1".to_owned()));
    }
    let witness = match &args.input {
        Some(path) => input::read_words(path)?,
        None => workload::witness(workload::DEFAULT_LOG_WORDS, workload::DEFAULT_SEED),
    };
    let log_msg_rows = input::log_message_rows(witness.len(), args.lanes)?;
    let layout: MessageLayout = args.layout.into();
    let committer = engine::committer_on(args.engine.threads, args.domain.domain())?;
    let shape = Shape {
        log_rows: log_msg_rows + args.log_inv_rate,
        lanes: args.lanes,
        log_inv_rate: args.log_inv_rate,
    };
    let plan = committer.encoder().plan(shape, layout)?;

    let bar = progress::bar(args.repeat as u64, args.json, "committing");
    let mut samples = Vec::with_capacity(args.repeat);
    let mut kept: Option<ProverData> = None;
    let mut commitment = None;
    for _ in 0..args.repeat {
        let (c, data) = match kept.take() {
            Some(reuse) => {
                committer.commit_reusing(&witness, layout, args.lanes, args.log_inv_rate, reuse)?
            }
            None => committer.commit(&witness, layout, args.lanes, args.log_inv_rate)?,
        };
        samples.push(data.timings());
        commitment = Some(c);
        kept = Some(data);
        bar.inc(1);
    }
    bar.finish_and_clear();
    let commitment = commitment.expect("at least one repeat ran");
    let data = kept.expect("at least one repeat ran");
    if let Some(path) = &args.save_codeword {
        input::write_words(path, data.codeword())?;
    }

    let spread = SpreadReport {
        encode: Spread::of(&samples.iter().map(|t| t.encode).collect::<Vec<_>>()),
        hash: Spread::of(&samples.iter().map(|t| t.hash).collect::<Vec<_>>()),
        total: Spread::of(&samples.iter().map(|t| t.total).collect::<Vec<_>>()),
    };
    let witness_bytes = (witness.len() * 8) as f64;
    let report = Report {
        root: hex::encode(commitment.root),
        log_rows: shape.log_rows,
        lanes: args.lanes,
        log_inv_rate: args.log_inv_rate,
        basis: commitment.basis,
        threads: committer.encoder().pool().num_workers(),
        backend: format!("{:?}", committer.encoder().backend().kind()).to_lowercase(),
        layout: match args.layout {
            Layout::Lanes => "lanes",
            Layout::Rows => "rows",
        },
        witness_words: witness.len(),
        repeat: args.repeat,
        plan: plan.summary(),
        times_ms: Times {
            encode: spread.encode.median,
            hash: spread.hash.median,
            total: spread.total.median,
        },
        gib_per_s: witness_bytes / (1u64 << 30) as f64 / (spread.total.median / 1e3),
        spread_ms: spread,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_text(&report);
    }
    Ok(())
}

fn print_text(r: &Report) {
    println!("root        {}", r.root);
    println!(
        "shape       2^{} rows x {} lanes, rate 1/2^{}, {} witness words ({} layout)",
        r.log_rows, r.lanes, r.log_inv_rate, r.witness_words, r.layout
    );
    println!("basis       {}", r.basis);
    println!("engine      {} threads, {} backend", r.threads, r.backend);
    println!("plan        {}", r.plan);
    let line = |name: &str, s: &Spread| {
        if r.repeat > 1 {
            println!(
                "{name:<11} {:>9.3} ms  (median of {}; min {:.3}, max {:.3})",
                s.median, r.repeat, s.min, s.max
            );
        } else {
            println!("{name:<11} {:>9.3} ms", s.median);
        }
    };
    line("encode", &r.spread_ms.encode);
    line("hash", &r.spread_ms.hash);
    line("total", &r.spread_ms.total);
    println!("throughput  {:.3} GiB/s of committed data", r.gib_per_s);
}
