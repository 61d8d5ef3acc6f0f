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
    /// The other workers in the order this one steals from them: sharing its L2, then its L3,
    /// then its NUMA node, then the rest.
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
    let share = |cpu: usize, level: u8| {
        let cache = topo
            .cache(cpu, level)
            .expect("every PU has L1d, L2 and L3 entries");
        let sharers = (cpus.iter().filter(|c| cache.pus.contains(c)).count() + cache.outside_cores).max(1);
        usize::try_from(cache.size_bytes / sharers as u64).unwrap_or(usize::MAX)
    };
    cpus.iter()
        .map(|&cpu| WorkerBudget {
            l2_bytes: share(cpu, 2),
            l3_bytes: share(cpu, 3),
        })
        .collect()
}

/// For each worker, the others in steal order: those sharing its L2, then its L3, then its
/// NUMA node, then everyone else; ties broken by distance in worker index (so victims differ
/// between workers and contention spreads).
pub(crate) fn steal_orders(topo: &Topology, cpus: &[usize]) -> Vec<Vec<usize>> {
    let n = cpus.len();
    let distance = |a: usize, b: usize| {
        let same = |level| match (topo.cache(cpus[a], level), topo.cache(cpus[b], level)) {
            (Some(x), Some(y)) => x.pus == y.pus,
            _ => false,
        };
        let node = |w: usize| topo.pu(cpus[w]).map(|p| p.numa_node);
        if same(2) {
            0
        } else if same(3) {
            1
        } else if node(a) == node(b) {
            2
        } else {
            3
        }
    };
    (0..n)
        .map(|w| {
            let mut victims: Vec<usize> = (0..n).filter(|&v| v != w).collect();
            victims.sort_by_key(|&v| (distance(w, v), (v + n - w) % n));
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
