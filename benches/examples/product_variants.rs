//! Throughput of several ways to multiply eight field elements by one twiddle with AVX-512, in a
//! loop of eight independent chains (`a ^= a·t`), so the loop measures how many products the
//! core issues, not their latency:
//!
//! - `carry-less`: the kernels' product, two VPCLMULQDQ, two unpacks, and the one-fold
//!   reduction by shifts and a 16-entry byte table (`simd/mod.rs`, `FieldVec::mul_add`);
//! - `carry-less, reduced by carry-less`: the same products, reduced by two more carry-less
//!   multiplies by 0x1B per half instead of shifts and the table;
//! - `GFNI, byte-transposed`: the elements stored byte-sliced (word `i` of the vector holds byte
//!   `i` of all eight elements), the product by a fixed twiddle as a 64×64 bit matrix applied in
//!   8×8 blocks: eight GF2P8AFFINEQB, seven word rotations and four 3-way XORs. It uses the
//!   GFNI unit instead of the carry-less multiplier;
//! - `two GFNI among six carry-less`: both at once, in case the two units work in parallel;
//! - `carry-less, spill by shifts`: the same products, with `hi·(1 + x)` folded by
//!   `(1 + x^3)` and its 3-bit spill folded back by a shift and an add instead of the byte table
//!   (the formulation Plonky3's `Poly64` kernel uses): one shuffle fewer, one add more;
//! - `carry-less, halves sorted by one swap`: the two unpacks that sort the products' halves
//!   into element order replaced by one swap within 128-bit quarters and three blends (on cores where unpacks,
//!   shifts and byte shuffles share two ports, to move work to the cheaper ports).
//!
//! Every variant is first checked against the bitwise reference product.
//!
//! `cargo run --release -p ntt-benches --example product_variants` (AVX-512F/BW, VPCLMULQDQ and
//! GFNI needed; elsewhere it says so and exits).

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::x86_64::*;
    use ntt_kernels::reference::mul_bitwise;
    use std::time::Instant;

    /// The spill table of the shift reduction, from the definition: for `hi = n << 60`, what
    /// `hi ^ hi<<1 ^ hi<<3 ^ hi<<4` (mod 2^64) leaves out of `hi · x^64 mod p`, where
    /// `x^64 ≡ x^4 + x^3 + x + 1 = 0x1B`. The lower bits of `hi` never spill, so `hi >> 60`
    /// indexes it.
    fn spill() -> [u8; 16] {
        core::array::from_fn(|n| {
            let hi = (n as u64) << 60;
            let shifted = hi ^ (hi << 1) ^ (hi << 3) ^ (hi << 4);
            u8::try_from(mul_bitwise(hi, 0x1B) ^ shifted).expect("the spill fits in a byte")
        })
    }

    /// Eight products `v·t`, reduced by shifts and the spill table.
    #[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
    fn carry_less(v: __m512i, t: __m512i, table: __m512i) -> __m512i {
        let even = _mm512_clmulepi64_epi128::<0x00>(v, t);
        let odd = _mm512_clmulepi64_epi128::<0x11>(v, t);
        let lo = _mm512_unpacklo_epi64(even, odd);
        let hi = _mm512_unpackhi_epi64(even, odd);
        let z = _mm512_xor_si512(hi, _mm512_add_epi64(hi, hi));
        let spill = _mm512_shuffle_epi8(table, _mm512_srli_epi64::<60>(hi));
        let r = _mm512_ternarylogic_epi64::<0x96>(lo, z, _mm512_slli_epi64::<3>(z));
        _mm512_xor_si512(r, spill)
    }

    /// Eight products `v·t`, reduced without the table: `a = hi·(1 + x)` (at most 64 bits),
    /// then `a·(1 + x^3)` whose 3-bit spill `a >> 61` is folded back as `spill·(1 + x)` first.
    #[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
    fn carry_less_shifted_spill(v: __m512i, t: __m512i) -> __m512i {
        let even = _mm512_clmulepi64_epi128::<0x00>(v, t);
        let odd = _mm512_clmulepi64_epi128::<0x11>(v, t);
        let lo = _mm512_unpacklo_epi64(even, odd);
        let hi = _mm512_unpackhi_epi64(even, odd);
        let a = _mm512_xor_si512(hi, _mm512_add_epi64(hi, hi));
        let spill = _mm512_srli_epi64::<61>(a);
        let c = _mm512_ternarylogic_epi64::<0x96>(a, spill, _mm512_add_epi64(spill, spill));
        _mm512_ternarylogic_epi64::<0x96>(lo, c, _mm512_slli_epi64::<3>(c))
    }

    /// Eight products `v·t` as [`carry_less`], the halves sorted by one swap within 128-bit quarters and three
    /// blends: `(odd lo, even hi)` pairs swapped in place land where the unpacks would put them.
    #[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
    fn carry_less_swapped(v: __m512i, t: __m512i, table: __m512i) -> __m512i {
        let even = _mm512_clmulepi64_epi128::<0x00>(v, t);
        let odd = _mm512_clmulepi64_epi128::<0x11>(v, t);
        let crossed = _mm512_shuffle_epi32::<0x4E>(_mm512_mask_blend_epi64(0x55, even, odd));
        let hi = _mm512_mask_blend_epi64(0xAA, crossed, odd);
        let lo = _mm512_mask_blend_epi64(0xAA, even, crossed);
        let z = _mm512_xor_si512(hi, _mm512_add_epi64(hi, hi));
        let spill = _mm512_shuffle_epi8(table, _mm512_srli_epi64::<60>(hi));
        let r = _mm512_ternarylogic_epi64::<0x96>(lo, z, _mm512_slli_epi64::<3>(z));
        _mm512_xor_si512(r, spill)
    }

    /// Eight products `v·t`, each half reduced by two carry-less multiplies by 0x1B.
    #[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
    fn carry_less_reduced(v: __m512i, t: __m512i, k: __m512i) -> __m512i {
        let even = _mm512_clmulepi64_epi128::<0x00>(v, t);
        let odd = _mm512_clmulepi64_epi128::<0x11>(v, t);
        let even_once = _mm512_clmulepi64_epi128::<0x01>(even, k);
        let odd_once = _mm512_clmulepi64_epi128::<0x01>(odd, k);
        let even_twice = _mm512_clmulepi64_epi128::<0x01>(even_once, k);
        let odd_twice = _mm512_clmulepi64_epi128::<0x01>(odd_once, k);
        let e = _mm512_ternarylogic_epi64::<0x96>(even, even_once, even_twice);
        let o = _mm512_ternarylogic_epi64::<0x96>(odd, odd_once, odd_twice);
        _mm512_unpacklo_epi64(e, o)
    }

    /// The eight affine matrices of the product by `t` on byte-transposed elements: word `i`
    /// of matrix `d` is block (`i`, `i + d mod 8`) of the 64×64 bit matrix of `x ↦ t·x`, in
    /// GF2P8AFFINEQB's layout (byte `7 - r` holds row `r`).
    fn affine_matrices(t: u64) -> [[u64; 8]; 8] {
        let columns: Vec<u64> = (0..64).map(|c| mul_bitwise(t, 1 << c)).collect();
        let mut m = [[0u64; 8]; 8];
        for (d, matrix) in m.iter_mut().enumerate() {
            for (i, word) in matrix.iter_mut().enumerate() {
                let j = (i + d) % 8;
                for r in 0..8 {
                    let row = (0..8).fold(0u64, |row, s| {
                        row | (((columns[8 * j + s] >> (8 * i + r)) & 1) << s)
                    });
                    *word |= row << (8 * (7 - r));
                }
            }
        }
        m
    }

    /// Eight products by the twiddle of `m` (from [`affine_matrices`]) of byte-transposed `x`.
    #[target_feature(enable = "avx512f,avx512bw,gfni")]
    fn gfni_transposed(x: __m512i, m: &[__m512i; 8]) -> __m512i {
        let p0 = _mm512_gf2p8affine_epi64_epi8::<0>(x, m[0]);
        let p1 = _mm512_gf2p8affine_epi64_epi8::<0>(_mm512_alignr_epi64::<1>(x, x), m[1]);
        let p2 = _mm512_gf2p8affine_epi64_epi8::<0>(_mm512_alignr_epi64::<2>(x, x), m[2]);
        let p3 = _mm512_gf2p8affine_epi64_epi8::<0>(_mm512_alignr_epi64::<3>(x, x), m[3]);
        let p4 = _mm512_gf2p8affine_epi64_epi8::<0>(_mm512_alignr_epi64::<4>(x, x), m[4]);
        let p5 = _mm512_gf2p8affine_epi64_epi8::<0>(_mm512_alignr_epi64::<5>(x, x), m[5]);
        let p6 = _mm512_gf2p8affine_epi64_epi8::<0>(_mm512_alignr_epi64::<6>(x, x), m[6]);
        let p7 = _mm512_gf2p8affine_epi64_epi8::<0>(_mm512_alignr_epi64::<7>(x, x), m[7]);
        let a = _mm512_ternarylogic_epi64::<0x96>(p0, p1, p2);
        let b = _mm512_ternarylogic_epi64::<0x96>(p3, p4, p5);
        let c = _mm512_ternarylogic_epi64::<0x96>(p6, p7, a);
        _mm512_xor_si512(b, c)
    }

    /// Word `i` of the result holds byte `i` of each of the eight elements (an involution).
    fn byte_transpose(x: [u64; 8]) -> [u64; 8] {
        core::array::from_fn(|i| (0..8).fold(0, |w, e| w | (((x[e] >> (8 * i)) & 0xff) << (8 * e))))
    }

    #[target_feature(enable = "avx512f")]
    fn to_vec(x: [u64; 8]) -> __m512i {
        // SAFETY: `x` is 64 readable bytes.
        unsafe { _mm512_loadu_si512(x.as_ptr().cast()) }
    }

    #[target_feature(enable = "avx512f")]
    fn from_vec(v: __m512i) -> [u64; 8] {
        let mut x = [0u64; 8];
        // SAFETY: `x` is 64 writable bytes.
        unsafe { _mm512_storeu_si512(x.as_mut_ptr().cast(), v) };
        x
    }

    /// [`spill`] in every 128-bit quarter.
    #[target_feature(enable = "avx512f")]
    fn spill_table() -> __m512i {
        let bytes = spill();
        // SAFETY: `bytes` is 16 readable bytes.
        _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) })
    }

    /// The variants' names, in the order [`run`] takes them.
    pub(crate) const VARIANTS: [&str; 6] = [
        "carry-less (the kernels' product)",
        "carry-less, reduced by carry-less",
        "GFNI, byte-transposed",
        "two GFNI among six carry-less",
        "carry-less, spill by shifts",
        "carry-less, halves sorted by one swap",
    ];

    /// Every variant's products equal the bitwise reference on random elements and twiddles.
    #[target_feature(enable = "avx512f,avx512bw,vpclmulqdq,gfni")]
    pub(crate) fn check() {
        let table = spill_table();
        let k = _mm512_set1_epi64(0x1B);
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            s = s
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            s ^ (s >> 29)
        };
        for _ in 0..200 {
            let t = next();
            let x: [u64; 8] = core::array::from_fn(|_| next());
            let want: [u64; 8] = core::array::from_fn(|e| mul_bitwise(x[e], t));
            let tv = _mm512_set1_epi64(t as i64);
            assert_eq!(from_vec(carry_less(to_vec(x), tv, table)), want, "carry-less");
            assert_eq!(
                from_vec(carry_less_reduced(to_vec(x), tv, k)),
                want,
                "reduced by carry-less"
            );
            assert_eq!(
                from_vec(carry_less_shifted_spill(to_vec(x), tv)),
                want,
                "spill by shifts"
            );
            assert_eq!(
                from_vec(carry_less_swapped(to_vec(x), tv, table)),
                want,
                "halves sorted by one swap"
            );
            let m = affine_matrices(t).map(|x| to_vec(x));
            let got = byte_transpose(from_vec(gfni_transposed(to_vec(byte_transpose(x)), &m)));
            assert_eq!(got, want, "GFNI, byte-transposed");
        }
    }

    /// Nanoseconds per eight products of `variant` (an index into [`VARIANTS`]), over `iters`
    /// rounds of eight independent chains.
    #[target_feature(enable = "avx512f,avx512bw,vpclmulqdq,gfni")]
    pub(crate) fn run(variant: usize, iters: usize) -> f64 {
        let table = spill_table();
        let k = _mm512_set1_epi64(0x1B);
        let twiddle = 0x1234_5678_9abc_def1;
        let t = std::hint::black_box(_mm512_set1_epi64(twiddle as i64));
        let m = std::hint::black_box(affine_matrices(twiddle).map(|x| to_vec(x)));
        let mut a: [__m512i; 8] =
            core::array::from_fn(|i| _mm512_set1_epi64(std::hint::black_box(i as i64 + 1)));
        let start = Instant::now();
        macro_rules! round {
            ($($i:literal: $f:expr),*) => {
                for _ in 0..iters {
                    $( a[$i] = _mm512_xor_si512(a[$i], $f(a[$i])); )*
                }
            };
        }
        let cl = |v| carry_less(v, t, table);
        let cr = |v| carry_less_reduced(v, t, k);
        let gf = |v| gfni_transposed(v, &m);
        let sh = |v| carry_less_shifted_spill(v, t);
        let sw = |v| carry_less_swapped(v, t, table);
        match variant {
            0 => round!(0: cl, 1: cl, 2: cl, 3: cl, 4: cl, 5: cl, 6: cl, 7: cl),
            1 => round!(0: cr, 1: cr, 2: cr, 3: cr, 4: cr, 5: cr, 6: cr, 7: cr),
            2 => round!(0: gf, 1: gf, 2: gf, 3: gf, 4: gf, 5: gf, 6: gf, 7: gf),
            3 => round!(0: gf, 1: cl, 2: cl, 3: cl, 4: gf, 5: cl, 6: cl, 7: cl),
            4 => round!(0: sh, 1: sh, 2: sh, 3: sh, 4: sh, 5: sh, 6: sh, 7: sh),
            _ => round!(0: sw, 1: sw, 2: sw, 3: sw, 4: sw, 5: sw, 6: sw, 7: sw),
        }
        let ns = start.elapsed().as_secs_f64() * 1e9 / (iters * 8) as f64;
        std::hint::black_box(a);
        ns
    }
}

fn main() {
    #[cfg(target_arch = "x86_64")]
    {
        let features = ["avx512f", "avx512bw", "vpclmulqdq", "gfni"];
        let has = is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("vpclmulqdq")
            && is_x86_feature_detected!("gfni");
        if has {
            // SAFETY: the CPU has every feature these functions enable (checked above).
            unsafe { x86::check() };
            println!("every variant equals the bitwise reference product");
            for round in 1..=3 {
                for (i, name) in x86::VARIANTS.iter().enumerate() {
                    // SAFETY: as above.
                    let ns = unsafe { x86::run(i, 10_000_000) };
                    println!("round {round}: {name:<38} {ns:.3} ns per 8 products");
                }
            }
            return;
        }
        println!("this CPU lacks one of {features:?}; nothing to compare");
    }
    #[cfg(not(target_arch = "x86_64"))]
    println!("x86_64 only");
}
