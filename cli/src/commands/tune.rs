//! `ntt tune`: measure which planner settings run fastest here, and optionally keep them as wisdom.

use crate::commands::plan::shape_for;
use crate::error::CliError;
use crate::files::{self, FileArg};
use crate::tune::measure::interleaved;
use crate::tune::plot::{ONLY_DEFAULT, TunePlot};
use crate::tune::report::{self, Best, Measured, Setting};
use crate::tune::sweep::{self, Depth};
use crate::{engine, progress, report as json_report, workload};
use clap::Args;
use ntt_kernels::BackendKind;
use ntt_pcs::memory;
use ntt_pcs::wisdom::{self, ShapeClass, Wisdom, WisdomEntry};
use ntt_pcs::{CommitParams, Committer, Encoder, Expansion, MessageLayout, PlanConfig};
use ntt_shell::args::{EngineArgs, ExpansionArgs, JsonArgs, PinArg, TreeArgs};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Flags of `ntt tune`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    ntt tune                                 # 2^20..2^24 words, 1 and all workers (< 2 minutes)\n  \
    ntt tune --full --output tune-results    # a wider sweep, more repeats\n  \
    ntt tune --log-n 22 --thread-counts 1,2 --save   # keep the best settings as wisdom\n  \
    ntt tune --log-n 22 --backends avx2,avx512   # the same sweep on each backend\n\
Writes measurements.csv, measurements.json, summary.json, plot.svg and plot.png to --output.")]
pub(crate) struct TuneArgs {
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
    /// Worker counts to tune (comma-separated; default: 1 and every allowed core). `--threads`
    /// is an older spelling, kept as an alias.
    #[arg(
        short = 'j',
        long,
        alias = "threads",
        value_name = "LIST",
        value_delimiter = ','
    )]
    thread_counts: Option<Vec<usize>>,
    /// Pin workers to cores, to PUs, or not at all (default: `NTT_PIN`, else cores when there
    /// is a core per worker), as for every other command.
    #[arg(long, value_enum, value_name = "POLICY")]
    pin: Option<PinArg>,
    /// Backends to sweep (comma-separated: portable, pclmul, avx2, avx512, neon; each must run
    /// on this CPU). Default: `NTT_BACKEND`, else the best this CPU runs.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    backends: Option<Vec<String>>,
    /// Timed rounds per configuration.
    #[arg(long, alias = "repeats", value_name = "K")]
    repeat: Option<usize>,
    /// A wider sweep: more budgets, every residue count, streaming on and off, more rounds.
    #[arg(long)]
    full: bool,
    /// Directory for the CSV, JSON and plot (each file is replaced whole, never left partial).
    #[arg(short, long, alias = "out", value_name = "DIR", default_value = "ntt-tune")]
    output: PathBuf,
    /// Save the best settings per shape as wisdom (see `NTT_WISDOM`).
    #[arg(long)]
    save: bool,
    /// The commitment every candidate commits with (the plans do not depend on it).
    #[command(flatten)]
    tree: TreeArgs,
    #[command(flatten)]
    json: JsonArgs,
}

#[derive(Serialize)]
struct Measurements<'a> {
    measurements: &'a [Measured],
}

#[derive(Serialize)]
struct Summary<'a> {
    cpu_model: String,
    fingerprint: String,
    best: &'a [Best],
    saved_to: Option<String>,
}

