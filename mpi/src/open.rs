//! Openings of a distributed commitment: the proof bytes one machine's `ProverData::prove` gives.
//! A row tree's are put together in [`crate::rows`]; the chunk tree's here.
//!
//! The walk of docs/FORMAT.md §3 depends only on the tree's shape and the opened chunks, so every
//! rank knows which chunks and sibling nodes the proof needs. Each rank sends rank 0 the opened
//! chunks and the siblings that lie inside its range, with the nodes that cover its range; a
//! sibling that straddles ranks is a union of whole covering nodes (aligned nodes are nested or
//! disjoint), which rank 0 merges.

use std::convert::Infallible;

use mpi::traits::*;
use ntt_pcs::ntt_verify::tree::{ChunkSet, TreeShape, fold_root, subtree_cv};
use ntt_pcs::pieces::node_cv;
use ntt_pcs::{Opening, Proof};

use crate::comm::{self, Traffic};
use crate::commit::{RankCommit, ShareTree};
use crate::error::Error;
use crate::tree::{Node, NodeSet, TreeError, decode_nodes, encode_nodes};

/// Opens `rows` of a distributed commitment: every rank calls it with the same rows after
/// [`crate::commit`]; rank 0 returns the proof (byte-identical to one machine's, of the
/// commitment's tree), the others `None`. Collective.
///
/// # Errors
/// [`Error::Rows`] for no rows or a row outside the codeword (on every rank alike), else as for
/// [`crate::commit`].
pub fn open<C: Communicator>(world: &C, mine: &RankCommit, rows: &[u64]) -> Result<Option<Proof>, Error> {
    let shape = mine.split.shape();
    let n_rows = 1u64 << shape.log_rows();
    if rows.is_empty() {
        return Err(Error::Rows("no rows to open".to_owned()));
    }
    if let Some(row) = rows.iter().find(|&&r| r >= n_rows) {
        return Err(Error::Rows(format!(
            "row {row} is outside the codeword's {n_rows} rows"
        )));
    }
    match &mine.share {
        ShareTree::Chunks { rows: words, nodes } => {
            Ok(open_chunks(world, mine, words, nodes, rows)?.map(Proof::Chunks))
        }
        ShareTree::Rows(share) => {
            Ok(crate::rows::open(world, &mine.split, &mine.commitment, share, rows)?.map(Proof::Rows))
        }
    }
}

/// [`open`] of the chunk tree, for this rank's `words` and the `nodes` that tile them.
fn open_chunks<C: Communicator>(
    world: &C,
    mine: &RankCommit,
    words: &[u64],
    nodes: &[Node],
    rows: &[u64],
) -> Result<Option<Opening>, Error> {
    let shape = mine.split.shape();
    let tree = TreeShape::new(shape.codeword_bytes()).expect("a codeword has at least one byte");
    let chunks = ChunkSet::of_rows(8 * shape.lanes() as u64, rows.iter().copied())
        .expect("rows in range end within the codeword");
    let wanted = wanted_siblings(&tree, &chunks);
    let message = rank_message(mine, words, nodes, (&tree, &chunks), &wanted);
    let mut traffic = Traffic::default();
    let gathered = comm::gather_bytes(world, message, &mut traffic);
    if world.rank() != 0 {
        return Ok(None);
    }
    let (set, chunk_bytes) = merge_messages(&gathered, &tree, &chunks)?;
    let mut siblings = Vec::with_capacity(wanted.len());
    if tree.top() > 0 {
        let leaves = chunks
            .iter()
            .zip(&chunk_bytes)
            .map(|(c, chunk)| {
                let start = tree.node_bytes(0, c).map_or(0, |(start, _)| start);
                subtree_cv(start, chunk)
                    .map(|cv| (c, cv))
                    .ok_or(TreeError::Malformed)
            })
            .collect::<Result<_, _>>()?;
        let root = fold_root(&tree, leaves, |h, i| {
            let cv = set.cv(h, i)?;
            siblings.push(cv);
            Ok::<_, TreeError>(cv)
        })?;
        if root != Some(mine.commitment.root()) {
            return Err(TreeError::Malformed.into());
        }
    }
    Ok(Some(Opening::new(
        shape.log_rows(),
        shape.lanes() as u64,
        rows.to_vec(),
        chunk_bytes.concat(),
        siblings,
    )))
}

