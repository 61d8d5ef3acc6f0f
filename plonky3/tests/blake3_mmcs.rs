//! `Blake3Mmcs` on its own: commitments are BLAKE3 of the matrices' bytes (checked against the
//! `blake3` crate's one-shot hash), openings of random matrices, heights and widths verify, and
//! every kind of tampering, a wrong index and malformed dimensions are refused.

use ntt_plonky3::{Blake3Commitment, Blake3Mmcs, Blake3MmcsError, Blake3Proof};
use ntt_verify::VerifyError;
use p3_binary_field::Poly64;
use p3_commit::{BatchOpeningRef, Mmcs};
use p3_field::PrimeCharacteristicRing;
use p3_matrix::dense::RowMajorMatrix;
use p3_matrix::{Dimensions, Matrix};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

fn mmcs() -> Blake3Mmcs {
    Blake3Mmcs::with_workers(2)
}

fn random_matrix(rng: &mut ChaCha8Rng, height: usize, width: usize) -> RowMajorMatrix<Poly64> {
    RowMajorMatrix::new(
        (0..height * width).map(|_| Poly64::new(rng.random())).collect(),
        width,
    )
}

/// The matrix's bytes as the engine hashes a codeword: row-major, each word little-endian.
fn bytes(matrix: &RowMajorMatrix<Poly64>) -> Vec<u8> {
    matrix
        .values
        .iter()
        .flat_map(|v| v.to_bits().to_le_bytes())
        .collect()
}

fn verify(
    mmcs: &Blake3Mmcs,
    commitment: &Blake3Commitment,
    dims: &[Dimensions],
    index: usize,
    values: &[Vec<Poly64>],
    proof: &Blake3Proof,
) -> Result<(), Blake3MmcsError> {
    mmcs.verify_batch(commitment, dims, index, BatchOpeningRef::new(values, proof))
}

/// Shapes: one chunk and less; rows straddling chunk boundaries (3, 5, 48 values); trees whose
/// root sits below (64 × 5), at (256 × 8: 16 chunks) and above the kept level; 40 chunks, whose
/// right edge is promoted.
const SHAPES: [(usize, usize); 9] = [
    (1, 1),
    (4, 2),
    (8, 3),
    (64, 5),
    (256, 8),
    (512, 16),
    (1 << 10, 5),
    (1 << 12, 16),
    (1 << 9, 48),
];

#[test]
fn single_matrices_commit_to_their_blake3_hash_and_open_every_row_asked() {
    let mmcs = mmcs();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for (height, width) in SHAPES {
        let matrix = random_matrix(&mut rng, height, width);
        let dims = [matrix.dimensions()];
        let (commitment, data) = mmcs.commit_matrix(matrix.clone());
        assert_eq!(
            *commitment.as_ref(),
            *blake3::hash(&bytes(&matrix)).as_bytes(),
            "{height}×{width}"
        );
        let mut indices = vec![0, height - 1, height / 2];
        indices.extend((0..5).map(|_| rng.random_range(0..height)));
        for index in indices {
            let opening = mmcs.open_batch(index, &data);
            assert_eq!(opening.opened_values, [matrix.row_slice(index).unwrap().to_vec()]);
            verify(
                &mmcs,
                &commitment,
                &dims,
                index,
                &opening.opened_values,
                &opening.opening_proof,
            )
            .unwrap_or_else(|e| panic!("{height}×{width}, row {index}: {e}"));
        }
    }
}

