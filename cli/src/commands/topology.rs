//! `ntt topology`: the machine as the engine sees it, the workers' budgets and the plans they lead to.

use crate::commands::plan::shape_for;
use crate::error::CliError;
use crate::{engine, files, report, what_if};
use clap::Args;
use ntt_kernels::{Backend, BackendKind};
use ntt_pcs::plan::bytes;
use ntt_pcs::wisdom::WisdomStatus;
use ntt_pcs::{Encoder, Expansion, MessageLayout};
use ntt_runtime::{Cache, Provenance, Topology, WorkerBudget, WorkerLayout, WorkerPlacement};
use ntt_shell::args::{EngineArgs, JsonArgs};
use serde::Serialize;
use std::fmt::Write as _;

/// Flags of `ntt topology`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  ntt topology\n  ntt topology --json | jq '.workers[].l2_bytes'\n  \
    NTT_TOPOLOGY=sysfs ntt topology   # skip hwloc\n  \
    ntt topology --topology xml:server.xml --backend avx512   # another machine (lstopo --of xml)\n  \
    ntt topology --topology 'synthetic:pack:2 l3:4(size=32MiB) l2:8(size=1MiB) core:1 pu:2'"
)]
pub(crate) struct TopologyArgs {
    #[command(flatten)]
    engine: EngineArgs,
    /// Topology to report: hwloc, sysfs, defaults (this machine), or another machine's,
    /// xml:FILE (an `lstopo --of xml` export) or synthetic:DESCRIPTION (hwloc's synthetic
    /// grammar, as docs/CLI.md documents it); nothing runs on another machine's. Default:
    /// `NTT_TOPOLOGY`, else hwloc.
    #[arg(long, value_name = "SOURCE")]
    topology: Option<String>,
    /// Backend to plan for (portable, pclmul, avx2, avx512, neon); with another machine's
    /// topology it need not run here. Default: `NTT_BACKEND`, else the best this CPU runs.
    #[arg(long, value_name = "NAME")]
    backend: Option<String>,
    #[command(flatten)]
    json: JsonArgs,
}

/// Witness sizes (log2 words) the report plans for.
const REPORT_LOG_N: [u32; 5] = [20, 22, 24, 26, 28];
const REPORT_LANES: usize = 64;
const REPORT_LOG_INV_RATE: u32 = 1;

#[derive(Serialize)]
struct WorkerReport {
    index: usize,
    cpu: usize,
    core: usize,
    numa_node: usize,
    bound_to: Vec<usize>,
    l2_bytes: usize,
    l3_bytes: usize,
    steal_order: Vec<usize>,
}

#[derive(Serialize)]
struct PlanReport {
    log_n: u32,
    lanes: usize,
    log_inv_rate: u32,
    threads: usize,
    summary: String,
    plan: serde_json::Value,
}

#[derive(Serialize)]
struct Report {
    topology: Topology,
    /// The other machine's source when this is a what-if (nothing was pinned or run).
    what_if: Option<String>,
    allowed_cpuset: Vec<usize>,
    /// How the workers are pinned: none, cores or pus (as every command's `pin`).
    pin: String,
    backend: String,
    /// Where the backend's kernels start a row's full columns (this machine only: a what-if
    /// names none).
    column_start: Option<String>,
    /// Kernel backends this CPU (the one running the command) supports.
    backends_supported: Vec<String>,
    threads: usize,
    workers: Vec<WorkerReport>,
    warnings: Vec<String>,
    wisdom: Option<WisdomStatus>,
    plans: Vec<PlanReport>,
}

fn worker_reports(placements: &[WorkerPlacement], budgets: &[WorkerBudget]) -> Vec<WorkerReport> {
    placements
        .iter()
        .zip(budgets)
        .enumerate()
        .map(|(index, (p, b))| WorkerReport {
            index,
            cpu: p.cpu,
            core: p.core,
            numa_node: p.numa_node,
            bound_to: p.bound_to.clone(),
            l2_bytes: b.l2_bytes,
            l3_bytes: b.l3_bytes,
            steal_order: p.steal_order.clone(),
        })
        .collect()
}

