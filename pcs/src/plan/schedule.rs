//! Rule (deep schedule): how the deep pass's tasks are run on the pool, as loops or as a task
//! graph, and how a task that reads the message gets its rows.

use super::steps::{exceeds_l1, first_step_fits, first_step_segment_words};
use super::{DeepPass, Source};
use crate::shape::MessageLayout;
use core::fmt;
use serde::{Deserialize, Serialize};

/// Above this many deep tasks per worker, an in-place message's deep pass runs as two loops
/// (readers, then replica 0) rather than as a graph: the barrier between them costs less than a
/// graph node and edge per task.
const GRAPH_TASKS_PER_WORKER: usize = 8;
/// A deep pass with fewer tasks than this many per worker runs split.
const SPLIT_BELOW_TASKS_PER_WORKER: usize = 2;
/// First-step pieces per worker, per task, of a split deep pass.
const PIECES_PER_WORKER: usize = 2;
/// Words per piece of a split deep pass at least (a piece's columns are whole vectors and worth
/// a node).
const MIN_PIECE_WORDS: usize = 512;

/// How a deep task that reads the message gets its rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageRead {
    /// The first step loads the message rows (a lane-major message is transposed into scratch
    /// rows first) and writes the task's codeword rows: the rows are never copied as they are.
    ByFirstStep,
    /// The rows are copied into scratch, every layer runs there, and the finished rows are
    /// written to the codeword (non-temporal stores, the L3 inner step, or sub-blocks too small
    /// for a strided first step).
    IntoScratch,
}

/// How the deep pass's tasks run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeepSchedule {
    /// A loop over the tasks, each in place on rows an earlier pass wrote.
    BufferLoop,
    /// A loop over the tasks, each reading a separate message (no task writes what another
    /// reads).
    MessageLoop {
        /// How a task reads the message.
        read: MessageRead,
    },
    /// The message is in place (replica 0): a loop over the tasks of the other replicas, which
    /// read it, then a loop over replica 0's tasks, in place. Many tasks, or one worker: the
    /// barrier costs less than a graph node and edge per task.
    ReadersThenReplica0 {
        /// How a reader task reads the message.
        read: MessageRead,
    },
    /// The message is in place: a graph where each reader's first step is a node, and a
    /// replica-0 task waits only for the first steps that read its rows.
    FirstStepGraph,
    /// The message is in place: a graph where a replica-0 task waits for the whole of every
    /// task that reads its rows.
    TaskGraph,
    /// Fewer tasks than workers can share (one sub-block each, larger than L1, read from a
    /// row-major message): each task becomes nodes, first-step pieces (column ranges) then its
    /// segments then the sink, so that every worker has work.
    Split {
        /// First-step pieces per task.
        pieces: usize,
    },
}

impl fmt::Display for DeepSchedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let read = |r: &MessageRead| match r {
            MessageRead::ByFirstStep => "",
            MessageRead::IntoScratch => ",copy",
        };
        match self {
            Self::BufferLoop => f.write_str("loop"),
            Self::MessageLoop { read: r } => write!(f, "loop{}", read(r)),
            Self::ReadersThenReplica0 { read: r } => write!(f, "readers-then-replica0{}", read(r)),
            Self::FirstStepGraph => f.write_str("graph-first-steps"),
            Self::TaskGraph => f.write_str("graph"),
            Self::Split { pieces } => write!(f, "split×{pieces}"),
        }
    }
}

/// What the deep schedule depends on besides the pass.
pub(crate) struct Context {
    /// Words per row.
    pub lanes: usize,
    /// Log of the codeword's rows.
    pub log_rows: u32,
    /// `None`: the message is in place.
    pub layout: Option<MessageLayout>,
    /// Non-temporal stores.
    pub stream: bool,
}

/// Rule (deep schedule): how `deep`'s tasks run on `workers` workers (1: an encode small enough
/// to run on the calling thread alone).
pub(crate) fn deep_schedule(deep: &DeepPass, cx: &Context, workers: usize) -> DeepSchedule {
    let (n, first, end) = (cx.lanes, deep.first_layer, cx.log_rows);
    // A task's first step reads the message itself, unless the rows must go through scratch.
    let by_first_step = !cx.stream && deep.inner_log_group_rows == 0 && first_step_fits(n, first, end);
    let read = if by_first_step {
        MessageRead::ByFirstStep
    } else {
        MessageRead::IntoScratch
    };
    let segment = first_step_segment_words(n, first, end);
    let splits = workers > 1
        && deep.tasks < SPLIT_BELOW_TASKS_PER_WORKER * workers
        && matches!(cx.layout, None | Some(MessageLayout::Rows))
        && by_first_step
        && deep.log_subs_per_task == 0
        && deep.source.is_message()
        && exceeds_l1(n, first, end)
        && segment >= 2 * MIN_PIECE_WORDS;
    if splits {
        return DeepSchedule::Split {
            pieces: (PIECES_PER_WORKER * workers).min(segment / MIN_PIECE_WORDS),
        };
    }
    if deep.source == Source::Buffer {
        DeepSchedule::BufferLoop
    } else if cx.layout.is_some() {
        DeepSchedule::MessageLoop { read }
    } else if workers == 1 || deep.tasks > GRAPH_TASKS_PER_WORKER * workers {
        DeepSchedule::ReadersThenReplica0 { read }
    } else if by_first_step {
        DeepSchedule::FirstStepGraph
    } else {
        DeepSchedule::TaskGraph
    }
}
