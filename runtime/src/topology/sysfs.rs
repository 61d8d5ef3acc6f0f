//! Topology from Linux sysfs, for machines where hwloc is missing or blind.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::{Cache, Provenance, RawPu, Topology};

pub(super) const SYSFS_ROOT: &str = "/sys";

fn cpu_dir(root: &Path) -> PathBuf {
    root.join("devices/system/cpu")
}

fn read_trimmed(path: &Path) -> Option<String> {
    fs::read_to_string(path).ok().map(|s| s.trim().to_owned())
}

/// Parses a kernel CPU list such as `0-3,8,10-11`.
pub(super) fn parse_list(list: &str) -> Option<Vec<usize>> {
    let mut out = Vec::new();
    for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (a.parse().ok()?, b.parse().ok()?);
                if b < a || b - a > 1 << 16 {
                    return None;
                }
                out.extend(a..=b);
            }
            None => out.push(part.parse().ok()?),
        }
    }
    Some(out)
}

/// Parses a sysfs cache size such as `32K`, `1024K` or `8M`.
pub(super) fn parse_size(size: &str) -> Option<u64> {
    let size = size.trim();
    let (digits, shift) = match size.as_bytes().last()? {
        b'K' => (&size[..size.len() - 1], 10),
        b'M' => (&size[..size.len() - 1], 20),
        b'G' => (&size[..size.len() - 1], 30),
        _ => (size, 0),
    };
    digits.parse::<u64>().ok()?.checked_mul(1 << shift)
}

/// The CPUs sysfs lists (online ones, else every `cpuN` directory).
fn listed_cpus(root: &Path) -> io::Result<Vec<usize>> {
    if let Some(cpus) = read_trimmed(&cpu_dir(root).join("online")).and_then(|s| parse_list(&s))
        && !cpus.is_empty()
    {
        return Ok(cpus);
    }
    let mut cpus = Vec::new();
    for entry in fs::read_dir(cpu_dir(root))? {
        let name = entry?.file_name();
        if let Some(n) = name.to_str().and_then(|n| n.strip_prefix("cpu"))
            && let Ok(n) = n.parse()
        {
            cpus.push(n);
        }
    }
    if cpus.is_empty() {
        return Err(io::Error::new(io::ErrorKind::NotFound, "no cpuN directories"));
    }
    cpus.sort_unstable();
    Ok(cpus)
}

/// NUMA node of each CPU from `<root>/devices/system/node/nodeN/cpulist` (0 when absent).
fn numa_of(root: &Path, cpu: usize) -> Option<usize> {
    let nodes = fs::read_dir(root.join("devices/system/node")).ok()?;
    for entry in nodes.flatten() {
        let name = entry.file_name();
        let Some(n) = name.to_str().and_then(|n| n.strip_prefix("node")) else {
            continue;
        };
        let Ok(node) = n.parse() else { continue };
        if read_trimmed(&entry.path().join("cpulist"))
            .and_then(|s| parse_list(&s))
            .is_some_and(|l| l.contains(&cpu))
        {
            return Some(node);
        }
    }
    None
}

/// PUs, cores and NUMA nodes (and every cache level sysfs shows) from `root`.
pub(super) fn detect(root: &Path, allowed: Option<&[usize]>) -> io::Result<Topology> {
    let listed = listed_cpus(root)?;
    let mut warnings = Vec::new();
    let cpus: Vec<usize> = match allowed {
        Some(allowed) => listed.iter().copied().filter(|c| allowed.contains(c)).collect(),
        None => listed,
    };
    if cpus.is_empty() {
        return Err(io::Error::new(io::ErrorKind::NotFound, "no allowed CPU in sysfs"));
    }
    let raw: Vec<RawPu> = cpus
        .iter()
        .map(|&cpu| {
            let topo_dir = cpu_dir(root).join(format!("cpu{cpu}/topology"));
            let num = |f: &str| read_trimmed(&topo_dir.join(f)).and_then(|s| s.parse().ok());
            let core = match (num("physical_package_id"), num("core_id")) {
                (Some(pkg), Some(core)) => (pkg, core),
                _ => {
                    warnings.push(format!("cpu{cpu}: no core id in sysfs; one core per PU"));
                    (usize::MAX, cpu)
                }
            };
            (cpu, core, numa_of(root, cpu).unwrap_or(0))
        })
        .collect();
    let mut topo = Topology::from_raw(Provenance::Sysfs, raw);
    topo.warnings = warnings;
    for level in 1..=3 {
        topo.caches.extend(caches(root, &cpus, level));
    }
    Ok(topo)
}

/// The (package, core) of `cpu` as sysfs numbers them; the CPU itself when sysfs does not say.
fn core_key(root: &Path, cpu: usize) -> (Option<usize>, usize) {
    let topo_dir = cpu_dir(root).join(format!("cpu{cpu}/topology"));
    let num = |f: &str| read_trimmed(&topo_dir.join(f)).and_then(|s| s.parse().ok());
    match (num("physical_package_id"), num("core_id")) {
        (Some(pkg), Some(core)) => (Some(pkg), core),
        _ => (None, cpu),
    }
}

/// Cores among `sharing` CPUs with no CPU in `allowed`.
fn outside_cores(root: &Path, sharing: &[usize], allowed: &[usize]) -> usize {
    let inside: Vec<_> = sharing
        .iter()
        .filter(|c| allowed.contains(c))
        .map(|&c| core_key(root, c))
        .collect();
    let mut outside: Vec<_> = sharing
        .iter()
        .filter(|c| !allowed.contains(c))
        .map(|&c| core_key(root, c))
        .filter(|k| !inside.contains(k))
        .collect();
    outside.sort_unstable();
    outside.dedup();
    outside.len()
}

/// The data/unified caches of `level` over `cpus`, from `cpuN/cache/indexK/`.
pub(super) fn caches(root: &Path, cpus: &[usize], level: u8) -> Vec<Cache> {
    let mut out: Vec<Cache> = Vec::new();
    for &cpu in cpus {
        let Ok(entries) = fs::read_dir(cpu_dir(root).join(format!("cpu{cpu}/cache"))) else {
            continue;
        };
        for entry in entries.flatten() {
            let dir = entry.path();
            let field = |f: &str| read_trimmed(&dir.join(f));
            if field("level").and_then(|l| l.parse::<u8>().ok()) != Some(level)
                || !matches!(field("type").as_deref(), Some("Data" | "Unified"))
            {
                continue;
            }
            let Some(size_bytes) = field("size").and_then(|s| parse_size(&s)) else {
                continue;
            };
            let mut pus: Vec<usize> = field("shared_cpu_list")
                .and_then(|s| parse_list(&s))
                .unwrap_or_else(|| vec![cpu]);
            let outside_cores = outside_cores(root, &pus, cpus);
            pus.retain(|p| cpus.contains(p));
            if !pus.contains(&cpu) {
                pus.push(cpu);
                pus.sort_unstable();
            }
            if !out.iter().any(|c| c.pus == pus) {
                out.push(Cache {
                    level,
                    size_bytes,
                    pus,
                    outside_cores,
                    source: Provenance::Sysfs,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_cpu_lists_and_sizes() {
        assert_eq!(parse_list("0-3,8,10-11"), Some(vec![0, 1, 2, 3, 8, 10, 11]));
        assert_eq!(parse_list(""), Some(vec![]));
        assert_eq!(parse_list("3-1"), None);
        assert_eq!(parse_list("x"), None);
        assert_eq!(parse_size("32K"), Some(32 << 10));
        assert_eq!(parse_size("8M"), Some(8 << 20));
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size("K"), None);
    }
}