#[test]
fn batches_of_mixed_heights_open_each_matrix_at_the_reduced_index() {
    let mmcs = mmcs();
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let shapes = [(1 << 10, 4), (1 << 7, 3), (1 << 10, 1), (1, 2), (1 << 9, 48)];
    let matrices: Vec<_> = shapes
        .iter()
        .map(|&(h, w)| random_matrix(&mut rng, h, w))
        .collect();
    let dims: Vec<Dimensions> = matrices.iter().map(Matrix::dimensions).collect();
    let (commitment, data) = mmcs.commit(matrices.clone());
    let roots: Vec<[u8; 32]> = matrices
        .iter()
        .map(|m| *blake3::hash(&bytes(m)).as_bytes())
        .collect();
    assert_eq!(data.roots(), roots);
    assert!(
        !roots.contains(commitment.as_ref()),
        "a batch commitment is not a matrix root"
    );
    for index in [0, 1, 511, 512, 1023, rng.random_range(0..1024)] {
        let opening = mmcs.open_batch(index, &data);
        for (m, matrix) in matrices.iter().enumerate() {
            let row = index >> (10 - matrix.height().ilog2());
            assert_eq!(opening.opened_values[m], matrix.row_slice(row).unwrap().to_vec());
        }
        verify(
            &mmcs,
            &commitment,
            &dims,
            index,
            &opening.opened_values,
            &opening.opening_proof,
        )
        .unwrap_or_else(|e| panic!("row {index}: {e}"));

        let mut forged = opening.opening_proof.clone();
        forged.roots[1][0] ^= 1;
        assert_eq!(
            verify(&mmcs, &commitment, &dims, index, &opening.opened_values, &forged),
            Err(Blake3MmcsError::BatchRootMismatch)
        );
        let mut values = opening.opened_values.clone();
        values[3][1] += Poly64::ONE;
        assert!(matches!(
            verify(&mmcs, &commitment, &dims, index, &values, &opening.opening_proof),
            Err(Blake3MmcsError::Opening {
                matrix: 3,
                source: VerifyError::RootMismatch
            })
        ));
    }
}

#[test]
fn multi_openings_share_chunks_and_siblings_and_match_single_openings() {
    let mmcs = mmcs();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for (height, width) in [(1 << 12, 16), (1 << 9, 48), (1 << 6, 3), (1, 1)] {
        let matrix = random_matrix(&mut rng, height, width);
        let dims = [matrix.dimensions()];
        let (commitment, data) = mmcs.commit_matrix(matrix);
        let mut indices: Vec<usize> = (0..20).map(|_| rng.random_range(0..height)).collect();
        indices.push(indices[3]); // a repeat
        let (values, proof) = mmcs.open_multi_batch(&indices, &data);
        for (q, &index) in indices.iter().enumerate() {
            assert_eq!(values[q], mmcs.open_batch(index, &data).opened_values);
        }
        mmcs.verify_multi_batch(&commitment, &dims, &indices, &values, &proof)
            .unwrap_or_else(|e| panic!("{height}×{width}: {e}"));
        let singles: usize = indices
            .iter()
            .map(|&i| {
                postcard::to_allocvec(&mmcs.open_batch(i, &data).opening_proof)
                    .unwrap()
                    .len()
            })
            .sum();
        assert!(postcard::to_allocvec(&proof).unwrap().len() <= singles);

        // Another index set, the same rows twice with different values, a changed row.
        let mut moved = indices.clone();
        moved[0] = (moved[0] + 1) % height;
        if height > 1 {
            assert!(
                mmcs.verify_multi_batch(&commitment, &dims, &moved, &values, &proof)
                    .is_err()
            );
        }
        let mut twice = values.clone();
        twice[20][0][0] += Poly64::ONE;
        assert!(matches!(
            mmcs.verify_multi_batch(&commitment, &dims, &indices, &twice, &proof),
            Err(Blake3MmcsError::RowMismatch { query: 20, matrix: 0 })
        ));
        let mut changed = values.clone();
        changed[5][0][width - 1] += Poly64::ONE;
        assert!(
            mmcs.verify_multi_batch(&commitment, &dims, &indices, &changed, &proof)
                .is_err()
        );

        let (no_values, no_proof) = mmcs.open_multi_batch(&[], &data);
        assert!(no_values.is_empty());
        assert!(
            mmcs.verify_multi_batch::<Vec<Poly64>>(&commitment, &dims, &[], &no_values, &no_proof)
                .is_ok()
        );
    }
}

