//! Synthetic machines: the part of hwloc's synthetic grammar that `docs/CLI.md` documents
//! (`pack:2 numa:2 l3:4(size=32MiB) l2:8(size=1MiB) l1d:1(size=48KiB) core:1 pu:2`), parsed and
//! built here, with or without the `hwloc` feature. The machine built is the one hwloc builds
//! from the same text (PU and NUMA numbering, cache sizes and sharing; a table of descriptions
//! checks it against hwloc where the feature is on), in time linear in its PUs rather than the
//! second hwloc takes for the largest one.
//!
//! The grammar: levels separated by whitespace, outermost first, each `TYPE:ARITY` (the count
//! of such objects in each object of the level above), a cache's optionally followed by
//! `(size=SIZE)`. TYPE is `pack` (also `package`, `socket`), `numa` (also `numanode`), `l3`,
//! `l2`, `l1` (each also with a `d` or `u` suffix: data or unified), `core` or `pu`; names are
//! read without regard to case. `pu` comes last and once; every other type at most once, in the
//! order just listed, except that `numa` may stand anywhere above `core`. ARITY is a positive
//! decimal number; SIZE a positive decimal number of bytes, with an optional unit `kB`, `MB`,
//! `GB`, `TB` (powers of 1000) or `KiB`, `MiB`, `GiB`, `TiB` (powers of 1024), as hwloc reads
//! them. A cache without a size is given hwloc's default: 32 KiB for an L1, 4 MiB for an L2,
//! 16 MiB for an L3. Everything else hwloc reads (types as bare numbers, groups, dies,
//! instruction caches, `indexes=`, `memory=`, attached memory in brackets) is refused.

use super::{Cache, MAX_PUS, Provenance, RawPu, Topology, TopologyError};

/// What one level of a synthetic description is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Package,
    Numa,
    /// A data or unified cache of this level (1 to 3).
    Cache(u8),
    Core,
    Pu,
}

impl Kind {
    /// The type named `name` (case aside), if this grammar has it.
    fn named(name: &str) -> Option<Self> {
        let name = name.to_ascii_lowercase();
        Some(match name.as_str() {
            "pack" | "package" | "socket" => Self::Package,
            "numa" | "numanode" => Self::Numa,
            "l1" | "l1d" | "l1u" => Self::Cache(1),
            "l2" | "l2d" | "l2u" => Self::Cache(2),
            "l3" | "l3d" | "l3u" => Self::Cache(3),
            "core" => Self::Core,
            "pu" => Self::Pu,
            _ => return None,
        })
    }

    /// Levels stand in increasing rank, outermost first (NUMA nodes aside).
    fn rank(self) -> u8 {
        match self {
            Self::Package => 0,
            Self::Cache(level) => 4 - level,
            Self::Core => 4,
            Self::Pu => 5,
            Self::Numa => u8::MAX,
        }
    }

    /// hwloc's size for a cache the description gives none.
    fn default_cache_bytes(level: u8) -> u64 {
        if level == 1 {
            32 << 10
        } else {
            (256 << 10) << (2 * level)
        }
    }
}

/// One level of a parsed description.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Level {
    kind: Kind,
    /// Objects of this kind in each object of the level above (at least 1).
    arity: u128,
    /// A cache's size in bytes.
    size: Option<u64>,
}

/// The levels `description` names, checked against the grammar of the module docs, and the
/// PUs they make (the product of the arities, saturated).
fn parse(description: &str) -> Result<(Vec<Level>, u128), String> {
    let mut levels: Vec<Level> = Vec::new();
    for token in description.split_whitespace() {
        let level = parse_level(token)?;
        if let Some(last) = levels.last()
            && last.kind == Kind::Pu
        {
            return Err(format!("`{token}` after the `pu` level, which must be the last"));
        }
        if levels.iter().any(|l| l.kind == level.kind) {
            return Err(format!("`{token}`: a machine has one level of each type"));
        }
        if level.kind == Kind::Numa {
            if levels.iter().any(|l| l.kind == Kind::Core) {
                return Err(format!(
                    "`{token}`: the NUMA level must stand above the core level"
                ));
            }
        } else if let Some(prev) = levels.iter().rev().find(|l| l.kind != Kind::Numa)
            && prev.kind.rank() >= level.kind.rank()
        {
            return Err(format!(
                "`{token}` below a level it must stand above (the order is pack, numa, l3, l2, l1, core, pu)"
            ));
        }
        levels.push(level);
    }
    if levels.last().is_none_or(|l| l.kind != Kind::Pu) {
        return Err("the last level must be `pu:N`".into());
    }
    let pus = levels.iter().fold(1u128, |n, l| n.saturating_mul(l.arity));
    Ok((levels, pus))
}

