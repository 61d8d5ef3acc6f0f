//! `ntt-mpi commit`: set up each rank, commit, write the files, and print rank 0's report with
//! every rank's time, traffic and peak memory.

use std::fmt::Write as _;
use std::time::Duration;

use mpi::traits::*;
use ntt_kernels::Backend;
use ntt_mpi::{Error, RankCommit, WitnessFile, agree};
use ntt_pcs::{CommitParams, Encoder, SetupError};
use ntt_shell::TreeReport;
use serde::Serialize;

use crate::args::{CommitArgs, JobArgs, OpenArgs};
use crate::output;

/// The version of the JSON printed (as `ntt --json`): keys may be added without a bump.
const JSON_VERSION: u32 = 1;

#[derive(Serialize)]
struct Versioned<'a, T: Serialize> {
    version: u32,
    #[serde(flatten)]
    body: &'a T,
}

fn json<T: Serialize>(body: &T) -> String {
    serde_json::to_string_pretty(&Versioned {
        version: JSON_VERSION,
        body,
    })
    .expect("reports serialize")
        + "\n"
}

#[derive(Clone, Copy, Serialize)]
struct Times {
    read: f64,
    encode: f64,
    exchange: f64,
    total: f64,
}

#[derive(Serialize)]
struct RankReport {
    rank: usize,
    first_row: u64,
    threads: u64,
    witness_bytes_read: u64,
    bytes_sent: u64,
    bytes_received: u64,
    peak_rss_bytes: u64,
    times_ms: Times,
}

#[derive(Serialize)]
struct Report {
    /// The root, or a row tree's first cap digest.
    root: String,
    #[serde(flatten)]
    tree: TreeReport,
    log_rows: u32,
    lanes: usize,
    log_inv_rate: u32,
    basis: ntt_pcs::BasisName,
    layout: &'static str,
    witness_words: usize,
    ranks: usize,
    /// Log2 of the rows each rank owns.
    log_share_rows: u32,
    /// How many times each rank's message was halved (0: whole cosets per rank).
    log_fold: u32,
    backend: String,
    /// The slowest rank's time per stage.
    times_ms: Times,
    per_rank: Vec<RankReport>,
}

/// Peak resident memory of this process (`VmHWM`), in bytes; 0 where unknown.
fn peak_rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(0, |kib| kib * 1024)
}

/// This rank's engine: its pool as `--threads`, `--pin`, `NTT_THREADS` and `NTT_PIN` ask (as
/// `ntt` builds its own), and `NTT_BACKEND`'s kernels.
fn encoder(args: &JobArgs) -> Result<Encoder, Error> {
    let backend = Backend::from_env().map_err(SetupError::Backend)?;
    let encoder = args
        .engine
        .encoder_builder(backend)
        .map_err(SetupError::Pool)?
        .build()?;
    // Plan with this node's wisdom where it has some, as `ntt commit` does.
    let (encoder, _) = ntt_shell::with_machine_wisdom(encoder);
    Ok(encoder.with_domain(args.domain.domain()))
}

/// The stats of one rank, as words for the gather.
const STAT_WORDS: usize = 9;

fn stats(mine: &RankCommit, threads: usize) -> [u64; STAT_WORDS] {
    let ns = |d: Duration| d.as_nanos() as u64;
    let t = &mine.timings;
    [
        threads as u64,
        mine.words_read * 8,
        mine.traffic.sent,
        mine.traffic.received,
        peak_rss_bytes(),
        ns(t.read),
        ns(t.encode),
        ns(t.exchange),
        ns(t.total),
    ]
}

/// Every rank: its engine, its view of the witness, and its part of the commitment.
fn run_commit<C: Communicator>(world: &C, args: &JobArgs) -> Result<(Encoder, RankCommit), Error> {
    let setup = (|| {
        let encoder = encoder(args)?;
        let witness = WitnessFile::open(args.input()).map_err(Error::Read)?;
        Ok((encoder, witness))
    })();
    let (encoder, witness) = agree(world, setup)?;
    let witness_args = &args.witness;
    let params = CommitParams::lanes(witness_args.lanes)
        .log_inv_rate(witness_args.log_inv_rate)
        .layout(witness_args.layout.into())
        .scheme(args.scheme().expect("checked before MPI started"));
    let mine = ntt_mpi::commit(
        world,
        &encoder,
        &witness,
        params,
        witness_args.expansion.expansion(),
    )?;
    Ok((encoder, mine))
}

#[derive(Serialize)]
struct OpenReport {
    root: String,
    #[serde(flatten)]
    tree: TreeReport,
    basis: ntt_pcs::BasisName,
    log_rows: u32,
    lanes: usize,
    log_inv_rate: u32,
    rows: Vec<u64>,
    ranks: usize,
    proof_bytes: usize,
    output: String,
    commitment: Option<String>,
}

