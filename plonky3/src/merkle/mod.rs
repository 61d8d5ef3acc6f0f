//! [`MerkleMmcs`]: Plonky3's own binary Merkle trees (`p3_merkle_tree::MerkleTreeMmcs` of a byte
//! hash), built on the engine's pool and, for a codeword [`EngineNtt`] has just encoded, from the
//! row digests the encoder's tasks made while the rows were in their caches.

mod fused;
mod open;
mod source;

pub use fused::MerkleStats;
pub use ntt_pcs::RowHash;

use crate::EngineNtt;
pub(crate) use fused::FusedLeaves;
use ntt_pcs::layers::{self, LayerPlan, LayerTimes};
use ntt_runtime::{BuildError, PinPolicy, ThreadPool, ThreadPoolBuilder};
use ntt_verify::row_hash::Digest;
use p3_binary_field::Poly64;
use p3_commit::{BatchOpening, BatchOpeningRef, Mmcs};
use p3_matrix::{Dimensions, Matrix};
use p3_merkle_tree::{MerkleTreeError, MerkleTreeMmcs, PrunedMerklePaths};
use p3_symmetric::{MerkleCap, SerializingHasher};
use source::MatrixRows;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// Plonky3's `MerkleTreeMmcs` of the hash `H` and its node function, which this Mmcs matches
/// byte for byte: `CompressionFunctionFromHasher<H, 2, 32>` for Keccak and BLAKE3,
/// `Sha256Compress` for SHA-256.
pub type PlonkyMerkleMmcs<H> =
    MerkleTreeMmcs<Poly64, u8, SerializingHasher<H>, <H as RowHash>::Compress, 2, 32>;

/// [`MerkleMmcs`] with Keccak-256: Plonky3's WHIR benchmark tree.
pub type KeccakMerkleMmcs = MerkleMmcs<p3_keccak::Keccak256Hash>;

/// [`MerkleMmcs`] with BLAKE3.
pub type Blake3MerkleMmcs = MerkleMmcs<p3_blake3::Blake3>;

/// [`MerkleMmcs`] with SHA-256: Plonky3's `MerkleTreeMmcs<Poly64, u8,
/// SerializingHasher<Sha256>, Sha256Compress, 2, 32>`, whose nodes are one SHA-256 compression
/// without padding.
pub type Sha256MerkleMmcs = MerkleMmcs<p3_sha256::Sha256>;

/// Plonky3's binary Merkle tree commitment over `Poly64` matrices, with the hash `H`
/// ([`KeccakMerkleMmcs`], [`Blake3MerkleMmcs`], [`Sha256MerkleMmcs`]): commitments, openings and
/// proofs are, byte for byte, those of [`PlonkyMerkleMmcs<H>`] (`MerkleTreeMmcs<Poly64, u8,
/// SerializingHasher<H>, H::Compress, 2, 32>`) with the same cap height, so either side
/// verifies the other's proofs. Several matrices of different heights (on Plonky3's
/// `⌈max / 2^k⌉` ladder) share one tree as in Plonky3: the tallest are hashed into the leaves,
/// shorter ones injected where their height lands.
///
/// - **Commit** hashes rows and tree levels in parallel on the engine's pool, each task handing
///   the hasher a run of messages already back to back in memory. When the Mmcs shares its pool
///   with an [`EngineNtt`] ([`MerkleMmcs::sharing_pool_of`]) and commits a codeword that NTT has
///   just encoded, the row digests come from the encoder's own tasks, hashed as each block of
///   rows was finished (see `docs/ARCHITECTURE.md`); any other matrix, or one changed since, is
///   hashed here.
/// - **Open** and **multi-open** send Plonky3's sibling paths (pruned for several indices).
/// - **Verify** is Plonky3's own `verify_batch` and `verify_multi_batch`.
///
/// ```
/// use ntt_plonky3::{EngineNtt, KeccakMerkleMmcs, PlonkyMerkleMmcs};
/// use p3_binary_dft::AdditiveNtt;
/// use p3_binary_field::Poly64;
/// use p3_commit::{BatchOpeningRef, Mmcs};
/// use p3_keccak::Keccak256Hash;
/// use p3_matrix::{Matrix, dense::RowMajorMatrix};
/// use p3_symmetric::{CompressionFunctionFromHasher, SerializingHasher};
///
/// let ntt = EngineNtt::with_workers(1);
/// let mmcs = KeccakMerkleMmcs::sharing_pool_of(&ntt, 1);
/// let mut message = RowMajorMatrix::new((0..64u64).map(Poly64::new).collect(), 4);
/// message.values.resize(128, Poly64::new(0));
/// let codeword = ntt.ntt_batch_padded(message, 1); // rows hashed as they are finished
/// let dims = [codeword.dimensions()];
/// let plonky3 = PlonkyMerkleMmcs::<Keccak256Hash>::new(
///     SerializingHasher::new(Keccak256Hash),
///     CompressionFunctionFromHasher::new(Keccak256Hash),
///     1,
/// );
/// let expected = plonky3.commit_matrix(codeword.clone()).0;
/// // The codeword itself, as the NTT returned it: its digests come from the encoder.
/// let (commitment, data) = mmcs.commit_matrix(codeword);
/// assert_eq!(commitment, expected);
/// let opening = mmcs.open_batch(5, &data);
/// let sent = BatchOpeningRef::new(&opening.opened_values, &opening.opening_proof);
/// assert!(plonky3.verify_batch(&commitment, &dims, 5, sent).is_ok());
/// assert_eq!(mmcs.stats().fused, 1);
/// ```
pub struct MerkleMmcs<H: RowHash> {
    pool: Arc<ThreadPool>,
    cap_height: usize,
    fused: Option<Arc<FusedLeaves>>,
    times: Arc<LayerTimes>,
    verifier: PlonkyMerkleMmcs<H>,
}

