//! The baseline against the repository's test vectors.

use super::*;
use serde_json::Value;

fn word(v: &Value) -> u64 {
    u64::from_str_radix(v.as_str().expect("hex string"), 16).expect("hex word")
}

fn pool(threads: usize) -> ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a small pool builds")
}

#[test]
fn baseline_matches_every_vector() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../pcs/tests/data/ntt.json");
    let text = std::fs::read_to_string(path).expect("pcs/tests/data/ntt.json is in the repository");
    let doc: Value = serde_json::from_str(&text).expect("valid JSON");
    let cases = doc["cases"].as_array().expect("cases");
    assert!(cases.len() >= 10);
    let pools = [pool(1), pool(2), pool(3)];
    for case in cases {
        let log_rows = case["log_rows"].as_u64().unwrap() as u32;
        let lanes = case["lanes"].as_u64().unwrap() as usize;
        let log_inv_rate = case["log_inv_rate"].as_u64().unwrap() as u32;
        let message: Vec<u64> = case["message_lane_major"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|lane| lane.as_array().unwrap().iter().map(word))
            .collect();
        let root = case["blake3_root"].as_str().unwrap();
        let baseline = RayonLch::new(Backend::detect(), log_rows);
        for (p, hash) in pools
            .iter()
            .zip([HashThreads::One, HashThreads::Pool, HashThreads::Pool])
        {
            let mut codeword = vec![0xdead_beef; lanes << log_rows];
            let got = baseline.commit(p, &message, lanes, log_inv_rate, &mut codeword, hash);
            assert_eq!(
                got.to_hex().as_str(),
                root,
                "root of case {log_rows}/{lanes}/{log_inv_rate}"
            );
            let expected_rows: Vec<(usize, &Value)> = match case.get("codeword_rows") {
                Some(rows) => rows.as_array().unwrap().iter().enumerate().collect(),
                None => case["sampled_rows"]
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(k, v)| (k.parse().unwrap(), v))
                    .collect(),
            };
            assert!(!expected_rows.is_empty());
            for (row, lanes_hex) in expected_rows {
                let want: Vec<u64> = lanes_hex.as_array().unwrap().iter().map(word).collect();
                assert_eq!(codeword[row * lanes..(row + 1) * lanes], want[..], "row {row}");
            }
        }
    }
}

#[test]
fn one_worker_and_many_agree_on_a_larger_shape() {
    let (lanes, log_rows, log_inv_rate) = (8, 12, 2);
    let message = crate::witness(15 - 2);
    let baseline = RayonLch::new(Backend::detect(), log_rows);
    let mut a = vec![0; lanes << log_rows];
    let mut b = vec![1; lanes << log_rows];
    baseline.encode(&pool(1), &message, lanes, log_inv_rate, &mut a);
    baseline.encode(&pool(4), &message, lanes, log_inv_rate, &mut b);
    assert_eq!(a, b);
    // Rate 1/4 replicates the message: codeword row 0 is message row 0 (ω_0 = 0 evaluates X_0 only).
    assert_eq!(
        a[..lanes],
        crate::witness::lanes_to_rows(&message, lanes)[..lanes]
    );
}
