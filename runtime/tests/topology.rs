//! Topology detection, its fallbacks, and what the pool derives from it (placement, budgets,
//! steal order, pinning).

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::watchdog;
use ntt_runtime::{
    DEFAULT_L1D_BYTES, DEFAULT_L2_BYTES, DEFAULT_L3_BYTES_PER_CORE, PinPolicy, Provenance, ThreadPoolBuilder,
    Topology,
};

/// A fresh directory under the system temp dir, removed on drop.
struct TempTree(PathBuf);

impl TempTree {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("ntt-runtime-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("temp dir");
        Self(dir)
    }
    fn write(&self, rel: &str, contents: &str) {
        let path = self.0.join(rel);
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs::write(path, contents).expect("write");
    }
}

impl Drop for TempTree {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// A sysfs tree for 2 packages x 2 cores x 2 SMT threads (cpus 0-7; cpu c and c+4 are
/// siblings), one NUMA node and one L3 per package, private L1d/L2 per core; `with_caches`
/// false leaves out every cache directory (as some VMs do).
fn fake_sysfs(name: &str, with_caches: bool) -> TempTree {
    let tree = TempTree::new(name);
    tree.write("devices/system/cpu/online", "0-7\n");
    for cpu in 0..8usize {
        let core = cpu % 4;
        let package = core / 2;
        let base = format!("devices/system/cpu/cpu{cpu}");
        tree.write(&format!("{base}/topology/core_id"), &format!("{}\n", core % 2));
        tree.write(
            &format!("{base}/topology/physical_package_id"),
            &format!("{package}\n"),
        );
        if with_caches {
            let siblings = format!("{},{}", core, core + 4);
            let package_cpus = format!(
                "{}-{},{}-{}",
                2 * package,
                2 * package + 1,
                2 * package + 4,
                2 * package + 5
            );
            for (index, level, ty, size, shared) in [
                (0, 1, "Data", "48K", siblings.as_str()),
                (1, 1, "Instruction", "32K", siblings.as_str()),
                (2, 2, "Unified", "2048K", siblings.as_str()),
                (3, 3, "Unified", "16M", package_cpus.as_str()),
            ] {
                let dir = format!("{base}/cache/index{index}");
                tree.write(&format!("{dir}/level"), &format!("{level}\n"));
                tree.write(&format!("{dir}/type"), &format!("{ty}\n"));
                tree.write(&format!("{dir}/size"), &format!("{size}\n"));
                tree.write(&format!("{dir}/shared_cpu_list"), &format!("{shared}\n"));
            }
        }
    }
    tree.write("devices/system/node/node0/cpulist", "0-1,4-5\n");
    tree.write("devices/system/node/node1/cpulist", "2-3,6-7\n");
    tree
}

fn root(tree: &TempTree) -> &Path {
    &tree.0
}

#[test]
fn sysfs_fallback_reads_cores_caches_and_nodes() {
    let tree = fake_sysfs("full", true);
    let topo = Topology::from_sysfs(root(&tree), None).expect("sysfs");
    assert_eq!(topo.source, Provenance::Sysfs);
    assert_eq!(topo.pus.len(), 8);
    assert_eq!(topo.cores, 4);
    assert_eq!(topo.numa_nodes.len(), 2);
    assert_eq!(topo.numa_nodes[1].pus, vec![2, 3, 6, 7]);
    assert_eq!(topo.pu(6).expect("cpu6").core, topo.pu(2).expect("cpu2").core);
    let l1 = topo.cache(5, 1).expect("L1d");
    assert_eq!((l1.size_bytes, l1.pus.clone()), (48 << 10, vec![1, 5]));
    let l3 = topo.cache(3, 3).expect("L3");
    assert_eq!((l3.size_bytes, l3.pus.clone()), (16 << 20, vec![2, 3, 6, 7]));
    assert!(topo.caches.iter().all(|c| c.source == Provenance::Sysfs));
    assert_eq!(topo.caches.len(), 4 + 4 + 2, "instruction caches are left out");
    assert!(topo.warnings.is_empty(), "{:?}", topo.warnings);
    assert!(topo.is_fallback());
}

#[test]
fn sysfs_fallback_respects_the_allowed_cpus() {
    let tree = fake_sysfs("allowed", true);
    let topo = Topology::from_sysfs(root(&tree), Some(&[2, 3, 6])).expect("sysfs");
    assert_eq!(topo.allowed_cpus(), vec![2, 3, 6]);
    assert_eq!(topo.cores, 2);
    assert_eq!(topo.numa_nodes.len(), 1);
    assert_eq!(topo.cache(2, 3).expect("L3").pus, vec![2, 3, 6]);
}

#[test]
fn missing_caches_fall_back_to_documented_defaults_with_warnings() {
    let tree = fake_sysfs("nocache", false);
    let topo = Topology::from_sysfs(root(&tree), None).expect("sysfs");
    assert_eq!(topo.cores, 4);
    assert!(topo.caches.iter().all(|c| c.source == Provenance::Default));
    assert_eq!(topo.cache(0, 1).expect("L1d").size_bytes, DEFAULT_L1D_BYTES);
    assert_eq!(topo.cache(0, 2).expect("L2").size_bytes, DEFAULT_L2_BYTES);
    assert_eq!(topo.cache(0, 2).expect("L2").pus, vec![0, 4], "private per core");
    assert_eq!(
        topo.cache(7, 3).expect("L3").size_bytes,
        4 * DEFAULT_L3_BYTES_PER_CORE
    );
    assert_eq!(topo.warnings.len(), 3, "{:?}", topo.warnings);
    assert!(topo.warnings.iter().all(|w| w.contains("default")));
}

#[test]
fn an_unreadable_sysfs_is_an_error_and_defaults_still_work() {
    let tree = TempTree::new("empty");
    assert!(Topology::from_sysfs(root(&tree), None).is_err());
    let topo = Topology::with_defaults(3);
    assert_eq!((topo.pus.len(), topo.cores), (3, 3));
    assert_eq!(topo.source, Provenance::Default);
    assert!(!topo.warnings.is_empty());
}

#[test]
fn detection_on_this_machine_is_complete_and_serializable() {
    let topo = Topology::detect();
    assert!(!topo.pus.is_empty() && topo.cores >= 1 && !topo.numa_nodes.is_empty());
    for pu in &topo.pus {
        for level in 1..=3 {
            assert!(
                topo.cache(pu.os_index, level).is_some(),
                "PU {} L{level}",
                pu.os_index
            );
        }
    }
    let json = serde_json::to_string(&topo).expect("serialize");
    let back: Topology = serde_json::from_str(&json).expect("deserialize");
    assert_eq!(back, topo);
}

#[test]
fn budgets_split_each_cache_among_the_workers_under_it() {
    let tree = fake_sysfs("budgets", true);
    let topo = Topology::from_sysfs(root(&tree), None).expect("sysfs");
    let pool = ThreadPoolBuilder::new()
        .num_threads(8)
        .pin(PinPolicy::None)
        .topology(topo.clone())
        .build()
        .expect("pool");
    // 8 workers on 8 PUs: 2 per L2 (SMT siblings), 4 per L3.
    for b in pool.budgets() {
        assert_eq!(b.l2_bytes, (2 << 20) / 2);
        assert_eq!(b.l3_bytes, (16 << 20) / 4);
    }
    let pool = ThreadPoolBuilder::new()
        .num_threads(2)
        .pin(PinPolicy::None)
        .topology(topo)
        .build()
        .expect("pool");
    // 2 workers: one per package, alone under their caches.
    let p = pool.placements();
    assert_ne!(
        p[0].numa_node, p[1].numa_node,
        "workers spread across L3/NUMA domains"
    );
    for b in pool.budgets() {
        assert_eq!((b.l2_bytes, b.l3_bytes), (2 << 20, 16 << 20));
    }
}

#[test]
fn steal_order_visits_nearest_caches_first() {
    let tree = fake_sysfs("steal", true);
    let topo = Topology::from_sysfs(root(&tree), None).expect("sysfs");
    let pool = ThreadPoolBuilder::new()
        .num_threads(8)
        .pin(PinPolicy::None)
        .topology(topo.clone())
        .build()
        .expect("pool");
    let placements = pool.placements();
    for (w, p) in placements.iter().enumerate() {
        let rank = |v: usize| {
            let q = &placements[v];
            if topo.cache(q.cpu, 2) == topo.cache(p.cpu, 2) {
                0
            } else if topo.cache(q.cpu, 3) == topo.cache(p.cpu, 3) {
                1
            } else {
                2
            }
        };
        let ranks: Vec<u8> = p.steal_order.iter().map(|&v| rank(v)).collect();
        assert_eq!(
            ranks,
            vec![0, 1, 1, 2, 2, 2, 2],
            "worker {w}: {:?}",
            p.steal_order
        );
        assert!(!p.steal_order.contains(&w));
    }
}

/// The CPUs the calling thread may run on, from /proc.
fn current_affinity() -> Option<String> {
    let status = fs::read_to_string("/proc/thread-self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .map(|s| s.trim().to_owned())
}

#[test]
fn pinned_workers_run_where_they_are_bound_and_unpinned_ones_do_not_move() {
    watchdog(30, || {
        let topo = Topology::detect();
        let cores = topo.cores;
        for pin in [PinPolicy::Cores, PinPolicy::Pus, PinPolicy::None] {
            for n in [1, cores, 8] {
                let pool = ThreadPoolBuilder::new()
                    .num_threads(n)
                    .pin(pin)
                    .topology(topo.clone())
                    .build()
                    .expect("pool");
                let seen = std::sync::Mutex::new(Vec::new());
                pool.for_each(0..n * 4, 1, |_, ctx| {
                    seen.lock()
                        .expect("seen")
                        .push((ctx.worker_index(), current_affinity()));
                });
                for (w, affinity) in seen.into_inner().expect("seen") {
                    let bound = &pool.placements()[w].bound_to;
                    let (Some(affinity), false) = (affinity, bound.is_empty()) else {
                        continue;
                    };
                    let expect = bound.iter().map(|c| c.to_string()).collect::<Vec<_>>();
                    // /proc prints ranges ("0-1"); compare as sets.
                    let got: Vec<String> = affinity
                        .split(',')
                        .flat_map(|part| match part.split_once('-') {
                            Some((a, b)) => {
                                let (a, b): (usize, usize) =
                                    (a.parse().expect("cpu"), b.parse().expect("cpu"));
                                (a..=b).map(|c| c.to_string()).collect::<Vec<_>>()
                            }
                            None => vec![part.to_owned()],
                        })
                        .collect();
                    assert_eq!(got, expect, "worker {w} with {pin:?}");
                }
            }
        }
        // Default: pinned to cores when there are enough cores, unpinned when oversubscribed.
        let pool = ThreadPoolBuilder::new()
            .num_threads(cores)
            .topology(topo.clone())
            .build()
            .expect("pool");
        assert_eq!(pool.pin_policy(), PinPolicy::Cores);
        let pool = ThreadPoolBuilder::new()
            .num_threads(cores + 1)
            .topology(topo)
            .build()
            .expect("pool");
        assert_eq!(pool.pin_policy(), PinPolicy::None);
    });
}

#[test]
fn worker_threads_carry_their_names() {
    watchdog(30, || {
        let pool = ThreadPoolBuilder::new()
            .num_threads(2)
            .pin(PinPolicy::None)
            .thread_name(|i| format!("encoder-{i}"))
            .build()
            .expect("pool");
        pool.for_each(0..8, 1, |_, ctx| {
            let name = std::thread::current().name().map(str::to_owned);
            assert_eq!(name, Some(format!("encoder-{}", ctx.worker_index())));
        });
    });
}

/// Without the `hwloc` feature, this machine is read from sysfs (or defaults), a synthetic
/// machine is built all the same, and an XML export is refused with an error that names the
/// feature.
#[cfg(not(feature = "hwloc"))]
#[test]
fn without_hwloc_sysfs_answers_synthetic_machines_build_and_xml_is_refused() {
    use ntt_runtime::{HWLOC_ENABLED, TopologyError, TopologySpec};
    const { assert!(!HWLOC_ENABLED) };
    let topo = Topology::load(&TopologySpec::Hwloc).expect("this machine");
    let expected = if Path::new("/sys/devices/system/cpu").exists() {
        Provenance::Sysfs
    } else {
        Provenance::Default
    };
    assert_eq!(topo.source, expected);
    let synthetic = Topology::load(&TopologySpec::Synthetic("pack:1 core:2 pu:1".into())).expect("built");
    assert_eq!((synthetic.cores, synthetic.allowed_cpus()), (2, vec![0, 1]));
    assert_eq!(synthetic.what_if.as_deref(), Some("synthetic:pack:1 core:2 pu:1"));
    let xml = Topology::load(&TopologySpec::Xml(PathBuf::from("machine.xml")));
    assert_eq!(xml, Err(TopologyError::NoHwloc));
    assert!(TopologyError::NoHwloc.to_string().contains("`hwloc` feature"));
}
