//! Other machines' topologies, from `tests/data/topologies/`: synthetic descriptions (built
//! with or without the `hwloc` feature) and hwloc XML exports (loaded through hwloc, so those
//! tests need the feature; without it the XML loader refuses, as
//! `without_hwloc_sysfs_answers_synthetic_machines_build_and_xml_is_refused` checks). What the
//! runtime derives for each (placement, budgets, steal order, first-touch ranges) is pinned
//! below, so a change of rule shows up as a reviewed diff of these expectations.

use std::fmt::Write as _;
use std::path::PathBuf;

use ntt_runtime::{
    PinPolicy, Provenance, ThreadPoolBuilder, Topology, TopologyError, TopologySpec, WorkerLayout,
};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/topologies")
        .join(name)
}

fn synthetic(name: &str) -> String {
    std::fs::read_to_string(data(name))
        .expect("synthetic description")
        .trim()
        .to_owned()
}

/// Every test machine, by name.
fn machine(name: &str) -> Topology {
    match name {
        "server" => Topology::from_hwloc_synthetic(&synthetic("server-2s-128c.synthetic"), None),
        "desktop" => Topology::from_hwloc_synthetic(&synthetic("desktop-16c.synthetic"), None),
        "arm" => Topology::from_hwloc_synthetic(&synthetic("arm-64c.synthetic"), None),
        "hybrid" => Topology::from_hwloc_xml(&data("hybrid-8p-16e.xml"), None),
        "apple" => Topology::from_hwloc_xml(&data("apple-like-4e-8p.xml"), None),
        other => panic!("no test machine {other}"),
    }
    .unwrap_or_else(|e| panic!("{name}: {e}"))
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

/// Runs of equal values: `1024Kx8 512Kx4`.
fn runs(values: &[usize]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < values.len() {
        let j = (i..values.len())
            .find(|&j| values[j] != values[i])
            .unwrap_or(values.len());
        out.push(format!("{}Kx{}", values[i] >> 10, j - i));
        i = j;
    }
    out.join(" ")
}

/// The machine, then for each worker count: workers' PUs in worker order, L2/L3 budgets, and
/// the steal orders of the first and last worker.
fn snapshot(topo: &Topology, worker_counts: &[usize]) -> String {
    let mut s = String::new();
    let l3s = {
        let mut l3: Vec<&Vec<usize>> = topo
            .caches
            .iter()
            .filter(|c| c.level == 3)
            .map(|c| &c.pus)
            .collect();
        l3.dedup();
        l3.len()
    };
    writeln!(
        s,
        "packages {} cores {} pus {} numa {} l3 {} kinds {}",
        topo.packages,
        topo.cores,
        topo.pus.len(),
        topo.numa_nodes.len(),
        l3s,
        topo.cpu_kinds
            .iter()
            .map(|k| list(&k.pus))
            .collect::<Vec<_>>()
            .join("/"),
    )
    .expect("write");
    for &n in worker_counts {
        let layout = WorkerLayout::new(topo, n, None);
        let cpus: Vec<usize> = layout.placements.iter().map(|p| p.cpu).collect();
        let shown = |v: &[usize]| {
            if v.len() <= 16 {
                format!("{v:?}")
            } else {
                format!("{:?}..{:?}", &v[..8], &v[v.len() - 4..])
            }
        };
        writeln!(s, "{n}w {:?}: cpus {}", layout.pin, shown(&cpus)).expect("write");
        let l2: Vec<usize> = layout.budgets.iter().map(|b| b.l2_bytes).collect();
        let l3: Vec<usize> = layout.budgets.iter().map(|b| b.l3_bytes).collect();
        writeln!(s, "  l2 {} | l3 {}", runs(&l2), runs(&l3)).expect("write");
        let first = &layout.placements[0].steal_order;
        let last = &layout.placements[n - 1].steal_order;
        writeln!(s, "  steal w0 {} | w{} {}", shown(first), n - 1, shown(last)).expect("write");
    }
    s
}

fn check(name: &str, worker_counts: &[usize], expected: &str) {
    let got = snapshot(&machine(name), worker_counts);
    assert_eq!(got.trim(), expected.trim(), "{name}: got\n{got}");
}

#[test]
fn server_two_sockets_128_cores() {
    check("server", &[1, 2, 4, 16, 128, 256], SERVER);
}

#[test]
fn desktop_16_cores_one_l3() {
    check("desktop", &[1, 2, 16, 32], DESKTOP);
}

#[test]
fn arm_server_64_cores() {
    check("arm", &[1, 8, 64], ARM);
}

#[cfg(feature = "hwloc")]
#[test]
fn hybrid_desktop_8p_16e() {
    check("hybrid", &[1, 8, 9, 24, 32], HYBRID);
}

#[cfg(feature = "hwloc")]
#[test]
fn apple_like_p_and_e_clusters() {
    check("apple", &[1, 4, 8, 12], APPLE);
}

#[test]
fn what_ifs_are_marked_and_complete() {
    let names: &[&str] = if cfg!(feature = "hwloc") {
        &["server", "desktop", "arm", "hybrid", "apple"]
    } else {
        &["server", "desktop", "arm"]
    };
    for &name in names {
        let topo = machine(name);
        assert!(topo.is_what_if(), "{name}");
        assert_eq!(topo.source, Provenance::Hwloc, "{name}");
        for pu in &topo.pus {
            for level in 1..=3 {
                assert!(
                    topo.cache(pu.os_index, level).is_some(),
                    "{name} PU {} L{level}",
                    pu.os_index
                );
            }
        }
        let json = serde_json::to_string(&topo).expect("serialize");
        assert_eq!(
            serde_json::from_str::<Topology>(&json).expect("deserialize"),
            topo
        );
    }
    if !cfg!(feature = "hwloc") {
        return;
    }
    let spec = TopologySpec::parse(&format!("xml:{}", data("hybrid-8p-16e.xml").display())).expect("spec");
    assert_eq!(Topology::load(&spec).expect("load"), machine("hybrid"));
    let hybrid = machine("hybrid");
    assert_eq!(hybrid.cpu_kinds[0].core_type.as_deref(), Some("IntelAtom"));
    assert_eq!((hybrid.performance_rank(0), hybrid.performance_rank(16)), (0, 1));
    let apple = machine("apple");
    assert!(
        apple.warnings.iter().any(|w| w.contains("last-level")),
        "{:?}",
        apple.warnings
    );
    assert_eq!(
        apple.cache(5, 3).expect("LLC").size_bytes,
        16 << 20,
        "the P cluster's L2 is its LLC"
    );
}

#[test]
fn bad_what_ifs_are_errors() {
    let missing = Topology::load(&TopologySpec::Xml(data("no-such-machine.xml")));
    #[cfg(feature = "hwloc")]
    assert!(
        matches!(missing, Err(TopologyError::Load(ref m)) if m.contains("no-such-machine")),
        "{missing:?}"
    );
    #[cfg(not(feature = "hwloc"))]
    assert_eq!(missing, Err(TopologyError::NoHwloc));
    let garbage = Topology::from_hwloc_synthetic("pack:two core:x", None);
    assert!(matches!(garbage, Err(TopologyError::Load(_))), "{garbage:?}");
    let none_allowed = Topology::from_hwloc_synthetic("pack:1 core:2 pu:1", Some(&[7]));
    assert!(none_allowed.is_err());
}

/// The L3 share counts the cores outside the allowed cpuset: one worker allowed on one core of
/// a 16-core L3 gets 1/16 of it, not all of it; a pool allowed the whole L3 that runs 2 workers
/// splits it in 2 (the idle allowed cores are its own).
#[test]
fn l3_share_counts_cores_outside_the_cpuset() {
    let desc = synthetic("desktop-16c.synthetic");
    let one_cpu = Topology::from_hwloc_synthetic(&desc, Some(&[2])).expect("taskset -c 2");
    assert_eq!(one_cpu.cache(2, 3).expect("L3").outside_cores, 15);
    let layout = WorkerLayout::new(&one_cpu, 1, None);
    assert_eq!(layout.budgets[0].l3_bytes, (32 << 20) / 16);
    assert_eq!(layout.budgets[0].l2_bytes, 1 << 20, "the L2 is the core's own");

    // Both PUs of core 1 and one PU of core 2 (its sibling, cpu 5, is outside): 14 cores out.
    let partial = Topology::from_hwloc_synthetic(&desc, Some(&[2, 3, 4])).expect("taskset -c 2-4");
    assert_eq!(partial.cache(2, 3).expect("L3").outside_cores, 14);
    let layout = WorkerLayout::new(&partial, 2, None);
    assert_eq!(layout.budgets[0].l3_bytes, (32 << 20) / 16);

    let whole = Topology::from_hwloc_synthetic(&desc, None).expect("all");
    assert_eq!(whole.cache(0, 3).expect("L3").outside_cores, 0);
    assert_eq!(WorkerLayout::new(&whole, 2, None).budgets[0].l3_bytes, 16 << 20);

    // On the server, a cpuset of one L3 domain leaves the other 15 domains alone.
    let server = synthetic("server-2s-128c.synthetic");
    let one_l3 = Topology::from_hwloc_synthetic(&server, Some(&(0..16).collect::<Vec<_>>())).expect("one L3");
    assert_eq!(one_l3.cache(0, 3).expect("L3").outside_cores, 0);
    assert_eq!(WorkerLayout::new(&one_l3, 8, None).budgets[0].l3_bytes, 4 << 20);
}

/// Each NUMA node's workers first-touch one contiguous range, cut at task boundaries.
#[test]
fn first_touch_gives_each_node_one_range_of_whole_tasks() {
    let topo = machine("server");
    let layout = WorkerLayout::new(&topo, 4, None);
    let nodes: Vec<usize> = layout.placements.iter().map(|p| p.numa_node).collect();
    assert_eq!(
        nodes,
        vec![0, 2, 1, 3],
        "workers spread over the four nodes first"
    );
    let len = 64 << 20;
    let task = 1 << 20;
    let parts = layout.first_touch(len, task);
    let got: Vec<(usize, usize, usize, usize)> = parts
        .iter()
        .map(|p| (p.bytes.start >> 20, p.bytes.end >> 20, p.worker, p.numa_node))
        .collect();
    assert_eq!(
        got,
        vec![(0, 16, 0, 0), (16, 32, 2, 1), (32, 48, 1, 2), (48, 64, 3, 3)]
    );

    let layout = WorkerLayout::new(&topo, 8, None);
    let parts = layout.first_touch(10 * task + 5, task);
    assert_eq!(parts.first().expect("part").bytes.start, 0);
    assert_eq!(parts.last().expect("part").bytes.end, 10 * task + 5);
    for pair in parts.windows(2) {
        assert_eq!(pair[0].bytes.end, pair[1].bytes.start, "parts tile the buffer");
        assert!(pair[0].numa_node <= pair[1].numa_node, "one range per node");
        assert_eq!(pair[0].bytes.end % task, 0, "cuts fall between tasks");
    }
    // Fewer tasks than workers: some parts are empty, none overlap.
    let parts = layout.first_touch(3 * task, task);
    assert_eq!(parts.iter().map(|p| p.bytes.len()).sum::<usize>(), 3 * task);
}

/// A pool built on a topology places its workers exactly as the layout says.
#[test]
fn a_pool_places_its_workers_as_the_layout_says() {
    let topo = Topology::from_hwloc_synthetic("pack:2 l3:1(size=8MiB) l2:2(size=1MiB) core:1 pu:2", None)
        .expect("synthetic");
    for n in [1, 3, 8] {
        let pool = ThreadPoolBuilder::new()
            .num_threads(n)
            .pin(PinPolicy::None)
            .topology(topo.clone())
            .build()
            .expect("pool");
        let layout = WorkerLayout::new(&topo, n, Some(PinPolicy::None));
        assert_eq!(pool.placements(), &layout.placements[..], "{n} workers");
        assert_eq!(pool.budgets(), &layout.budgets[..], "{n} workers");
    }
}

const SERVER: &str = r"
packages 2 cores 128 pus 256 numa 4 l3 16 kinds 
1w Cores: cpus [0]
  l2 1024Kx1 | l3 32768Kx1
  steal w0 [] | w0 []
2w Cores: cpus [0, 128]
  l2 1024Kx2 | l3 32768Kx2
  steal w0 [1] | w1 [0]
4w Cores: cpus [0, 128, 64, 192]
  l2 1024Kx4 | l3 32768Kx4
  steal w0 [1, 2, 3] | w3 [0, 1, 2]
16w Cores: cpus [0, 128, 64, 192, 16, 144, 80, 208, 32, 160, 96, 224, 48, 176, 112, 240]
  l2 1024Kx16 | l3 32768Kx16
  steal w0 [4, 8, 12, 1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15] | w15 [3, 7, 11, 0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14]
128w Cores: cpus [0, 128, 64, 192, 16, 144, 80, 208]..[62, 190, 126, 254]
  l2 1024Kx128 | l3 4096Kx128
  steal w0 [16, 32, 48, 64, 80, 96, 112, 4, 8, 12, 20, 24, 28, 36, 40, 44] | w127 [15, 31, 47, 63, 79, 95, 111, 3, 7, 11, 19, 23, 27, 35, 39, 43]
256w None: cpus [0, 128, 64, 192, 16, 144, 80, 208]..[63, 191, 127, 255]
  l2 512Kx256 | l3 2048Kx256
  steal w0 [128, 16, 32, 48, 64, 80, 96, 112, 144, 160, 176, 192, 208, 224, 240, 4] | w255 [127, 15, 31, 47, 63, 79, 95, 111, 143, 159, 175, 191, 207, 223, 239, 3]
";
const DESKTOP: &str = r"
packages 1 cores 16 pus 32 numa 1 l3 1 kinds 
1w Cores: cpus [0]
  l2 1024Kx1 | l3 32768Kx1
  steal w0 [] | w0 []
2w Cores: cpus [0, 2]
  l2 1024Kx2 | l3 16384Kx2
  steal w0 [1] | w1 [0]
16w Cores: cpus [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]
  l2 1024Kx16 | l3 2048Kx16
  steal w0 [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] | w15 [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]
32w None: cpus [0, 2, 4, 6, 8, 10, 12, 14]..[25, 27, 29, 31]
  l2 512Kx32 | l3 1024Kx32
  steal w0 [16, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] | w31 [15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]
";
const ARM: &str = r"
packages 1 cores 64 pus 64 numa 1 l3 1 kinds 
1w Cores: cpus [0]
  l2 1024Kx1 | l3 32768Kx1
  steal w0 [] | w0 []
8w Cores: cpus [0, 1, 2, 3, 4, 5, 6, 7]
  l2 1024Kx8 | l3 4096Kx8
  steal w0 [1, 2, 3, 4, 5, 6, 7] | w7 [0, 1, 2, 3, 4, 5, 6]
64w Cores: cpus [0, 1, 2, 3, 4, 5, 6, 7]..[60, 61, 62, 63]
  l2 1024Kx64 | l3 512Kx64
  steal w0 [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16] | w63 [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
";
#[cfg(feature = "hwloc")]
const HYBRID: &str = r"
packages 1 cores 24 pus 32 numa 1 l3 1 kinds 16-31/0-15
1w Cores: cpus [0]
  l2 2048Kx1 | l3 36864Kx1
  steal w0 [] | w0 []
8w Cores: cpus [0, 2, 4, 6, 8, 10, 12, 14]
  l2 2048Kx8 | l3 4608Kx8
  steal w0 [1, 2, 3, 4, 5, 6, 7] | w7 [0, 1, 2, 3, 4, 5, 6]
9w Cores: cpus [0, 2, 4, 6, 8, 10, 12, 14, 16]
  l2 2048Kx8 4096Kx1 | l3 4096Kx9
  steal w0 [1, 2, 3, 4, 5, 6, 7, 8] | w8 [0, 1, 2, 3, 4, 5, 6, 7]
24w Cores: cpus [0, 2, 4, 6, 8, 10, 12, 14]..[28, 29, 30, 31]
  l2 2048Kx8 1024Kx16 | l3 1536Kx24
  steal w0 [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16] | w23 [20, 21, 22, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
32w None: cpus [0, 2, 4, 6, 8, 10, 12, 14]..[9, 11, 13, 15]
  l2 1024Kx32 | l3 1152Kx32
  steal w0 [24, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] | w31 [7, 0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15]
";
#[cfg(feature = "hwloc")]
const APPLE: &str = r"
packages 1 cores 12 pus 12 numa 1 l3 3 kinds 0-3/4-11
1w Cores: cpus [4]
  l2 16384Kx1 | l3 16384Kx1
  steal w0 [] | w0 []
4w Cores: cpus [4, 8, 5, 9]
  l2 8192Kx4 | l3 8192Kx4
  steal w0 [2, 1, 3] | w3 [1, 0, 2]
8w Cores: cpus [4, 8, 5, 9, 6, 10, 7, 11]
  l2 4096Kx8 | l3 4096Kx8
  steal w0 [2, 4, 6, 1, 3, 5, 7] | w7 [1, 3, 5, 0, 2, 4, 6]
12w Cores: cpus [4, 8, 5, 9, 6, 10, 7, 11, 0, 1, 2, 3]
  l2 4096Kx8 1024Kx4 | l3 4096Kx8 1024Kx4
  steal w0 [2, 4, 6, 1, 3, 5, 7, 8, 9, 10, 11] | w11 [8, 9, 10, 0, 1, 2, 3, 4, 5, 6, 7]
";
