//! Every row kernel on every backend this CPU has, against the reference built from
//! `reference::mul_bitwise`: random and edge rows and twiddles, segment lengths 0..=17, 31, 33,
//! 63, 64, 65 and around [`LONG_ROW_WORDS`], aligned and misaligned sub-slices, under every
//! [`ColumnStart`]. One harness per kernel family, stamped out per backend; a backend this CPU
//! lacks returns early (and says so).

mod common;

use common::*;
use ntt_kernels::reference::mul_bitwise;
use ntt_kernels::{Backend, BackendKind, ColumnStart, LONG_ROW_WORDS};

/// Runs `check(backend, len, offset, rng)` for every column start, length and offset; the
/// sub-slice under test starts `offset` words into a buffer padded on both sides with a sentinel
/// that must survive. The lengths around [`LONG_ROW_WORDS`] take both sides of
/// [`ColumnStart::LineForLongRows`]'s switch.
fn for_shapes(
    kind: BackendKind,
    words_per_len: usize,
    mut check: impl FnMut(Backend, &mut [u64], &[u64], &mut rand::rngs::StdRng),
) {
    let Some(backend) = backend(kind) else { return };
    let mut rng = rng(kind as u64 * 1000 + words_per_len as u64);
    let long = [LONG_ROW_WORDS - 1, LONG_ROW_WORDS, LONG_ROW_WORDS + 3];
    for (columns, len) in ColumnStart::ALL
        .into_iter()
        .flat_map(|c| LENGTHS.into_iter().chain(long).map(move |len| (c, len)))
    {
        let b = backend.with_column_start(columns);
        for offset in OFFSETS {
            let n = len * words_per_len;
            let data = row(&mut rng, n);
            let mut buf = vec![0xA5A5_A5A5_A5A5_A5A5u64; n + offset + 9];
            buf[offset..offset + n].copy_from_slice(&data);
            check(b, &mut buf[offset..offset + n], &data, &mut rng);
            assert!(
                buf[..offset].iter().all(|&w| w == 0xA5A5_A5A5_A5A5_A5A5),
                "wrote before the slice"
            );
            assert!(
                buf[offset + n..].iter().all(|&w| w == 0xA5A5_A5A5_A5A5_A5A5),
                "wrote past the slice"
            );
        }
    }
}

fn check_mul_row(kind: BackendKind) {
    for_shapes(kind, 1, |b, row, data, rng| {
        for t in twiddles(rng) {
            row.copy_from_slice(data);
            b.mul_row(row, t);
            let want: Vec<u64> = data.iter().map(|&x| mul_bitwise(x, t)).collect();
            assert_eq!(row, &want[..], "mul_row len {} t {t:#x}", data.len());
        }
    });
}

fn check_butterfly(kind: BackendKind) {
    for_shapes(kind, 2, |b, pair, data, rng| {
        let n = data.len() / 2;
        for t in twiddles(rng) {
            pair.copy_from_slice(data);
            let (u, v) = pair.split_at_mut(n);
            b.butterfly(u, v, t);
            let mut want = data.to_vec();
            let (wu, wv) = want.split_at_mut(n);
            ntt_kernels::reference::butterfly(wu, wv, t);
            assert_eq!(pair, &want[..], "butterfly len {n} t {t:#x}");
            let (u, v) = pair.split_at_mut(n);
            b.inverse_butterfly(u, v, t);
            assert_eq!(pair, data, "inverse_butterfly does not undo butterfly, len {n}");
            let (u, v) = pair.split_at_mut(n);
            b.inverse_butterfly(u, v, t);
            let mut want = data.to_vec();
            let (wu, wv) = want.split_at_mut(n);
            inverse_butterfly(wu, wv, t);
            assert_eq!(pair, &want[..], "inverse_butterfly len {n} t {t:#x}");
        }
    });
}

fn check_radix4(kind: BackendKind) {
    for_shapes(kind, 4, |b, block, data, rng| {
        // The last trial has a step's first-block twiddles (0 and 1 zero), the kernel's
        // product-free path.
        for first_block in [false, false, false, true] {
            let mut tw: [u64; 3] =
                core::array::from_fn(|_| twiddles(rng)[rand::RngExt::random_range(rng, 0..10)]);
            if first_block {
                (tw[0], tw[1]) = (0, 0);
            }
            block.copy_from_slice(data);
            b.radix4(block, tw);
            let mut want = data.to_vec();
            group(&mut want, 4, &RADIX4, &tw, true);
            assert_eq!(block, &want[..], "radix4 segment {} tw {tw:x?}", data.len() / 4);
            b.inverse_radix4(block, tw);
            assert_eq!(block, data, "inverse_radix4 does not undo radix4");
            b.inverse_radix4(block, tw);
            let mut want = data.to_vec();
            group(&mut want, 4, &reversed(&RADIX4), &tw, false);
            assert_eq!(block, &want[..], "inverse_radix4 segment {}", data.len() / 4);
        }
    });
}

