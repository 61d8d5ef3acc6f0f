//! Topology from the hwloc library (through `hwlocality`).

use hwlocality::Topology as HwTopology;
use hwlocality::object::TopologyObject;
use hwlocality::object::attributes::ObjectAttributes;
use hwlocality::object::types::{CacheType, ObjectType};

use super::{Cache, Provenance, RawPu, Topology};

/// PUs, cores, NUMA nodes and the caches hwloc reports over the allowed cpuset (hwloc's allowed
/// set, intersected with the process affinity `affinity` when known). Cache levels hwloc leaves
/// out are filled in later by [`Topology::fill_missing_caches`].
pub(super) fn detect(affinity: Option<&[usize]>) -> Result<Topology, String> {
    let hw = HwTopology::new().map_err(|e| e.to_string())?;
    let allowed_set = hw.allowed_cpuset();
    let is_allowed = |os: usize| allowed_set.is_set(os) && affinity.is_none_or(|a| a.contains(&os));
    let nodes: Vec<(usize, Vec<usize>)> = hw
        .objects_with_type(ObjectType::NUMANode)
        .filter_map(|n| Some((n.os_index()?, set_of(n)?)))
        .collect();
    let mut raw: Vec<RawPu> = Vec::new();
    for pu in hw.objects_with_type(ObjectType::PU) {
        let Some(os) = pu.os_index() else { continue };
        if !is_allowed(os) {
            continue;
        }
        let core = pu
            .first_ancestor_with_type(ObjectType::Core)
            .map_or((usize::MAX, os), |c| (0, c.logical_index()));
        let node = nodes
            .iter()
            .find(|(_, pus)| pus.contains(&os))
            .map_or(0, |(n, _)| *n);
        raw.push((os, core, node));
    }
    if raw.is_empty() {
        return Err("hwloc reports no allowed PU".into());
    }
    let allowed: Vec<usize> = raw.iter().map(|p| p.0).collect();
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
            if !pus.is_empty() {
                topo.caches.push(Cache {
                    level,
                    size_bytes: size.get(),
                    pus,
                    source: Provenance::Hwloc,
                });
            }
        }
    }
    Ok(topo)
}

/// The OS indices in an object's cpuset, ascending.
fn set_of(obj: &TopologyObject) -> Option<Vec<usize>> {
    Some(obj.cpuset()?.iter_set().map(usize::from).collect())
}
