//! Rules: which cache the deep pass is sized to, how many sweeps the gathered passes take, and
//! where their layers go.

use super::budget::Units;
use super::{DeepBudget, MIN_SPLIT_LOG_ROWS, PARALLEL_FLOOR_LOG_ROWS, PlanConfig, ceil_log2};

/// Layers `first .. deep_start` split into gathered passes of `split[i]` layers each, and the
/// deep pass from `deep_start`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Placement {
    pub deep_start: u32,
    pub split: Vec<u32>,
}

/// Rule (deep budget): an L3-sized deep sub-block pays for itself only when the buffer lives in
/// DRAM (a buffer inside the LLC is swept at cache speed either way) and it saves a whole
/// gathered sweep of the `layers` that run; it keeps one gathered pass, which reads the message,
/// so the L3 sub-blocks never stage the message in scratch.
pub(crate) fn deep_budget(
    layers: u32,
    codeword_bytes: usize,
    units: &Units,
    config: &PlanConfig,
) -> DeepBudget {
    let gathered_passes = |deep_fit: u32| layers.saturating_sub(deep_fit).div_ceil(units.log_fit_l2);
    let l3_saves_a_sweep = units.log_fit_l3 > units.log_fit_l2
        && codeword_bytes > units.llc_bytes
        && layers > units.log_fit_l3
        && gathered_passes(units.log_fit_l3) < gathered_passes(units.log_fit_l2);
    config.deep.unwrap_or(if l3_saves_a_sweep {
        DeepBudget::L3
    } else {
        DeepBudget::L2
    })
}

/// Rule (sweeps first): the earliest layer the deep pass may start at. Its sub-blocks hold at
/// most 2^deep_fit rows; from 2^12 rows there are at least as many deep sub-blocks as workers
/// (never cut below 2^8 rows); layers below `start` are copies.
pub(crate) fn min_deep_start(log_rows: u32, start: u32, deep_fit: u32, workers: usize) -> u32 {
    let parallel = if log_rows >= PARALLEL_FLOOR_LOG_ROWS {
        ceil_log2(workers).min(log_rows - MIN_SPLIT_LOG_ROWS)
    } else {
        0
    };
    log_rows
        .saturating_sub(deep_fit)
        .max(parallel)
        .max(start)
        .min(log_rows)
}

/// Splits `layers` into `parts` passes of 1..=`cap` layers each, minimising the radix steps
/// Σ ⌈g/3⌉ (ties: earlier passes larger). `None` when it cannot be done.
pub(crate) fn split_layers(layers: u32, parts: u32, cap: u32) -> Option<(u32, Vec<u32>)> {
    if parts == 0 {
        return (layers == 0).then(|| (0, Vec::new()));
    }
    if layers < parts || layers > parts * cap {
        return None;
    }
    let mut best: Option<(u32, Vec<u32>)> = None;
    for g in (1..=cap.min(layers - (parts - 1))).rev() {
        if let Some((cost, rest)) = split_layers(layers - g, parts - 1, cap) {
            let cost = cost + g.div_ceil(3);
            if best.as_ref().is_none_or(|b| cost < b.0) {
                let mut split = vec![g];
                split.extend(rest);
                best = Some((cost, split));
            }
        }
    }
    best
}

