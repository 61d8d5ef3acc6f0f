//! [`Blake3Mmcs`]: Plonky3's `Mmcs<Poly64>` (matrix commitment scheme) on the engine's BLAKE3
//! commitment, hashed on the engine's pool and verified by `ntt_verify`.

mod bytes;
mod error;
mod proof;
mod tree;

pub use error::Blake3MmcsError;
pub use proof::{Blake3Proof, MatrixOpening};

use crate::EngineNtt;
use crate::words::as_le_bytes;
use bytes::row_bytes;
use ntt_runtime::{BuildError, PinPolicy, ThreadPool, ThreadPoolBuilder};
use ntt_verify::tree::{ChunkSet, TreeShape};
use ntt_verify::{CodewordShape, Commitment, Opening};
use p3_binary_field::Poly64;
use p3_commit::{BatchOpening, BatchOpeningRef, Mmcs};
use p3_matrix::{Dimensions, Matrix};
use p3_symmetric::Hash;
use proof::{leave_out_rows, put_back_rows};
use std::sync::Arc;
use tree::MatrixTree;

/// A commitment: 32 bytes, observed by Plonky3's challengers like any byte digest.
pub type Blake3Commitment = Hash<Poly64, u8, 32>;

/// Plonky3's [`Mmcs`] over `Poly64`, committing with BLAKE3 the way the engine commits a
/// codeword: a matrix's commitment is the standard BLAKE3 hash of its bytes (rows in order, each
/// value's `u64` little-endian), so `b3sum` of the saved matrix prints it and it equals the
/// engine's own commitment ([`ntt_verify::Commitment`]) to the same codeword. Use it in place of
/// `p3_merkle_tree::MerkleTreeMmcs` (for example in `p3_whir::WhirProver`) to hash with BLAKE3
/// on the engine's pool instead of Keccak.
///
/// - **Commit** hashes each matrix's 64 KiB pieces ([`ntt_pcs::pieces`], the engine's piece
///   level) in parallel on the engine's [`ThreadPool`] and keeps the chaining values from there
///   up (about 1/1024 of the matrix); an opening rehashes the nodes below, at most 63 KiB per
///   opened chunk.
/// - **Open** sends, per matrix, the 1 KiB BLAKE3 chunks that hold the opened rows (less the
///   rows themselves, which travel as the opened values) and the sibling chaining values up to
///   the root; a multi-opening sends each shared chunk and sibling once.
/// - **Verify** is [`ntt_verify::verify`], the engine's verifier.
///
/// A batch of several matrices is committed matrix by matrix; its commitment is the hash of the
/// matrices' roots (BLAKE3's key derivation mode), and each proof carries those roots. Heights
/// may differ and follow [`Mmcs::open_batch`]'s convention: index `i` opens row
/// `i >> (log2(max height) − log2(height))` of each matrix. Heights must be powers of two and
/// rows at least one value wide: [`Mmcs::commit`] panics otherwise (the trait gives it no error
/// path), and verification refuses such dimensions with an error.
///
/// As with every Plonky3 MMCS, the commitment does not bind the dimensions (a 4 × 2 and a 2 × 4
/// matrix with the same values hash alike): take them from public parameters, never from the
/// prover.
#[derive(Clone, Debug)]
pub struct Blake3Mmcs {
    pool: Arc<ThreadPool>,
}

impl Blake3Mmcs {
    /// Hashes on `pool`.
    pub fn new(pool: Arc<ThreadPool>) -> Self {
        Self { pool }
    }

    /// A pool of `workers` workers (0: `NTT_THREADS`, else one per core), pinned as
    /// [`EngineNtt::with_workers`] pins (one per core unless another pool of the process already
    /// pins workers). [`Blake3Mmcs::sharing_pool_of`] an `EngineNtt` avoids a second pool.
    ///
    /// # Panics
    /// If the pool cannot be started (more than [`ntt_runtime::MAX_WORKERS`] workers, the OS
    /// refuses threads, or `NTT_THREADS` is malformed); [`Blake3Mmcs::try_with_workers`]
    /// returns the error instead.
    pub fn with_workers(workers: usize) -> Self {
        Self::try_with_workers(workers).expect("start the engine's worker threads")
    }

    /// As [`Blake3Mmcs::with_workers`], for a prover that sizes its pool from configuration.
    ///
    /// # Errors
    /// The pool's [`BuildError`]: more than [`ntt_runtime::MAX_WORKERS`] workers, the OS
    /// refuses threads, or `NTT_THREADS` (for 0) or `NTT_PIN` or `NTT_IDLE_SPIN_US` is
    /// malformed.
    pub fn try_with_workers(workers: usize) -> Result<Self, BuildError> {
        let builder = ThreadPoolBuilder::new()
            .num_threads(workers)
            .thread_name(|i| format!("ntt-plonky3-mmcs-{i}"));
        let builder = if ntt_runtime::pinned_cpus().is_empty() {
            builder
        } else {
            builder.pin(PinPolicy::None)
        };
        Ok(Self::new(Arc::new(builder.build()?)))
    }