/// One `TYPE:ARITY` or `TYPE:ARITY(size=SIZE)`.
fn parse_level(token: &str) -> Result<Level, String> {
    let (name, rest) = token
        .split_once(':')
        .ok_or_else(|| format!("`{token}` is not TYPE:COUNT"))?;
    let kind = Kind::named(name)
        .ok_or_else(|| format!("`{name}` is not a level type here (pack, numa, l3, l2, l1, core or pu)"))?;
    let (arity, attributes) = match rest.split_once('(') {
        Some((arity, attributes)) => (arity, Some(attributes)),
        None => (rest, None),
    };
    let arity = number(arity).ok_or_else(|| format!("`{token}`: `{arity}` is not a positive count"))?;
    let size = match attributes {
        None => None,
        Some(attributes) => {
            let Kind::Cache(_) = kind else {
                return Err(format!("`{token}`: only a cache takes an attribute (its size)"));
            };
            let size = attributes
                .strip_suffix(')')
                .and_then(|a| a.strip_prefix("size="))
                .ok_or_else(|| format!("`{token}`: the one attribute is `(size=SIZE)`"))?;
            Some(bytes(size).ok_or_else(|| {
                format!(
                    "`{token}`: `{size}` is not a positive size in bytes (optionally kB, KiB, MB, MiB, ...)"
                )
            })?)
        }
    };
    Ok(Level { kind, arity, size })
}

/// A positive decimal number without leading zeros (hwloc would read those as octal),
/// saturated at `u128::MAX`.
fn number(text: &str) -> Option<u128> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) || text.starts_with('0') {
        return None;
    }
    Some(text.bytes().fold(0u128, |n, b| {
        n.saturating_mul(10).saturating_add(u128::from(b - b'0'))
    }))
}

/// A positive size: decimal digits and an optional unit, as hwloc reads them.
fn bytes(text: &str) -> Option<u64> {
    let digits = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (value, unit) = text.split_at(digits);
    let scale: u64 = match unit.to_ascii_lowercase().as_str() {
        "" => 1,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        "tib" => 1 << 40,
        _ => return None,
    };
    u64::try_from(number(value)?).ok()?.checked_mul(scale)
}

/// The PUs `description` makes, or why it is not one: what can be checked before anything
/// is allocated.
///
/// # Errors
/// [`TopologyError::Load`] for text outside the grammar, [`TopologyError::TooLarge`] for
/// more than [`MAX_PUS`] PUs.
pub(super) fn pus(description: &str) -> Result<usize, TopologyError> {
    let (_, pus) = parse(description).map_err(|e| invalid(description, &e))?;
    if pus > MAX_PUS as u128 {
        return Err(TopologyError::TooLarge { pus });
    }
    Ok(pus as usize)
}

fn invalid(description: &str, why: &str) -> TopologyError {
    TopologyError::Load(format!("not a synthetic description ({why}): `{description}`"))
}

