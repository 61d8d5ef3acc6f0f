//! The README's library example with a row tree: the same calls, with only the scheme added to
//! the parameters.

use ntt_pcs::{CommitParams, HashKind, Scheme, verify};

#[test]
fn the_readme_example_works_with_a_row_tree() -> Result<(), Box<dyn std::error::Error>> {
    let witness: Vec<u64> = (0..64u64 << 10).collect();
    let committer = ntt_pcs::committer()?;
    // 64 lanes of 2^10 words each, lane-major, committed at rate 1/2.
    let params = CommitParams::lanes(64)
        .log_inv_rate(1)
        .scheme(Scheme::rows(HashKind::Keccak, 2)?);
    let (commitment, prover_data) = committer.commit(&witness, params)?;
    let opening = prover_data.open(&[3, 17])?;
    let rows = verify(&commitment, &[3, 17], &opening)?;
    assert_eq!(rows.len(), 2);
    // Commit again into the same buffers: no fresh page faults.
    let (next, _) = committer.commit_reusing(&witness, params, prover_data)?;
    assert_eq!(next, commitment);
    Ok(())
}

#[test]
fn verify_takes_the_rows_in_any_order() -> Result<(), Box<dyn std::error::Error>> {
    let witness: Vec<u64> = (0..8u64 << 8)
        .map(|w| w.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .collect();
    let committer = ntt_pcs::committer()?;
    for scheme in [Scheme::chunks(), Scheme::rows(HashKind::Blake3, 1)?] {
        let params = CommitParams::lanes(8).log_inv_rate(1).scheme(scheme);
        let (commitment, prover) = committer.commit(&witness, params)?;
        let opening = prover.open(&[300, 3, 17])?;
        let rows = verify(&commitment, &[17, 300, 3, 17], &opening)?;
        for (row, words) in [17, 300, 3, 17].into_iter().zip(rows) {
            assert_eq!(words, prover.codeword()[row * 8..(row + 1) * 8], "{scheme}");
        }
        assert!(verify(&commitment, &[17, 300], &opening).is_err(), "{scheme}");
        assert!(
            verify(&commitment, &[17, 300, 3, 4], &opening).is_err(),
            "{scheme}"
        );
    }
    Ok(())
}
