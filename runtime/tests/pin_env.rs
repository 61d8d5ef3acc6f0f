//! `NTT_PIN` sets the default pinning of every pool, the shared default pool's included; an
//! explicit policy wins over it and a malformed value is an error. One test in this binary: it
//! sets the process's environment.

use ntt_runtime::{BuildError, PIN_ENV, PinPolicy, ThreadPoolBuilder, global_pool};

/// Sets `NTT_PIN` for this process.
fn set_pin_env(value: &str) {
    // SAFETY: this binary's only test runs on the harness's one test thread, and no pool (or
    // anything else that reads the environment from another thread) is alive while it sets it.
    unsafe { std::env::set_var(PIN_ENV, value) };
}

#[test]
fn pin_env_sets_the_default_policy_and_is_checked() {
    set_pin_env("none");
    let pool = ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
    assert_eq!(pool.pin_policy(), PinPolicy::None);
    assert!(pool.placements().iter().all(|p| p.bound_to.is_empty()));
    drop(pool);

    set_pin_env("pus");
    let explicit = ThreadPoolBuilder::new()
        .num_threads(1)
        .pin(PinPolicy::None)
        .build()
        .expect("pool");
    assert_eq!(explicit.pin_policy(), PinPolicy::None, "an explicit policy wins");
    drop(explicit);
    let from_env = ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
    assert_eq!(from_env.pin_policy(), PinPolicy::Pus);
    assert!(from_env.placements()[0].bound_to.len() <= 1, "one PU at most");
    drop(from_env);

    set_pin_env("everywhere");
    let err = ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect_err("malformed NTT_PIN");
    assert!(matches!(err, BuildError::Pin(_)), "{err}");
    assert!(err.to_string().contains("everywhere"), "{err}");
    assert!(
        matches!(global_pool(), Err(BuildError::Pin(_))),
        "the default pool reads it too"
    );

    set_pin_env("none");
    let global = global_pool().expect("default pool");
    assert_eq!(global.pin_policy(), PinPolicy::None);
    assert!(global.placements().iter().all(|p| p.bound_to.is_empty()));
}
