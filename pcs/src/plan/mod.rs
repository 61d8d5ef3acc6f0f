//! The planner: a pure function from (shape, message, workers, per-worker cache budgets, backend
//! kind, forced values) to a [`Plan`] of passes over the codeword buffer, which says how each
//! pass runs: its geometry, the deep pass's schedule on the pool ([`DeepSchedule`]) and the
//! kernel of every radix-8 step ([`Radix8Kernel`]). The executor follows the plan.
//!
//! An expert module: a prover never needs it to commit. It is public for inspection and tuning
//! (`ntt plan`, the what-if reports for another machine's topology, `ntt tune`); an encoder's
//! own plan is [`Encoder::plan`](crate::Encoder::plan).
//!
//! ```text
//!   layers  r ............ deep_start ............ log_rows
//!           | gathered passes (strided   | deep pass (contiguous
//!           |  groups of 2^g rows sized  |  sub-blocks sized to the
//!           |  to the L2 unit)           |  L2 unit or the L3 share)
//! ```
//!
//! Layers below r are copies of the message (the replication trick) and never run. Every pass
//! reads and writes the buffer once (a *sweep*); the planner minimises sweeps first, then fills
//! the L2 unit with adjacent residues (the wide plan) where that costs no sweep. See
//! `docs/ARCHITECTURE.md` for the rules and why they carry to other machines.
//!
//! Each rule is a short function of its own, tested on its own:
//!
//! | rule                         | where                                   |
//! |------------------------------|-----------------------------------------|
//! | cache units                  | `budget`: `Units::new`                |
//! | streaming stores             | `budget`: `streaming`                 |
//! | deep budget (L2 or L3)       | `placement`: `deep_budget`            |
//! | sweeps (earliest deep start) | `placement`: `min_deep_start`         |
//! | layer placement              | `placement`: `place_layers`           |
//! | the narrow/wide gate         | `gate`: `gate`, recorded as [`GateReason`] |
//! | residues and column tiles    | `gathered`: `pass_residues`, `tile_columns` |
//! | copy or fuse the gather      | `gathered`: [`Gather`]                |
//! | transpose a lane-major message first | `transpose`: `transposes_first` |
//! | deep-task size               | `deep`: `task_log_subs`               |
//! | sink blocks                  | `deep`: `sink_plan`                   |
//! | deep schedule (loops, graph) | `schedule`: `deep_schedule`           |
//! | radix steps and L1 blocks    | `steps`: `step_layers`, `exceeds_l1`  |
//! | across-blocks last steps     | `radix8_kernel`: `radix8_kernel`      |
//!
//! Only the last rule depends on the backend kind (its vector width); the others see the
//! same strided and contiguous groups on every backend. The kind need not run on this CPU.

mod budget;
mod config;
mod deep;
mod display;
mod gate;
mod gathered;
mod placement;
pub mod radix8_kernel;
mod schedule;
pub(crate) mod steps;
mod traffic;
mod transpose;

pub use config::{DeepBudget, PlanConfig};
pub use display::bytes;
pub use gate::GateReason;
pub use gathered::Gather;
pub use radix8_kernel::{Radix8Kernel, Radix8Step, Radix8Steps};
pub use schedule::{DeepSchedule, MessageRead};
pub use traffic::SweepTraffic;
pub use transpose::{TRANSPOSE_CHUNK_BYTES, transpose_chunk_log_rows};

use crate::shape::{MessageLayout, Shape};
use budget::Units;
use gathered::Geometry;
use ntt_kernels::BackendKind;
use ntt_runtime::WorkerBudget;
use serde::{Deserialize, Serialize};

