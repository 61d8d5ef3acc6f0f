//! Parking idle workers without losing wake-ups, and waking the one nearest the work. The
//! protocol is described in `README.md` in this directory.

#[cfg(test)]
use std::sync::atomic::AtomicU64;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering, fence};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::thread::Thread;

use crossbeam_utils::CachePadded;

/// How many of the workers nearest a job a notifier checks for a parked one before it wakes
/// the most recently parked worker instead (bounds the time the lock is held).
const NEAR_SCAN: usize = 16;

/// Value of a worker's hint when it has none.
const NO_HINT: usize = usize::MAX;
/// Position of a worker that is not in the idle list.
const NOT_PARKED: usize = usize::MAX;

/// Which workers are parked, under one mutex; only the slow path (parking and waking) takes it.
struct Parked {
    /// Indices of parked workers, most recently parked last.
    idle: Vec<usize>,
    /// `position[w]` is `w`'s index in `idle`, or [`NOT_PARKED`]: O(1) removal of any worker.
    position: Vec<usize>,
}

impl Parked {
    fn insert(&mut self, w: usize) {
        self.position[w] = self.idle.len();
        self.idle.push(w);
    }

    fn is_parked(&self, w: usize) -> bool {
        self.position[w] != NOT_PARKED
    }

    fn remove(&mut self, w: usize) {
        let at = self.position[w];
        self.idle.swap_remove(at);
        if let Some(&moved) = self.idle.get(at) {
            self.position[moved] = at;
        }
        self.position[w] = NOT_PARKED;
    }
}

/// Per-worker sleep state, on its own cache line.
struct Slot {
    /// Set (Release) by the waker that removed the worker from `idle`; the worker parks until
    /// it reads it set (Acquire).
    woken: AtomicBool,
    /// The worker whose deque the waker published to, or [`NO_HINT`]: the woken worker tries
    /// that deque first.
    hint: AtomicUsize,
    /// The worker's thread, registered when it starts; woken with `Thread::unpark`.
    thread: OnceLock<Thread>,
}

/// The sleep state of a pool.
pub(crate) struct Sleep {
    /// Number of workers that have announced they are about to park or are parked. Written only
    /// with the `parked` mutex held; read without it by every notifier (the fast path).
    sleepers: CachePadded<AtomicUsize>,
    parked: Mutex<Parked>,
    slots: Box<[CachePadded<Slot>]>,
    /// For each worker, the others nearest first (its steal order): whom to wake for its work.
    near: Box<[Box<[usize]>]>,
    /// Parked workers woken so far (tests check that a path wakes nobody).
    #[cfg(test)]
    wakes: AtomicU64,
}

