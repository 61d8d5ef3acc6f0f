//! The machine's physical limits, measured: memory bandwidth (read, copy, write, first touch), the
//! butterfly kernel rate in L1 and BLAKE3 on one core.
//!
//! Bandwidths are medians over repeats, on buffers far larger than the last-level cache; they
//! count bytes the way STREAM does: a copy moves its bytes twice (read + write). The in-cache
//! rates (butterfly kernel, BLAKE3) are the best of at least 31 short samples: contention only
//! slows a sample down, and a limit is what the core can do.

use crate::bytes::as_le_bytes;
use crate::timing::{Samples, repeat, time};
use ntt_kernels::Backend;
use serde::Serialize;
use std::hint::black_box;

const GIB: f64 = (1u64 << 30) as f64;

/// Words per segment of the L1 kernel block: 8 segments × 256 words = 16 KiB, inside any L1d.
pub const L1_SEGMENT_WORDS: usize = 256;

/// Bytes of the in-cache BLAKE3 measurement: a quarter of a 2 MiB L2, the size of a block of
/// rows the encoder hands to its row sink.
pub const BLAKE3_IN_CACHE_BYTES: usize = 512 << 10;

/// Bytes of the first-touch buffer (at most).
pub const FIRST_TOUCH_BYTES: usize = 256 << 20;

/// Bytes per second of one memory access pattern, at one worker and at all of them.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Bandwidth {
    /// GiB/s on one thread.
    pub one: f64,
    /// GiB/s on `workers` threads.
    pub all: f64,
}

/// The butterfly kernel's rate on data in L1, for one backend.
#[derive(Clone, Debug, Serialize)]
pub struct KernelRate {
    /// The backend's name.
    pub backend: String,
    /// Nanoseconds per lane-butterfly (one `u += t·v; v += u` on one word pair), one core.
    pub ns_per_lane_butterfly: f64,
}

/// BLAKE3 on one core over a buffer of a given size.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct HashRate {
    /// Bytes hashed per call.
    pub bytes: usize,
    /// GiB/s, one core (`blake3::hash`).
    pub gib_s: f64,
}

/// Everything [`Limits::measure`] finds.
#[derive(Clone, Debug, Serialize)]
pub struct Limits {
    /// Threads of the "all" figures.
    pub workers: usize,
    /// Bytes of each bandwidth buffer.
    pub bandwidth_bytes: usize,
    /// Sum of a buffer (reads only).
    pub read: Bandwidth,
    /// `memcpy` of a buffer, read + write bytes counted.
    pub copy: Bandwidth,
    /// Filling a buffer already in memory (writes only; a plain store also reads each line
    /// in, which the figure does not count).
    pub write: Bandwidth,
    /// Allocating, writing and freeing a buffer of up to [`FIRST_TOUCH_BYTES`] (page faults
    /// included), bytes written.
    pub first_touch: Bandwidth,
    /// Per backend this CPU has; the first is [`Backend::detect`]'s.
    pub butterfly: Vec<KernelRate>,
    /// BLAKE3 on one core over [`BLAKE3_IN_CACHE_BYTES`] hashed again and again (in L2): the
    /// rate of hashing rows while they are in cache, which the compute bound uses.
    pub blake3_in_cache: HashRate,
    /// BLAKE3 on one core over each requested size (a codeword hashed from memory).
    pub blake3: Vec<HashRate>,
}

