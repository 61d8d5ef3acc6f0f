//! Each worker's share of faulting in the fresh codeword buffers, over a row's fresh commits.

use ntt_benches::Samples;
use ntt_pcs::WorkerTouch;
use serde::Serialize;

/// One worker's first touch of a fresh codeword: medians over the fresh commits.
#[derive(Clone, Copy, Debug, Serialize)]
pub(crate) struct TouchFigure {
    pub worker: usize,
    /// Median wall time the worker spent faulting in its chunks.
    pub median_ms: f64,
    /// Median bytes it faulted in.
    pub median_mib: f64,
    /// Median minor page faults its thread took meanwhile.
    pub median_faults: f64,
}

/// Per-worker medians of `commits` (each commit's shares; a worker absent from a commit took
/// no chunk of it and counts as zero).
pub(crate) fn figures(commits: &[Vec<WorkerTouch>], workers: usize) -> Vec<TouchFigure> {
    if commits.is_empty() {
        return Vec::new();
    }
    let median = |f: &dyn Fn(&WorkerTouch) -> f64, worker: usize| {
        Samples {
            secs: commits
                .iter()
                .map(|c| c.iter().find(|t| t.worker == worker).map_or(0.0, f))
                .collect(),
        }
        .median()
    };
    (0..workers)
        .map(|worker| TouchFigure {
            worker,
            median_ms: median(&|t| t.time.as_secs_f64() * 1e3, worker),
            median_mib: median(&|t| t.bytes as f64 / f64::from(1 << 20), worker),
            median_faults: median(&|t| t.faults as f64, worker),
        })
        .collect()
}

/// `first touch: w0 4.1 ms 32.0 MiB 16 faults | w1 ...` (medians), indented under its row.
pub(crate) fn print(figures: &[TouchFigure]) {
    if figures.is_empty() {
        return;
    }
    let parts: Vec<String> = figures
        .iter()
        .map(|f| {
            if f.median_mib == 0.0 {
                // Left to the passes (`NTT_FIRST_TOUCH=passes`).
                return format!("w{} {:.0} faults in the passes", f.worker, f.median_faults);
            }
            format!(
                "w{} {:.2} ms {:.1} MiB {:.0} faults",
                f.worker, f.median_ms, f.median_mib, f.median_faults
            )
        })
        .collect();
    println!("      first touch (medians): {}", parts.join(" | "));
}
