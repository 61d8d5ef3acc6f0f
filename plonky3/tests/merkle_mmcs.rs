//! `KeccakMerkleMmcs` and `Blake3MerkleMmcs` against Plonky3's `MerkleTreeMmcs` of the same hash
//! as the oracle: on random batches (several heights on Plonky3's ladder, odd heights, one row,
//! widths 1 to 70, cap heights 0 to 5, both hashes, plain and inside `ExtensionMmcs`), the
//! commitments, opened rows, single and pruned multi-proofs are the same, each side verifies the
//! other's, and tampering is refused. Then the fused path: a codeword `EngineNtt` has just encoded
//! is committed from the encoder's row digests, and a matrix it did not encode, or one changed
//! since, still gets Plonky3's commitment.

use ntt_plonky3::{EngineNtt, MerkleMmcs, PlonkyMerkleMmcs, RowHash};
use p3_binary_dft::AdditiveNtt;
use p3_binary_field::{Poly64, Poly192};
use p3_blake3::Blake3;
use p3_commit::{BatchOpeningRef, ExtensionMmcs, Mmcs};
use p3_field::BasedVectorSpace;
use p3_keccak::Keccak256Hash;
use p3_matrix::dense::RowMajorMatrix;
use p3_matrix::{Dimensions, Matrix};
use p3_sha256::{Sha256, Sha256Compress};
use p3_symmetric::{CompressionFunctionFromHasher, SerializingHasher};
use proptest::prelude::*;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use std::sync::Arc;

fn plonky<H: RowHash>(cap_height: usize) -> PlonkyMerkleMmcs<H> {
    PlonkyMerkleMmcs::new(SerializingHasher::new(H::HASHER), H::COMPRESS, cap_height)
}

/// The oracles are Plonky3's own trees, spelled out: each hash with the node function Plonky3
/// pairs it with (the assignments fail to compile if the aliases name anything else).
#[test]
fn the_oracles_are_plonky3s_trees() {
    type Tree<H, C> = p3_merkle_tree::MerkleTreeMmcs<Poly64, u8, SerializingHasher<H>, C, 2, 32>;
    let _: Tree<Keccak256Hash, CompressionFunctionFromHasher<Keccak256Hash, 2, 32>> =
        plonky::<Keccak256Hash>(0);
    let _: Tree<Blake3, CompressionFunctionFromHasher<Blake3, 2, 32>> = plonky::<Blake3>(0);
    let _: Tree<Sha256, Sha256Compress> = plonky::<Sha256>(0);
}

fn pool() -> Arc<ntt_runtime::ThreadPool> {
    Arc::new(
        ntt_runtime::ThreadPoolBuilder::new()
            .num_threads(2)
            .pin(ntt_runtime::PinPolicy::None)
            .build()
            .expect("pool"),
    )
}

fn random_matrix(rng: &mut ChaCha8Rng, height: usize, width: usize) -> RowMajorMatrix<Poly64> {
    RowMajorMatrix::new(
        (0..height * width).map(|_| Poly64::new(rng.random())).collect(),
        width,
    )
}

/// `⌈max / 2^k⌉`, a height Plonky3 accepts beside a tallest matrix of `max` rows.
fn ladder(max: usize, k: u32) -> usize {
    ((max - 1) >> k) + 1
}

