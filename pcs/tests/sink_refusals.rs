//! A sink may refuse a block: the encode stops handing it rows and returns the refusal.

mod common;

use ntt_pcs::{CommitParams, EncodeError, Encoder, MessageLayout, RowSink, RowSinkError};
use std::mem::MaybeUninit;
use std::sync::Mutex;

/// Takes blocks until it has `limit`, then refuses every block after.
struct Refuser {
    limit: usize,
    taken: Mutex<Vec<usize>>,
}

impl RowSink for Refuser {
    fn absorb(&self, first_row: usize, _rows: &[u64]) -> Result<(), RowSinkError> {
        let mut taken = self.taken.lock().expect("lock");
        if taken.len() >= self.limit {
            taken.push(usize::MAX);
            return Err(RowSinkError::new(format!(
                "no room for the block at row {first_row}"
            )));
        }
        taken.push(first_row);
        Ok(())
    }
}

fn encoder(workers: usize) -> Encoder {
    Encoder::builder()
        .pool(common::pool(workers))
        .build()
        .expect("encoder builds")
}

#[test]
fn a_refused_block_is_the_encodes_error() {
    let (log_rows, lanes) = (14u32, 4usize);
    let witness: Vec<u64> = (0..(lanes << (log_rows - 1)) as u64).collect();
    let params = CommitParams::lanes(lanes)
        .log_inv_rate(1)
        .layout(MessageLayout::Rows);
    let encode = |workers: usize, limit: usize| {
        let mut codeword = vec![MaybeUninit::uninit(); lanes << log_rows];
        let sink = Refuser {
            limit,
            taken: Mutex::new(Vec::new()),
        };
        let result = encoder(workers).encode(&witness, &mut codeword, params, Some(&sink));
        (result, sink.taken.into_inner().expect("lock"))
    };
    for workers in [1, 2] {
        let (all, blocks) = encode(workers, usize::MAX);
        all.expect("a sink that takes everything");
        for limit in [0, blocks.len() / 2] {
            let (result, offered) = encode(workers, limit);
            match result {
                Err(EncodeError::Sink(e)) => assert!(e.reason().starts_with("no room"), "{e}"),
                other => panic!("{workers} workers, limit {limit} of {}: {other:?}", blocks.len()),
            }
            assert!(offered.len() > limit);
            // Workers racing the first refusal may each offer one block; none is offered after.
            assert!(
                offered.len() <= limit + workers,
                "{} blocks offered after a refusal",
                offered.len() - limit - 1
            );
        }
    }
}

#[test]
fn the_hasher_refuses_blocks_of_another_shape_through_the_encoder() {
    use ntt_pcs::{CodewordShape, StreamingHasher};
    // A hasher for a codeword half as tall: the encoder's second half lies past its end.
    let hasher = StreamingHasher::new(CodewordShape::new(9, 4).expect("valid"), 2).expect("hasher");
    let witness = vec![5u64; 4 << 9];
    let mut codeword = vec![MaybeUninit::uninit(); 4 << 10];
    let err = encoder(2)
        .encode(
            &witness,
            &mut codeword,
            CommitParams::lanes(4).log_inv_rate(1),
            Some(&hasher),
        )
        .expect_err("blocks do not fit the hasher");
    assert!(matches!(err, EncodeError::Sink(_)), "{err:?}");
}
