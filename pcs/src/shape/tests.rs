use super::*;

#[test]
fn witnesses_give_their_codeword_shape() {
    let shape = Shape::of_witness(64 << 10, 64, 2, Expansion::Bounded).expect("valid");
    assert_eq!(
        (shape.log_rows(), shape.lanes(), shape.log_inv_rate()),
        (12, 64, 2)
    );
    assert_eq!(shape.message_words(), 64 << 10);
    assert_eq!(shape.codeword_words(), 64 << 12);
    assert_eq!(shape.codeword_bytes(), (8 * 64) << 12);
    assert_eq!(shape.to_string(), "2^12 rows × 64 lanes, rate 1/2^2");
}

#[test]
fn bad_witnesses_say_what_is_wrong() {
    let of = |words, lanes| Shape::of_witness(words, lanes, 1, Expansion::Bounded);
    assert_eq!(of(48, 0), Err(CodewordShapeError::ZeroLanes.into()));
    assert_eq!(of(48, 5), Err(ShapeError::RaggedRows { words: 48, lanes: 5 }));
    assert_eq!(
        of(48, 4),
        Err(ShapeError::RowsNotPowerOfTwo {
            words: 48,
            lanes: 4,
            rows: 12
        })
    );
    assert_eq!(
        of(0, 4),
        Err(ShapeError::RowsNotPowerOfTwo {
            words: 0,
            lanes: 4,
            rows: 0
        })
    );
}

#[test]
fn large_expansions_need_asking() {
    let bounded = Shape::for_message(10, 8, MAX_BOUNDED_LOG_INV_RATE, Expansion::Bounded);
    assert_eq!(bounded.expect("16x is allowed").log_rows(), 14);
    assert_eq!(
        Shape::for_message(10, 8, 5, Expansion::Bounded),
        Err(ShapeError::LargeExpansion { log_inv_rate: 5 })
    );
    assert_eq!(
        Shape::for_message(10, 8, 21, Expansion::Unbounded)
            .expect("asked for")
            .log_rows(),
        31
    );
}

#[test]
fn huge_rates_are_reported_without_wrapping() {
    // 2^4 message rows × 64 lanes at rate 1/2^(2^32 − 1): the sum of logs must not wrap to a
    // small codeword ("log rows 3").
    let err = Shape::for_message(4, 64, u32::MAX, Expansion::Unbounded).unwrap_err();
    assert_eq!(
        err,
        ShapeError::Codeword(CodewordShapeError::TooLarge {
            log_rows: 4 + u64::from(u32::MAX),
            lanes: 64
        })
    );
    assert!(err.to_string().contains("2^4294967299 rows"), "{err}");
    let err = Shape::for_message(4, 64, u32::MAX, Expansion::Bounded).unwrap_err();
    assert_eq!(
        err,
        ShapeError::LargeExpansion {
            log_inv_rate: u32::MAX
        }
    );
    // Rate 58 on 2^4 rows of 64 lanes: 2^62 rows, 2^71 bytes; the message speaks of bytes.
    let err = Shape::for_message(4, 64, 58, Expansion::Unbounded)
        .unwrap_err()
        .to_string();
    assert!(err.contains("more than 2^62 bytes"), "{err}");
}

#[test]
fn direct_shapes_keep_the_message_nonempty() {
    assert_eq!(
        Shape::new(3, 1, 4),
        Err(ShapeError::RateAboveRows {
            log_inv_rate: 4,
            log_rows: 3
        })
    );
    let replicate = Shape::with_expansion(8, 1, 8, Expansion::Unbounded).expect("one message row");
    assert_eq!(replicate.message_rows(), 1);
    assert_eq!(
        Shape::new(MAX_LOG_ROWS, 1, 0)
            .expect("the largest")
            .codeword_bytes(),
        1 << 62
    );
    assert!(Shape::new(MAX_LOG_ROWS + 1, 1, 0).is_err());
}

#[test]
fn serialized_shapes_round_trip_and_are_checked() {
    let shape = Shape::with_expansion(20, 64, 9, Expansion::Unbounded).expect("valid");
    let json = serde_json::to_string(&shape).expect("serializes");
    assert_eq!(json, r#"{"log_rows":20,"lanes":64,"log_inv_rate":9}"#);
    assert_eq!(serde_json::from_str::<Shape>(&json).expect("reads"), shape);
    for bad in [
        r#"{"log_rows":20,"lanes":0,"log_inv_rate":1}"#,
        r#"{"log_rows":2,"lanes":1,"log_inv_rate":3}"#,
        r#"{"log_rows":62,"lanes":64,"log_inv_rate":1}"#,
    ] {
        assert!(serde_json::from_str::<Shape>(bad).is_err(), "{bad}");
    }
}
