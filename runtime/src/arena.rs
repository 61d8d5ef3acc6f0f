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

/// Memory an arena keeps for reuse after [`Arena::reset`]; beyond this it frees its chunks.
const MAX_RETAINED: usize = 64 << 20;

/// A bump allocator of raw, uninitialised chunks, reusable after [`Arena::reset`].
#[derive(Debug, Default)]
pub(crate) struct Arena {
    chunks: Vec<(NonNull<u8>, Layout)>,
    /// Index of the chunk being filled; chunks after it are free.
    current: usize,
    /// Next free byte in the current chunk and the end of that chunk (addresses; 0 when no
    /// chunk is current).
    cursor: usize,
    end: usize,
}

impl Arena {
    /// Moves `value` into the arena and returns where it lives. The caller owns the value and
    /// must read or drop it (at most once) before the arena is reset or dropped; the arena
    /// never drops it.
    #[inline]
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

    /// Forgets every allocation (their values must have been consumed) and keeps the chunks
    /// for the next graph, unless they exceed [`MAX_RETAINED`].
    pub(crate) fn reset(&mut self) {
        let retained: usize = self.chunks.iter().map(|c| c.1.size()).sum();
        if retained > MAX_RETAINED {
            self.free_chunks();
        }
        self.current = 0;
        self.cursor = 0;
        self.end = 0;
        if let Some(&(chunk, layout)) = self.chunks.first() {
            self.cursor = chunk.as_ptr() as usize;
            self.end = self.cursor + layout.size();
        }
    }

    /// Carves `layout` out of the current chunk at `start` if it fits.
    #[inline]
    fn try_current(&mut self, layout: Layout) -> Option<NonNull<u8>> {
        if self.chunks.is_empty() || layout.align() > self.chunks[self.current].1.align() {
            return None;
        }
        let start = self.cursor.next_multiple_of(layout.align());
        let stop = start.checked_add(layout.size())?;
        if stop > self.end {
            return None;
        }
        self.cursor = stop;
        let chunk = self.chunks[self.current].0;
        // Derive the pointer from the chunk's own pointer (keeps its provenance).
        let offset = start - chunk.as_ptr() as usize;
        // SAFETY: `offset + size <= chunk length`, so the result is in bounds and non-null.
        Some(unsafe { chunk.add(offset) })
    }

    #[inline]
    fn bump(&mut self, layout: Layout) -> NonNull<u8> {
        match self.try_current(layout) {
            Some(ptr) => ptr,
            None => self.bump_chunk(layout),
        }
    }

    /// [`Arena::bump`] once the current chunk is full.
    #[cold]
    fn bump_chunk(&mut self, layout: Layout) -> NonNull<u8> {
        // Move on to the next retained chunk, or allocate one.
        while self.current + 1 < self.chunks.len() {
            self.current += 1;
            let (chunk, chunk_layout) = self.chunks[self.current];
            self.cursor = chunk.as_ptr() as usize;
            self.end = self.cursor + chunk_layout.size();
            if let Some(ptr) = self.try_current(layout) {
                return ptr;
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
        self.current = self.chunks.len() - 1;
        self.cursor = chunk.as_ptr() as usize;
        self.end = self.cursor + size;
        self.try_current(layout).expect("a fresh chunk fits the value")
    }

    fn free_chunks(&mut self) {
        for (chunk, layout) in self.chunks.drain(..) {
            // SAFETY: each chunk was allocated in `bump` with exactly this layout.
            unsafe { dealloc(chunk.as_ptr(), layout) };
        }
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        self.free_chunks();
    }
}
