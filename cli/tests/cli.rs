//! End-to-end tests of the `ntt` binary: real processes, real files.

mod common;

use common::*;
use std::path::Path;

#[test]
fn default_commit_prints_root_plan_and_stage_times() {
    let out = ntt(&["commit", "--json", "--threads", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["version"], 1);
    assert_eq!(v["root"].as_str().map(str::len), Some(64));
    assert_eq!(v["log_rows"], 17);
    assert_eq!(v["lanes"], 64);
    assert_eq!(v["log_inv_rate"], 1);
    assert_eq!(v["threads"], 2);
    assert!(v["backend"].is_string());
    for stage in ["allocate", "encode", "hash", "total"] {
        assert!(
            v["times_ms"][stage].as_f64().is_some_and(|t| t >= 0.0),
            "times_ms.{stage}"
        );
        assert_eq!(v["times_ms"][stage], v["first_run_ms"][stage]);
    }
    assert!(v["reused_runs_ms"].is_null());
    assert_eq!(v["samples_ms"].as_array().map(Vec::len), Some(1));
    // The default workload is seeded: the root is the same at any worker count.
    let one = ntt(&["commit", "--json", "--threads", "1"]);
    assert_eq!(v["root"], json(&one)["root"]);
}

#[test]
fn commit_stages_sum_to_the_total_and_the_first_touch_is_shared_out() {
    let dir = scratch("stages");
    let witness = dir.join("w.bin");
    // 2^18 words of 16 lanes at rate 1/2: a 4 MiB codeword, large enough to be shared out.
    write_witness(&witness, 1 << 18, 5);
    let args = [
        "commit",
        "--input",
        s(&witness),
        "--lanes",
        "16",
        "--threads",
        "2",
        "--repeat",
        "3",
        "--json",
    ];
    // The first touch before the passes: every byte once, each share timed.
    let out = ntt_with(&args, &[("NTT_FIRST_TOUCH", "populate")], None);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    for run in v["samples_ms"].as_array().expect("samples") {
        let stage = |name: &str| run[name].as_f64().unwrap_or(-1.0);
        assert!(
            ["allocate", "encode", "hash"].iter().all(|&n| stage(n) >= 0.0),
            "{run}"
        );
        let sum = stage("allocate") + stage("encode") + stage("hash");
        // Each stage is rounded to the microsecond on its own.
        assert!(
            (sum - stage("total")).abs() < 2e-3,
            "stages {sum} against total in {run}"
        );
    }
    let touch = v["first_touch"].as_array().expect("first_touch");
    let bytes: u64 = touch.iter().map(|w| w["bytes"].as_u64().unwrap_or(0)).sum();
    assert_eq!(bytes, 8 << 19, "every byte of the fresh codeword, once");
    // Unset, the same (`populate` is the default), and the pages it asked for are reported.
    let out = ntt(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    let default_bytes: u64 = v["first_touch"]
        .as_array()
        .expect("first_touch")
        .iter()
        .map(|w| w["bytes"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(default_bytes, 8 << 19, "{v}");
    let pages = &v["pages"];
    assert_eq!(pages["policy"], "auto", "{pages}");
    let asked = ["huge_bytes", "small_bytes", "present_bytes"]
        .iter()
        .map(|k| pages[k].as_u64().expect("a byte count"))
        .sum::<u64>();
    assert_eq!(asked, 8 << 19, "{pages}");
    assert!(
        touch
            .iter()
            .all(|w| w["worker"].as_u64().is_some_and(|i| i < 2) && w["ms"].as_f64().is_some())
    );
    // Left to the passes, read as every NTT_* variable is (trimmed, so ` passes ` is `passes`):
    // each worker's page faults over the encode, no bytes.
    let out = ntt_with(&args, &[("NTT_FIRST_TOUCH", " passes ")], None);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    let touch = v["first_touch"].as_array().expect("first_touch");
    assert!(
        !touch.is_empty()
            && touch.iter().all(|w| w["worker"].as_u64().is_some_and(|i| i < 2)
                && w["bytes"].as_u64() == Some(0)
                && w["faults"].as_u64().is_some_and(|f| f > 0)),
        "{touch:?}"
    );
    let text = stdout(&ntt_with(
        &args[..args.len() - 1],
        &[("NTT_FIRST_TOUCH", "populate")],
        None,
    ));
    assert!(
        text.contains("allocate") && text.contains("first touch w"),
        "{text}"
    );
}

#[test]
fn repeated_commits_report_the_fresh_run_apart_from_the_reused_ones() {
    let dir = scratch("repeat");
    let witness = dir.join("w.bin");
    write_witness(&witness, 8 * 64, 9);
    let out = ntt(&[
        "commit",
        "--input",
        s(&witness),
        "--lanes",
        "8",
        "--repeat",
        "4",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    let samples = v["samples_ms"].as_array().expect("samples");
    assert_eq!(samples.len(), 4);
    assert_eq!(samples[0], v["first_run_ms"]);
    for stage in ["allocate", "encode", "hash", "total"] {
        let reused: Vec<f64> = samples[1..].iter().map(|t| t[stage].as_f64().unwrap()).collect();
        let spread = &v["reused_runs_ms"][stage];
        let min = reused.iter().copied().fold(f64::INFINITY, f64::min);
        let max = reused.iter().copied().fold(0.0, f64::max);
        assert_eq!(spread["min"].as_f64(), Some(min));
        assert_eq!(spread["max"].as_f64(), Some(max));
        assert_eq!(spread["median"], v["times_ms"][stage]);
    }
    let text = stdout(&ntt(&[
        "commit",
        "--input",
        s(&witness),
        "--lanes",
        "8",
        "--repeat",
        "3",
    ]));
    assert!(
        text.contains("median of 2 reused runs") && text.contains("first run"),
        "{text}"
    );
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
            s(&witness),
            "--lanes",
            "24",
            "--log-inv-rate",
            "2",
            "--layout",
            layout,
            "--save-codeword",
            s(&codeword),
            "--json",
            "--repeat",
            "3",
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let bytes = std::fs::read(&codeword).expect("codeword written");
        assert_eq!(bytes.len(), 24 * 64 * 4 * 8);
        assert_eq!(
            json(&out)["root"].as_str().unwrap(),
            blake3::hash(&bytes).to_hex().as_str()
        );
    }
    assert_no_temporaries(&dir);
}

#[test]
fn encode_writes_the_committed_codeword_to_files_and_pipes() {
    let dir = scratch("encode");
    let witness = dir.join("w.bin");
    write_witness(&witness, 5 * 32, 2);
    let (a, b) = (dir.join("a.bin"), dir.join("b.bin"));
    let enc = ntt(&[
        "encode",
        "--input",
        s(&witness),
        "--lanes",
        "5",
        "--log-inv-rate",
        "1",
        "--output",
        s(&a),
    ]);
    assert!(enc.status.success(), "{}", stderr(&enc));
    let com = ntt(&[
        "commit",
        "--input",
        s(&witness),
        "--lanes",
        "5",
        "--log-inv-rate",
        "1",
        "--save-codeword",
        s(&b),
    ]);
    assert!(com.status.success(), "{}", stderr(&com));
    let codeword = std::fs::read(&a).unwrap();
    assert_eq!(codeword, std::fs::read(&b).unwrap());

    // `-` is standard input and output; the report moves to stderr.
    let piped = ntt_with(
        &[
            "encode",
            "--input",
            "-",
            "--lanes",
            "5",
            "--log-inv-rate",
            "1",
            "--output",
            "-",
            "--json",
        ],
        &[],
        Some(&std::fs::read(&witness).unwrap()),
    );
    assert!(piped.status.success(), "{}", stderr(&piped));
    assert_eq!(piped.stdout, codeword);
    let report: serde_json::Value = serde_json::from_str(&stderr(&piped)).expect("report on stderr");
    assert_eq!(report["version"], 1);
    assert_eq!(report["codeword_words"], 5 * 64);
    assert_no_temporaries(&dir);
}

#[test]
fn witness_files_are_the_default_workload_and_stream_through_pipes() {
    let dir = scratch("witness");
    let w = dir.join("w.bin");
    let out = ntt(&["witness", "--log-n", "22", "--output", s(&w), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(json(&out)["words"], 1 << 22);
    let from_file = ntt(&["commit", "--input", s(&w), "--json", "--threads", "2"]);
    let default = ntt(&["commit", "--json", "--threads", "2"]);
    assert_eq!(json(&from_file)["root"], json(&default)["root"]);

    let seeded = ntt(&[
        "witness", "--log-n", "10", "--lanes", "4", "--seed", "7", "--output", "-",
    ]);
    assert!(seeded.status.success(), "{}", stderr(&seeded));
    assert_eq!(seeded.stdout.len(), 8 << 10);
    let again = ntt(&[
        "witness", "--log-n", "10", "--lanes", "4", "--seed", "7", "--output", "-",
    ]);
    assert_eq!(seeded.stdout, again.stdout);
    let other = ntt(&[
        "witness", "--log-n", "10", "--lanes", "4", "--seed", "8", "--output", "-",
    ]);
    assert_ne!(seeded.stdout, other.stdout);
}

#[test]
fn open_verify_round_trip_and_tampering() {
    let dir = scratch("open");
    let witness = dir.join("w.bin");
    let proof = dir.join("p.bin");
    let commitment = dir.join("c.json");
    write_witness(&witness, 7 * 64, 3);
    let open = ntt(&[
        "open",
        "--input",
        s(&witness),
        "--lanes",
        "7",
        "--log-inv-rate",
        "1",
        "--rows",
        "3,127,0,3,64",
        "--output",
        s(&proof),
        "--commitment",
        s(&commitment),
    ]);
    assert!(open.status.success(), "{}", stderr(&open));
    let text = stdout(&open);
    let root = text
        .lines()
        .find_map(|l| l.strip_prefix("root"))
        .expect("root line")
        .trim()
        .to_owned();
    let file: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&commitment).unwrap()).expect("commitment JSON");
    // One version key, the library's.
    assert_eq!(file["format_version"], 1);
    assert_eq!(file.get("version"), None);
    assert_eq!(file["root"], root.as_str());
    assert_eq!(file["log_rows"], 7);
    assert_eq!(file["lanes"], 7);

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
            s(proof),
        ])
    };
    let ok = verify(&root, "3,127,0,3,64", &proof);
    assert!(ok.status.success(), "{}", stderr(&ok));
    assert!(stdout(&ok).contains("row 127:"));
    // NTT_LOG times the check as the `verify` span docs/CLI.md lists.
    let logged = ntt_with(
        &[
            "verify",
            "--commitment",
            s(&commitment),
            "--rows",
            "3,127,0,3,64",
            "--proof",
            s(&proof),
        ],
        &[("NTT_LOG", "info")],
        None,
    );
    assert!(logged.status.success(), "{}", stderr(&logged));
    let log = stderr(&logged);
    assert!(
        log.lines().any(
            |l| l.contains("verify{rows=5 log_rows=7 lanes=7 tree=\"chunks\"}")
                && l.contains("close")
                && l.contains("time.busy")
        ),
        "no timed `verify` span in:\n{log}"
    );
    let from_file = ntt(&[
        "verify",
        "--commitment",
        s(&commitment),
        "--rows",
        "3,127,0,3,64",
        "--proof",
        s(&proof),
        "--json",
    ]);
    assert!(from_file.status.success(), "{}", stderr(&from_file));
    let v = json(&from_file);
    assert_eq!(v["holds"], true);
    assert_eq!(v["rows"].as_array().map(Vec::len), Some(5));
    assert_eq!(v["rows"][1]["index"], 127);
    assert_eq!(v["rows"][1]["words"].as_array().map(Vec::len), Some(7));
    // The proof can come from standard input.
    let piped = ntt_with(
        &[
            "verify",
            "--commitment",
            s(&commitment),
            "--rows",
            "3,127,0,3,64",
            "--proof",
            "-",
        ],
        &[],
        Some(&std::fs::read(&proof).unwrap()),
    );
    assert!(piped.status.success(), "{}", stderr(&piped));

    // A different root, different rows, or a flipped proof byte is rejected: exit 1.
    let mut bad_root = root.clone().into_bytes();
    bad_root[0] = if bad_root[0] == b'0' { b'1' } else { b'0' };
    let out = verify(std::str::from_utf8(&bad_root).unwrap(), "3,127,0,3,64", &proof);
    assert_clean_failure(&out, 1, "proof rejected");
    assert_clean_failure(&verify(&root, "3,126,0,3,64", &proof), 1, "proof rejected");
    let mut bytes = std::fs::read(&proof).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x10;
    let tampered = dir.join("t.bin");
    std::fs::write(&tampered, &bytes).unwrap();
    assert_clean_failure(&verify(&root, "3,127,0,3,64", &tampered), 1, "proof rejected");
    let rejected = ntt(&[
        "verify",
        "--commitment",
        s(&commitment),
        "--rows",
        "3,127,0,3,64",
        "--proof",
        s(&tampered),
        "--json",
    ]);
    assert_eq!(rejected.status.code(), Some(1));
    assert_eq!(json(&rejected)["holds"], false);

    // A truncated proof is malformed, not a crash.
    let bytes = std::fs::read(&proof).unwrap();
    std::fs::write(&tampered, &bytes[..bytes.len() - 5]).unwrap();
    assert_clean_failure(&verify(&root, "3,127,0,3,64", &tampered), 2, "malformed proof");
    assert_no_temporaries(&dir);
}

#[test]
fn every_row_tree_hash_opens_and_verifies_and_no_other_accepts_it() {
    let dir = scratch("row-hashes");
    let witness = dir.join("w.bin");
    write_witness(&witness, 5 * 32, 11);
    let hashes = ["blake3", "keccak", "sha256"];
    let mut caps = Vec::new();
    for hash in hashes {
        let (proof, commitment) = (dir.join(format!("{hash}.bin")), dir.join(format!("{hash}.json")));
        let open = ntt(&[
            "open",
            s(&witness),
            "--lanes",
            "5",
            "--log-inv-rate",
            "1",
            "--tree",
            "rows",
            "--hash",
            hash,
            "--cap-height",
            "1",
            "--rows",
            "3,40,0",
            "--output",
            s(&proof),
            "--commitment",
            s(&commitment),
        ]);
        assert!(open.status.success(), "{hash}: {}", stderr(&open));
        let file: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&commitment).unwrap()).expect("commitment JSON");
        assert_eq!(file["hash"], hash);
        caps.push(file["cap"].clone());
        let verify = ntt(&["verify", s(&commitment), s(&proof), "--rows", "40,3,0"]);
        assert!(verify.status.success(), "{hash}: {}", stderr(&verify));
    }
    // Three hashes, three commitments; a proof checked against another hash's is refused.
    assert!(caps[0] != caps[1] && caps[1] != caps[2] && caps[0] != caps[2]);
    for (i, hash) in hashes.iter().enumerate() {
        let other = hashes[(i + 1) % 3];
        let verify = ntt(&[
            "verify",
            s(&dir.join(format!("{other}.json"))),
            s(&dir.join(format!("{hash}.bin"))),
            "--rows",
            "3,40,0",
        ]);
        assert!(!verify.status.success(), "a {hash} proof passed as {other}");
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
    let v = json(&ntt(&[
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
    ]));
    assert_eq!(v["version"], 1);
    assert_eq!(v["threads"], 2);
    assert!(v.get("workers").is_none(), "one name per concept: threads");
    // The short form the other commands print, in both outputs, and the same in both.
    let summary = v["summary"].as_str().expect("a summary string");
    assert!(
        summary.contains("sweeps: transpose")
            && summary.contains(" gather[")
            && summary.contains("| sink 2^"),
        "{summary}"
    );
    // Each sweep's traffic: the transpose reads and writes the 128 MiB message.
    let traffic = v["traffic"].as_array().expect("a traffic list");
    assert_eq!(traffic[0]["pass"], "transpose");
    assert_eq!(traffic[0]["read_bytes"], 128u64 << 20);
    assert!(
        stdout(&text).contains("  traffic: transpose reads 128 MiB"),
        "{}",
        stdout(&text)
    );
    assert!(
        stdout(&text).contains(&format!("  short: {summary}\n")),
        "{}",
        stdout(&text)
    );
    let help = stdout(&ntt(&["plan", "--help"]));
    assert!(
        help.contains("Reading a plan's short form") && help.contains("deep-l2[a..L t×2^mr how]"),
        "{help}"
    );
    assert!(help.contains("Examples:"), "{help}");
}

#[test]
fn topology_report_has_workers_with_budgets() {
    let text = ntt(&["topology", "--threads", "2"]);
    assert!(text.status.success(), "{}", stderr(&text));
    let v = json(&ntt(&["topology", "--json", "--threads", "2"]));
    assert_eq!(v["version"], 1);
    assert_eq!(v["threads"], 2);
    let workers = v["workers"].as_array().expect("workers array");
    assert_eq!(workers.len(), 2);
    for w in workers {
        assert!(w["l2_bytes"].as_u64().is_some_and(|b| b > 0));
        assert!(w["l3_bytes"].as_u64().is_some_and(|b| b > 0));
    }
    for p in v["plans"].as_array().expect("plans") {
        assert!(p["threads"].is_number() && p["plan"]["threads"].is_number());
    }
    let columns = v["column_start"].as_str().expect("the column start");
    assert!(["line", "line-for-long-rows"].contains(&columns), "{columns}");
    // NTT_COLUMNS picks it, for the detected backend and for a named one.
    for (backend, forced) in [(None, "line"), (Some("portable"), "line-for-long-rows")] {
        let mut args = vec!["topology", "--json", "--threads", "1"];
        args.extend(backend.map(|b| ["--backend", b]).into_iter().flatten());
        let v = json(&ntt_with(&args, &[("NTT_COLUMNS", forced)], None));
        assert_eq!(v["column_start"], forced, "{backend:?}");
    }
    assert!(stdout(&text).contains("Full columns start:"), "{}", stdout(&text));
}

#[test]
fn tune_writes_whole_files_and_takes_the_old_spellings() {
    let dir = scratch("tune");
    let results = dir.join("results");
    // `--out` and `--repeats` are the old spellings of `--output` and `--repeat`.
    let out = ntt_with(
        &[
            "tune",
            "--log-n",
            "10",
            "--lanes",
            "4",
            "--threads",
            "1",
            "--repeats",
            "1",
            "--backends",
            "portable",
            "--out",
            s(&results),
            "--json",
        ],
        &[("NTT_WISDOM", "off")],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["version"], 1);
    assert_eq!(v["best"][0]["setting"]["threads"], 1);
    assert_eq!(v["best"][0]["setting"]["backend"], "portable");
    assert!(
        v["best"][0]["setting"]["planner_l2_bytes"]
            .as_u64()
            .is_some_and(|b| b > 0)
    );
    // Not a terminal: plain status lines on stderr.
    assert!(stderr(&out).contains("tune: 2^10 words"), "{}", stderr(&out));
    for name in [
        "measurements.csv",
        "measurements.json",
        "summary.json",
        "plot.svg",
        "plot.png",
    ] {
        assert!(results.join(name).is_file(), "{name}");
    }
    let measurements: serde_json::Value =
        serde_json::from_slice(&std::fs::read(results.join("measurements.json")).unwrap()).unwrap();
    assert_eq!(measurements["version"], 1);
    // Every candidate is one point: timed itself, or listed under the point whose plan it shares.
    let mut labels: Vec<&str> = Vec::new();
    for m in measurements["measurements"].as_array().expect("measurements") {
        labels.push(m["candidate"]["label"].as_str().expect("a label"));
        for same in m["same_plan"].as_array().expect("same_plan") {
            labels.push(same.as_str().expect("a label"));
        }
    }
    let count = labels.len();
    labels.sort_unstable();
    labels.dedup();
    assert_eq!(labels.len(), count, "a candidate is in two points");
    assert!(labels.contains(&"default"));
    assert!(
        std::fs::read_to_string(results.join("measurements.csv"))
            .unwrap()
            .starts_with("log_n,lanes,log_inv_rate,threads,backend,")
    );
    assert_no_temporaries(&results);
}

#[test]
fn help_and_version_say_what_the_tool_is() {
    let version = ntt(&["--version"]);
    assert_eq!(stdout(&version).trim(), "ntt 0.1.0");
    let help = stdout(&ntt(&["--help"]));
    assert!(help.contains("Reed-Solomon commitments"), "{help}");
    assert!(help.contains("witness") && help.contains("Exit status"), "{help}");
}

/// Every `NTT_*` name in the sources of the crates `ntt` is built from, outside comments and
/// unit tests (a file's `#[cfg(test)]` module comes last).
fn variables_the_code_reads() -> std::collections::BTreeSet<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut dirs: Vec<_> = ["kernels", "runtime", "pcs", "shell", "cli"]
        .iter()
        .map(|c| root.join(c).join("src"))
        .collect();
    let mut names = std::collections::BTreeSet::new();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("a source directory") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("a source file");
            let code = text.lines().take_while(|l| l.trim() != "#[cfg(test)]");
            for line in code.filter(|l| !l.trim_start().starts_with("//")) {
                for (i, _) in line.match_indices("\"NTT_") {
                    let name: String = line[i + 1..]
                        .chars()
                        .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                        .collect();
                    names.insert(name);
                }
            }
        }
    }
    names
}

