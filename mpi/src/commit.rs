//! The distributed commit: every rank encodes and hashes its share, rank 0 merges the chaining
//! values (the chunk tree) or the shares' top digests (a row tree, [`crate::rows`]) into the
//! root or cap, and every rank returns the commitment.

use std::time::{Duration, Instant};

use mpi::traits::*;
use ntt_pcs::ntt_verify::tree::CHUNK_BYTES;
use ntt_pcs::{CodewordShape, CommitParams, Commitment, Encoder, Expansion, Shape, TreeKind, memory};

use crate::comm::{self, Traffic};
use crate::error::Error;
use crate::fold::share_message;
use crate::rows::{self, RowShare};
use crate::share::encode_share;
use crate::source::MessageSource;
use crate::split::Split;
use crate::tree::{Node, NodeSet, decode_nodes, encode_nodes};

/// Where this rank's time went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RankTimings {
    /// Reading (and folding) the message.
    pub read: Duration,
    /// Encoding the share and hashing it.
    pub encode: Duration,
    /// Agreeing, sending the nodes, merging (rank 0) and receiving the root.
    pub exchange: Duration,
    /// The whole call.
    pub total: Duration,
}

/// What one rank holds after a distributed commit.
#[derive(Debug)]
pub struct RankCommit {
    /// The commitment: the same on every rank, and the same as one machine's.
    pub commitment: Commitment,
    /// Which rows this rank owns.
    pub split: Split,
    /// This rank's rows and its part of the tree.
    pub(crate) share: ShareTree,
    /// Bytes this rank exchanged.
    pub traffic: Traffic,
    /// Words of the message this rank read.
    pub words_read: u64,
    /// Where the time went.
    pub timings: RankTimings,
}

/// A rank's rows and the part of the commitment's tree it keeps for openings.
#[derive(Debug)]
pub(crate) enum ShareTree {
    /// The BLAKE3 chunk tree: the rows and the chaining values of the nodes that tile them.
    Chunks {
        /// The share's rows.
        rows: Vec<u64>,
        /// The maximal aligned nodes that tile them.
        nodes: Vec<Node>,
    },
    /// A row tree: the share committed as a tree of its own (and rank 0's levels above).
    Rows(Box<RowShare>),
}

impl RankCommit {
    /// This rank's codeword rows, `split.first_row()` onwards, row-major.
    pub fn rows(&self) -> &[u64] {
        match &self.share {
            ShareTree::Chunks { rows, .. } => rows,
            ShareTree::Rows(share) => share.data.codeword(),
        }
    }

    /// The chaining values of the maximal aligned nodes of the chunk tree that tile this
    /// rank's rows (none for a row tree).
    pub fn nodes(&self) -> &[Node] {
        match &self.share {
            ShareTree::Chunks { nodes, .. } => nodes,
            ShareTree::Rows(_) => &[],
        }
    }
}

