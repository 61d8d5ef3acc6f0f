//! `ntt commit`: encode and commit a witness, report the root and the stage times.

use crate::error::CliError;
use crate::files::{self, FileArg};
use crate::stats::Spread;
use crate::touch_report::{Pages, WorkerTouch, first_touch_line, pages_line};
use crate::{commitment_file, engine, input, progress, report, workload};
use clap::Args;
use ntt_pcs::{CommitParams, CommitTimings, MessageLayout, ProverData, Shape};
use ntt_shell::args::{
    CommitmentOutputArgs, DomainArgs, EngineArgs, ExpansionArgs, JsonArgs, Layout, TreeArgs,
};
use serde::Serialize;
use std::fmt::Write as _;

/// Flags of `ntt commit`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    ntt commit                                  # the built-in 2^22-word workload\n  \
    ntt commit --repeat 10 --threads 1 --json\n  \
    ntt commit w.bin --lanes 64 --log-inv-rate 2 --save-codeword c.bin --output c.json
  \
    ntt commit --tree rows --hash keccak --cap-height 2   # Plonky3's MerkleTreeMmcs of the codeword")]
pub(crate) struct CommitArgs {
    /// Raw little-endian u64 witness words; `-` reads standard input (default: the seeded
    /// 2^22-word witness that `ntt witness --log-n 22` writes). The same as --input.
    #[arg(value_name = "FILE", conflicts_with = "input")]
    input_file: Option<FileArg>,
    /// The witness file, as the positional FILE.
    #[arg(short, long, value_name = "FILE")]
    input: Option<FileArg>,
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
    expansion: ExpansionArgs,
    #[command(flatten)]
    engine: EngineArgs,
    /// Commit this many times; the first run is fresh, the others reuse its buffers.
    #[arg(long, alias = "repeats", value_name = "K", default_value_t = 1)]
    repeat: usize,
    /// Write the codeword (row-major, little-endian u64) to this file; `-` for standard output
    /// (the report then goes to standard error).
    #[arg(long, value_name = "FILE")]
    save_codeword: Option<FileArg>,
    #[command(flatten)]
    output: CommitmentOutputArgs,
    #[command(flatten)]
    domain: DomainArgs,
    #[command(flatten)]
    tree: TreeArgs,
    #[command(flatten)]
    json: JsonArgs,
}

/// One run's stage times, in milliseconds rounded to the microsecond: `allocate + encode +
/// hash = total` (to within the rounding).
#[derive(Clone, Copy, Serialize)]
struct Times {
    allocate: f64,
    encode: f64,
    hash: f64,
    total: f64,
}

impl From<&CommitTimings> for Times {
    fn from(t: &CommitTimings) -> Self {
        let ms = crate::report::ms;
        Self {
            allocate: ms(t.allocate),
            encode: ms(t.encode),
            hash: ms(t.hash),
            total: ms(t.total),
        }
    }
}

/// Median, minimum and maximum per stage.
#[derive(Serialize)]
struct Spreads {
    allocate: Spread,
    encode: Spread,
    hash: Spread,
    total: Spread,
}

impl Spreads {
    fn of(runs: &[CommitTimings]) -> Option<Self> {
        if runs.is_empty() {
            return None;
        }
        let stage = |f: fn(&CommitTimings) -> std::time::Duration| {
            crate::stats::spread_ms(&runs.iter().map(f).collect::<Vec<_>>())
        };
        Some(Self {
            allocate: stage(|t| t.allocate),
            encode: stage(|t| t.encode),
            hash: stage(|t| t.hash),
            total: stage(|t| t.total),
        })
    }
}

#[derive(Serialize)]
struct Report {
    /// The root, or a row tree's first cap digest.
    root: String,
    #[serde(flatten)]
    tree: ntt_shell::TreeReport,
    log_rows: u32,
    lanes: usize,
    log_inv_rate: u32,
    basis: ntt_pcs::BasisName,
    threads: usize,
    /// How the workers are pinned: none, cores or pus.
    pin: &'static str,
    backend: String,
    layout: &'static str,
    witness_words: usize,
    repeat: usize,
    plan: String,
    /// The reused runs' medians, or the first run's times when there is only one.
    times_ms: Times,
    /// The first run: fresh buffers, page faults included.
    first_run_ms: Times,
    /// The runs after the first (which reuse its buffers); `null` for `--repeat 1`.
    reused_runs_ms: Option<Spreads>,
    /// Every run in order, the first included.
    samples_ms: Vec<Times>,
    /// What each worker spent faulting in the first run's fresh codeword buffer.
    first_touch: Vec<WorkerTouch>,
    /// The pages the first run's fresh codeword buffer was asked for.
    pages: Option<Pages>,
    /// Witness GiB per second at `times_ms.total`.
    gib_per_s: f64,
}