/// Most adjacent residues a wide group takes, as a log: 64 residues are 8 cache lines per lane of
/// a lane-major message, and runs of 64 rows are long enough for the prefetchers.
pub const MAX_LOG_RESIDUES: u32 = 6;
/// Fewest rows a deep task covers, as a log, so the sink receives blocks worth hashing.
pub const MIN_TASK_LOG_ROWS: u32 = 6;
/// A split for parallelism never cuts deep sub-blocks below 2^8 rows.
pub const MIN_SPLIT_LOG_ROWS: u32 = 8;
/// Below 2^12 rows the deep pass is not split for parallelism.
pub const PARALLEL_FLOOR_LOG_ROWS: u32 = 12;
/// A message group done in several blocks is cut into column tiles of at most this fraction of
/// the L2 unit (and at least a page per row): the source tile stays in L2 while every block
/// transforms it, beside the scratch tile, with room for the stores.
pub const TILE_FRACTION_OF_L2: usize = 4;
/// Bytes of a page: the run length a wide group's rows aim for.
pub const PAGE_BYTES: usize = 4096;
/// Budgets used when the pool reports none.
pub const FALLBACK_BUDGET: WorkerBudget = WorkerBudget {
    l2_bytes: 1 << 20,
    l3_bytes: 4 << 20,
};

/// Where a pass reads its rows from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The codeword buffer (written by an earlier pass).
    Buffer,
    /// A row-major message already in the first 1/2^r of the buffer.
    InPlaceMessage,
    /// A separate row-major message.
    MessageRows,
    /// A separate lane-major message, transposed in registers as it is gathered.
    MessageLanes,
}

impl Source {
    /// The source of a pass that consumes the message.
    pub fn of_message(layout: Option<MessageLayout>) -> Self {
        match layout {
            None => Self::InPlaceMessage,
            Some(MessageLayout::Rows) => Self::MessageRows,
            Some(MessageLayout::Lanes) => Self::MessageLanes,
        }
    }

    /// Whether the pass reads the message (rather than the codeword buffer).
    pub fn is_message(self) -> bool {
        self != Self::Buffer
    }
}

/// Layers `first_layer .. first_layer + log_group_rows` on strided groups: a group is the 2^g
/// rows `residue + i·2^log_step` of one layer-`first_layer` block, for 2^log_residues adjacent
/// residues (so each of its rows is `lanes << log_residues` contiguous words).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GatheredPass {
    /// The first layer the pass runs.
    pub first_layer: u32,
    /// Log of a group's rows: the layers the pass runs.
    pub log_group_rows: u32,
    /// Log of the adjacent residues a group takes together (the wide plan's widening).
    pub log_residues: u32,
    /// Log of the row distance between a group's rows.
    pub log_step: u32,
    /// Independent groups. With a message source a group is done in every block
    /// (2^first_layer of them, block 0 last, so an in-place message is overwritten last).
    pub groups: usize,
    /// Bytes of one group in scratch.
    pub group_bytes: usize,
    /// Columns (words of a row) a message group transforms at a time, in every block, before the
    /// next columns: the whole row unless the group is done in several blocks and is larger than
    /// a quarter of the L2 unit. Then each tile of the message is read once for all blocks.
    pub tile_columns: usize,
    /// Where the pass reads its rows.
    pub source: Source,
    /// How the first step gets the rows: straight from the source, or transposed first.
    pub gather: Gather,
    /// The kernel of each radix-8 step the groups run in scratch.
    pub radix8: Radix8Steps,
}

impl GatheredPass {
    /// The layer after the pass's last.
    pub fn end_layer(&self) -> u32 {
        self.first_layer + self.log_group_rows
    }
}

/// Layers `first_layer .. log_rows` on contiguous sub-blocks of 2^log_sub_rows rows; a task takes
/// 2^log_subs_per_task adjacent sub-blocks and hands its rows to the sink.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeepPass {
    /// The first layer the pass runs (it runs the rest).
    pub first_layer: u32,
    /// Log of a sub-block's rows.
    pub log_sub_rows: u32,
    /// Log of the adjacent sub-blocks one task takes.
    pub log_subs_per_task: u32,
    /// Tasks of the pass.
    pub tasks: usize,
    /// The cache a sub-block is sized to.
    pub budget: DeepBudget,
    /// Layers a sub-block runs as an in-cache gathered step before its L2-sized pieces
    /// (0 when the sub-block fits the L2 unit).
    pub inner_log_group_rows: u32,
    /// Log of the adjacent residues the inner step's groups take together.
    pub inner_log_residues: u32,
    /// Bytes of one sub-block.
    pub sub_bytes: usize,
    /// Where the pass reads its rows.
    pub source: Source,
    /// How the tasks run on the pool's workers.
    pub schedule: DeepSchedule,
    /// How they run when the encode stays on the calling thread (too small to hand off).
    pub inline_schedule: DeepSchedule,
    /// The kernel of each radix-8 step of a sub-block.
    pub radix8: Radix8Steps,
}