/// The siblings the walk asks for, (level, index) in its order: positions only, the same on
/// every rank.
fn wanted_siblings(tree: &TreeShape, chunks: &ChunkSet) -> Vec<(u32, u64)> {
    let mut wanted = Vec::new();
    if tree.top() > 0 {
        let leaves = chunks.iter().map(|c| (c, [0u8; 32])).collect();
        let _ = fold_root(tree, leaves, |h, i| {
            wanted.push((h, i));
            Ok::<_, Infallible>([0u8; 32])
        });
    }
    wanted
}

/// This rank's message to rank 0: node count, nodes (those that tile its range, and the
/// `wanted` siblings inside it), then the opened chunks inside its range (index, bytes).
fn rank_message(
    mine: &RankCommit,
    words: &[u64],
    nodes: &[Node],
    (tree, chunks): (&TreeShape, &ChunkSet),
    wanted: &[(u32, u64)],
) -> Vec<u8> {
    let (lo, hi) = (
        mine.split.share_offset(),
        mine.split.share_offset() + mine.split.share_bytes(),
    );
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let local = |(start, end): (u64, u64)| &bytes[(start - lo) as usize..(end - lo) as usize];
    let inside = |(start, end): (u64, u64)| start >= lo && end <= hi;

    let mut nodes = nodes.to_vec();
    for &(h, i) in wanted {
        let span = tree.node_bytes(h, i).expect("a sibling is a node of the tree");
        if inside(span) {
            nodes.push(Node {
                level: h,
                index: i,
                cv: node_cv(span.0, local(span)),
            });
        }
    }
    let mut message = (nodes.len() as u64).to_le_bytes().to_vec();
    message.extend(encode_nodes(&nodes));
    for c in chunks.iter() {
        let span = tree.node_bytes(0, c).expect("an opened chunk is in the tree");
        if inside(span) {
            message.extend_from_slice(&c.to_le_bytes());
            message.extend_from_slice(local(span));
        }
    }
    message
}

/// Rank 0's merge of every rank's [`rank_message`]: the nodes they sent, and the opened chunks'
/// bytes in the set's order.
fn merge_messages(
    gathered: &[Vec<u8>],
    tree: &TreeShape,
    chunks: &ChunkSet,
) -> Result<(NodeSet, Vec<Vec<u8>>), Error> {
    let mut set = NodeSet::new(tree.len());
    let mut chunk_bytes = vec![Vec::new(); chunks.count() as usize];
    for message in gathered {
        let (count, rest) = message.split_at_checked(8).ok_or(TreeError::Malformed)?;
        let count = u64::from_le_bytes(count.try_into().expect("8 bytes")) as usize;
        let (node_bytes, mut rest) = rest
            .split_at_checked(count * crate::tree::NODE_WIRE_BYTES)
            .ok_or(TreeError::Malformed)?;
        set.extend(decode_nodes(node_bytes)?);
        while !rest.is_empty() {
            let (c, tail) = rest.split_at_checked(8).ok_or(TreeError::Malformed)?;
            let c = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            let (start, end) = tree.node_bytes(0, c).ok_or(TreeError::Malformed)?;
            let (chunk, tail) = tail
                .split_at_checked((end - start) as usize)
                .ok_or(TreeError::Malformed)?;
            chunk_bytes[chunks.position(c).ok_or(TreeError::Malformed)? as usize] = chunk.to_vec();
            rest = tail;
        }
    }
    Ok((set, chunk_bytes))
}
