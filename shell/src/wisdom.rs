//! The wisdom both binaries plan with: this machine's saved wisdom where it has some.

use std::sync::Arc;

use ntt_pcs::Encoder;
use ntt_pcs::wisdom::{self, WisdomStatus};

/// `encoder` planning with the wisdom `ntt tune --save` left for this machine (`NTT_WISDOM`'s
/// file, else the configuration directory's), and what became of it. Wisdom that cannot be used
/// (another machine's topology, an unreadable or malformed file) is ignored with a warning on
/// standard error: wisdom changes plans only, never the bytes, so a command goes on without it.
pub fn with_machine_wisdom(encoder: Encoder) -> (Encoder, WisdomStatus) {
    let (found, status) = wisdom::load(encoder.pool().topology());
    if let WisdomStatus::Ignored { .. } = &status {
        eprintln!("warning: wisdom {status}");
    }
    (encoder.with_wisdom(found.map(Arc::new)), status)
}
