//! `ntt topology`: the machine as the engine sees it, the workers' budgets and the plans they lead to.

use crate::args::{EngineArgs, JsonArgs};
use crate::commands::plan::shape_for;
use crate::error::CliError;
use crate::{engine, files, report};
use clap::Args;
use ntt_pcs::plan::bytes;
use ntt_pcs::wisdom::WisdomStatus;
use ntt_pcs::{Encoder, Expansion, MessageLayout};
use ntt_runtime::{Cache, Provenance, Topology};
use serde::Serialize;
use std::fmt::Write as _;

/// Flags of `ntt topology`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  ntt topology\n  ntt topology --json | jq '.workers[].l2_bytes'\n  \
    NTT_TOPOLOGY=sysfs ntt topology   # skip hwloc"
)]
pub struct TopologyArgs {
    #[command(flatten)]
    engine: EngineArgs,
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
struct Report<'a> {
    topology: &'a Topology,
    allowed_cpuset: Vec<usize>,
    pin_policy: String,
    backend: String,
    threads: usize,
    workers: Vec<WorkerReport>,
    warnings: Vec<String>,
    wisdom: WisdomStatus,
    plans: Vec<PlanReport>,
}

pub fn run(args: TopologyArgs) -> Result<(), CliError> {
    let engine::Engine { encoder, wisdom } = engine::engine(args.engine.threads)?;
    let pool = encoder.pool();
    let topology = pool.topology();
    let workers = pool
        .placements()
        .iter()
        .zip(pool.budgets())
        .enumerate()
        .map(|(index, (p, b))| WorkerReport {
            index,
            cpu: p.cpu,
            core: p.core,
            numa_node: p.numa_node,
            bound_to: p.bound_to.clone(),
            l2_bytes: b.l2_bytes,
            l3_bytes: b.l3_bytes,
        })
        .collect();
    let mut warnings = topology.warnings.clone();
    warnings.extend(
        pool.warnings()
            .iter()
            .filter(|w| !topology.warnings.contains(w))
            .cloned(),
    );
    let single = engine::encoder(Some(1))?;
    let mut plans = Vec::new();
    for enc in [&single, &encoder] {
        plans.extend(plans_for(enc)?);
    }
    let report = Report {
        topology,
        allowed_cpuset: topology.allowed_cpus(),
        pin_policy: format!("{:?}", pool.pin_policy()).to_lowercase(),
        backend: format!("{:?}", encoder.backend().kind()).to_lowercase(),
        threads: pool.num_workers(),
        workers,
        warnings,
        wisdom,
        plans,
    };
    let text = if args.json.json {
        report::json(&report)?
    } else {
        let mut out = String::new();
        print_text(&mut out, &report).expect("writing to a String cannot fail");
        out
    };
    files::print(&text)
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
        "Machine ({} package(s), {} cores, {} PUs; from {})",
        t.packages,
        t.cores,
        t.pus.len(),
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

fn print_text(out: &mut String, r: &Report<'_>) -> std::fmt::Result {
    print_tree(out, r.topology)?;
    writeln!(out)?;
    writeln!(out, "Allowed cpuset: {}", cpu_list(&r.allowed_cpuset))?;
    writeln!(out, "Backend: {}", r.backend)?;
    writeln!(out, "Workers: {} (pinning: {})", r.workers.len(), r.pin_policy)?;
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
    }
    if r.warnings.is_empty() {
        writeln!(out, "Warnings: none")?;
    } else {
        writeln!(out, "Warnings:")?;
        for w in &r.warnings {
            writeln!(out, "  - {w}")?;
        }
    }
    writeln!(out, "Wisdom: {}", r.wisdom)?;
    writeln!(out)?;
    writeln!(
        out,
        "Plans ({} lanes, rate 1/{}):",
        REPORT_LANES,
        1 << REPORT_LOG_INV_RATE
    )?;
    for p in &r.plans {
        let who = if p.threads == 1 {
            "1 thread ".to_owned()
        } else {
            format!("{} threads", p.threads)
        };
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