pub(crate) fn run(args: TuneArgs) -> Result<(), CliError> {
    if args.output.as_os_str() == "-" {
        return Err(CliError::Input(
            "--output names the directory for tune's files; `-` cannot be one".to_owned(),
        ));
    }
    let scheme = args.tree.scheme()?;
    let depth = if args.full { Depth::Full } else { Depth::Default };
    let log_ns = args.log_n.clone().unwrap_or_else(|| {
        if args.full {
            vec![20, 22, 24, 26]
        } else {
            vec![20, 22, 24]
        }
    });
    let rounds = args.repeat.unwrap_or(if args.full { 9 } else { 5 });
    if rounds == 0 {
        return Err(CliError::Input("--repeat must be at least 1".to_owned()));
    }
    // Everything that can be refused is refused before the first measurement.
    for &log_n in &log_ns {
        let shape = shape_for(log_n, args.lanes, args.log_inv_rate, args.expansion.expansion())?;
        let codeword_bytes = shape.codeword_bytes();
        memory::ensure_available(
            "the witness and codeword",
            (codeword_bytes >> shape.log_inv_rate()) + codeword_bytes,
        )?;
    }
    let backends = backends(&args)?;
    let engine_args = |threads| EngineArgs {
        threads,
        pin: args.pin,
    };
    let worker_counts = worker_counts(&args)?;
    let mut results: Vec<Measured> = Vec::new();
    let mut topology = None;
    for &backend in &backends {
        for &workers in &worker_counts {
            let base = engine::bare_encoder_with(engine_args(Some(workers)), None, backend)?;
            topology.get_or_insert_with(|| base.pool().topology().clone());
            for &log_n in &log_ns {
                let shape = shape_for(log_n, args.lanes, args.log_inv_rate, args.expansion.expansion())?;
                // The sweep is centred on the plan the planner makes now for this setting.
                let current = base.plan(shape, MessageLayout::Lanes);
                let candidates = sweep::candidates(&current, depth);
                let setting = Setting {
                    log_n,
                    lanes: args.lanes,
                    log_inv_rate: args.log_inv_rate,
                    threads: workers,
                    backend: current.backend,
                    planner_l2_bytes: current.l2_unit_bytes,
                };
                results.extend(measure_setting(
                    &base,
                    setting,
                    shape,
                    &candidates,
                    rounds,
                    (scheme, args.expansion.expansion()),
                )?);
            }
        }
    }
    let best = report::best_per_setting(&results);
    write_measurements(&args.output, &results, rounds)?;
    let file = |name: &str| FileArg::Path(args.output.join(name));

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
    let summary_json = json_report::json(&summary)?;
    files::write_bytes(&file("summary.json"), summary_json.as_bytes())?;
    let text = if args.json.json {
        summary_json
    } else {
        summary_text(&summary, &results, &args.output)
    };
    files::print(&text)?;
    Ok(())
}

