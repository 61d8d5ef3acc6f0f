//! Prints the detected topology and a default pool's placement as JSON.
fn main() {
    let pool = ntt_runtime::ThreadPoolBuilder::new().build().expect("pool");
    let report = serde_json::json!({
        "topology": pool.topology(),
        "placements": pool.placements(),
        "budgets": pool.budgets(),
        "pin": pool.pin_policy(),
        "warnings": pool.warnings(),
    });
    println!("{}", serde_json::to_string_pretty(&report).expect("json"));
}
