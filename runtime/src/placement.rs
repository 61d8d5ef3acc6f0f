//! Where workers go: which PU each one is placed on, its cache budgets, and whom it steals
//! from first.

use serde::{Deserialize, Serialize};

use crate::topology::{Topology, WorkerBudget};

/// How workers are pinned to CPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PinPolicy {
    /// Each worker may run on every PU of its core (SMT siblings included).
    Cores,
    /// Each worker is bound to exactly one PU.
    Pus,
    /// Workers are placed logically (budgets, steal order) but not bound.
    None,
}

/// Where one worker was placed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkerPlacement {
    /// OS index of the PU the worker is placed on (its core's first PU under
    /// [`PinPolicy::Cores`]).
    pub cpu: usize,
    /// Index of that PU's core in `0..Topology::cores`.
    pub core: usize,
    /// Index of that PU's NUMA node in `Topology::numa_nodes`.
    pub numa_node: usize,
    /// The CPUs the worker thread is bound to (empty when not pinned or pinning failed).
    pub bound_to: Vec<usize>,
    /// The nearest other workers (at most 16), in the order this one steals from them: sharing
    /// its L2, then its L3, then its NUMA node, then the rest.
    pub steal_order: Vec<usize>,
}

/// PUs for `workers` workers: one per core first, cores taken round-robin across
/// (NUMA node, L3) domains so consecutive workers land in different domains; then the cores'
/// second PUs, and so on; wrapping around when there are more workers than PUs.
pub(crate) fn place(topo: &Topology, workers: usize) -> Vec<usize> {
    // Domains keyed by (NUMA node, PUs of the L3), in order of first appearance, each with
    // its cores' PU lists.
    type DomainKey = (usize, Option<Vec<usize>>);
    let mut domains: Vec<(DomainKey, Vec<Vec<usize>>)> = Vec::new();
    for core in 0..topo.cores {
        let pus: Vec<usize> = topo
            .pus
            .iter()
            .filter(|p| p.core == core)
            .map(|p| p.os_index)
            .collect();
        let Some(&first) = pus.first() else { continue };
        let numa = topo.pu(first).map_or(0, |p| p.numa_node);
        let key = (numa, topo.cache(first, 3).map(|c| c.pus.clone()));
        match domains.iter_mut().find(|(k, _)| *k == key) {
            Some((_, cores)) => cores.push(pus),
            None => domains.push((key, vec![pus])),
        }
    }
    let mut order = Vec::with_capacity(topo.pus.len());
    let max_smt = topo.pus.len();
    let max_cores = domains.iter().map(|d| d.1.len()).max().unwrap_or(0);
    for sibling in 0..max_smt {
        for c in 0..max_cores {
            for (_, cores) in &domains {
                if let Some(&pu) = cores.get(c).and_then(|pus| pus.get(sibling)) {
                    order.push(pu);
                }
            }
        }
        if order.len() == topo.pus.len() {
            break;
        }
    }
    (0..workers).map(|w| order[w % order.len()]).collect()
}

/// Each worker's share of the L2 and L3 over its PU: the cache's size divided by the number
/// of workers placed under it.
pub(crate) fn budgets(topo: &Topology, cpus: &[usize]) -> Vec<WorkerBudget> {
    // Workers per PU, counted once, so a cache's sharers are a sum over its PUs (linear in the
    // pool's size rather than quadratic).
    let mut on_pu = std::collections::HashMap::<usize, usize>::new();
    for &cpu in cpus {
        *on_pu.entry(cpu).or_default() += 1;
    }
    let share = |cpu: usize, level: u8| {
        let cache = topo
            .cache(cpu, level)
            .expect("every PU has L1d, L2 and L3 entries");
        let sharers: usize = cache
            .pus
            .iter()
            .map(|pu| on_pu.get(pu).copied().unwrap_or(0))
            .sum();
        usize::try_from(cache.size_bytes / sharers.max(1) as u64).unwrap_or(usize::MAX)
    };
    cpus.iter()
        .map(|&cpu| WorkerBudget {
            l2_bytes: share(cpu, 2),
            l3_bytes: share(cpu, 3),
        })
        .collect()
}

