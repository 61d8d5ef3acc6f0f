//! `ntt tune`: measure which planner settings run fastest here, and optionally keep them as wisdom.

use crate::args::ExpansionArgs;
use crate::commands::plan::shape_for;
use crate::error::CliError;
use crate::tune::measure::interleaved;
use crate::tune::report::{self, Best, Measured, Setting};
use crate::tune::sweep::{self, Depth};
use crate::{engine, input, progress, workload};
use clap::Args;
use ntt_pcs::shape::memory;
use ntt_pcs::wisdom::{self, ShapeClass, Wisdom, WisdomEntry};
use ntt_pcs::{Committer, Encoder, Expansion, MessageLayout, PlanConfig};
use serde::Serialize;
use std::path::PathBuf;

/// Flags of `ntt tune`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    ntt tune                                 # 2^20..2^24 words, 1 and all workers (< 2 minutes)\n  \
    ntt tune --full --out tune-results       # a wider sweep, more repeats\n  \
    ntt tune --log-n 22 --threads 2 --save   # keep the best settings as wisdom\n\
Writes measurements.csv, measurements.json, summary.json and plot.svg to --out.")]
pub struct TuneArgs {
    /// Witness sizes to tune, as log2 words (comma-separated).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    log_n: Option<Vec<u32>>,
    /// Lanes per row.
    #[arg(long, value_name = "N", default_value_t = workload::DEFAULT_LANES)]
    lanes: usize,
    /// Log2 of the inverse code rate.
    #[arg(long, value_name = "R", default_value_t = workload::DEFAULT_LOG_INV_RATE)]
    log_inv_rate: u32,
    #[command(flatten)]
    expansion: ExpansionArgs,
    /// Worker counts to tune (comma-separated; default: 1 and every allowed core).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    threads: Option<Vec<usize>>,
    /// Timed rounds per configuration.
    #[arg(long, value_name = "K")]
    repeats: Option<usize>,
    /// A wider sweep: more budgets, every residue count, streaming on and off, more rounds.
    #[arg(long)]
    full: bool,
    /// Directory for the CSV, JSON and plot.
    #[arg(long, value_name = "DIR", default_value = "ntt-tune")]
    out: PathBuf,
    /// Save the best settings per shape as wisdom (see `NTT_WISDOM`).
    #[arg(long)]
    save: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Summary<'a> {
    cpu_model: String,
    fingerprint: String,
    best: &'a [Best],
    saved_to: Option<String>,
}

pub fn run(args: TuneArgs) -> Result<(), CliError> {
    let depth = if args.full { Depth::Full } else { Depth::Default };
    let log_ns = args.log_n.clone().unwrap_or_else(|| {
        if args.full {
            vec![20, 22, 24, 26]
        } else {
            vec![20, 22, 24]
        }
    });
    let rounds = args.repeats.unwrap_or(if args.full { 9 } else { 5 });
    if rounds == 0 {
        return Err(CliError::Input("--repeats must be at least 1".to_owned()));
    }
    let all = engine::bare_encoder(None)?.pool().num_workers();
    let mut worker_counts = args.threads.clone().unwrap_or_else(|| vec![1, all]);
    worker_counts.dedup();
    let mut results: Vec<Measured> = Vec::new();
    let mut topology = None;
    for &workers in &worker_counts {
        let base = engine::bare_encoder(Some(workers))?;
        topology.get_or_insert_with(|| base.pool().topology().clone());
        for &log_n in &log_ns {
            let shape = shape_for(log_n, args.lanes, args.log_inv_rate, args.expansion.expansion())?;
            let current = base.plan(shape, MessageLayout::Lanes);
            let candidates = sweep::candidates(&current, depth);
            let setting = Setting {
                log_n,
                lanes: args.lanes,
                log_inv_rate: args.log_inv_rate,
                workers,
            };
            results.extend(measure_setting(
                &base,
                setting,
                shape,
                &candidates,
                rounds,
                args.json,
            )?);
        }
    }
    let best = report::best_per_setting(&results);
    std::fs::create_dir_all(&args.out).map_err(|source| CliError::Write {
        path: args.out.clone(),
        source,
    })?;
    input::write_bytes(
        &args.out.join("measurements.csv"),
        report::csv(&results).as_bytes(),
    )?;
    input::write_bytes(
        &args.out.join("measurements.json"),
        serde_json::to_string_pretty(&results)?.as_bytes(),
    )?;
    report::plot(&results, &args.out.join("plot.svg"))
        .map_err(|e| CliError::Input(format!("cannot draw the plot: {e}")))?;

    let topology = topology.expect("at least one worker count ran");
    let saved_to = if args.save {
        Some(save_wisdom(
            &topology,
            &results,
            &best,
            args.lanes,
            args.expansion.expansion(),
        )?)
    } else {
        None
    };
    let summary = Summary {
        cpu_model: wisdom::cpu_model(),
        fingerprint: wisdom::fingerprint(&topology),
        best: &best,
        saved_to: saved_to.as_ref().map(|p| p.display().to_string()),
    };
    input::write_bytes(
        &args.out.join("summary.json"),
        serde_json::to_string_pretty(&summary)?.as_bytes(),
    )?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print_summary(&summary, &results, &args.out);
    }
    Ok(())
}