/// Commits `matrices` with both Mmcs and checks everything against each other at `indices`.
fn check_batch<H: RowHash>(engine: &MerkleMmcs<H>, matrices: Vec<RowMajorMatrix<Poly64>>, indices: &[usize]) {
    let oracle = plonky::<H>(engine.cap_height());
    let dims: Vec<Dimensions> = matrices.iter().map(Matrix::dimensions).collect();
    let (commitment, data) = engine.commit(matrices.clone());
    let (expected, oracle_data) = oracle.commit(matrices);
    assert_eq!(commitment, expected, "commitments differ for {dims:?}");
    for &index in indices {
        let ours = engine.open_batch(index, &data);
        let theirs = oracle.open_batch(index, &oracle_data);
        assert_eq!(ours.opened_values, theirs.opened_values, "rows differ at {index}");
        assert_eq!(
            ours.opening_proof, theirs.opening_proof,
            "proofs differ at {index}"
        );
        let ours_ref = BatchOpeningRef::new(&ours.opened_values, &ours.opening_proof);
        assert!(oracle.verify_batch(&commitment, &dims, index, ours_ref).is_ok());
        let theirs_ref = BatchOpeningRef::new(&theirs.opened_values, &theirs.opening_proof);
        assert!(engine.verify_batch(&expected, &dims, index, theirs_ref).is_ok());
        // A changed sibling, or a changed value, is refused.
        if let Some(sibling) = ours.opening_proof.first() {
            let mut proof = ours.opening_proof.clone();
            proof[0] = sibling.map(|b| b ^ 1);
            let opening = BatchOpeningRef::new(&ours.opened_values, &proof);
            assert!(engine.verify_batch(&commitment, &dims, index, opening).is_err());
        }
        let mut values = ours.opened_values.clone();
        if let Some(value) = values.iter_mut().flatten().next() {
            *value += Poly64::new(1);
            let opening = BatchOpeningRef::new(&values, &ours.opening_proof);
            assert!(engine.verify_batch(&commitment, &dims, index, opening).is_err());
        }
    }
    let (values, proof) = engine.open_multi_batch(indices, &data);
    let (oracle_values, oracle_proof) = oracle.open_multi_batch(indices, &oracle_data);
    assert_eq!(values, oracle_values);
    assert_eq!(
        proof.sibling_hashes, oracle_proof.sibling_hashes,
        "pruned proofs differ"
    );
    assert!(
        oracle
            .verify_multi_batch(&commitment, &dims, indices, &values, &proof)
            .is_ok()
    );
    assert!(
        engine
            .verify_multi_batch(&expected, &dims, indices, &oracle_values, &oracle_proof)
            .is_ok()
    );
}

/// A random batch: a tallest height, then matrices on its ladder, each of its own width.
fn batch_strategy() -> impl Strategy<Value = (usize, Vec<(u32, usize)>, usize, u64)> {
    (
        prop_oneof![1usize..=40, 41usize..=700, Just(1024usize), Just(4096usize)],
        proptest::collection::vec((0u32..12, 1usize..=70), 1..=4),
        0usize..=5,
        any::<u64>(),
    )
}

fn run_random_batch<H: RowHash>(
    pool: &Arc<ntt_runtime::ThreadPool>,
    max: usize,
    shapes: &[(u32, usize)],
    cap: usize,
    seed: u64,
) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let log_max = max.next_power_of_two().trailing_zeros();
    // The first matrix is a tallest one; the others lie anywhere on the ladder.
    let matrices: Vec<_> = shapes
        .iter()
        .enumerate()
        .map(|(i, &(k, width))| {
            let height = if i == 0 { max } else { ladder(max, k.min(log_max)) };
            random_matrix(&mut rng, height, width)
        })
        .collect();
    let mut indices = vec![0, max - 1];
    indices.extend((0..6).map(|_| rng.random_range(0..max)));
    indices.push(indices[2]);
    let engine = MerkleMmcs::<H>::on_pool(Arc::clone(pool), cap);
    check_batch(&engine, matrices, &indices);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn keccak_trees_are_plonky3s((max, shapes, cap, seed) in batch_strategy()) {
        run_random_batch::<Keccak256Hash>(&pool(), max, &shapes, cap, seed);
    }

    #[test]
    fn blake3_trees_are_plonky3s((max, shapes, cap, seed) in batch_strategy()) {
        run_random_batch::<Blake3>(&pool(), max, &shapes, cap, seed);
    }

    #[test]
    fn sha256_trees_are_plonky3s((max, shapes, cap, seed) in batch_strategy()) {
        run_random_batch::<Sha256>(&pool(), max, &shapes, cap, seed);
    }
}