/// How many workers a steal order lists: the nearest. An idle worker probes the first few
/// and a waker scans as many for a parked one; farther workers are reached through targeted
/// wake-ups, so listing all of them would cost time and memory quadratic in the pool's size
/// (a 4096-worker pool would spend seconds and hundreds of MiB on it).
pub(crate) const STEAL_ORDER_LEN: usize = 16;

/// For each worker, the nearest [`STEAL_ORDER_LEN`] others in steal order: those sharing its
/// L2, then its L3, then its NUMA node, then everyone else; ties broken by distance in worker
/// index (so victims differ between workers and contention spreads).
pub(crate) fn steal_orders(topo: &Topology, cpus: &[usize]) -> Vec<Vec<usize>> {
    let n = cpus.len();
    // A cache is identified by its first PU (caches of one level have disjoint PU sets); the
    // keys are computed once per worker so the O(n^2) comparison below is integer work.
    let cache_id = |cpu: usize, level: u8| topo.cache(cpu, level).and_then(|c| c.pus.first().copied());
    let keys: Vec<(Option<usize>, Option<usize>, Option<usize>)> = cpus
        .iter()
        .map(|&cpu| {
            (
                cache_id(cpu, 2),
                cache_id(cpu, 3),
                topo.pu(cpu).map(|p| p.numa_node),
            )
        })
        .collect();
    let distance = |a: usize, b: usize| {
        let (ka, kb) = (keys[a], keys[b]);
        if ka.0.is_some() && ka.0 == kb.0 {
            0u8
        } else if ka.1.is_some() && ka.1 == kb.1 {
            1
        } else if ka.2 == kb.2 {
            2
        } else {
            3
        }
    };
    (0..n)
        .map(|w| {
            // Walking the others by increasing index distance fills each distance class in
            // tie-break order, so the first `STEAL_ORDER_LEN` of each class are all we keep.
            let mut classes: [Vec<usize>; 4] = Default::default();
            for step in 1..n {
                let v = (w + step) % n;
                let class = &mut classes[distance(w, v) as usize];
                if class.len() < STEAL_ORDER_LEN {
                    class.push(v);
                }
                if classes[0].len() == STEAL_ORDER_LEN {
                    // The nearest class alone fills the list (typical when workers share PUs).
                    break;
                }
            }
            let mut victims: Vec<usize> = classes.concat();
            victims.truncate(STEAL_ORDER_LEN);
            victims
        })
        .collect()
}

/// Binds the calling thread to `cpus`.
pub(crate) fn bind_current_thread(cpus: &[usize]) -> Result<(), String> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `cpu_set_t` is plain data; all-zero is a valid (empty) set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        for &cpu in cpus {
            if cpu >= libc::CPU_SETSIZE as usize {
                return Err(format!("cpu {cpu} beyond CPU_SETSIZE"));
            }
            // SAFETY: `cpu < CPU_SETSIZE`, checked above.
            unsafe { libc::CPU_SET(cpu, &mut set) };
        }
        // SAFETY: `set` is a valid `cpu_set_t` of the size passed; pid 0 is this thread.
        let rc = unsafe { libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &set) };
        if rc == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error().to_string())
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = cpus;
        Err("pinning is implemented for Linux only".into())
    }
}

/// The CPUs a worker placed on PU `cpu` is bound to under `policy`: every PU of its core, just
/// that PU, or none.
pub(crate) fn pin_set(topo: &Topology, cpu: usize, policy: PinPolicy) -> Vec<usize> {
    match policy {
        PinPolicy::Cores => match topo.pu(cpu) {
            Some(pu) => topo
                .pus
                .iter()
                .filter(|p| p.core == pu.core)
                .map(|p| p.os_index)
                .collect(),
            None => vec![cpu],
        },
        PinPolicy::Pus => vec![cpu],
        PinPolicy::None => Vec::new(),
    }
}
