//! End-to-end tests of the `ntt` binary: real processes, real files.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn ntt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ntt"))
        .args(args)
        .env_remove("NTT_BACKEND")
        .env_remove("NTT_THREADS")
        .output()
        .expect("the binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A scratch directory unique to one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ntt-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn write_witness(path: &Path, words: usize, seed: u64) {
    let mut x = seed;
    let bytes: Vec<u8> = (0..words)
        .flat_map(|_| {
            // SplitMix64: any fixed sequence of words will do here.
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            (z ^ (z >> 31)).to_le_bytes()
        })
        .collect();
    std::fs::write(path, bytes).expect("write witness");
}

fn assert_clean_failure(out: &Output, code: i32, message: &str) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout: {}\nstderr: {}",
        stdout(out),
        stderr(out)
    );
    let err = stderr(out);
    assert!(err.contains(message), "stderr lacks `{message}`: {err}");
    assert!(!err.contains("panicked"), "a panic reached the user: {err}");
    assert!(
        !err.contains("RUST_BACKTRACE"),
        "a backtrace hint reached the user: {err}"
    );
}

#[test]
fn default_commit_prints_root_plan_and_stage_times() {
    let out = ntt(&["commit", "--json", "--threads", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("one JSON object");
    assert_eq!(v["root"].as_str().map(str::len), Some(64));
    assert_eq!(v["log_rows"], 17);
    assert_eq!(v["lanes"], 64);
    assert_eq!(v["log_inv_rate"], 1);
    assert_eq!(v["threads"], 2);
    assert!(v["backend"].is_string());
    for stage in ["encode", "hash", "total"] {
        assert!(
            v["times_ms"][stage].as_f64().is_some_and(|t| t >= 0.0),
            "times_ms.{stage}"
        );
    }
    // The default workload is seeded: the root is the same at any worker count.
    let one = ntt(&["commit", "--json", "--threads", "1"]);
    let v1: serde_json::Value = serde_json::from_str(&stdout(&one)).expect("JSON");
    assert_eq!(v["root"], v1["root"]);
}

#[test]
fn the_basis_flag_is_reported_and_changes_the_root() {
    let root = |basis: &str| {
        let out = ntt(&["commit", "--json", "--threads", "1", "--basis", basis]);
        assert!(out.status.success(), "{}", stderr(&out));
        let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
        assert_eq!(v["basis"], basis);
        v["root"].as_str().expect("root").to_owned()
    };
    assert_ne!(root("polynomial"), root("cantor"));
    let default = ntt(&["commit", "--json", "--threads", "1"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&default)).expect("JSON");
    assert_eq!(v["basis"], "polynomial");
    let bad = ntt(&["commit", "--basis", "tower"]);
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
}

#[test]
fn saved_codeword_hashes_to_the_root() {
    let dir = scratch("save");
    let witness = dir.join("w.bin");
    let codeword = dir.join("c.bin");
    write_witness(&witness, 24 * 64, 1);
    for layout in ["lanes", "rows"] {
        let out = ntt(&[
            "commit",
            "--input",
            witness.to_str().unwrap(),
            "--lanes",
            "24",
            "--log-inv-rate",
            "2",
            "--layout",
            layout,
            "--save-codeword",
            codeword.to_str().unwrap(),
            "--json",
            "--repeat",
            "3",
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
        let bytes = std::fs::read(&codeword).expect("codeword written");
        assert_eq!(bytes.len(), 24 * 64 * 4 * 8);
        assert_eq!(
            v["root"].as_str().unwrap(),
            blake3::hash(&bytes).to_hex().as_str()
        );
    }
}

#[test]
fn encode_writes_the_committed_codeword() {
    let dir = scratch("encode");
    let witness = dir.join("w.bin");
    write_witness(&witness, 5 * 32, 2);
    let (a, b) = (dir.join("a.bin"), dir.join("b.bin"));
    let enc = ntt(&[
        "encode",
        "--input",
        witness.to_str().unwrap(),
        "--lanes",
        "5",
        "--log-inv-rate",
        "1",
        "--output",
        a.to_str().unwrap(),
    ]);
    assert!(enc.status.success(), "{}", stderr(&enc));
    let com = ntt(&[
        "commit",
        "--input",
        witness.to_str().unwrap(),
        "--lanes",
        "5",
        "--log-inv-rate",
        "1",
        "--save-codeword",
        b.to_str().unwrap(),
    ]);
    assert!(com.status.success(), "{}", stderr(&com));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

#[test]
fn open_verify_round_trip_and_tampering() {
    let dir = scratch("open");
    let witness = dir.join("w.bin");
    let proof = dir.join("p.bin");
    write_witness(&witness, 7 * 64, 3);
    let open = ntt(&[
        "open",
        "--input",
        witness.to_str().unwrap(),
        "--lanes",
        "7",
        "--log-inv-rate",
        "1",
        "--rows",
        "3,127,0,3,64",
        "--output",
        proof.to_str().unwrap(),
    ]);
    assert!(open.status.success(), "{}", stderr(&open));
    let text = stdout(&open);
    let root = text
        .lines()
        .find_map(|l| l.strip_prefix("root"))
        .expect("root line")
        .trim()
        .to_owned();
    let log_rows = text
        .lines()
        .find_map(|l| l.strip_prefix("log-rows"))
        .expect("log-rows")
        .trim()
        .to_owned();
    assert_eq!(log_rows, "7");
    let verify = |root: &str, rows: &str, proof: &Path| {
        ntt(&[
            "verify",
            "--root",
            root,
            "--lanes",
            "7",
            "--log-rows",
            "7",
            "--rows",
            rows,
            "--proof",
            proof.to_str().unwrap(),
        ])
    };
    let ok = verify(&root, "3,127,0,3,64", &proof);
    assert!(ok.status.success(), "{}", stderr(&ok));
    assert!(stdout(&ok).contains("row 127:"));

    // A different root, different rows, or a flipped proof byte is rejected.
    let mut bad_root = root.clone().into_bytes();
    bad_root[0] = if bad_root[0] == b'0' { b'1' } else { b'0' };
    let out = verify(std::str::from_utf8(&bad_root).unwrap(), "3,127,0,3,64", &proof);
    assert_ne!(out.status.code(), Some(0));
    assert_ne!(verify(&root, "3,126,0,3,64", &proof).status.code(), Some(0));
    let mut bytes = std::fs::read(&proof).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x10;
    let tampered = dir.join("t.bin");
    std::fs::write(&tampered, &bytes).unwrap();
    let out = verify(&root, "3,127,0,3,64", &tampered);
    assert_ne!(out.status.code(), Some(0));
    assert!(!stderr(&out).contains("panicked"));

    // A truncated proof is malformed, not a crash.
    let bytes = std::fs::read(&proof).unwrap();
    std::fs::write(&tampered, &bytes[..bytes.len() - 5]).unwrap();
    assert_clean_failure(&verify(&root, "3,127,0,3,64", &tampered), 2, "malformed proof");
}

#[test]
fn bad_inputs_give_messages_and_exit_codes() {
    let dir = scratch("bad");
    write_witness(&dir.join("odd.bin"), 4 * 8 + 1, 4);
    write_witness(&dir.join("three.bin"), 4 * 3, 5);
    write_witness(&dir.join("good.bin"), 4 * 8, 6);
    std::fs::write(dir.join("ragged.bin"), [0u8; 13]).unwrap();
    std::fs::write(dir.join("p.bin"), b"not a proof").unwrap();
    let zero_root = "00".repeat(32);
    // (command line with `@` for the scratch directory, exit code, a phrase the message must
    // contain), run in order: the failed `open` must leave the bad proof for the last `verify`.
    let cases = [
        ("commit --input @/missing.bin --lanes 4", 3, "cannot read"),
        (
            "commit --input @/odd.bin --lanes 4",
            2,
            "not a multiple of the lane count",
        ),
        (
            "commit --input @/three.bin --lanes 4",
            2,
            "must be a power of two",
        ),
        (
            "commit --input @/ragged.bin --lanes 1",
            2,
            "whole number of 8-byte",
        ),
        (
            "verify --root xyz --lanes 4 --log-rows 3 --rows 1 --proof @/p.bin",
            2,
            "not a hex root",
        ),
        (
            "open --input @/good.bin --lanes 4 --log-inv-rate 1 --rows 16 --output @/p.bin",
            2,
            "16",
        ),
        (
            &*format!("verify --root {zero_root} --lanes 4 --log-rows 4 --rows 1 --proof @/p.bin"),
            2,
            "malformed proof",
        ),
    ];
    let dir = dir.to_str().unwrap();
    for (line, code, message) in cases {
        // Split first, then substitute, so a directory with spaces stays one argument.
        let args: Vec<String> = line.split_whitespace().map(|a| a.replace('@', dir)).collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_clean_failure(&ntt(&args), code, message);
    }
}

#[test]
fn plan_explains_itself_in_text_and_json() {
    let text = ntt(&[
        "plan",
        "--log-n",
        "24",
        "--lanes",
        "64",
        "--log-inv-rate",
        "1",
        "--threads",
        "2",
    ]);
    assert!(text.status.success(), "{}", stderr(&text));
    assert!(!stdout(&text).trim().is_empty());
    let json = ntt(&[
        "plan",
        "--log-n",
        "24",
        "--lanes",
        "64",
        "--log-inv-rate",
        "1",
        "--threads",
        "2",
        "--json",
    ]);
    assert!(json.status.success(), "{}", stderr(&json));
    let _: serde_json::Value = serde_json::from_str(&stdout(&json)).expect("plan JSON");
    assert_clean_failure(
        &ntt(&["plan", "--log-n", "24", "--lanes", "48"]),
        2,
        "power of two",
    );
}

#[test]
fn topology_report_has_workers_with_budgets() {
    let text = ntt(&["topology", "--threads", "2"]);
    assert!(text.status.success(), "{}", stderr(&text));
    let json = ntt(&["topology", "--json", "--threads", "2"]);
    assert!(json.status.success(), "{}", stderr(&json));
    let v: serde_json::Value = serde_json::from_str(&stdout(&json)).expect("topology JSON");
    let workers = v["workers"].as_array().expect("workers array");
    assert_eq!(workers.len(), 2);
    for w in workers {
        assert!(w["l2_bytes"].as_u64().is_some_and(|b| b > 0));
        assert!(w["l3_bytes"].as_u64().is_some_and(|b| b > 0));
    }
}