#[test]
fn fixed_shapes_match_plonky3_with_every_hash() {
    let pool = pool();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    // One row; odd heights; a ragged ladder; several tallest matrices; wide rows (past one
    // Keccak block and past Plonky3's 8 KiB group); a tree tall enough for several leaf tasks.
    let shapes: &[&[(usize, usize)]] = &[
        &[(1, 1)],
        &[(1, 64)],
        &[(3, 4)],
        &[(13, 1)],
        &[(8, 3), (8, 5), (4, 2)],
        &[(17, 2), (9, 1), (5, 7), (3, 3), (2, 1), (1, 9)],
        &[(2049, 5), (1025, 2), (513, 1)],
        &[(64, 135)],
        &[(3, 1100)],
        &[(1 << 14, 16)],
        &[(1 << 12, 48), (1 << 10, 48)],
    ];
    for &shape in shapes {
        for cap in [0, 1, 3, 4] {
            let matrices: Vec<_> = shape
                .iter()
                .map(|&(h, w)| random_matrix(&mut rng, h, w))
                .collect();
            let max = shape[0].0;
            let indices = [0, max - 1, max / 2, max / 3];
            check_batch(
                &MerkleMmcs::<Keccak256Hash>::on_pool(Arc::clone(&pool), cap),
                matrices.clone(),
                &indices,
            );
            check_batch(
                &MerkleMmcs::<Blake3>::on_pool(Arc::clone(&pool), cap),
                matrices.clone(),
                &indices,
            );
            check_batch(
                &MerkleMmcs::<Sha256>::on_pool(Arc::clone(&pool), cap),
                matrices,
                &indices,
            );
        }
    }
}

/// As WHIR commits its folded rounds: `Poly192` rows, flattened into `Poly64` by `ExtensionMmcs`.
fn check_extension<H: RowHash>(engine: MerkleMmcs<H>) {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let cap = engine.cap_height();
    let ours = ExtensionMmcs::<Poly64, Poly192, _>::new(engine);
    let theirs = ExtensionMmcs::<Poly64, Poly192, _>::new(plonky::<H>(cap));
    let base = random_matrix(&mut rng, 512, 3 * 8).values;
    let matrix = RowMajorMatrix::new(Poly192::reconstitute_from_base(base), 8);
    let dims = [matrix.dimensions()];
    let (commitment, data) = ours.commit_matrix(matrix.clone());
    let (expected, oracle_data) = theirs.commit_matrix(matrix);
    assert_eq!(commitment, expected);
    let indices = [3, 500, 3, 77];
    let (values, proof) = ours.open_multi_batch(&indices, &data);
    let (oracle_values, oracle_proof) = theirs.open_multi_batch(&indices, &oracle_data);
    assert_eq!(values, oracle_values);
    assert_eq!(proof.sibling_hashes, oracle_proof.sibling_hashes);
    assert!(
        theirs
            .verify_multi_batch(&commitment, &dims, &indices, &values, &proof)
            .is_ok()
    );
    assert!(
        ours.verify_multi_batch(&commitment, &dims, &indices, &values, &proof)
            .is_ok()
    );
}

#[test]
fn extension_rows_match_plonky3() {
    check_extension(MerkleMmcs::<Keccak256Hash>::on_pool(pool(), 2));
    check_extension(MerkleMmcs::<Blake3>::on_pool(pool(), 0));
    check_extension(MerkleMmcs::<Sha256>::on_pool(pool(), 1));
}

/// A message of `2^log_rows / 2` rows of `width`, zero-padded to `2^log_rows` rows.
fn padded_message(rng: &mut ChaCha8Rng, log_rows: u32, width: usize) -> RowMajorMatrix<Poly64> {
    let mut m = random_matrix(rng, 1 << (log_rows - 1), width);
    m.values.resize(width << log_rows, Poly64::new(0));
    m
}

