//! What the piece level costs or saves in `Blake3Mmcs`: commit time (the pieces hashed on the
//! pool, the levels above merged) and open time (per opened chunk, the siblings below the piece
//! level rehashed: up to 15 KiB at level 4, 63 KiB at level 6). The tree is built through
//! `ntt_pcs::pieces` at levels 4 and 6 as `Blake3Mmcs` builds it at its own level, and
//! `Blake3Mmcs` itself is timed beside them. Prints the median and worst of 15 runs, in turn,
//! so that a noisy machine slows each alike.
//!
//! ```text
//! cargo run --release -p ntt-plonky3 --example piece_level [workers, default 1]
//! ```

use blake3::hazmat::ChainingValue;
use ntt_pcs::ntt_verify::tree::{ChunkSet, TreeShape, fold_root};
use ntt_pcs::pieces::{ChainingTree, DEFAULT_PIECE_LEVEL, hash_level, node_cv};
use ntt_plonky3::Blake3Mmcs;
use ntt_runtime::ThreadPool;
use ntt_runtime::stats::Spread;
use p3_binary_field::Poly64;
use p3_commit::Mmcs;
use p3_matrix::dense::RowMajorMatrix;
use std::time::{Duration, Instant};

/// 2^20 rows of 8 values: 64 MiB.
const LOG_ROWS: u32 = 20;
const WIDTH: usize = 8;
/// Rows opened one at a time, as a WHIR query phase opens them.
const QUERIES: u64 = 100;
const RUNS: usize = 15;

/// The tree at `level` and its root, as `Blake3Mmcs` commits a matrix.
fn commit(bytes: &[u8], level: u32, pool: &ThreadPool) -> (ChainingTree, [u8; 32]) {
    let shape = TreeShape::new(bytes.len() as u64).expect("not empty");
    let pieces = hash_level(&shape, level, pool, |start, end| {
        node_cv(start, &bytes[start as usize..end as usize])
    });
    ChainingTree::from_level(shape, level, pieces)
}

/// One row's opening, as `Blake3Mmcs` opens it: its chunks and the siblings up to the root.
fn open(tree: &ChainingTree, bytes: &[u8], row: u64) -> (Vec<u8>, Vec<ChainingValue>) {
    let shape = *tree.shape();
    let chunks = ChunkSet::of_rows(8 * WIDTH as u64, [row]).expect("a row of the matrix");
    let mut chunk_bytes = Vec::new();
    let mut leaves = Vec::new();
    for c in chunks.iter() {
        let (start, end) = shape.node_bytes(0, c).expect("a chunk of the tree");
        chunk_bytes.extend_from_slice(&bytes[start as usize..end as usize]);
        leaves.push((c, node_cv(start, &bytes[start as usize..end as usize])));
    }
    let mut siblings = Vec::new();
    let _ = fold_root(&shape, leaves, |h, i| {
        let cv = tree.node_cv(h, i, bytes);
        siblings.push(cv);
        Ok::<_, std::convert::Infallible>(cv)
    });
    (chunk_bytes, siblings)
}

fn rows() -> impl Iterator<Item = u64> {
    (1..=QUERIES).map(|k| k.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - LOG_ROWS))
}

fn timed<R>(f: impl FnOnce() -> R) -> (Duration, R) {
    let start = Instant::now();
    let out = f();
    (start.elapsed(), out)
}

fn main() {
    let workers = std::env::args()
        .nth(1)
        .map_or(1, |w| w.parse().expect("a worker count"));
    let mmcs = Blake3Mmcs::with_workers(workers);
    let values: Vec<Poly64> = (0..(WIDTH << LOG_ROWS) as u64)
        .map(|k| Poly64::new(k.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ k >> 7))
        .collect();
    let matrix = RowMajorMatrix::new(values, WIDTH);
    let bytes: Vec<u8> = matrix
        .values
        .iter()
        .flat_map(|v| v.to_bits().to_le_bytes())
        .collect();
    let expected = *blake3::hash(&bytes).as_bytes();
    let names = ["pieces level 4", "pieces level 6", "Blake3Mmcs"];
    let (mut commits, mut opens) = (vec![Vec::new(); 3], vec![Vec::new(); 3]);
    for _ in 0..RUNS {
        for (k, level) in [4, DEFAULT_PIECE_LEVEL].into_iter().enumerate() {
            let (took, (tree, root)) = timed(|| commit(&bytes, level, mmcs.pool()));
            assert_eq!(root, expected);
            commits[k].push(took);
            let (took, sizes) = timed(|| rows().map(|r| open(&tree, &bytes, r).1.len()).sum::<usize>());
            assert!(sizes > 0);
            opens[k].push(took);
        }
        let copy = matrix.clone();
        let (took, (_, data)) = timed(|| mmcs.commit_matrix(copy));
        commits[2].push(took);
        let (took, _) = timed(|| {
            rows()
                .map(|r| mmcs.open_batch(r as usize, &data).opened_values.len())
                .sum::<usize>()
        });
        opens[2].push(took);
    }
    let noun = if workers == 1 { "worker" } else { "workers" };
    println!("64 MiB matrix ({WIDTH} values × 2^{LOG_ROWS} rows), {workers} {noun}, {RUNS} runs");
    println!(
        "{:<16} {:>22} {:>26}",
        "", "commit ms (med / worst)", "100 opens ms (med / worst)"
    );
    for (k, name) in names.iter().enumerate() {
        let (c, o) = (Spread::of_ms(&commits[k]), Spread::of_ms(&opens[k]));
        println!(
            "{name:<16} {:>12.2} / {:>7.2} {:>16.3} / {:>7.3}",
            c.median, c.max, o.median, o.max
        );
    }
}