fn supported_backends() -> Vec<String> {
    Backend::available().iter().map(|b| b.name().to_owned()).collect()
}

pub(crate) fn run(args: TopologyArgs) -> Result<(), CliError> {
    let spec = what_if::requested(args.topology.as_deref())?;
    let backend = what_if::backend_kind(args.backend.as_deref(), spec.is_what_if())?;
    let report = if spec.is_what_if() {
        what_if_report(&what_if::load(&spec)?, args.engine, backend)?
    } else {
        let forced = args
            .topology
            .is_some()
            .then(|| what_if::load(&spec))
            .transpose()?;
        let engine::Engine { encoder, wisdom } =
            engine::engine_with(args.engine, forced.clone(), Some(backend))?;
        let pool = encoder.pool();
        let topology = pool.topology().clone();
        let mut warnings = topology.warnings.clone();
        warnings.extend(
            pool.warnings()
                .iter()
                .filter(|w| !topology.warnings.contains(w))
                .cloned(),
        );
        let single = engine::engine_with(
            EngineArgs {
                threads: Some(1),
                ..args.engine
            },
            forced,
            Some(backend),
        )?
        .encoder;
        let mut plans = Vec::new();
        for enc in [&single, &encoder] {
            plans.extend(plans_for(enc)?);
        }
        Report {
            allowed_cpuset: topology.allowed_cpus(),
            workers: worker_reports(pool.placements(), pool.budgets()),
            pin: pool.pin_policy().name().to_owned(),
            what_if: None,
            backends_supported: supported_backends(),
            threads: pool.num_workers(),
            topology,
            backend: backend.name().to_owned(),
            column_start: Some(encoder.backend().column_start().name().to_owned()),
            warnings,
            wisdom: Some(wisdom),
            plans,
        }
    };
    emit(&report, args.json.json)
}

fn emit(report: &Report, json: bool) -> Result<(), CliError> {
    let text = if json {
        report::json(report)?
    } else {
        let mut out = String::new();
        print_text(&mut out, report).expect("writing to a String cannot fail");
        out
    };
    files::print(&text)
}

/// Another machine's report: its workers laid out (not started), and plans for them.
fn what_if_report(topology: &Topology, engine: EngineArgs, backend: BackendKind) -> Result<Report, CliError> {
    if engine.threads == Some(0) {
        return Err(CliError::Input("--threads must be at least 1".to_owned()));
    }
    let workers = engine.threads.unwrap_or(topology.cores);
    let layout = WorkerLayout::new(topology, workers, engine.pin_policy()?);
    let mut plans = Vec::new();
    for n in [1, workers] {
        for &log_n in &REPORT_LOG_N {
            let shape = shape_for(log_n, REPORT_LANES, REPORT_LOG_INV_RATE, Expansion::Bounded)?;
            let plan = what_if::plan(topology, n, backend, shape, MessageLayout::Lanes);
            plans.push(PlanReport {
                log_n,
                lanes: REPORT_LANES,
                log_inv_rate: REPORT_LOG_INV_RATE,
                threads: n,
                summary: plan.summary(),
                plan: serde_json::to_value(&plan)?,
            });
        }
    }
    Ok(Report {
        topology: topology.clone(),
        what_if: topology.what_if.clone(),
        backends_supported: supported_backends(),
        allowed_cpuset: topology.allowed_cpus(),
        pin: layout.pin.to_string(),
        workers: worker_reports(&layout.placements, &layout.budgets),
        backend: backend.name().to_owned(),
        column_start: None,
        warnings: topology.warnings.clone(),
        threads: workers,
        wisdom: None,
        plans,
    })
}

