//! The normalised subspace-polynomial tables and the twiddles they give (Lin-Chung-Han 2014, §3),
//! for any evaluation domain `shift + span(β_0, β_1, …)` (see [`crate::domain`]).
//!
//! The subspace polynomial s_i vanishes exactly on span{β_0..β_{i-1}} and is GF(2)-linear;
//! ŝ_i = s_i / s_i(β_i) is its normalised form. Row `i` of a basis's table holds ŝ_i(β_i),
//! ŝ_i(β_{i+1}), … (so entry 0 is 1). With the polynomial basis β_j = x^j the span of the first
//! i vectors is the integers below 2^i.
//!
//! A butterfly whose two rows are `2^depth` apart (the block has `2^(depth+1)` rows) and whose
//! block starts at row `b·2^(depth+1)` uses the twiddle ŝ_depth(shift + ω_{b·2^(depth+1)}), which
//! by linearity is ŝ_depth(shift) + Σ_j bit_j(b) · row_depth[1 + j]. It depends on the distance
//! of the pair and the block index only, never on the size of the whole domain, so one table
//! serves every size: for a domain of 2^L rows, layer ℓ has `depth = L − ℓ − 1`. The shift only
//! adds one constant per depth ([`Twiddles::offset`]), so one table per basis serves every coset.

use crate::domain::{Basis, Domain};
use ntt_kernels::Gf64;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// Largest supported depth + 1: rows of the table (domains up to 2^63 rows).
pub(crate) const TABLE_ROWS: usize = 63;

/// The table ŝ_i(β_{i+j}) for i < min(n, 63) and i + j < n, of a basis of n vectors.
#[derive(Debug)]
pub(crate) struct SubspaceTable {
    rows: Vec<Vec<u64>>,
    /// `prefix[i][k]` = row i's entries 0..=k added up: the steps of a [`TwiddleWalk`].
    prefix: Vec<Vec<u64>>,
    /// s_i(β_i) before normalisation: the recurrence's step to s_{i+1} at any point.
    diagonal: Vec<Gf64>,
    /// 1 / s_i(β_i): the normalisation of row i.
    normaliser: Vec<Gf64>,
}

/// The polynomial basis's table, built on first use (a few thousand field multiplies).
#[cfg(test)]
pub(crate) fn table() -> &'static SubspaceTable {
    table_for(&Basis::Polynomial)
}

/// The table of `basis`, built once per process: the named bases in their own statics, each
/// distinct custom basis in a process-wide cache (its tables are a few tens of KiB and live as
/// long as the process, so a prover should use few custom bases).
pub(crate) fn table_for(basis: &Basis) -> &'static SubspaceTable {
    static POLYNOMIAL: OnceLock<SubspaceTable> = OnceLock::new();
    static CANTOR: OnceLock<SubspaceTable> = OnceLock::new();
    static CUSTOM: OnceLock<Mutex<HashMap<Vec<u64>, &'static SubspaceTable>>> = OnceLock::new();
    match basis {
        Basis::Polynomial => POLYNOMIAL.get_or_init(|| SubspaceTable::build(&basis.vectors())),
        Basis::Cantor => CANTOR.get_or_init(|| SubspaceTable::build(&basis.vectors())),
        Basis::Custom(vectors) => {
            let cache = CUSTOM.get_or_init(Default::default);
            // A poisoned lock only means another thread panicked while inserting; the map holds
            // finished tables only.
            let mut map = cache.lock().unwrap_or_else(|p| p.into_inner());
            map.entry(vectors.to_vec())
                .or_insert_with(|| Box::leak(Box::new(SubspaceTable::build(vectors))))
        }
    }
}

