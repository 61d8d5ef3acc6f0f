//! The one-line setup: the default engine on the process's default pool.

use crate::{Committer, Encoder, SetupError};

/// An encoder on [`ntt_runtime::global_pool`][global_pool] with the best kernel backend this CPU
/// has (or the one `NTT_BACKEND` names). It reads no wisdom: [`Encoder::builder`] with
/// [`saved_wisdom`](crate::EncoderBuilder::saved_wisdom) does.
///
/// [global_pool]: https://docs.rs/ntt-runtime/latest/ntt_runtime/fn.global_pool.html
///
/// # Errors
/// A [`SetupError`] when the pool cannot start or `NTT_BACKEND` is unusable.
pub fn encoder() -> Result<Encoder, SetupError> {
    Encoder::builder().pool(ntt_runtime::global_pool()?).build()
}

/// A [`Committer`] with the default settings over [`encoder()`]: the common case in one line.
/// Build an [`Encoder`] with [`Encoder::builder`] for anything else.
///
/// # Errors
/// As for [`encoder()`].
///
/// ```
/// let committer = ntt_pcs::committer()?;
/// assert!(committer.encoder().pool().num_workers() >= 1);
/// # Ok::<(), ntt_pcs::SetupError>(())
/// ```
pub fn committer() -> Result<Committer, SetupError> {
    Ok(Committer::new(encoder()?))
}
