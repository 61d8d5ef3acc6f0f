//! Where a pool's workers would go on a topology, without starting them: placements, budgets,
//! steal orders, and which worker first touches which part of a buffer. What a pool built on
//! the same topology uses, and what a report on another machine's topology shows.

use std::ops::Range;

use serde::{Deserialize, Serialize};

use super::{Topology, WorkerBudget};
use crate::placement::{self, PinPolicy, WorkerPlacement};

/// The workers of a pool on a topology, as [`crate::ThreadPoolBuilder::build`] would place them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkerLayout {
    /// The pinning policy (the default resolved as the builder resolves it).
    pub pin: PinPolicy,
    /// Where each worker goes, indexed by worker; `bound_to` is what it would be bound to.
    pub placements: Vec<WorkerPlacement>,
    /// Each worker's cache budgets, indexed by worker.
    pub budgets: Vec<WorkerBudget>,
}

/// A contiguous part of a buffer and the worker that first touches it (so the kernel puts its
/// pages on that worker's NUMA node).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FirstTouch {
    /// Byte range within the buffer.
    pub bytes: Range<usize>,
    /// The worker that touches it first.
    pub worker: usize,
    /// That worker's NUMA node (index into [`Topology::numa_nodes`]).
    pub numa_node: usize,
}

impl WorkerLayout {
    /// `workers` workers (at least 1) on `topology`; `pin` `None` means the pool's default:
    /// [`PinPolicy::Cores`] when there is a core per worker, else [`PinPolicy::None`].
    pub fn new(topology: &Topology, workers: usize, pin: Option<PinPolicy>) -> Self {
        let workers = workers.max(1);
        let pin = pin.unwrap_or(if workers <= topology.cores {
            PinPolicy::Cores
        } else {
            PinPolicy::None
        });
        let cpus = placement::place(topology, workers);
        let budgets = placement::budgets(topology, &cpus);
        let core_pus = topology.core_pus();
        let placements = cpus
            .iter()
            .zip(placement::steal_orders(topology, &cpus))
            .map(|(&cpu, steal_order)| {
                let pu = topology.pu(cpu).expect("placed on an allowed PU");
                WorkerPlacement {
                    cpu,
                    core: pu.core,
                    numa_node: pu.numa_node,
                    bound_to: placement::pin_set(topology, &core_pus, cpu, pin),
                    steal_order,
                }
            })
            .collect();
        Self {
            pin,
            placements,
            budgets,
        }
    }

    /// The first-touch parts of a `len`-byte buffer for these workers (see [`first_touch`]).
    pub fn first_touch(&self, len: usize, unit: usize) -> Vec<FirstTouch> {
        first_touch(&self.placements, len, unit)
    }
}

/// Splits a buffer of `len` bytes into one contiguous part per worker, for first touch: the
/// workers of NUMA node 0 take the first parts, node 1's the next, and so on, so each node's
/// memory is one range; within a node, by worker index. Cuts fall on multiples of `unit` bytes
/// (the plan's task size: a task's rows never straddle two nodes) and the units are dealt as
/// evenly as they go; parts are empty when there are fewer units than workers.
pub fn first_touch(placements: &[WorkerPlacement], len: usize, unit: usize) -> Vec<FirstTouch> {
    let unit = unit.max(1);
    let units = len.div_ceil(unit);
    let mut workers: Vec<usize> = (0..placements.len()).collect();
    workers.sort_by_key(|&w| (placements[w].numa_node, w));
    let n = workers.len().max(1);
    workers
        .iter()
        .enumerate()
        .map(|(i, &worker)| {
            let cut = |i: usize| (units * i / n * unit).min(len);
            FirstTouch {
                bytes: cut(i)..cut(i + 1),
                worker,
                numa_node: placements[worker].numa_node,
            }
        })
        .collect()
}