/// The machine `description` names, its PUs restricted to `allowed` (all when `None`), as
/// hwloc would report it: PUs and NUMA nodes numbered in order from 0, every cache over the
/// PUs beneath it. No CPU kinds (the grammar has none); missing cache levels are left for
/// [`Topology::fill_missing_caches`].
///
/// # Errors
/// As [`pus`]; [`TopologyError::Load`] when no PU is allowed.
pub(super) fn build(description: &str, allowed: Option<&[usize]>) -> Result<Topology, TopologyError> {
    let n = pus(description)?;
    let (levels, _) = parse(description).map_err(|e| invalid(description, &e))?;
    // PUs under one object of each level: objects of a level cover consecutive PUs.
    let mut per_object = Vec::with_capacity(levels.len());
    let mut width = 1usize;
    for level in &levels {
        width *= level.arity as usize; // at most `n`, checked above
        per_object.push((level, n / width));
    }
    let span = |kind: Kind| per_object.iter().find(|(l, _)| l.kind == kind).map(|&(_, s)| s);
    let mut is_allowed = vec![allowed.is_none(); n];
    for &pu in allowed.unwrap_or_default() {
        if let Some(flag) = is_allowed.get_mut(pu) {
            *flag = true;
        }
    }
    let package_span = span(Kind::Package).unwrap_or(n);
    let numa_span = span(Kind::Numa).unwrap_or(n);
    // Without a core level each PU is a core of its own (hwloc has no core object there).
    let core_span = span(Kind::Core).unwrap_or(1);
    let core_key = |pu: usize| {
        let package = pu / package_span;
        if span(Kind::Core).is_some() {
            (package, pu / core_span)
        } else {
            (package, usize::MAX - pu)
        }
    };
    let raw: Vec<RawPu> = (0..n)
        .filter(|&pu| is_allowed[pu])
        .map(|pu| (pu, core_key(pu), pu / numa_span))
        .collect();
    if raw.is_empty() {
        return Err(TopologyError::Load(format!(
            "the synthetic machine `{description}` has no allowed PU"
        )));
    }
    // Cores with an allowed PU: a cache's other cores are outside the cpuset.
    let core_allowed: Vec<bool> = (0..n / core_span)
        .map(|core| is_allowed[core * core_span..(core + 1) * core_span].contains(&true))
        .collect();
    let mut topo = Topology::from_raw(Provenance::Hwloc, raw);
    for &(level, span) in &per_object {
        let Kind::Cache(cache_level) = level.kind else {
            continue;
        };
        let size_bytes = level
            .size
            .unwrap_or_else(|| Kind::default_cache_bytes(cache_level));
        for first in (0..n).step_by(span) {
            let under = first..first + span;
            let pus: Vec<usize> = under.clone().filter(|&pu| is_allowed[pu]).collect();
            if pus.is_empty() {
                continue;
            }
            // Caches stand above the core level, so they hold whole cores.
            let cores = under.start / core_span..under.end / core_span;
            let outside_cores = cores.filter(|&core| !core_allowed[core]).count();
            topo.caches.push(Cache {
                level: cache_level,
                size_bytes,
                pus,
                outside_cores,
                source: Provenance::Hwloc,
            });
        }
    }
    Ok(topo)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_pus_before_building() {
        assert_eq!(pus("pack:2 core:4 pu:2"), Ok(16));
        assert_eq!(
            pus("pack:2 numa:2 l3:4(size=32MiB) l2:8(size=1MiB) l1d:1(size=32KiB) core:1 pu:2"),
            Ok(256)
        );
        assert_eq!(
            pus("pack:100000 core:100000 pu:1000"),
            Err(TopologyError::TooLarge {
                pus: 10_000_000_000_000
            })
        );
        let many = format!(
            "pack:4294967295 numa:4294967295 l3:{} core:4294967295 pu:4294967295",
            "9".repeat(44)
        );
        assert_eq!(pus(&many), Err(TopologyError::TooLarge { pus: u128::MAX }));
        assert_eq!(pus("pu:8192"), Ok(MAX_PUS));
        assert_eq!(pus("PACK:2 Core:2 PU:1"), Ok(4));
    }

    #[test]
    fn reads_sizes_as_hwloc_does() {
        assert_eq!(bytes("48KiB"), Some(48 << 10));
        assert_eq!(bytes("1MB"), Some(1_000_000));
        assert_eq!(bytes("2mib"), Some(2 << 20));
        assert_eq!(bytes("123"), Some(123));
        for bad in [
            "",
            "0",
            "08",
            "0x10",
            "1.5MiB",
            "1 MiB",
            "MiB",
            "99999999999TiB",
            "1PiB",
        ] {
            assert_eq!(bytes(bad), None, "{bad}");
        }
    }

    #[test]
    fn refuses_what_the_grammar_lacks() {
        for bad in [
            "",
            "2 4 2",
            "pack:two core:x",
            "pack:2",
            "pack:2 core:0 pu:1",
            "pack:02 pu:1",
            "pack:2 pu:2 core:1",
            "core:2 pack:2 pu:1",
            "l2:2 l3:2 pu:1",
            "pack:2 pack:2 pu:1",
            "pack:2 core:2 numa:2 pu:1",
            "pack:2 [numa(memory=1GB)] core:3 pu:2",
            "pack:2 numa:2(memory=1GB) pu:2",
            "pack:2 l3:2(size=8MiB core:2 pu:1",
            "pack:2 l3:2(size=8MiB)core:2 pu:1",
            "pack:2 l3:2() pu:1",
            "pack:2 l3:2(indexes=0,1) pu:1",
            "pack:2 l1i:2 pu:1",
            "group:2 pu:1",
            "die:2 pu:1",
            "pack:2 core:2(size=1MiB) pu:1",
            "pack:2 l3:1(size=0) pu:1",
            "(memory=1GB) pu:1",
            "pack:2:3 pu:1",
            "pu",
        ] {
            let got = pus(bad);
            assert!(
                matches!(got, Err(TopologyError::Load(ref m)) if m.contains("not a synthetic description")),
                "{bad:?}: {got:?}"
            );
        }
    }

    #[test]
    fn builds_numbering_sharing_and_cpusets() {
        let topo = build(
            "pack:2 numa:2 l3:1(size=8MiB) l2:2 core:1 pu:2",
            Some(&[0, 1, 2, 9, 99]),
        )
        .expect("builds");
        assert_eq!(topo.allowed_cpus(), vec![0, 1, 2, 9]);
        assert_eq!(topo.packages, 2);
        assert_eq!(topo.cores, 3, "cores 0, 1 and 4");
        let nodes: Vec<(usize, Vec<usize>)> = topo
            .numa_nodes
            .iter()
            .map(|n| (n.os_index, n.pus.clone()))
            .collect();
        assert_eq!(nodes, vec![(0, vec![0, 1, 2]), (2, vec![9])]);
        let caches: Vec<(u8, u64, Vec<usize>, usize)> = topo
            .caches
            .iter()
            .map(|c| (c.level, c.size_bytes, c.pus.clone(), c.outside_cores))
            .collect();
        assert_eq!(
            caches,
            vec![
                (3, 8 << 20, vec![0, 1, 2], 0),
                (3, 8 << 20, vec![9], 1),
                (2, 4 << 20, vec![0, 1], 0),
                (2, 4 << 20, vec![2], 0),
                (2, 4 << 20, vec![9], 0),
            ]
        );
        assert!(build("pack:1 core:2 pu:1", Some(&[7])).is_err());
    }
}

