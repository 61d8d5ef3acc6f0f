//! Human-readable tables.

use crate::compare::Comparison;
use crate::ours::Row;
use ntt_benches::{BenchShape, Limits, p3_lch};
use ntt_kernels::Backend;
use serde::Serialize;

/// What the figures were measured on.
#[derive(Debug, Serialize)]
pub(crate) struct Machine {
    pub cpu: String,
    pub cores: usize,
    pub backend: String,
    /// Where the engine's kernels start a row's full columns.
    pub column_start: String,
    /// Whether p3-binary-dft was compiled with its carry-less multiply kernels.
    pub p3_clmul_kernels: bool,
}

impl Machine {
    pub(crate) fn detect(cores: usize) -> Self {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_owned())
            })
            .unwrap_or_else(|| "unknown".to_owned());
        // The backend the engine's encoders are built with (`NTT_BACKEND`, `NTT_COLUMNS`).
        let backend = Backend::from_env().unwrap_or_else(|_| Backend::detect());
        Self {
            cpu,
            cores,
            backend: backend.name().to_owned(),
            column_start: backend.column_start().name().to_owned(),
            p3_clmul_kernels: p3_lch::has_clmul_kernels(),
        }
    }
}

pub(crate) fn print_machine(m: &Machine) {
    println!(
        "machine: {}, {} cores, backend {} (columns: {})",
        m.cpu, m.cores, m.backend, m.column_start
    );
    if !m.p3_clmul_kernels {
        println!(
            "warning: p3-binary-dft was built without its carry-less multiply kernels; \
             build with RUSTFLAGS=\"-C target-cpu=native\" for a fair comparison"
        );
    }
    println!();
}

pub(crate) fn print_limits(l: &Limits) {
    println!("Physical limits (bandwidths: medians; in-cache rates: best of at least 31 short samples)");
    println!(
        "  memory read   {:>7.2} GiB/s (1 thread)  {:>7.2} GiB/s ({} threads)   [{} MiB buffer]",
        l.read.one,
        l.read.all,
        l.workers,
        l.bandwidth_bytes >> 20
    );
    println!(
        "  memory copy   {:>7.2} GiB/s (1 thread)  {:>7.2} GiB/s ({} threads)   [read + write bytes]",
        l.copy.one, l.copy.all, l.workers
    );
    println!(
        "  memory write  {:>7.2} GiB/s (1 thread)  {:>7.2} GiB/s ({} threads)   [fill, bytes written]",
        l.write.one, l.write.all, l.workers
    );
    println!(
        "  first touch   {:>7.2} GiB/s (1 thread)  {:>7.2} GiB/s ({} threads)   [fresh allocation, page faults]",
        l.first_touch.one, l.first_touch.all, l.workers
    );
    for k in &l.butterfly {
        println!(
            "  butterfly L1  {:>7.4} ns per lane-butterfly, one core   [{}, radix-8 on 8 x 256 words]",
            k.ns_per_lane_butterfly, k.backend
        );
    }
    println!(
        "  BLAKE3        {:>7.2} GiB/s one core, in cache ({} hashed repeatedly)",
        l.blake3_in_cache.gib_s,
        size(l.blake3_in_cache.bytes)
    );
    for h in &l.blake3 {
        println!(
            "  BLAKE3        {:>7.2} GiB/s one core over {} (codeword-sized buffer)",
            h.gib_s,
            size(h.bytes)
        );
    }
    println!();
}

pub(crate) fn print_comparison(c: &Comparison) {
    let reference = c
        .results
        .iter()
        .find(|m| m.engine == "ntt-engine")
        .map(|m| m.median_ms);
    println!(
        "{} {} words, {} lanes, rate 1/{}, {} worker(s), {} buffers",
        c.op,
        c.shape.words_label(),
        c.results[0].lanes,
        1 << c.results[0].log_inv_rate,
        c.workers,
        c.results[0].buffers.name()
    );
    for m in &c.results {
        let ratio = reference.map_or(String::new(), |r| {
            format!("   {:>5.2}x ntt-engine", m.median_ms / r)
        });
        println!(
            "  {:<14} {:>9.2} ms  [{:>8.2} .. {:>8.2}]  {:>6.2} GiB/s{}",
            m.engine, m.median_ms, m.min_ms, m.max_ms, m.gib_s, ratio
        );
    }
    println!();
}

/// `512 KiB`, `64 MiB`, `1.5 MiB`.
pub(crate) fn size(bytes: usize) -> String {
    ntt_runtime::units::human_bytes(bytes as u64)
}

pub(crate) fn print_throughput_header(shape: BenchShape, repeat: usize) {
    println!(
        "ntt-engine throughput: {} words ({} committed, {} codeword), {} lanes, rate 1/{}, lane-major input, median of {}",
        shape.words_label(),
        size(shape.witness_bytes()),
        size(shape.codeword_bytes()),
        shape.lanes,
        1 << shape.log_inv_rate,
        repeat
    );
    println!(
        "  {:>3} {:>7} | {:>9} {:>7} | {:>9} {:>7} | {:>7} {:>8} | {:>9} {:>6} | {:>6} {:>10} {:>10}",
        "w",
        "buffers",
        "commit ms",
        "GiB/s",
        "encode ms",
        "GiB/s",
        "hash +",
        "sink ms",
        "bound ms",
        "/bound",
        "sweeps",
        "compute ms",
        "traffic ms"
    );
}

pub(crate) fn print_throughput_row(row: &Row) {
    let c = &row.commit;
    let (bound, ratio) = match row.commit_bound_ms {
        Some(b) => (format!("{b:.2}"), format!("{:.2}", c.median_ms / b)),
        None => ("-".to_owned(), "-".to_owned()),
    };
    let ms = |v: Option<f64>| v.map_or("-".to_owned(), |m| format!("{m:.2}"));
    println!(
        "  {:>3} {:>7} | {:>9.2} {:>7.2} | {:>9.2} {:>7.2} | {:>6.0}% {:>8.2} | {:>9} {:>6} | {:>6} {:>10} {:>10}",
        c.workers,
        c.buffers.name(),
        c.median_ms,
        c.gib_s,
        row.encode.median_ms,
        row.encode.gib_s,
        100.0 * row.hash_overhead(),
        row.sink_hash_ms,
        bound,
        ratio,
        row.plan_sweeps,
        ms(row.commit_compute_ms),
        ms(row.traffic_ms)
    );
}
