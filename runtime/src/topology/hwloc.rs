//! Topology from the hwloc library (through `hwlocality`): this machine's, or one loaded from an
//! hwloc XML export or a synthetic description (see [`super::TopologySpec`]).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

use hwlocality::Topology as HwTopology;
use hwlocality::object::TopologyObject;
use hwlocality::object::attributes::ObjectAttributes;
use hwlocality::object::types::{CacheType, ObjectType};

use super::{Cache, CpuKind, MAX_XML_BYTES, Provenance, RawPu, Topology};

/// This machine's topology over the allowed cpuset (hwloc's allowed set, intersected with the
/// process affinity `affinity` when known). Cache levels hwloc leaves out are filled in later
/// by [`Topology::fill_missing_caches`].
pub(super) fn detect(affinity: Option<&[usize]>) -> Result<Topology, String> {
    let hw = HwTopology::new().map_err(|e| e.to_string())?;
    convert(&hw, affinity)
}

/// The topology an hwloc XML export describes (`lstopo --of xml`), restricted to `allowed`.
pub(super) fn from_xml_file(path: &Path, allowed: Option<&[usize]>) -> Result<Topology, String> {
    // Read it here, bounded and only from a regular file: hwloc would read a FIFO or a device
    // without end, and its own file errors are not all reported as errors by the binding.
    let xml = crate::read_regular_file(path, MAX_XML_BYTES)
        .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    let hw = HwTopology::builder()
        .from_xml(&xml)
        .map_err(|e| format!("`{}` is not an hwloc XML export: {e}", path.display()))?
        .build()
        .map_err(|e| format!("hwloc rejected `{}`: {e}", path.display()))?;
    convert(&hw, allowed)
}

/// The topology an hwloc synthetic description names (`pack:2 l3:4 core:8 pu:2`), restricted
/// to `allowed`: what [`super::synthetic`] is checked against (hwloc takes about a second for
/// the largest machine, which that module builds in milliseconds).
#[cfg(test)]
pub(super) fn from_synthetic(description: &str, allowed: Option<&[usize]>) -> Result<Topology, String> {
    let hw = HwTopology::builder()
        .from_synthetic(description)
        .map_err(|e| format!("not an hwloc synthetic description ({e}): `{description}`"))?
        .build()
        .map_err(|e| format!("hwloc rejected the synthetic description `{description}`: {e}"))?;
    convert(&hw, allowed)
}

