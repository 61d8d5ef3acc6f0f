//! Every case of `pcs/tests/data/ntt.json` through every entry point, worker count and backend,
//! and the committer's roots of them. Here rather than in ntt-pcs, whose package leaves the
//! 5 MB file out.

#[path = "../../pcs/tests/common/mod.rs"]
mod common;

use common::{Recorder, assume_written, encoder, garbage_codeword};
use ntt_kernels::Backend;
use ntt_pcs::reference::{encode_reference, lanes_to_rows};
use ntt_pcs::{CommitParams, Committer, DeepBudget, Expansion, MessageLayout, PlanConfig, verify};
use serde_json::Value;

/// The vectors' text, from ntt-pcs's test data.
fn vectors() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../pcs/tests/data/ntt.json"))
        .expect("pcs/tests/data/ntt.json is in the repository")
}

struct Case {
    log_rows: u32,
    lanes: usize,
    log_inv_rate: u32,
    msg_lanes: Vec<u64>,
    /// Row index and its lanes: every row for small cases, samples for large ones.
    rows: Vec<(usize, Vec<u64>)>,
    root: String,
}

fn hex_word(v: &Value) -> u64 {
    u64::from_str_radix(v.as_str().expect("hex string"), 16).expect("hex word")
}

fn cases() -> Vec<Case> {
    let json: Value = serde_json::from_str(&vectors()).expect("valid json");
    json["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| {
            let num = |k: &str| c[k].as_u64().expect("number");
            let msg_lanes = c["message_lane_major"]
                .as_array()
                .expect("lanes")
                .iter()
                .flat_map(|lane| lane.as_array().expect("lane").iter().map(hex_word))
                .collect();
            let row = |v: &Value| {
                v.as_array()
                    .expect("row")
                    .iter()
                    .map(hex_word)
                    .collect::<Vec<_>>()
            };
            let rows = if let Some(all) = c["codeword_rows"].as_array() {
                all.iter().enumerate().map(|(i, r)| (i, row(r))).collect()
            } else {
                c["sampled_rows"]
                    .as_object()
                    .expect("sampled rows")
                    .iter()
                    .map(|(k, r)| (k.parse().expect("row index"), row(r)))
                    .collect()
            };
            Case {
                log_rows: num("log_rows") as u32,
                lanes: num("lanes") as usize,
                log_inv_rate: num("log_inv_rate") as u32,
                msg_lanes,
                rows,
                root: c["blake3_root"].as_str().expect("root").to_owned(),
            }
        })
        .collect()
}

fn check(case: &Case, codeword: &[u64], what: &str) {
    let n = case.lanes;
    assert_eq!(codeword.len(), n << case.log_rows, "{what}");
    for (i, row) in &case.rows {
        assert_eq!(&codeword[i * n..(i + 1) * n], &row[..], "{what}: row {i}");
    }
    let bytes: Vec<u8> = codeword.iter().flat_map(|w| w.to_le_bytes()).collect();
    assert_eq!(blake3::hash(&bytes).to_hex().as_str(), case.root, "{what}: root");
}

#[test]
fn vectors_reference() {
    for case in cases().iter().filter(|c| c.log_rows <= 12) {
        let msg_rows = lanes_to_rows(&case.msg_lanes, case.lanes);
        let codeword = encode_reference(&msg_rows, case.lanes, case.log_rows, case.log_inv_rate);
        check(case, &codeword, "reference");
    }
}

