//! Plans for the test machines of `runtime/tests/data/topologies/` (a 2-socket 128-core
//! server, a 16-core desktop, a 64-core Arm server, a hybrid 8P+16E desktop, an Apple-like
//! P/E laptop), pinned so that a change to the planner's rules or to the budgets it is given
//! shows up here as a reviewed diff. Nothing runs on these machines: the planner is a pure
//! function of the shape, the workers and their budgets. The two XML machines are loaded through
//! hwloc, which this crate always builds ntt-runtime with. Here rather than in ntt-pcs because
//! the descriptions are ntt-runtime's test data, outside ntt-pcs's package.

use std::fmt::Write as _;
use std::path::PathBuf;

use ntt_kernels::BackendKind;
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
        writeln!(
            s,
            "{workers}w: min L2 {}K, min L3 {}K",
            min_l2 >> 10,
            min_l3 >> 10
        )
        .expect("write");
        for log_n in [20u32, 22, 24, 26] {
            let shape = Shape::new(log_n - 6 + 1, 64, 1).expect("a valid shape");
            let p = plan(
                shape,
                MessageLayout::Lanes,
                workers,
                &layout.budgets,
                BackendKind::Portable,
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

const SERVER: &str = r"
1w: min L2 1024K, min L3 32768K
  2^20: 2 sweeps: transpose gather[1..4 2^3r×64] deep-l2[4..15 16×2^11r loop] | wide | sink 2^11 rows | cached
  2^22: 2 sweeps: transpose,stream gather[1..6 2^5r×64] deep-l2[6..17 64×2^11r loop] | wide | sink 2^11 rows | cached
  2^24: 2 sweeps: transpose,stream gather[1..8 2^7r×16] deep-l2[8..19 256×2^11r loop] | wide | sink 2^11 rows | cached
  2^26: 2 sweeps: transpose,stream gather[1..10 2^9r×8] deep-l2[10..21 1024×2^11r loop] | wide | sink 2^11 rows | cached
128w: min L2 1024K, min L3 4096K
  2^20: 2 sweeps: transpose gather[1..7 2^6r×1] deep-l2[7..15 128×2^8r loop] | wide | sink 2^8 rows | cached
  2^22: 2 sweeps: transpose gather[1..7 2^6r×2] deep-l2[7..17 128×2^10r loop] | wide | sink 2^10 rows | cached
  2^24: 2 sweeps: transpose gather[1..8 2^7r×4] deep-l2[8..19 256×2^11r loop] | wide | sink 2^11 rows | cached
  2^26: 2 sweeps: transpose,stream gather[1..10 2^9r×4] deep-l2[10..21 1024×2^11r loop] | wide | sink 2^11 rows | cached
";
const DESKTOP: &str = r"
1w: min L2 1024K, min L3 32768K
  2^20: 2 sweeps: transpose gather[1..4 2^3r×64] deep-l2[4..15 16×2^11r loop] | wide | sink 2^11 rows | cached
  2^22: 2 sweeps: transpose,stream gather[1..6 2^5r×64] deep-l2[6..17 64×2^11r loop] | wide | sink 2^11 rows | cached
  2^24: 2 sweeps: transpose,stream gather[1..8 2^7r×16] deep-l2[8..19 256×2^11r loop] | wide | sink 2^11 rows | cached
  2^26: 2 sweeps: transpose,stream gather[1..10 2^9r×8] deep-l2[10..21 1024×2^11r loop] | wide | sink 2^11 rows | cached
16w: min L2 1024K, min L3 2048K
  2^20: 2 sweeps: transpose gather[1..4 2^3r×32] deep-l2[4..15 16×2^11r loop] | wide | sink 2^11 rows | cached
  2^22: 2 sweeps: transpose,stream gather[1..6 2^5r×32] deep-l2[6..17 64×2^11r loop] | wide | sink 2^11 rows | cached
  2^24: 2 sweeps: transpose,stream gather[1..8 2^7r×16] deep-l2[8..19 256×2^11r loop] | wide | sink 2^11 rows | cached
  2^26: 2 sweeps: transpose,stream gather[1..10 2^9r×8] deep-l2[10..21 1024×2^11r loop] | wide | sink 2^11 rows | cached
";
const ARM: &str = r"
1w: min L2 1024K, min L3 32768K
  2^20: 2 sweeps: transpose gather[1..4 2^3r×64] deep-l2[4..15 16×2^11r loop] | wide | sink 2^11 rows | cached
  2^22: 2 sweeps: transpose,stream gather[1..6 2^5r×64] deep-l2[6..17 64×2^11r loop] | wide | sink 2^11 rows | cached
  2^24: 2 sweeps: transpose,stream gather[1..8 2^7r×16] deep-l2[8..19 256×2^11r loop] | wide | sink 2^11 rows | cached
  2^26: 2 sweeps: transpose,stream gather[1..10 2^9r×8] deep-l2[10..21 1024×2^11r loop] | wide | sink 2^11 rows | cached
64w: min L2 1024K, min L3 512K
  2^20: 2 sweeps: transpose gather[1..6 2^5r×2] deep-l2[6..15 64×2^9r loop] | wide | sink 2^9 rows | cached
  2^22: 2 sweeps: transpose,stream gather[1..6 2^5r×8] deep-l2[6..17 64×2^11r loop] | wide | sink 2^11 rows | cached
  2^24: 2 sweeps: transpose,stream gather[1..8 2^7r×8] deep-l2[8..19 256×2^11r loop] | wide | sink 2^11 rows | cached
  2^26: 2 sweeps: transpose,stream gather[1..10 2^9r×8] deep-l2[10..21 1024×2^11r loop] | wide | sink 2^11 rows | cached
";
const HYBRID: &str = r"
1w: min L2 2048K, min L3 36864K
  2^20: 2 sweeps: transpose gather[1..4 2^3r×64] deep-l2[4..15 16×2^11r loop] | wide | sink 2^11 rows | cached
  2^22: 2 sweeps: transpose,stream gather[1..5 2^4r×64] deep-l2[5..17 32×2^12r loop] | wide | sink 2^12 rows | cached
  2^24: 2 sweeps: transpose,stream gather[1..7 2^6r×64] deep-l2[7..19 128×2^12r loop] | wide | sink 2^12 rows | cached
  2^26: 2 sweeps: transpose,stream gather[1..9 2^8r×16] deep-l2[9..21 512×2^12r loop] | wide | sink 2^12 rows | cached
24w: min L2 1024K, min L3 1536K
  2^20: 2 sweeps: transpose gather[1..5 2^4r×8] deep-l2[5..15 32×2^10r loop] | wide | sink 2^10 rows | cached
  2^22: 2 sweeps: transpose,stream gather[1..6 2^5r×16] deep-l2[6..17 64×2^11r loop] | wide | sink 2^11 rows | cached
  2^24: 2 sweeps: transpose,stream gather[1..8 2^7r×16] deep-l2[8..19 256×2^11r loop] | wide | sink 2^11 rows | cached
  2^26: 2 sweeps: transpose,stream gather[1..10 2^9r×8] deep-l2[10..21 1024×2^11r loop] | wide | sink 2^11 rows | cached
";
const APPLE: &str = r"
1w: min L2 16384K, min L3 16384K
  2^20: 1 sweep: deep-l2[1..15 2×2^14r loop] | narrow | sink 2^14 rows | cached
  2^22: 2 sweeps: transpose,stream gather[1..4 2^3r×64] deep-l2[4..17 16×2^13r loop] | wide | sink 2^13 rows | cached
  2^24: 2 sweeps: transpose,stream gather[1..4 2^3r×64] deep-l2[4..19 16×2^15r loop] | wide | sink 2^15 rows | cached
  2^26: 2 sweeps: transpose,stream gather[1..6 2^5r×64] deep-l2[6..21 64×2^15r loop] | wide | sink 2^15 rows | cached
12w: min L2 1024K, min L3 1024K
  2^20: 2 sweeps: transpose gather[1..4 2^3r×32] deep-l2[4..15 16×2^11r loop] | wide | sink 2^11 rows | cached
  2^22: 2 sweeps: transpose,stream gather[1..6 2^5r×32] deep-l2[6..17 64×2^11r loop] | wide | sink 2^11 rows | cached
  2^24: 2 sweeps: transpose,stream gather[1..8 2^7r×16] deep-l2[8..19 256×2^11r loop] | wide | sink 2^11 rows | cached
  2^26: 2 sweeps: transpose,stream gather[1..10 2^9r×8] deep-l2[10..21 1024×2^11r loop] | wide | sink 2^11 rows | cached
";
