//! The process's shared default pool.
//!
//! Every pool pins by default, each starting at core 0, so two pinned pools in one process
//! would stack their workers on the same cores. [`global_pool`] is the pool to use when the
//! caller has no reason to build its own: built on first use, shared by every caller after, and
//! left unpinned when another pool of the process already pins workers to this machine's CPUs
//! (the other pool chose its placement; the default pool then lets the OS schedule around it).

use std::sync::{Arc, Mutex, PoisonError};

use crate::pinned::pinned_cpus;
use crate::{BuildError, PinPolicy, ThreadPool, ThreadPoolBuilder, Topology};

static GLOBAL: Mutex<Option<Arc<ThreadPool>>> = Mutex::new(None);

/// The process's default pool, built on first use like rayon's global pool and shared by every
/// caller after that: `NTT_THREADS` workers, else one per allowed core.
///
/// It pins as `NTT_PIN` says when set (`none`, `cores`, `pus`); otherwise as
/// [`ThreadPoolBuilder`] does by default, unless a live pool of this process already pins
/// workers to one of this machine's CPUs: then it runs unpinned, so the two pools do not stack
/// their workers on the same cores. [`build_global`] configures it instead, before its first
/// use. Build your own pool when the engine should own a fixed set of cores (see the README on
/// sharing a machine with a rayon pool).
///
/// # Errors
/// The [`BuildError`] of the first build (a malformed `NTT_THREADS` or `NTT_PIN`, a thread
/// that cannot be started); the next call tries again.
///
/// ```
/// let a = ntt_runtime::global_pool()?;
/// let b = ntt_runtime::global_pool()?;
/// assert!(std::sync::Arc::ptr_eq(&a, &b));
/// # Ok::<(), ntt_runtime::BuildError>(())
/// ```
pub fn global_pool() -> Result<Arc<ThreadPool>, BuildError> {
    let mut global = GLOBAL.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(pool) = global.as_ref() {
        return Ok(Arc::clone(pool));
    }
    let topology = Topology::detect();
    let builder = ThreadPoolBuilder::new()
        .thread_name(global_thread_name)
        .topology(topology.clone());
    let builder = match PinPolicy::from_env()? {
        Some(pin) => builder.pin(pin),
        None if overlaps_pinned(&topology, &pinned_cpus()) => builder.pin(PinPolicy::None),
        None => builder,
    };
    let pool = Arc::new(builder.build()?);
    *global = Some(Arc::clone(&pool));
    Ok(pool)
}

/// Builds the process's shared default pool ([`global_pool`]) from `builder`, once, before
/// anything has used it: for a program that wants its own worker count, pinning or idle spin
/// in every library that takes the default pool. The builder is used as given (its unset
/// settings take their defaults and the environment's values, as [`ThreadPoolBuilder::build`]
/// does); workers are named `ntt-global-{i}` unless it names them.
///
/// # Errors
/// [`BuildError::GlobalAlreadyBuilt`] once the default pool exists (built by an earlier call of
/// either function), and nothing changes; otherwise the builder's own [`BuildError`].
///
/// ```
/// use ntt_runtime::{BuildError, PinPolicy, ThreadPoolBuilder, build_global, global_pool};
///
/// let pool = build_global(ThreadPoolBuilder::new().num_threads(2).pin(PinPolicy::None))?;
/// assert_eq!(global_pool()?.num_workers(), 2);
/// assert!(std::sync::Arc::ptr_eq(&pool, &global_pool()?));
/// let again = build_global(ThreadPoolBuilder::new());
/// assert!(matches!(again, Err(BuildError::GlobalAlreadyBuilt)));
/// # Ok::<(), BuildError>(())
/// ```
pub fn build_global(builder: ThreadPoolBuilder) -> Result<Arc<ThreadPool>, BuildError> {
    let mut global = GLOBAL.lock().unwrap_or_else(PoisonError::into_inner);
    if global.is_some() {
        return Err(BuildError::GlobalAlreadyBuilt);
    }
    let builder = if builder.names_threads() {
        builder
    } else {
        builder.thread_name(global_thread_name)
    };
    let pool = Arc::new(builder.build()?);
    *global = Some(Arc::clone(&pool));
    Ok(pool)
}

fn global_thread_name(index: usize) -> String {
    format!("ntt-global-{index}")
}

/// Whether any of `topology`'s PUs is among `pinned`.
fn overlaps_pinned(topology: &Topology, pinned: &[usize]) -> bool {
    topology
        .pus
        .iter()
        .any(|pu| pinned.binary_search(&pu.os_index).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlap_is_checked_against_the_topologys_pus() {
        let topology = Topology::with_defaults(4);
        assert!(!overlaps_pinned(&topology, &[]));
        assert!(overlaps_pinned(&topology, &[topology.pus[0].os_index]));
        assert!(!overlaps_pinned(&topology, &[usize::MAX]));
    }
}
