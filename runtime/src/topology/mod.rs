//! The machine as the runtime sees it: processing units, cores, caches, NUMA nodes, and the
//! cpuset this process may run on.
//!
//! Detection tries hwloc first (when built with the `hwloc` feature), then Linux sysfs, then
//! documented defaults ([`defaults`]); every cache records where its size came from
//! ([`Provenance`]) and every fallback adds a line to [`Topology::warnings`], so a report can
//! say how much to trust it.

mod defaults;
#[cfg(feature = "hwloc")]
mod hwloc;
mod layout;
mod spec;
mod synthetic;
mod sysfs;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

pub use defaults::{DEFAULT_L1D_BYTES, DEFAULT_L2_BYTES, DEFAULT_L3_BYTES_PER_CORE};
pub use layout::{FirstTouch, WorkerLayout, first_touch};
pub use spec::{TOPOLOGY_ENV, TopologyError, TopologySpec};

/// The most PUs a topology may describe: 8192, Linux's own largest configuration
/// (`NR_CPUS` with `MAXSMP`). Another machine's topology (an XML export, a synthetic
/// description) with more is refused; a synthetic one before anything is allocated for it.
pub const MAX_PUS: usize = 8192;

/// Largest hwloc XML export read: an export is about 1 KiB per PU with its caches, so 8 MiB
/// holds every machine up to [`MAX_PUS`] with room to spare.
pub const MAX_XML_BYTES: u64 = 8 << 20;

/// Whether this build reads topologies through hwloc (the `hwloc` cargo feature). Without it,
/// this machine's topology comes from Linux sysfs, else documented defaults
/// ([`Topology::source`] says which), and another machine's XML export cannot be loaded
/// (synthetic descriptions are built without hwloc either way).
pub const HWLOC_ENABLED: bool = cfg!(feature = "hwloc");

/// Per-worker cache budgets derived from the topology: a cache's size divided among the
/// workers placed under it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkerBudget {
    /// This worker's share of its L2 cache, in bytes.
    pub l2_bytes: usize,
    /// This worker's share of its L3 cache, in bytes.
    pub l3_bytes: usize,
}

/// Where a piece of the topology came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Provenance {
    /// The hwloc library, or a synthetic description in its grammar (built here as hwloc
    /// builds it, see [`Topology::from_hwloc_synthetic`]).
    Hwloc,
    /// Linux sysfs (`/sys/devices/system/cpu`, `/sys/devices/system/node`).
    Sysfs,
    /// A documented default (see [`DEFAULT_L2_BYTES`] and friends); the machine did not say.
    Default,
}

/// One processing unit (hardware thread) the process may run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessingUnit {
    /// The operating system's CPU number (what `taskset` and `sched_setaffinity` use).
    pub os_index: usize,
    /// Index of its core in `0..Topology::cores` (PUs with the same value are SMT siblings).
    pub core: usize,
    /// Index of its NUMA node in [`Topology::numa_nodes`].
    pub numa_node: usize,
    /// Index of its package (socket) in `0..Topology::packages`.
    pub package: usize,
}

/// One data or unified cache.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cache {
    /// 1 (data), 2 or 3.
    pub level: u8,
    /// Size in bytes.
    pub size_bytes: u64,
    /// OS indices of the allowed PUs that share it, ascending.
    pub pus: Vec<usize>,
    /// Cores that share it but lie wholly outside the allowed cpuset (`taskset`, cgroups):
    /// other processes' cores, which take their share of it (see `docs/ARCHITECTURE.md`).
    #[serde(default)]
    pub outside_cores: usize,
    /// Where the size and sharing came from.
    pub source: Provenance,
}

/// One kind of core of a hybrid CPU (hwloc's CPU kinds): P-cores, E-cores, an Apple-like
/// cluster's performance or efficiency cores.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuKind {
    /// OS indices of the allowed PUs of this kind, ascending.
    pub pus: Vec<usize>,
    /// hwloc's efficiency rank when known: higher is faster and hungrier.
    pub efficiency: Option<usize>,
    /// What the OS calls the kind (`IntelCore`, `IntelAtom`), when it says.
    pub core_type: Option<String>,
}