impl SubspaceTable {
    /// The table of the linearly independent `basis` (1 to 64 vectors).
    fn build(basis: &[u64]) -> Self {
        let n = basis.len();
        // Unnormalised rows first: row 0 is the basis; row i from row i−1 by
        // s_i(β_k) = s_{i−1}(β_k)·(s_{i−1}(β_k) + s_{i−1}(β_{i−1})).
        let mut rows: Vec<Vec<Gf64>> = Vec::with_capacity(n.min(TABLE_ROWS));
        rows.push(basis.iter().map(|&b| Gf64(b)).collect());
        for i in 1..n.min(TABLE_ROWS) {
            let prev = &rows[i - 1];
            let next = prev[1..].iter().map(|&p| p * (p + prev[0])).collect();
            rows.push(next);
        }
        let diagonal: Vec<Gf64> = rows.iter().map(|row| row[0]).collect();
        let normaliser: Vec<Gf64> = diagonal.iter().map(|&d| d.inverse()).collect();
        // Normalise only after every row is built (each row by its own entry 0).
        let rows: Vec<Vec<u64>> = rows
            .into_iter()
            .zip(&normaliser)
            .map(|(row, &inv)| row.into_iter().map(|x| (x * inv).0).collect())
            .collect();
        let prefix = rows
            .iter()
            .map(|row| {
                row.iter()
                    .scan(0, |acc, &x| {
                        *acc ^= x;
                        Some(*acc)
                    })
                    .collect()
            })
            .collect();
        Self {
            rows,
            prefix,
            diagonal,
            normaliser,
        }
    }

    /// Row `depth`: ŝ_depth(β_depth), ŝ_depth(β_{depth+1}), ….
    pub(crate) fn row(&self, depth: u32) -> &[u64] {
        &self.rows[depth as usize]
    }

    /// The twiddle of block `block` for row pairs `2^depth` apart, unshifted.
    pub(crate) fn twiddle(&self, depth: u32, block: u64) -> u64 {
        sum_bits(&self.row(depth)[1..], block)
    }

    /// ŝ_0(x), ŝ_1(x), … for every row of the table, by the subspace recurrence.
    fn normalised_at(&self, x: u64) -> [u64; TABLE_ROWS] {
        let mut out = [0u64; TABLE_ROWS];
        let mut at = Gf64(x);
        for (i, o) in out.iter_mut().enumerate().take(self.rows.len()) {
            *o = (at * self.normaliser[i]).0;
            at = at * (at + self.diagonal[i]);
        }
        out
    }
}

/// The twiddles of one domain: its basis's table and the shift's constant per depth. Cheap to
/// make (63 field multiplies for a shift); an encode makes one.
#[derive(Clone, Debug)]
pub(crate) struct Twiddles {
    table: &'static SubspaceTable,
    /// ŝ_depth(shift), added to every twiddle of that depth.
    offsets: [u64; TABLE_ROWS],
}

impl Twiddles {
    pub(crate) fn new(domain: &Domain) -> Self {
        let table = table_for(domain.basis());
        let offsets = if domain.shift() == 0 {
            [0; TABLE_ROWS]
        } else {
            table.normalised_at(domain.shift())
        };
        Self { table, offsets }
    }

    /// The polynomial basis, unshifted.
    pub(crate) fn polynomial() -> Self {
        Self::new(&Domain::polynomial())
    }

    /// ŝ_depth(shift).
    pub(crate) fn offset(&self, depth: u32) -> u64 {
        self.offsets[depth as usize]
    }

    /// The twiddle of block `block` for row pairs `2^depth` apart.
    pub(crate) fn twiddle(&self, depth: u32, block: u64) -> u64 {
        self.table.twiddle(depth, block) ^ self.offset(depth)
    }

