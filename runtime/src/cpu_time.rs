//! CPU-time clocks (`clock_gettime`): what a run cost in CPU, which other tenants of a shared
//! machine do not inflate the way they inflate wall time. The pool's workers are threads of this
//! process, so [`process_cpu`] counts their work too.

use std::time::Duration;

fn clock(id: libc::clockid_t) -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid, writable `timespec`; the clock ids used are constants Linux supports.
    let rc = unsafe { libc::clock_gettime(id, &mut now) };
    assert_eq!(rc, 0, "clock_gettime({id}) failed");
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// CPU time of every thread of this process so far.
pub fn process_cpu() -> Duration {
    clock(libc::CLOCK_PROCESS_CPUTIME_ID)
}

/// CPU time of the calling thread so far.
pub fn thread_cpu() -> Duration {
    clock(libc::CLOCK_THREAD_CPUTIME_ID)
}
