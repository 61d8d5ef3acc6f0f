//! Runs a [`Plan`]'s passes on the pool.
//!
//! ```text
//!  gathered pass (per group):  gather 2^g strided rows ─► scratch ─► g layers ─► scatter
//!  deep pass (per task):       sub-blocks in place (or message ─► scratch) ─► layers ─► sink
//! ```
//!
//! Passes are separated by the end of their run: a deep sub-block needs every group of the
//! gathered pass before it. A pass is a loop over its units (groups, deep tasks, sink blocks)
//! split on demand (`ThreadPool::try_for_each`); only a deep pass over an in-place
//! message is a graph, because its replica-0 tasks must wait for the tasks that read them.

use super::lane_major::{gather_lane_rows, prefetch_lane_rows};
use super::layers::{
    Direction, Kit, LayerSpan, Strided, forward_after_first_step, forward_first_step, forward_group, layers,
};
use super::rows::SharedRows;
use crate::plan::radix8_kernel::KernelsByDepth;
use crate::plan::{
    DeepPass, DeepSchedule, Gather, GatheredPass, MessageRead, Plan, Radix8Step, transpose_chunk_log_rows,
};
use crate::sink::GuardedSink;
use crate::twiddle::Twiddles;
use ntt_kernels::Backend;
use ntt_runtime::{RunError, TaskContext, ThreadPool};
use std::ops::Range;

/// Where the message is.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Message<'a> {
    /// Row-major in the first 1/2^r of the buffer.
    InPlace,
    Rows(&'a [u64]),
    Lanes(&'a [u64]),
}

/// One encode (or inverse) in progress.
pub(crate) struct Run<'a> {
    pub backend: Backend,
    pub twiddles: &'a Twiddles,
    pub plan: &'a Plan,
    pub dst: SharedRows,
    pub msg: Message<'a>,
    pub sink: Option<&'a GuardedSink<'a>>,
}

