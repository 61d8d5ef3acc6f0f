//! Rules: the deep pass (its sub-blocks, task size and in-cache inner step) and how finished rows
//! reach the sink.

use super::budget::Units;
use super::radix8_kernel::{Radix8Steps, contiguous_steps};
use super::schedule::{Context, DeepSchedule, deep_schedule};
use super::{DeepBudget, DeepPass, MAX_LOG_RESIDUES, MIN_TASK_LOG_ROWS, SinkPlan, Source, ceil_log2};
use ntt_kernels::BackendKind;

/// Rule (deep-task size): a deep task takes enough adjacent sub-blocks of 2^log_sub rows for
/// 2^[`MIN_TASK_LOG_ROWS`] rows, so the sink receives blocks worth hashing, within the
/// 2^max_log_subs sub-blocks it may span; as a log.
pub(crate) fn task_log_subs(log_sub: u32, max_log_subs: u32) -> u32 {
    MIN_TASK_LOG_ROWS.saturating_sub(log_sub).min(max_log_subs)
}

/// The deep pass from layer `deep_start` of a 2^log_rows-row codeword of `lanes`-word rows
/// (layers below `start` are copies), reading `source`; `None` when no layer is left. Its
/// geometry only: [`scheduled`] adds how it runs.
///
/// A task that reads the message stays inside one replica. A sub-block larger than the L2 unit
/// (an L3 budget) first runs its top layers as an in-cache gathered step of as many adjacent
/// residues as the L2 unit holds, then L2-sized pieces.
pub(crate) fn deep_pass(
    (lanes, log_rows, start): (usize, u32, u32),
    deep_start: u32,
    source: Source,
    units: &Units,
) -> Option<DeepPass> {
    if deep_start >= log_rows {
        return None;
    }
    let log_sub = log_rows - deep_start;
    let max_log_subs = if source.is_message() {
        deep_start - start
    } else {
        deep_start
    };
    let log_subs = task_log_subs(log_sub, max_log_subs);
    let inner_g = log_sub.saturating_sub(units.log_fit_l2);
    let inner_log_r = if inner_g > 0 {
        units
            .residues_that_fit(lanes, inner_g)
            .min(MAX_LOG_RESIDUES)
            .min(log_sub - inner_g)
    } else {
        0
    };
    Some(DeepPass {
        first_layer: deep_start,
        log_sub_rows: log_sub,
        log_subs_per_task: log_subs,
        tasks: 1usize << (deep_start - log_subs),
        budget: if inner_g > 0 {
            DeepBudget::L3
        } else {
            DeepBudget::L2
        },
        inner_log_group_rows: inner_g,
        inner_log_residues: inner_log_r,
        sub_bytes: (lanes << log_sub) * 8,
        source,
        schedule: DeepSchedule::BufferLoop,
        inline_schedule: DeepSchedule::BufferLoop,
        radix8: Radix8Steps::default(),
    })
}

/// The deep pass as it runs: its schedule on `workers` workers and on the calling thread alone
/// (rule: `schedule`: `deep_schedule`), and the kernel of each radix-8 step with `backend`'s
/// kernels (rule: `radix8_kernel`: `radix8_kernel`).
pub(crate) fn scheduled(mut deep: DeepPass, cx: &Context, workers: usize, backend: BackendKind) -> DeepPass {
    let (n, first, end) = (cx.lanes, deep.first_layer, cx.log_rows);
    deep.schedule = deep_schedule(&deep, cx, workers);
    deep.inline_schedule = deep_schedule(&deep, cx, 1);
    let forward = if deep.inner_log_group_rows > 0 {
        let mid = first + deep.inner_log_group_rows;
        let mut steps = contiguous_steps(backend, n << deep.inner_log_residues, first, mid);
        steps.extend(contiguous_steps(backend, n, mid, end));
        steps
    } else {
        contiguous_steps(backend, n, first, end)
    };
    deep.radix8 = Radix8Steps {
        forward,
        inverse: contiguous_steps(backend, n, first, end),
    };
    deep
}

/// Rule (sink): the deep tasks hand their rows over while in cache (an L3 sub-block piece by
/// piece); without a deep pass, a last sweep reads the buffer back in about four blocks per
/// worker.
pub(crate) fn sink_plan(deep: Option<&DeepPass>, log_rows: u32, workers: usize) -> SinkPlan {
    match deep {
        Some(d) if d.inner_log_group_rows > 0 => SinkPlan {
            log_block_rows: d.log_piece_rows(),
            fused: true,
        },
        Some(d) => SinkPlan {
            log_block_rows: d.log_sub_rows + d.log_subs_per_task,
            fused: true,
        },
        None => SinkPlan {
            log_block_rows: log_rows - ceil_log2(4 * workers).min(log_rows),
            fused: false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::budget::test_units as units;

    #[test]
    fn tasks_are_worth_hashing() {
        assert_eq!(task_log_subs(2, 10), MIN_TASK_LOG_ROWS - 2);
        assert_eq!(task_log_subs(2, 1), 1, "within the replica");
        assert_eq!(task_log_subs(11, 10), 0);
    }

    #[test]
    fn l2_and_l3_sub_blocks() {
        let u = units();
        let l2 = deep_pass((64, 20, 1), 9, Source::Buffer, &u).expect("layers left");
        assert_eq!(
            (l2.log_sub_rows, l2.budget, l2.tasks),
            (11, DeepBudget::L2, 1 << 9)
        );
        let l3 = deep_pass((64, 20, 1), 6, Source::Buffer, &u).expect("layers left");
        // 2^14-row sub-blocks: 3 inner layers of 2^8 residues (capped at 64), then 2^11 pieces.
        assert_eq!(
            (l3.budget, l3.inner_log_group_rows, l3.inner_log_residues),
            (DeepBudget::L3, 3, 6)
        );
        assert_eq!(l3.log_piece_rows(), 11);
        assert_eq!(deep_pass((64, 20, 1), 20, Source::Buffer, &u), None);
        // A message-fed task stays in its replica: deep start 2 after r = 1 leaves 2^1 subs.
        let small = deep_pass((64, 4, 1), 2, Source::MessageRows, &u).expect("layers left");
        assert_eq!(small.log_subs_per_task, 1);
    }

    #[test]
    fn sink_blocks_follow_the_deep_pass() {
        let u = units();
        let l3 = deep_pass((64, 20, 1), 6, Source::Buffer, &u);
        assert_eq!(
            sink_plan(l3.as_ref(), 20, 1),
            SinkPlan {
                log_block_rows: 11,
                fused: true
            }
        );
        let l2 = deep_pass((64, 20, 1), 9, Source::Buffer, &u);
        assert_eq!(
            sink_plan(l2.as_ref(), 20, 1),
            SinkPlan {
                log_block_rows: 11,
                fused: true
            }
        );
        assert_eq!(
            sink_plan(None, 20, 2),
            SinkPlan {
                log_block_rows: 17,
                fused: false
            }
        );
    }
}
