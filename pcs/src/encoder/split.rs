//! A deep pass of few, large tasks, split into graph nodes so that every worker has work.
//!
//! A deep task that reads the message runs its sub-block's first step from the message into
//! its codeword rows, then the remaining layers of each of the step's segments (independent
//! blocks). When a pass has fewer tasks than twice the workers (a 2^13-row codeword at rate
//! 1/2 is two tasks; in place, one of them must wait for the other's first step), each task
//! becomes nodes instead:
//!
//! ```text
//!   first-step pieces (column ranges of every segment) ─► segments ─► sink (the task's rows)
//! ```
//!
//! With the message in place, the replica-0 task's piece p overwrites the message words that
//! piece p of every reader reads, so it waits for those pieces only.

use super::exec::{Message, Run};
use super::layers::{forward_first_step_columns, forward_segment};
use crate::plan::DeepPass;
use crate::plan::steps::first_step_segment_words;
use ntt_runtime::{RunError, ThreadPool};

impl Run<'_> {
    /// The deep pass as a graph of first-step pieces (`pieces` per task), segments and sink
    /// nodes (see the module documentation). Only where the plan's schedule says so
    /// ([`DeepSchedule::Split`](crate::plan::DeepSchedule::Split)).
    pub(super) fn deep_split(
        &self,
        pool: &ThreadPool,
        deep: &DeepPass,
        pieces: usize,
    ) -> Result<(), RunError> {
        let n = self.lanes();
        let (first, end) = (deep.first_layer, self.log_rows());
        let sub_rows = 1usize << deep.log_sub_rows;
        let sub_words = n << deep.log_sub_rows;
        let segment = first_step_segment_words(n, first, end);
        let segments = sub_words / segment;
        let kit = self.kit(&deep.radix8.forward);
        // Piece boundaries on whole vectors (8 words).
        let bound = |p: usize| {
            if p == pieces {
                segment
            } else {
                (segment * p / pieces) & !7
            }
        };
        let tasks_per_replica = deep.tasks >> self.plan.shape.log_inv_rate();
        let in_place = matches!(self.msg, Message::InPlace);
        pool.try_run(|g| {
            let mut task_pieces = Vec::with_capacity(deep.tasks);
            for t in 0..deep.tasks {
                let row = t * sub_rows;
                let span = self.deep_span(deep, t);
                let piece_ids: Vec<_> = (0..pieces)
                    .map(|p| {
                        let columns = bound(p)..bound(p + 1);
                        g.add(move |_| {
                            // SAFETY: the piece's columns of the task's sub-block: read from the
                            // message (not written meanwhile: a replica-0 piece waits for the
                            // readers' pieces of the same columns) or in place, and written
                            // into the task's rows, whose columns no other node touches now.
                            unsafe {
                                forward_first_step_columns(
                                    kit,
                                    self.message_rows_at(row),
                                    self.dst.ptr_at(row * n),
                                    span,
                                    columns,
                                )
                            }
                        })
                    })
                    .collect();
                let segment_ids: Vec<_> = (0..segments)
                    .map(|c| {
                        g.add(move |_| {
                            // SAFETY: every piece of the first step has written this segment,
                            // and only this node touches it until the sink node.
                            let words = unsafe { self.dst.slice_mut(row * n + c * segment, segment) };
                            forward_segment(kit, words, span, c);
                        })
                    })
                    .collect();
                for &p in &piece_ids {
                    for &c in &segment_ids {
                        g.depend(p, c);
                    }
                }
                if let Some(sink) = self.sink {
                    let absorb = g.add(move |_| {
                        // SAFETY: every segment node of the task has finished; nothing writes
                        // these rows any more.
                        sink.hand_over(row, unsafe { self.dst.slice(row * n, sub_words) });
                    });
                    for &c in &segment_ids {
                        g.depend(c, absorb);
                    }
                }
                task_pieces.push(piece_ids);
            }
            if in_place {
                for t in tasks_per_replica..deep.tasks {
                    let writer = &task_pieces[t % tasks_per_replica];
                    for (&reads, &writes) in task_pieces[t].iter().zip(writer) {
                        g.depend(reads, writes);
                    }
                }
            }
        })
    }
}
