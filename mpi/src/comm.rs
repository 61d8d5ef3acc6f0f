//! The few messages the ranks exchange, each counted: agreement on success before every step
//! (so one rank's failure stops all of them cleanly instead of leaving them waiting), the share
//! nodes to rank 0, and the root back.

use mpi::traits::*;

use crate::error::Error;

/// Payload bytes this rank handed to MPI and got from it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Bytes sent.
    pub sent: u64,
    /// Bytes received.
    pub received: u64,
}

/// Status words of the agreement: success, or the exit code of a failure.
const OK: u64 = 0;
const BAD_INPUT: u64 = 2;
const FAILURE: u64 = 3;

/// Every rank learns whether every rank succeeded at a local step (opening a file, building a
/// pool): `Ok` on every rank only if `local` is `Ok` on every rank, else each failing rank gets
/// its own error and the others [`Error::OtherRank`]. Collective.
///
/// # Errors
/// As described.
pub fn agree<C: Communicator, T>(world: &C, local: Result<T, Error>) -> Result<T, Error> {
    agree_counted(world, local, None, &mut Traffic::default())
}

/// Gathers `local` from every rank on every rank, rank order.
pub(crate) fn all_gather<C: Communicator>(world: &C, local: &[u64], traffic: &mut Traffic) -> Vec<u64> {
    let ranks = world.size() as usize;
    let mut all = vec![0u64; local.len() * ranks];
    world.all_gather_into(local, &mut all[..]);
    let bytes = size_of_val(local) as u64;
    traffic.sent += bytes * (ranks as u64 - 1);
    traffic.received += bytes * (ranks as u64 - 1);
    all
}

/// Every rank learns whether every rank succeeded: `Ok` everywhere only if `local` is `Ok`
/// everywhere; else each failing rank returns its own error and the others
/// [`Error::OtherRank`] naming the first that failed. With `words`, the ranks that succeeded also
/// compare the witness sizes they see, and refuse together when they differ.
pub(crate) fn agree_counted<C: Communicator, T>(
    world: &C,
    local: Result<T, Error>,
    words: Option<u64>,
    traffic: &mut Traffic,
) -> Result<T, Error> {
    let status = match &local {
        Ok(_) => OK,
        Err(e) if e.is_bad_input() => BAD_INPUT,
        Err(_) => FAILURE,
    };
    let all = all_gather(world, &[status, words.unwrap_or(0)], traffic);
    let local = local?;
    if let Some(rank) = all.chunks_exact(2).position(|r| r[0] != OK) {
        return Err(Error::OtherRank {
            rank,
            bad_input: all[2 * rank] == BAD_INPUT,
        });
    }
    if words.is_some() {
        let seen: Vec<u64> = all.chunks_exact(2).map(|r| r[1]).collect();
        if seen.iter().any(|&w| w != seen[0]) {
            return Err(Error::WitnessSizes { words: seen });
        }
    }
    Ok(local)
}

/// Rank 0 receives every other rank's bytes (its own come as `own`), in rank order; the other
/// ranks send theirs and get an empty list.
pub(crate) fn gather_bytes<C: Communicator>(world: &C, own: Vec<u8>, traffic: &mut Traffic) -> Vec<Vec<u8>> {
    if world.rank() != 0 {
        world.process_at_rank(0).send(&own[..]);
        traffic.sent += own.len() as u64;
        return Vec::new();
    }
    let mut all = vec![own];
    for rank in 1..world.size() {
        let (bytes, _status) = world.process_at_rank(rank).receive_vec::<u8>();
        traffic.received += bytes.len() as u64;
        all.push(bytes);
    }
    all
}

/// Rank 0's `value` on every rank.
pub(crate) fn broadcast<C: Communicator>(world: &C, value: &mut [u8], traffic: &mut Traffic) {
    world.process_at_rank(0).broadcast_into(value);
    let bytes = value.len() as u64;
    if world.rank() == 0 {
        traffic.sent += bytes * (world.size() as u64 - 1);
    } else {
        traffic.received += bytes;
    }
}