    /// Hashes on `ntt`'s pool: the NTT and the hashing take turns on the same workers.
    pub fn sharing_pool_of(ntt: &EngineNtt) -> Self {
        Self::new(Arc::clone(ntt.encoder().pool()))
    }

    /// The pool that hashes.
    pub fn pool(&self) -> &Arc<ThreadPool> {
        &self.pool
    }
}

/// What a prover keeps after a [`Blake3Mmcs`] commit: the matrices and the chaining values
/// their openings need.
pub struct Blake3ProverData<M> {
    matrices: Vec<M>,
    trees: Vec<MatrixTree>,
}

impl<M> Blake3ProverData<M> {
    /// The BLAKE3 hash of each matrix's bytes, in commit order.
    pub fn roots(&self) -> Vec<[u8; 32]> {
        self.trees.iter().map(MatrixTree::root).collect()
    }
}

impl<M> std::fmt::Debug for Blake3ProverData<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Blake3ProverData")
            .field("matrices", &self.matrices.len())
            .field("trees", &self.trees)
            .finish()
    }
}

/// The key-derivation context of a batch commitment: binds the roots of a batch of several
/// matrices, in a mode no plain BLAKE3 hash (a one-matrix commitment) can collide with.
const BATCH_CONTEXT: &str = "ntt-plonky3 2026-12-01 Blake3Mmcs roots of a batch of matrices";

/// The commitment to matrices with these roots: the root itself for one matrix.
fn batch_root(roots: &[[u8; 32]]) -> [u8; 32] {
    if let [root] = roots {
        return *root;
    }
    let mut hasher = blake3::Hasher::new_derive_key(BATCH_CONTEXT);
    hasher.update(&(roots.len() as u64).to_le_bytes());
    for root in roots {
        hasher.update(root);
    }
    *hasher.finalize().as_bytes()
}

