//! Which worker is pinned to the CPU a thread outside the pool is running on.
//!
//! A thread outside the pool that hands a job over parks right after (its latch), so the CPU it
//! runs on is about to be free. Waking the worker pinned to that CPU costs the kernel a context
//! switch on the spot; waking a worker pinned elsewhere costs an inter-processor interrupt to an
//! idle CPU, which in a virtual machine (a halted vCPU) is several times slower. Measured on a
//! 2-vCPU AMD EPYC (Zen 5) guest, the time from handing a job to a parked pool to the job's first
//! instruction was 34–42 µs with the other CPU's worker woken and 5–9 µs unpinned (the kernel then
//! chose the caller's CPU itself); rayon's unpinned threads took 14–17 µs.

use std::sync::OnceLock;

/// For each CPU (OS index), the worker bound to it alone or to its core; unset until the
/// workers report their binding.
#[derive(Debug, Default)]
pub(crate) struct LocalWorkers {
    by_cpu: OnceLock<Box<[Option<u32>]>>,
}

impl LocalWorkers {
    /// Records each worker's bound CPUs (`bound[w]`, empty where a worker is not pinned). A CPU
    /// that several workers are bound to (more workers than cores) goes to the first of them.
    pub(crate) fn record<'a>(&self, bound: impl IntoIterator<Item = &'a [usize]>) {
        let bound: Vec<&[usize]> = bound.into_iter().collect();
        let Some(top) = bound.iter().flat_map(|b| b.iter().copied()).max() else {
            // Nobody is pinned: nothing is local, and `current` never asks the OS.
            return;
        };
        let mut by_cpu = vec![None; top + 1];
        for (worker, cpus) in bound.iter().enumerate() {
            for &cpu in cpus.iter() {
                by_cpu[cpu].get_or_insert(worker as u32);
            }
        }
        let _ = self.by_cpu.set(by_cpu.into_boxed_slice());
    }

    /// The worker bound to the CPU the calling thread runs on, if any.
    pub(crate) fn current(&self) -> Option<usize> {
        let by_cpu = self.by_cpu.get()?;
        let cpu = current_cpu()?;
        by_cpu.get(cpu).copied().flatten().map(|w| w as usize)
    }
}

/// The CPU (OS index) the calling thread runs on right now; a hint, since the thread may move.
#[cfg(all(target_os = "linux", not(miri)))]
fn current_cpu() -> Option<usize> {
    // SAFETY: `sched_getcpu` takes no arguments and only reads the calling thread's state.
    let cpu = unsafe { libc::sched_getcpu() };
    usize::try_from(cpu).ok()
}

// Miri does not model which CPU a thread runs on.
#[cfg(any(not(target_os = "linux"), miri))]
fn current_cpu() -> Option<usize> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cpu_maps_to_the_first_worker_bound_to_it() {
        let local = LocalWorkers::default();
        let bound: [&[usize]; 4] = [&[2, 3], &[], &[0], &[0, 5]];
        local.record(bound);
        let by_cpu = local.by_cpu.get().expect("recorded");
        assert_eq!(by_cpu.as_ref(), &[Some(2), None, Some(0), Some(0), None, Some(3)]);
    }

    #[test]
    fn nothing_is_local_before_the_workers_report() {
        assert_eq!(LocalWorkers::default().current(), None);
    }

    #[test]
    fn an_unpinned_pool_has_no_local_worker() {
        let local = LocalWorkers::default();
        local.record([&[][..], &[][..]]);
        assert!(local.by_cpu.get().is_none());
        assert_eq!(local.current(), None);
    }
}
