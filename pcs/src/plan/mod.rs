//! The planner: a pure function from (shape, message, workers, per-worker cache budgets, backend,
//! forced values) to a [`Plan`] of passes over the codeword buffer.
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
//! `docs/ARCHITECTURE.md` for the rule and why it carries to other machines.

mod config;
mod display;
pub mod narrow;

pub use config::{DeepBudget, PlanConfig};
pub use display::bytes;

use crate::encoder::{MessageLayout, Shape};
use ntt_kernels::{Backend, BackendKind};
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
    pub fn is_message(self) -> bool {
        self != Self::Buffer
    }
}

/// Layers `first_layer .. first_layer + log_group_rows` on strided groups: a group is the 2^g
/// rows `residue + i·2^log_step` of one layer-`first_layer` block, for 2^log_residues adjacent
/// residues (so each of its rows is `lanes << log_residues` contiguous words).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GatheredPass {
    pub first_layer: u32,
    pub log_group_rows: u32,
    pub log_residues: u32,
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
    pub source: Source,
}

impl GatheredPass {
    pub fn end_layer(&self) -> u32 {
        self.first_layer + self.log_group_rows
    }
}

/// Layers `first_layer .. log_rows` on contiguous sub-blocks of 2^log_sub_rows rows; a task takes
/// 2^log_subs_per_task adjacent sub-blocks and hands its rows to the sink.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeepPass {
    pub first_layer: u32,
    pub log_sub_rows: u32,
    pub log_subs_per_task: u32,
    pub tasks: usize,
    pub budget: DeepBudget,
    /// Layers a sub-block runs as an in-cache gathered step before its L2-sized pieces
    /// (0 when the sub-block fits the L2 unit).
    pub inner_log_group_rows: u32,
    pub inner_log_residues: u32,
    /// Bytes of one sub-block.
    pub sub_bytes: usize,
    pub source: Source,
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
pub struct Plan {
    pub shape: Shape,
    /// `None`: the message is already in the buffer.
    pub layout: Option<MessageLayout>,
    pub workers: usize,
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
    /// Non-temporal stores for rows a pass will not read back.
    pub stream: bool,
    /// The last-level cache the pool can use, bytes (per-worker L3 share × workers).
    pub llc_bytes: usize,
    /// First layer of the deep pass.
    pub deep_start: u32,
    pub gathered: Vec<GatheredPass>,
    /// Every layer is a copy (r = log_rows): the codeword is the message row replicated.
    pub replicate_only: bool,
    pub deep: Option<DeepPass>,
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

/// Splits `layers` into `parts` passes of 1..=`cap` layers each, minimising the radix steps
/// Σ ⌈g/3⌉ (ties: earlier passes larger). `None` when it cannot be done.
fn split_layers(layers: u32, parts: u32, cap: u32) -> Option<(u32, Vec<u32>)> {
    if parts == 0 {
        return (layers == 0).then(|| (0, Vec::new()));
    }
    if layers < parts || layers > parts * cap {
        return None;
    }
    let mut best: Option<(u32, Vec<u32>)> = None;
    for g in (1..=cap.min(layers - (parts - 1))).rev() {
        if let Some((cost, rest)) = split_layers(layers - g, parts - 1, cap) {
            let cost = cost + g.div_ceil(3);
            if best.as_ref().is_none_or(|b| cost < b.0) {
                let mut split = vec![g];
                split.extend(rest);
                best = Some((cost, split));
            }
        }
    }
    best
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
    backend: Backend,
    config: &PlanConfig,
) -> Plan {
    plan_for(shape, Some(layout), workers, budgets, backend, config)
}

/// Plans an encode whose message already sits in the first 1/2^r of the buffer.
pub fn plan_in_place(
    shape: Shape,
    workers: usize,
    budgets: &[WorkerBudget],
    backend: Backend,
    config: &PlanConfig,
) -> Plan {
    plan_for(shape, None, workers, budgets, backend, config)
}

/// The planner proper (`layout == None`: message in place). The shape must be valid
/// (`log_inv_rate ≤ log_rows`, `lanes ≥ 1`).
pub fn plan_for(
    shape: Shape,
    layout: Option<MessageLayout>,
    workers: usize,
    budgets: &[WorkerBudget],
    backend: Backend,
    config: &PlanConfig,
) -> Plan {
    let workers = workers.max(1);
    let n = shape.lanes.max(1);
    let log_d = shape.log_rows;
    let start = shape.log_inv_rate.min(log_d);
    let message = Source::of_message(layout);

    // Budgets: the smallest worker's share, so every worker's unit fits its own cache.
    let min_l2 = budgets
        .iter()
        .map(|b| b.l2_bytes)
        .min()
        .unwrap_or(FALLBACK_BUDGET.l2_bytes);
    let min_l3 = budgets
        .iter()
        .map(|b| b.l3_bytes)
        .min()
        .unwrap_or(FALLBACK_BUDGET.l3_bytes);
    let max_l3 = budgets
        .iter()
        .map(|b| b.l3_bytes)
        .max()
        .unwrap_or(FALLBACK_BUDGET.l3_bytes);
    let l2_unit_bytes = config.l2_bytes.unwrap_or(min_l2).max(64);
    let l3_unit_bytes = config.l3_bytes.unwrap_or(min_l3 / 2).max(l2_unit_bytes);
    let llc_bytes = max_l3.saturating_mul(workers);
    let fit = |bytes: usize| floor_log2(bytes / 8 / n);
    // A unit holds at least 2 rows, so every pass makes progress.
    let log_fit_l2 = fit(l2_unit_bytes).max(1);
    // An L3 sub-block is run as one in-cache gathered step plus L2 pieces: at most 2× the L2 layers.
    let log_fit_l3 = fit(l3_unit_bytes).clamp(log_fit_l2, 2 * log_fit_l2);

    let layers = log_d - start;
    let codeword_bytes = shape.codeword_words().saturating_mul(8);
    let gathered_passes = |deep_fit: u32| layers.saturating_sub(deep_fit).div_ceil(log_fit_l2);
    // The L3 deep pass pays for itself only when the buffer lives in DRAM (a buffer inside the
    // LLC is swept at cache speed either way) and it saves a whole sweep; it keeps one gathered
    // pass, which reads the message, so the L3 sub-blocks never stage the message in scratch.
    let l3_saves_a_sweep = log_fit_l3 > log_fit_l2
        && codeword_bytes > llc_bytes
        && layers > log_fit_l3
        && gathered_passes(log_fit_l3) < gathered_passes(log_fit_l2);
    let deep_budget = config.deep.unwrap_or(if l3_saves_a_sweep {
        DeepBudget::L3
    } else {
        DeepBudget::L2
    });
    let deep_fit = match deep_budget {
        DeepBudget::L2 => log_fit_l2,
        DeepBudget::L3 => log_fit_l3,
    };
    let par_log = if log_d >= PARALLEL_FLOOR_LOG_ROWS {
        ceil_log2(workers).min(log_d - MIN_SPLIT_LOG_ROWS)
    } else {
        0
    };
    let min_deep_start = log_d.saturating_sub(deep_fit).max(par_log).max(start).min(log_d);

    // Gathered passes: as few as the L2 unit allows (each is a sweep). Within that number of
    // sweeps, the layers are placed so that as many as possible run as radix-8 steps: a pass of
    // g layers runs ⌈g/3⌉ steps over its cached unit, so 9 + 9 beats 7 + 11. Among placements
    // with as few steps, the first whose gathered passes all have a full radix-8 step (3 layers
    // or more): a gathered pass streams the buffer from memory whatever it computes, so giving
    // it 3 layers rather than 1 or 2 moves work off the cache-bound deep pass for free (and
    // leaves the deep sub-block room in L2).
    let passes = (min_deep_start - start).div_ceil(log_fit_l2);
    let full_steps = |split: &[u32]| split.iter().all(|&g| g >= 3);
    let mut best: Option<(u32, u32, Vec<u32>)> = None;
    if passes > 0 {
        let last = (start + passes * log_fit_l2).min(log_d - 1);
        for deep_start in min_deep_start..=last.max(min_deep_start) {
            let Some((cost, split)) = split_layers(deep_start - start, passes, log_fit_l2) else {
                continue;
            };
            let cost = cost + (log_d - deep_start).div_ceil(3);
            let better = |b: &(u32, u32, Vec<u32>)| {
                cost < b.0 || (cost == b.0 && !full_steps(&b.2) && full_steps(&split))
            };
            if best.as_ref().is_none_or(better) {
                best = Some((cost, deep_start, split));
            }
        }
    }
    let (deep_start, split) = match best {
        Some((_, deep_start, split)) => (deep_start, split),
        // No gathered pass needed (the smallest deep start always splits when one is).
        None => {
            let layers = min_deep_start - start;
            let split = (0..passes)
                .map(|p| layers / passes + u32::from(p < layers % passes))
                .collect();
            (min_deep_start, split)
        }
    };
    let unit_words = l2_unit_bytes / 8;
    let residues_that_fit = |g: u32| floor_log2(unit_words / (n << g).max(1));
    let mut gathered = Vec::with_capacity(passes as usize);
    // Residues a wide group takes: enough for its rows to be page-long runs (4 KiB: a strided
    // row shorter than a page costs a TLB entry and a DRAM page per row), at least what the L2
    // unit holds, never more than twice the unit holds.
    let page_runs = |_g: u32| ceil_log2(PAGE_BYTES.div_ceil(8 * n));
    let share_fit = |g: u32| floor_log2((2 * unit_words) / (n << g).max(1));
    let wide_residues = |g: u32| {
        residues_that_fit(g)
            .max(page_runs(g))
            .min(share_fit(g))
            .min(MAX_LOG_RESIDUES)
    };
    let mut wide = config.wide.unwrap_or(false);
    let mut layer = start;
    for (p, &g) in split.iter().enumerate() {
        let log_step = log_d - layer - g;
        if p == 0 && config.wide.is_none() {
            // The gate: wide when at least two adjacent residues fit (see `wide_residues`).
            wide = wide_residues(g) >= 1 && log_step >= 1;
        }
        let source = if p == 0 { message } else { Source::Buffer };
        let blocks_per_group = if source.is_message() { 1 } else { 1usize << layer };
        let mut log_r = if wide {
            let derived = if config.wide == Some(true) {
                wide_residues(g).max(3)
            } else {
                wide_residues(g)
            };
            config.log_residues.unwrap_or(derived).min(log_step)
        } else {
            0
        };
        // Keep a few groups per worker unless the residues were forced.
        if config.log_residues.is_none() {
            while log_r > 0 && (blocks_per_group << (log_step - log_r)) < 4 * workers {
                log_r -= 1;
            }
        }
        let width = n << log_r;
        let tile_columns = if source.is_message() && layer > 0 {
            // Never shorter than a page per row: shorter strided runs cost a DRAM page and a
            // TLB entry each.
            let fit = (l2_unit_bytes / TILE_FRACTION_OF_L2 / 8) >> g;
            (fit / 8 * 8).max(PAGE_BYTES / 8).min(width)
        } else {
            width
        };
        gathered.push(GatheredPass {
            first_layer: layer,
            log_group_rows: g,
            log_residues: log_r,
            log_step,
            groups: blocks_per_group << (log_step - log_r),
            group_bytes: (width << g) * 8,
            tile_columns,
            source,
        });
        layer += g;
    }

    let deep = (deep_start < log_d).then(|| {
        let log_sub = log_d - deep_start;
        let source = if gathered.is_empty() {
            message
        } else {
            Source::Buffer
        };
        // A task that reads the message stays inside one replica.
        let max_group = if source.is_message() {
            deep_start - start
        } else {
            deep_start
        };
        let log_group = MIN_TASK_LOG_ROWS.saturating_sub(log_sub).min(max_group);
        let inner_g = log_sub.saturating_sub(log_fit_l2);
        let inner_log_r = if inner_g > 0 {
            residues_that_fit(inner_g)
                .min(MAX_LOG_RESIDUES)
                .min(log_sub - inner_g)
        } else {
            0
        };
        DeepPass {
            first_layer: deep_start,
            log_sub_rows: log_sub,
            log_subs_per_task: log_group,
            tasks: 1usize << (deep_start - log_group),
            budget: if inner_g > 0 {
                DeepBudget::L3
            } else {
                DeepBudget::L2
            },
            inner_log_group_rows: inner_g,
            inner_log_residues: inner_log_r,
            sub_bytes: (n << log_sub) * 8,
            source,
        }
    });

    let sink = match &deep {
        Some(d) if d.inner_log_group_rows > 0 => SinkPlan {
            log_block_rows: d.log_piece_rows(),
            fused: true,
        },
        Some(d) => SinkPlan {
            log_block_rows: d.log_sub_rows + d.log_subs_per_task,
            fused: true,
        },
        None => SinkPlan {
            log_block_rows: log_d - ceil_log2(4 * workers).min(log_d),
            fused: false,
        },
    };

    Plan {
        shape,
        layout,
        workers,
        backend: backend.kind(),
        l2_unit_bytes,
        l3_unit_bytes,
        log_fit_l2,
        log_fit_l3,
        wide,
        stream: config.stream.unwrap_or(codeword_bytes > llc_bytes),
        llc_bytes,
        deep_start,
        gathered,
        replicate_only: start == log_d,
        deep,
        sink,
        config: config.clone(),
    }
}