    /// What setting bit k of a block index (clear before) adds to the seven twiddles of that
    /// block's radix-8 group ([`Radix8Walk`], top layer pairs `2^depth` apart), for each
    /// k < `out.len()`: the twiddles are sums over the index's set bits, so these are the
    /// table's own entries, read rather than walked (the shift cancels). `depth ≥ 2`.
    pub(crate) fn radix8_bit_steps(&self, depth: u32, out: &mut [[u64; 7]]) {
        let t = self.table;
        let (top, mid, low) = (t.row(depth), t.row(depth - 1), t.row(depth - 2));
        for (k, step) in out.iter_mut().enumerate() {
            // Block b's top twiddle takes row_depth[1 + j] for bit j of b; the middle layer's
            // blocks 2b, 2b + 1 take row_{depth−1}[2 + j], the lowest layer's 4b .. 4b + 3 take
            // row_{depth−2}[3 + j].
            let (m, l) = (mid[2 + k], low[3 + k]);
            *step = [top[1 + k], m, m, l, l, l, l];
        }
    }
}

/// Σ_j bit_j(bits) · coeffs[j] (bits beyond `coeffs` must be zero).
fn sum_bits(coeffs: &[u64], mut bits: u64) -> u64 {
    let mut acc = 0;
    while bits != 0 {
        let j = bits.trailing_zeros() as usize;
        acc ^= coeffs[j];
        bits &= bits - 1;
    }
    acc
}

/// Twiddles of consecutive blocks with one addition per step.
///
/// Walks Σ_j bit_j(b)·c_j with c_j = row_depth[offset + j]. Going from block b to b + 1 clears
/// the trailing ones of b and sets the next bit, so the twiddle changes by Σ_{j ≤ k} c_j with
/// k = trailing_ones(b): a difference of two of the table's prefix sums, so starting a walk
/// costs no more than its first twiddle.
#[derive(Clone, Debug)]
pub(crate) struct TwiddleWalk {
    current: u64,
    block: u64,
    /// The table's prefix sums of row `depth` from entry `offset` on.
    prefix: &'static [u64],
    /// The prefix sum just before `offset` (entries `0..offset`), cancelled from each step.
    before: u64,
}

impl TwiddleWalk {
    /// Walks ŝ_depth(shift) + Σ_j bit_j(b)·row_depth[offset + j] from block `first` on
    /// (`offset ≥ 1`).
    fn over(tw: &Twiddles, depth: u32, offset: usize, first: u64) -> Self {
        let t = tw.table;
        let prefix = &t.prefix[depth as usize];
        Self {
            current: sum_bits(&t.row(depth)[offset..], first) ^ tw.offset(depth),
            block: first,
            prefix: &prefix[offset..],
            before: prefix[offset - 1],
        }
    }

    /// The walk of `twiddle(depth, b)` (row `depth`, offset 1) from block `first`.
    pub(crate) fn for_depth(tw: &Twiddles, depth: u32, first: u64) -> Self {
        Self::over(tw, depth, 1, first)
    }

    /// The twiddle of the current block.
    #[inline]
    pub(crate) fn get(&self) -> u64 {
        self.current
    }

    /// Moves to the next block.
    #[inline]
    pub(crate) fn advance(&mut self) {
        // A block past the row's last coefficient has no twiddle; the walk never goes there
        // (a domain of 2^L rows has at most 2^(L−depth−1) blocks per layer).
        let k = self.block.trailing_ones() as usize;
        self.current ^= self.prefix.get(k).map_or(0, |p| p ^ self.before);
        self.block += 1;
    }
}

/// The seven twiddles of a radix-8 group whose top layer has pairs `2^depth` apart, walked block
/// to block: [T(depth, b); T(depth−1, 2b), T(depth−1, 2b+1); T(depth−2, 4b..4b+3)].
#[derive(Clone, Debug)]
pub(crate) struct Radix8Walk {
    top: TwiddleWalk,
    mid: TwiddleWalk,
    low: TwiddleWalk,
    mid_odd: u64,
    low_1: u64,
    low_2: u64,
}

