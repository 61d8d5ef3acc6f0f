//! How much memory the process can still use, to bound reads of its input.

use ntt_pcs::memory::AvailableMemory;

/// The smaller of what the library's memory check allows (the system's available memory and the
/// cgroup's limit, [`AvailableMemory`]) and what the address-space limit (`RLIMIT_AS`) leaves of
/// the address space. `None` when none of them can be read.
pub(crate) fn available_bytes() -> Option<u64> {
    [AvailableMemory::read().bytes(), address_space_limit()]
        .into_iter()
        .flatten()
        .min()
}

fn address_space_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid, writable rlimit for the call to fill.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } == 0;
    if !ok || limit.rlim_cur == libc::RLIM_INFINITY {
        return None;
    }
    Some(limit.rlim_cur.saturating_sub(address_space_in_use().unwrap_or(0)))
}

/// The process's mapped address space (the first field of `/proc/self/statm`, in pages).
fn address_space_in_use() -> Option<u64> {
    let pages: u64 = std::fs::read_to_string("/proc/self/statm")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    pages.checked_mul(u64::try_from(page).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn some_memory_is_available_on_linux() {
        if cfg!(target_os = "linux") {
            assert!(available_bytes().is_some_and(|b| b > 0));
        }
    }
}
