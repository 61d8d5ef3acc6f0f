//! Bad shapes are errors, and nothing is written.

mod common;

use ntt_kernels::Backend;
use ntt_pcs::{
    CodewordShapeError, CommitParams, EncodeError, Encoder, MessageLayout, SetupError, ShapeError,
};
use std::mem::MaybeUninit;

fn encoder() -> Encoder {
    common::encoder(2, Backend::detect())
}

#[test]
fn bad_in_place_shapes_are_errors_and_write_nothing() {
    let enc = encoder();
    let cases: [(usize, usize, u32, ShapeError); 5] = [
        (16, 0, 0, CodewordShapeError::ZeroLanes.into()),
        (15, 2, 0, ShapeError::RaggedRows { words: 15, lanes: 2 }),
        (
            24,
            2,
            0,
            ShapeError::RowsNotPowerOfTwo {
                words: 24,
                lanes: 2,
                rows: 12,
            },
        ),
        (
            0,
            1,
            0,
            ShapeError::RowsNotPowerOfTwo {
                words: 0,
                lanes: 1,
                rows: 0,
            },
        ),
        (
            16,
            2,
            4,
            ShapeError::RateAboveRows {
                log_inv_rate: 4,
                log_rows: 3,
            },
        ),
    ];
    for (len, lanes, r, err) in cases {
        let err = EncodeError::Shape(err);
        let mut data: Vec<u64> = (0..len as u64).collect();
        assert_eq!(
            enc.encode_in_place(
                &mut data,
                CommitParams::lanes(lanes)
                    .log_inv_rate(r)
                    .layout(MessageLayout::Rows),
                None
            ),
            Err(err.clone())
        );
        assert_eq!(data, (0..len as u64).collect::<Vec<_>>(), "{err}");
        if r == 0 {
            assert_eq!(enc.inverse_in_place(&mut data, lanes), Err(err.clone()));
            assert_eq!(data, (0..len as u64).collect::<Vec<_>>(), "{err}");
        }
    }
}

#[test]
fn mismatched_message_is_an_error_and_writes_nothing() {
    let enc = encoder();
    for layout in [MessageLayout::Rows, MessageLayout::Lanes] {
        let mut out = vec![MaybeUninit::new(7u64); 32];
        let msg = vec![1u64; 15];
        let err = enc.encode(
            &msg,
            &mut out,
            CommitParams::lanes(2).log_inv_rate(1).layout(layout),
            None,
        );
        assert_eq!(
            err,
            Err(EncodeError::MessageLength {
                expected: 16,
                actual: 15
            })
        );
        // SAFETY: every word was initialised with 7 above.
        assert!(out.iter().all(|w| unsafe { w.assume_init() } == 7));
        let err = enc.encode(
            &msg,
            &mut out[..30],
            CommitParams::lanes(2).log_inv_rate(1).layout(layout),
            None,
        );
        assert_eq!(
            err,
            Err(EncodeError::Shape(ShapeError::RowsNotPowerOfTwo {
                words: 30,
                lanes: 2,
                rows: 15
            }))
        );
    }
}

#[test]
fn a_huge_rate_is_refused_before_anything_is_touched() {
    // An in-place encode at a rate the buffer cannot hold is a shape error, not a wrapped shift.
    let enc = encoder();
    let mut data = vec![3u64; 64];
    let err = enc.encode_in_place(
        &mut data,
        CommitParams::lanes(4)
            .log_inv_rate(u32::MAX)
            .layout(MessageLayout::Rows),
        None,
    );
    assert!(
        matches!(err, Err(EncodeError::Shape(ShapeError::RateAboveRows { .. }))),
        "{err:?}"
    );
    assert!(data.iter().all(|&w| w == 3));
}

#[test]
fn a_panicking_sink_is_an_error_not_a_hang() {
    let enc = encoder();
    let mut data = vec![1u64; 64 << 4];
    let sink = |_: usize, _: &[u64]| panic!("sink refuses");
    let err = enc.encode_in_place(
        &mut data,
        CommitParams::lanes(64)
            .log_inv_rate(1)
            .layout(MessageLayout::Rows),
        Some(&sink),
    );
    assert!(
        matches!(err, Err(EncodeError::TaskPanicked(ref m)) if m.contains("sink refuses")),
        "{err:?}"
    );
}

#[test]
fn an_in_place_encode_refuses_a_lane_major_message() {
    let enc = encoder();
    let mut data: Vec<u64> = (0..64).collect();
    let lane_major = CommitParams::lanes(4).log_inv_rate(1);
    assert_eq!(
        enc.encode_in_place(&mut data, lane_major, None),
        Err(EncodeError::InPlaceNeedsRows)
    );
    assert_eq!(data, (0..64).collect::<Vec<_>>(), "nothing written");
    let row_major = lane_major.layout(MessageLayout::Rows);
    assert_eq!(enc.encode_in_place(&mut data, row_major, None), Ok(()));
}

#[test]
fn an_encoder_on_a_given_pool_refuses_new_pool_settings() {
    let shared = common::pool(2);
    let err = Encoder::builder().pool(shared.clone()).workers(3).build();
    assert!(
        matches!(err, Err(SetupError::PoolGiven { setting: "workers" })),
        "{err:?}"
    );
    let err = Encoder::builder()
        .idle_spin(std::time::Duration::from_millis(1))
        .pool(shared.clone())
        .build();
    assert!(
        matches!(err, Err(SetupError::PoolGiven { setting: "idle_spin" })),
        "{err:?}"
    );
    let enc = Encoder::builder()
        .pool(shared.clone())
        .backend(Backend::portable())
        .build()
        .expect("a given pool and backend set up");
    assert!(std::sync::Arc::ptr_eq(enc.pool(), &shared));
    assert_eq!(enc.backend().kind(), Backend::portable().kind());
}
