//! Documented defaults for machines that do not describe their caches.

use super::{Cache, Provenance, Topology};

/// L1 data cache per core when unknown: 32 KiB (Intel since Nehalem up to Ice Lake client,
/// AMD Zen 1-4, Arm Neoverse N1; newer cores have 48-64 KiB, so this errs small).
pub const DEFAULT_L1D_BYTES: u64 = 32 << 10;
/// L2 cache per core when unknown: 1 MiB (Skylake-SP to Ice Lake-SP, Zen 4, Neoverse N1/V1;
/// Sapphire Rapids has 2 MiB, older client parts 256-512 KiB).
pub const DEFAULT_L2_BYTES: u64 = 1 << 20;
/// L3 per core when unknown, shared by all allowed PUs: 2 MiB (Zen 2-4 CCDs have 4 MiB/core,
/// Skylake-SP 1.375 MiB/core, Sapphire Rapids 1.875 MiB/core).
pub const DEFAULT_L3_BYTES_PER_CORE: u64 = 2 << 20;

pub(super) fn describe(level: u8) -> String {
    match level {
        1 => format!("{} KiB L1d per core", DEFAULT_L1D_BYTES >> 10),
        2 => format!("{} KiB L2 per core", DEFAULT_L2_BYTES >> 10),
        _ => format!(
            "{} KiB L3 per core, one L3 shared by all PUs",
            DEFAULT_L3_BYTES_PER_CORE >> 10
        ),
    }
}

/// Default caches of `level` over `topo`'s PUs: private per core for L1d/L2, one shared L3.
pub(super) fn caches(topo: &Topology, level: u8) -> Vec<Cache> {
    if level == 3 {
        return vec![Cache {
            level,
            size_bytes: DEFAULT_L3_BYTES_PER_CORE * topo.cores as u64,
            pus: topo.pus.iter().map(|p| p.os_index).collect(),
            outside_cores: 0,
            source: Provenance::Default,
        }];
    }
    let size_bytes = if level == 1 {
        DEFAULT_L1D_BYTES
    } else {
        DEFAULT_L2_BYTES
    };
    topo.core_pus()
        .into_iter()
        .map(|pus| Cache {
            level,
            size_bytes,
            pus,
            outside_cores: 0,
            source: Provenance::Default,
        })
        .collect()
}
