//! `ntt plan`: explain the plan the engine would run for a shape.

use crate::error::CliError;
use crate::{engine, files, report, what_if};
use clap::Args;
use ntt_pcs::plan::Plan;
use ntt_pcs::{Expansion, Shape};
use ntt_shell::args::{EngineArgs, ExpansionArgs, JsonArgs, Layout};

const EXAMPLES: &str = "Examples:
  ntt plan --log-n 24 --lanes 64 --log-inv-rate 1 --threads 2
  ntt plan --log-n 28 --lanes 64 --log-inv-rate 2 --json
  ntt plan --log-n 24 --topology xml:server.xml --threads 64 --backend avx512   # another machine";

/// How to read the one-line form of a plan (`ntt plan --help`; docs/ARCHITECTURE.md, "Reading
/// a plan", says the same with a drawing).
const NOTATION: &str = "Reading a plan's short form (printed by `ntt commit`, `ntt topology`, `ntt tune` and,
as `short:`, here), for 2^22 words in 64 lanes at rate 1/2 (2^17 codeword rows) with
a 2 MiB L2 per worker:

  2 sweeps: transpose gather[1..5 2^4r×64] deep-l2[5..17 32×2^12r loop] | wide | sink 2^12 rows | cached

  2 sweeps           passes over the codeword buffer, each reading and writing all of it
  transpose          a lane-major message is first transposed into the buffer's first
                     rows (runs of a page per lane), where the passes read it in place;
                     `transpose,stream`: with non-temporal stores (a message past the cache)
  gather[a..b 2^gr×k]
                     a gathered pass: layers a to b (b excluded) on groups of 2^g rows
                     taken 2^(L-b) rows apart (L = log2 codeword rows), k adjacent
                     residues (columns of rows) per group
  deep-l2[a..L t×2^mr how]
                     the deep pass: layers a to L in t tasks, each on 2^m contiguous rows
                     sized to the L2 budget (deep-l3: to the L3 budget), run as `how`:
                     loop (a loop over the tasks; `,copy`: message rows copied into
                     scratch first), readers-then-replica0 (in-place message: two loops),
                     graph-first-steps or graph (in-place message: a task graph), split×p
                     (few large tasks cut into p first-step pieces each)
  across@l           (inside a pass) its radix-8 steps from layer l on run across blocks,
                     a block per vector slot (short segments of few-lane matrices)
  replicate          every layer is a copy (rate only, nothing to transform)
  wide | narrow      the gate: several adjacent residues per group, or one
  sink 2^s rows      the hasher takes finished rows in blocks of 2^s while they are in
                     cache; `(unfused)` when it reads them back in one more sweep
  cached | streaming plain or non-temporal stores

Layers 0 to r (r = log2 of the inverse rate) are copies of the message and never run.
The long form ends with each sweep's traffic (bytes read and written; JSON `traffic`).";

/// Flags of `ntt plan`.
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES, after_long_help = format!("{NOTATION}\n\n{EXAMPLES}"))]
pub(crate) struct PlanArgs {
    /// Log2 of the witness size in words.
    #[arg(long, value_name = "N")]
    log_n: u32,
    /// Lanes per row (a power of two no larger than 2^log-n).
    #[arg(long, value_name = "N", default_value_t = 64)]
    lanes: usize,
    /// Log2 of the inverse code rate.
    #[arg(long, value_name = "R", default_value_t = 1)]
    log_inv_rate: u32,
    /// Arrangement of the witness words.
    #[arg(long, value_enum, default_value_t = Layout::Lanes)]
    layout: Layout,
    #[command(flatten)]
    expansion: ExpansionArgs,
    #[command(flatten)]
    engine: EngineArgs,
    /// Topology to plan for: hwloc, sysfs, defaults (this machine), or another machine's,
    /// xml:FILE (an `lstopo --of xml` export) or synthetic:DESCRIPTION (hwloc's synthetic
    /// grammar, as docs/CLI.md documents it). Default: `NTT_TOPOLOGY`, else hwloc.
    #[arg(long, value_name = "SOURCE")]
    topology: Option<String>,
    /// Backend to plan for (portable, pclmul, avx2, avx512, neon); with another machine's
    /// topology it need not run here. Default: `NTT_BACKEND`, else the best this CPU runs.
    #[arg(long, value_name = "NAME")]
    backend: Option<String>,
    #[command(flatten)]
    json: JsonArgs,
}

/// The codeword shape of a `2^log_n`-word witness in `lanes` lanes (the library's limits).
pub(crate) fn shape_for(
    log_n: u32,
    lanes: usize,
    log_inv_rate: u32,
    expansion: Expansion,
) -> Result<Shape, CliError> {
    if !lanes.is_power_of_two() || lanes.trailing_zeros() > log_n {
        return Err(CliError::Input(format!(
            "--lanes {lanes} must be a power of two no larger than 2^{log_n} so that the rows come out whole"
        )));
    }
    Ok(Shape::for_message(
        log_n - lanes.trailing_zeros(),
        lanes,
        log_inv_rate,
        expansion,
    )?)
}

pub(crate) fn run(args: PlanArgs) -> Result<(), CliError> {
    let shape = shape_for(
        args.log_n,
        args.lanes,
        args.log_inv_rate,
        args.expansion.expansion(),
    )?;
    let spec = what_if::requested(args.topology.as_deref())?;
    let backend = what_if::backend_kind(args.backend.as_deref(), spec.is_what_if())?;
    if spec.is_what_if() {
        if args.engine.threads == Some(0) {
            return Err(CliError::Input("--threads must be at least 1".to_owned()));
        }
        let topology = what_if::load(&spec)?;
        let workers = args.engine.threads.unwrap_or(topology.cores);
        let plan = what_if::plan(&topology, workers, backend, shape, args.layout.into());
        let text = if args.json.json {
            let mut value = plan_json(&plan)?;
            if let Some(object) = value.as_object_mut() {
                object.insert("what_if".to_owned(), serde_json::to_value(spec.to_string())?);
            }
            report::json(&value)?
        } else {
            format!(
                "what-if: {spec} (another machine; nothing runs on it)\n{plan}\n  short: {}\n",
                plan.summary()
            )
        };
        return files::print(&text);
    }
    let forced = args
        .topology
        .is_some()
        .then(|| what_if::load(&spec))
        .transpose()?;
    let engine = engine::engine_with(args.engine, forced, Some(backend))?;
    let plan = engine.encoder.plan(shape, args.layout.into());
    let text = if args.json.json {
        let mut value = plan_json(&plan)?;
        if let Some(object) = value.as_object_mut() {
            object.insert("wisdom".to_owned(), serde_json::to_value(&engine.wisdom)?);
        }
        report::json(&value)?
    } else {
        format!("{plan}\n  short: {}\nwisdom: {}\n", plan.summary(), engine.wisdom)
    };
    files::print(&text)
}

/// The plan's fields, the worker count as `threads`, its short form as `summary` and the bytes
/// each sweep reads and writes as `traffic`.
fn plan_json(plan: &Plan) -> Result<serde_json::Value, CliError> {
    let mut value = serde_json::to_value(plan)?;
    report::workers_as_threads(&mut value);
    if let Some(object) = value.as_object_mut() {
        object.insert("summary".to_owned(), serde_json::Value::String(plan.summary()));
        object.insert("traffic".to_owned(), serde_json::to_value(plan.traffic())?);
    }
    Ok(value)
}