#[test]
fn tampered_openings_are_refused() {
    let mmcs = mmcs();
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let matrix = random_matrix(&mut rng, 1 << 12, 16);
    let dims = [matrix.dimensions()];
    let (commitment, data) = mmcs.commit_matrix(matrix);
    let index = 1234;
    let opening = mmcs.open_batch(index, &data);
    let (values, proof) = (opening.opened_values, opening.opening_proof);
    assert!(verify(&mmcs, &commitment, &dims, index, &values, &proof).is_ok());
    let root_mismatch = |r: Result<(), Blake3MmcsError>| {
        matches!(
            r,
            Err(Blake3MmcsError::Opening {
                matrix: 0,
                source: VerifyError::RootMismatch
            })
        )
    };

    for at in [0, 7, 15] {
        let mut forged = values.clone();
        forged[0][at] += Poly64::ONE;
        assert!(
            root_mismatch(verify(&mmcs, &commitment, &dims, index, &forged, &proof)),
            "value {at}"
        );
    }
    for at in [0, proof.openings[0].rest.len() - 1] {
        let mut forged = proof.clone();
        forged.openings[0].rest[at] ^= 0x80;
        assert!(
            root_mismatch(verify(&mmcs, &commitment, &dims, index, &values, &forged)),
            "rest byte {at}"
        );
    }
    for at in [0, proof.openings[0].siblings.len() - 1] {
        let mut forged = proof.clone();
        forged.openings[0].siblings[at][31] ^= 1;
        assert!(
            root_mismatch(verify(&mmcs, &commitment, &dims, index, &values, &forged)),
            "sibling {at}"
        );
    }
    let mut short = proof.clone();
    short.openings[0].rest.pop();
    assert!(matches!(
        verify(&mmcs, &commitment, &dims, index, &values, &short),
        Err(Blake3MmcsError::RestBytes { matrix: 0, .. })
    ));
    let mut fewer = proof.clone();
    fewer.openings[0].siblings.pop();
    assert!(matches!(
        verify(&mmcs, &commitment, &dims, index, &values, &fewer),
        Err(Blake3MmcsError::Opening {
            source: VerifyError::SiblingCount { .. },
            ..
        })
    ));
    let mut root = *commitment.as_ref();
    root[0] ^= 1;
    let other: Blake3Commitment = root.into();
    assert!(root_mismatch(verify(
        &mmcs, &other, &dims, index, &values, &proof
    )));
    // The opening of one row does not open its neighbours.
    for wrong in [index - 1, index + 1, index ^ 64] {
        assert!(
            verify(&mmcs, &commitment, &dims, wrong, &values, &proof).is_err(),
            "row {wrong}"
        );
    }
    // A proof for one matrix is not a proof for two, nor the roots of a batch for one.
    let mut with_roots = proof.clone();
    with_roots.roots.push(*commitment.as_ref());
    assert!(matches!(
        verify(&mmcs, &commitment, &dims, index, &values, &with_roots),
        Err(Blake3MmcsError::WrongRootCount { .. })
    ));
    let mut doubled = proof.clone();
    doubled.openings.push(doubled.openings[0].clone());
    assert!(matches!(
        verify(&mmcs, &commitment, &dims, index, &values, &doubled),
        Err(Blake3MmcsError::WrongProofSize { expected: 1, got: 2 })
    ));
    // A proof survives serialisation unchanged.
    let decoded: Blake3Proof = postcard::from_bytes(&postcard::to_allocvec(&proof).unwrap()).unwrap();
    assert!(verify(&mmcs, &commitment, &dims, index, &values, &decoded).is_ok());
}

