//! The ntt-engine transform as Plonky3's additive NTT: [`EngineNtt`] implements
//! `p3_binary_dft::AdditiveNtt<Poly64>`, so a Plonky3 prover over `Poly64` (for example WHIR
//! through `p3_binary_pcs::whir::BinaryWhirDomain<Poly64, EngineNtt>`) commits with the engine
//! and produces the same proofs, byte for byte, as with Plonky3's own `LchNtt`.
//!
//! ```
//! use ntt_plonky3::EngineNtt;
//! use p3_binary_dft::{AdditiveNtt, LchNtt};
//! use p3_binary_field::Poly64;
//! use p3_matrix::dense::RowMajorMatrix;
//!
//! let ntt = EngineNtt::with_workers(1);
//! let mat = RowMajorMatrix::new((0..64u64).map(Poly64::new).collect(), 4);
//! assert_eq!(ntt.ntt_batch_padded(mat.clone(), 2), LchNtt::default().ntt_batch_padded(mat, 2));
//! ```
//!
//! # Merkle trees
//! [`KeccakMerkleMmcs`], [`Blake3MerkleMmcs`] and [`Sha256MerkleMmcs`] are Plonky3's
//! `MerkleTreeMmcs` ([`PlonkyMerkleMmcs`]) of Keccak-256, BLAKE3 and SHA-256 (nodes by one bare
//! SHA-256 compression, Plonky3's `Sha256Compress`), byte for byte: the same commitments, openings
//! and proofs, so a proof made with them verifies with Plonky3 alone. Made with
//! `sharing_pool_of(&ntt, cap_height)`, the tree hashes on the NTT's pool, and the NTT hashes
//! each codeword's rows in the tasks that finish them, so committing the codeword reads it no
//! more. `examples/whir_minimal.rs` proves binary WHIR with [`EngineNtt`] and
//! [`KeccakMerkleMmcs`] and verifies the proof's bytes with Plonky3's `LchNtt` and
//! `MerkleTreeMmcs`; in short:
//!
//! ```
//! use ntt_plonky3::{EngineNtt, Keccak256Hash, KeccakMerkleMmcs, PlonkyMerkleMmcs, Poly64};
//! use p3_binary_dft::AdditiveNtt;
//! use p3_commit::Mmcs;
//! use p3_matrix::dense::RowMajorMatrix;
//! use p3_symmetric::{CompressionFunctionFromHasher, SerializingHasher};
//!
//! let ntt = EngineNtt::with_workers(1);
//! let cap_height = 1;
//! let mmcs = KeccakMerkleMmcs::sharing_pool_of(&ntt, cap_height);
//! let message = RowMajorMatrix::new((0..64u64).map(Poly64::new).collect(), 4);
//! let codeword = ntt.ntt_batch_padded(message, 1); // its rows hashed as they were finished
//! let (commitment, data) = mmcs.commit_matrix(codeword.clone());
//! let ours = mmcs.open_batch(5, &data);
//!
//! // Plonky3's own tree: the same commitment and the same opening.
//! let plonky = PlonkyMerkleMmcs::<Keccak256Hash>::new(
//!     SerializingHasher::new(Keccak256Hash),
//!     CompressionFunctionFromHasher::new(Keccak256Hash),
//!     cap_height,
//! );
//! let (expected, plonky_data) = plonky.commit_matrix(codeword);
//! assert_eq!(commitment, expected);
//! let theirs = plonky.open_batch(5, &plonky_data);
//! assert_eq!(ours.opened_values, theirs.opened_values);
//! assert_eq!(ours.opening_proof, theirs.opening_proof);
//! ```
//!
//! [`Blake3Mmcs`] is another `p3_commit::Mmcs<Poly64>`: the engine's own BLAKE3 commitment, a
//! matrix's commitment being the BLAKE3 hash of its bytes, hashed on the engine's pool, with
//! openings checked by `ntt_verify::verify`. Its proofs differ from Plonky3's (and are larger:
//! each query opens a whole 1 KiB chunk):
//!
//! ```
//! use ntt_plonky3::{Blake3Mmcs, EngineNtt};
//! use p3_binary_field::Poly64;
//! use p3_commit::Mmcs;
//! use p3_matrix::{Matrix, dense::RowMajorMatrix};
//!
//! let ntt = EngineNtt::with_workers(1);
//! let mmcs = Blake3Mmcs::sharing_pool_of(&ntt);
//! let mat = RowMajorMatrix::new((0..64u64).map(Poly64::new).collect(), 4);
//! let dims = [mat.dimensions()];
//! let (commitment, data) = mmcs.commit_matrix(mat);
//! let opening = mmcs.open_batch(5, &data);
//! assert_eq!(opening.opened_values[0], (20..24u64).map(Poly64::new).collect::<Vec<_>>());
//! assert!(mmcs.verify_batch(&commitment, &dims, 5, (&opening).into()).is_ok());
//! assert!(mmcs.verify_batch(&commitment, &dims, 6, (&opening).into()).is_err());
//! ```
//!
//! # Sharing the cores with rayon
//! Plonky3 hashes, folds and runs sumcheck on its rayon pool; the engine encodes on its own pool.
//! The two never run at the same time within one prover call (an encode returns before Plonky3
//! goes on), so both may have one worker per core. Between its calls the engine's workers keep
//! looking for the next one for [`IDLE_SPIN`] (20 ms), yielding their CPU on every look, so
//! rayon's threads run there meanwhile; then they park.
//! [`EngineNtt::with_workers`] pins its workers one per core (rayon's never pin, so its threads
//! run where the engine leaves room) unless another pool of the process already pins workers;
//! two pinned pools would stack on the same cores. To run a prover on fewer cores, size both
//! pools alike (`RAYON_NUM_THREADS` and `NTT_THREADS`, or a rayon `ThreadPool::install` and
//! [`EngineNtt::with_workers`]).

#![deny(missing_docs)]

mod merkle;
mod mmcs;
mod ntt;
mod words;

pub use merkle::{
    Blake3MerkleMmcs, KeccakMerkleMmcs, MerkleMmcs, MerkleProverData, MerkleStats, PlonkyMerkleMmcs, RowHash,
    Sha256MerkleMmcs,
};
// What every prover using this crate names: the field, and the hashes of the trees.
pub use p3_binary_field::{Poly64, Poly192};
pub use p3_blake3::Blake3;
pub use p3_keccak::Keccak256Hash;
pub use p3_sha256::{Sha256, Sha256Compress};

pub use mmcs::{Blake3Commitment, Blake3Mmcs, Blake3MmcsError, Blake3Proof, Blake3ProverData, MatrixOpening};
pub use ntt::{EngineNtt, IDLE_SPIN};