impl core::fmt::Debug for Sleep {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sleep")
            .field("sleepers", &self.sleepers.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl Sleep {
    /// Sleep state for workers whose steal orders are `near` (one list per worker).
    pub(crate) fn new(near: Vec<Vec<usize>>) -> Self {
        let workers = near.len();
        Self {
            sleepers: CachePadded::new(AtomicUsize::new(0)),
            parked: Mutex::new(Parked {
                idle: Vec::with_capacity(workers),
                position: vec![NOT_PARKED; workers],
            }),
            slots: (0..workers)
                .map(|_| {
                    CachePadded::new(Slot {
                        woken: AtomicBool::new(false),
                        hint: AtomicUsize::new(NO_HINT),
                        thread: OnceLock::new(),
                    })
                })
                .collect(),
            near: near.into_iter().map(Vec::into_boxed_slice).collect(),
            #[cfg(test)]
            wakes: AtomicU64::new(0),
        }
    }

    /// Parked workers woken so far.
    #[cfg(test)]
    pub(crate) fn wakes(&self) -> u64 {
        self.wakes.load(Ordering::Relaxed)
    }

    /// Workers about to park or parked.
    #[cfg(test)]
    pub(crate) fn sleepers(&self) -> usize {
        self.sleepers.load(Ordering::SeqCst)
    }

    /// Records the calling thread as worker `index`'s (once, when the worker starts).
    pub(crate) fn register(&self, index: usize) {
        let _ = self.slots[index].thread.set(std::thread::current());
    }

    fn lock(&self) -> MutexGuard<'_, Parked> {
        // The critical sections below never panic; a poisoned mutex still holds a valid state.
        self.parked.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The deque a waker pointed worker `index` to, if any (taken: the next call says none).
    pub(crate) fn take_hint(&self, index: usize) -> Option<usize> {
        let hint = &self.slots[index].hint;
        if hint.load(Ordering::Relaxed) == NO_HINT {
            return None;
        }
        Some(hint.swap(NO_HINT, Ordering::Relaxed)).filter(|&h| h != NO_HINT)
    }

    /// Parks worker `index` unless `has_work()` says there is something to do.
    ///
    /// `has_work` must observe every source of work this worker is responsible for (its own
    /// deque, the deques it probes, the injector, the latch it waits on, the terminate flag).
    /// Returns when woken or when `has_work()` was true.
    pub(crate) fn sleep(&self, index: usize, has_work: impl Fn() -> bool) {
        let slot = &self.slots[index];
        {
            let mut parked = self.lock();
            self.sleepers.fetch_add(1, Ordering::SeqCst);
            // Pairs with the fence in `notify_*`: either the notifier sees our increment, or we
            // see the work it published before its fence (sleep/README.md, "Why no wake-up is
            // lost").
            fence(Ordering::SeqCst);
            if has_work() {
                self.sleepers.fetch_sub(1, Ordering::SeqCst);
                return;
            }
            slot.woken.store(false, Ordering::Relaxed);
            parked.insert(index);
        }
        // Parked: from here a waker removes us from `idle`, sets `woken` and unparks us. An
        // unpark that comes before `park` makes `park` return at once, so it is not lost.
        while !slot.woken.load(Ordering::Acquire) {
            std::thread::park();
        }
    }

    /// Wakes one parked worker, if any, for a job just published on worker `near`'s deque:
    /// the parked worker nearest `near`, told to look there first. Cheap when nobody sleeps:
    /// one fence and one load.
    pub(crate) fn notify_near(&self, near: usize) {
        fence(Ordering::SeqCst);
        if self.sleepers.load(Ordering::SeqCst) == 0 {
            return;
        }
        let parked = self.lock();
        let chosen = self.near[near]
            .iter()
            .take(NEAR_SCAN)
            .copied()
            .find(|&w| parked.is_parked(w))
            .or_else(|| parked.idle.last().copied());
        if let Some(w) = chosen {
            self.slots[w].hint.store(near, Ordering::Relaxed);
            self.wake_locked(parked, w);
        }
    }

    /// Wakes one parked worker, if any, for a job pushed onto the injector: `local` (the worker
    /// pinned to the injecting thread's CPU) if it is parked, else the most recently parked one
    /// (its caches are the warmest).
    pub(crate) fn notify_injected(&self, local: Option<usize>) {
        fence(Ordering::SeqCst);
        if self.sleepers.load(Ordering::SeqCst) == 0 {
            return;
        }
        let parked = self.lock();
        let chosen = local
            .filter(|&w| parked.is_parked(w))
            .or_else(|| parked.idle.last().copied());
        if let Some(w) = chosen {
            self.wake_locked(parked, w);
        }
    }

    /// Wakes one parked worker, if any, for a job left on the injector: the most recently
    /// parked one.
    pub(crate) fn notify_any(&self) {
        self.notify_injected(None);
    }

    /// Wakes worker `index` if it is parked (its latch was set).
    pub(crate) fn notify_worker(&self, index: usize) {
        fence(Ordering::SeqCst);
        if self.sleepers.load(Ordering::SeqCst) == 0 {
            return;
        }
        let parked = self.lock();
        if parked.is_parked(index) {
            self.wake_locked(parked, index);
        }
    }

    /// Wakes every parked worker (shutdown).
    pub(crate) fn notify_all(&self) {
        fence(Ordering::SeqCst);
        let mut parked = self.lock();
        let woken: Vec<usize> = parked.idle.clone();
        for &w in &woken {
            parked.remove(w);
            self.sleepers.fetch_sub(1, Ordering::SeqCst);
            self.slots[w].woken.store(true, Ordering::Release);
        }
        drop(parked);
        for w in woken {
            self.unpark(w);
        }
    }

    /// Removes `w` from `idle` and wakes it; the system call happens after the lock is
    /// released, so the woken thread never finds the lock held by its waker.
    fn wake_locked(&self, mut parked: MutexGuard<'_, Parked>, w: usize) {
        #[cfg(test)]
        self.wakes.fetch_add(1, Ordering::Relaxed);
        parked.remove(w);
        self.sleepers.fetch_sub(1, Ordering::SeqCst);
        self.slots[w].woken.store(true, Ordering::Release);
        drop(parked);
        self.unpark(w);
    }

    fn unpark(&self, w: usize) {
        // A parked worker registered its thread before it could park.
        if let Some(thread) = self.slots[w].thread.get() {
            thread.unpark();
        }
    }
}
