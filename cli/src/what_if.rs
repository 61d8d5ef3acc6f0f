//! Topology what-ifs: another machine's topology (an hwloc XML export or a synthetic
//! description, from `--topology` or `NTT_TOPOLOGY`) that `ntt topology` and `ntt plan` report
//! and plan for, and that every command which runs the engine refuses.

use crate::error::CliError;
use ntt_kernels::{Backend, BackendKind};
use ntt_pcs::plan::{Plan, PlanConfig, plan_for};
use ntt_pcs::{MessageLayout, Shape};
use ntt_runtime::{TOPOLOGY_ENV, Topology, TopologySpec, WorkerLayout};

/// The topology source a command was asked for: its `--topology` flag, else `NTT_TOPOLOGY`.
///
/// # Errors
/// A `--topology` or `NTT_TOPOLOGY` that is none of the accepted forms, or an `NTT_TOPOLOGY`
/// that is not UTF-8 (exit code 2), as for every `NTT_*` variable.
pub(crate) fn requested(flag: Option<&str>) -> Result<TopologySpec, CliError> {
    match flag {
        Some(text) => TopologySpec::parse(text).map_err(|e| CliError::Input(e.to_string())),
        None => TopologySpec::from_env().map_err(|e| match e {
            ntt_runtime::TopologyError::Env(e) => CliError::Input(e.to_string()),
            e => CliError::Input(format!("{TOPOLOGY_ENV}: {e}")),
        }),
    }
}

/// Loads the topology `spec` names (this machine's, or a what-if's).
///
/// # Errors
/// An XML file hwloc cannot load (or any XML file, in a build without the `hwloc` feature), or a synthetic description outside the documented grammar
/// or above 8192 PUs (exit code 2).
pub(crate) fn load(spec: &TopologySpec) -> Result<Topology, CliError> {
    if matches!(spec, TopologySpec::Xml(_)) && !ntt_runtime::HWLOC_ENABLED {
        return Err(CliError::Input(format!(
            "--topology {spec}: reading an hwloc XML export needs hwloc, and this `ntt` was built \
             without its `hwloc` feature: rebuild with `cargo install --path cli --features hwloc` \
             (needs libhwloc-dev, libudev-dev and pkg-config), or describe the machine as \
             synthetic:DESCRIPTION"
        )));
    }
    Topology::load(spec).map_err(|e| CliError::Input(format!("--topology {spec}: {e}")))
}

/// Refuses to run the engine while `NTT_TOPOLOGY` names another machine: its CPU numbers and
/// caches are not this one's, so pinning and plans would be wrong.
///
/// # Errors
/// A clear message and exit code 2 when `NTT_TOPOLOGY` is a what-if (or malformed).
pub(crate) fn refuse_foreign() -> Result<(), CliError> {
    let spec = requested(None)?;
    if spec.is_what_if() {
        return Err(CliError::Input(format!(
            "{TOPOLOGY_ENV}={spec} describes another machine; this command runs the engine, which \
             runs only on this machine's topology (what-ifs are for `ntt topology` and `ntt plan`): \
             unset {TOPOLOGY_ENV} to run"
        )));
    }
    Ok(())
}

/// The backend plans are made for: `--backend` when given (any kind on a what-if; one this CPU
/// runs otherwise), else `NTT_BACKEND` or the best this CPU runs.
///
/// # Errors
/// An unknown backend name, or one this CPU cannot run when the topology is its own.
pub(crate) fn backend_kind(flag: Option<&str>, what_if: bool) -> Result<BackendKind, CliError> {
    match flag {
        Some(name) => {
            let kind: BackendKind = name.parse()?;
            if !what_if {
                Backend::new(kind)?;
            }
            Ok(kind)
        }
        None => Ok(Backend::from_env()?.kind()),
    }
}

/// The plan `workers` workers laid out on `topology` would run for `shape`, with `backend`'s
/// kernels (which need not run here: planning reads only the backend's kind).
pub(crate) fn plan(
    topology: &Topology,
    workers: usize,
    backend: BackendKind,
    shape: Shape,
    layout: MessageLayout,
) -> Plan {
    let workers = WorkerLayout::new(topology, workers, None);
    plan_for(
        shape,
        Some(layout),
        workers.placements.len(),
        &workers.budgets,
        backend,
        &PlanConfig::default(),
    )
}
