//! The first touch of a fresh codeword, worker by worker, as `ntt commit` reports it.

use serde::Serialize;

/// One worker's share of faulting in a fresh codeword buffer.
#[derive(Clone, Copy, Debug, Serialize)]
pub(crate) struct WorkerTouch {
    /// The worker's index in its pool.
    pub worker: usize,
    /// Bytes it faulted in before the first pass (0: the passes faulted them in).
    pub bytes: usize,
    /// Wall time it spent, in milliseconds (0 likewise).
    pub ms: f64,
    /// Minor page faults its thread took meanwhile.
    pub faults: u64,
}

impl From<&ntt_pcs::WorkerTouch> for WorkerTouch {
    fn from(t: &ntt_pcs::WorkerTouch) -> Self {
        Self {
            worker: t.worker,
            bytes: t.bytes,
            ms: t.time.as_secs_f64() * 1e3,
            faults: t.faults,
        }
    }
}

/// `w0 32.0 MiB 12.100 ms 16 faults; w1 ...`, or `w0 16 faults in the passes; w1 ...` where
/// the encode's passes faulted the pages in (`NTT_FIRST_TOUCH=passes`, the default).
pub(crate) fn first_touch_line(workers: &[WorkerTouch]) -> String {
    workers
        .iter()
        .map(|w| {
            if w.bytes == 0 {
                return format!("w{} {} faults in the passes", w.worker, w.faults);
            }
            format!(
                "w{} {:.1} MiB {:.3} ms {} faults",
                w.worker,
                w.bytes as f64 / f64::from(1 << 20),
                w.ms,
                w.faults
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_entry_per_worker() {
        let line = first_touch_line(&[
            WorkerTouch {
                worker: 0,
                bytes: 3 << 20,
                ms: 1.5,
                faults: 2,
            },
            WorkerTouch {
                worker: 1,
                bytes: 1 << 19,
                ms: 0.25,
                faults: 128,
            },
        ]);
        assert_eq!(
            line,
            "w0 3.0 MiB 1.500 ms 2 faults; w1 0.5 MiB 0.250 ms 128 faults"
        );
    }

    #[test]
    fn faults_in_the_passes_have_no_bytes_or_time() {
        let line = first_touch_line(&[WorkerTouch {
            worker: 1,
            bytes: 0,
            ms: 0.0,
            faults: 40,
        }]);
        assert_eq!(line, "w1 40 faults in the passes");
    }
}
