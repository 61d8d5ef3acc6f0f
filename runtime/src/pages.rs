//! Which pages back a buffer the encoder is about to write for the first time, and what it got.
//!
//! A buffer that a caller has just allocated (Plonky3's WHIR hands the NTT a matrix whose zero tail
//! was never touched; a fresh codeword) is faulted in before or while the encode writes it. With
//! 4 KiB pages that is 512 faults per 2 MiB, each a kernel entry and a zeroed page; with a
//! transparent huge page it is one. When the host has 2 MiB of memory ready, a huge page is the
//! cheapest way in (measured on a 2-vCPU Intel Xeon guest: 0.25–0.34 ms per 2 MiB, against
//! 0.55 ms populating 4 KiB pages and 0.78 ms touching them). But a guest whose free memory is
//! handed back to the host (virtio-balloon free page reporting, common on cloud VMs) finds its
//! large free blocks unbacked: a huge page then waits for the host to back all 2 MiB, 4.5–24 ms
//! on the same guest, while 4 KiB pages come from smaller free blocks the host still backs. The
//! allocator hands out the blocks freed last first, so a buffer's first huge pages are fast and
//! its later ones slow once the recently freed memory runs out.
//!
//! So the default policy, [`HugePages::Auto`], asks for huge pages 2 MiB at a time while they
//! come fast, and for 4 KiB pages from the first sign that they do not; `always`
//! and `never` ask for one kind for the whole buffer. `NTT_HUGE_PAGES` chooses.

use std::time::Duration;

/// The variable that chooses the huge-page policy.
pub const HUGE_PAGES_ENV: &str = "NTT_HUGE_PAGES";

/// The transparent huge page size on x86_64 and most aarch64 kernels.
pub(crate) const HUGE_PAGE_BYTES: usize = 2 << 20;

/// How the pages of a fresh buffer are asked for (`NTT_HUGE_PAGES`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HugePages {
    /// Huge pages 2 MiB at a time while each comes about as fast as small pages would, then
    /// small pages (the default).
    #[default]
    Auto,
    /// Huge pages for the whole buffer (`MADV_HUGEPAGE`), however long the host takes.
    Always,
    /// Small pages for the whole buffer (`MADV_NOHUGEPAGE`), even where the system's THP
    /// setting is `always`.
    Never,
}

impl HugePages {
    /// Every policy, in the order `NTT_HUGE_PAGES` names them.
    pub const ALL: [Self; 3] = [Self::Auto, Self::Always, Self::Never];

    /// The name `NTT_HUGE_PAGES` takes.
    pub fn name(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Always => "always",
            Self::Never => "never",
        }
    }

    /// `NTT_HUGE_PAGES`, read once per process; unset is [`HugePages::Auto`].
    ///
    /// # Errors
    /// The variable names no policy (or is not UTF-8).
    pub fn from_env() -> Result<Self, crate::env::EnvError> {
        static POLICY: std::sync::OnceLock<Result<HugePages, crate::env::EnvError>> =
            std::sync::OnceLock::new();
        POLICY
            .get_or_init(|| {
                crate::env::parse(HUGE_PAGES_ENV, |v| v.parse::<Self>()).map(Option::unwrap_or_default)
            })
            .clone()
    }

    /// The policy this process uses: `NTT_HUGE_PAGES`, or the default where it names nothing
    /// (the CLI refuses that before it runs; a library caller gets one warning in its log, the
    /// first time a buffer is touched, not one per buffer).
    pub(crate) fn current() -> Self {
        static POLICY: std::sync::OnceLock<HugePages> = std::sync::OnceLock::new();
        *POLICY.get_or_init(|| {
            Self::from_env().unwrap_or_else(|e| {
                tracing::warn!("{e}; using {}", Self::default().name());
                Self::default()
            })
        })
    }
}