pub(crate) fn run(args: CommitArgs) -> Result<(), CliError> {
    if args.repeat == 0 {
        return Err(CliError::Input("--repeat must be at least 1".to_owned()));
    }
    let input = args.input_file.as_ref().or(args.input.as_ref());
    files::one_stdin(&[("--input", input)])?;
    let scheme = args.tree.scheme()?;
    files::distinct(
        &[
            ("--output", args.output.output.as_ref()),
            ("--save-codeword", args.save_codeword.as_ref()),
        ],
        &[("--input", input)],
    )?;
    let witness = match input {
        Some(arg) => input::read_words(arg)?,
        None => workload::witness(workload::DEFAULT_LOG_WORDS, workload::DEFAULT_SEED),
    };
    let expansion = args.expansion.expansion();
    let shape = Shape::of_witness(witness.len(), args.lanes, args.log_inv_rate, expansion)?;
    let layout: MessageLayout = args.layout.into();
    let committer = engine::committer_on(args.engine, args.domain.domain())?.with_expansion(expansion);
    let plan = committer.encoder().plan(shape, layout);
    let params = CommitParams::lanes(args.lanes)
        .log_inv_rate(args.log_inv_rate)
        .layout(layout)
        .scheme(scheme);

    let bar = progress::bar(args.repeat as u64, "committing");
    let mut runs = Vec::with_capacity(args.repeat);
    let mut first_touch = Vec::new();
    let mut pages = None;
    let mut kept: Option<ProverData> = None;
    let mut commitment = None;
    for _ in 0..args.repeat {
        let (c, data) = match kept.take() {
            Some(reuse) => committer.commit_reusing(&witness, params, reuse)?,
            None => committer.commit(&witness, params)?,
        };
        runs.push(data.timings());
        if runs.len() == 1 {
            first_touch = data.first_touch().iter().map(WorkerTouch::from).collect();
            pages = data.pages().map(Pages::from);
        }
        commitment = Some(c);
        kept = Some(data);
        bar.inc(1);
    }
    bar.finish_and_clear();
    let commitment = commitment.expect("at least one repeat ran");
    let data = kept.expect("at least one repeat ran");
    if let Some(arg) = &args.save_codeword {
        files::write_words(arg, data.codeword())?;
    }
    if let Some(arg) = &args.output.output {
        commitment_file::write(arg, &commitment)?;
    }

    let first_run_ms = Times::from(&runs[0]);
    let reused_runs_ms = Spreads::of(&runs[1..]);
    let times_ms = reused_runs_ms.as_ref().map_or(first_run_ms, |s| Times {
        allocate: s.allocate.median,
        encode: s.encode.median,
        hash: s.hash.median,
        total: s.total.median,
    });
    let witness_gib = (witness.len() * 8) as f64 / (1u64 << 30) as f64;
    let report = Report {
        root: hex::encode(commitment.root()),
        tree: ntt_shell::TreeReport::of(&commitment),
        log_rows: shape.log_rows(),
        lanes: args.lanes,
        log_inv_rate: args.log_inv_rate,
        basis: commitment.basis(),
        threads: committer.encoder().pool().num_workers(),
        pin: committer.encoder().pool().pin_policy().name(),
        backend: format!("{:?}", committer.encoder().backend().kind()).to_lowercase(),
        layout: args.layout.name(),
        witness_words: witness.len(),
        repeat: args.repeat,
        plan: plan.summary(),
        times_ms,
        first_run_ms,
        reused_runs_ms,
        samples_ms: runs.iter().map(Times::from).collect(),
        first_touch,
        pages,
        gib_per_s: witness_gib / (times_ms.total / 1e3),
    };
    print_report(&args, &report)
}

/// Prints the report as `--json` asks, on standard error when the codeword or the commitment
/// file owns standard output.
fn print_report(args: &CommitArgs, report: &Report) -> Result<(), CliError> {
    let text = if args.json.json {
        report::json(report)?
    } else {
        text(report)
    };
    if [&args.save_codeword, &args.output.output]
        .into_iter()
        .any(|arg| arg.as_ref().is_some_and(FileArg::is_std))
    {
        eprint!("{text}");
        Ok(())
    } else {
        files::print(&text)
    }
}

fn text(r: &Report) -> String {
    let mut out = String::new();
    r.tree.text(&mut out);
    let _ = writeln!(
        out,
        "shape       2^{} rows x {}, rate 1/2^{}, {} witness words ({} layout)",
        r.log_rows,
        report::count(r.lanes, "lane"),
        r.log_inv_rate,
        r.witness_words,
        r.layout
    );
    let _ = writeln!(out, "basis       {}", r.basis);
    let _ = writeln!(
        out,
        "engine      {} (pin {}), {} backend",
        report::count(r.threads, "thread"),
        r.pin,
        r.backend
    );
    let _ = writeln!(out, "plan        {}", r.plan);
    let stages: [(&str, f64, Option<&Spread>); 4] = [
        (
            "allocate",
            r.first_run_ms.allocate,
            r.reused_runs_ms.as_ref().map(|s| &s.allocate),
        ),
        (
            "encode",
            r.first_run_ms.encode,
            r.reused_runs_ms.as_ref().map(|s| &s.encode),
        ),
        (
            "hash",
            r.first_run_ms.hash,
            r.reused_runs_ms.as_ref().map(|s| &s.hash),
        ),
        (
            "total",
            r.first_run_ms.total,
            r.reused_runs_ms.as_ref().map(|s| &s.total),
        ),
    ];
    for (name, first, reused) in stages {
        match reused {
            Some(s) => {
                let _ = writeln!(
                    out,
                    "{name:<11} {:>9.3} ms  (median of {} reused runs; min {:.3}, max {:.3}; first run {first:.3})",
                    s.median,
                    r.repeat - 1,
                    s.min,
                    s.max
                );
            }
            None => {
                let _ = writeln!(out, "{name:<11} {first:>9.3} ms");
            }
        }
    }
    if !r.first_touch.is_empty() {
        let _ = writeln!(out, "first touch {}", first_touch_line(&r.first_touch));
    }
    if let Some(pages) = &r.pages {
        let _ = writeln!(out, "pages       {}", pages_line(pages));
    }
    let _ = writeln!(out, "throughput  {:.3} GiB/s of witness", r.gib_per_s);
    out
}
