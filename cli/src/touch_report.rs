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
            ms: crate::report::ms(t.time),
            faults: t.faults,
        }
    }
}

/// The pages a fresh codeword buffer was asked for, as `ntt commit` reports them.
#[derive(Clone, Copy, Debug, Serialize)]
pub(crate) struct Pages {
    /// `NTT_HUGE_PAGES`: `auto`, `always` or `never`.
    pub policy: &'static str,
    /// Bytes asked for as 2 MiB huge pages.
    pub huge_bytes: usize,
    /// Bytes asked for as small pages.
    pub small_bytes: usize,
    /// Bytes already present, not faulted in.
    pub present_bytes: usize,
    /// Under `auto`, the slow huge-page fault (milliseconds) after which it asked for small
    /// pages; `null` when it did not switch.
    pub switched_after_ms: Option<f64>,
}

impl From<ntt_pcs::PageUse> for Pages {
    fn from(p: ntt_pcs::PageUse) -> Self {
        Self {
            policy: p.policy.name(),
            huge_bytes: p.huge_bytes,
            small_bytes: p.small_bytes,
            present_bytes: p.present_bytes,
            switched_after_ms: p.switched_after.map(crate::report::ms),
        }
    }
}

/// `huge 254.0 MiB, small 2.0 MiB (auto: small pages after a 6.100 ms huge-page fault)`.
pub(crate) fn pages_line(p: &Pages) -> String {
    let mib = |b: usize| b as f64 / f64::from(1 << 20);
    let mut line = format!(
        "huge {:.1} MiB, small {:.1} MiB",
        mib(p.huge_bytes),
        mib(p.small_bytes)
    );
    if p.present_bytes > 0 {
        line.push_str(&format!(", present {:.1} MiB", mib(p.present_bytes)));
    }
    match p.switched_after_ms {
        Some(ms) => line.push_str(&format!(
            " ({}: small pages after a {ms:.3} ms huge-page fault)",
            p.policy
        )),
        None => line.push_str(&format!(" ({})", p.policy)),
    }
    line
}

/// `w0 32.0 MiB 12.100 ms 16 faults; w1 ...`, or `w0 16 faults in the passes; w1 ...` where
/// the encode's passes faulted the pages in (`NTT_FIRST_TOUCH=passes`).
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
    fn pages_name_the_policy_and_any_switch() {
        let mut p = Pages {
            policy: "auto",
            huge_bytes: 254 << 20,
            small_bytes: 2 << 20,
            present_bytes: 0,
            switched_after_ms: Some(6.1),
        };
        assert_eq!(
            pages_line(&p),
            "huge 254.0 MiB, small 2.0 MiB (auto: small pages after a 6.100 ms huge-page fault)"
        );
        p.switched_after_ms = None;
        p.present_bytes = 1 << 19;
        assert_eq!(
            pages_line(&p),
            "huge 254.0 MiB, small 2.0 MiB, present 0.5 MiB (auto)"
        );
    }

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