/// Rule (layer placement): as few gathered passes as the L2 unit allows (each is a sweep; or
/// `forced_passes`, within one per layer), from `start` to the deep start; the deep pass starts as early as its sub-blocks allow
/// (`min_deep`), later only as far as it takes to give every gathered pass a full radix-8 step
/// (3 layers or more). Within the passes, the layers are split with as many radix-8 steps as
/// [`split_layers`] finds.
///
/// The deep pass runs on contiguous sub-blocks in cache, the gathered passes on strided rows
/// that stream from memory: a layer costs least in the deep pass, so it takes every layer its
/// sub-blocks hold. Measured on a 2-vCPU Intel Xeon guest with the L2 unit set to 1 MiB, 2^19
/// rows of 64 lanes: gathered 7 + deep 11 layers took 0.42 ns per lane-butterfly of CPU time,
/// 9 + 9 (one radix step fewer, sub-blocks of 2^9 rows) 0.45; an AMD Zen 5 guest's tuning
/// found the earlier deep start 1.6× as fast for a lane-major message. A gathered pass of 1 or 2
/// layers still streams the whole buffer, so moving a layer or two off the deep pass to give it
/// a full radix-8 step costs nothing.
pub(crate) fn place_layers(
    start: u32,
    log_rows: u32,
    min_deep: u32,
    log_fit_l2: u32,
    forced_passes: Option<u32>,
) -> Placement {
    let layers = min_deep - start;
    let passes = layers
        .div_ceil(log_fit_l2)
        .max(forced_passes.unwrap_or(0).min(layers));
    if passes == 0 {
        // No gathered pass needed.
        return Placement {
            deep_start: min_deep,
            split: Vec::new(),
        };
    }
    let last = (start + passes * log_fit_l2).min(log_rows - 1).max(min_deep);
    let split_at = |deep_start: u32| split_layers(deep_start - start, passes, log_fit_l2).map(|(_, s)| s);
    let full_steps = |split: &[u32]| split.iter().all(|&g| g >= 3);
    let placed = (min_deep..=last)
        .filter_map(|deep_start| split_at(deep_start).map(|split| Placement { deep_start, split }))
        .find(|p| full_steps(&p.split));
    placed.unwrap_or_else(|| Placement {
        deep_start: min_deep,
        split: split_at(min_deep).expect("the earliest deep start splits into the passes it needs"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_minimise_radix_steps() {
        // 12 + 6 and 9 + 9 both take 6 radix steps (7 + 11 takes 7); the earlier pass larger.
        assert_eq!(split_layers(18, 2, 12), Some((6, vec![12, 6])));
        assert_eq!(split_layers(0, 0, 5), Some((0, vec![])));
        assert_eq!(split_layers(3, 0, 5), None);
        assert_eq!(split_layers(25, 2, 12), None, "more layers than two passes hold");
        assert_eq!(
            split_layers(4, 2, 12),
            Some((2, vec![3, 1])),
            "ties: earlier passes larger"
        );
    }

    #[test]
    fn deep_start_leaves_room_for_every_worker() {
        // 2^20 rows, 2^12-row sub-blocks: layer 8; 1024 workers push it to 10, but no sub-block
        // goes below 2^8 rows (layer 12 at most).
        assert_eq!(min_deep_start(20, 1, 12, 1), 8);
        assert_eq!(min_deep_start(20, 1, 12, 1024), 10);
        assert_eq!(min_deep_start(20, 1, 4, 1 << 20), 16);
        // Below 2^12 rows no split for parallelism; never before the copies end.
        assert_eq!(min_deep_start(11, 3, 12, 64), 3);
        assert_eq!(min_deep_start(5, 2, 1, 1), 4);
    }

    #[test]
    fn placement_prefers_a_full_radix_step_in_the_gathered_pass() {
        // 2^15 rows of 64 lanes, r = 1, 2 MiB L2 (2^12 rows): 3 + 11 rather than 2 + 12.
        let p = place_layers(1, 15, 3, 12, None);
        assert_eq!(
            p,
            Placement {
                deep_start: 4,
                split: vec![3]
            }
        );
        // 18 layers before a 2^12-row deep pass need two sweeps: 9 + 9.
        let p = place_layers(0, 30, 18, 12, None);
        assert_eq!((p.split.len(), p.split.iter().sum::<u32>()), (2, p.deep_start));
        assert!(p.split.iter().all(|&g| g >= 3), "{p:?}");
        assert_eq!(p.deep_start, 18, "the deep pass as early as it can");
    }

    #[test]
    fn forced_passes_split_the_layers_further_within_one_per_layer() {
        // 7 layers to gather: one pass by the L2 unit; three forced take a full radix-8 step
        // each, so the deep pass gives up two layers (3 + 3 + 3); never more passes than the
        // 7 layers.
        assert_eq!(place_layers(1, 19, 8, 11, Some(1)).split, vec![7]);
        assert_eq!(
            place_layers(1, 19, 8, 11, Some(3)),
            Placement {
                deep_start: 10,
                split: vec![3, 3, 3]
            }
        );
        assert_eq!(place_layers(1, 19, 8, 11, Some(50)).split, vec![1; 7]);
        assert!(
            place_layers(2, 10, 2, 12, Some(2)).split.is_empty(),
            "nothing to gather"
        );
    }

    #[test]
    fn the_deep_pass_starts_as_early_as_its_sub_blocks_allow() {
        // 2^19 rows, r = 1, 1 MiB L2 (2^11 rows): 7 + 11, not 9 + 9 (one radix step fewer).
        assert_eq!(
            place_layers(1, 19, 8, 11, None),
            Placement {
                deep_start: 8,
                split: vec![7]
            }
        );
        // A lone layer to gather takes the full step from the deep pass; none is possible when
        // the deep pass would be left without a layer.
        assert_eq!(place_layers(1, 14, 2, 12, None).split, vec![3]);
        assert_eq!(
            place_layers(1, 3, 2, 1, None),
            Placement {
                deep_start: 2,
                split: vec![1]
            }
        );
        // Nothing to gather: the deep pass starts at once.
        assert_eq!(
            place_layers(2, 10, 2, 12, None),
            Placement {
                deep_start: 2,
                split: vec![]
            }
        );
    }

    #[test]
    fn l3_deep_only_when_it_saves_a_sweep_of_a_dram_buffer() {
        let units = Units {
            l2_bytes: 128 << 10,
            l3_bytes: 4 << 20,
            llc_bytes: 8 << 20,
            log_fit_l2: 8,
            log_fit_l3: 13,
        };
        let cfg = PlanConfig::default();
        // 18 layers: L2 deep needs 2 gathered passes, L3 deep one.
        assert_eq!(deep_budget(18, 64 << 20, &units, &cfg), DeepBudget::L3);
        assert_eq!(
            deep_budget(18, 8 << 20, &units, &cfg),
            DeepBudget::L2,
            "fits the LLC"
        );
        assert_eq!(
            deep_budget(12, 64 << 20, &units, &cfg),
            DeepBudget::L2,
            "one L3 sub-block holds every layer"
        );
        let forced = PlanConfig {
            deep: Some(DeepBudget::L3),
            ..PlanConfig::default()
        };
        assert_eq!(deep_budget(12, 1, &units, &forced), DeepBudget::L3);
    }
}