/// PUs, cores, NUMA nodes, CPU kinds and caches of `hw` over its allowed cpuset ∩ `affinity`.
fn convert(hw: &HwTopology, affinity: Option<&[usize]>) -> Result<Topology, String> {
    // Every look-up below is a hash look-up, so the whole conversion is about linear in the PUs.
    let allowed_set = hw.allowed_cpuset();
    let affinity: Option<HashSet<usize>> = affinity.map(|a| a.iter().copied().collect());
    let is_allowed = |os: usize| allowed_set.is_set(os) && affinity.as_ref().is_none_or(|a| a.contains(&os));
    // Each PU's NUMA node: the first node (in hwloc's order) whose cpuset holds it.
    let mut node_of_pu: HashMap<usize, usize> = HashMap::new();
    for node in hw.objects_with_type(ObjectType::NUMANode) {
        let (Some(os), Some(pus)) = (node.os_index(), set_of(node)) else {
            continue;
        };
        for pu in pus {
            node_of_pu.entry(pu).or_insert(os);
        }
    }
    let mut raw: Vec<RawPu> = Vec::new();
    // Every PU hwloc shows, allowed or not, keyed to its core: to count the cores a cache
    // shares with CPUs outside this process's cpuset.
    let mut core_of_pu: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
    for pu in hw.objects_with_type(ObjectType::PU) {
        let Some(os) = pu.os_index() else { continue };
        let package = pu
            .first_ancestor_with_type(ObjectType::Package)
            .map_or(0, |p| p.logical_index());
        let core = pu
            .first_ancestor_with_type(ObjectType::Core)
            .map_or((package, usize::MAX - os), |c| (package, c.logical_index()));
        core_of_pu.insert(os, core);
        if !is_allowed(os) {
            continue;
        }
        let node = node_of_pu.get(&os).copied().unwrap_or(0);
        raw.push((os, core, node));
    }
    if raw.is_empty() {
        return Err("hwloc reports no allowed PU".into());
    }
    let allowed: HashSet<usize> = raw.iter().map(|p| p.0).collect();
    let allowed_cores: BTreeSet<(usize, usize)> = raw.iter().map(|p| p.1).collect();
    let smt = {
        let mut per_core: BTreeMap<(usize, usize), usize> = BTreeMap::new();
        for core in core_of_pu.values() {
            *per_core.entry(*core).or_default() += 1;
        }
        per_core.values().copied().max().unwrap_or(1)
    };
    // Cores under `complete` with no allowed PU; PUs hwloc hid (another cgroup's) count as
    // cores of `smt` PUs each.
    let outside_cores = |complete: &[usize]| {
        let mut known = BTreeSet::new();
        let mut hidden = 0usize;
        for pu in complete.iter().filter(|pu| !allowed.contains(pu)) {
            match core_of_pu.get(pu) {
                Some(core) if allowed_cores.contains(core) => {}
                Some(core) => {
                    known.insert(*core);
                }
                None => hidden += 1,
            }
        }
        known.len() + hidden.div_ceil(smt)
    };

    let mut topo = Topology::from_raw(Provenance::Hwloc, raw);
    for (level, ty) in [
        (1, ObjectType::L1Cache),
        (2, ObjectType::L2Cache),
        (3, ObjectType::L3Cache),
    ] {
        for cache in hw.objects_with_type(ty) {
            let Some(ObjectAttributes::Cache(attr)) = cache.attributes() else {
                continue;
            };
            if !matches!(attr.cache_type(), CacheType::Data | CacheType::Unified) {
                continue;
            }
            let (Some(size), Some(mut pus)) = (attr.size(), set_of(cache)) else {
                continue;
            };
            pus.retain(|p| allowed.contains(p));
            if pus.is_empty() {
                continue;
            }
            let complete: Vec<usize> = cache
                .complete_cpuset()
                .map(|s| s.iter_set().map(usize::from).collect())
                .unwrap_or_default();
            topo.caches.push(Cache {
                level,
                size_bytes: size.get(),
                pus,
                outside_cores: outside_cores(&complete),
                source: Provenance::Hwloc,
            });
        }
    }
    topo.cpu_kinds = cpu_kinds(hw, &allowed);
    Ok(topo)
}

/// hwloc's CPU kinds (hybrid CPUs), least performant first as hwloc lists them, restricted to
/// `allowed`; empty when hwloc knows of none or of one kind only.
fn cpu_kinds(hw: &HwTopology, allowed: &HashSet<usize>) -> Vec<CpuKind> {
    let Ok(kinds) = hw.cpu_kinds() else {
        return Vec::new();
    };
    let kinds: Vec<CpuKind> = kinds
        .filter_map(|kind| {
            let pus: Vec<usize> = kind
                .cpuset
                .iter_set()
                .map(usize::from)
                .filter(|p| allowed.contains(p))
                .collect();
            let core_type = kind
                .infos
                .iter()
                .find(|info| info.name().to_bytes() == b"CoreType")
                .map(|info| info.value().to_string_lossy().into_owned());
            (!pus.is_empty()).then_some(CpuKind {
                pus,
                efficiency: kind.efficiency,
                core_type,
            })
        })
        .collect();
    if kinds.len() > 1 { kinds } else { Vec::new() }
}

/// The OS indices in an object's cpuset, ascending.
fn set_of(obj: &TopologyObject) -> Option<Vec<usize>> {
    Some(obj.cpuset()?.iter_set().map(usize::from).collect())
}