fn plans_for(encoder: &Encoder) -> Result<Vec<PlanReport>, CliError> {
    REPORT_LOG_N
        .iter()
        .map(|&log_n| {
            let shape = shape_for(log_n, REPORT_LANES, REPORT_LOG_INV_RATE, Expansion::Bounded)?;
            let plan = encoder.plan(shape, MessageLayout::Lanes);
            Ok(PlanReport {
                log_n,
                lanes: REPORT_LANES,
                log_inv_rate: REPORT_LOG_INV_RATE,
                threads: encoder.pool().num_workers(),
                summary: plan.summary(),
                plan: {
                    let mut plan = serde_json::to_value(&plan)?;
                    report::workers_as_threads(&mut plan);
                    plan
                },
            })
        })
        .collect()
}

/// `0-3,8`: a CPU list the way Linux writes one.
fn cpu_list(cpus: &[usize]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let start = cpus[i];
        let mut end = start;
        while i + 1 < cpus.len() && cpus[i + 1] == end + 1 {
            i += 1;
            end = cpus[i];
        }
        parts.push(if start == end {
            format!("{start}")
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    if parts.is_empty() {
        "none".to_owned()
    } else {
        parts.join(",")
    }
}

fn source(p: Provenance) -> &'static str {
    match p {
        Provenance::Hwloc => "hwloc",
        Provenance::Sysfs => "sysfs",
        Provenance::Default => "default",
    }
}

/// The caches of `level` whose PUs lie within `within`, in order of their first PU.
fn caches_under<'t>(t: &'t Topology, level: u8, within: &[usize]) -> Vec<&'t Cache> {
    let mut found: Vec<&Cache> = t
        .caches
        .iter()
        .filter(|c| c.level == level && c.pus.iter().all(|p| within.contains(p)))
        .collect();
    found.sort_by_key(|c| c.pus.first().copied());
    found.dedup_by(|a, b| a.pus == b.pus);
    found
}

