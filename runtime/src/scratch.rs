//! Worker-local scratch buffers: 64-byte aligned, grow-only, one per nesting level.
//!
//! A task holding its scratch may start a nested run; while it waits, its worker executes other
//! tasks, which may ask for scratch too. Each nesting level therefore gets its own buffer (a
//! stack indexed by depth), so a nested borrow never aliases an outer one.

use std::alloc::{Layout, alloc_zeroed, dealloc, handle_alloc_error};
use std::cell::{Cell, UnsafeCell};
use std::ptr::NonNull;

/// Alignment of every scratch buffer: one cache line, and enough for any SIMD load.
pub const SCRATCH_ALIGN: usize = 64;

/// One heap buffer of `words` zero-initialised-at-allocation `u64`s.
struct AlignedBuf {
    ptr: NonNull<u64>,
    words: usize,
}

impl AlignedBuf {
    const fn empty() -> Self {
        Self {
            ptr: NonNull::dangling(),
            words: 0,
        }
    }

    fn layout(words: usize) -> Layout {
        Layout::from_size_align(words * 8, SCRATCH_ALIGN).expect("scratch size overflows isize")
    }

    /// Grows to at least `words` words (contents are not preserved).
    fn reserve(&mut self, words: usize) {
        if words <= self.words {
            return;
        }
        // Grow geometrically so a sequence of slightly larger requests stays amortised O(1).
        let new_words = words.max(self.words * 2);
        let layout = Self::layout(new_words);
        // SAFETY: `layout` has a non-zero size (new_words > self.words >= 0 and words > 0).
        let raw = unsafe { alloc_zeroed(layout) };
        let Some(ptr) = NonNull::new(raw.cast::<u64>()) else {
            handle_alloc_error(layout)
        };
        self.release();
        self.ptr = ptr;
        self.words = new_words;
    }

    fn release(&mut self) {
        if self.words > 0 {
            // SAFETY: `ptr` was allocated by `reserve` with exactly this layout.
            unsafe { dealloc(self.ptr.as_ptr().cast(), Self::layout(self.words)) };
            self.ptr = NonNull::dangling();
            self.words = 0;
        }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        self.release();
    }
}

/// The stack of scratch buffers of one worker thread. Not `Sync`: only its worker uses it.
pub(crate) struct ScratchStack {
    buffers: UnsafeCell<Vec<AlignedBuf>>,
    depth: Cell<usize>,
}

impl ScratchStack {
    pub(crate) fn new() -> Self {
        Self {
            buffers: UnsafeCell::new(Vec::new()),
            depth: Cell::new(0),
        }
    }

    /// Lends the buffer of the current nesting level, grown to at least `words` words.
    pub(crate) fn with<R>(&self, words: usize, f: impl FnOnce(&mut [u64]) -> R) -> R {
        let depth = self.depth.get();
        let ptr = {
            // SAFETY: this `&mut` to the vector lives only inside this block, and nobody else
            // holds one: the stack is `!Sync` and this block calls no user code. Outstanding
            // slices of shallower levels point into their buffers' heap blocks, which neither a
            // push onto the vector nor growing a deeper buffer touches.
            let buffers = unsafe { &mut *self.buffers.get() };
            if buffers.len() <= depth {
                buffers.resize_with(depth + 1, AlignedBuf::empty);
            }
            buffers[depth].reserve(words);
            buffers[depth].ptr
        };
        self.depth.set(depth + 1);
        struct Restore<'a>(&'a Cell<usize>, usize);
        impl Drop for Restore<'_> {
            fn drop(&mut self) {
                self.0.set(self.1);
            }
        }
        let _restore = Restore(&self.depth, depth);
        // SAFETY: the block holds at least `words` initialised u64s (zeroed at allocation, then
        // only written through such slices); level `depth` is lent to nobody else until
        // `_restore` runs, because deeper calls use deeper levels; `words == 0` uses a dangling
        // but aligned pointer, which is valid for an empty slice.
        let slice = unsafe { std::slice::from_raw_parts_mut(ptr.as_ptr(), words) };
        f(slice)
    }
}
