//! The registry of CPUs that the live pools of this process have pinned workers to (the shared
//! default pool, `global.rs`, stays off them).

use std::any::Any;
use std::sync::{Arc, Mutex, PoisonError, Weak};

/// One pool's pinned CPUs; the entry lapses when the pool's shared state is dropped.
struct PinnedBy {
    owner: Weak<dyn Any + Send + Sync>,
    cpus: Vec<usize>,
}

static PINNED: Mutex<Vec<PinnedBy>> = Mutex::new(Vec::new());

/// Records that the pool whose shared state is `owner` bound its workers to `cpus`.
pub(crate) fn record_pinned<T: Any + Send + Sync>(owner: &Arc<T>, cpus: impl IntoIterator<Item = usize>) {
    let mut cpus: Vec<usize> = cpus.into_iter().collect();
    if cpus.is_empty() {
        return;
    }
    cpus.sort_unstable();
    cpus.dedup();
    let owner: Weak<dyn Any + Send + Sync> = Arc::downgrade(owner) as Weak<dyn Any + Send + Sync>;
    let mut pinned = PINNED.lock().unwrap_or_else(PoisonError::into_inner);
    pinned.retain(|entry| entry.owner.strong_count() > 0);
    pinned.push(PinnedBy { owner, cpus });
}

/// The CPUs (OS indices, sorted, each once) that the live pools of this process have bound
/// workers to.
///
/// ```
/// use ntt_runtime::{PinPolicy, ThreadPoolBuilder, pinned_cpus};
///
/// let pool = ThreadPoolBuilder::new().num_threads(1).pin(PinPolicy::Pus).build()?;
/// let bound = &pool.placements()[0].bound_to; // empty when the OS refused the binding
/// assert!(bound.iter().all(|cpu| pinned_cpus().contains(cpu)));
/// # Ok::<(), ntt_runtime::BuildError>(())
/// ```
pub fn pinned_cpus() -> Vec<usize> {
    let mut pinned = PINNED.lock().unwrap_or_else(PoisonError::into_inner);
    pinned.retain(|entry| entry.owner.strong_count() > 0);
    let mut cpus: Vec<usize> = pinned
        .iter()
        .flat_map(|entry| entry.cpus.iter().copied())
        .collect();
    cpus.sort_unstable();
    cpus.dedup();
    cpus
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_lapse_with_their_owner() {
        let owner = Arc::new(0u8);
        // CPU numbers no machine has, so other tests' pools cannot interfere.
        record_pinned(&owner, [usize::MAX - 1, usize::MAX - 2, usize::MAX - 1]);
        let listed = pinned_cpus();
        assert!(listed.contains(&(usize::MAX - 1)) && listed.contains(&(usize::MAX - 2)));
        drop(owner);
        assert!(!pinned_cpus().contains(&(usize::MAX - 1)));
    }
}