/// Never a panic: any text is a machine or an error.
#[cfg(test)]
mod arbitrary_text {
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_text_is_a_machine_or_an_error(text in "[ a-zA-Z0-9:()=\\[\\]]{0,40}") {
            if let Ok(topo) = super::super::Topology::from_hwloc_synthetic(&text, None) {
                prop_assert!(!topo.pus.is_empty());
            }
        }

        #[test]
        fn any_level_list_is_a_machine_or_an_error(
            levels in prop::collection::vec(
                ("(pack|numa|l3|l2d|l1|core|pu|Pu|die)", 0u32..20, prop::option::of("(size=[0-9]{1,3}(KiB|MB|kb|x)?)")),
                0..8,
            ),
        ) {
            let text: Vec<String> = levels
                .iter()
                .map(|(kind, arity, size)| format!("{kind}:{arity}{}", size.as_deref().map(|s| format!("({s})")).unwrap_or_default()))
                .collect();
            let _ = super::super::Topology::from_hwloc_synthetic(&text.join(" "), None);
        }
    }
}

/// The machine built here is the one hwloc builds, for every description the tests and docs
/// use and for random ones of the grammar.
#[cfg(all(test, feature = "hwloc"))]
mod against_hwloc {
    use std::path::PathBuf;

    use proptest::prelude::*;

    use super::super::{Topology, TopologySpec, hwloc};

    /// hwloc's build, finished as [`Topology::from_hwloc_synthetic`] finishes its own.
    fn hwloc_build(description: &str, allowed: Option<&[usize]>) -> Topology {
        let mut topo = hwloc::from_synthetic(description, allowed).unwrap_or_else(|e| panic!("hwloc: {e}"));
        topo.what_if = Some(TopologySpec::Synthetic(description.to_owned()).to_string());
        topo.fill_missing_caches(None);
        topo
    }

    fn same_as_hwloc(description: &str, allowed: Option<&[usize]>) {
        let own = Topology::from_hwloc_synthetic(description, allowed)
            .unwrap_or_else(|e| panic!("{description}: {e}"));
        assert_eq!(
            own,
            hwloc_build(description, allowed),
            "{description} over {allowed:?}"
        );
    }

