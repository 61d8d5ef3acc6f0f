//! Bump storage for a graph's task closures, so adding a task does not allocate per task.
//!
//! Closures are moved into 64-byte-aligned chunks and erased to a data pointer plus two
//! monomorphised trampolines (call and drop). The chunks are freed when the arena drops; the
//! closures themselves are consumed (called or dropped) exactly once by whoever owns the slot.

use std::alloc::{Layout, alloc, dealloc, handle_alloc_error};
use std::ptr::NonNull;

/// Alignment of every chunk; closures needing more get a chunk of their own.
const CHUNK_ALIGN: usize = 64;
/// First chunk size: small graphs (a handful of tasks) stay within one small allocation.
const FIRST_CHUNK: usize = 1 << 10;
/// Chunks double up to this size (large graphs allocate one chunk per ~1 MiB of closures).
const MAX_CHUNK: usize = 1 << 20;

/// A bump allocator of raw, uninitialised chunks.
#[derive(Debug, Default)]
pub(crate) struct Arena {
    chunks: Vec<(NonNull<u8>, Layout)>,
    /// Next free byte in the last chunk and the end of that chunk (addresses).
    cursor: usize,
    end: usize,
}

impl Arena {
    /// Moves `value` into the arena and returns where it lives. The caller owns the value and
    /// must read or drop it (at most once) before the arena drops; the arena never drops it.
    pub(crate) fn alloc<T>(&mut self, value: T) -> NonNull<T> {
        let layout = Layout::new::<T>();
        if layout.size() == 0 {
            let ptr = NonNull::<T>::dangling();
            // SAFETY: writing a zero-sized value through a non-null aligned pointer is valid.
            unsafe { ptr.as_ptr().write(value) };
            return ptr;
        }
        let ptr = self.bump(layout).cast::<T>();
        // SAFETY: `bump` returned `layout.size()` bytes aligned for `T`, owned by nobody else.
        unsafe { ptr.as_ptr().write(value) };
        ptr
    }

    fn bump(&mut self, layout: Layout) -> NonNull<u8> {
        if layout.align() <= CHUNK_ALIGN {
            let start = self.cursor.next_multiple_of(layout.align());
            if let Some(stop) = start.checked_add(layout.size())
                && stop <= self.end
                && self.cursor != 0
            {
                self.cursor = stop;
                // The address lies inside the last chunk, derived from its pointer's provenance.
                let chunk = self.chunks.last().expect("cursor != 0 implies a chunk").0;
                let offset = start - chunk.as_ptr() as usize;
                // SAFETY: `offset + size <= chunk length`, so the result is in bounds and non-null.
                return unsafe { chunk.add(offset) };
            }
        }
        let last = self.chunks.last().map_or(FIRST_CHUNK / 2, |c| c.1.size());
        let size = (last * 2).clamp(FIRST_CHUNK, MAX_CHUNK).max(layout.size());
        let chunk_layout =
            Layout::from_size_align(size, layout.align().max(CHUNK_ALIGN)).expect("task closure too large");
        // SAFETY: `chunk_layout` has a non-zero size.
        let raw = unsafe { alloc(chunk_layout) };
        let Some(chunk) = NonNull::new(raw) else {
            handle_alloc_error(chunk_layout)
        };
        self.chunks.push((chunk, chunk_layout));
        self.cursor = chunk.as_ptr() as usize + layout.size();
        self.end = chunk.as_ptr() as usize + size;
        chunk
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        for &(chunk, layout) in &self.chunks {
            // SAFETY: each chunk was allocated in `bump` with exactly this layout.
            unsafe { dealloc(chunk.as_ptr(), layout) };
        }
    }
}
