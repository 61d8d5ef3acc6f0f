//! One task of a graph as the graph stores it: a 32-byte entry with its closure, and an 8-byte
//! one with its predecessor counter and successors.
//!
//! A closure of at most [`INLINE_BYTES`] bytes (a slice and an index, two references: what most
//! tasks capture) lives inside the entry itself; a larger one lives in the graph's arena
//! and the entry holds a pointer to it. Either way the entry names one static vtable per
//! closure type, which knows where the closure is, so running a task reads its entry, not a
//! slot and an arena line besides.
//!
//! ```text
//!   tasks:  vtable | payload (closure, or pointer to it)
//!             8              24
//!   links:  pending | first (the only successor, or MANY | the edge that starts the list)
//!             4        4
//! ```

use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::ptr::NonNull;
use std::sync::atomic::AtomicU32;

use crate::arena::Arena;
use crate::context::TaskContext;
use crate::grow::GrowAt;

/// Ends a successor list (and marks a task without successors).
pub(crate) const NO_TASK: u32 = u32::MAX;

/// Tag of [`Links::first`] when a task has several successors: `MANY | e` names the list of
/// overflow edges that starts at edge `e`.
pub(crate) const MANY: u32 = 1 << 31;

/// Most tasks a graph holds as built (indices below [`MANY`], and not [`NO_TASK`]); the same
/// bound holds for its overflow edges.
pub(crate) const MAX_TASKS: usize = (MANY - 1) as usize;

/// Closures up to this size (and pointer alignment) live inside their task's entry.
pub(crate) const INLINE_BYTES: usize = 24;

/// How a task's closure is called and dropped, and where it lives: one per closure type.
pub(crate) struct TaskVTable {
    /// Moves the closure out of `data` and calls it (a growing task also gets its `Grower`).
    pub(crate) call: unsafe fn(NonNull<u8>, &TaskContext<'_>, GrowAt<'_>),
    /// Drops the closure in place without calling it.
    pub(crate) drop: unsafe fn(NonNull<u8>),
    /// Whether the closure is inside the entry's payload (else the payload holds a pointer to
    /// it).
    inline: bool,
}

impl TaskVTable {
    /// The vtable of closures of type `F` called through `call`.
    pub(crate) const fn of<F>(call: unsafe fn(NonNull<u8>, &TaskContext<'_>, GrowAt<'_>)) -> Self {
        Self {
            call,
            drop: drop_task::<F>,
            inline: fits_inline::<F>(),
        }
    }
}

/// Whether a closure of type `F` is stored inside its entry.
const fn fits_inline<F>() -> bool {
    size_of::<F>() <= INLINE_BYTES && align_of::<F>() <= align_of::<usize>()
}

/// # Safety
/// `data` must point to a live `F` that is consumed by this call (not used afterwards).
unsafe fn drop_task<F>(data: NonNull<u8>) {
    // SAFETY: the caller guarantees `data` holds a live `F` that nobody else will use.
    unsafe { data.cast::<F>().drop_in_place() };
}

/// A graph task's predecessor counter and first successor: kept apart from the closure in a
/// dense array (8 bytes a task), since adding an edge writes the entry of a task that may have
/// been added long before, and a run reads the entry of every successor it unlocks.
pub(crate) struct Links {
    /// Predecessors not yet finished: the edges into the task as built, counted down while the
    /// graph runs.
    pub(crate) pending: AtomicU32,
    /// The only successor, `MANY | e` when there are several (the overflow list from edge
    /// `e`), or [`NO_TASK`].
    pub(crate) first: u32,
}

impl Links {
    pub(crate) const fn new() -> Self {
        Self {
            pending: AtomicU32::new(0),
            first: NO_TASK,
        }
    }
}

/// A graph task's closure.
pub(crate) struct Task {
    vtable: &'static TaskVTable,
    /// The closure (inline) or a pointer to it in the arena; consumed once, by whoever owns
    /// the task, through a shared reference to the entry: hence the cell.
    payload: UnsafeCell<MaybeUninit<[usize; 3]>>,
}

impl Task {
    /// A task without edges holding `task`, moved inline or into `arena`; `vtable` must be
    /// `TaskVTable::of::<F>(..)`.
    pub(crate) fn new<F>(task: F, vtable: &'static TaskVTable, arena: &mut Arena) -> Self {
        let payload = UnsafeCell::new(MaybeUninit::<[usize; 3]>::uninit());
        if fits_inline::<F>() {
            // SAFETY: `F` fits the payload in size and alignment (`fits_inline`).
            unsafe { payload.get().cast::<F>().write(task) };
        } else {
            let data = arena.alloc(task);
            // SAFETY: the payload has room and alignment for a pointer.
            unsafe { payload.get().cast::<NonNull<F>>().write(data) };
        }
        Self { vtable, payload }
    }

    /// The closure's address and vtable.
    ///
    /// # Safety
    /// The closure must not have been consumed yet; whoever uses the pointer consumes it
    /// (through the vtable) at most once.
    pub(crate) unsafe fn closure(&self) -> (NonNull<u8>, &'static TaskVTable) {
        let payload = self.payload.get().cast::<u8>();
        let data = if self.vtable.inline {
            payload
        } else {
            // SAFETY: an out-of-line closure's payload holds its arena pointer (`new`).
            unsafe { payload.cast::<*mut u8>().read() }
        };
        // SAFETY: both come from non-null places (the entry, or the arena).
        (unsafe { NonNull::new_unchecked(data) }, self.vtable)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_32_and_8_bytes() {
        assert_eq!(size_of::<Task>(), 32);
        assert_eq!(size_of::<Links>(), 8);
    }

    #[test]
    fn small_closures_live_inline_and_large_ones_in_the_arena() {
        assert!(fits_inline::<(&[u8], usize)>());
        assert!(fits_inline::<()>());
        assert!(!fits_inline::<[usize; 4]>());
        // 16 bytes, but aligned to 16.
        assert!(!fits_inline::<u128>());
    }
}
