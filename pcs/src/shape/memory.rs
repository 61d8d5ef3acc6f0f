//! How much memory a buffer may take: the smaller of what the system has available and what the
//! process's control group allows, so that a shape too large for the machine is refused with a
//! message instead of aborting the process halfway through an allocation.
//!
//! Sources (Linux; elsewhere nothing is known and every size is allowed, the allocation itself
//! being fallible):
//! - `MemAvailable` from `/proc/meminfo`: memory the kernel can hand out without swapping.
//! - The cgroup limit: v2 `memory.max`, v1 `memory.limit_in_bytes`, the smallest along the
//!   process's cgroup path (a parent's limit binds its children). The limit, not the headroom
//!   below it: the group's usage counts page cache the kernel reclaims on demand.

use super::ShapeError;

/// Limits above this are "no limit" (cgroup v1 writes an unlimited group as about 2^63).
const UNLIMITED: u64 = 1 << 60;

/// What the machine offers a new allocation, by source.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AvailableMemory {
    /// `MemAvailable` of `/proc/meminfo`, bytes.
    pub system: Option<u64>,
    /// The process's cgroup memory limit, bytes.
    pub cgroup_limit: Option<u64>,
}

impl AvailableMemory {
    /// Reads both sources; either is `None` where it is unknown or unlimited.
    pub fn read() -> Self {
        #[cfg(target_os = "linux")]
        {
            let read = |path: &str| std::fs::read_to_string(path).ok();
            Self {
                system: read("/proc/meminfo").as_deref().and_then(parse_mem_available),
                cgroup_limit: read("/proc/self/cgroup")
                    .as_deref()
                    .and_then(|groups| cgroup_limit(groups, |path| read(path))),
            }
        }
        #[cfg(not(target_os = "linux"))]
        {
            Self::default()
        }
    }

    /// The smaller of the two, or `None` when neither is known.
    pub fn bytes(&self) -> Option<u64> {
        match (self.system, self.cgroup_limit) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Refuses `needed` bytes for `what` when they exceed [`bytes`](Self::bytes).
    ///
    /// # Errors
    /// [`ShapeError::ExceedsMemory`], naming both sizes.
    pub fn check(&self, what: &'static str, needed: u64) -> Result<(), ShapeError> {
        match self.bytes() {
            Some(available) if needed > available => Err(ShapeError::ExceedsMemory {
                what,
                needed,
                available,
                limited_by: if self.cgroup_limit == Some(available) {
                    "the cgroup memory limit"
                } else {
                    "MemAvailable"
                },
            }),
            _ => Ok(()),
        }
    }
}

/// Refuses `needed` bytes for `what` when this machine cannot offer them now (see
/// [`AvailableMemory`]).
///
/// # Errors
/// [`ShapeError::ExceedsMemory`], naming both sizes.
pub fn ensure_available(what: &'static str, needed: u64) -> Result<(), ShapeError> {
    AvailableMemory::read().check(what, needed)
}

/// `MemAvailable` in bytes, from the text of `/proc/meminfo`.
fn parse_mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// A limit file's value: a number of bytes, or `max` / a huge number for none.
fn parse_limit(text: &str) -> Option<u64> {
    text.trim().parse::<u64>().ok().filter(|&b| b < UNLIMITED)
}

/// The smallest memory limit along the process's cgroup path. `groups` is the text of
/// `/proc/self/cgroup`; `read` reads a file under `/sys/fs/cgroup`.
fn cgroup_limit(groups: &str, read: impl Fn(&str) -> Option<String>) -> Option<u64> {
    let mut smallest: Option<u64> = None;
    for line in groups.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (fields.next(), fields.next(), fields.next()) else {
            continue;
        };
        let (root, file) = if controllers.is_empty() {
            ("/sys/fs/cgroup", "memory.max")
        } else if controllers.split(',').any(|c| c == "memory") {
            ("/sys/fs/cgroup/memory", "memory.limit_in_bytes")
        } else {
            continue;
        };
        // From the process's own group up to the root; inside a cgroup namespace the path may
        // not exist under the mount, and the root's file is the container's.
        let mut dir = path.trim_end_matches('/').to_owned();
        loop {
            if let Some(limit) = read(&format!("{root}{dir}/{file}"))
                .as_deref()
                .and_then(parse_limit)
            {
                smallest = Some(smallest.map_or(limit, |s| s.min(limit)));
            }
            match dir.rfind('/') {
                Some(cut) => dir.truncate(cut),
                None => break,
            }
        }
    }
    smallest
}

/// `bytes` as a short human size (`1.5 GiB`): ntt-runtime's formatter.
pub use ntt_runtime::units::human_bytes;

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn mem_available_is_read_in_kib() {
        let meminfo =
            "MemTotal:       16318440 kB\nMemFree:          171236 kB\nMemAvailable:    9876543 kB\n";
        assert_eq!(parse_mem_available(meminfo), Some(9_876_543 * 1024));
        assert_eq!(parse_mem_available("MemTotal: 5 kB\n"), None);
    }

    #[test]
    fn the_smallest_limit_along_the_path_binds() {
        let files: HashMap<&str, &str> = [
            ("/sys/fs/cgroup/a/memory.max", "max\n"),
            ("/sys/fs/cgroup/a/b/memory.max", "8589934592\n"),
            ("/sys/fs/cgroup/a/b/c/memory.max", "max\n"),
            (
                "/sys/fs/cgroup/memory/x/memory.limit_in_bytes",
                "9223372036854771712\n",
            ),
            ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "4294967296\n"),
        ]
        .into_iter()
        .collect();
        let read = |p: &str| files.get(p).map(|s| s.to_string());
        assert_eq!(cgroup_limit("0::/a/b/c\n", read), Some(8 << 30));
        assert_eq!(cgroup_limit("0::/a\n", read), None, "max is no limit");
        // v1: the unlimited sentinel is no limit; the mount root's limit still binds.
        assert_eq!(
            cgroup_limit("5:cpu,cpuacct:/x\n4:memory:/x\n", read),
            Some(4 << 30)
        );
        assert_eq!(cgroup_limit("4:cpu:/x\n", read), None);
    }

    #[test]
    fn the_smaller_source_binds_and_both_sizes_are_named() {
        let memory = AvailableMemory {
            system: Some(12 << 30),
            cgroup_limit: Some(2 << 30),
        };
        assert_eq!(memory.bytes(), Some(2 << 30));
        assert!(memory.check("the codeword", 2 << 30).is_ok());
        let err = memory.check("the codeword", 3 << 30).unwrap_err().to_string();
        assert_eq!(
            err,
            "the codeword needs 3 GiB of memory, more than the 2 GiB available (the cgroup memory limit)"
        );
        assert!(
            AvailableMemory::default().check("x", u64::MAX).is_ok(),
            "unknown: allowed"
        );
        assert_eq!(human_bytes(1023), "1023 B");
        assert_eq!(human_bytes(1 << 62), "4 EiB");
    }
}
