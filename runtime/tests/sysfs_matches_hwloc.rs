//! The sysfs reader (what a build without the `hwloc` feature reads this machine with) against
//! hwloc: the same L1d, L2 and L3 sizes and sharing sets, on this machine and on every test
//! machine of `tests/data/topologies/`, each written out as the sysfs tree Linux would show
//! for it. Runs where hwloc is built in (the workspace's tests turn the feature on).

#![cfg(feature = "hwloc")]

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use ntt_runtime::{Provenance, Topology, TopologySpec};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/topologies")
        .join(name)
}

/// Every test machine, as hwloc loads it.
fn fixtures() -> Vec<(String, Topology)> {
    let mut out = Vec::new();
    for entry in fs::read_dir(data("")).expect("fixture directory") {
        let path = entry.expect("entry").path();
        let name = path.file_name().expect("name").to_string_lossy().into_owned();
        let topo = match path.extension().and_then(|e| e.to_str()) {
            Some("xml") => Topology::from_hwloc_xml(&path, None),
            Some("synthetic") => {
                Topology::from_hwloc_synthetic(fs::read_to_string(&path).expect("synthetic").trim(), None)
            }
            _ => continue,
        };
        out.push((name.clone(), topo.unwrap_or_else(|e| panic!("{name}: {e}"))));
    }
    assert!(out.len() >= 5, "the fixtures went missing: {out:?}");
    out
}

/// `a-b,c`: a CPU list the way Linux writes one.
fn list(cpus: &[usize]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        if !out.is_empty() {
            out.push(',');
        }
        if i == j {
            write!(out, "{}", cpus[i]).expect("write");
        } else {
            write!(out, "{}-{}", cpus[i], cpus[j]).expect("write");
        }
        i = j + 1;
    }
    out
}

fn write(root: &Path, rel: &str, contents: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    fs::write(path, format!("{contents}\n")).expect("write");
}

/// Whether sysfs can say everything about `topo`'s caches that hwloc said: sizes in whole KiB.
fn expressible(topo: &Topology) -> bool {
    topo.caches.iter().all(|c| c.size_bytes % 1024 == 0)
}

/// The sysfs tree Linux would show for `topo`: CPUs, package and core ids, NUMA nodes, and the
/// caches hwloc reported (not those filled in from defaults, nor an L3 that is the L2 standing
/// in as the last-level cache: sysfs would show neither).
fn write_sysfs(root: &Path, topo: &Topology) {
    let cpus: Vec<usize> = topo.pus.iter().map(|p| p.os_index).collect();
    write(root, "devices/system/cpu/online", &list(&cpus));
    for pu in &topo.pus {
        let base = format!("devices/system/cpu/cpu{}/topology", pu.os_index);
        write(
            root,
            &format!("{base}/physical_package_id"),
            &pu.package.to_string(),
        );
        write(root, &format!("{base}/core_id"), &pu.core.to_string());
    }
    for node in &topo.numa_nodes {
        write(
            root,
            &format!("devices/system/node/node{}/cpulist", node.os_index),
            &list(&node.pus),
        );
    }
    let stand_in_l3 = |c: &ntt_runtime::Cache| {
        c.level == 3
            && topo
                .caches
                .iter()
                .any(|l2| l2.level == 2 && l2.pus == c.pus && l2.size_bytes == c.size_bytes)
    };
    let mut next_index = vec![0usize; cpus.iter().max().map_or(0, |m| m + 1)];
    for cache in topo
        .caches
        .iter()
        .filter(|c| c.source == Provenance::Hwloc && !stand_in_l3(c))
    {
        for &cpu in &cache.pus {
            let dir = format!("devices/system/cpu/cpu{cpu}/cache/index{}", next_index[cpu]);
            next_index[cpu] += 1;
            write(root, &format!("{dir}/level"), &cache.level.to_string());
            let kind = if cache.level == 1 { "Data" } else { "Unified" };
            write(root, &format!("{dir}/type"), kind);
            write(
                root,
                &format!("{dir}/size"),
                &format!("{}K", cache.size_bytes / 1024),
            );
            write(root, &format!("{dir}/shared_cpu_list"), &list(&cache.pus));
        }
    }
}

/// Each level's caches as (size, sharing set), sorted.
fn cache_levels(topo: &Topology) -> Vec<Vec<(u64, Vec<usize>)>> {
    (1..=3u8)
        .map(|level| {
            let mut caches: Vec<(u64, Vec<usize>)> = topo
                .caches
                .iter()
                .filter(|c| c.level == level)
                .map(|c| (c.size_bytes, c.pus.clone()))
                .collect();
            caches.sort();
            caches
        })
        .collect()
}

#[test]
fn sysfs_reads_every_fixture_machine_as_hwloc_does() {
    for (name, from_hwloc) in fixtures() {
        assert!(
            expressible(&from_hwloc),
            "{name}: a cache size sysfs cannot write"
        );
        let root = tempfile::tempdir().expect("temp dir");
        write_sysfs(root.path(), &from_hwloc);
        let from_sysfs = Topology::from_sysfs(root.path(), None).expect("sysfs tree");
        assert_eq!(from_sysfs.source, Provenance::Sysfs, "{name}");
        assert_eq!(cache_levels(&from_sysfs), cache_levels(&from_hwloc), "{name}");
        assert_eq!(
            from_sysfs.pus, from_hwloc.pus,
            "{name}: PUs, cores, packages, nodes"
        );
        assert_eq!(from_sysfs.cores, from_hwloc.cores, "{name}");
        assert_eq!(from_sysfs.packages, from_hwloc.packages, "{name}");
    }
}

#[test]
fn sysfs_reads_this_machine_as_hwloc_does() {
    let from_hwloc = Topology::load(&TopologySpec::Hwloc).expect("this machine");
    let from_sysfs = Topology::load(&TopologySpec::Sysfs).expect("this machine");
    if from_sysfs.source != Provenance::Sysfs {
        // No sysfs (not Linux, or a sandbox without /sys): nothing to compare.
        assert!(!Path::new("/sys/devices/system/cpu/online").exists());
        return;
    }
    assert_eq!(cache_levels(&from_sysfs), cache_levels(&from_hwloc));
    assert_eq!(from_sysfs.allowed_cpus(), from_hwloc.allowed_cpus());
    assert_eq!(from_sysfs.cores, from_hwloc.cores);
}