impl core::str::FromStr for HugePages {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL.into_iter().find(|p| p.name() == s).ok_or_else(|| {
            let names: Vec<_> = Self::ALL.iter().map(|p| p.name()).collect();
            format!("not a huge-page policy (expected one of {})", names.join(", "))
        })
    }
}

impl core::fmt::Display for HugePages {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// Which pages a fresh buffer got, as the engine asked for them: bytes asked for as huge pages
/// and as small ones (a huge-page request the kernel could not serve falls back to small pages
/// without a word; the bytes are counted as asked).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PageUse {
    /// The policy in force.
    pub policy: HugePages,
    /// Bytes asked for as 2 MiB huge pages.
    pub huge_bytes: usize,
    /// Bytes asked for as small pages (including the ragged ends outside whole huge pages).
    pub small_bytes: usize,
    /// Bytes already present (a buffer written before): nothing was faulted in.
    pub present_bytes: usize,
    /// Under [`HugePages::Auto`], the slowest huge page's fault, which made it switch to small
    /// pages; `None` when it did not switch.
    pub switched_after: Option<Duration>,
}

impl PageUse {
    /// Adds another range's use (the same policy).
    pub(crate) fn add(&mut self, other: &PageUse) {
        self.huge_bytes += other.huge_bytes;
        self.small_bytes += other.small_bytes;
        self.present_bytes += other.present_bytes;
        self.switched_after = match (self.switched_after, other.switched_after) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
    }
}

/// The rule [`HugePages::Auto`] follows: it keeps the time of the last [`WINDOW`] huge pages
/// faulted in, and from the moment they took more than [`BUDGET_PER_HUGE_PAGE`] each on average
/// it asks for small pages. Populating 2 MiB of small pages takes about 0.55 ms on the guests
/// measured, so a window over 1.5 ms a page costs more than small pages would; one host-backed
/// page (4.5 ms or more) among three fast ones is enough to switch, since once the allocator
/// reaches the blocks the host took back, the rest come from them too.
#[derive(Debug)]
pub(crate) struct Switch {
    recent: [Duration; WINDOW],
    seen: usize,
    small: bool,
    slowest: Duration,
}

/// Huge pages the switch looks back over.
pub(crate) const WINDOW: usize = 4;
/// The average fault time per huge page above which the switch asks for small pages.
pub(crate) const BUDGET_PER_HUGE_PAGE: Duration = Duration::from_micros(1500);

impl Switch {
    pub(crate) fn new(policy: HugePages) -> Self {
        Self {
            recent: [Duration::ZERO; WINDOW],
            seen: 0,
            small: policy == HugePages::Never,
            slowest: Duration::ZERO,
        }
    }

    /// Whether the next 2 MiB is asked for as a huge page.
    pub(crate) fn wants_huge(&self) -> bool {
        !self.small
    }

    /// A huge page took `took` to fault in (`Auto` only; the fixed policies never switch).
    pub(crate) fn record(&mut self, policy: HugePages, took: Duration) {
        if policy != HugePages::Auto || self.small {
            return;
        }
        self.recent[self.seen % WINDOW] = took;
        self.seen += 1;
        self.slowest = self.slowest.max(took);
        let total: Duration = self.recent.iter().sum();
        if total > BUDGET_PER_HUGE_PAGE * WINDOW as u32 {
            self.small = true;
        }
    }

    /// The slowest huge page when the switch went to small pages.
    pub(crate) fn switched_after(&self, policy: HugePages) -> Option<Duration> {
        (policy == HugePages::Auto && self.small).then_some(self.slowest)
    }
}

