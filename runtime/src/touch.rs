//! First touch of fresh memory, shared by every worker, and what it cost each of them.
//!
//! A buffer nobody has written yet costs a page fault and a page zeroed by the kernel per page
//! on its first write (per 2 MiB with transparent huge pages, see [`crate::pages`]). Left to the
//! encode, those faults fall on whichever workers write first, and on a virtual machine they
//! cost about as much as the encode itself. Before the first pass the buffer is therefore cut
//! at 2 MiB boundaries into chunks that the pool's workers take on demand (the pool's adaptive
//! loop: a worker slowed down by a busy neighbour keeps only the chunk it is on), and each
//! chunk is asked for as a huge page or as small pages ([`crate::pages::HugePages`]) and faulted
//! in with one `MADV_POPULATE_WRITE` (Linux 5.14 and later; elsewhere, or when the kernel
//! refuses, by writing a byte per page). Chunks of whole huge pages keep two workers from
//! faulting the same huge page at once, and timing each one is how the `auto` policy sees when
//! huge pages stop coming fast.
//!
//! `NTT_FIRST_TOUCH` chooses how (read once per process): `populate` (the default: the chunks
//! above, before the first pass), `write` (the same, a byte written per page, as on kernels
//! without `MADV_POPULATE_WRITE`) or `passes` (no first touch before the first pass: each page
//! is faulted in by the worker whose first pass writes it; the `auto` huge-page policy then
//! decides from the first few chunks, which it populates, for the whole buffer). Any other value
//! is refused.
//!
//! Each worker's share is recorded as a [`WorkerTouch`] (bytes, wall time, the minor page
//! faults its thread took; with `passes`, the minor page faults each worker's thread took while
//! the encode ran) and as an `NTT_LOG` span, `first_touch_worker{worker=i}`, so the balance
//! shows on any machine; the pages asked for as a [`PageUse`].

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::ThreadPool;

use crate::pages::{HUGE_PAGE_BYTES, HugePages, PageUse, Switch, WINDOW, advise};

const PAGE_BYTES: usize = 4096;

/// Below this many bytes the calling thread faults the buffer in alone: handing two chunks to
/// the workers costs more than faulting them.
const PARALLEL_MIN_BYTES: usize = 2 * HUGE_PAGE_BYTES;

/// The variable that chooses how fresh pages are faulted in.
pub const FIRST_TOUCH_ENV: &str = "NTT_FIRST_TOUCH";

/// How fresh pages are faulted in (`NTT_FIRST_TOUCH`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Method {
    Passes,
    #[default]
    Populate,
    Write,
}

impl Method {
    /// Every method by the name `NTT_FIRST_TOUCH` takes (`none` is another name for `passes`).
    const NAMES: [(&'static str, Self); 4] = [
        ("populate", Self::Populate),
        ("write", Self::Write),
        ("passes", Self::Passes),
        ("none", Self::Passes),
    ];

    /// `NTT_FIRST_TOUCH`, read once; unset is the default.
    ///
    /// # Errors
    /// The variable names no method (or is not UTF-8).
    pub(crate) fn from_env() -> Result<Self, crate::env::EnvError> {
        static METHOD: std::sync::OnceLock<Result<Method, crate::env::EnvError>> = std::sync::OnceLock::new();
        METHOD
            .get_or_init(|| {
                crate::env::parse(FIRST_TOUCH_ENV, |v| {
                    Self::NAMES
                        .iter()
                        .find(|(name, _)| *name == v)
                        .map(|&(_, m)| m)
                        .ok_or_else(|| {
                            "not a first-touch method (expected populate, write or passes)".to_owned()
                        })
                })
                .map(Option::unwrap_or_default)
            })
            .clone()
    }

    /// The method this process uses: `NTT_FIRST_TOUCH`, or the default where it names nothing
    /// (the CLI refuses that before it runs; a library caller gets one warning in its log, the
    /// first time a buffer is touched, not one per buffer).
    fn get() -> Self {
        static METHOD: std::sync::OnceLock<Method> = std::sync::OnceLock::new();
        *METHOD.get_or_init(|| {
            Self::from_env().unwrap_or_else(|e| {
                tracing::warn!("{e}; using populate");
                Self::default()
            })
        })
    }
}

/// Checks `NTT_FIRST_TOUCH` (for a command line that refuses bad input before it runs).
///
/// # Errors
/// The variable is set to something that names no method.
pub fn check_first_touch_env() -> Result<(), crate::env::EnvError> {
    Method::from_env().map(drop)
}

/// What one worker spent faulting in fresh memory: before the first pass (`NTT_FIRST_TOUCH`
/// `populate`, the default, or `write`), or while the passes ran (`passes`: then `bytes` and
/// `time` are 0 and `faults` is what the worker's thread took during the encode).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkerTouch {
    /// The worker's index in its pool.
    pub worker: usize,
    /// Bytes it faulted in before the first pass (0 when the passes faulted them in).
    pub bytes: usize,
    /// Wall time it spent doing so (0 when the passes faulted them in).
    pub time: Duration,
    /// Minor page faults its thread took meanwhile (0 where the OS does not count them).
    pub faults: u64,
}