/// One NUMA node.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NumaNode {
    /// The operating system's node number.
    pub os_index: usize,
    /// OS indices of the allowed PUs local to it, ascending.
    pub pus: Vec<usize>,
}

/// The machine's topology as far as the runtime needs it. Never empty: it has at least one PU,
/// one core and one NUMA node, and every PU has an L1d, an L2 and an L3 entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Topology {
    /// Where the PUs, cores and NUMA nodes came from.
    pub source: Provenance,
    /// Number of packages (sockets) with at least one allowed PU.
    pub packages: usize,
    /// Number of cores with at least one allowed PU.
    pub cores: usize,
    /// The allowed PUs (the process's cpuset), ascending by OS index.
    pub pus: Vec<ProcessingUnit>,
    /// L1d, L2 and L3 caches over the allowed PUs.
    pub caches: Vec<Cache>,
    /// NUMA nodes with at least one allowed PU.
    pub numa_nodes: Vec<NumaNode>,
    /// The kinds of core of a hybrid CPU, least performant first (hwloc's order); empty when
    /// every core is alike or the source does not say.
    #[serde(default)]
    pub cpu_kinds: Vec<CpuKind>,
    /// The source when this is another machine's topology (an XML export or a synthetic
    /// description): it may be planned for and reported, never run or pinned on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub what_if: Option<String>,
    /// Everything that had to be guessed or worked around, in plain words.
    pub warnings: Vec<String>,
}

/// A PU before cores and nodes are numbered: (os index, (package key, core key), NUMA node os
/// index).
pub(crate) type RawPu = (usize, (usize, usize), usize);

impl Topology {
    /// Reads this machine's topology; never fails (falls back and says so in `warnings`).
    /// Without the `hwloc` feature ([`HWLOC_ENABLED`]) it starts at sysfs, and
    /// [`Topology::source`] says which source answered.
    ///
    /// `NTT_TOPOLOGY=sysfs` or `NTT_TOPOLOGY=defaults` skips the earlier sources (to test or
    /// work around a broken hwloc). A what-if source there (`xml:`, `synthetic:`) describes
    /// another machine, which nothing may run on: this reads the real one and says so in
    /// `warnings` (use [`Topology::load`] to read the what-if).
    pub fn detect() -> Self {
        let (spec, mut warnings) = match TopologySpec::from_env() {
            Ok(spec) if spec.is_what_if() => (
                TopologySpec::Hwloc,
                vec![format!(
                    "{TOPOLOGY_ENV}={spec} describes another machine; running on this one's topology"
                )],
            ),
            Ok(spec) => (spec, Vec::new()),
            Err(e) => (
                TopologySpec::Hwloc,
                vec![format!("{e}; reading it as if it were unset")],
            ),
        };
        let mut topo = Self::detect_live(&spec);
        warnings.append(&mut topo.warnings);
        topo.warnings = warnings;
        topo
    }

    /// Reads the topology `spec` names: this machine's (never fails), or another machine's
    /// from an hwloc XML export or synthetic description, with every PU allowed.
    ///
    /// # Errors
    /// As [`Topology::from_hwloc_xml`] and [`Topology::from_hwloc_synthetic`].
    pub fn load(spec: &TopologySpec) -> Result<Self, TopologyError> {
        match spec {
            TopologySpec::Xml(path) => Self::from_hwloc_xml(path, None),
            TopologySpec::Synthetic(description) => Self::from_hwloc_synthetic(description, None),
            live => Ok(Self::detect_live(live)),
        }
    }

    /// Another machine's topology from an hwloc XML export (`lstopo --of xml`); `allowed`
    /// restricts the PUs as a cpuset would (`None` keeps all). Caches the export lacks get the
    /// documented defaults (never this machine's sysfs).
    ///
    /// # Errors
    /// [`TopologyError::Load`] for an unreadable or invalid file (only a regular file of at
    /// most [`MAX_XML_BYTES`] is read), or no allowed PU; [`TopologyError::TooLarge`] for more
    /// than [`MAX_PUS`] PUs; [`TopologyError::NoHwloc`] in a build without the `hwloc` feature.
    pub fn from_hwloc_xml(path: &Path, allowed: Option<&[usize]>) -> Result<Self, TopologyError> {
        #[cfg(not(feature = "hwloc"))]
        let _ = allowed;
        #[cfg(not(feature = "hwloc"))]
        let loaded: Result<Self, TopologyError> = Err(TopologyError::NoHwloc);
        #[cfg(feature = "hwloc")]
        let loaded = hwloc::from_xml_file(path, allowed).map_err(TopologyError::Load);
        let mut topo = loaded?;
        if topo.pus.len() > MAX_PUS {
            return Err(TopologyError::TooLarge {
                pus: topo.pus.len() as u128,
            });
        }
        topo.what_if = Some(TopologySpec::Xml(path.to_owned()).to_string());
        topo.fill_missing_caches(None);
        Ok(topo)
    }