/// Asks for huge pages (`huge`) or small ones over the 2 MiB-aligned part of `[ptr, ptr + len)`,
/// which must lie inside one allocation of the caller's; returns the bytes the advice covers.
///
/// Only a hint, honoured when `/sys/kernel/mm/transparent_hugepage/enabled` is `always` or
/// `madvise`: it changes no contents and pages already present stay as they are, so it is
/// harmless on a buffer that is not fresh; a refusal is ignored. Spans shorter than an aligned
/// huge page make no system call.
#[cfg(all(target_os = "linux", not(miri)))]
pub(crate) fn advise(ptr: *mut u8, len: usize, huge: bool) -> usize {
    let start = (ptr as usize).next_multiple_of(HUGE_PAGE_BYTES);
    let end = (ptr as usize + len) / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES;
    if start >= end {
        return 0;
    }
    let advice = if huge {
        libc::MADV_HUGEPAGE
    } else {
        libc::MADV_NOHUGEPAGE
    };
    // SAFETY: `[start, end)` lies inside the allocation `[ptr, ptr + len)` (the caller's
    // promise); MADV_HUGEPAGE and MADV_NOHUGEPAGE neither unmap nor change memory contents, they
    // only set how future page faults in the range are served, so no Rust reference or value is
    // affected. A failure (e.g. THP disabled) is harmless and ignored.
    let _ = unsafe { libc::madvise(start as *mut libc::c_void, end - start, advice) };
    end - start
}

// Miri does not model page tables; elsewhere there is no such advice.
#[cfg(any(not(target_os = "linux"), miri))]
pub(crate) fn advise(_ptr: *mut u8, _len: usize, _huge: bool) -> usize {
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The advice changes no contents, whether the span is fresh, already written, or not
    /// aligned to a huge page at either end.
    #[test]
    fn advice_keeps_every_word() {
        let words = 3 * HUGE_PAGE_BYTES / 8;
        let mut buffer: Vec<u64> = (0..words as u64).collect();
        let (head, tail) = buffer.split_at_mut(12_345);
        advise(tail.as_mut_ptr().cast(), tail.len() * 8, true);
        advise(head.as_mut_ptr().cast(), head.len() * 8, false);
        assert!(buffer.iter().enumerate().all(|(i, &w)| w == i as u64));

        for huge in [true, false] {
            let mut fresh: Vec<u64> = Vec::with_capacity(words);
            advise(fresh.as_mut_ptr().cast(), words * 8, huge);
            fresh.extend((0..words as u64).rev());
            assert!(fresh.iter().rev().enumerate().all(|(i, &w)| w == i as u64));
        }
    }

    #[test]
    fn names_round_trip_and_typos_are_refused() {
        for p in HugePages::ALL {
            assert_eq!(p.name().parse::<HugePages>(), Ok(p));
        }
        for bad in ["", "Auto", "yes", "huge", "1"] {
            assert!(bad.parse::<HugePages>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn auto_switches_once_recent_huge_pages_cost_more_than_small_ones() {
        let ms = Duration::from_millis;
        let us = Duration::from_micros;
        let mut fast = Switch::new(HugePages::Auto);
        for _ in 0..100 {
            fast.record(HugePages::Auto, us(300));
        }
        assert!(fast.wants_huge() && fast.switched_after(HugePages::Auto).is_none());

        // One host-backed page among fast ones is enough.
        let mut cold = Switch::new(HugePages::Auto);
        cold.record(HugePages::Auto, us(300));
        cold.record(HugePages::Auto, ms(6));
        assert!(!cold.wants_huge());
        assert_eq!(cold.switched_after(HugePages::Auto), Some(ms(6)));

        // A slow page long ago has left the window.
        let mut mixed = Switch::new(HugePages::Auto);
        mixed.record(HugePages::Auto, ms(4));
        assert!(mixed.wants_huge(), "4 ms alone stays within 4 × 1.5 ms");
        for _ in 0..WINDOW {
            mixed.record(HugePages::Auto, us(300));
        }
        mixed.record(HugePages::Auto, ms(4));
        assert!(mixed.wants_huge());

        // The fixed policies never switch.
        let mut always = Switch::new(HugePages::Always);
        always.record(HugePages::Always, ms(50));
        assert!(always.wants_huge() && always.switched_after(HugePages::Always).is_none());
        assert!(!Switch::new(HugePages::Never).wants_huge());
    }
}
