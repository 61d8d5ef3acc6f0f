//! The strided radix groups (`Backend::radix_rows`) on every backend this CPU has, against the
//! reference group built from `reference::mul_bitwise` one butterfly at a time, run on the same
//! rows gathered into a contiguous block: radix 2, 4 and 8; one and several rows per segment;
//! widths with and without partial columns; out of place with destinations starting at every word
//! of a cache line, and in place; general twiddles and a step's first-block twiddles (0, 1 and 3
//! zero: the product-free path); plain and streaming stores, with destination strides that allow
//! streaming and strides that do not; every [`ColumnStart`], with a width past
//! [`LONG_ROW_WORDS`].

mod common;

use common::*;
use ntt_kernels::{Backend, BackendKind, ColumnStart, LONG_ROW_WORDS, StridedRows};

/// The reference: the group's rows packed into R equal segments, the pairs one at a time.
fn reference_group(packed: &mut [u64], radix: usize, tw: &[u64]) {
    match radix {
        8 => group(packed, 8, &RADIX8, tw, true),
        4 => group(packed, 4, &RADIX4, tw, true),
        _ => group(packed, 2, &[(0, 1, 0)], tw, true),
    }
}

/// Rows `0..rows` of `buf` at `stride`, `width` words each, packed.
fn packed(buf: &[u64], rows: usize, stride: usize, width: usize) -> Vec<u64> {
    (0..rows)
        .flat_map(|j| buf[j * stride..j * stride + width].to_vec())
        .collect()
}

/// Words of `buf` outside rows `0..rows` (at `stride`, `width` each) are still `fill`.
fn untouched_outside_rows(buf: &[u64], rows: usize, stride: usize, width: usize, fill: u64) -> bool {
    buf.iter().enumerate().all(|(k, &w)| {
        let inside = k / stride < rows && k % stride < width;
        inside || w == fill
    })
}

fn check_strided(kind: BackendKind) {
    let Some(backend) = backend(kind) else { return };
    let mut rng = rng(kind as u64 + 77);
    const FILL: u64 = 0xA5A5_A5A5_A5A5_A5A5;
    for radix in [2usize, 4, 8] {
        for seg_rows in [1usize, 2, 3] {
            for width in [1usize, 3, 4, 5, 8, 13, 16, 17, 64, 70, LONG_ROW_WORDS + 5] {
                for first_block in [false, true] {
                    let mut tw: Vec<u64> = (0..radix - 1)
                        .map(|_| twiddles(&mut rng)[rand::RngExt::random_range(&mut rng, 0..10)])
                        .collect();
                    if first_block {
                        for k in [0, 1, 3] {
                            if k < tw.len() {
                                tw[k] = 0;
                            }
                        }
                    }
                    let rows = radix * seg_rows;
                    let src_stride = width + 3;
                    let src = row(&mut rng, rows * src_stride);
                    let mut expected = packed(&src, rows, src_stride, width);
                    reference_group(&mut expected, radix, &tw);
                    let what = format!("{kind} radix {radix} seg_rows {seg_rows} width {width} tw {tw:x?}");
                    // Out of place: a stride that keeps every row's alignment (streaming allowed)
                    // and one that does not, each from every word of a cache line, streamed or not.
                    for dst_stride in [width.next_multiple_of(8) + 8, width + 9] {
                        for skew in 0..8 {
                            for (stream, columns) in [false, true]
                                .into_iter()
                                .flat_map(|s| ColumnStart::ALL.map(|c| (s, c)))
                            {
                                let backend = backend.with_column_start(columns);
                                let mut dst = vec![FILL; rows * dst_stride + skew];
                                let strided = StridedRows {
                                    src: src.as_ptr(),
                                    src_stride,
                                    dst: dst[skew..].as_mut_ptr(),
                                    dst_stride,
                                    seg_rows,
                                    width,
                                };
                                // SAFETY: every row index < rows at both strides lies inside its
                                // buffer; the buffers are distinct.
                                unsafe { backend.radix_rows(strided, &tw, stream) };
                                backend.stream_fence();
                                let out = &dst[skew..];
                                assert_eq!(
                                    packed(out, rows, dst_stride, width),
                                    expected,
                                    "{what} dst_stride {dst_stride} skew {skew} stream {stream} columns {columns}"
                                );
                                assert!(
                                    dst[..skew].iter().all(|&w| w == FILL)
                                        && untouched_outside_rows(out, rows, dst_stride, width, FILL),
                                    "{what}: wrote outside the destination rows"
                                );
                            }
                        }
                    }
                    // In place.
                    let mut in_place = src.clone();
                    let p = in_place.as_mut_ptr();
                    let strided = StridedRows {
                        src: p,
                        src_stride,
                        dst: p,
                        dst_stride: src_stride,
                        seg_rows,
                        width,
                    };
                    // SAFETY: the rows lie inside `in_place`; each destination row is its own
                    // source row.
                    unsafe { backend.radix_rows(strided, &tw, false) };
                    assert_eq!(
                        packed(&in_place, rows, src_stride, width),
                        expected,
                        "{what} in place"
                    );
                    assert_eq!(
                        packed(&in_place, rows, src_stride, src_stride)
                            .chunks(src_stride)
                            .map(|r| r[width..].to_vec())
                            .collect::<Vec<_>>(),
                        packed(&src, rows, src_stride, src_stride)
                            .chunks(src_stride)
                            .map(|r| r[width..].to_vec())
                            .collect::<Vec<_>>(),
                        "{what}: in place wrote between the rows"
                    );
                }
            }
        }
    }
}

/// `copy_rows` copies, streamed or not, from every head alignment, and writes nothing else.
fn check_copy_rows(kind: BackendKind) {
    let Some(backend) = backend(kind) else { return };
    let mut rng = rng(kind as u64 + 5);
    for len in LENGTHS.into_iter().chain([100, 257]) {
        for offset in 0..9 {
            for stream in [false, true] {
                let src = row(&mut rng, len);
                let mut buf = vec![0u64; len + offset + 1];
                // SAFETY: `len` words from `offset` lie inside `buf`, a separate allocation.
                unsafe { backend.copy_rows(buf[offset..].as_mut_ptr(), &src, stream) };
                backend.stream_fence();
                assert_eq!(
                    &buf[offset..offset + len],
                    &src[..],
                    "{kind} len {len} offset {offset}"
                );
                assert!(buf[..offset].iter().all(|&w| w == 0) && buf[offset + len] == 0);
            }
        }
    }
}

backend_tests! {
    strided_groups_match_reference => check_strided,
    copy_rows_copies => check_copy_rows,
}

/// A group whose rows are empty does nothing; a wrong twiddle count is refused.
#[test]
fn degenerate_calls() {
    let backend = Backend::portable();
    let mut buf = vec![7u64; 8];
    let p = buf.as_mut_ptr();
    let empty = StridedRows {
        src: p,
        src_stride: 1,
        dst: p,
        dst_stride: 1,
        seg_rows: 1,
        width: 0,
    };
    // SAFETY: no word is accessed (width 0).
    unsafe { backend.radix_rows(empty, &[1, 2, 3], false) };
    assert_eq!(buf, vec![7u64; 8]);
    let wrong = std::panic::catch_unwind(|| {
        let mut buf = [0u64; 8];
        let rows = StridedRows::contiguous(&mut buf, 2);
        // SAFETY: the block's rows lie inside `buf`; the call panics before touching them.
        unsafe { Backend::portable().radix_rows(rows, &[1, 2], false) };
    });
    assert!(wrong.is_err(), "two twiddles must be refused");
}
