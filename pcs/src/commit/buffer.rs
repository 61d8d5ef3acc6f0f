//! The codeword buffer: capacity reserved once, backed by transparent huge pages where the OS
//! offers them.
//!
//! A fresh 64 MiB codeword is 16384 page faults of 4 KiB on first touch, which on a virtual
//! machine costs more than the encode itself. Asking Linux for transparent huge pages
//! (`MADV_HUGEPAGE`, honoured when `/sys/kernel/mm/transparent_hugepage/enabled` is `always` or
//! `madvise`) makes it 32 faults of 2 MiB. The advice changes no contents and is only a hint: if
//! it is refused the buffer works the same with small pages.

use std::collections::TryReserveError;

/// Empties `buffer` and makes room for `words` words, advising huge pages for the new capacity.
///
/// # Errors
/// The allocator's refusal (the size comes from input, so it is not left to abort the process).
pub(crate) fn reserve_codeword(buffer: &mut Vec<u64>, words: usize) -> Result<(), TryReserveError> {
    buffer.clear();
    let fresh = buffer.capacity() < words;
    buffer.try_reserve_exact(words)?;
    if fresh {
        advise_huge_pages(buffer.spare_capacity_mut().as_mut_ptr().cast(), words * 8);
    }
    Ok(())
}

/// Asks for transparent huge pages over the 2 MiB-aligned part of `[ptr, ptr + len)`.
#[cfg(target_os = "linux")]
fn advise_huge_pages(ptr: *mut u8, len: usize) {
    const HUGE_PAGE: usize = 2 << 20;
    let start = (ptr as usize).next_multiple_of(HUGE_PAGE);
    let end = (ptr as usize + len) / HUGE_PAGE * HUGE_PAGE;
    if start < end {
        // SAFETY: `[start, end)` lies inside the allocation `[ptr, ptr + len)` that the caller
        // owns; MADV_HUGEPAGE neither unmaps nor changes memory contents, it only sets how future
        // page faults in the range are served, so no Rust reference or value is affected. A
        // failure (e.g. THP disabled) is harmless and ignored.
        let _ = unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_ptr: *mut u8, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(miri, ignore = "madvise is a foreign call")]
    fn reserve_keeps_capacity_and_empties() {
        let mut buffer = vec![7u64; 10];
        reserve_codeword(&mut buffer, 5 << 20).expect("40 MiB");
        assert!(buffer.is_empty() && buffer.capacity() >= 5 << 20);
        let ptr = buffer.as_ptr();
        reserve_codeword(&mut buffer, 4 << 20).expect("reused");
        assert!(
            reserve_codeword(&mut buffer, usize::MAX / 8).is_err(),
            "refused, not aborted"
        );
        assert_eq!(buffer.as_ptr(), ptr, "a large enough buffer is reused");
    }
}
