//! `ntt topology` and `ntt plan` on other machines' topologies (the test machines of
//! `runtime/tests/data/topologies/`), and the refusal of commands that would run on one.

use std::path::PathBuf;
use std::process::{Command, Output};

fn data(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../runtime/tests/data/topologies")
        .join(name)
        .display()
        .to_string()
}

fn synthetic(name: &str) -> String {
    let description = std::fs::read_to_string(data(name)).expect("description");
    format!("synthetic:{}", description.trim())
}

fn ntt(args: &[&str], topology_env: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ntt"));
    cmd.args(args)
        .env_remove("NTT_BACKEND")
        .env_remove("NTT_THREADS")
        .env_remove("NTT_PIN")
        .env("NTT_WISDOM", "off");
    match topology_env {
        Some(value) => cmd.env("NTT_TOPOLOGY", value),
        None => cmd.env_remove("NTT_TOPOLOGY"),
    };
    cmd.output().expect("the binary runs")
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn topology_reports_another_machine_with_steal_orders_and_plans() {
    // hwloc XML exports, in a build that can read them (`bad_topologies_...` checks the others).
    if !ntt_runtime::HWLOC_ENABLED {
        return;
    }
    let xml = format!("xml:{}", data("hybrid-8p-16e.xml"));
    let out = ntt(&["topology", "--topology", &xml, "--backend", "avx512"], None);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("What-if: xml:"), "{stdout}");
    // Fastest kind first, as the heading says and as workers take them.
    let p_cores = stdout.find("IntelCore (rank 1): PUs 0-15").expect(&stdout);
    let e_cores = stdout.find("IntelAtom (rank 0): PUs 16-31").expect(&stdout);
    assert!(p_cores < e_cores, "{stdout}");
    assert!(stdout.contains("CPU kinds (fastest first"), "{stdout}");
    assert!(stdout.contains("Workers: 24"), "{stdout}");
    assert!(stdout.contains("steals from"), "{stdout}");
    assert!(stdout.contains("Backend planned for: avx512"), "{stdout}");
    assert!(
        stdout.contains("Backends this CPU supports: portable"),
        "{stdout}"
    );

    let out = ntt(
        &["topology", "--json", "--threads", "9"],
        Some(&synthetic("server-2s-128c.synthetic")),
    );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    assert!(v["what_if"].as_str().is_some_and(|s| s.starts_with("synthetic:")));
    let workers = v["workers"].as_array().expect("workers");
    assert_eq!(workers.len(), 9);
    assert_eq!(
        workers[0]["steal_order"].as_array().expect("steal order").len(),
        8
    );
    assert!(
        workers
            .iter()
            .all(|w| w["bound_to"].as_array().is_some_and(|b| !b.is_empty()))
    );
    assert_eq!(v["topology"]["numa_nodes"].as_array().expect("nodes").len(), 4);
    assert!(v["wisdom"].is_null());
    assert_eq!(v["plans"].as_array().expect("plans").len(), 10);
}

#[test]
fn plan_shows_the_gate_for_every_test_machine() {
    let machines = [
        synthetic("server-2s-128c.synthetic"),
        synthetic("desktop-16c.synthetic"),
        synthetic("arm-64c.synthetic"),
    ];
    // hwloc XML exports, in a build that can read them.
    let xml = [
        format!("xml:{}", data("hybrid-8p-16e.xml")),
        format!("xml:{}", data("apple-like-4e-8p.xml")),
    ];
    let machines = machines
        .iter()
        .chain(xml.iter().filter(|_| ntt_runtime::HWLOC_ENABLED));
    for machine in machines {
        let out = ntt(
            &[
                "plan",
                "--log-n",
                "24",
                "--topology",
                machine,
                "--backend",
                "neon",
            ],
            None,
        );
        let (stdout, stderr) = text(&out);
        assert!(out.status.success(), "{machine}: {stderr}");
        assert!(stdout.contains("what-if:"), "{stdout}");
        assert!(stdout.contains("gate: wide"), "{machine}: {stdout}");
        assert!(stdout.contains("backend neon"), "{machine}: {stdout}");
        assert!(stdout.contains("  short: "), "{machine}: {stdout}");
    }
}

#[test]
fn running_commands_refuse_another_machine() {
    let env = synthetic("desktop-16c.synthetic");
    for args in [
        &["commit", "--threads", "1"][..],
        &[
            "tune",
            "--log-n",
            "10",
            "--threads",
            "1",
            "--out",
            "/nonexistent/ntt-tune",
        ],
    ] {
        let out = ntt(args, Some(&env));
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("describes another machine"), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn bad_topologies_and_backends_are_clean_errors() {
    let out = ntt(&["topology", "--topology", "xml:/no/such/file.xml"], None);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let why = if ntt_runtime::HWLOC_ENABLED {
        "cannot read"
    } else {
        "built without its `hwloc` feature"
    };
    assert!(stderr.contains(why), "{stderr}");
    let out = ntt(&["plan", "--log-n", "20", "--topology", "synthetic:pack:x"], None);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out).1);
    let out = ntt(&["plan", "--log-n", "20", "--topology", "lstopo"], None);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("unknown topology source"), "{stderr}");
    // Another machine's backend may be anything; this machine's must run here.
    let foreign = if cfg!(target_arch = "x86_64") {
        "neon"
    } else {
        "avx2"
    };
    let out = ntt(
        &["plan", "--log-n", "20", "--threads", "1", "--backend", foreign],
        None,
    );
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("lacks"), "{stderr}");
    let out = ntt(
        &[
            "plan",
            "--log-n",
            "20",
            "--threads",
            "1",
            "--topology",
            "defaults",
        ],
        None,
    );
    assert!(out.status.success(), "{}", text(&out).1);
}
