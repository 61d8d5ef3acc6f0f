//! The codeword buffer as seen by concurrent tasks.
//!
//! Passes hand disjoint rows of one buffer to many tasks at once, and a gathered group's rows are
//! strided across the whole buffer, so tasks cannot each hold a `&mut` sub-slice. They share a
//! [`SharedRows`] instead and touch only the words the plan gives them. The buffer may start
//! uninitialised (`MaybeUninit<u64>`), so words are written through raw pointers and a `&mut`
//! view is made only of words that are already initialised.

/// A raw view of the codeword buffer, shared by the tasks of a pass.
///
/// Invariant (kept by every caller): at any time, each word is accessed by at most one task, and
/// a word is read or viewed as `&mut u64` only after it has been written (or was initialised by
/// the caller).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SharedRows {
    ptr: *mut u64,
    len: usize,
}

// SAFETY: the pointer is only dereferenced under the invariant above: tasks access disjoint
// words, so sharing the view between threads cannot race.
unsafe impl Send for SharedRows {}
// SAFETY: as for `Send`.
unsafe impl Sync for SharedRows {}

impl SharedRows {
    /// A view of `len` words at `ptr`.
    ///
    /// # Safety
    /// `ptr` must be valid for reads and writes of `len` words for as long as the view is used,
    /// and nothing else may access those words meanwhile except through this view.
    pub(crate) unsafe fn new(ptr: *mut u64, len: usize) -> Self {
        Self { ptr, len }
    }

    /// The address of word `at` (for rows a task owns; dereferencing follows the invariant).
    #[inline]
    pub(crate) fn ptr_at(&self, at: usize) -> *mut u64 {
        assert!(at <= self.len, "address out of bounds");
        self.ptr.wrapping_add(at)
    }

    /// Copies `dst.len()` words starting at word `at` into `dst`.
    ///
    /// # Safety
    /// Those words must be initialised, and no other task may write them meanwhile.
    #[inline]
    pub(crate) unsafe fn read(&self, at: usize, dst: &mut [u64]) {
        assert!(at <= self.len && dst.len() <= self.len - at, "read out of bounds");
        // SAFETY: in bounds (checked above); initialised and not written concurrently (caller).
        unsafe { core::ptr::copy_nonoverlapping(self.ptr.wrapping_add(at), dst.as_mut_ptr(), dst.len()) };
    }

    /// Writes `src` at word `at`.
    ///
    /// # Safety
    /// No other task may access those words meanwhile.
    #[inline]
    pub(crate) unsafe fn write(&self, at: usize, src: &[u64]) {
        assert!(
            at <= self.len && src.len() <= self.len - at,
            "write out of bounds"
        );
        // SAFETY: in bounds (checked above); exclusively ours for now (caller); `src` is a
        // separate allocation from the buffer (task scratch or the message, checked disjoint).
        unsafe { core::ptr::copy_nonoverlapping(src.as_ptr(), self.ptr.wrapping_add(at), src.len()) };
    }

    /// Writes `src` at word `at`, with non-temporal stores when `stream` (the caller fences
    /// before its task ends).
    ///
    /// # Safety
    /// No other task may access those words meanwhile.
    #[inline]
    pub(crate) unsafe fn write_with(
        &self,
        backend: ntt_kernels::Backend,
        at: usize,
        src: &[u64],
        stream: bool,
    ) {
        assert!(
            at <= self.len && src.len() <= self.len - at,
            "write out of bounds"
        );
        // SAFETY: in bounds (checked above); exclusively ours (caller); `src` is task scratch,
        // a separate allocation.
        unsafe { backend.copy_rows(self.ptr.wrapping_add(at), src, stream) };
    }

    /// A shared view of `len` words at `at`.
    ///
    /// # Safety
    /// The words must be initialised, and no task may write them while the view lives.
    #[inline]
    pub(crate) unsafe fn slice(&self, at: usize, len: usize) -> &[u64] {
        assert!(at <= self.len && len <= self.len - at, "view out of bounds");
        // SAFETY: in bounds (checked above); initialised and not written meanwhile (caller).
        unsafe { core::slice::from_raw_parts(self.ptr.wrapping_add(at), len) }
    }

    /// A mutable view of `len` words at `at`.
    ///
    /// # Safety
    /// The words must be initialised, and exclusively this task's while the view lives.
    #[inline]
    #[expect(
        clippy::mut_from_ref,
        reason = "the view is exclusive by the caller's contract"
    )]
    pub(crate) unsafe fn slice_mut(&self, at: usize, len: usize) -> &mut [u64] {
        assert!(at <= self.len && len <= self.len - at, "view out of bounds");
        // SAFETY: in bounds (checked above); initialised and exclusive (caller).
        unsafe { core::slice::from_raw_parts_mut(self.ptr.wrapping_add(at), len) }
    }
}