    #[test]
    fn every_documented_and_tested_machine_is_hwlocs() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/topologies");
        let mut descriptions: Vec<String> = std::fs::read_dir(&dir)
            .expect("fixture directory")
            .map(|entry| entry.expect("entry").path())
            .filter(|path| path.extension().is_some_and(|e| e == "synthetic"))
            .map(|path| std::fs::read_to_string(path).expect("fixture").trim().to_owned())
            .collect();
        assert_eq!(descriptions.len(), 3, "the synthetic fixtures went missing");
        descriptions.extend(
            [
                // docs/CLI.md, README.md, `ntt topology --help`.
                "pack:2 l3:4(size=32MiB) l2:8(size=1MiB) core:1 pu:2",
                "pack:2 numa:2 l3:4(size=32MiB) l2:8(size=1MiB) l1d:1(size=32KiB) core:1 pu:2",
                // The tests': placement, what-ifs, the largest machine, the CLI's.
                "pack:2 numa:2 l3:2 l2:2 core:2 pu:2",
                "pack:2 l3:3 l2:1 core:5 pu:1",
                "pack:1 numa:3 l2:4 core:2 pu:2",
                "pack:3 core:4 pu:3",
                "pack:1 l3:2 l2:4 core:2 pu:2",
                "pack:2 l3:1(size=8MiB) l2:2(size=1MiB) core:1 pu:2",
                "pack:1 core:2 pu:1",
                "pack:2 core:4 pu:2",
                "pack:4 numa:2 l3:4(size=32MiB) l2:128(size=1MiB) l1d:1(size=48KiB) core:1 pu:2",
                "pack:4 core:1024 pu:2",
                // The grammar's corners: no package, core or NUMA level; NUMA lower down;
                // every unit and default size; other spellings.
                "pu:3",
                "core:3 pu:2",
                "pack:2 pu:3",
                "pack:2 l2:2 pu:2",
                "numa:2 pack:2 core:2 pu:1",
                "pack:2 l3:2 numa:2 l2:1 core:2 pu:1",
                "pack:1 l3:2(size=1000) l2:2(size=3kB) l1:1(size=5KiB) core:1 pu:2",
                "pack:1 l3:1(size=2MB) l2u:2(size=2mib) l1u:2(size=1GB) core:1 pu:1",
                "socket:1 numanode:1 l3d:1(size=1GiB) l2d:2 l1d:1 core:2 pu:1",
                "package:2 l3:1(size=1TB) l2:1(size=1TiB) core:1 pu:1",
                "PACK:2 NUMA:2 L3:1 Core:2 PU:2",
            ]
            .map(String::from),
        );
        for description in &descriptions {
            same_as_hwloc(description, None);
        }
        // Only some PUs allowed, as under `taskset`.
        let some: Vec<usize> = (0..64).filter(|p| p % 3 != 1).collect();
        same_as_hwloc("pack:2 numa:2 l3:2 l2:2 core:2 pu:2", Some(&some));
        same_as_hwloc(&descriptions[1], Some(&[2, 3, 4]));
        same_as_hwloc(
            &descriptions[2],
            Some(&(0..16).chain([300, 301]).collect::<Vec<_>>()),
        );
        same_as_hwloc("pack:2 l2:2 pu:2", Some(&[1, 2, 7]));
    }

    /// A description of the grammar: levels in order, each present or not, small arities.
    fn description() -> impl Strategy<Value = String> {
        let level = |name: &'static str| {
            prop::option::of(
                (1usize..4, prop::option::of(1u64..5000)).prop_map(move |(arity, size)| (name, arity, size)),
            )
        };
        (
            level("pack"),
            0usize..6,
            level("numa"),
            level("l3"),
            level("l2"),
            level("l1d"),
            level("core"),
            1usize..4,
        )
            .prop_map(|(pack, numa_at, numa, l3, l2, l1, core, pus)| {
                let mut levels: Vec<String> = Vec::new();
                let mut numa = numa.map(|(_, arity, _)| format!("numa:{arity}"));
                for (i, level) in [pack, l3, l2, l1].into_iter().enumerate() {
                    if i == numa_at {
                        levels.extend(numa.take());
                    }
                    if let Some((name, arity, size)) = level {
                        let size = if name.starts_with('l') {
                            size.map(|s| format!("(size={s}KiB)"))
                        } else {
                            None
                        };
                        levels.push(format!("{name}:{arity}{}", size.unwrap_or_default()));
                    }
                }
                levels.extend(numa);
                if let Some((_, arity, _)) = core {
                    levels.push(format!("core:{arity}"));
                }
                levels.push(format!("pu:{pus}"));
                levels.join(" ")
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn random_machines_are_hwlocs(description in description(), allowed in prop::collection::vec(0usize..300, 1..40)) {
            same_as_hwloc(&description, None);
            if Topology::from_hwloc_synthetic(&description, Some(&allowed)).is_ok() {
                same_as_hwloc(&description, Some(&allowed));
            }
        }
    }
}