fn check_fused<H: RowHash>() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for workers in [1, 2] {
        let ntt = EngineNtt::with_workers(workers);
        let engine = MerkleMmcs::<H>::sharing_pool_of(&ntt, 2);
        let oracle = plonky::<H>(2);
        for (log_rows, width) in [(1, 1), (6, 3), (12, 16), (14, 48), (16, 16)] {
            // Encoded and committed at once: the encoder's digests are used.
            let before = engine.stats();
            let codeword = ntt.ntt_batch_padded(padded_message(&mut rng, log_rows, width), 1);
            let expected = oracle.commit_matrix(codeword.clone()).0;
            assert_eq!(
                engine.commit_matrix(codeword).0,
                expected,
                "2^{log_rows} × {width}"
            );
            assert_eq!(
                engine.stats().fused,
                before.fused + 1,
                "2^{log_rows} × {width}: not fused"
            );

            // Changed after the encode, in its last row: hashed again, and right.
            let mut codeword = ntt.ntt_batch_padded(padded_message(&mut rng, log_rows, width), 1);
            let last = codeword.values.len() - 1;
            codeword.values[last] += Poly64::new(1);
            let expected = oracle.commit_matrix(codeword.clone()).0;
            assert_eq!(engine.commit_matrix(codeword).0, expected);
            assert_eq!(
                engine.stats().stale,
                before.stale + 1,
                "a changed codeword was not noticed"
            );

            // A matrix the engine did not encode (a copy of one it did): hashed, and right.
            let codeword = ntt.ntt_batch_padded(padded_message(&mut rng, log_rows, width), 1);
            let copy = RowMajorMatrix::new(codeword.values.clone(), width);
            let expected = oracle.commit_matrix(codeword.clone()).0;
            assert_eq!(engine.commit_matrix(copy).0, expected);
            assert_eq!(engine.stats().fused, before.fused + 1);
            // The original is still handed over, until it is committed.
            assert_eq!(engine.commit_matrix(codeword).0, expected);
            assert_eq!(engine.stats().fused, before.fused + 2);

            // Borrowed encodes and low-degree extensions hand their rows over too.
            let message = random_matrix(&mut rng, 1 << (log_rows - 1), width);
            let codeword = ntt.ntt_batch_borrowed(message.as_view(), 1);
            let expected = oracle.commit_matrix(codeword.clone()).0;
            assert_eq!(engine.commit_matrix(codeword).0, expected);
            let codeword = ntt.lde_batch(message, 1);
            let expected = oracle.commit_matrix(codeword.clone()).0;
            assert_eq!(engine.commit_matrix(codeword).0, expected);
            assert_eq!(engine.stats().fused, before.fused + 4);
        }

        // WHIR's extension rounds: encoded as `Poly64`, reinterpreted as `Poly192` rows, committed
        // through `ExtensionMmcs`.
        let ext = ExtensionMmcs::<Poly64, Poly192, _>::new(engine.clone());
        let oracle_ext = ExtensionMmcs::<Poly64, Poly192, _>::new(oracle.clone());
        let before = engine.stats();
        let codeword = ntt.ntt_batch_padded(padded_message(&mut rng, 12, 3 * 16), 1);
        let codeword = RowMajorMatrix::new(Poly192::reconstitute_from_base(codeword.values), 16);
        let expected = oracle_ext.commit_matrix(codeword.clone()).0;
        assert_eq!(ext.commit_matrix(codeword).0, expected);
        assert_eq!(
            engine.stats().fused,
            before.fused + 1,
            "the extension round was not fused"
        );
    }
}

#[test]
fn keccak_commits_take_the_encoders_digests_only_for_the_codeword_it_encoded() {
    check_fused::<Keccak256Hash>();
}

#[test]
fn blake3_commits_take_the_encoders_digests_only_for_the_codeword_it_encoded() {
    check_fused::<Blake3>();
}

#[test]
fn sha256_commits_take_the_encoders_digests_only_for_the_codeword_it_encoded() {
    check_fused::<Sha256>();
}

#[test]
fn an_ntt_without_an_attached_mmcs_hashes_nothing() {
    let ntt = EngineNtt::with_workers(1);
    let engine = MerkleMmcs::<Keccak256Hash>::on_pool(Arc::clone(ntt.encoder().pool()), 0);
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let codeword = ntt.ntt_batch_padded(padded_message(&mut rng, 10, 4), 1);
    let (commitment, _) = engine.commit_matrix(codeword.clone());
    assert_eq!(commitment, plonky::<Keccak256Hash>(0).commit_matrix(codeword).0);
    assert_eq!(engine.stats().fused, 0);
    assert_eq!(engine.stats().encoder_hash_ns, 0);
}

#[test]
#[should_panic(expected = "not ⌈6 / 2^k⌉")]
fn heights_off_plonky3s_ladder_are_refused() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let engine = MerkleMmcs::<Keccak256Hash>::on_pool(pool(), 0);
    let _ = engine.commit(vec![random_matrix(&mut rng, 6, 1), random_matrix(&mut rng, 4, 1)]);
}