impl WorkerTouch {
    /// Whether the pages were faulted in by the passes themselves (`faults` then counts the
    /// worker's page faults during the encode) rather than before the first pass.
    pub fn during_passes(&self) -> bool {
        self.bytes == 0
    }
}

/// Whether fresh pages are left to the passes (`NTT_FIRST_TOUCH=passes`).
pub fn left_to_passes() -> bool {
    Method::get() == Method::Passes
}

/// The minor page faults each of `pool`'s worker threads has taken so far, by worker; `None`
/// where the OS does not say (not Linux, or no thread id).
pub fn worker_faults(pool: &ThreadPool) -> Vec<Option<u64>> {
    pool.worker_os_thread_ids()
        .iter()
        .map(|&id| task_minor_faults(id))
        .collect()
}

/// Each worker's page faults between two [`worker_faults`] readings, as the passes' first touch
/// (workers that took none, or whose count the OS does not give, are left out).
pub fn faults_in_passes(before: &[Option<u64>], after: &[Option<u64>]) -> Vec<WorkerTouch> {
    let shares: Vec<WorkerTouch> = before
        .iter()
        .zip(after)
        .enumerate()
        .filter_map(|(worker, (b, a))| {
            let faults = a.zip(*b).map(|(a, b)| a.saturating_sub(b))?;
            (faults > 0).then_some(WorkerTouch {
                worker,
                bytes: 0,
                time: Duration::ZERO,
                faults,
            })
        })
        .collect();
    for share in &shares {
        let _span = tracing::debug_span!(
            "first_touch_worker",
            worker = share.worker,
            bytes = 0,
            faults = share.faults,
            during_passes = true
        )
        .entered();
    }
    shares
}

/// Minor page faults the thread `id` of this process has taken (field 10 of
/// `/proc/self/task/<id>/stat`).
fn task_minor_faults(id: u64) -> Option<u64> {
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        if id == 0 {
            return None;
        }
        let stat = std::fs::read_to_string(format!("/proc/self/task/{id}/stat")).ok()?;
        // The command (field 2) may hold spaces and parentheses: count from the last ')', after
        // which field 3 (the state) comes first, so field 10 is the eighth.
        let after_command = &stat[stat.rfind(')')? + 1..];
        after_command.split_ascii_whitespace().nth(7)?.parse().ok()
    }
    #[cfg(not(all(target_os = "linux", not(miri))))]
    {
        let _ = id;
        None
    }
}

/// The `i`-th chunk of `[start, start + len)`: cut at the absolute 2 MiB boundaries.
fn chunk(start: usize, len: usize, i: usize) -> std::ops::Range<usize> {
    let first_end = (start + 1).next_multiple_of(HUGE_PAGE_BYTES).min(start + len);
    let lo = if i == 0 {
        start
    } else {
        first_end + (i - 1) * HUGE_PAGE_BYTES
    };
    let hi = (first_end + i * HUGE_PAGE_BYTES).min(start + len);
    lo.min(hi)..hi
}

