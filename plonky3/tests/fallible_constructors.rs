//! Every constructor that starts a pool has a form that returns the pool's error instead of
//! panicking: a prover that sizes its pool from configuration must be able to refuse it.
//!
//! One test in its own binary: it sets `NTT_THREADS`, which every pool of the process reads.

use ntt_plonky3::{Blake3MerkleMmcs, Blake3Mmcs, EngineNtt, KeccakMerkleMmcs};
use ntt_runtime::BuildError;

#[test]
fn pools_that_cannot_start_are_errors_not_panics() {
    // Too many workers.
    let err = EngineNtt::try_with_workers(100_000).expect_err("100000 workers");
    assert!(
        matches!(err, ntt_pcs::SetupError::Pool(BuildError::Threads(_))),
        "{err}"
    );
    let err = Blake3Mmcs::try_with_workers(100_000).expect_err("100000 workers");
    assert!(matches!(err, BuildError::Threads(_)), "{err}");
    // Sizes that fit start.
    assert_eq!(
        EngineNtt::try_with_workers(1)
            .expect("1 worker")
            .encoder()
            .pool()
            .num_workers(),
        1
    );
    assert_eq!(
        Blake3Mmcs::try_with_workers(1)
            .expect("1 worker")
            .pool()
            .num_workers(),
        1
    );
    assert!(KeccakMerkleMmcs::try_new(0).is_ok());

    // A malformed default worker count.
    // SAFETY: this binary's only test, and no other thread reads the environment now.
    unsafe { std::env::set_var("NTT_THREADS", "abc") };
    let threads = |err: &BuildError| matches!(err, BuildError::Threads(why) if why.contains("NTT_THREADS"));
    let err = EngineNtt::try_with_workers(0).expect_err("NTT_THREADS=abc");
    assert!(
        matches!(&err, ntt_pcs::SetupError::Pool(e) if threads(e)),
        "{err}"
    );
    let err = Blake3Mmcs::try_with_workers(0).expect_err("NTT_THREADS=abc");
    assert!(threads(&err), "{err}");
    let err = KeccakMerkleMmcs::try_new(1).expect_err("NTT_THREADS=abc");
    assert!(threads(&err), "{err}");
    let err = Blake3MerkleMmcs::try_new(1).expect_err("NTT_THREADS=abc");
    assert!(threads(&err), "{err}");
    // An explicit count does not read it.
    assert!(EngineNtt::try_with_workers(1).is_ok());
}