impl<H: RowHash> Clone for MerkleMmcs<H> {
    fn clone(&self) -> Self {
        Self {
            pool: Arc::clone(&self.pool),
            cap_height: self.cap_height,
            fused: self.fused.clone(),
            times: Arc::clone(&self.times),
            verifier: self.verifier.clone(),
        }
    }
}

impl<H: RowHash> std::fmt::Debug for MerkleMmcs<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MerkleMmcs")
            .field("hash", &H::NAME)
            .field("cap_height", &self.cap_height)
            .field("workers", &self.pool.num_workers())
            .field("fused", &self.fused)
            .finish()
    }
}

impl<H: RowHash> MerkleMmcs<H> {
    /// Hashes on `pool`, committing to the layer `cap_height` below the root (`2^cap_height`
    /// digests; 0: the root alone).
    pub fn on_pool(pool: Arc<ThreadPool>, cap_height: usize) -> Self {
        Self {
            pool,
            cap_height,
            fused: None,
            times: Arc::default(),
            verifier: PlonkyMerkleMmcs::new(SerializingHasher::new(H::HASHER), H::COMPRESS, cap_height),
        }
    }

    /// Hashes on a pool of its own, one worker per core (`NTT_THREADS` overrides), pinned as
    /// [`EngineNtt::with_workers`] pins. [`MerkleMmcs::sharing_pool_of`] an `EngineNtt` avoids a
    /// second pool and hashes codeword rows as the NTT finishes them.
    ///
    /// # Panics
    /// If the pool cannot be started (the OS refuses threads, or `NTT_THREADS` is malformed);
    /// [`MerkleMmcs::try_new`] returns the error instead.
    pub fn new(cap_height: usize) -> Self {
        Self::try_new(cap_height).expect("start the engine's worker threads")
    }

    /// As [`MerkleMmcs::new`], for a prover that must not panic when its pool cannot start.
    ///
    /// # Errors
    /// The pool's [`BuildError`]: the OS refuses threads, or `NTT_THREADS`, `NTT_PIN` or
    /// `NTT_IDLE_SPIN_US` is malformed.
    pub fn try_new(cap_height: usize) -> Result<Self, BuildError> {
        let builder = ThreadPoolBuilder::new().thread_name(|i| format!("ntt-plonky3-merkle-{i}"));
        let builder = if ntt_runtime::pinned_cpus().is_empty() {
            builder
        } else {
            builder.pin(PinPolicy::None)
        };
        Ok(Self::on_pool(Arc::new(builder.build()?), cap_height))
    }

    /// Hashes on `ntt`'s pool, and has `ntt` (and its clones) hash the rows of every codeword it
    /// encodes from now on with this hash, in the tasks that finish them: committing that
    /// codeword next takes those digests instead of reading the rows again. One hash per NTT:
    /// attaching a Mmcs of another hash replaces this one's (this one then hashes every row
    /// itself, with the same results).
    pub fn sharing_pool_of(ntt: &EngineNtt, cap_height: usize) -> Self {
        let fused = ntt.fused_leaves();
        fused.attach(fused::hash_id::<H>(), ntt_pcs::row_hash::hash_many::<H>);
        Self {
            fused: Some(Arc::clone(fused)),
            ..Self::on_pool(Arc::clone(ntt.encoder().pool()), cap_height)
        }
    }

    /// The pool that hashes.
    pub fn pool(&self) -> &Arc<ThreadPool> {
        &self.pool
    }

    /// The cap height commitments are made at.
    pub fn cap_height(&self) -> usize {
        self.cap_height
    }

    /// What this Mmcs (and its clones) did so far: how many matrices took the encoder's row
    /// digests or found their codeword changed since, and where the commit time went.
    pub fn stats(&self) -> MerkleStats {
        let mut stats = self.fused.as_ref().map(|f| f.counts()).unwrap_or_default();
        stats.leaf_hash_ns = self.times.leaves.load(Ordering::Relaxed);
        stats.node_hash_ns = self.times.nodes.load(Ordering::Relaxed);
        stats
    }
}

