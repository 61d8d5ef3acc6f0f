//! Rank 0's bytes to every rank: a temporary's name, rank 0's flags.

use mpi::traits::*;

/// Rank 0's `bytes` on every rank (the others pass `None`). Collective.
pub(crate) fn broadcast_bytes<C: Communicator>(world: &C, bytes: Option<Vec<u8>>) -> Vec<u8> {
    let root = world.process_at_rank(0);
    let mut bytes = bytes.unwrap_or_default();
    let mut len = bytes.len() as u64;
    root.broadcast_into(&mut len);
    bytes.resize(usize::try_from(len).expect("rank 0's bytes fit in its memory"), 0);
    root.broadcast_into(&mut bytes[..]);
    bytes
}