impl Radix8Walk {
    /// `depth ≥ 2`; `first` is the block index at the top layer.
    pub(crate) fn new(tw: &Twiddles, depth: u32, first: u64) -> Self {
        let t = tw.table;
        let mid = t.row(depth - 1);
        let low = t.row(depth - 2);
        Self {
            top: TwiddleWalk::over(tw, depth, 1, first),
            // T(depth−1, 2b) = Σ bit_j(b)·mid[2 + j]: block 2b's bits are b's shifted up by one.
            // The shift's constant rides in the walks, so the odd blocks below inherit it.
            mid: TwiddleWalk::over(tw, depth - 1, 2, first),
            low: TwiddleWalk::over(tw, depth - 2, 3, first),
            mid_odd: mid[1],
            low_1: low[1],
            low_2: low[2],
        }
    }

    #[inline]
    pub(crate) fn get(&self) -> [u64; 7] {
        let a = self.mid.get();
        let c = self.low.get();
        [
            self.top.get(),
            a,
            a ^ self.mid_odd,
            c,
            c ^ self.low_1,
            c ^ self.low_2,
            c ^ self.low_1 ^ self.low_2,
        ]
    }

    #[inline]
    pub(crate) fn advance(&mut self) {
        self.top.advance();
        self.mid.advance();
        self.low.advance();
    }
}

/// The three twiddles of a radix-4 group: [T(depth, b); T(depth−1, 2b), T(depth−1, 2b+1)].
#[derive(Clone, Debug)]
pub(crate) struct Radix4Walk {
    top: TwiddleWalk,
    mid: TwiddleWalk,
    mid_odd: u64,
}

impl Radix4Walk {
    /// `depth ≥ 1`; `first` is the block index at the top layer.
    pub(crate) fn new(tw: &Twiddles, depth: u32, first: u64) -> Self {
        let t = tw.table;
        let mid = t.row(depth - 1);
        Self {
            top: TwiddleWalk::over(tw, depth, 1, first),
            mid: TwiddleWalk::over(tw, depth - 1, 2, first),
            mid_odd: mid[1],
        }
    }

    #[inline]
    pub(crate) fn get(&self) -> [u64; 3] {
        let a = self.mid.get();
        [self.top.get(), a, a ^ self.mid_odd]
    }