impl DeepPass {
    /// Rows of one L2-resident piece (the whole sub-block unless the L3 inner step splits it).
    pub fn log_piece_rows(&self) -> u32 {
        self.log_sub_rows - self.inner_log_group_rows
    }
}

/// How finished rows reach the sink.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SinkPlan {
    /// Every block handed over has 2^log_block_rows rows.
    pub log_block_rows: u32,
    /// Whether the deep-pass tasks hand their rows over while in cache; otherwise a final pass
    /// reads the buffer once more in blocks.
    pub fused: bool,
}

/// A schedule of passes for one shape, message layout, pool and backend.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Plan {
    /// The encode's shape.
    pub shape: Shape,
    /// `None`: the message is already in the buffer.
    pub layout: Option<MessageLayout>,
    /// Workers in the pool the plan is for.
    pub workers: usize,
    /// The kernel backend the plan is for.
    pub backend: BackendKind,
    /// The L2 unit (a gathered group or an L2 deep sub-block), bytes.
    pub l2_unit_bytes: usize,
    /// The L3 unit (an L3 deep sub-block), bytes.
    pub l3_unit_bytes: usize,
    /// Rows of the L2 unit, as a log.
    pub log_fit_l2: u32,
    /// Rows of the L3 unit, as a log.
    pub log_fit_l3: u32,
    /// The narrow/wide gate.
    pub wide: bool,
    /// Why the gate chose as it did.
    pub gate: GateReason,
    /// Non-temporal stores for rows a pass will not read back.
    pub stream: bool,
    /// The last-level cache the pool can use, bytes (per-worker L3 share × workers).
    pub llc_bytes: usize,
    /// First layer of the deep pass.
    pub deep_start: u32,
    /// A lane-major message is first transposed into the buffer's first rows (replica 0), in
    /// runs as long as a page of each lane, and the passes then run as for a message in place.
    #[serde(default)]
    pub transpose_first: bool,
    /// The transpose writes the message's rows with non-temporal stores: a message much larger
    /// than the last-level cache is read back from memory by the first pass anyway.
    #[serde(default)]
    pub transpose_stream: bool,
    /// The gathered passes, in order, before the deep pass.
    pub gathered: Vec<GatheredPass>,
    /// Every layer is a copy (r = log_rows): the codeword is the message row replicated.
    pub replicate_only: bool,
    /// The deep pass (`None` when every layer is a copy).
    pub deep: Option<DeepPass>,
    /// How finished rows reach the sink.
    pub sink: SinkPlan,
    /// Which forced values the plan used.
    pub config: PlanConfig,
}

impl Plan {
    /// Rows per sink block, as a log.
    pub fn sink_block_log_rows(&self) -> u32 {
        self.sink.log_block_rows
    }

    /// Full sweeps of the codeword buffer (read and write) the passes make, not counting the
    /// read of a separate message nor an unfused sink's read.
    pub fn sweeps(&self) -> usize {
        self.gathered.len() + usize::from(self.deep.is_some()) + usize::from(self.replicate_only)
    }
}

fn floor_log2(x: usize) -> u32 {
    usize::BITS - 1 - x.max(1).leading_zeros()
}

fn ceil_log2(x: usize) -> u32 {
    x.max(1).next_power_of_two().trailing_zeros()
}

/// Plans an encode of a separate message with the given layout.
pub fn plan(
    shape: Shape,
    layout: MessageLayout,
    workers: usize,
    budgets: &[WorkerBudget],
    backend: BackendKind,
    config: &PlanConfig,
) -> Plan {
    plan_for(shape, Some(layout), workers, budgets, backend, config)
}

/// Plans an encode whose message already sits in the first 1/2^r of the buffer.
pub fn plan_in_place(
    shape: Shape,
    workers: usize,
    budgets: &[WorkerBudget],
    backend: BackendKind,
    config: &PlanConfig,
) -> Plan {
    plan_for(shape, None, workers, budgets, backend, config)
}

