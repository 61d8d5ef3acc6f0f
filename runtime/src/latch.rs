//! Completion signals for graph runs.
//!
//! A latch is set exactly once, by the worker that finishes a graph's last task. Its owner may free
//! it the moment it observes the set, so `set` touches the latch only up to the store (or, for the
//! blocking kind, up to releasing the mutex) and nothing afterwards.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};

use crate::registry::Registry;

/// How the owner of a graph run waits for it.
pub(crate) enum Latch {
    /// The owner is a worker of the pool: it keeps executing other jobs and polls the flag, and
    /// sleeps in the pool's sleep protocol when there is nothing to do.
    Worker { done: AtomicBool, owner: usize },
    /// The owner is a thread outside the pool: it blocks on the condition variable.
    Blocking { done: Mutex<bool>, cond: Condvar },
}

impl Latch {
    pub(crate) fn for_worker(owner: usize) -> Self {
        Latch::Worker {
            done: AtomicBool::new(false),
            owner,
        }
    }

    pub(crate) fn blocking() -> Self {
        Latch::Blocking {
            done: Mutex::new(false),
            cond: Condvar::new(),
        }
    }

    /// Whether the latch is set; an `Acquire` load, so everything the tasks wrote is visible.
    pub(crate) fn probe(&self) -> bool {
        match self {
            Latch::Worker { done, .. } => done.load(Ordering::Acquire),
            Latch::Blocking { done, .. } => *done.lock().unwrap_or_else(|e| e.into_inner()),
        }
    }

    /// Blocks the calling (non-worker) thread until the latch is set.
    pub(crate) fn wait_blocking(&self) {
        match self {
            Latch::Worker { .. } => unreachable!("worker latches are waited on by the worker loop"),
            Latch::Blocking { done, cond } => {
                let mut guard = done.lock().unwrap_or_else(|e| e.into_inner());
                while !*guard {
                    guard = cond.wait(guard).unwrap_or_else(|e| e.into_inner());
                }
            }
        }
    }

    /// Sets the latch and wakes its owner.
    ///
    /// # Safety
    /// `this` must point to a live latch, and the caller must not use `this` after the call: the
    /// owner may free the latch as soon as it sees it set. `registry` is the setter's own pool,
    /// which outlives the call independently of the latch.
    pub(crate) unsafe fn set(this: *const Latch, registry: &Registry) {
        // SAFETY: the caller guarantees `this` is live until the set below makes it observable.
        let latch = unsafe { &*this };
        match latch {
            Latch::Worker { done, owner } => {
                let owner = *owner;
                // SeqCst: pairs with the fence in `Sleep::sleep` (see sleep/README.md).
                done.store(true, Ordering::SeqCst);
                // `latch` may be dangling from here on; only the copied owner index is used.
                registry.sleep.notify_worker(owner);
            }
            Latch::Blocking { done, cond } => {
                let mut guard = done.lock().unwrap_or_else(|e| e.into_inner());
                *guard = true;
                // Notified while the mutex is held: the owner cannot observe `true`, return and
                // free the latch before this call has finished with the condition variable.
                cond.notify_all();
                drop(guard);
            }
        }
    }
}
