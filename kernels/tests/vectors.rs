//! The golden vectors (tests/data/gf64.json, from an independent implementation) on the scalar
//! field type, the bitwise reference and every backend this CPU has.

use ntt_kernels::{Backend, Gf64, reference::mul_bitwise};
use serde_json::Value;

struct Vectors {
    mul: Vec<(u64, u64, u64)>,
    inv: Vec<(u64, u64)>,
}

fn hex(v: &Value) -> u64 {
    u64::from_str_radix(v.as_str().expect("hex string"), 16).expect("valid hex")
}

fn vectors() -> Vectors {
    let text = include_str!("data/gf64.json");
    let json: Value = serde_json::from_str(text).expect("gf64.json parses");
    let rows = |key: &str| json[key].as_array().expect("array").clone();
    let v = Vectors {
        mul: rows("mul")
            .iter()
            .map(|r| (hex(&r[0]), hex(&r[1]), hex(&r[2])))
            .collect(),
        inv: rows("inv").iter().map(|r| (hex(&r[0]), hex(&r[1]))).collect(),
    };
    assert!(v.mul.len() > 200 && v.inv.len() > 40, "vector file truncated");
    v
}

#[test]
fn products_match_vectors_on_scalar_paths() {
    for (a, b, c) in vectors().mul {
        assert_eq!(mul_bitwise(a, b), c, "reference {a:#x}·{b:#x}");
        assert_eq!(Gf64(a) * Gf64(b), Gf64(c), "Gf64 {a:#x}·{b:#x}");
        assert_eq!(Gf64(b) * Gf64(a), Gf64(c), "Gf64 {b:#x}·{a:#x}");
        if a == b {
            assert_eq!(Gf64(a).square(), Gf64(c));
        }
    }
}

#[test]
fn inverses_match_vectors() {
    for (a, inv) in vectors().inv {
        assert_eq!(Gf64(a).inverse(), Gf64(inv), "inverse of {a:#x}");
        assert_eq!(mul_bitwise(a, inv), 1, "{a:#x}·{inv:#x} != 1");
    }
}

#[test]
fn products_match_vectors_on_every_backend() {
    let v = vectors();
    for b in Backend::available() {
        // All left operands as one row per twiddle: every vector slot and the tails.
        let mut twiddles: Vec<u64> = v.mul.iter().map(|m| m.1).collect();
        twiddles.dedup();
        for t in twiddles {
            let cases: Vec<_> = v.mul.iter().filter(|m| m.1 == t).collect();
            let mut row: Vec<u64> = cases.iter().map(|m| m.0).collect();
            b.mul_row(&mut row, t);
            for (got, m) in row.iter().zip(&cases) {
                assert_eq!(*got, m.2, "{}: {:#x}·{:#x}", b.name(), m.0, m.1);
            }
        }
        // And one product per call (the scalar tail), and the backend's scalar product.
        for &(a, t, c) in &v.mul {
            assert_eq!(
                b.mul(Gf64(a), Gf64(t)),
                Gf64(c),
                "{}: scalar {a:#x}·{t:#x}",
                b.name()
            );
            let mut one = [a];
            b.mul_row(&mut one, t);
            assert_eq!(one[0], c, "{}: single {a:#x}·{t:#x}", b.name());
        }
        // x·x⁻¹ = 1 through the kernel.
        for &(a, inv) in &v.inv {
            let mut row = [a; 11];
            b.mul_row(&mut row, inv);
            assert!(row.iter().all(|&x| x == 1), "{}: {a:#x}·inverse", b.name());
        }
    }
}