/// Times every candidate (candidates giving an identical plan are measured once) at one setting.
fn measure_setting(
    base: &Encoder,
    setting: Setting,
    shape: ntt_pcs::Shape,
    candidates: &[sweep::Candidate],
    rounds: usize,
    json: bool,
) -> Result<Vec<Measured>, CliError> {
    let mut distinct: Vec<(sweep::Candidate, Encoder, String, String)> = Vec::new();
    for c in candidates {
        let encoder = base.clone().with_config(c.config.clone());
        let plan = encoder.plan(shape, MessageLayout::Lanes);
        let key = serde_json::to_string(&plan)?;
        if distinct.iter().any(|(_, _, k, _)| *k == key) {
            continue;
        }
        distinct.push((c.clone(), encoder, key, plan.summary()));
    }
    let codeword_bytes = shape.codeword_bytes();
    let witness_bytes = codeword_bytes >> shape.log_inv_rate();
    memory::ensure_available("the witness and codeword", witness_bytes + codeword_bytes)?;
    let witness = workload::witness(setting.log_n, workload::DEFAULT_SEED);
    // Every candidate commits (encode and hashing, as a prover runs it) into one shared buffer,
    // faulted in by the warm-up round, so only the plan differs between candidates.
    let committers: Vec<Committer> = distinct
        .iter()
        .map(|(_, encoder, _, _)| Committer::new(encoder.clone()).with_buffer_cap(0))
        .collect();
    let mut buffer = Some(Vec::new());
    let bar = progress::bar((distinct.len() * rounds) as u64, json, &setting.name());
    let samples = interleaved(
        distinct.len(),
        rounds,
        |i| {
            let reuse = buffer.take().unwrap_or_default();
            let (_, prover) = committers[i].commit_into(
                &witness,
                MessageLayout::Lanes,
                setting.lanes,
                setting.log_inv_rate,
                reuse,
            )?;
            buffer = Some(prover.into_codeword());
            Ok::<(), ntt_pcs::CommitError>(())
        },
        || bar.inc(1),
    )?;
    bar.finish_and_clear();
    Ok(distinct
        .into_iter()
        .zip(samples)
        .map(|((candidate, _, _, plan), s)| Measured::new(setting, candidate, plan, &s))
        .collect())
}

fn save_wisdom(
    topology: &ntt_runtime::Topology,
    results: &[Measured],
    best: &[Best],
    lanes: usize,
    expansion: Expansion,
) -> Result<PathBuf, CliError> {
    let path =
        wisdom::location().map_err(|why| CliError::Input(format!("cannot save wisdom: it is {why}")))?;
    // Keep what earlier runs learned about other shapes, when it is this machine's.
    let mut kept = match wisdom::load_from(&path, topology) {
        (Some(w), _) => w,
        _ => Wisdom::for_machine(topology),
    };
    for b in best {
        let shape = shape_for(b.setting.log_n, lanes, b.setting.log_inv_rate, expansion)?;
        let config = if b.significant {
            results
                .iter()
                .find(|r| r.setting == b.setting && r.candidate.label == b.best)
                .map(|r| r.candidate.config.clone())
                .unwrap_or_default()
        } else {
            // Within the noise: the topology-derived plan stays.
            PlanConfig::default()
        };
        kept.insert(WisdomEntry {
            class: ShapeClass::of(shape, b.setting.workers),
            config,
            speedup: b.speedup,
            significant: b.significant,
        });
    }
    kept.save(&path).map_err(|source| CliError::Write {
        path: path.clone(),
        source,
    })?;
    Ok(path)
}

fn print_summary(s: &Summary<'_>, results: &[Measured], out: &std::path::Path) {
    println!("{} (topology fingerprint {})", s.cpu_model, s.fingerprint);
    for b in s.best {
        println!("\n{}", b.setting.name());
        for r in results.iter().filter(|r| r.setting == b.setting) {
            println!(
                "  {:<24} {:>9.3} ms  [{:.3} .. {:.3}]  {}",
                r.candidate.label, r.ms.median, r.ms.min, r.ms.max, r.plan
            );
        }
        let verdict = if b.significant {
            "beyond the spread"
        } else {
            "within the spread"
        };
        println!(
            "  best: {} at {:.3} ms, {:.3}x the default ({verdict})",
            b.best, b.best_ms, b.speedup
        );
    }
    println!(
        "\nwrote {}/measurements.csv, measurements.json, summary.json, plot.svg",
        out.display()
    );
    if let Some(p) = &s.saved_to {
        println!("saved wisdom to {p}");
    }
}