    /// Another machine's topology from a synthetic description in hwloc's grammar (such as
    /// `pack:2 numa:2 l3:4(size=32MiB) l2:8(size=1MiB) l1d:1(size=32KiB) core:1 pu:2`; the
    /// types, attributes and order accepted are in `docs/CLI.md`); `allowed` restricts the PUs
    /// as a cpuset would. Built here, with or without the `hwloc` feature, in time linear in
    /// its PUs, into the topology hwloc builds from the same text.
    ///
    /// # Errors
    /// [`TopologyError::TooLarge`] for more than [`MAX_PUS`] PUs (the product of the levels'
    /// arities, checked before anything is allocated), [`TopologyError::Load`] for a
    /// description outside the grammar, or no allowed PU.
    pub fn from_hwloc_synthetic(description: &str, allowed: Option<&[usize]>) -> Result<Self, TopologyError> {
        let mut topo = synthetic::build(description, allowed)?;
        topo.what_if = Some(TopologySpec::Synthetic(description.to_owned()).to_string());
        topo.fill_missing_caches(None);
        Ok(topo)
    }

    /// Whether this is another machine's topology (see [`Topology::what_if`]).
    pub fn is_what_if(&self) -> bool {
        self.what_if.is_some()
    }

    /// This machine through the live source `spec` names, falling back as far as needed.
    fn detect_live(spec: &TopologySpec) -> Self {
        let allowed = affinity_cpus();
        let mut warnings = Vec::new();
        #[cfg(feature = "hwloc")]
        if *spec == TopologySpec::Hwloc {
            match hwloc::detect(allowed.as_deref()) {
                Ok(mut topo) => {
                    topo.fill_missing_caches(Some(Path::new(sysfs::SYSFS_ROOT)));
                    return topo;
                }
                Err(e) => warnings.push(format!("hwloc failed ({e}); reading sysfs instead")),
            }
        }
        if *spec == TopologySpec::Sysfs {
            warnings.push(format!("{TOPOLOGY_ENV}=sysfs: hwloc not consulted"));
        }
        let mut topo = if *spec != TopologySpec::Defaults {
            match sysfs::detect(Path::new(sysfs::SYSFS_ROOT), allowed.as_deref()) {
                Ok(topo) => topo,
                Err(e) => {
                    warnings.push(format!("sysfs unreadable ({e}); using defaults"));
                    Self::flat_pus(allowed.unwrap_or_else(all_cpus_guess))
                }
            }
        } else {
            warnings.push(format!("{TOPOLOGY_ENV}=defaults: machine topology not read"));
            Self::flat_pus(allowed.unwrap_or_else(all_cpus_guess))
        };
        warnings.append(&mut topo.warnings);
        topo.warnings = warnings;
        let root = (*spec != TopologySpec::Defaults).then(|| Path::new(sysfs::SYSFS_ROOT));
        topo.fill_missing_caches(root);
        topo
    }

    /// Reads a sysfs-shaped directory tree (`<root>/devices/system/cpu/...`), with defaults
    /// for whatever it lacks. `allowed` restricts the PUs (OS indices); `None` keeps all.
    ///
    /// # Errors
    /// When `root` has no readable CPU directory.
    pub fn from_sysfs(root: &Path, allowed: Option<&[usize]>) -> std::io::Result<Self> {
        let mut topo = sysfs::detect(root, allowed)?;
        topo.fill_missing_caches(Some(root));
        Ok(topo)
    }

