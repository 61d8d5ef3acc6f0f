//! Where workers go: which PU each one is placed on, its cache budgets, and whom it steals
//! from first.

use std::collections::HashMap;

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

impl PinPolicy {
    /// Every policy, in the order [`PinPolicy::name`]s are listed in messages.
    pub const ALL: [Self; 3] = [Self::None, Self::Cores, Self::Pus];

    /// The policy's name as `NTT_PIN` and `--pin` spell it: `none`, `cores` or `pus`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Cores => "cores",
            Self::Pus => "pus",
            Self::None => "none",
        }
    }

    /// The policy named `name` (`none`, `cores` or `pus`, exactly), if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }
}

impl std::fmt::Display for PinPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
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

/// A placement domain: (kind rank, NUMA node, the L3 by its first PU). Caches of one level
/// have disjoint PU sets, so the first PU names the L3.
type DomainKey = (usize, usize, Option<usize>);

/// PUs for `workers` workers: one per core first, the fastest kind of core first (P-cores
/// before E-cores on a hybrid CPU), cores of a kind taken round-robin across (NUMA node, L3)
/// domains so consecutive workers land in different domains, packages and nodes (see
/// [`spread_domains`]); then the cores' second PUs, and so on; wrapping around when there are
/// more workers than PUs.
pub(crate) fn place(topo: &Topology, workers: usize) -> Vec<usize> {
    let caches = topo.cache_index();
    let l3_of = |pu: usize| {
        caches
            .get(&(3, pu))
            .and_then(|&i| topo.caches[i].pus.first().copied())
    };
    let mut cores: Vec<(usize, Vec<usize>)> = topo
        .core_pus()
        .into_iter()
        .filter_map(|pus| Some((topo.performance_rank(*pus.first()?), pus)))
        .collect();
    cores.sort_by_key(|(rank, _)| *rank);
    // Domains in order of first appearance, each with its cores' PU lists.
    let mut domains: Vec<(DomainKey, Vec<Vec<usize>>)> = Vec::new();
    let mut domain_of: HashMap<DomainKey, usize> = HashMap::new();
    for (rank, pus) in cores {
        let first = pus[0];
        let numa = topo.pu(first).map_or(0, |p| p.numa_node);
        let key = (rank, numa, l3_of(first));
        match domain_of.get(&key) {
            Some(&d) => domains[d].1.push(pus),
            None => {
                domain_of.insert(key, domains.len());
                domains.push((key, vec![pus]));
            }
        }
    }
    spread_domains(topo, &mut domains);
    let mut order = Vec::with_capacity(topo.pus.len());
    let max_smt = topo.pus.len();
    let max_cores = domains.iter().map(|d| d.1.len()).max().unwrap_or(0);
    let ranks = domains.iter().map(|d| d.0.0 + 1).max().unwrap_or(1);
    for sibling in 0..max_smt {
        for rank in 0..ranks {
            let of_rank: Vec<&Vec<Vec<usize>>> =
                domains.iter().filter(|d| d.0.0 == rank).map(|d| &d.1).collect();
            for c in 0..max_cores {
                for cores in &of_rank {
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
    // Counters instead of scans of the domains and nodes before, so this is linear in them.
    let mut domains_before: HashMap<(usize, usize), usize> = HashMap::new();
    let mut node_in_package: HashMap<(usize, usize), usize> = HashMap::new();
    let mut nodes_of_package: HashMap<usize, usize> = HashMap::new();
    for ((rank, node, _), _) in domains.iter() {
        let package = topo
            .numa_nodes
            .get(*node)
            .and_then(|n| n.pus.first())
            .and_then(|&p| topo.pu(p))
            .map_or(0, |p| p.package);
        // Nodes are numbered within their package in the order they are first seen.
        let nth_node = *node_in_package.entry((package, *node)).or_insert_with(|| {
            let seen = nodes_of_package.entry(package).or_default();
            *seen += 1;
            *seen - 1
        });
        let in_node = domains_before.entry((*rank, *node)).or_default();
        keys.push((*rank, *in_node, nth_node, package));
        *in_node += 1;
    }
    let mut keyed: Vec<_> = keys.into_iter().zip(domains.drain(..)).collect();
    keyed.sort_by_key(|(key, _)| *key);
    domains.extend(keyed.into_iter().map(|(_, d)| d));
}

/// Each worker's share of the L2 and L3 over its PU: the cache's size divided by the number
/// of workers placed under it plus the cores outside the allowed cpuset that share it (other
/// processes use those; the allowed cores this pool leaves idle are its own to leave).
pub(crate) fn budgets(topo: &Topology, cpus: &[usize]) -> Vec<WorkerBudget> {
    // Workers per PU, counted once, and workers per cache, summed once per cache, so the whole
    // is linear in the pool's and the machine's size.
    let mut on_pu = HashMap::<usize, usize>::new();
    for &cpu in cpus {
        *on_pu.entry(cpu).or_default() += 1;
    }
    let index = topo.cache_index();
    let mut under_cache = HashMap::<usize, usize>::new();
    let mut share = |cpu: usize, level: u8| {
        let at = *index
            .get(&(level, cpu))
            .expect("every PU has L1d, L2 and L3 entries");
        let cache = &topo.caches[at];
        let workers = *under_cache.entry(at).or_insert_with(|| {
            cache
                .pus
                .iter()
                .map(|pu| on_pu.get(pu).copied().unwrap_or(0))
                .sum()
        });
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

/// Each worker's nearness keys: the L2 and L3 over its PU (by their first PUs) and its NUMA node.
type NearKeys = (Option<usize>, Option<usize>, Option<usize>);

fn near_keys(topo: &Topology, cpus: &[usize]) -> Vec<NearKeys> {
    // A cache is identified by its first PU (caches of one level have disjoint PU sets).
    let index = topo.cache_index();
    let cache_id = |cpu: usize, level: u8| {
        index
            .get(&(level, cpu))
            .and_then(|&i| topo.caches[i].pus.first().copied())
    };
    cpus.iter()
        .map(|&cpu| {
            (
                cache_id(cpu, 2),
                cache_id(cpu, 3),
                topo.pu(cpu).map(|p| p.numa_node),
            )
        })
        .collect()
}

/// How near worker `b` is to worker `a`: 0 sharing an L2, 1 an L3, 2 a NUMA node, 3 none.
fn distance(keys: &[NearKeys], a: usize, b: usize) -> usize {
    let (ka, kb) = (keys[a], keys[b]);
    if ka.0.is_some() && ka.0 == kb.0 {
        0
    } else if ka.1.is_some() && ka.1 == kb.1 {
        1
    } else if ka.2 == kb.2 {
        2
    } else {
        3
    }
}

/// For each worker, the nearest [`STEAL_ORDER_LEN`] others in steal order: those sharing its
/// L2, then its L3, then its NUMA node, then everyone else; ties broken by distance in worker
/// index (so victims differ between workers and contention spreads).
///
/// Workers are grouped by each key once, so a worker walks only its groups: a class that is
/// reached at all has fewer than [`STEAL_ORDER_LEN`] nearer workers to skip, and the whole is
/// linear in the pool's size.
pub(crate) fn steal_orders(topo: &Topology, cpus: &[usize]) -> Vec<Vec<usize>> {
    let n = cpus.len();
    let keys = near_keys(topo, cpus);
    // Class k's candidates: the workers sharing key k (ascending), everyone for class 3.
    let mut groups: [HashMap<Option<usize>, Vec<usize>>; 3] = Default::default();
    for (w, k) in keys.iter().enumerate() {
        for (level, key) in [k.0, k.1, k.2].into_iter().enumerate() {
            groups[level].entry(key).or_default().push(w);
        }
    }
    let everyone: Vec<usize> = (0..n).collect();
    (0..n)
        .map(|w| {
            let mut victims = Vec::with_capacity(STEAL_ORDER_LEN.min(n));
            for class in 0..4 {
                if victims.len() == STEAL_ORDER_LEN {
                    break;
                }
                let candidates = match class {
                    0 if keys[w].0.is_none() => continue,
                    1 if keys[w].1.is_none() => continue,
                    0 => &groups[0][&keys[w].0],
                    1 => &groups[1][&keys[w].1],
                    2 => &groups[2][&keys[w].2],
                    _ => &everyone,
                };
                // By increasing index distance: the workers after `w`, then those before it.
                let after = candidates.partition_point(|&v| v <= w);
                let walk = candidates[after..].iter().chain(&candidates[..after]);
                let wanted = STEAL_ORDER_LEN - victims.len();
                victims.extend(
                    walk.copied()
                        .filter(|&v| v != w && distance(&keys, w, v) == class)
                        .take(wanted),
                );
            }
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

/// The CPUs a worker placed on PU `cpu` is bound to under `policy`: every PU of its core (from
/// `core_pus`, [`Topology::core_pus`]), just that PU, or none.
pub(crate) fn pin_set(topo: &Topology, core_pus: &[Vec<usize>], cpu: usize, policy: PinPolicy) -> Vec<usize> {
    match policy {
        PinPolicy::Cores => match topo.pu(cpu).and_then(|pu| core_pus.get(pu.core)) {
            Some(pus) => pus.clone(),
            None => vec![cpu],
        },
        PinPolicy::Pus => vec![cpu],
        PinPolicy::None => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::CpuKind;

    /// The straightforward versions, quadratic in the machine's size: what the linear ones
    /// must reproduce exactly.
    mod reference {
        use super::super::*;

        pub(super) fn place(topo: &Topology, workers: usize) -> Vec<usize> {
            type ListKey = (usize, usize, Option<Vec<usize>>);
            let mut domains: Vec<(ListKey, Vec<Vec<usize>>)> = Vec::new();
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
            let mut keys = Vec::new();
            let mut nodes_seen: Vec<(usize, usize)> = Vec::new();
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
            let mut order = Vec::new();
            let max_cores = domains.iter().map(|d| d.1.len()).max().unwrap_or(0);
            let ranks = domains.iter().map(|d| d.0.0 + 1).max().unwrap_or(1);
            for sibling in 0..topo.pus.len() {
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

        pub(super) fn budgets(topo: &Topology, cpus: &[usize]) -> Vec<WorkerBudget> {
            let share = |cpu: usize, level: u8| {
                let cache = topo.cache(cpu, level).expect("every level");
                let workers = cpus.iter().filter(|c| cache.pus.contains(c)).count();
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

        pub(super) fn steal_orders(topo: &Topology, cpus: &[usize]) -> Vec<Vec<usize>> {
            let n = cpus.len();
            let keys = near_keys(topo, cpus);
            (0..n)
                .map(|w| {
                    let mut classes: [Vec<usize>; 4] = Default::default();
                    for step in 1..n {
                        let v = (w + step) % n;
                        classes[distance(&keys, w, v)].push(v);
                    }
                    let mut victims = classes.concat();
                    victims.truncate(STEAL_ORDER_LEN);
                    victims
                })
                .collect()
        }
    }

    fn machines() -> Vec<Topology> {
        let mut machines: Vec<Topology> = [1, 2, 3, 7, 16, 33].map(Topology::with_defaults).into();
        for description in [
            "pack:2 numa:2 l3:2 l2:2 core:2 pu:2",
            "pack:2 l3:3 l2:1 core:5 pu:1",
            "pack:1 numa:3 l2:4 core:2 pu:2",
            "pack:3 core:4 pu:3",
        ] {
            machines.push(Topology::from_hwloc_synthetic(description, None).expect("hwloc builds it"));
        }
        // A hybrid CPU: the first 8 PUs are the slower kind.
        let mut hybrid = Topology::from_hwloc_synthetic("pack:1 l3:2 l2:4 core:2 pu:2", None).expect("hwloc");
        let pus: Vec<usize> = hybrid.pus.iter().map(|p| p.os_index).collect();
        hybrid.cpu_kinds = vec![
            CpuKind {
                pus: pus[..8].to_vec(),
                efficiency: Some(0),
                core_type: None,
            },
            CpuKind {
                pus: pus[8..].to_vec(),
                efficiency: Some(1),
                core_type: None,
            },
        ];
        machines.push(hybrid);
        // Only some PUs allowed, as under `taskset`.
        let allowed: Vec<usize> = (0..64).filter(|p| p % 3 != 1).collect();
        machines.push(
            Topology::from_hwloc_synthetic("pack:2 numa:2 l3:2 l2:2 core:2 pu:2", Some(&allowed))
                .expect("hwloc"),
        );
        machines
    }

    #[test]
    fn placements_budgets_and_steal_orders_match_the_reference() {
        for topo in machines() {
            let pus = topo.pus.len();
            for workers in [1, 2, pus / 2 + 1, pus, 2 * pus + 3] {
                let cpus = place(&topo, workers);
                assert_eq!(
                    cpus,
                    reference::place(&topo, workers),
                    "{pus} PUs, {workers} workers"
                );
                assert_eq!(budgets(&topo, &cpus), reference::budgets(&topo, &cpus));
                assert_eq!(
                    steal_orders(&topo, &cpus),
                    reference::steal_orders(&topo, &cpus),
                    "{pus} PUs, {workers} workers"
                );
            }
        }
    }
}
