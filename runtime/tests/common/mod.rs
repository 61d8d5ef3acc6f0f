//! Helpers shared by the runtime's integration tests.
#![allow(dead_code)]

use std::sync::mpsc;
use std::time::Duration;

use ntt_runtime::{PinPolicy, ThreadPool, ThreadPoolBuilder, Topology};

/// Runs `f` on its own thread and fails the test if it has not finished within `secs` seconds,
/// so a scheduler hang shows up as a failure instead of a stalled test run.
pub fn watchdog<R: Send + 'static>(secs: u64, f: impl FnOnce() -> R + Send + 'static) -> R {
    let (tx, rx) = mpsc::channel();
    let handle = std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(Duration::from_secs(secs)) {
        Ok(r) => {
            handle.join().expect("watched thread");
            r
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            // `f` panicked: re-raise its panic here.
            match handle.join() {
                Err(p) => std::panic::resume_unwind(p),
                Ok(()) => unreachable!("sender dropped without sending"),
            }
        }
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("watchdog: not finished after {secs} s (hang or deadlock)")
        }
    }
}

/// A pool of `n` workers on the documented default topology of `n` PUs (independent of the
/// machine, so placement is deterministic), unpinned unless `pin` says otherwise.
pub fn pool(n: usize, pin: PinPolicy) -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_threads(n)
        .pin(pin)
        .topology(Topology::detect())
        .build()
        .expect("pool")
}
