//! Times one encode shape: `cargo run --release -p ntt-benches --example encode_speed -- \
//!   [log_rows] [lanes] [log_inv_rate] [workers] [reps] [in_place|rows|lanes] [plan-config json]`.
//! Prints the plan, then the median and spread of `reps` warm encodes and ns per lane-butterfly.
//! With `NTT_PROFILE_LOOP=N` it then runs N more encodes back to back with no clock read between
//! them (the per-encode clocks cost as much as a 2^10-word encode) and prints their mean: the loop
//! to put under a profiler for small shapes. With `NTT_GAP_MS=N` each timed encode follows N ms
//! of idleness, as a prover's calls do (the workers have parked, unless `NTT_IDLE_SPIN_US`
//! keeps them looking that long).

use ntt_pcs::{CommitParams, Encoder, Expansion, MessageLayout, PlanConfig, Shape};
use ntt_runtime::cpu_time::process_cpu;
use ntt_runtime::stats::Spread;
use std::mem::MaybeUninit;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: &str| args.get(i).cloned().unwrap_or_else(|| default.to_owned());
    let log_rows: u32 = arg(0, "19").parse().expect("log_rows");
    let lanes: usize = arg(1, "64").parse().expect("lanes");
    let r: u32 = arg(2, "1").parse().expect("log_inv_rate");
    let workers: usize = arg(3, "1").parse().expect("workers");
    let reps: usize = arg(4, "9").parse().expect("reps");
    let mode = arg(5, "in_place");
    let config: PlanConfig = serde_json::from_str(&arg(6, "{}")).expect("plan config json");

    let enc = Encoder::builder()
        .workers(workers)
        .build()
        .expect("encoder")
        .with_config(config);
    let backend = enc.backend();
    let shape = Shape::with_expansion(log_rows, lanes, r, Expansion::Unbounded).expect("valid shape");
    let layout = if mode == "lanes" {
        MessageLayout::Lanes
    } else {
        MessageLayout::Rows
    };
    let in_place = mode == "in_place";
    let plan = if in_place {
        enc.plan_in_place(shape)
    } else {
        enc.plan(shape, layout)
    };
    println!("{plan}");
    let msg: Vec<u64> = (0..shape.message_words() as u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .collect();
    let mut data = vec![0u64; shape.codeword_words()];
    let mut out: Vec<MaybeUninit<u64>> = vec![MaybeUninit::new(0); shape.codeword_words()];
    let mut times = Vec::with_capacity(reps);
    let params = CommitParams::lanes(lanes).log_inv_rate(r);
    let mut cpu = Vec::with_capacity(reps);
    // One encode; an in-place one first gets its message back into the buffer (untimed).
    let restore = |data: &mut [u64]| {
        if in_place {
            data[..msg.len()].copy_from_slice(&msg);
        }
    };
    let encode_once = |data: &mut [u64], out: &mut [MaybeUninit<u64>]| {
        if in_place {
            enc.encode_in_place(data, params.layout(MessageLayout::Rows), None)
        } else {
            enc.encode(&msg, out, params.layout(layout), None)
        }
        .expect("encode");
    };
    // `NTT_GAP_MS`: an idle pause before each encode, long enough for the workers to go to
    // sleep, as between a prover's calls (the encode then pays their wake-up).
    let gap = std::env::var("NTT_GAP_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .map(std::time::Duration::from_millis);
    for _ in 0..reps + 1 {
        if let Some(gap) = gap {
            std::thread::sleep(gap);
        }
        let c0 = process_cpu();
        restore(&mut data);
        let t0 = Instant::now();
        encode_once(&mut data, &mut out);
        times.push(t0.elapsed().as_secs_f64());
        cpu.push((process_cpu() - c0).as_secs_f64());
    }
    times.remove(0);
    cpu.remove(0);
    let wall = Spread::of(times);
    let cpu = Spread::of(cpu).median;
    let ns = wall.median * 1e9 / shape.lane_butterflies() as f64;
    println!(
        "{mode} {shape} workers {workers} backend {}: median {:.4} ms (min {:.4}, max {:.4}), {ns:.3} ns/lane-butterfly",
        backend.name(),
        wall.median * 1e3,
        wall.min * 1e3,
        wall.max * 1e3
    );
    println!(
        "  cpu time per encode (all threads): median {:.2} ms, {:.3} ns/lane-butterfly",
        cpu * 1e3,
        cpu * 1e9 / shape.lane_butterflies() as f64
    );

    if let Some(n) = std::env::var("NTT_PROFILE_LOOP")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
    {
        let t0 = Instant::now();
        for _ in 0..n {
            restore(&mut data);
            encode_once(&mut data, &mut out);
        }
        let mean = t0.elapsed().as_secs_f64() / f64::from(n.max(1));
        println!("  {n} encodes back to back: mean {:.3} µs", mean * 1e6);
    }
}
