//! Parking idle workers without losing wake-ups. The protocol is described in `README.md` in
//! this directory.

use std::sync::atomic::{AtomicUsize, Ordering, fence};
use std::sync::{Condvar, Mutex, MutexGuard};

use crossbeam_utils::CachePadded;

/// Which workers are parked, under one mutex; only the slow path (parking and waking) takes it.
struct Parked {
    /// Indices of parked workers, most recently parked last.
    idle: Vec<usize>,
    /// `woken[w]` is set by the waker that removed `w` from `idle`; `w` waits until it is set.
    woken: Vec<bool>,
}

/// The sleep state of a pool.
pub(crate) struct Sleep {
    /// Number of workers that have announced they are about to park or are parked. Written only
    /// with the `parked` mutex held; read without it by every notifier (the fast path).
    sleepers: CachePadded<AtomicUsize>,
    parked: Mutex<Parked>,
    /// One condition variable per worker, so a wake-up targets exactly one thread.
    conds: Box<[Condvar]>,
}

impl core::fmt::Debug for Sleep {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sleep")
            .field("sleepers", &self.sleepers.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl Sleep {
    pub(crate) fn new(workers: usize) -> Self {
        Self {
            sleepers: CachePadded::new(AtomicUsize::new(0)),
            parked: Mutex::new(Parked {
                idle: Vec::with_capacity(workers),
                woken: vec![false; workers],
            }),
            conds: (0..workers).map(|_| Condvar::new()).collect(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Parked> {
        // The critical sections below never panic; a poisoned mutex still holds a valid state.
        self.parked.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Parks worker `index` unless `has_work()` says there is something to do.
    ///
    /// `has_work` must observe every source of work for this worker (deques, injector, the latch
    /// it waits on, the terminate flag). Returns when woken or when `has_work()` was true.
    pub(crate) fn sleep(&self, index: usize, has_work: impl Fn() -> bool) {
        let mut parked = self.lock();
        self.sleepers.fetch_add(1, Ordering::SeqCst);
        // Pairs with the fence in `notify_*`: either the notifier sees our increment, or we see
        // the work it published before its fence (sleep/README.md, "Why no wake-up is lost").
        fence(Ordering::SeqCst);
        if has_work() {
            self.sleepers.fetch_sub(1, Ordering::SeqCst);
            return;
        }
        parked.woken[index] = false;
        parked.idle.push(index);
        while !parked.woken[index] {
            parked = self.conds[index].wait(parked).unwrap_or_else(|e| e.into_inner());
        }
        // The waker removed us from `idle` and decremented `sleepers`.
    }

    /// Wakes up to `count` parked workers after new jobs were published (pushed to a deque or
    /// the injector). Cheap when nobody sleeps: one fence and one load.
    pub(crate) fn notify_work(&self, count: usize) {
        fence(Ordering::SeqCst);
        if self.sleepers.load(Ordering::SeqCst) == 0 {
            return;
        }
        let mut parked = self.lock();
        for _ in 0..count {
            let Some(w) = parked.idle.pop() else { break };
            self.wake_locked(&mut parked, w);
        }
    }

    /// Wakes worker `index` if it is parked (its latch was set).
    pub(crate) fn notify_worker(&self, index: usize) {
        fence(Ordering::SeqCst);
        if self.sleepers.load(Ordering::SeqCst) == 0 {
            return;
        }
        let mut parked = self.lock();
        if let Some(pos) = parked.idle.iter().position(|&w| w == index) {
            parked.idle.swap_remove(pos);
            self.wake_locked(&mut parked, index);
        }
    }

    /// Wakes every parked worker (shutdown).
    pub(crate) fn notify_all(&self) {
        fence(Ordering::SeqCst);
        let mut parked = self.lock();
        while let Some(w) = parked.idle.pop() {
            self.wake_locked(&mut parked, w);
        }
    }

    fn wake_locked(&self, parked: &mut Parked, w: usize) {
        parked.woken[w] = true;
        self.sleepers.fetch_sub(1, Ordering::SeqCst);
        self.conds[w].notify_one();
    }
}