    #[inline]
    pub(crate) fn advance(&mut self) {
        self.top.advance();
        self.mid.advance();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The looked-up steps are what a walk from the block with the bit set adds, on a shifted
    /// domain too (whose offsets cancel).
    #[test]
    fn radix8_bit_steps_match_the_walks() {
        let shifted = Twiddles::new(&Domain::polynomial().with_shift(0x1234_5678_9abc_def1));
        for tw in [Twiddles::polynomial(), shifted] {
            for depth in [2u32, 3, 7, 20] {
                let mut steps = [[0u64; 7]; 12];
                tw.radix8_bit_steps(depth, &mut steps);
                for first in [0u64, 1 << 12, 5 << 12] {
                    let base = Radix8Walk::new(&tw, depth, first).get();
                    for (k, step) in steps.iter().enumerate() {
                        let set = Radix8Walk::new(&tw, depth, first | 1 << k).get();
                        let diff: [u64; 7] = core::array::from_fn(|j| set[j] ^ base[j]);
                        assert_eq!(*step, diff, "depth {depth} first {first} bit {k}");
                    }
                }
            }
        }
    }

    #[test]
    fn table_matches_published_rows() {
        let t = table();
        assert_eq!(&t.row(0)[..5], &[1, 2, 4, 8, 0x10]);
        assert_eq!(&t.row(1)[..4], &[1, 0x6, 0x1c, 0x78]);
        assert_eq!(&t.row(2)[..3], &[1, 0x16, 0x17c]);
        assert_eq!(&t.row(3)[..2], &[1, 0x116]);
        for i in 0..TABLE_ROWS as u32 {
            assert_eq!(t.row(i)[0], 1);
        }
    }

    #[test]
    fn twiddles_for_four_layers() {
        // L = 4: layer ℓ has depth 3 − ℓ.
        let t = table();
        let layer = |l: u32| (0..1u64 << l).map(|b| t.twiddle(3 - l, b)).collect::<Vec<_>>();
        assert_eq!(layer(0), [0]);
        assert_eq!(layer(1), [0, 0x16]);
        assert_eq!(layer(2), [0, 0x6, 0x1c, 0x1a]);
        assert_eq!(layer(3), [0, 2, 4, 6, 8, 0xa, 0xc, 0xe]);
    }

    #[test]
    fn walks_match_direct_twiddles() {
        let domains = [
            Domain::polynomial(),
            Domain::cantor(),
            Domain::cantor().with_shift(0xdead_beef_0123_4567),
            Domain::polynomial().with_shift(1 << 40),
        ];
        for domain in &domains {
            let t = Twiddles::new(domain);
            walks_match(&t);
        }
    }

    fn walks_match(t: &Twiddles) {
        for depth in 2..12 {
            for first in [0u64, 1, 5, 64, 1000] {
                let mut w1 = TwiddleWalk::for_depth(t, depth, first);
                let mut w8 = Radix8Walk::new(t, depth, first);
                let mut w4 = Radix4Walk::new(t, depth, first);
                for b in first..first + 70 {
                    assert_eq!(w1.get(), t.twiddle(depth, b));
                    let expect8 = [
                        t.twiddle(depth, b),
                        t.twiddle(depth - 1, 2 * b),
                        t.twiddle(depth - 1, 2 * b + 1),
                        t.twiddle(depth - 2, 4 * b),
                        t.twiddle(depth - 2, 4 * b + 1),
                        t.twiddle(depth - 2, 4 * b + 2),
                        t.twiddle(depth - 2, 4 * b + 3),
                    ];
                    assert_eq!(w8.get(), expect8);
                    assert_eq!(w4.get(), [expect8[0], expect8[1], expect8[2]]);
                    w1.advance();
                    w8.advance();
                    w4.advance();
                }
            }
        }
    }

    #[test]
    fn cantor_rows_are_the_basis_itself() {
        // W_j(v_i) = v_(i−j) for the Cantor basis, and W_j(v_j) = 1: row d is β_0, β_1, ….
        let t = table_for(&Basis::Cantor);
        for d in 0..TABLE_ROWS as u32 {
            assert_eq!(
                t.row(d),
                &crate::domain::CANTOR_BASIS[..64 - d as usize],
                "row {d}"
            );
        }
    }

    #[test]
    fn shift_offsets_are_the_normalised_subspace_values() {
        // ŝ_d is linear and vanishes on span(β_0..β_{d−1}), so ŝ_d(β_{d+j}) shifted by a basis
        // vector of the table's own row is that row's entry.
        let custom = Basis::custom(vec![3, 0x10, 0x101, 0x8000_0000_0000_0000, 7 << 20]).unwrap();
        for basis in [Basis::Polynomial, Basis::Cantor, custom] {
            let vectors = basis.vectors().into_owned();
            let t = table_for(&basis);
            for (d, &v) in vectors.iter().enumerate().take(TABLE_ROWS) {
                let tw = Twiddles::new(&Domain::new(basis.clone()).with_shift(v));
                assert_eq!(tw.offset(d as u32), 1, "ŝ_d(β_d) = 1");
                for e in 0..d {
                    assert_eq!(tw.offset(e as u32), t.row(e as u32)[d - e], "row {e} at β_{d}");
                }
            }
        }
    }

    #[test]
    fn custom_tables_are_cached() {
        let b = Basis::custom(vec![5, 9, 0x40]).unwrap();
        assert!(std::ptr::eq(table_for(&b), table_for(&b.clone())));
        assert_eq!(
            table_for(&b).row(0),
            &[1, table_for(&b).row(0)[1], table_for(&b).row(0)[2]]
        );
    }
}