/// What a prover keeps after a [`MerkleMmcs`] commit: the matrices and every digest layer.
pub struct MerkleProverData<M> {
    matrices: Vec<M>,
    layers: Vec<Vec<Digest>>,
}

impl<M> MerkleProverData<M> {
    /// The tree's root.
    pub fn root(&self) -> [u8; 32] {
        self.layers.last().expect("a tree has a root layer")[0]
    }
}

impl<M> std::fmt::Debug for MerkleProverData<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MerkleProverData")
            .field("matrices", &self.matrices.len())
            .field("layers", &self.layers.iter().map(Vec::len).collect::<Vec<_>>())
            .finish()
    }
}

impl<H: RowHash> Mmcs<Poly64> for MerkleMmcs<H> {
    type ProverData<M> = MerkleProverData<M>;
    type Commitment = MerkleCap<Poly64, [u8; 32]>;
    type Proof = Vec<[u8; 32]>;
    type MultiProof = PrunedMerklePaths<u8, 32>;
    type Error = MerkleTreeError;

    /// # Panics
    /// As Plonky3's: on an empty batch, or heights off the `⌈max / 2^k⌉` ladder.
    fn commit<M: Matrix<Poly64>>(&self, inputs: Vec<M>) -> (Self::Commitment, Self::ProverData<M>) {
        let heights: Vec<usize> = inputs.iter().map(Matrix::height).collect();
        if let Err(e) = layers::check_heights(&heights) {
            panic!("MerkleMmcs::commit: {e}");
        }
        let plan = LayerPlan::new(&heights);
        let sources: Vec<MatrixRows<'_, M>> = inputs.iter().map(MatrixRows).collect();
        // A matrix alone at its height takes the encoder's row digests, if it hashed this one.
        let handed = |group: &[usize]| match (group, self.fused.as_deref()) {
            ([m], Some(fused)) => fused.take(fused::hash_id::<H>(), &inputs[*m], &self.pool),
            _ => None,
        };
        let layers = layers::build::<H, _>(&sources, &plan, &self.pool, handed, &self.times);
        drop(sources);
        let cap = layers::cap(&layers, self.cap_height);
        (
            MerkleCap::new(cap),
            MerkleProverData {
                matrices: inputs,
                layers,
            },
        )
    }

    /// # Panics
    /// If `index` is not a row of the tallest matrix.
    fn open_batch<M: Matrix<Poly64>>(
        &self,
        index: usize,
        prover_data: &Self::ProverData<M>,
    ) -> BatchOpening<Poly64, Self> {
        let max_height = self.get_max_height(prover_data);
        assert!(
            index < max_height,
            "index {index} out of bounds for height {max_height}"
        );
        BatchOpening::new(
            open::opened_rows(&prover_data.matrices, index),
            open::siblings(&prover_data.layers, self.cap_height, index),
        )
    }

    fn get_matrices<'a, M: Matrix<Poly64>>(&self, prover_data: &'a Self::ProverData<M>) -> Vec<&'a M> {
        prover_data.matrices.iter().collect()
    }

    fn verify_batch(
        &self,
        commit: &Self::Commitment,
        dimensions: &[Dimensions],
        index: usize,
        batch_opening: BatchOpeningRef<'_, Poly64, Self>,
    ) -> Result<(), Self::Error> {
        let (values, proof) = batch_opening.unpack();
        self.verifier
            .verify_batch(commit, dimensions, index, BatchOpeningRef::new(values, proof))
    }

    /// # Panics
    /// If an index is not a row of the tallest matrix.
    fn open_multi_batch<M: Matrix<Poly64>>(
        &self,
        indices: &[usize],
        prover_data: &Self::ProverData<M>,
    ) -> (Vec<Vec<Vec<Poly64>>>, Self::MultiProof) {
        let max_height = self.get_max_height(prover_data);
        let values = indices
            .iter()
            .map(|&index| {
                assert!(
                    index < max_height,
                    "index {index} out of bounds for height {max_height}"
                );
                open::opened_rows(&prover_data.matrices, index)
            })
            .collect();
        let sibling_hashes = open::pruned_siblings(&prover_data.layers, self.cap_height, indices);
        (values, PrunedMerklePaths { sibling_hashes })
    }

    fn verify_multi_batch<R: AsRef<[Poly64]> + PartialEq>(
        &self,
        commit: &Self::Commitment,
        dimensions: &[Dimensions],
        indices: &[usize],
        opened_values: &[Vec<R>],
        proof: &Self::MultiProof,
    ) -> Result<(), Self::Error> {
        self.verifier
            .verify_multi_batch(commit, dimensions, indices, opened_values, proof)
    }
}
