//! The value a panicking task leaves behind.

use std::any::Any;

/// The first panic of a graph, carried back to the caller of
/// [`ThreadPool::try_run`](crate::ThreadPool::try_run).
#[derive(Debug)]
pub struct TaskPanic {
    /// The payload the task panicked with, as `std::panic::catch_unwind` returns it.
    pub payload: Box<dyn Any + Send + 'static>,
}

impl TaskPanic {
    /// The panic message when the payload is a string (what `panic!` produces).
    pub fn message(&self) -> Option<&str> {
        self.payload
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| self.payload.downcast_ref::<String>().map(String::as_str))
    }
}

impl core::fmt::Display for TaskPanic {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.message() {
            Some(msg) => write!(f, "a task panicked: {msg}"),
            None => write!(f, "a task panicked: non-string panic payload"),
        }
    }
}

impl std::error::Error for TaskPanic {}

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