/// How many chunks `[start, start + len)` has.
fn chunks(start: usize, len: usize) -> usize {
    if len == 0 {
        return 0;
    }
    let first_end = (start + 1).next_multiple_of(HUGE_PAGE_BYTES).min(start + len);
    1 + (start + len - first_end).div_ceil(HUGE_PAGE_BYTES)
}

/// What [`populate`] cost a fresh buffer: each worker's share (by worker index; workers that
/// took no chunk are left out) and the pages asked for. Where each worker's part of a buffer
/// lies is [`crate::FirstTouch`]; this is what touching it took.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Populated {
    /// Each worker's share, by worker index.
    pub workers: Vec<WorkerTouch>,
    /// The pages asked for.
    pub pages: PageUse,
}

/// Faults in the pages of `[ptr, ptr + len)` on `pool`'s workers (on the calling thread when it
/// is small), asking for the pages `NTT_HUGE_PAGES` says, as `NTT_FIRST_TOUCH` says.
///
/// # Safety
/// `[ptr, ptr + len)` must lie inside one allocation that the caller may write and that nothing
/// reads or writes during the call; its contents afterwards are unspecified in the bytes that
/// were never written (a byte per page may be set to 0).
pub unsafe fn populate(pool: &ThreadPool, ptr: *mut u8, len: usize) -> Populated {
    // SAFETY: forwarded: the caller upholds `populate`'s contract, which is `fault_in`'s.
    unsafe { fault_in(pool, ptr, len, Method::get(), HugePages::current()) }
}

/// [`populate`] with `method` and `policy` rather than the environment's.
///
/// # Safety
/// As for [`populate`].
unsafe fn fault_in(
    pool: &ThreadPool,
    ptr: *mut u8,
    len: usize,
    method: Method,
    policy: HugePages,
) -> Populated {
    let _span = tracing::debug_span!("first_touch", bytes = len, huge_pages = policy.name()).entered();
    let start = ptr as usize;
    let n = chunks(start, len);
    let switch = Mutex::new(Switch::new(policy));
    let pages = Mutex::new(PageUse {
        policy,
        ..PageUse::default()
    });
    // One chunk: asked for as the switch says, faulted in (unless `method` leaves it to the
    // passes), timed, and counted.
    let one_chunk = |i: usize, fault: bool| {
        let bytes = chunk(start, len, i);
        let huge = lock(&switch).wants_huge();
        let advised = advise(bytes.start as *mut u8, bytes.len(), huge);
        let mut used = PageUse::default();
        if fault {
            let began = Instant::now();
            // SAFETY: every chunk lies inside `[ptr, ptr + len)` (the caller's allocation, not
            // accessed by anyone else meanwhile), and the chunks are disjoint.
            let faulted = unsafe { populate_range(bytes.start as *mut u8, bytes.len(), method) };
            if !faulted {
                used.present_bytes = bytes.len();
                lock(&pages).add(&used);
                return;
            }
            if huge && advised > 0 {
                lock(&switch).record(policy, began.elapsed());
            }
        }
        let huge_bytes = if huge { advised } else { 0 };
        used.huge_bytes = huge_bytes;
        used.small_bytes = bytes.len() - huge_bytes;
        lock(&pages).add(&used);
    };
    let workers = if method == Method::Passes {
        // Left to the passes: `auto` populates its first few chunks to see how huge pages come,
        // and the rest are asked for as the switch then says.
        let probed = if policy == HugePages::Auto {
            WINDOW.min(n)
        } else {
            0
        };
        (0..probed).for_each(|i| one_chunk(i, true));
        (probed..n).for_each(|i| one_chunk(i, false));
        Vec::new()
    } else {
        fault_on_workers(pool, start, len, |i| one_chunk(i, true))
    };
    let mut pages = pages
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    pages.switched_after = lock(&switch).switched_after(policy);
    Populated { workers, pages }
}