fn check_radix8(kind: BackendKind) {
    for_shapes(kind, 8, |b, block, data, rng| {
        // The last trial has a step's first-block twiddles (0, 1 and 3 zero), the kernel's
        // product-free path.
        for first_block in [false, false, false, true] {
            let mut tw: [u64; 7] =
                core::array::from_fn(|_| twiddles(rng)[rand::RngExt::random_range(rng, 0..10)]);
            if first_block {
                (tw[0], tw[1], tw[3]) = (0, 0, 0);
            }
            block.copy_from_slice(data);
            b.radix8(block, tw);
            let mut want = data.to_vec();
            group(&mut want, 8, &RADIX8, &tw, true);
            assert_eq!(block, &want[..], "radix8 segment {} tw {tw:x?}", data.len() / 8);
            b.inverse_radix8(block, tw);
            assert_eq!(block, data, "inverse_radix8 does not undo radix8");
            b.inverse_radix8(block, tw);
            let mut want = data.to_vec();
            group(&mut want, 8, &reversed(&RADIX8), &tw, false);
            assert_eq!(block, &want[..], "inverse_radix8 segment {}", data.len() / 8);
        }
    });
}

fn check_copy_streaming(kind: BackendKind) {
    // Longer rows too, so the streaming middle is exercised after every head length.
    let Some(b) = backend(kind) else { return };
    let mut rng = rng(7);
    for len in LENGTHS.into_iter().chain([100, 257, 1000]) {
        for offset in 0..9 {
            let src = row(&mut rng, len);
            let mut buf = vec![0u64; len + offset + 1];
            b.copy_streaming(&mut buf[offset..offset + len], &src);
            assert_eq!(
                &buf[offset..offset + len],
                &src[..],
                "copy len {len} offset {offset}"
            );
            assert!(buf[..offset].iter().all(|&w| w == 0) && buf[offset + len] == 0);
        }
    }
}

fn check_transpose(kind: BackendKind) {
    let Some(b) = backend(kind) else { return };
    let mut rng = rng(11);
    for (src_stride, dst_stride, offset) in [(8, 8, 0), (8, 8, 1), (13, 9, 3), (64, 24, 5), (3, 8, 2)] {
        let src = row(&mut rng, 7 * src_stride + 8 + offset);
        let mut dst = vec![0u64; 7 * dst_stride + 8 + offset];
        let before = dst.clone();
        b.transpose8x8(&src[offset..], src_stride, &mut dst[offset..], dst_stride);
        for i in 0..8 {
            for j in 0..8 {
                assert_eq!(dst[offset + j * dst_stride + i], src[offset + i * src_stride + j]);
            }
        }
        // Nothing outside the tile's rows changed.
        for (k, (&d, &o)) in dst.iter().zip(&before).enumerate() {
            let inside = k >= offset && (k - offset) % dst_stride < 8 && (k - offset) / dst_stride < 8;
            assert!(inside || d == o, "transpose wrote outside the tile at {k}");
        }
    }
}

backend_tests! {
    mul_row_matches_reference => check_mul_row,
    butterflies_match_reference => check_butterfly,
    radix4_matches_reference => check_radix4,
    radix8_matches_reference => check_radix8,
    copy_streaming_copies => check_copy_streaming,
    transpose8x8_transposes => check_transpose,
}

/// The general transpose (8×8 tiles plus ragged edges) on every backend and edge shape.
#[test]
fn transpose_blocks_match_definition() {
    let mut rng = rng(13);
    for b in Backend::available() {
        for (rows, cols) in [(1, 1), (8, 8), (9, 17), (16, 8), (7, 33), (24, 5), (0, 4), (3, 0)] {
            let (src_stride, dst_stride) = (cols + 3, rows + 1);
            let src = row(&mut rng, rows * src_stride + 8);
            let mut dst = vec![0u64; cols * dst_stride + 8];
            let before = dst.clone();
            b.transpose(&src, src_stride, &mut dst, dst_stride, rows, cols);
            for (k, (&d, &o)) in dst.iter().zip(&before).enumerate() {
                let (j, i) = (k / dst_stride, k % dst_stride);
                let want = if j < cols && i < rows {
                    src[i * src_stride + j]
                } else {
                    o
                };
                assert_eq!(d, want, "{} {rows}x{cols} at ({i},{j})", b.name());
            }
        }
    }
}