    /// A topology made only of documented defaults: `pus` PUs, one core each, one NUMA node,
    /// private L1d and L2, one shared L3. What detection falls back to on an opaque machine.
    pub fn with_defaults(pus: usize) -> Self {
        let mut topo = Self::flat_pus((0..pus.max(1)).collect());
        topo.warnings
            .push("topology not read from the machine: documented defaults".into());
        topo.fill_missing_caches(None);
        topo
    }

    /// One core and no caches per listed PU, one NUMA node.
    fn flat_pus(os_indices: Vec<usize>) -> Self {
        let raw = os_indices.into_iter().map(|i| (i, (0, i), 0)).collect();
        Self::from_raw(Provenance::Default, raw)
    }

    /// Numbers cores and NUMA nodes from raw PUs (sorted and deduplicated here).
    pub(crate) fn from_raw(source: Provenance, mut raw: Vec<RawPu>) -> Self {
        raw.sort_unstable();
        raw.dedup_by_key(|p| p.0);
        if raw.is_empty() {
            raw.push((0, (0, 0), 0));
        }
        let mut core_ids = BTreeMap::new();
        let mut node_ids = BTreeMap::new();
        let mut package_ids = BTreeMap::new();
        for &(_, core, node) in &raw {
            let next = core_ids.len();
            core_ids.entry(core).or_insert(next);
            let next = package_ids.len();
            package_ids.entry(core.0).or_insert(next);
            let next = node_ids.len();
            node_ids.entry(node).or_insert(next);
        }
        let mut numa_nodes: Vec<NumaNode> = node_ids
            .keys()
            .map(|&os_index| NumaNode {
                os_index,
                pus: Vec::new(),
            })
            .collect();
        // BTreeMap numbering above is in first-seen order; renumber nodes by their key order.
        for (i, (_, idx)) in node_ids.iter_mut().enumerate() {
            *idx = i;
        }
        let pus = raw
            .iter()
            .map(|&(os_index, core, node)| {
                let numa_node = node_ids[&node];
                numa_nodes[numa_node].pus.push(os_index);
                ProcessingUnit {
                    os_index,
                    core: core_ids[&core],
                    numa_node,
                    package: package_ids[&core.0],
                }
            })
            .collect();
        Self {
            source,
            packages: package_ids.len(),
            cores: core_ids.len(),
            pus,
            caches: Vec::new(),
            numa_nodes,
            cpu_kinds: Vec::new(),
            what_if: None,
            warnings: Vec::new(),
        }
    }

    /// Completes the cache levels no source reported: from sysfs when `sysfs_root` is given
    /// and it has them, else from the documented defaults.
    pub(crate) fn fill_missing_caches(&mut self, sysfs_root: Option<&Path>) {
        // Whether every allowed PU lies under one of `caches` of `level` (one pass over each).
        let covers = |caches: &[Cache], level: u8, pus: &[ProcessingUnit]| {
            let under: HashSet<usize> = caches
                .iter()
                .filter(|c| c.level == level)
                .flat_map(|c| c.pus.iter().copied())
                .collect();
            pus.iter().all(|p| under.contains(&p.os_index))
        };
        for level in 1..=3u8 {
            if covers(&self.caches, level, &self.pus) {
                continue;
            }
            self.caches.retain(|c| c.level != level);
            let allowed: Vec<usize> = self.pus.iter().map(|p| p.os_index).collect();
            let from_sysfs = sysfs_root
                .map(|root| sysfs::caches(root, &allowed, level))
                .unwrap_or_default();
            let covered = |caches: &[Cache]| {
                let level = caches.first().map_or(level, |c| c.level);
                covers(caches, level, &self.pus)
            };
            let shared_l2s: Vec<Cache> = self.caches.iter().filter(|c| c.level == 2).cloned().collect();
            if !from_sysfs.is_empty() && covered(&from_sysfs) {
                if self.source == Provenance::Hwloc {
                    self.warnings
                        .push(format!("hwloc reported no L{level} cache; read it from sysfs"));
                }
                self.caches.extend(from_sysfs);
            } else if level == 3 && covered(&shared_l2s) && shared_l2s.iter().any(|c| self.cores_under(c) > 1)
            {
                // An L2 shared by a cluster of cores and no L3 (Apple-like and some Arm parts):
                // the L2 is the last-level cache. Private L2s without an L3 rather mean a
                // hidden L3 (many VMs), which the default below stands in for.
                self.warnings.push(
                    "no L3 reported and the L2 is shared by a cluster of cores: the L2 is the last-level cache"
                        .into(),
                );
                self.caches
                    .extend(shared_l2s.into_iter().map(|c| Cache { level: 3, ..c }));
            } else {
                self.warnings.push(format!(
                    "L{level} cache unknown; assuming the documented default ({})",
                    defaults::describe(level)
                ));
                let extra = defaults::caches(self, level);
                self.caches.extend(extra);
            }
        }
        self.caches
            .sort_by(|a, b| (a.level, &a.pus).cmp(&(b.level, &b.pus)));
    }