pub(crate) fn open<C: Communicator>(world: &C, args: &OpenArgs) -> Result<(), Error> {
    let (_, mine) = run_commit(world, &args.job)?;
    let Some(opening) = ntt_mpi::open(world, &mine, &args.rows.to_u64())? else {
        return Ok(());
    };
    let proof = opening.to_bytes();
    output::write_bytes(&args.output, &proof)?;
    if let Some(path) = &args.commitment {
        output::write_commitment(path, &mine.commitment)?;
    }
    let shape = mine.split.shape();
    let report = OpenReport {
        root: mine.commitment.root_hex(),
        tree: TreeReport::of(&mine.commitment),
        basis: mine.commitment.basis(),
        log_rows: shape.log_rows(),
        lanes: shape.lanes(),
        log_inv_rate: shape.log_inv_rate(),
        rows: args.rows.to_u64(),
        ranks: mine.split.ranks(),
        proof_bytes: proof.len(),
        output: args.output.display().to_string(),
        commitment: args.commitment.as_ref().map(|p| p.display().to_string()),
    };
    if args.job.json.json {
        print!("{}", json(&report));
    } else {
        // As `ntt open` prints it.
        print!(
            "root      {}\nlog-rows  {}\nlanes     {}\nbasis     {}\n",
            report.root, report.log_rows, report.lanes, report.basis
        );
    }
    Ok(())
}

pub(crate) fn commit<C: Communicator>(world: &C, args: &CommitArgs) -> Result<(), Error> {
    let (encoder, mine) = run_commit(world, &args.job)?;
    if let Some(path) = &args.save_codeword {
        output::save_codeword(world, path, &mine.split, mine.rows())?;
    }
    let threads = encoder.pool().num_workers();
    let local = stats(&mine, threads);
    let root_process = world.process_at_rank(0);
    if world.rank() != 0 {
        root_process.gather_into(&local[..]);
        return Ok(());
    }
    let mut all = vec![0u64; STAT_WORDS * world.size() as usize];
    root_process.gather_into_root(&local[..], &mut all[..]);
    if let Some(path) = args.commitment_file() {
        output::write_commitment(path, &mine.commitment)?;
    }
    let ms = |ns: u64| ntt_shell::millis::ms(std::time::Duration::from_nanos(ns));
    let per_rank: Vec<RankReport> = all
        .chunks_exact(STAT_WORDS)
        .enumerate()
        .map(|(rank, s)| RankReport {
            rank,
            first_row: (rank as u64) << mine.split.log_share_rows(),
            threads: s[0],
            witness_bytes_read: s[1],
            bytes_sent: s[2],
            bytes_received: s[3],
            peak_rss_bytes: s[4],
            times_ms: Times {
                read: ms(s[5]),
                encode: ms(s[6]),
                exchange: ms(s[7]),
                total: ms(s[8]),
            },
        })
        .collect();
    let slowest = |f: fn(&Times) -> f64| per_rank.iter().map(|r| f(&r.times_ms)).fold(0.0, f64::max);
    let shape = mine.split.shape();
    let report = Report {
        root: mine.commitment.root_hex(),
        tree: TreeReport::of(&mine.commitment),
        log_rows: shape.log_rows(),
        lanes: shape.lanes(),
        log_inv_rate: shape.log_inv_rate(),
        basis: mine.commitment.basis(),
        layout: args.job.witness.layout.name(),
        witness_words: shape.message_words(),
        ranks: mine.split.ranks(),
        log_share_rows: mine.split.log_share_rows(),
        log_fold: mine.split.log_fold(),
        backend: format!("{:?}", encoder.backend().kind()).to_lowercase(),
        times_ms: Times {
            read: slowest(|t| t.read),
            encode: slowest(|t| t.encode),
            exchange: slowest(|t| t.exchange),
            total: slowest(|t| t.total),
        },
        per_rank,
    };
    print!(
        "{}",
        if args.job.json.json {
            json(&report)
        } else {
            text(&report)
        }
    );
    Ok(())
}

fn text(r: &Report) -> String {
    let mut out = String::new();
    r.tree.text(&mut out);
    let _ = writeln!(
        out,
        "shape       2^{} rows x {} lanes, rate 1/2^{}, {} witness words ({} layout)",
        r.log_rows, r.lanes, r.log_inv_rate, r.witness_words, r.layout
    );
    let _ = writeln!(out, "basis       {}", r.basis);
    let split = if r.log_fold == 0 {
        "whole cosets each".to_owned()
    } else {
        format!("1/2^{} of a coset each, message folded", r.log_fold)
    };
    let _ = writeln!(
        out,
        "ranks       {} x 2^{} rows ({split})",
        r.ranks, r.log_share_rows
    );
    let t = &r.times_ms;
    let _ = writeln!(
        out,
        "slowest     read {:.3} ms, encode {:.3} ms, exchange {:.3} ms, total {:.3} ms",
        t.read, t.encode, t.exchange, t.total
    );
    for p in &r.per_rank {
        let _ = writeln!(
            out,
            "rank {:<6} {} threads, total {:.3} ms, sent {} B, received {} B, peak {:.1} MiB",
            p.rank,
            p.threads,
            p.times_ms.total,
            p.bytes_sent,
            p.bytes_received,
            p.peak_rss_bytes as f64 / (1u64 << 20) as f64
        );
    }
    out
}
