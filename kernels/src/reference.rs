//! Obviously correct scalar code that every fast path is tested against.

/// x^64 = x^4 + x^3 + x + 1 (mod the field polynomial).
pub const MODULUS_LOW: u64 = 0x1B;

/// Shift-and-add multiply: one bit of `b` at a time, reducing `a·x` as it goes.
pub fn mul_bitwise(mut a: u64, mut b: u64) -> u64 {
    let mut acc = 0u64;
    while b != 0 {
        if b & 1 == 1 {
            acc ^= a;
        }
        let carry = a >> 63;
        a = (a << 1) ^ (carry.wrapping_neg() & MODULUS_LOW);
        b >>= 1;
    }
    acc
}

/// The forward butterfly on one pair: `u ← u + t·v`, then `v ← v + u`.
pub fn butterfly(u: &mut [u64], v: &mut [u64], t: u64) {
    for (x, y) in u.iter_mut().zip(v.iter_mut()) {
        *x ^= mul_bitwise(t, *y);
        *y ^= *x;
    }
}