    /// The level-`level` cache over PU `os_index`, if known.
    pub fn cache(&self, os_index: usize, level: u8) -> Option<&Cache> {
        self.caches
            .iter()
            .find(|c| c.level == level && c.pus.contains(&os_index))
    }

    /// For each `(level, PU)`, the index in [`Topology::caches`] of the cache
    /// [`Topology::cache`] finds: many look-ups for the cost of one pass over the caches.
    pub(crate) fn cache_index(&self) -> HashMap<(u8, usize), usize> {
        let mut index = HashMap::with_capacity(3 * self.pus.len());
        for (i, cache) in self.caches.iter().enumerate() {
            for &pu in &cache.pus {
                index.entry((cache.level, pu)).or_insert(i);
            }
        }
        index
    }

    /// The OS indices of each core's PUs (indexed by core), ascending, in one pass over the PUs.
    pub(crate) fn core_pus(&self) -> Vec<Vec<usize>> {
        let mut cores = vec![Vec::new(); self.cores];
        for pu in &self.pus {
            if let Some(pus) = cores.get_mut(pu.core) {
                pus.push(pu.os_index);
            }
        }
        cores
    }

    /// Number of allowed cores with a PU under `cache`.
    fn cores_under(&self, cache: &Cache) -> usize {
        let mut cores: Vec<usize> = cache
            .pus
            .iter()
            .filter_map(|&p| self.pu(p))
            .map(|p| p.core)
            .collect();
        cores.sort_unstable();
        cores.dedup();
        cores.len()
    }

    /// How many kinds of core are faster than the kind of PU `os_index`: 0 for the fastest
    /// kind, and for every PU of a CPU whose cores are all alike.
    pub fn performance_rank(&self, os_index: usize) -> usize {
        // Each kind's PUs are ascending (see `CpuKind::pus`).
        self.cpu_kinds
            .iter()
            .rev()
            .position(|k| k.pus.binary_search(&os_index).is_ok())
            .unwrap_or(0)
    }

    /// The PU with OS index `os_index`, if allowed.
    pub fn pu(&self, os_index: usize) -> Option<&ProcessingUnit> {
        // The PUs are ascending by OS index (as every source makes them); a list that is not
        // (built by hand) is searched in full.
        match self.pus.binary_search_by_key(&os_index, |p| p.os_index) {
            Ok(at) => Some(&self.pus[at]),
            Err(_) => self.pus.iter().find(|p| p.os_index == os_index),
        }
    }

    /// OS indices of the allowed PUs.
    pub fn allowed_cpus(&self) -> Vec<usize> {
        self.pus.iter().map(|p| p.os_index).collect()
    }

    /// Whether anything came from a fallback (sysfs or defaults) rather than hwloc.
    pub fn is_fallback(&self) -> bool {
        self.source != Provenance::Hwloc || self.caches.iter().any(|c| c.source != Provenance::Hwloc)
    }
}

/// The CPUs this process may run on (`sched_getaffinity`), or `None` if the call fails.
pub(crate) fn affinity_cpus() -> Option<Vec<usize>> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `cpu_set_t` is plain data; all-zero is a valid (empty) set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: `set` is a valid, writable `cpu_set_t` of the size passed.
        let rc = unsafe { libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), &mut set) };
        if rc != 0 {
            return None;
        }
        let cpus: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
            // SAFETY: `cpu < CPU_SETSIZE`, the bound `CPU_ISSET` requires.
            .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
            .collect();
        (!cpus.is_empty()).then_some(cpus)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

fn all_cpus_guess() -> Vec<usize> {
    (0..std::thread::available_parallelism().map_or(1, |n| n.get())).collect()
}