fn print_tree(out: &mut String, t: &Topology) -> std::fmt::Result {
    writeln!(
        out,
        "Machine ({}, {}, {}; from {})",
        report::count(t.packages, "package"),
        report::count(t.cores, "core"),
        report::count(t.pus.len(), "PU"),
        source(t.source)
    )?;
    for package in 0..t.packages {
        let in_package: Vec<usize> = t
            .pus
            .iter()
            .filter(|p| p.package == package)
            .map(|p| p.os_index)
            .collect();
        writeln!(out, "  Package {package} (PUs {})", cpu_list(&in_package))?;
        for node in &t.numa_nodes {
            let pus: Vec<usize> = node
                .pus
                .iter()
                .copied()
                .filter(|p| in_package.contains(p))
                .collect();
            if pus.is_empty() {
                continue;
            }
            writeln!(out, "    NUMA node {} (PUs {})", node.os_index, cpu_list(&pus))?;
            for l3 in caches_under(t, 3, &pus) {
                writeln!(
                    out,
                    "      L3 {} (PUs {}) [{}]",
                    bytes(l3.size_bytes as usize),
                    cpu_list(&l3.pus),
                    source(l3.source)
                )?;
                for l2 in caches_under(t, 2, &l3.pus) {
                    writeln!(
                        out,
                        "        L2 {} (PUs {}) [{}]",
                        bytes(l2.size_bytes as usize),
                        cpu_list(&l2.pus),
                        source(l2.source)
                    )?;
                    for l1 in caches_under(t, 1, &l2.pus) {
                        writeln!(
                            out,
                            "          L1d {} [{}]",
                            bytes(l1.size_bytes as usize),
                            source(l1.source)
                        )?;
                        let mut cores: Vec<usize> =
                            l1.pus.iter().filter_map(|&p| t.pu(p)).map(|p| p.core).collect();
                        cores.dedup();
                        for core in cores {
                            let pus: Vec<usize> = t
                                .pus
                                .iter()
                                .filter(|p| p.core == core)
                                .map(|p| p.os_index)
                                .collect();
                            writeln!(out, "            Core {core}: PU {}", cpu_list(&pus))?;
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// A steal order, shortened past 8 victims (the JSON has them all).
fn victims(order: &[usize]) -> String {
    let shown: Vec<String> = order.iter().take(8).map(usize::to_string).collect();
    if order.len() > 8 {
        format!("{} … ({} in all)", shown.join(" "), order.len())
    } else if shown.is_empty() {
        "none".to_owned()
    } else {
        shown.join(" ")
    }
}

fn print_text(out: &mut String, r: &Report) -> std::fmt::Result {
    if let Some(source) = &r.what_if {
        writeln!(
            out,
            "What-if: {source} (another machine; nothing is pinned or run on it)"
        )?;
    }
    print_tree(out, &r.topology)?;
    if !r.topology.cpu_kinds.is_empty() {
        // The topology lists kinds least performant first (hwloc's order); the report lists
        // them in the order workers take them.
        writeln!(
            out,
            "CPU kinds (fastest first, the order workers take them; hwloc's efficiency rank, higher is faster):"
        )?;
        for kind in r.topology.cpu_kinds.iter().rev() {
            writeln!(
                out,
                "  {} (rank {}): PUs {}",
                kind.core_type.as_deref().unwrap_or("kind"),
                kind.efficiency.map_or("unknown".to_owned(), |e| e.to_string()),
                cpu_list(&kind.pus)
            )?;
        }
    }
    writeln!(out)?;
    writeln!(out, "Allowed cpuset: {}", cpu_list(&r.allowed_cpuset))?;
    writeln!(out, "Backend planned for: {}", r.backend)?;
    if let Some(columns) = &r.column_start {
        writeln!(out, "Full columns start: {columns} (NTT_COLUMNS overrides)")?;
    }
    writeln!(
        out,
        "Backends this CPU supports: {}",
        r.backends_supported.join(", ")
    )?;
    let applied = if r.what_if.is_some() { " (not applied)" } else { "" };
    writeln!(out, "Workers: {} (pinning: {}{applied})", r.workers.len(), r.pin)?;
    for w in &r.workers {
        let bound = if w.bound_to.is_empty() {
            "not bound".to_owned()
        } else {
            format!("bound to {}", cpu_list(&w.bound_to))
        };
        writeln!(
            out,
            "  worker {:>2}: PU {:>3}, core {:>3}, NUMA {}, {bound}; L2 budget {}, L3 budget {}",
            w.index,
            w.cpu,
            w.core,
            w.numa_node,
            bytes(w.l2_bytes),
            bytes(w.l3_bytes)
        )?;
        writeln!(out, "             steals from {}", victims(&w.steal_order))?;
    }
    if r.warnings.is_empty() {
        writeln!(out, "Warnings: none")?;
    } else {
        writeln!(out, "Warnings:")?;
        for w in &r.warnings {
            writeln!(out, "  - {w}")?;
        }
    }
    match &r.wisdom {
        Some(wisdom) => writeln!(out, "Wisdom: {wisdom}")?,
        None => writeln!(out, "Wisdom: not used (another machine's topology)")?,
    }
    writeln!(out)?;
    writeln!(
        out,
        "Plans ({} lanes, rate 1/{}):",
        REPORT_LANES,
        1 << REPORT_LOG_INV_RATE
    )?;
    for p in &r.plans {
        // Padded so that the summaries line up.
        let who = format!("{:<9}", report::count(p.threads, "thread"));
        writeln!(out, "  2^{} words, {who}: {}", p.log_n, p.summary)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_collapse_runs() {
        assert_eq!(cpu_list(&[0, 1, 2, 3, 8, 10, 11]), "0-3,8,10-11");
        assert_eq!(cpu_list(&[5]), "5");
        assert_eq!(cpu_list(&[]), "none");
    }
}
