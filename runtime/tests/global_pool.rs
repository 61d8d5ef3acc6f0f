//! The shared default pool: one per process, and unpinned beside a pool that already pins.
//! One test in this binary: the default pool is process-wide state.

use std::sync::Arc;

use ntt_runtime::{PinPolicy, ThreadPoolBuilder, global_pool, pinned_cpus};

#[test]
fn default_pool_is_shared_and_does_not_pin_over_a_pinned_pool() {
    let pinned = ThreadPoolBuilder::new()
        .num_threads(1)
        .pin(PinPolicy::Cores)
        .build()
        .expect("pool");
    let bound = pinned.placements()[0].bound_to.clone();
    let listed = pinned_cpus();
    assert!(
        bound.iter().all(|cpu| listed.contains(cpu)),
        "{bound:?} not in {listed:?}"
    );

    let global = global_pool().expect("default pool");
    assert!(Arc::ptr_eq(&global, &global_pool().expect("default pool")));
    if bound.is_empty() {
        // The OS refused the binding (a restricted container): nothing is pinned to avoid.
        return;
    }
    assert_eq!(global.pin_policy(), PinPolicy::None);
    assert!(global.placements().iter().all(|p| p.bound_to.is_empty()));
    let mut total = 0u64;
    global.run(|g| {
        g.add(|_| total = (1..=10).sum());
    });
    assert_eq!(total, 55);
}