/// The planner proper (`layout == None`: message in place). The shape must be valid
/// (`log_inv_rate ≤ log_rows`, `lanes ≥ 1`). `backend` chooses the radix-8 kernels (by its
/// vector width) and is recorded in the plan; it is a kind, which need not run on this CPU.
pub fn plan_for(
    shape: Shape,
    layout: Option<MessageLayout>,
    workers: usize,
    budgets: &[WorkerBudget],
    backend: BackendKind,
    config: &PlanConfig,
) -> Plan {
    let plan = plan_passes(shape, layout, workers, budgets, backend, config);
    if !transpose::transposes_first(&plan, config) {
        return plan;
    }
    let passes = plan_passes(shape, None, workers, budgets, backend, config);
    Plan {
        layout,
        transpose_first: true,
        transpose_stream: transpose::streams(shape.message_words() * 8, passes.llc_bytes, config),
        ..passes
    }
}

/// The passes of [`plan_for`]'s plan for a message in the given layout, as it would be read by
/// the passes themselves.
fn plan_passes(
    shape: Shape,
    layout: Option<MessageLayout>,
    workers: usize,
    budgets: &[WorkerBudget],
    backend: BackendKind,
    config: &PlanConfig,
) -> Plan {
    let workers = workers.max(1);
    let n = shape.lanes();
    let log_d = shape.log_rows();
    let start = shape.log_inv_rate();
    let message = Source::of_message(layout);
    let units = Units::new(n, workers, budgets, config);

    let placement = place(shape, workers, &units, config);
    let first_pass = placement.split.first().map(|&g| (g, log_d - start - g));
    let gate = gate::gate(n, first_pass, &units, config);
    let geometry = Geometry {
        lanes: n,
        log_rows: log_d,
        workers,
        message,
        backend,
    };
    let gathered = gathered::gathered_passes(&geometry, start, &placement.split, &gate, &units, config);
    let stream = budget::streaming(config);
    let deep = scheduled_deep(
        &geometry,
        start,
        layout,
        placement.deep_start,
        gathered.is_empty(),
        &units,
        stream,
    );

    Plan {
        shape,
        layout,
        workers,
        backend,
        l2_unit_bytes: units.l2_bytes,
        l3_unit_bytes: units.l3_bytes,
        log_fit_l2: units.log_fit_l2,
        log_fit_l3: units.log_fit_l3,
        wide: gate.wide,
        gate: gate.reason,
        stream,
        llc_bytes: units.llc_bytes,
        deep_start: placement.deep_start,
        transpose_first: false,
        transpose_stream: false,
        gathered,
        replicate_only: start == log_d,
        sink: deep::sink_plan(deep.as_ref(), log_d, workers),
        deep,
        config: config.clone(),
    }
}

/// The deep pass from layer `deep_start`, scheduled for the geometry's workers: it reads the
/// message when no gathered pass (`first`) ran before it.
fn scheduled_deep(
    geometry: &Geometry,
    start: u32,
    layout: Option<MessageLayout>,
    deep_start: u32,
    first: bool,
    units: &Units,
    stream: bool,
) -> Option<DeepPass> {
    let (n, log_d) = (geometry.lanes, geometry.log_rows);
    let source = if first { geometry.message } else { Source::Buffer };
    let context = schedule::Context {
        lanes: n,
        log_rows: log_d,
        layout,
        stream,
    };
    deep::deep_pass((n, log_d, start), deep_start, source, units)
        .map(|d| deep::scheduled(d, &context, geometry.workers, geometry.backend))
}

/// Where the layers go: the gathered passes' split and the deep pass's first layer, the deep
/// sub-blocks sized for the cache (L2 or L3) the codeword's size calls for.
fn place(shape: Shape, workers: usize, units: &Units, config: &PlanConfig) -> placement::Placement {
    let (log_d, start) = (shape.log_rows(), shape.log_inv_rate());
    let codeword_bytes = shape.codeword_words().saturating_mul(8);
    let deep_fit = match placement::deep_budget(log_d - start, codeword_bytes, units, config) {
        DeepBudget::L2 => units.log_fit_l2,
        DeepBudget::L3 => units.log_fit_l3,
    };
    let min_deep = placement::min_deep_start(log_d, start, deep_fit, workers);
    placement::place_layers(start, log_d, min_deep, units.log_fit_l2, config.gathered_passes)
}
