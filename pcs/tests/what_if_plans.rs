//! Plans for the test machines of `runtime/tests/data/topologies/` (a 2-socket 128-core
//! server, a 16-core desktop, a 64-core Arm server, a hybrid 8P+16E desktop, an Apple-like
//! P/E laptop), pinned so that a change to the planner's rules or to the budgets it is given
//! shows up here as a reviewed diff. Nothing runs on these machines: the planner is a pure
//! function of the shape, the workers and their budgets.

use std::fmt::Write as _;
use std::path::PathBuf;

use ntt_kernels::Backend;
use ntt_pcs::plan::{PlanConfig, plan};
use ntt_pcs::{MessageLayout, Shape};
use ntt_runtime::{Topology, WorkerLayout};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../runtime/tests/data/topologies")
        .join(name)
}

fn machine(name: &str) -> Topology {
    let synthetic = |file: &str| {
        let description = std::fs::read_to_string(data(file)).expect("description");
        Topology::from_hwloc_synthetic(description.trim(), None)
    };
    match name {
        "server" => synthetic("server-2s-128c.synthetic"),
        "desktop" => synthetic("desktop-16c.synthetic"),
        "arm" => synthetic("arm-64c.synthetic"),
        "hybrid" => Topology::from_hwloc_xml(&data("hybrid-8p-16e.xml"), None),
        "apple" => Topology::from_hwloc_xml(&data("apple-like-4e-8p.xml"), None),
        other => panic!("no test machine {other}"),
    }
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// For 1 worker and one per core: the budgets the planner gets, then one summary line per
/// witness size (64 lanes, rate 1/2, lane-major).
fn snapshot(name: &str) -> String {
    let topo = machine(name);
    let mut s = String::new();
    for workers in [1, topo.cores] {
        let layout = WorkerLayout::new(&topo, workers, None);
        let min_l2 = layout.budgets.iter().map(|b| b.l2_bytes).min().expect("a worker");
        let min_l3 = layout.budgets.iter().map(|b| b.l3_bytes).min().expect("a worker");
        writeln!(s, "{workers}w: min L2 {}K, min L3 {}K", min_l2 >> 10, min_l3 >> 10).expect("write");
        for log_n in [20u32, 22, 24, 26] {
            let shape = Shape {
                log_rows: log_n - 6 + 1,
                lanes: 64,
                log_inv_rate: 1,
            };
            let p = plan(
                shape,
                MessageLayout::Lanes,
                workers,
                &layout.budgets,
                Backend::portable(),
                &PlanConfig::default(),
            );
            writeln!(s, "  2^{log_n}: {}", p.summary()).expect("write");
        }
    }
    s
}

fn check(name: &str, expected: &str) {
    let got = snapshot(name);
    assert_eq!(got.trim(), expected.trim(), "{name}: got\n{got}");
}

#[test]
fn server_plans() {
    check("server", SERVER);
}

#[test]
fn desktop_plans() {
    check("desktop", DESKTOP);
}

#[test]
fn arm_plans() {
    check("arm", ARM);
}

#[test]
fn hybrid_plans() {
    check("hybrid", HYBRID);
}

#[test]
fn apple_like_plans() {
    check("apple", APPLE);
}

const SERVER: &str = "";
const DESKTOP: &str = "";
const ARM: &str = "";
const HYBRID: &str = "";
const APPLE: &str = "";