/// A lock whose data stays valid if a holder panicked.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Runs `touch_chunk` on every chunk of `[start, start + len)`, on `pool`'s workers (on the
/// calling thread when the range is small), and returns what each worker spent.
fn fault_on_workers(
    pool: &ThreadPool,
    start: usize,
    len: usize,
    touch_chunk: impl Fn(usize) + Sync,
) -> Vec<WorkerTouch> {
    let n = chunks(start, len);
    let workers = pool.num_workers().max(1);
    let spans: Vec<tracing::Span> = (0..workers)
        .map(|worker| {
            tracing::debug_span!(
                "first_touch_worker",
                worker,
                bytes = tracing::field::Empty,
                faults = tracing::field::Empty
            )
        })
        .collect();
    let shares = Mutex::new(vec![WorkerTouch::default(); workers]);
    let touch = |range: std::ops::Range<usize>, worker: usize| {
        let worker = worker.min(workers - 1);
        let _entered = spans[worker].enter();
        let (began, faults) = (Instant::now(), thread_minor_faults());
        range.clone().for_each(&touch_chunk);
        let bytes: usize = range.map(|i| chunk(start, len, i).len()).sum();
        let (time, faults) = (began.elapsed(), thread_minor_faults().saturating_sub(faults));
        let mut shares = lock(&shares);
        let share = &mut shares[worker];
        share.bytes += bytes;
        share.time += time;
        share.faults += faults;
    };
    if len < PARALLEL_MIN_BYTES || workers == 1 {
        touch(0..n, 0);
    } else {
        pool.for_each(0..n, 1, |range, ctx| touch(range, ctx.worker_index()));
    }
    let mut shares = shares
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    for (worker, share) in shares.iter_mut().enumerate() {
        share.worker = worker;
        spans[worker].record("bytes", share.bytes);
        spans[worker].record("faults", share.faults);
    }
    shares.retain(|s| s.bytes > 0);
    shares
}

/// Faults in `[ptr, ptr + len)`: one `MADV_POPULATE_WRITE`, else a byte written per page.
/// Returns false when every page was present already (nothing to fault).
///
/// # Safety
/// As for [`populate`], for this range.
unsafe fn populate_range(ptr: *mut u8, len: usize, method: Method) -> bool {
    #[cfg(not(all(target_os = "linux", not(miri))))]
    let _ = method;
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        let start = ptr as usize / PAGE_BYTES * PAGE_BYTES;
        if resident(start, ptr as usize + len - start) {
            // A buffer used before (a caller's, handed to the encoder again): nothing to fault,
            // and asking the kernel to populate it would walk every page of it.
            return false;
        }
    }
    #[cfg(all(target_os = "linux", not(miri)))]
    if method == Method::Populate {
        let start = ptr as usize / PAGE_BYTES * PAGE_BYTES;
        // SAFETY: `[start, ptr + len)` covers whole pages of the caller's allocation (a page
        // that holds any byte of it is mapped, readable and writable); MADV_POPULATE_WRITE
        // faults them in writable as a write would, changing no byte, and unmaps nothing.
        let rc = unsafe {
            libc::madvise(
                start as *mut libc::c_void,
                ptr as usize + len - start,
                libc::MADV_POPULATE_WRITE,
            )
        };
        if rc == 0 {
            return true;
        }
    }
    // The first byte of each page (and the range's first byte): a write faults the page in.
    let mut offset = 0;
    while offset < len {
        // SAFETY: `offset < len`, inside the caller's range, which nothing else accesses; the
        // caller allows a byte per page to become 0.
        unsafe { ptr.wrapping_add(offset).write_volatile(0) };
        offset = (ptr as usize + offset + 1).next_multiple_of(PAGE_BYTES) - ptr as usize;
    }
    true
}

/// Whether every page of `[start, start + len)` (`start` page-aligned, at most a chunk and a
/// page long) is in memory already; false when the kernel cannot say.
#[cfg(all(target_os = "linux", not(miri)))]
fn resident(start: usize, len: usize) -> bool {
    const MOST_PAGES: usize = HUGE_PAGE_BYTES / PAGE_BYTES + 2;
    let pages = len.div_ceil(PAGE_BYTES);
    if pages > MOST_PAGES {
        return false;
    }
    let mut present = [0u8; MOST_PAGES];
    // SAFETY: `start` is page-aligned and `[start, start + len)` is mapped (the caller's
    // allocation, rounded out to whole pages); `present` has room for one byte per page.
    let rc = unsafe { libc::mincore(start as *mut libc::c_void, len, present.as_mut_ptr()) };
    rc == 0 && present[..pages].iter().all(|&p| p & 1 == 1)
}

