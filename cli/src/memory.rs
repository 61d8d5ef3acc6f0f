//! How much memory the process can still use, to bound reads of its input.

use std::path::{Path, PathBuf};

/// The smallest of: the system's available memory (`MemAvailable`), what the process's cgroup
/// still allows (limit − usage, v1 or v2), and what the address-space limit (`RLIMIT_AS`) leaves
/// of the address space. `None`
/// when none of them can be read.
pub fn available_bytes() -> Option<u64> {
    [system_available(), cgroup_available(), address_space_limit()]
        .into_iter()
        .flatten()
        .min()
}

fn system_available() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib = info
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))?
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse::<u64>()
        .ok()?;
    kib.checked_mul(1024)
}

fn read_number(path: &Path) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// The cgroup's remaining allowance: v2 `memory.max − memory.current`, else v1
/// `memory.limit_in_bytes − memory.usage_in_bytes`. "max" and v1's huge "unlimited" read as none.
fn cgroup_available() -> Option<u64> {
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let root = Path::new("/sys/fs/cgroup");
    let mut candidates: Vec<(PathBuf, &str, &str)> = Vec::new();
    for line in cgroups.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let rel = path.trim_start_matches('/');
        if controllers.is_empty() {
            candidates.push((root.join(rel), "memory.max", "memory.current"));
            candidates.push((root.to_owned(), "memory.max", "memory.current"));
        } else if controllers.split(',').any(|c| c == "memory") {
            let v1 = root.join("memory");
            candidates.push((v1.join(rel), "memory.limit_in_bytes", "memory.usage_in_bytes"));
            // Inside a container the process's own group is often mounted as the root.
            candidates.push((v1, "memory.limit_in_bytes", "memory.usage_in_bytes"));
        }
    }
    candidates.into_iter().find_map(|(dir, limit, usage)| {
        let limit = read_number(&dir.join(limit))?;
        // v1 reports "unlimited" as a number near 2^63.
        if limit >= 1 << 62 {
            return None;
        }
        let usage = read_number(&dir.join(usage)).unwrap_or(0);
        Some(limit.saturating_sub(usage))
    })
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