/// The codeword shapes of a batch: at least one matrix, each a power of two tall, at least one
/// value wide, and within the engine's limits.
fn shapes(dimensions: impl IntoIterator<Item = Dimensions>) -> Result<Vec<CodewordShape>, Blake3MmcsError> {
    let shapes = dimensions
        .into_iter()
        .enumerate()
        .map(|(matrix, dims)| {
            let refuse = |reason| Blake3MmcsError::Dimensions {
                matrix,
                height: dims.height,
                width: dims.width,
                reason,
            };
            if dims.width == 0 {
                return Err(refuse("a row holds no values"));
            }
            if !dims.height.is_power_of_two() {
                return Err(refuse("the height is not a power of two"));
            }
            CodewordShape::new(dims.height.ilog2(), dims.width)
                .map_err(|_| refuse("it holds more than 2^62 bytes"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if shapes.is_empty() {
        return Err(Blake3MmcsError::EmptyBatch);
    }
    Ok(shapes)
}

/// The rows of a matrix of `2^log_rows` rows that the batch indices open, the tallest matrix
/// having `2^log_max_rows`.
fn reduced_rows(indices: &[usize], log_max_rows: u32, log_rows: u32) -> Vec<u64> {
    indices
        .iter()
        .map(|&index| (index >> (log_max_rows - log_rows)) as u64)
        .collect()
}

/// `rows`' distinct values in increasing order, each with the position of its first occurrence.
fn first_of_each(rows: &[u64]) -> Vec<(u64, usize)> {
    let mut firsts: Vec<(u64, usize)> = rows.iter().enumerate().map(|(q, &row)| (row, q)).collect();
    firsts.sort_unstable();
    firsts.dedup_by_key(|&mut (row, _)| row);
    firsts
}

impl Mmcs<Poly64> for Blake3Mmcs {
    type ProverData<M> = Blake3ProverData<M>;
    type Commitment = Blake3Commitment;
    type Proof = Blake3Proof;
    type MultiProof = Blake3Proof;
    type Error = Blake3MmcsError;

    /// # Panics
    /// On an empty batch, a matrix whose height is not a power of two, a matrix of width 0, or
    /// one of more than 2^62 bytes (the message says which).
    fn commit<M: Matrix<Poly64>>(&self, inputs: Vec<M>) -> (Self::Commitment, Self::ProverData<M>) {
        if let Err(e) = shapes(inputs.iter().map(Matrix::dimensions)) {
            panic!("Blake3Mmcs::commit: {e}");
        }
        let trees: Vec<MatrixTree> = inputs
            .iter()
            .map(|matrix| MatrixTree::build(matrix, &self.pool))
            .collect();
        let roots: Vec<[u8; 32]> = trees.iter().map(MatrixTree::root).collect();
        (
            Hash::from(batch_root(&roots)),
            Blake3ProverData {
                matrices: inputs,
                trees,
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
        let (mut values, proof) = self.open_multi_batch(&[index], prover_data);
        BatchOpening::new(values.pop().expect("one index opens one list of rows"), proof)
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
        let rows: Vec<&[Poly64]> = batch_opening.opened_values.iter().map(Vec::as_slice).collect();
        verify_openings(commit, dimensions, &[index], &[rows], batch_opening.opening_proof)
    }

    /// # Panics
    /// If an index is not a row of the tallest matrix.
    fn open_multi_batch<M: Matrix<Poly64>>(
        &self,
        indices: &[usize],
        prover_data: &Self::ProverData<M>,
    ) -> (Vec<Vec<Vec<Poly64>>>, Self::MultiProof) {
        let max_height = self.get_max_height(prover_data);
        if let Some(&index) = indices.iter().find(|&&index| index >= max_height) {
            panic!(
                "Blake3Mmcs: {}",
                Blake3MmcsError::IndexOutOfRange { index, max_height }
            );
        }
        if indices.is_empty() {
            return (Vec::new(), Blake3Proof::default());
        }
        let mut values = vec![Vec::with_capacity(prover_data.matrices.len()); indices.len()];
        let mut openings = Vec::with_capacity(prover_data.matrices.len());
        for (matrix, tree) in prover_data.matrices.iter().zip(&prover_data.trees) {
            let rows = reduced_rows(indices, max_height.ilog2(), matrix.height().ilog2());
            for (opened, &row) in values.iter_mut().zip(&rows) {
                let row = matrix
                    .row_slice(row as usize)
                    .expect("a reduced index is a row of its matrix");
                opened.push(row.to_vec());
            }
            let (chunk_bytes, siblings) = tree.open(matrix, &rows);
            let distinct: Vec<u64> = first_of_each(&rows).into_iter().map(|(row, _)| row).collect();
            let chunks =
                ChunkSet::of_rows(row_bytes(matrix), rows.iter().copied()).expect("rows of the matrix");
            openings.push(MatrixOpening {
                rest: leave_out_rows(&chunk_bytes, &chunks, row_bytes(matrix), &distinct),
                siblings,
            });
        }
        let roots = if prover_data.trees.len() > 1 {
            prover_data.roots()
        } else {
            Vec::new()
        };
        (values, Blake3Proof { roots, openings })
    }

    fn verify_multi_batch<R: AsRef<[Poly64]> + PartialEq>(
        &self,
        commit: &Self::Commitment,
        dimensions: &[Dimensions],
        indices: &[usize],
        opened_values: &[Vec<R>],
        proof: &Self::MultiProof,
    ) -> Result<(), Self::Error> {
        verify_openings(commit, dimensions, indices, opened_values, proof)
    }
}

/// Checks that `opened[q][m]` is row `indices[q]` (reduced to its height) of matrix `m` of the
/// batch committed to by `commit`.
fn verify_openings<R: AsRef<[Poly64]>>(
    commit: &Blake3Commitment,
    dimensions: &[Dimensions],
    indices: &[usize],
    opened: &[Vec<R>],
    proof: &Blake3Proof,
) -> Result<(), Blake3MmcsError> {
    let shapes = shapes(dimensions.iter().copied())?;
    let log_max_rows = shapes
        .iter()
        .map(CodewordShape::log_rows)
        .max()
        .expect("a batch holds a matrix");
    check_claims(dimensions, indices, opened, 1usize << log_max_rows)?;
    check_proof_sizes(dimensions.len(), indices.is_empty(), proof)?;
    if indices.is_empty() {
        return Ok(());
    }
    let roots = if dimensions.len() == 1 {
        vec![*commit.as_ref()]
    } else if batch_root(&proof.roots) == *commit.as_ref() {
        proof.roots.clone()
    } else {
        return Err(Blake3MmcsError::BatchRootMismatch);
    };
    for (matrix, ((shape, opening), root)) in shapes.iter().zip(&proof.openings).zip(roots).enumerate() {
        let claim = Claim {
            indices,
            log_max_rows,
            opened,
        };
        verify_matrix(&claim, matrix, shape, opening, root)?;
    }
    Ok(())
}

/// Checks the claim's size: every index within the tallest matrix (`max_height` rows), one
/// opened row per index and matrix, each as wide as its matrix.
fn check_claims<R: AsRef<[Poly64]>>(
    dimensions: &[Dimensions],
    indices: &[usize],
    opened: &[Vec<R>],
    max_height: usize,
) -> Result<(), Blake3MmcsError> {
    use Blake3MmcsError as E;
    if let Some(&index) = indices.iter().find(|&&index| index >= max_height) {
        return Err(E::IndexOutOfRange { index, max_height });
    }
    if opened.len() != indices.len() {
        return Err(E::WrongQueryCount {
            expected: indices.len(),
            got: opened.len(),
        });
    }
    for (query, rows) in opened.iter().enumerate() {
        if rows.len() != dimensions.len() {
            return Err(E::WrongBatchSize {
                query,
                expected: dimensions.len(),
                got: rows.len(),
            });
        }
        for (matrix, (row, dims)) in rows.iter().zip(dimensions).enumerate() {
            if row.as_ref().len() != dims.width {
                return Err(E::WrongRowWidth {
                    query,
                    matrix,
                    expected: dims.width,
                    got: row.as_ref().len(),
                });
            }
        }
    }
    Ok(())
}

/// Checks the proof's size for a batch of `matrices`: an opening per matrix and, for more than
/// one matrix, a root per matrix (nothing at all when no index is opened).
fn check_proof_sizes(matrices: usize, no_index: bool, proof: &Blake3Proof) -> Result<(), Blake3MmcsError> {
    use Blake3MmcsError as E;
    let expected_openings = if no_index { 0 } else { matrices };
    if proof.openings.len() != expected_openings {
        return Err(E::WrongProofSize {
            expected: expected_openings,
            got: proof.openings.len(),
        });
    }
    let expected_roots = if no_index || matrices == 1 { 0 } else { matrices };
    if proof.roots.len() != expected_roots {
        return Err(E::WrongRootCount {
            matrices,
            expected: expected_roots,
            got: proof.roots.len(),
        });
    }
    Ok(())
}

/// What the verifier was asked: the indices into the tallest matrix (2^`log_max_rows` rows)
/// and the rows claimed at them.
struct Claim<'a, R> {
    indices: &'a [usize],
    log_max_rows: u32,
    opened: &'a [Vec<R>],
}

/// Checks matrix `matrix` of the batch (its tree's root is `root`): its claimed rows, put back
/// into the opening's chunks, verify against the root.
fn verify_matrix<R: AsRef<[Poly64]>>(
    claim: &Claim<'_, R>,
    matrix: usize,
    shape: &CodewordShape,
    opening: &MatrixOpening,
    root: [u8; 32],
) -> Result<(), Blake3MmcsError> {
    use Blake3MmcsError as E;
    let opened = claim.opened;
    let rows = reduced_rows(claim.indices, claim.log_max_rows, shape.log_rows());
    let claimed: Vec<_> = opened.iter().map(|q| as_le_bytes(q[matrix].as_ref())).collect();
    let distinct: Vec<(u64, &[u8])> = first_of_each(&rows)
        .into_iter()
        .map(|(row, q)| (row, &*claimed[q]))
        .collect();
    // A checked codeword shape has at least one byte and reduced rows are within it.
    let chunks = ChunkSet::of_rows(shape.row_bytes(), rows.iter().copied()).expect("rows of the matrix");
    let tree = TreeShape::new(shape.bytes()).expect("a codeword has at least one byte");
    let total = chunks
        .byte_len(&tree)
        .expect("rows of the matrix lie within its tree");
    let chunk_bytes =
        put_back_rows(&opening.rest, total, &chunks, shape.row_bytes(), &distinct).ok_or(E::RestBytes {
            matrix,
            expected: total - distinct.len() as u64 * shape.row_bytes(),
            found: opening.rest.len() as u64,
        })?;
    let engine_opening = Opening::new(
        shape.log_rows(),
        shape.lanes() as u64,
        rows.clone(),
        chunk_bytes,
        opening.siblings.clone(),
    );
    let rows: Vec<usize> = rows.iter().map(|&row| row as usize).collect();
    let committed = ntt_verify::verify(&Commitment::new(root, *shape), &rows, &engine_opening)
        .map_err(|source| E::Opening { matrix, source })?;
    // The verified rows are the claimed ones put back; only an index opened twice with two
    // different rows can differ here.
    for (query, (words, claim)) in committed.iter().zip(opened).enumerate() {
        let claim = claim[matrix].as_ref();
        if words
            .iter()
            .zip(claim)
            .any(|(&word, value)| word != value.to_bits())
        {
            return Err(E::RowMismatch { query, matrix });
        }
    }
    Ok(())
}