/// Minor page faults the calling thread has taken so far (0 where they are not counted).
fn thread_minor_faults() -> u64 {
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: `usage` is a writable `rusage`; RUSAGE_THREAD is supported since Linux 2.6.26.
        if unsafe { libc::getrusage(libc::RUSAGE_THREAD, usage.as_mut_ptr()) } == 0 {
            // SAFETY: `getrusage` returned 0, so it filled `usage`.
            return u64::try_from(unsafe { usage.assume_init() }.ru_minflt).unwrap_or(0);
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{PinPolicy, ThreadPoolBuilder};

    #[test]
    fn first_touch_names_parse_and_typos_do_not() {
        let find = |v: &str| Method::NAMES.iter().find(|(n, _)| *n == v).map(|&(_, m)| m);
        assert_eq!(find("populate"), Some(Method::Populate));
        assert_eq!(find("none"), Some(Method::Passes));
        for bad in ["bogus", "POPULATE", "1", "passes,write", " populate "] {
            assert_eq!(find(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn chunks_tile_the_range_at_huge_page_boundaries() {
        const H: usize = HUGE_PAGE_BYTES;
        for (start, len) in [
            (H, 3 * H),
            (H + 8, 3 * H),
            (H - 8, 8),
            (5, 7),
            (3 * H, 1),
            (H + 1, 2 * H - 1),
        ] {
            let n = chunks(start, len);
            let parts: Vec<_> = (0..n).map(|i| chunk(start, len, i)).collect();
            assert_eq!(parts[0].start, start, "{start} {len}");
            assert_eq!(parts[n - 1].end, start + len, "{start} {len}");
            for pair in parts.windows(2) {
                assert_eq!(pair[0].end, pair[1].start);
                assert_eq!(pair[0].end % H, 0, "cuts fall on huge-page boundaries");
            }
            assert!(parts.iter().all(|p| !p.is_empty() && p.len() <= H), "{parts:?}");
        }
        assert_eq!(chunks(H, 3 * H), 3);
        assert_eq!(chunks(H + 8, 3 * H), 4);
        assert_eq!(chunks(17, 0), 0);
    }

    #[test]
    #[cfg_attr(miri, ignore = "madvise and getrusage are foreign calls")]
    fn every_byte_is_accounted_to_some_worker_and_writes_stay_valid() {
        let pool = ThreadPoolBuilder::new()
            .num_threads(2)
            .pin(PinPolicy::None)
            .build()
            .expect("pool");
        for words in [1, 1000, (5 << 20) / 8 + 3] {
            let mut buffer: Vec<u64> = Vec::with_capacity(words);
            let len = words * 8;
            // SAFETY: the spare capacity is this test's, and nothing else touches it.
            for method in [Method::Populate, Method::Write] {
                for policy in HugePages::ALL {
                    let mut buffer: Vec<u64> = Vec::with_capacity(words);
                    // SAFETY: the spare capacity is this test's, and nothing else touches it.
                    let touch = unsafe { fault_in(&pool, buffer.as_mut_ptr().cast(), len, method, policy) };
                    let shares = &touch.workers;
                    assert_eq!(shares.iter().map(|s| s.bytes).sum::<usize>(), len);
                    assert!(shares.iter().all(|s| s.worker < 2 && s.bytes > 0));
                    let p = touch.pages;
                    assert_eq!(p.huge_bytes + p.small_bytes + p.present_bytes, len, "{p:?}");
                    assert_eq!(p.policy, policy);
                    if policy == HugePages::Never {
                        assert_eq!(p.huge_bytes, 0, "{p:?}");
                    }
                    buffer.extend((0..words as u64).map(|w| w ^ 0x5a));
                    assert!(buffer.iter().enumerate().all(|(i, &w)| w == i as u64 ^ 0x5a));
                }
            }
            // SAFETY: as above.
            let left = unsafe {
                fault_in(
                    &pool,
                    buffer.as_mut_ptr().cast(),
                    len,
                    Method::Passes,
                    HugePages::Always,
                )
            };
            assert!(left.workers.is_empty());
            assert_eq!(left.pages.huge_bytes + left.pages.small_bytes, len);
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "madvise is a foreign call")]
    fn populating_keeps_what_was_written() {
        // MADV_POPULATE_WRITE changes no byte of pages already present; the fallback writes
        // are only for pages a caller has not written.
        let pool = ThreadPoolBuilder::new()
            .num_threads(2)
            .pin(PinPolicy::None)
            .build()
            .expect("pool");
        let words = (9 << 20) / 8;
        let mut buffer: Vec<u64> = (0..words as u64).collect();
        // SAFETY: the buffer is this test's and borrowed mutably for the call.
        let touch = unsafe {
            fault_in(
                &pool,
                buffer.as_mut_ptr().cast(),
                words * 8,
                Method::Populate,
                HugePages::Auto,
            )
        };
        if madvise_populate_supported() {
            assert!(buffer.iter().enumerate().all(|(i, &w)| w == i as u64));
        }
        // Every page was present: nothing was faulted in, nor asked for.
        assert_eq!(touch.pages.present_bytes, words * 8, "{:?}", touch.pages);
    }

    #[test]
    #[cfg(all(target_os = "linux", not(miri)))]
    fn each_worker_counts_its_own_page_faults() {
        let pool = ThreadPoolBuilder::new()
            .num_threads(2)
            .pin(PinPolicy::None)
            .build()
            .expect("pool");
        let before = worker_faults(&pool);
        assert_eq!(before.len(), 2);
        assert!(before.iter().all(Option::is_some), "{before:?}");
        // One task writes 8 MiB of new pages (past glibc's mmap threshold, so fresh): the
        // worker that ran it took at least a fault per huge page of it.
        let words = (8 << 20) / 8;
        let ran_on = std::sync::atomic::AtomicUsize::new(usize::MAX);
        pool.run(|graph| {
            graph.add(|ctx| {
                ran_on.store(ctx.worker_index(), std::sync::atomic::Ordering::Relaxed);
                let mut fresh: Vec<u64> = Vec::with_capacity(words);
                fresh.extend(0..words as u64);
                std::hint::black_box(&fresh);
            });
        });
        let worker = ran_on.into_inner();
        let shares = faults_in_passes(&before, &worker_faults(&pool));
        let share = shares
            .iter()
            .find(|s| s.worker == worker)
            .expect("the worker faulted");
        assert!(share.during_passes() && share.faults >= 4, "{shares:?}");
    }

    #[test]
    #[cfg(all(target_os = "linux", not(miri)))]
    fn only_written_pages_read_as_resident() {
        // Past glibc's largest mmap threshold (32 MiB), so the pages are new.
        let mut buffer: Vec<u8> = Vec::with_capacity(64 << 20);
        let start = (buffer.as_mut_ptr() as usize).next_multiple_of(HUGE_PAGE_BYTES);
        assert!(!resident(start, HUGE_PAGE_BYTES), "never touched");
        buffer.resize(64 << 20, 1);
        assert!(resident(start, HUGE_PAGE_BYTES), "written");
        assert!(
            !resident(start, 4 * HUGE_PAGE_BYTES),
            "longer than a chunk: not asked"
        );
    }

    /// Whether this kernel knows `MADV_POPULATE_WRITE` (Linux 5.14+).
    #[cfg(target_os = "linux")]
    fn madvise_populate_supported() -> bool {
        let mut probe = vec![1u8; PAGE_BYTES * 2];
        let start = (probe.as_mut_ptr() as usize).next_multiple_of(PAGE_BYTES);
        // SAFETY: one page inside `probe`, written already; the call changes no byte.
        unsafe { libc::madvise(start as *mut libc::c_void, PAGE_BYTES, libc::MADV_POPULATE_WRITE) == 0 }
    }

    #[cfg(not(target_os = "linux"))]
    fn madvise_populate_supported() -> bool {
        false
    }
}