#[test]
fn help_names_every_variable_the_code_reads() {
    let names = variables_the_code_reads();
    assert!(
        names.len() >= 10 && names.contains("NTT_LOG") && names.contains("NTT_IDLE_SPIN_US"),
        "the scan found {names:?}"
    );
    let help = stdout(&ntt(&["--help"]));
    for name in &names {
        assert!(
            help.contains(name.as_str()),
            "`ntt --help` does not name {name}:\n{help}"
        );
    }
}

#[test]
fn ntt_log_prints_every_stage_and_pass_time() {
    let dir = scratch("log");
    let witness = dir.join("w.bin");
    write_witness(&witness, 16 << 10, 4);
    let out = ntt_with(
        &[
            "commit",
            "--input",
            s(&witness),
            "--lanes",
            "16",
            "--threads",
            "2",
        ],
        // The first touch before the passes, so that its per-worker spans are timed too.
        &[("NTT_LOG", "debug"), ("NTT_FIRST_TOUCH", "populate")],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let log = stderr(&out);
    let closes: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("close") && l.contains("time.busy"))
        .collect();
    for span in [
        "commit",
        "allocate",
        "first_touch_worker",
        "encode",
        "forward",
        "_pass",
    ] {
        assert!(
            closes.iter().any(|l| l.contains(span)),
            "no timed `{span}` span in:\n{log}"
        );
    }
    // Each pass, whichever worker ran it, nests under the commit's encode.
    for pass in closes.iter().filter(|l| l.contains("_pass")) {
        assert!(
            pass.contains("commit{") && pass.contains("}:encode{"),
            "an orphan pass: {pass}"
        );
    }
    // At info: the stages, not the passes.
    let out = ntt_with(
        &["commit", s(&witness), "--lanes", "16", "--threads", "2"],
        &[("NTT_LOG", "info")],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let log = stderr(&out);
    for span in ["commit", "allocate", "encode", "merge"] {
        assert!(
            log.lines().any(|l| l.contains(span) && l.contains("close")),
            "no `{span}` at info in:\n{log}"
        );
    }
    assert!(!log.contains("_pass") && !log.contains("DEBUG"), "{log}");
    // Without NTT_LOG the same run is quiet.
    let quiet = ntt(&[
        "commit",
        "--input",
        s(&witness),
        "--lanes",
        "16",
        "--threads",
        "2",
    ]);
    assert!(stderr(&quiet).is_empty(), "{}", stderr(&quiet));
}

#[test]
fn every_subcommand_speaks_versioned_json() {
    let dir = scratch("json");
    let w = dir.join("w.bin");
    let (c, p, j) = (dir.join("c.bin"), dir.join("p.bin"), dir.join("c.json"));
    let runs: Vec<Vec<&str>> = vec![
        vec!["witness", "--log-n", "8", "--lanes", "4", "--output", s(&w)],
        vec!["commit", "--input", s(&w), "--lanes", "4"],
        vec![
            "encode",
            "--input",
            s(&w),
            "--lanes",
            "4",
            "--log-inv-rate",
            "1",
            "--output",
            s(&c),
        ],
        vec![
            "open",
            "--input",
            s(&w),
            "--lanes",
            "4",
            "--log-inv-rate",
            "1",
            "--rows",
            "1",
            "--output",
            s(&p),
            "--commitment",
            s(&j),
        ],
        vec!["verify", "--commitment", s(&j), "--rows", "1", "--proof", s(&p)],
        vec!["plan", "--log-n", "12", "--lanes", "4", "--threads", "1"],
        vec!["topology", "--threads", "1"],
    ];
    for mut args in runs {
        args.push("--json");
        let out = ntt(&args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let v = json(&out);
        assert_eq!(v["version"], 1, "{args:?}");
        if !matches!(args[0], "witness" | "verify") {
            assert!(v["threads"].is_number(), "{args:?} lacks `threads`");
        }
    }
}

#[test]
fn a_closed_pipe_ends_quietly() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_ntt"))
        .args(["witness", "--log-n", "24", "--output", "-"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.signal(), Some(libc::SIGPIPE), "{:?}", out.status);
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
}

/// `-i`, `-o` and `-j` are `--input`, `--output` and `--threads`; `--pin` sets the pinning and
/// the JSON records it.
#[test]
fn short_flags_and_pin_reach_the_engine() {
    let dir = scratch("short");
    let witness = dir.join("w.bin");
    let out = ntt(&["witness", "--log-n", "12", "--lanes", "16", "-o", s(&witness)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let long = ntt(&["witness", "--log-n", "12", "--lanes", "16", "--output", "-"]);
    assert_eq!(std::fs::read(&witness).unwrap(), long.stdout);
    for pin in ["none", "cores", "pus"] {
        let commit = ntt(&[
            "commit",
            "-i",
            s(&witness),
            "--lanes",
            "16",
            "-j",
            "2",
            "--pin",
            pin,
            "--json",
        ]);
        assert!(commit.status.success(), "{}", stderr(&commit));
        let v = json(&commit);
        assert_eq!(v["threads"], 2, "{v}");
        assert_eq!(v["pin"], pin, "{v}");
    }
    let codeword = dir.join("c.bin");
    let encode = ntt(&[
        "encode",
        "-i",
        s(&witness),
        "--lanes",
        "16",
        "--log-inv-rate",
        "1",
        "-o",
        s(&codeword),
        "-j",
        "1",
        "--json",
    ]);
    assert!(encode.status.success(), "{}", stderr(&encode));
    assert_eq!(json(&encode)["threads"], 1);
    assert!(codeword.is_file());
}

/// `NTT_PIN=none` leaves every worker unbound; `--pin` overrides it; a value that names no
/// policy is bad input (exit 2) that says which variable is wrong.
#[test]
fn ntt_pin_sets_the_default_pinning() {
    let report = |args: &[&str], pin: &str| {
        let mut all = vec!["topology", "--json", "-j", "2"];
        all.extend_from_slice(args);
        let out = ntt_with(&all, &[("NTT_PIN", pin)], None);
        assert!(out.status.success(), "{}", stderr(&out));
        json(&out)
    };
    let none = report(&[], "none");
    assert_eq!(none["pin"], "none");
    let workers = none["workers"].as_array().expect("workers");
    assert_eq!(workers.len(), 2);
    assert!(
        workers
            .iter()
            .all(|w| w["bound_to"].as_array().is_some_and(Vec::is_empty))
    );
    assert_eq!(report(&["--pin", "none"], "pus")["pin"], "none");
    assert_eq!(report(&[], "pus")["pin"], "pus");
    let text = ntt_with(&["topology", "-j", "1"], &[("NTT_PIN", "none")], None);
    assert!(stdout(&text).contains("(pinning: none)"), "{}", stdout(&text));

    let bad = ntt_with(&["commit", "--threads", "1"], &[("NTT_PIN", "all-of-them")], None);
    assert_clean_failure(&bad, 2, "NTT_PIN");
}

/// At a size where every candidate plans the default plan's work, the text and the plot say so
/// instead of showing an empty panel.
#[test]
fn tune_says_when_only_the_default_plan_fits() {
    let dir = scratch("tune-small");
    let results = dir.join("results");
    let out = ntt(&[
        "tune",
        "--log-n",
        "14",
        "--lanes",
        "64",
        "-j",
        "1",
        "--repeat",
        "1",
        "--backends",
        "portable",
        "-o",
        s(&results),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("only the default plan fits this size"), "{text}");
    let svg = std::fs::read_to_string(results.join("plot.svg")).expect("plot.svg");
    assert!(
        svg.contains("2^14 words: only the default plan fits this size"),
        "no note in the plot"
    );
}

/// One row of the consistency table: a command line (`@` is the scratch directory), phrases its
/// standard output must and must not hold, and optionally a JSON key whose value must equal that
/// of another spelling of the same command.
struct Spelling {
    args: &'static str,
    holds: &'static [&'static str],
    lacks: &'static [&'static str],
    same_as: Option<(&'static str, &'static str)>,
}

const fn spelling(
    args: &'static str,
    holds: &'static [&'static str],
    lacks: &'static [&'static str],
) -> Spelling {
    Spelling {
        args,
        holds,
        lacks,
        same_as: None,
    }
}

const fn same(args: &'static str, other: &'static str, key: &'static str) -> Spelling {
    Spelling {
        args,
        holds: &[],
        lacks: &[],
        same_as: Some((other, key)),
    }
}

/// Positional files, `tune --thread-counts` and `--pin`, one pin key, singular nouns.
const SPELLINGS: &[Spelling] = &[
    same(
        "commit @/w.bin --lanes 4 --json",
        "commit --input @/w.bin --lanes 4 --json",
        "root",
    ),
    same(
        "commit @/w.bin --lanes 4 --json",
        "commit -i @/w.bin --lanes 4 --json",
        "root",
    ),
    same(
        "encode @/w.bin --lanes 4 --log-inv-rate 1 --output @/c1.bin --json",
        "encode --input @/w.bin --lanes 4 --log-inv-rate 1 --output @/c2.bin --json",
        "codeword_words",
    ),
    same(
        "open @/w.bin --lanes 4 --log-inv-rate 1 --rows 1 --output @/p2.bin --json",
        "open --input @/w.bin --lanes 4 --log-inv-rate 1 --rows 1 --output @/p3.bin --json",
        "root",
    ),
    same(
        "verify @/c.json @/p.bin --rows 1,2 --json",
        "verify --commitment @/c.json --proof @/p.bin --rows 1,2 --json",
        "rows",
    ),
    same(
        "verify @/p.bin --commitment @/c.json --rows 1,2 --json",
        "verify @/c.json --proof @/p.bin --rows 1,2 --json",
        "rows",
    ),
    spelling(
        "verify @/c.json @/p1.bin --rows 1",
        &["proof holds for 1 row\n"],
        &["(s)", "1 rows"],
    ),
    spelling(
        "verify @/c.json @/p.bin --rows 1,2",
        &["proof holds for 2 rows\n"],
        &["(s)"],
    ),
    spelling(
        "commit @/w.bin --lanes 1 --threads 1",
        &["x 1 lane,", "1 thread (pin"],
        &["(s)", "1 lanes", "1 threads"],
    ),
    spelling(
        "witness --log-n 4 --lanes 1 --output @/w1.bin",
        &["16 rows of 1 lane)"],
        &["1 lanes"],
    ),
    spelling(
        "topology --threads 1",
        &["2^20 words, 1 thread "],
        &["(s)", "1 threads"],
    ),
    spelling(
        "topology --threads 1 --pin none --json",
        &["\"pin\": \"none\""],
        &["pin_policy"],
    ),
    spelling(
        "tune --log-n 10 --lanes 4 --thread-counts 1 --pin none --repeat 1 --backends portable --output @/t1",
        &["2^10 words, 4 lanes, rate 1/2, 1 thread, portable"],
        &["(s)", "1 threads"],
    ),
    same(
        "tune --log-n 10 --lanes 4 -j 1 --repeat 1 --backends portable --output @/t2 --json",
        "tune --log-n 10 --lanes 4 --thread-counts 1 --repeat 1 --backends portable --output @/t3 --json",
        "best",
    ),
];

/// The JSON `best` of two tune runs holds times: keep the settings and labels only.
fn comparable(key: &str, v: &serde_json::Value) -> serde_json::Value {
    if key != "best" {
        return v.clone();
    }
    let items = v.as_array().expect("best is a list");
    serde_json::Value::Array(items.iter().map(|b| b["setting"].clone()).collect())
}

#[test]
fn every_spelling_of_a_command_agrees() {
    let dir = scratch("spellings");
    write_witness(&dir.join("w.bin"), 64, 11);
    let at = |args: &str| args.replace('@', s(&dir));
    let open = ntt(&[
        "open",
        "--input",
        &at("@/w.bin"),
        "--lanes",
        "4",
        "--log-inv-rate",
        "1",
        "--rows",
        "1,2",
        "--output",
        &at("@/p.bin"),
        "--commitment",
        &at("@/c.json"),
    ]);
    assert!(open.status.success(), "{}", stderr(&open));
    let open = ntt(&[
        "open",
        &at("@/w.bin"),
        "--lanes",
        "4",
        "--log-inv-rate",
        "1",
        "--rows",
        "1",
        "--output",
        &at("@/p1.bin"),
    ]);
    assert!(open.status.success(), "{}", stderr(&open));
    let run = |args: &str| {
        let line = at(args);
        let out = ntt(&line.split_whitespace().collect::<Vec<_>>());
        assert!(out.status.success(), "`ntt {line}`: {}", stderr(&out));
        out
    };
    for case in SPELLINGS {
        let out = run(case.args);
        let text = stdout(&out);
        for phrase in case.holds {
            assert!(
                text.contains(phrase),
                "`ntt {}` lacks {phrase:?}:\n{text}",
                case.args
            );
        }
        for phrase in case.lacks {
            assert!(
                !text.contains(phrase),
                "`ntt {}` holds {phrase:?}:\n{text}",
                case.args
            );
        }
        if let Some((other, key)) = case.same_as {
            let (a, b) = (json(&out), json(&run(other)));
            assert!(!a[key].is_null(), "`ntt {}` has no `{key}`: {a}", case.args);
            assert_eq!(
                comparable(key, &a[key]),
                comparable(key, &b[key]),
                "`ntt {}` against `ntt {other}`",
                case.args
            );
        }
    }
    let codeword = |name: &str| std::fs::read(dir.join(name)).expect("a codeword");
    assert_eq!(
        codeword("c1.bin"),
        codeword("c2.bin"),
        "one codeword, either spelling"
    );
}

/// Every number under a key that ends in `ms`, at any depth.
fn times(v: &serde_json::Value, under_ms: bool, found: &mut Vec<f64>) {
    match v {
        serde_json::Value::Object(map) => {
            for (k, item) in map {
                times(item, under_ms || k.ends_with("ms"), found);
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|i| times(i, under_ms, found)),
        serde_json::Value::Number(n) if under_ms => found.push(n.as_f64().expect("a number")),
        _ => {}
    }
}

#[test]
fn json_times_are_rounded_to_the_microsecond() {
    let dir = scratch("micros");
    let witness = dir.join("w.bin");
    write_witness(&witness, 1 << 12, 2);
    for args in [
        vec!["commit", s(&witness), "--lanes", "4", "--repeat", "4", "--json"],
        vec![
            "encode",
            s(&witness),
            "--lanes",
            "4",
            "--log-inv-rate",
            "1",
            "--output",
            "-",
            "--json",
        ],
    ] {
        let out = ntt(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        // encode prints its codeword on stdout and the report on stderr.
        let v: serde_json::Value = if args[0] == "encode" {
            serde_json::from_slice(&out.stderr).expect("JSON on stderr")
        } else {
            json(&out)
        };
        let mut found = Vec::new();
        times(&v, false, &mut found);
        assert!(found.len() >= if args[0] == "commit" { 8 } else { 1 }, "{v}");
        for t in found {
            let micros = t * 1e3;
            assert!(
                (micros - micros.round()).abs() < 1e-6,
                "{t} ms is not whole microseconds in {v}"
            );
        }
    }
}