impl Limits {
    /// Measures everything: bandwidths over `bandwidth_bytes`-byte buffers at 1 and `workers`
    /// threads, the butterfly rate per backend, and BLAKE3 over each of `hash_sizes` bytes.
    pub fn measure(workers: usize, bandwidth_bytes: usize, hash_sizes: &[usize], repeats: usize) -> Self {
        let words = bandwidth_bytes / 8;
        let bandwidth_bytes = words * 8;
        let src: Vec<u64> = (0..words as u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        let mut dst = vec![1u64; words];
        let read = |t| {
            gib_s(
                bandwidth_bytes,
                &repeat(1, repeats, || time(|| read_all(&src, t))),
            )
        };
        let read = Bandwidth {
            one: read(1),
            all: read(workers),
        };
        let mut copy = |t| {
            gib_s(
                2 * bandwidth_bytes,
                &repeat(1, repeats, || time(|| copy_all(&mut dst, &src, t))),
            )
        };
        let copy = Bandwidth {
            one: copy(1),
            all: copy(workers),
        };
        let mut write = |t| {
            gib_s(
                bandwidth_bytes,
                &repeat(1, repeats, || time(|| fill_all(&mut dst, t))),
            )
        };
        let write = Bandwidth {
            one: write(1),
            all: write(workers),
        };
        drop(dst);
        // Page faults cost the same per page at any size; a smaller buffer keeps this quick.
        let touch_words = words.min(FIRST_TOUCH_BYTES / 8);
        let touch = |t| {
            gib_s(
                touch_words * 8,
                &repeat(1, repeats, || first_touch(touch_words, t)),
            )
        };
        let first_touch = Bandwidth {
            one: touch(1),
            all: touch(workers),
        };
        drop(src);
        let mut backends = Backend::available();
        let detected = Backend::detect();
        backends.retain(|b| *b != detected);
        backends.insert(0, detected);
        let butterfly = backends
            .into_iter()
            .map(|b| KernelRate {
                backend: format!("{:?}", b.kind()).to_lowercase(),
                ns_per_lane_butterfly: butterfly_ns(b, repeats),
            })
            .collect();
        let blake3 = hash_sizes
            .iter()
            .map(|&bytes| blake3_rate(bytes, repeats))
            .collect();
        Self {
            workers,
            bandwidth_bytes,
            read,
            copy,
            write,
            first_touch,
            butterfly,
            blake3_in_cache: blake3_in_cache_rate(repeats),
            blake3,
        }
    }

    /// The detected backend's nanoseconds per lane-butterfly in L1.
    pub fn ns_per_lane_butterfly(&self) -> f64 {
        self.butterfly[0].ns_per_lane_butterfly
    }

    /// One-core BLAKE3 GiB/s measured over the size closest to `bytes`.
    ///
    /// # Panics
    /// If no hash size was measured.
    pub fn blake3_gib_s(&self, bytes: usize) -> f64 {
        self.blake3
            .iter()
            .min_by_key(|h| h.bytes.abs_diff(bytes))
            .expect("at least one BLAKE3 size measured")
            .gib_s
    }
}

fn gib_s(bytes: usize, samples: &Samples) -> f64 {
    bytes as f64 / GIB / samples.median()
}

/// Splits `len` into `threads` nearly equal ranges.
fn ranges(len: usize, threads: usize) -> impl Iterator<Item = std::ops::Range<usize>> {
    let per = len.div_ceil(threads.max(1));
    (0..threads.max(1)).map(move |i| (i * per).min(len)..((i + 1) * per).min(len))
}

/// XOR-folds `buf` on `threads` threads (eight accumulators, so the loop vectorizes and the
/// loads, not the dependency chain, set the pace).
fn read_all(buf: &[u64], threads: usize) {
    std::thread::scope(|s| {
        for r in ranges(buf.len(), threads) {
            let part = &buf[r];
            s.spawn(move || {
                let mut acc = [0u64; 8];
                let (chunks, rest) = part.as_chunks::<8>();
                for c in chunks {
                    for (a, w) in acc.iter_mut().zip(c) {
                        *a ^= w;
                    }
                }
                black_box((acc, rest.iter().fold(0, |x, w| x ^ w)));
            });
        }
    });
}

/// Copies `src` into `dst` on `threads` threads.
fn copy_all(dst: &mut [u64], src: &[u64], threads: usize) {
    let per = src.len().div_ceil(threads.max(1));
    std::thread::scope(|s| {
        for (d, c) in dst.chunks_mut(per).zip(src.chunks(per)) {
            s.spawn(move || d.copy_from_slice(black_box(c)));
        }
    });
}

/// Fills `dst` on `threads` threads.
fn fill_all(dst: &mut [u64], threads: usize) {
    let per = dst.len().div_ceil(threads.max(1));
    std::thread::scope(|s| {
        for d in dst.chunks_mut(per) {
            s.spawn(move || d.fill(black_box(0x5a5a)));
        }
    });
}

/// Seconds to allocate `words` words, write every one on `threads` threads (faulting the pages
/// in) and free them.
fn first_touch(words: usize, threads: usize) -> f64 {
    time(|| {
        let mut buf: Vec<u64> = Vec::with_capacity(words);
        let per = words.div_ceil(threads.max(1));
        std::thread::scope(|s| {
            for part in buf.spare_capacity_mut().chunks_mut(per) {
                s.spawn(move || {
                    for w in part {
                        w.write(7);
                    }
                });
            }
        });
        // SAFETY: every one of the `words` elements was written by the threads above, which the
        // scope joined before this line.
        unsafe { buf.set_len(words) };
        black_box(&buf);
    })
}

/// Nanoseconds per lane-butterfly of `backend.radix8` on an 8 × 256-word block (16 KiB, in L1),
/// best of the short samples.
pub fn butterfly_ns(backend: Backend, repeats: usize) -> f64 {
    let mut block: Vec<u64> = crate::witness(11);
    let tw = [0x16, 0x6, 0x1c, 2, 4, 6, 8].map(|t: u64| t.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let lane_butterflies_per_call = (3 * 4 * L1_SEGMENT_WORDS) as f64;
    // Short samples (about 1 ms) and many of them: a sample that a busy scheduler preempts is
    // an outlier the median drops, not a bias in every sample.
    let mut iters = 1usize;
    loop {
        let secs = time(|| {
            for _ in 0..iters {
                backend.radix8(black_box(&mut block), black_box(tw));
            }
        });
        if secs > 1e-3 || iters >= 1 << 24 {
            break;
        }
        iters *= 2;
    }
    let samples = repeat(3, repeats.max(31), || {
        time(|| {
            for _ in 0..iters {
                backend.radix8(black_box(&mut block), black_box(tw));
            }
        })
    });
    // A limit is what the core can do; contention only ever slows a sample, so the best one.
    samples.min() * 1e9 / (iters as f64 * lane_butterflies_per_call)
}

/// BLAKE3 (`blake3::hash`, one core) over [`BLAKE3_IN_CACHE_BYTES`] that stay in L2, from many
/// short samples (8 hashes each), best sample.
pub fn blake3_in_cache_rate(repeats: usize) -> HashRate {
    const HASHES_PER_SAMPLE: usize = 8;
    let words = crate::witness(BLAKE3_IN_CACHE_BYTES.trailing_zeros() - 3);
    let data = as_le_bytes(&words);
    let samples = repeat(3, repeats.max(31), || {
        time(|| {
            for _ in 0..HASHES_PER_SAMPLE {
                black_box(blake3::hash(black_box(data)));
            }
        })
    });
    HashRate {
        bytes: data.len(),
        // The best sample, as for the butterfly rate.
        gib_s: HASHES_PER_SAMPLE as f64 * data.len() as f64 / GIB / samples.min(),
    }
}

/// BLAKE3 (`blake3::hash`, one core) over `bytes` bytes of pseudo-random data.
pub fn blake3_rate(bytes: usize, repeats: usize) -> HashRate {
    let words = crate::witness(bytes.next_power_of_two().trailing_zeros().saturating_sub(3));
    let data = &as_le_bytes(&words)[..bytes.min(words.len() * 8)];
    let samples = repeat(1, repeats, || {
        time(|| {
            black_box(blake3::hash(black_box(data)));
        })
    });
    HashRate {
        bytes: data.len(),
        gib_s: gib_s(data.len(), &samples),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_tile_the_buffer() {
        let r: Vec<_> = ranges(10, 3).collect();
        assert_eq!(r, [0..4, 4..8, 8..10]);
        assert_eq!(ranges(2, 4).map(|r| r.len()).sum::<usize>(), 2);
    }

    #[test]
    fn small_measurement_gives_finite_positive_figures() {
        let l = Limits::measure(2, 1 << 20, &[1 << 16], 2);
        for bw in [l.read, l.copy, l.first_touch] {
            assert!(bw.one.is_finite() && bw.one > 0.0 && bw.all > 0.0);
        }
        assert!(l.ns_per_lane_butterfly() > 0.0);
        assert_eq!(l.blake3[0].bytes, 1 << 16);
        assert!(l.blake3_gib_s(1 << 20) > 0.0);
    }
}
