//! The scheduler's last line of defence against its own bugs.

/// Aborts the process if dropped during unwinding: guards the scheduler's own invariants,
/// which no user panic can reach (task panics are caught before they get here).
pub(crate) struct AbortOnUnwind;

impl Drop for AbortOnUnwind {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("ntt-runtime: internal scheduler invariant broken; aborting");
            std::process::abort();
        }
    }
}