#[test]
fn out_of_range_indices_and_malformed_dimensions_are_errors() {
    let mmcs = mmcs();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let matrix = random_matrix(&mut rng, 64, 4);
    let dims = [matrix.dimensions()];
    let (commitment, data) = mmcs.commit_matrix(matrix);
    let opening = mmcs.open_batch(63, &data);
    let (values, proof) = (&opening.opened_values, &opening.opening_proof);
    assert_eq!(
        verify(&mmcs, &commitment, &dims, 64, values, proof),
        Err(Blake3MmcsError::IndexOutOfRange {
            index: 64,
            max_height: 64
        })
    );
    assert_eq!(
        verify(&mmcs, &commitment, &dims, usize::MAX, values, proof),
        Err(Blake3MmcsError::IndexOutOfRange {
            index: usize::MAX,
            max_height: 64
        })
    );
    assert_eq!(
        verify(&mmcs, &commitment, &[], 63, values, proof),
        Err(Blake3MmcsError::EmptyBatch)
    );
    for (height, width) in [(48, 4), (0, 4), (64, 0)] {
        assert!(matches!(
            verify(
                &mmcs,
                &commitment,
                &[Dimensions { height, width }],
                0,
                values,
                proof
            ),
            Err(Blake3MmcsError::Dimensions { .. })
        ));
    }
    assert!(matches!(
        verify(
            &mmcs,
            &commitment,
            &[Dimensions { height: 64, width: 5 }],
            63,
            values,
            proof
        ),
        Err(Blake3MmcsError::WrongRowWidth {
            expected: 5,
            got: 4,
            ..
        })
    ));
    assert!(matches!(
        verify(&mmcs, &commitment, &[dims[0], dims[0]], 63, values, proof),
        Err(Blake3MmcsError::WrongBatchSize {
            expected: 2,
            got: 1,
            ..
        })
    ));
    assert!(matches!(
        mmcs.verify_multi_batch(&commitment, &dims, &[1, 2], std::slice::from_ref(values), proof),
        Err(Blake3MmcsError::WrongQueryCount { expected: 2, got: 1 })
    ));
}

#[test]
#[should_panic(expected = "index 64 is out of range: the tallest matrix has 64 rows")]
fn opening_past_the_last_row_panics() {
    let mmcs = mmcs();
    let (_, data) = mmcs.commit_matrix(RowMajorMatrix::new(vec![Poly64::ONE; 64], 1));
    let _ = mmcs.open_batch(64, &data);
}

#[test]
#[should_panic(
    expected = "Blake3Mmcs::commit: matrix 1 (48 rows × 2 values) cannot be committed: the height is not a power of two"
)]
fn committing_a_height_that_is_not_a_power_of_two_panics() {
    let _ = mmcs().commit(vec![
        RowMajorMatrix::new(vec![Poly64::ONE; 64], 1),
        RowMajorMatrix::new(vec![Poly64::ONE; 96], 2),
    ]);
}

#[test]
#[should_panic(expected = "Blake3Mmcs::commit: no matrices: a commitment covers at least one")]
fn committing_no_matrices_panics() {
    let _ = mmcs().commit(Vec::<RowMajorMatrix<Poly64>>::new());
}

#[test]
fn views_without_contiguous_rows_commit_like_their_dense_copy() {
    let mmcs = mmcs();
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let matrix = random_matrix(&mut rng, 1 << 11, 12);
    // Every other row: a view whose rows are not adjacent in memory, so hashing copies them.
    let strided = matrix.clone().vertically_strided(2, 1);
    assert!(strided.contiguous_rows(0..2).is_none());
    let dense = strided.to_row_major_matrix();
    let (from_view, view_data) = mmcs.commit_matrix(matrix.vertically_strided(2, 1));
    let (from_dense, _) = mmcs.commit_matrix(dense.clone());
    assert_eq!(from_view, from_dense);
    let dims = [dense.dimensions()];
    let indices = [0, 5, 700, 1023];
    let (values, proof) = mmcs.open_multi_batch(&indices, &view_data);
    for (q, &i) in indices.iter().enumerate() {
        assert_eq!(values[q][0], dense.row_slice(i).unwrap().to_vec());
    }
    assert!(
        mmcs.verify_multi_batch(&from_dense, &dims, &indices, &values, &proof)
            .is_ok()
    );
}