/// Runs `f` over `0..count` in pieces of `grain` units, split on demand: the worker that owns
/// a piece works from its front and an idle worker takes half of what is left, so a worker
/// slowed down by a busy neighbour keeps only the unit it is on (rather than a fixed quarter of
/// its share of the pass).
fn run_range(
    pool: &ThreadPool,
    count: usize,
    grain: usize,
    f: impl Fn(Range<usize>, &TaskContext<'_>) + Sync,
) -> Result<(), RunError> {
    pool.try_for_each(0..count, grain, f)
}

/// Rows per grain of the replicate pass: about 4096 words, so a grain's atomic is noise next
/// to its stores.
fn replicate_grain(lanes: usize) -> usize {
    (4096 / lanes.max(1)).max(1)
}

impl Run<'_> {
    /// About how long this encode takes on one thread, so a small one runs inline on the
    /// caller (`ThreadPool::with_work_estimate`): 5 µs per call (planning, twiddle walks, the
    /// runs' set-up), then per codeword word ~0.15 ns for each layer that computes (the
    /// message's: the layers above it only copy it into the replicas), 0.1 ns for writing it,
    /// and ~1 ns for BLAKE3 when rows are hashed. Fitted on 2^10-2^14-row commits of 1-24
    /// lanes (within 10 % of each inline time on an AMD Zen 5 guest); the pool scales it by
    /// what its inline runs take, so it is the model's shape, not its constants, that matters:
    /// the fixed term keeps the smallest commits from reading as cheaper than they are, and
    /// counting only computed layers keeps a high-rate encode from reading as dearer.
    pub(crate) fn work_estimate(&self) -> std::time::Duration {
        let shape = &self.plan.shape;
        let words = (shape.lanes() as u64) << shape.log_rows();
        let hash_ps = if self.sink.is_some() { 1_000 } else { 0 };
        let per_word_ps = 150 * u64::from(shape.log_message_rows()) + 100 + hash_ps;
        std::time::Duration::from_nanos(5_000 + words.saturating_mul(per_word_ps) / 1000)
    }

    /// The kernels, the domain's twiddles and the radix-8 kernels the plan chose for a pass's
    /// `steps`, as the layers take them.
    pub(super) fn kit(&self, steps: &[Radix8Step]) -> Kit<'_> {
        Kit {
            backend: self.backend,
            twiddles: self.twiddles,
            kernels: KernelsByDepth::of(steps, self.log_rows()),
        }
    }
    /// The deep layers (from the deep pass's first layer to the last) on sub-block `block`.
    pub(super) fn deep_span(&self, deep: &DeepPass, block: usize) -> LayerSpan {
        LayerSpan {
            width: self.lanes(),
            first: deep.first_layer,
            end: self.log_rows(),
            log_rows: self.log_rows(),
            block: block as u64,
        }
    }
    pub(super) fn lanes(&self) -> usize {
        self.plan.shape.lanes()
    }
    pub(super) fn log_rows(&self) -> u32 {
        self.plan.shape.log_rows()
    }
    pub(super) fn msg_log_rows(&self) -> u32 {
        self.plan.shape.log_message_rows()
    }

    /// Copies message rows `first_row ..` (as many as fit `out`) into `out`.
    ///
    /// # Safety
    /// For an in-place message, no task may write those rows of replica 0 meanwhile.
    unsafe fn read_message_rows(&self, first_row: usize, out: &mut [u64]) {
        let n = self.lanes();
        match self.msg {
            Message::Rows(m) => out.copy_from_slice(&m[first_row * n..first_row * n + out.len()]),
            Message::Lanes(m) => gather_lane_rows(
                self.backend,
                m,
                n,
                1 << self.msg_log_rows(),
                first_row,
                out.len() / n,
                out,
            ),
            // SAFETY: replica 0 holds the initialised message; not written meanwhile (caller).
            Message::InPlace => unsafe { self.dst.read(first_row * n, out) },
        }
    }

    /// Writes the 2^g rows of a group back: row i to buffer row `base + i·step`.
    ///
    /// # Safety
    /// Those rows must belong to this task.
    unsafe fn scatter(&self, group: &[u64], width: usize, base: usize, step: usize) {
        let n = self.lanes();
        for (i, row) in group.chunks_exact(width).enumerate() {
            // SAFETY: the group's rows are this task's (caller).
            unsafe {
                self.dst
                    .write_with(self.backend, (base + i * step) * n, row, self.plan.stream)
            };
        }
    }

    /// Runs every pass of the forward transform.
    /// Each pass is a `debug` span, so `NTT_LOG=debug` shows what every pass took.
    pub(crate) fn forward(&self, pool: &ThreadPool) -> Result<(), RunError> {
        let _span =
            tracing::debug_span!("forward", log_rows = self.log_rows(), lanes = self.lanes()).entered();
        if self.plan.transpose_first {
            tracing::debug_span!("transpose_pass").in_scope(|| self.transpose_message(pool))?;
            // The message is now in place, row-major, where the plan's passes read it.
            let in_place = Run {
                msg: Message::InPlace,
                ..*self
            };
            return in_place.passes(pool);
        }
        self.passes(pool)
    }

    /// The plan's passes, from the replication or the first gathered pass to the sink.
    fn passes(&self, pool: &ThreadPool) -> Result<(), RunError> {
        if self.plan.replicate_only {
            let _pass = tracing::debug_span!("replicate_pass").entered();
            self.replicate(pool)?;
        }
        for pass in &self.plan.gathered {
            let _pass = tracing::debug_span!(
                "gathered_pass",
                first_layer = pass.first_layer,
                end_layer = pass.end_layer(),
                groups = pass.groups
            )
            .entered();
            self.gathered(pool, pass)?;
        }
        if let Some(deep) = &self.plan.deep {
            let _pass = tracing::debug_span!("deep_pass", first_layer = deep.first_layer, tasks = deep.tasks)
                .entered();
            self.deep(pool, deep)?;
        }
        if !self.plan.sink.fused
            && let Some(sink) = self.sink
        {
            let _pass = tracing::debug_span!("sink_pass").entered();
            self.sink_blocks(pool, sink)?;
        }
        Ok(())
    }

    /// Transposes the lane-major message into the buffer's first rows (replica 0, where an
    /// in-place message lies), a chunk of rows per task ([`transpose_chunk_log_rows`]): each
    /// lane is read in runs of a chunk's rows, and each chunk's rows are written whole.
    fn transpose_message(&self, pool: &ThreadPool) -> Result<(), RunError> {
        let n = self.lanes();
        let log_chunk = transpose_chunk_log_rows(n, self.msg_log_rows());
        let chunk_rows = 1usize << log_chunk;
        let stream = self.plan.transpose_stream;
        run_range(pool, 1 << (self.msg_log_rows() - log_chunk), 1, |range, ctx| {
            ctx.with_scratch(chunk_rows * n, |rows| {
                for chunk in range {
                    let first_row = chunk * chunk_rows;
                    // SAFETY: a separate message, which no task writes.
                    unsafe { self.read_message_rows(first_row, rows) };
                    // SAFETY: each chunk's rows of replica 0 belong to this task alone, and no
                    // pass runs until the transpose has finished.
                    unsafe { self.dst.write_with(self.backend, first_row * n, rows, stream) };
                }
                if stream {
                    self.backend.stream_fence();
                }
            })
        })
    }

    /// r = log_rows: every codeword row is the single message row.
    fn replicate(&self, pool: &ThreadPool) -> Result<(), RunError> {
        let n = self.lanes();
        let mut row = vec![0u64; n];
        // SAFETY: no task runs yet; replica 0 holds the message when it is in place.
        unsafe { self.read_message_rows(0, &mut row) };
        let row = &row;
        run_range(pool, 1 << self.log_rows(), replicate_grain(n), |rows, _| {
            for r in rows {
                // SAFETY: each row belongs to exactly one chunk.
                unsafe { self.dst.write(r * n, row) };
            }
        })
    }

    /// A gathered pass: each group of rows is gathered, transformed through the pass's layers
    /// and scattered back, from the message (in every block) or from the previous pass's rows.
    fn gathered(&self, pool: &ThreadPool, pass: &GatheredPass) -> Result<(), RunError> {
        let group_words = (self.lanes() << pass.log_residues) << pass.log_group_rows;
        let from_message = pass.source.is_message();
        // A lane-major group is transposed into its own scratch first (the source of every
        // block's transform), the others are read straight from their rows: the plan says which.
        let lanes_message = pass.gather == Gather::Transposed;
        assert_eq!(
            lanes_message,
            from_message && matches!(self.msg, Message::Lanes(_)),
            "the plan's gather does not match the message"
        );
        let scratch_words = if lanes_message {
            2 * group_words
        } else {
            group_words
        };
        let kit = self.kit(&pass.radix8.forward);
        run_range(pool, pass.groups, 1, |range, ctx| {
            ctx.with_scratch(scratch_words, |scratch| {
                let (gathered, work) = scratch.split_at_mut(if lanes_message { group_words } else { 0 });
                let work = work.as_mut_ptr();
                for group in range {
                    if from_message {
                        self.gathered_message_group(pass, kit, gathered, work, group);
                    } else {
                        self.gathered_buffer_group(pass, kit, work, group);
                    }
                }
                if self.plan.stream {
                    self.backend.stream_fence();
                }
            })
        })
    }

    /// The layers of a gathered pass on every block, as the pass's first layer starts them.
    fn gathered_span(&self, pass: &GatheredPass) -> LayerSpan {
        LayerSpan {
            width: self.lanes() << pass.log_residues,
            first: pass.first_layer,
            end: pass.end_layer(),
            log_rows: self.log_rows(),
            block: 0,
        }
    }

    /// One residue group of the message, transformed in every block (each block is a replica
    /// of the message), block 0 last: with an in-place message, block 0 holds the rows this
    /// task still reads. `gathered` is this task's scratch for a lane-major group, `work` its
    /// work scratch.
    fn gathered_message_group(
        &self,
        pass: &GatheredPass,
        kit: Kit<'_>,
        gathered: &mut [u64],
        work: *mut u64,
        group: usize,
    ) {
        let n = self.lanes();
        let span = self.gathered_span(pass);
        let width = span.width;
        let step = 1usize << pass.log_step;
        let log_block_rows = self.log_rows() - pass.first_layer;
        let residue = group << pass.log_residues;
        let source = match self.msg {
            Message::Rows(m) => (m.as_ptr().wrapping_add(residue * n), step * n),
            Message::InPlace => (self.dst.ptr_at(residue * n).cast_const(), step * n),
            Message::Lanes(m) => {
                let msg_rows = 1 << self.msg_log_rows();
                for (i, row) in gathered.chunks_exact_mut(width).enumerate() {
                    let next = residue + (i + 1) * step;
                    prefetch_lane_rows(self.backend, m, n, msg_rows, next, width / n);
                    // SAFETY: a separate lane-major message: no task writes it.
                    unsafe { self.read_message_rows(residue + i * step, row) };
                }
                (gathered.as_ptr(), width)
            }
        };
        // Column tiles: the lanes of a group are independent, so a tile of the source is read
        // once and transformed for every block while in cache.
        let tile = pass.tile_columns;
        for column in (0..width).step_by(tile) {
            for block in (0..1usize << pass.first_layer).rev() {
                let at = ((block << log_block_rows) + residue) * n + column;
                // SAFETY: the source rows are the message's (read-only here; with an in-place
                // message replica 0's rows of this group, written only by this task, as block
                // 0, last for each tile) or this task's scratch; the group's rows in this block
                // belong to this task; `work` is this task's.
                unsafe {
                    forward_group(
                        kit,
                        Strided {
                            at: source.0.wrapping_add(column),
                            stride: source.1,
                        },
                        Strided {
                            at: self.dst.ptr_at(at),
                            stride: step * n,
                        },
                        work,
                        LayerSpan {
                            width: tile.min(width - column),
                            ..span.at_block(block as u64)
                        },
                        self.plan.stream,
                    )
                };
            }
        }
    }

    /// One group of the rows the previous pass wrote, transformed in place; `work` is this
    /// task's work scratch.
    fn gathered_buffer_group(&self, pass: &GatheredPass, kit: Kit<'_>, work: *mut u64, group: usize) {
        let n = self.lanes();
        let step = 1usize << pass.log_step;
        let log_block_rows = self.log_rows() - pass.first_layer;
        let groups_per_block = step >> pass.log_residues;
        let block = group / groups_per_block;
        let residue = (group % groups_per_block) << pass.log_residues;
        let rows = self.dst.ptr_at(((block << log_block_rows) + residue) * n);
        // SAFETY: written by the previous pass; this group's rows belong to this task alone
        // during this pass; `work` is this task's scratch.
        unsafe {
            forward_group(
                kit,
                Strided {
                    at: rows.cast_const(),
                    stride: step * n,
                },
                Strided {
                    at: rows,
                    stride: step * n,
                },
                work,
                self.gathered_span(pass).at_block(block as u64),
                self.plan.stream,
            )
        };
    }

    /// The deep pass, in the plan's schedule for the pool, or for the calling thread alone
    /// when the encode runs there (too small to hand off).
    fn deep(&self, pool: &ThreadPool, deep: &DeepPass) -> Result<(), RunError> {
        let schedule = if pool.workers_here() == 1 {
            deep.inline_schedule
        } else {
            deep.schedule
        };
        match schedule {
            DeepSchedule::BufferLoop => run_range(pool, deep.tasks, 1, |range, ctx| {
                range.for_each(|t| self.deep_in_place(ctx, deep, t))
            }),
            DeepSchedule::Split { pieces } => self.deep_split(pool, deep, pieces),
            DeepSchedule::MessageLoop { read } => {
                assert!(
                    !matches!(self.msg, Message::InPlace),
                    "the plan's schedule is for a separate message"
                );
                // A separate message: no task writes what another reads, so no edges.
                run_range(pool, deep.tasks, 1, |range, ctx| {
                    range.for_each(|t| self.deep_from_message(ctx, deep, read, t))
                })
            }
            DeepSchedule::ReadersThenReplica0 { read } => self.deep_readers_then_replica0(pool, deep, read),
            DeepSchedule::FirstStepGraph => self.deep_first_step_graph(pool, deep),
            DeepSchedule::TaskGraph => self.deep_task_graph(pool, deep),
        }
    }

    /// A deep task's rows (log2), their words, and the words of its inner scratch.
    fn deep_task_words(&self, deep: &DeepPass) -> (u32, usize, usize) {
        let n = self.lanes();
        let task_log_rows = deep.log_sub_rows + deep.log_subs_per_task;
        let inner_words = if deep.inner_log_group_rows > 0 {
            n << (deep.inner_log_group_rows + deep.inner_log_residues)
        } else {
            0
        };
        (task_log_rows, n << task_log_rows, inner_words)
    }

    /// Deep task `t`, in place on its rows of the buffer.
    fn deep_in_place(&self, ctx: &TaskContext<'_>, deep: &DeepPass, t: usize) {
        let (task_log_rows, task_words, inner_words) = self.deep_task_words(deep);
        // SAFETY: the task's rows are initialised (written by the previous pass, or the
        // in-place message) and belong to this task alone.
        let rows = unsafe { self.dst.slice_mut(t * task_words, task_words) };
        ctx.with_scratch(inner_words, |inner| {
            self.deep_task(deep, rows, t << task_log_rows, inner)
        });
    }

    /// Deep task `t`, reading the message: a task lies inside one replica and reads the rows at
    /// its offset in replica 0. With the message in place, a replica-0 task runs in place after
    /// every task that reads its rows.
    fn deep_from_message(&self, ctx: &TaskContext<'_>, deep: &DeepPass, read: MessageRead, t: usize) {
        let n = self.lanes();
        let (task_log_rows, task_words, inner_words) = self.deep_task_words(deep);
        let msg_mask = (1usize << self.msg_log_rows()) - 1;
        let first_row = t << task_log_rows;
        if read == MessageRead::ByFirstStep {
            if let Message::Lanes(_) = self.msg {
                // A lane-major message is gathered into scratch as rows first; the first
                // steps then read the scratch rows and write the codeword rows.
                ctx.with_scratch(task_words, |rows| {
                    // SAFETY: a separate message, which no task writes.
                    unsafe { self.read_message_rows(first_row & msg_mask, rows) };
                    let sub_words = n << deep.log_sub_rows;
                    // SAFETY: `rows` holds the task's rows, sub-block j at j·sub_words;
                    // the task's codeword rows are its own.
                    unsafe { self.first_steps(deep, first_row, |j, _| rows[j * sub_words..].as_ptr()) };
                });
            } else {
                // SAFETY: replica 0's rows at this offset are written only by the replica-0
                // task, which waits for this one; the task's rows are its own.
                unsafe { self.first_steps_from_message(deep, first_row) };
            }
            self.deep_task_after_first_steps(deep, first_row);
            return;
        }
        ctx.with_scratch(task_words + inner_words, |scratch| {
            let (rows, inner) = scratch.split_at_mut(task_words);
            // SAFETY: replica 0's rows at this offset are written only by the replica-0
            // task, which waits for this one.
            unsafe { self.read_message_rows(first_row & msg_mask, rows) };
            self.deep_task(deep, rows, first_row, inner);
            // SAFETY: the task's rows belong to this task alone.
            unsafe {
                self.dst
                    .write_with(self.backend, first_row * n, rows, self.plan.stream)
            };
            if self.plan.stream {
                self.backend.stream_fence();
            }
        });
    }

    /// The deep tasks of one replica.
    fn deep_tasks_per_replica(&self, deep: &DeepPass) -> usize {
        deep.tasks >> self.plan.shape.log_inv_rate()
    }

    /// Every reader first, then replica 0 in place. The split loops keep both phases balanced,
    /// and no graph (a node and an edge per task) is built.
    fn deep_readers_then_replica0(
        &self,
        pool: &ThreadPool,
        deep: &DeepPass,
        read: MessageRead,
    ) -> Result<(), RunError> {
        let tasks_per_replica = self.deep_tasks_per_replica(deep);
        run_range(pool, deep.tasks - tasks_per_replica, 1, |range, ctx| {
            range.for_each(|i| self.deep_from_message(ctx, deep, read, tasks_per_replica + i))
        })?;
        run_range(pool, tasks_per_replica, 1, |range, ctx| {
            range.for_each(|t| self.deep_in_place(ctx, deep, t))
        })
    }

    /// A replica-0 task overwrites message rows only its readers' first steps read: it waits
    /// for those steps, not for the whole of its readers.
    fn deep_first_step_graph(&self, pool: &ThreadPool, deep: &DeepPass) -> Result<(), RunError> {
        let tasks_per_replica = self.deep_tasks_per_replica(deep);
        let (task_log_rows, _, _) = self.deep_task_words(deep);
        pool.try_run(|g| {
            let replica0: Vec<_> = (0..tasks_per_replica)
                .map(|t| g.add(move |ctx| self.deep_in_place(ctx, deep, t)))
                .collect();
            for t in tasks_per_replica..deep.tasks {
                let first_row = t << task_log_rows;
                // SAFETY: replica 0's rows at this offset are written only by the
                // replica-0 task, which waits for this step; the task's rows are its own.
                let first = g.add(move |_| unsafe { self.first_steps_from_message(deep, first_row) });
                let rest = g.add(move |_| self.deep_task_after_first_steps(deep, first_row));
                g.depend(first, rest);
                g.depend(first, replica0[t % tasks_per_replica]);
            }
        })
    }

    /// A graph where a replica-0 task waits for the whole of every task that reads its rows
    /// (each reader copies its rows into scratch).
    fn deep_task_graph(&self, pool: &ThreadPool, deep: &DeepPass) -> Result<(), RunError> {
        let tasks_per_replica = self.deep_tasks_per_replica(deep);
        pool.try_run(|g| {
            let ids: Vec<_> = (0..deep.tasks)
                .map(|t| {
                    if t < tasks_per_replica {
                        g.add(move |ctx| self.deep_in_place(ctx, deep, t))
                    } else {
                        g.add(move |ctx| self.deep_from_message(ctx, deep, MessageRead::IntoScratch, t))
                    }
                })
                .collect();
            for (t, &reader) in ids.iter().enumerate().skip(tasks_per_replica) {
                g.depend(reader, ids[t % tasks_per_replica]);
            }
        })
    }

    /// Runs the deep layers on one task's rows (`rows` starts at codeword row `first_row`) and
    /// hands them to the sink.
    fn deep_task(&self, deep: &DeepPass, rows: &mut [u64], first_row: usize, inner: &mut [u64]) {
        let n = self.lanes();
        let kit = self.kit(&deep.radix8.forward);
        let sub_words = n << deep.log_sub_rows;
        for (j, sub) in rows.chunks_exact_mut(sub_words).enumerate() {
            let sub_index = (first_row >> deep.log_sub_rows) + j;
            if deep.inner_log_group_rows == 0 {
                layers(Direction::Forward, kit, sub, self.deep_span(deep, sub_index));
            } else {
                self.l3_sub_block(deep, sub, sub_index, inner);
            }
        }
        if deep.inner_log_group_rows == 0
            && let Some(sink) = self.sink
        {
            sink.hand_over(first_row, rows);
        }
    }

    /// The first step of each of a deep task's sub-blocks, read straight from a row-major
    /// message into the task's codeword rows (`first_row ..`), with no copy first;
    /// [`Self::deep_task_after_first_steps`] finishes them. Only where [`first_step_fits`].
    ///
    /// # Safety
    /// The message rows the task reads are not written meanwhile; the task's codeword rows are
    /// this task's alone until it finishes.
    unsafe fn first_steps_from_message(&self, deep: &DeepPass, first_row: usize) {
        // SAFETY: forwarded (the message rows inside one replica's worth of the message are
        // readable and not written meanwhile; they lie in another replica than the task's rows,
        // or in a separate slice).
        unsafe { self.first_steps(deep, first_row, |_, row| self.message_rows_at(row)) };
    }

    /// Where the message rows that codeword row `row`'s replica repeats start: in the separate
    /// row-major message, or in replica 0 of the buffer. A lane-major message has no such rows.
    pub(super) fn message_rows_at(&self, row: usize) -> *const u64 {
        let at = (row & ((1usize << self.msg_log_rows()) - 1)) * self.lanes();
        match self.msg {
            Message::Rows(m) => m[at..].as_ptr(),
            Message::InPlace => self.dst.ptr_at(at).cast_const(),
            Message::Lanes(_) => unreachable!("a lane-major message is gathered into scratch"),
        }
    }

    /// The first step of each of a deep task's sub-blocks, sub-block j (codeword row `row`)
    /// read at `source(j, row)` and written to the task's codeword rows.
    ///
    /// # Safety
    /// Each source holds the sub-block's rows, readable and not written meanwhile, overlapping
    /// no codeword row of the task; the task's codeword rows are this task's alone.
    unsafe fn first_steps(
        &self,
        deep: &DeepPass,
        first_row: usize,
        source: impl Fn(usize, usize) -> *const u64,
    ) {
        let n = self.lanes();
        let kit = self.kit(&deep.radix8.forward);
        let sub_rows = 1usize << deep.log_sub_rows;
        for j in 0..1usize << deep.log_subs_per_task {
            let row = first_row + j * sub_rows;
            // SAFETY: the source rows are readable and apart from the codeword rows, which are
            // this task's (caller).
            unsafe {
                forward_first_step(
                    kit,
                    source(j, row),
                    self.dst.ptr_at(row * n),
                    self.deep_span(deep, row >> deep.log_sub_rows),
                )
            };
        }
    }

    /// The rest of a deep task whose first steps [`Self::first_steps_from_message`] ran: the
    /// remaining layers of each sub-block, then the rows to the sink.
    fn deep_task_after_first_steps(&self, deep: &DeepPass, first_row: usize) {
        let n = self.lanes();
        let kit = self.kit(&deep.radix8.forward);
        let sub_words = n << deep.log_sub_rows;
        let task_words = sub_words << deep.log_subs_per_task;
        // SAFETY: the first steps wrote every row of the task, and they are this task's alone.
        let rows = unsafe { self.dst.slice_mut(first_row * n, task_words) };
        for (j, sub) in rows.chunks_exact_mut(sub_words).enumerate() {
            let sub_index = (first_row >> deep.log_sub_rows) + j;
            forward_after_first_step(kit, sub, self.deep_span(deep, sub_index));
        }
        if let Some(sink) = self.sink {
            sink.hand_over(first_row, rows);
        }
    }

    /// An L3-sized sub-block: its first layers as in-cache gathered groups, then L2-sized pieces
    /// that finish their rows and hand them to the sink while in L2.
    fn l3_sub_block(&self, deep: &DeepPass, sub: &mut [u64], sub_index: usize, group: &mut [u64]) {
        let n = self.lanes();
        let kit = self.kit(&deep.radix8.forward);
        let log_d = self.log_rows();
        let g = deep.inner_log_group_rows;
        let width = n << deep.inner_log_residues;
        let log_piece = deep.log_piece_rows();
        let step = 1usize << log_piece;
        let (first, mid) = (deep.first_layer, deep.first_layer + g);
        // The in-cache gathered step's layers on the residue groups, then the pieces' layers.
        let group_span = LayerSpan {
            width,
            first,
            end: mid,
            log_rows: log_d,
            block: sub_index as u64,
        };
        let piece_span = LayerSpan {
            width: n,
            first: mid,
            end: log_d,
            log_rows: log_d,
            block: 0,
        };
        for residue in (0..step).step_by(1 << deep.inner_log_residues) {
            for (i, row) in group.chunks_exact_mut(width).enumerate() {
                let at = (residue + i * step) * n;
                row.copy_from_slice(&sub[at..at + width]);
            }
            layers(Direction::Forward, kit, group, group_span);
            for (i, row) in group.chunks_exact(width).enumerate() {
                let at = (residue + i * step) * n;
                sub[at..at + width].copy_from_slice(row);
            }
        }
        let first_row = sub_index << deep.log_sub_rows;
        for (p, piece) in sub.chunks_exact_mut(n << log_piece).enumerate() {
            let piece_index = (sub_index << g) + p;
            layers(
                Direction::Forward,
                kit,
                piece,
                piece_span.at_block(piece_index as u64),
            );
            if let Some(sink) = self.sink {
                sink.hand_over(first_row + (p << log_piece), piece);
            }
        }
    }

    /// Hands the finished buffer to the sink in blocks (when no deep task could).
    fn sink_blocks(&self, pool: &ThreadPool, sink: &GuardedSink<'_>) -> Result<(), RunError> {
        let n = self.lanes();
        let log_block = self.plan.sink.log_block_rows;
        let block_words = n << log_block;
        run_range(pool, 1 << (self.log_rows() - log_block), 1, |range, _| {
            for b in range {
                // SAFETY: every pass has finished; nothing writes the buffer any more.
                let rows = unsafe { self.dst.slice(b * block_words, block_words) };
                sink.hand_over(b << log_block, rows);
            }
        })
    }

    /// The inverse transform with the plan's geometry in reverse: deep pass first, then the
    /// gathered passes from last to first. Every source is the buffer itself.
    pub(crate) fn inverse(&self, pool: &ThreadPool) -> Result<(), RunError> {
        let n = self.lanes();
        let log_d = self.log_rows();
        if let Some(deep) = &self.plan.deep {
            let sub_words = n << deep.log_sub_rows;
            let kit = self.kit(&deep.radix8.inverse);
            run_range(pool, 1 << deep.first_layer, 1, |range, _| {
                for s in range {
                    // SAFETY: initialised by the caller; sub-block `s` is this task's alone.
                    let sub = unsafe { self.dst.slice_mut(s * sub_words, sub_words) };
                    layers(Direction::Inverse, kit, sub, self.deep_span(deep, s));
                }
            })?;
        }
        for pass in self.plan.gathered.iter().rev() {
            let (first, end) = (pass.first_layer, pass.end_layer());
            let width = n << pass.log_residues;
            let group_words = width << pass.log_group_rows;
            let step = 1usize << pass.log_step;
            let log_block_rows = log_d - first;
            let groups_per_block = step >> pass.log_residues;
            let groups = groups_per_block << first;
            let span = LayerSpan {
                width,
                first,
                end,
                log_rows: log_d,
                block: 0,
            };
            let kit = self.kit(&pass.radix8.inverse);
            run_range(pool, groups, 1, |range, ctx| {
                ctx.with_scratch(group_words, |buf| {
                    for group in range {
                        let block = group / groups_per_block;
                        let base =
                            (block << log_block_rows) + ((group % groups_per_block) << pass.log_residues);
                        for (i, row) in buf.chunks_exact_mut(width).enumerate() {
                            // SAFETY: initialised; this group's rows are this task's alone.
                            unsafe { self.dst.read((base + i * step) * n, row) };
                        }
                        layers(Direction::Inverse, kit, buf, span.at_block(block as u64));
                        // SAFETY: as above.
                        unsafe { self.scatter(buf, width, base, step) };
                    }
                    if self.plan.stream {
                        self.backend.stream_fence();
                    }
                })
            })?;
        }
        Ok(())
    }
}