/// The backends to sweep: `--backends` (each one this CPU runs, once), else the default.
fn backends(args: &TuneArgs) -> Result<Vec<Option<BackendKind>>, CliError> {
    let mut names: Vec<&str> = args.backends.iter().flatten().map(String::as_str).collect();
    names.dedup();
    if args.save && names.len() > 1 {
        return Err(CliError::Input(
            "--save keeps one backend's settings (wisdom is per machine, not per backend): give one --backends entry".to_owned(),
        ));
    }
    if names.is_empty() {
        return Ok(vec![None]);
    }
    let mut kinds = Vec::new();
    for name in names {
        let kind = Some(crate::what_if::backend_kind(Some(name), false)?);
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    Ok(kinds)
}

/// The worker counts to tune: `--thread-counts`, else 1 and every allowed core.
fn worker_counts(args: &TuneArgs) -> Result<Vec<usize>, CliError> {
    let engine = EngineArgs {
        threads: None,
        pin: args.pin,
    };
    let all = engine::bare_encoder(engine)?.pool().num_workers();
    let mut worker_counts = args.thread_counts.clone().unwrap_or_else(|| vec![1, all]);
    worker_counts.dedup();
    if let Some(&bad) = worker_counts
        .iter()
        .find(|&&w| w == 0 || w > ntt_runtime::MAX_WORKERS)
    {
        return Err(CliError::Input(format!(
            "invalid worker count: --thread-counts {bad} (1 to {} are supported)",
            ntt_runtime::MAX_WORKERS
        )));
    }
    Ok(worker_counts)
}

/// Writes the measurements (CSV and JSON) and the plot (SVG and PNG) into `dir`.
fn write_measurements(dir: &std::path::Path, results: &[Measured], rounds: usize) -> Result<(), CliError> {
    std::fs::create_dir_all(dir).map_err(|source| CliError::Write {
        what: format!("`{}`", dir.display()),
        source,
    })?;
    let file = |name: &str| FileArg::Path(dir.join(name));
    files::write_bytes(&file("measurements.csv"), report::csv(results).as_bytes())?;
    files::write_bytes(
        &file("measurements.json"),
        json_report::json(&Measurements {
            measurements: results,
        })?
        .as_bytes(),
    )?;
    let machine = format!("{}, {rounds} timed rounds per candidate", wisdom::cpu_model());
    let figure = TunePlot {
        results,
        machine: &machine,
    };
    let plot_error = |e: ntt_plot::PlotError| CliError::System(e.to_string());
    files::write_bytes(
        &file("plot.svg"),
        ntt_plot::svg(&figure).map_err(plot_error)?.as_bytes(),
    )?;
    files::write_bytes(&file("plot.png"), &ntt_plot::png(&figure).map_err(plot_error)?)
}

/// Times every candidate at one setting, once per distinct plan: candidates whose plans do the
/// same work ([`sweep::same_work`]) are one point, timed as the first of them. Each commits with
/// `scheme`, its codeword expanding as far as `expansion` allows.
fn measure_setting(
    base: &Encoder,
    setting: Setting,
    shape: ntt_pcs::Shape,
    candidates: &[sweep::Candidate],
    rounds: usize,
    (scheme, expansion): (ntt_pcs::Scheme, Expansion),
) -> Result<Vec<Measured>, CliError> {
    let encoders: Vec<Encoder> = candidates
        .iter()
        .map(|c| base.clone().with_config(c.config.clone()))
        .collect();
    let plans: Vec<_> = encoders
        .iter()
        .map(|e| e.plan(shape, MessageLayout::Lanes))
        .collect();
    let distinct: Vec<(sweep::Candidate, Encoder, Vec<sweep::Candidate>, String)> =
        sweep::same_work_groups(&plans)
            .into_iter()
            .map(|group| {
                let first = group[0];
                let same_plan = group[1..].iter().map(|&i| candidates[i].clone()).collect();
                (
                    candidates[first].clone(),
                    encoders[first].clone(),
                    same_plan,
                    plans[first].summary(),
                )
            })
            .collect();
    let codeword_bytes = shape.codeword_bytes();
    let witness_bytes = codeword_bytes >> shape.log_inv_rate();
    memory::ensure_available("the witness and codeword", witness_bytes + codeword_bytes)?;
    let witness = workload::witness(setting.log_n, workload::DEFAULT_SEED);
    // Every candidate commits (encode and hashing, as a prover runs it) into one shared buffer,
    // faulted in by the warm-up round, so only the plan differs between candidates.
    let committers: Vec<Committer> = distinct
        .iter()
        .map(|(_, encoder, _, _)| {
            Committer::new(encoder.clone())
                .with_buffer_cap(0)
                .with_expansion(expansion)
        })
        .collect();
    let mut buffer = Some(Vec::new());
    progress::status(&format!(
        "tune: {}: {} x {}",
        setting.name(),
        json_report::count(distinct.len(), "plan"),
        json_report::count(rounds, "round")
    ));
    let bar = progress::bar((distinct.len() * rounds) as u64, &setting.name());
    let samples = interleaved(
        distinct.len(),
        rounds,
        |i| {
            let reuse = buffer.take().unwrap_or_default();
            let (_, prover) = committers[i].commit_into(
                &witness,
                CommitParams::lanes(setting.lanes)
                    .log_inv_rate(setting.log_inv_rate)
                    .scheme(scheme),
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
        .map(|((candidate, _, same_plan, plan), s)| Measured {
            same_plan: same_plan.iter().map(|c| c.label.clone()).collect(),
            same_plan_candidates: same_plan,
            ..Measured::new(setting, candidate, plan, &s)
        })
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
            class: ShapeClass::of(shape, b.setting.threads),
            config,
            speedup: b.speedup,
            significant: b.significant,
        });
    }
    // Through the writer of every other output: the same modes, and no litter on a signal.
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| CliError::Write {
            what: format!("`{}`", dir.display()),
            source,
        })?;
    }
    files::write_bytes(&FileArg::Path(path.clone()), kept.to_json()?.as_bytes())?;
    Ok(path)
}

fn summary_text(s: &Summary<'_>, results: &[Measured], dir: &std::path::Path) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} (topology fingerprint {})", s.cpu_model, s.fingerprint);
    for b in s.best {
        let _ = writeln!(out, "\n{}", b.setting.name());
        if results.iter().filter(|r| r.setting == b.setting).count() == 1 {
            let _ = writeln!(out, "  {ONLY_DEFAULT}");
        }
        for r in results.iter().filter(|r| r.setting == b.setting) {
            let _ = write!(
                out,
                "  {:<24} {:>9.3} ms  [{:.3} .. {:.3}]  {}",
                r.candidate.label, r.ms.median, r.ms.min, r.ms.max, r.plan
            );
            let _ = match r.same_plan.len() {
                0 => writeln!(out),
                n => writeln!(out, "  (and {n} more with this plan)"),
            };
        }
        let verdict = if b.significant {
            "beyond the spread"
        } else {
            "within the spread"
        };
        let _ = writeln!(
            out,
            "  best: {} at {:.3} ms, {:.3}x the default ({verdict})",
            b.best, b.best_ms, b.speedup
        );
    }
    let _ = writeln!(
        out,
        "\nwrote {}/measurements.csv, measurements.json, summary.json, plot.svg, plot.png",
        dir.display()
    );
    if let Some(p) = &s.saved_to {
        let _ = writeln!(out, "saved wisdom to {p}");
    }
    out
}
