//! Field axioms (proptest, seeded by proptest's defaults) and the scalar API of `Gf64`.

use ntt_kernels::{Gf64, reference::mul_bitwise};
use proptest::prelude::*;

fn any_gf() -> impl Strategy<Value = Gf64> {
    prop_oneof![
        any::<u64>(),
        Just(0u64),
        Just(1u64),
        Just(u64::MAX),
        Just(1u64 << 63),
        Just(0x1Bu64),
    ]
    .prop_map(Gf64)
}

proptest! {
    #[test]
    fn mul_matches_bitwise_reference(a in any_gf(), b in any_gf()) {
        prop_assert_eq!((a * b).0, mul_bitwise(a.0, b.0));
    }

    #[test]
    fn ring_axioms_hold(a in any_gf(), b in any_gf(), c in any_gf()) {
        prop_assert_eq!(a * b, b * a);
        prop_assert_eq!((a * b) * c, a * (b * c));
        prop_assert_eq!(a * (b + c), a * b + a * c);
        prop_assert_eq!(a + b, b + a);
        prop_assert_eq!(a + a, Gf64::ZERO);
        prop_assert_eq!(a - b, a + b);
        prop_assert_eq!(a * Gf64::ONE, a);
        prop_assert_eq!(a * Gf64::ZERO, Gf64::ZERO);
    }

    #[test]
    fn inverse_inverts_nonzero(a in any_gf()) {
        prop_assume!(a != Gf64::ZERO);
        prop_assert_eq!(a * a.inverse(), Gf64::ONE);
        prop_assert_eq!(a.inverse().inverse(), a);
    }

    #[test]
    fn square_and_pow_agree_with_products(a in any_gf(), e in 0u64..200) {
        prop_assert_eq!(a.square(), a * a);
        let by_products = (0..e).fold(Gf64::ONE, |acc, _| acc * a);
        prop_assert_eq!(a.pow(e), by_products);
    }

    #[test]
    fn bytes_round_trip_little_endian(a in any_gf()) {
        let bytes = a.to_le_bytes();
        prop_assert_eq!(bytes, a.0.to_le_bytes());
        prop_assert_eq!(Gf64::from_le_bytes(bytes), a);
        prop_assert_eq!(u64::from(a), a.0);
        prop_assert_eq!(Gf64::from(a.0), a);
    }
}

#[test]
fn inverse_of_zero_is_zero() {
    assert_eq!(Gf64::ZERO.inverse(), Gf64::ZERO);
}

#[test]
fn fermat_little_theorem_holds() {
    // The multiplicative group has order 2^64 − 1, so a^(2^64−1) = 1 for a ≠ 0.
    for a in [1u64, 2, 0x1B, u64::MAX, 1 << 63, 0x0123_4567_89ab_cdef] {
        assert_eq!(Gf64(a).pow(u64::MAX), Gf64::ONE, "{a:#x}");
    }
    assert_eq!(Gf64::ZERO.pow(0), Gf64::ONE);
    assert_eq!(Gf64::ZERO.pow(5), Gf64::ZERO);
}

#[test]
fn known_products_from_prior_art() {
    assert_eq!(Gf64(1 << 63) * Gf64(2), Gf64(0x1b));
    assert_eq!(Gf64(2) * Gf64(7), Gf64(0xe));
    assert_eq!(Gf64(1 << 63).square(), Gf64(0xc000_0000_0000_005a));
    assert_eq!(Gf64(u64::MAX).square(), Gf64(0x5555_5555_5555_5513));
}

#[test]
fn sum_and_product_fold_the_operations() {
    let xs = [Gf64(3), Gf64(0x1B), Gf64(u64::MAX), Gf64(1 << 40)];
    assert_eq!(xs.iter().sum::<Gf64>(), xs[0] + xs[1] + xs[2] + xs[3]);
    assert_eq!(xs.into_iter().sum::<Gf64>(), xs[0] + xs[1] + xs[2] + xs[3]);
    assert_eq!(xs.iter().product::<Gf64>(), xs[0] * xs[1] * xs[2] * xs[3]);
    assert_eq!(xs.into_iter().product::<Gf64>(), xs[0] * xs[1] * xs[2] * xs[3]);
    assert_eq!(core::iter::empty::<Gf64>().sum::<Gf64>(), Gf64::ZERO);
    assert_eq!(core::iter::empty::<Gf64>().product::<Gf64>(), Gf64::ONE);
}

#[test]
fn formats_as_hex() {
    assert_eq!(format!("{:?}", Gf64(0x1B)), "Gf64(0x000000000000001b)");
    assert_eq!(format!("{}", Gf64(0x1B)), "000000000000001b");
}