#[test]
fn vectors_all_entry_points() {
    let configs = [
        PlanConfig::default(),
        // Tiny budgets: several gathered passes and an L3 deep pass even for these sizes.
        PlanConfig {
            l2_bytes: Some(1 << 10),
            l3_bytes: Some(1 << 14),
            wide: Some(true),
            ..PlanConfig::default()
        },
    ];
    for case in cases() {
        let n = case.lanes;
        let msg_rows = lanes_to_rows(&case.msg_lanes, n);
        for backend in Backend::available() {
            for workers in [1, 2] {
                for config in &configs {
                    let enc = encoder(workers, backend).with_config(config.clone());
                    let what = format!(
                        "case 2^{} × {n} r={} on {workers} worker(s), {:?}, {config:?}",
                        case.log_rows,
                        case.log_inv_rate,
                        backend.kind()
                    );

                    let mut data = vec![0u64; n << case.log_rows];
                    data[..msg_rows.len()].copy_from_slice(&msg_rows);
                    let sink = Recorder::default();
                    enc.encode_in_place(
                        &mut data,
                        CommitParams::lanes(n)
                            .log_inv_rate(case.log_inv_rate)
                            .layout(MessageLayout::Rows),
                        Some(&sink),
                    )
                    .expect("in place");
                    check(&case, &data, &format!("in place, {what}"));
                    sink.check(&data, n).expect("sink tiles the rows");

                    for layout in [MessageLayout::Rows, MessageLayout::Lanes] {
                        let msg = match layout {
                            MessageLayout::Rows => &msg_rows,
                            MessageLayout::Lanes => &case.msg_lanes,
                        };
                        let mut out = garbage_codeword(n << case.log_rows);
                        let sink = Recorder::default();
                        enc.encode(
                            msg,
                            &mut out,
                            CommitParams::lanes(n)
                                .log_inv_rate(case.log_inv_rate)
                                .layout(layout),
                            Some(&sink),
                        )
                        .expect("encode");
                        let out = assume_written(out);
                        check(&case, &out, &format!("{layout} message, {what}"));
                        sink.check(&out, n).expect("sink tiles the rows");
                    }
                }
            }
        }
    }
}

/// Plans the committer's roots must not depend on.
fn configs() -> Vec<PlanConfig> {
    vec![
        PlanConfig::default(),
        // Tiny caches: small sink blocks, several passes.
        PlanConfig {
            l2_bytes: Some(1 << 10),
            l3_bytes: Some(1 << 14),
            wide: Some(true),
            ..PlanConfig::default()
        },
        PlanConfig {
            l2_bytes: Some(24 << 10),
            deep: Some(DeepBudget::L3),
            ..PlanConfig::default()
        },
        PlanConfig {
            l2_bytes: Some(3 << 12),
            wide: Some(false),
            stream: Some(true),
            ..PlanConfig::default()
        },
    ]
}

#[test]
fn vector_roots() {
    let json: Value = serde_json::from_str(&vectors()).expect("vectors parse");
    let cases = json["cases"].as_array().expect("cases");
    assert!(cases.len() >= 10);
    for case in cases {
        let lanes = case["lanes"].as_u64().expect("lanes") as usize;
        let log_rows = case["log_rows"].as_u64().expect("log_rows") as u32;
        let log_inv_rate = case["log_inv_rate"].as_u64().expect("log_inv_rate") as u32;
        let witness: Vec<u64> = case["message_lane_major"]
            .as_array()
            .expect("lanes")
            .iter()
            .flat_map(|lane| lane.as_array().expect("lane").iter())
            .map(|w| u64::from_str_radix(w.as_str().expect("hex word"), 16).expect("hex word"))
            .collect();
        let want = case["blake3_root"].as_str().expect("root");
        for workers in [1, 2] {
            for config in configs() {
                let encoder = encoder(workers, Backend::detect()).with_config(config.clone());
                // The vectors include deliberately large expansions (down to one message row).
                let (commitment, prover) = Committer::new(encoder)
                    .with_expansion(Expansion::Unbounded)
                    .commit(&witness, CommitParams::lanes(lanes).log_inv_rate(log_inv_rate))
                    .expect("vector commits");
                assert_eq!(
                    commitment.root_hex(),
                    want,
                    "2^{log_rows} × {lanes}, {workers} workers, {config:?}"
                );
                assert_eq!((commitment.log_rows(), commitment.lanes()), (log_rows, lanes));
                let rows = [0, (1 << log_rows) - 1, 1 % (1 << log_rows)];
                verify(&commitment, &rows, &prover.open(&rows).expect("opens")).expect("verifies");
            }
        }
    }
}
