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

/// A placement domain: (kind rank, NUMA node, PUs of the L3).
type DomainKey = (usize, usize, Option<Vec<usize>>);

/// PUs for `workers` workers: one per core first, the fastest kind of core first (P-cores
/// before E-cores on a hybrid CPU), cores of a kind taken round-robin across (NUMA node, L3)
/// domains so consecutive workers land in different domains, packages and nodes (see
/// [`spread_domains`]); then the cores' second PUs, and so on; wrapping around when there are
/// more workers than PUs.
pub(crate) fn place(topo: &Topology, workers: usize) -> Vec<usize> {
    // Domains in order of first appearance, each with its cores' PU lists.
    let mut domains: Vec<(DomainKey, Vec<Vec<usize>>)> = Vec::new();
    let mut cores: Vec<(usize, Vec<usize>)> = (0..topo.cores)
        .filter_map(|core| {
            let pus: Vec<usize> = topo
                .pus
                .iter()
                .filter(|p| p.core == core)
                .map(|p| p.os_index)
                .collect();
            Some((topo.performance_rank(*pus.first()?), pus))
        })
        .collect();
    cores.sort_by_key(|(rank, _)| *rank);
    for (rank, pus) in cores {
        let first = pus[0];
        let numa = topo.pu(first).map_or(0, |p| p.numa_node);
        let key = (rank, numa, topo.cache(first, 3).map(|c| c.pus.clone()));
        match domains.iter_mut().find(|(k, _)| *k == key) {
            Some((_, cores)) => cores.push(pus),
            None => domains.push((key, vec![pus])),
        }
    }
    spread_domains(topo, &mut domains);
    let mut order = Vec::with_capacity(topo.pus.len());
    let max_smt = topo.pus.len();
    let max_cores = domains.iter().map(|d| d.1.len()).max().unwrap_or(0);
    let ranks = domains.iter().map(|d| d.0.0 + 1).max().unwrap_or(1);
    for sibling in 0..max_smt {
        for rank in 0..ranks {
            for c in 0..max_cores {
                for (_, cores) in domains.iter().filter(|d| d.0.0 == rank) {
                    if let Some(&pu) = cores.get(c).and_then(|pus| pus.get(sibling)) {
                        order.push(pu);
                    }
                }
            }
        }
        if order.len() == topo.pus.len() {
            break;
        }
    }
    (0..workers).map(|w| order[w % order.len()]).collect()
}

/// Orders (kind, NUMA node, L3) domains so that a round-robin over them visits every package
/// before a package's second node, and every node before a node's second L3: 4 workers on 2
/// sockets of 2 nodes take one node each, so each has a node's memory bandwidth and an L3.
fn spread_domains<T>(topo: &Topology, domains: &mut Vec<(DomainKey, T)>) {
    let mut keys: Vec<(usize, usize, usize, usize)> = Vec::with_capacity(domains.len());
    let mut nodes_seen: Vec<(usize, usize)> = Vec::new(); // (package, node) in first-seen order
    for (i, ((rank, node, _), _)) in domains.iter().enumerate() {
        let package = topo
            .numa_nodes
            .get(*node)
            .and_then(|n| n.pus.first())
            .and_then(|&p| topo.pu(p))
            .map_or(0, |p| p.package);
        if !nodes_seen.contains(&(package, *node)) {
            nodes_seen.push((package, *node));
        }
        let in_node = domains[..i]
            .iter()
            .filter(|d| d.0.0 == *rank && d.0.1 == *node)
            .count();
        let node_in_package = nodes_seen
            .iter()
            .filter(|s| s.0 == package)
            .position(|s| s.1 == *node);
        keys.push((*rank, in_node, node_in_package.unwrap_or(0), package));
    }
    let mut keyed: Vec<_> = keys.into_iter().zip(domains.drain(..)).collect();
    keyed.sort_by_key(|(key, _)| *key);
    domains.extend(keyed.into_iter().map(|(_, d)| d));
}

/// Each worker's share of the L2 and L3 over its PU: the cache's size divided by the number
/// of workers placed under it plus the cores outside the allowed cpuset that share it (other
/// processes use those; the allowed cores this pool leaves idle are its own to leave).
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
        let workers: usize = cache
            .pus
            .iter()
            .map(|pu| on_pu.get(pu).copied().unwrap_or(0))
            .sum();
        let sharers = (workers + cache.outside_cores).max(1);
        usize::try_from(cache.size_bytes / sharers as u64).unwrap_or(usize::MAX)
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