/// Commits to `witness` (the whole message as every rank sees it, laid out as `params` says) with
/// `world`'s ranks: each encodes and hashes its share of the codeword on `encoder`'s pool,
/// backend and domain, and rank 0 merges the digests at the shares' tops. Every rank returns the
/// commitment (root, or a row tree's cap) that one machine's `Committer::commit` computes with
/// `params`' scheme. Collective: every rank of `world` must call it with the same arguments.
///
/// Before any work, the ranks agree that the witness has the same size everywhere, that it makes
/// a shape (`expansion` as for one machine) and that the codeword splits between them (see
/// [`Split`]); a rank that fails at any step makes every rank return an error.
///
/// # Errors
/// An [`Error`]: this rank's own, or [`Error::OtherRank`].
pub fn commit<C: Communicator>(
    world: &C,
    encoder: &Encoder,
    witness: &(impl MessageSource + Sync + ?Sized),
    params: CommitParams,
    expansion: Expansion,
) -> Result<RankCommit, Error> {
    let started = Instant::now();
    let mut traffic = Traffic::default();
    let ranks = world.size() as usize;
    let rank = world.rank() as usize;
    let words = witness.words();
    comm::agree_counted(world, Ok(()), Some(words), &mut traffic)?;

    let split = (|| {
        let words = usize::try_from(words).unwrap_or(usize::MAX);
        let shape = Shape::of_witness(words, params.lane_count(), params.log_inv_rate_of(), expansion)?;
        let split = Split::new(shape, ranks, rank, encoder.domain(), params.scheme_of())?;
        let message_words = (shape.lanes() as u64) << split.log_share_message_rows();
        // A row tree's rank keeps its share's tree (the chunk tree's nodes are a few KiB).
        let share_tree_bytes = match params.scheme_of().tree() {
            TreeKind::Chunks => 0,
            TreeKind::Rows => CodewordShape::new(split.log_share_rows(), shape.lanes())
                .map_or(u64::MAX, ntt_pcs::row_tree_bytes),
        };
        memory::ensure_available(
            "this rank's share with its message and tree",
            split.share_bytes() + message_words * 8 + share_tree_bytes,
        )?;
        Ok(split)
    })();
    let split = comm::agree_counted(world, split, None, &mut traffic)?;

    let read_started = Instant::now();
    let msg = share_message(
        &split,
        encoder.domain(),
        params.layout_of(),
        witness,
        (encoder.pool().as_ref(), encoder.backend()),
    );
    let msg = comm::agree_counted(world, msg.map_err(Error::Read), None, &mut traffic)?;
    let read = read_started.elapsed();
    let words_read = if split.log_fold() == 0 {
        msg.len() as u64
    } else {
        words
    };

    let scheme = params.scheme_of();
    let encoding = Instant::now();
    let share = match scheme.tree() {
        TreeKind::Chunks => {
            encode_share(encoder, &split, &msg, params.layout_of()).map(|share| ShareTree::Chunks {
                rows: share.rows,
                nodes: share.nodes,
            })
        }
        TreeKind::Rows => rows::commit_share(encoder, &split, &msg, params.layout_of(), scheme).map(|data| {
            ShareTree::Rows(Box::new(RowShare {
                data,
                upper: Vec::new(),
            }))
        }),
    }
    .map_err(Error::from);
    let encode = encoding.elapsed();
    drop(msg);
    let mut share = comm::agree_counted(world, share, None, &mut traffic)?;

    let exchange_started = Instant::now();
    let commitment = match &mut share {
        ShareTree::Chunks { rows, nodes } => {
            let root = merge_root(world, &split, rows, &encode_nodes(nodes), &mut traffic)?;
            Commitment::new(root, split.shape().codeword()).with_basis(encoder.domain().basis().name())
        }
        ShareTree::Rows(share) => {
            let (commitment, upper) = rows::merge_cap(world, &split, scheme, &share.data, &mut traffic)?;
            share.upper = upper;
            commitment
        }
    };
    Ok(RankCommit {
        commitment,
        split,
        share,
        traffic,
        words_read,
        timings: RankTimings {
            read,
            encode,
            exchange: exchange_started.elapsed(),
            total: started.elapsed(),
        },
    })
}

/// Rank 0 gathers every rank's nodes and merges them into the root, which it sends to all.
fn merge_root<C: Communicator>(
    world: &C,
    split: &Split,
    rows: &[u64],
    nodes: &[u8],
    traffic: &mut Traffic,
) -> Result<[u8; 32], Error> {
    let gathered = comm::gather_bytes(world, nodes.to_vec(), traffic);
    // Status byte (0: a root follows), then the root.
    let mut message = [0u8; 33];
    if world.rank() == 0 {
        let len = split.shape().codeword_bytes();
        let merged = (|| {
            let mut set = NodeSet::new(len);
            for bytes in &gathered {
                set.extend(decode_nodes(bytes)?);
            }
            // A one-chunk codeword has no parents: its root is the chunk itself, on one rank.
            let single: Option<Vec<u8>> =
                (len <= CHUNK_BYTES).then(|| rows.iter().flat_map(|w| w.to_le_bytes()).collect());
            set.root(single.as_deref())
        })();
        match merged {
            Ok(root) => message[1..].copy_from_slice(&root),
            Err(_) => message[0] = 1,
        }
        comm::broadcast(world, &mut message, traffic);
        return Ok(merged?);
    }
    comm::broadcast(world, &mut message, traffic);
    if message[0] != 0 {
        return Err(Error::OtherRank {
            rank: 0,
            bad_input: false,
        });
    }
    Ok(message[1..].try_into().expect("32 bytes"))
}
