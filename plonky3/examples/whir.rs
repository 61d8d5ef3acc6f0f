//! One Plonky3 binary-WHIR instance committed and opened with Plonky3's own NTT (`LchNtt`) and
//! with the engine's (`EngineNtt`), interleaved and repeated; every proof verified by Plonky3.
//!
//! ```text
//! RUSTFLAGS="-C target-cpu=native" cargo run --release -p ntt-plonky3 --example whir -- --num-variables 20
//! ```
//!
//! `--mmcs keccak` (the default), `--mmcs blake3` or `--mmcs sha256`: Plonky3's prover runs
//! `LchNtt` and its own `MerkleTreeMmcs` of that hash (Plonky3's WHIR benchmark with Keccak;
//! SHA-256's nodes are one bare compression, `Sha256Compress`); the engine's runs
//! `EngineNtt` and the engine's `MerkleMmcs` of the same hash, sharing the NTT's pool and taking
//! the row digests the encoder hashed. The proofs are the same bytes, and Plonky3's verifier
//! (`LchNtt`, `MerkleTreeMmcs`) checks the engine's after a round trip through their bytes.
//! `--mmcs blake3-chunks`: both provers commit with the engine's `Blake3Mmcs` (BLAKE3 of the
//! codeword's bytes, 1 KiB chunk leaves), only the NTT differs.
//!
//! Prints a table of median times, or with `--json` one object: `num_variables`, `workers`,
//! `mmcs`, `verified_by_plonky3`, `proofs_identical`, `proof_bytes` (commitment and proof,
//! serialised with postcard), `commit_ms`, `open_ms`, `encode_ms` (each `{plonky3, engine}`;
//! encode is the time inside the NTT calls of commit and open), the speedups (Plonky3's median
//! over the engine's), and `commit_breakdown_ms` (each side's commit, medians: `ntt` inside the
//! NTT call less the leaf hashing the encoder did there, `leaf_hash` hashing rows wherever it
//! ran, `fingerprint` the engine's check that a codeword is the one its encoder hashed,
//! `tree_nodes` the layers above the leaves, `other` the rest of the commit (the witness's
//! padding and transposition, allocation and first touch), and `page_faults`, minor faults
//! during the commit, a count), and `engine_commits` with `engine_commits_fused` and
//! `engine_commits_stale`: how many of the engine's Merkle commits (warm-up included) took the
//! encoder's row digests, and how many found their codeword changed. Hashing times are thread times summed over the workers, exact on
//! one worker; Plonky3's are read by a wrapper around its hasher (a clock read per `hash_many`
//! call of 8 KiB or more).
//! `--calls` adds a table of every NTT call of one commit and open, with both NTTs' medians.

use clap::{Parser, ValueEnum};
use ntt_plonky3::{Blake3Mmcs, EngineNtt, MerkleMmcs, RowHash};
use p3_binary_dft::{AdditiveNtt, LchNtt};
use p3_binary_field::{BinaryChallenger, Poly64, Poly192};
use p3_binary_pcs::whir::{BinaryWhirDomain, recommended_cap_height};
use p3_challenger::{CanObserve, HashChallenger};
use p3_commit::{Mmcs, MultilinearPcs};
use p3_keccak::Keccak256Hash;
use p3_matrix::Matrix;
use p3_matrix::dense::{RowMajorMatrix, RowMajorMatrixView};
use p3_merkle_tree::MerkleTreeMmcs;
use p3_sumcheck::layout::{Layout, PrefixProver, Table, Witness};
use p3_sumcheck::{OpeningBatch, OpeningProtocol, TableShape, TableSpec};
use p3_symmetric::{CryptographicHasher, PseudoCompressionFunction, SerializingHasher};
use p3_whir::{FoldingFactor, PcsProof, ProtocolParameters, SecurityAssumption, WhirConfig, WhirProver};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use serde::de::DeserializeOwned;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Plonky3's `MerkleTreeMmcs` of `H`, its leaf and node hashing timed.
type PlonkyMmcs<H> = MerkleTreeMmcs<
    Poly64,
    u8,
    SerializingHasher<TimedHash<H>>,
    TimedCompress<<H as RowHash>::Compress>,
    2,
    32,
>;
type Challenger = BinaryChallenger<Poly64, HashChallenger<u8, Keccak256Hash, 32>>;
type Pcs<N, MT> = WhirProver<
    Poly192,
    Poly64,
    BinaryWhirDomain<Poly64, Timed<N>>,
    MT,
    Challenger,
    PrefixProver<Poly64, Poly192>,
>;

/// Nanoseconds Plonky3's tree spent hashing rows, and nodes (thread time, summed).
static PLONKY_LEAF_NS: AtomicU64 = AtomicU64::new(0);
static PLONKY_NODE_NS: AtomicU64 = AtomicU64::new(0);

/// A Plonky3 byte hasher whose calls add their time to a counter; its digests are the inner
/// hasher's, and it batches as the inner one does.
#[derive(Clone, Copy, Debug)]
struct TimedHash<H> {
    inner: H,
    total: &'static AtomicU64,
}

impl<H: CryptographicHasher<u8, [u8; 32]>> TimedHash<H> {
    fn time<T>(&self, f: impl FnOnce(&H) -> T) -> T {
        let start = Instant::now();
        let out = f(&self.inner);
        self.total
            .fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
        out
    }
}

impl<H: CryptographicHasher<u8, [u8; 32]>> CryptographicHasher<u8, [u8; 32]> for TimedHash<H> {
    const LANES: usize = H::LANES;

    fn hash_iter<I: IntoIterator<Item = u8>>(&self, input: I) -> [u8; 32] {
        self.time(|h| h.hash_iter(input))
    }

    fn hash_iter_slices<'a, I: IntoIterator<Item = &'a [u8]>>(&self, input: I) -> [u8; 32] {
        self.time(|h| h.hash_iter_slices(input))
    }

    fn hash_slice(&self, input: &[u8]) -> [u8; 32] {
        self.time(|h| h.hash_slice(input))
    }

    fn hash_many(&self, input: &[u8], out: &mut [[u8; 32]]) {
        self.time(|h| h.hash_many(input, out));
    }
}

/// A node function whose calls add their time to [`PLONKY_NODE_NS`]; its digests are the inner
/// function's, and it batches as the inner one does.
#[derive(Clone, Debug)]
struct TimedCompress<C>(C);

impl<C: PseudoCompressionFunction<[u8; 32], 2>> PseudoCompressionFunction<[u8; 32], 2> for TimedCompress<C> {
    const LANES: usize = C::LANES;

    fn compress(&self, input: [[u8; 32]; 2]) -> [u8; 32] {
        let start = Instant::now();
        let out = self.0.compress(input);
        PLONKY_NODE_NS.fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
        out
    }

    fn compress_many(&self, inputs: &[[[u8; 32]; 2]], out: &mut [[u8; 32]]) {
        let start = Instant::now();
        self.0.compress_many(inputs, out);
        PLONKY_NODE_NS.fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
    }
}

fn plonky_mmcs<H: RowHash>(cap_height: usize) -> PlonkyMmcs<H> {
    PlonkyMmcs::new(
        SerializingHasher::new(TimedHash {
            inner: H::HASHER,
            total: &PLONKY_LEAF_NS,
        }),
        TimedCompress(H::COMPRESS),
        cap_height,
    )
}

/// The matrix commitment schemes of the two provers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum MmcsChoice {
    /// Keccak-256 Merkle trees: Plonky3's `MerkleTreeMmcs`, and the engine's `KeccakMerkleMmcs`.
    Keccak,
    /// BLAKE3 Merkle trees: Plonky3's `MerkleTreeMmcs`, and the engine's `Blake3MerkleMmcs`.
    Blake3,
    /// SHA-256 Merkle trees (nodes by one bare compression, `Sha256Compress`): Plonky3's
    /// `MerkleTreeMmcs`, and the engine's `Sha256MerkleMmcs`.
    Sha256,
    /// The engine's `Blake3Mmcs` (BLAKE3 of the codeword bytes, chunk leaves) on both sides.
    Blake3Chunks,
}

impl MmcsChoice {
    fn name(self) -> &'static str {
        match self {
            Self::Keccak => "keccak",
            Self::Blake3 => "blake3",
            Self::Sha256 => "sha256",
            Self::Blake3Chunks => "blake3-chunks",
        }
    }
}

#[derive(Parser, Debug)]
#[command(about = "Plonky3 binary WHIR with Plonky3's NTT and with the engine's, timed")]
struct Args {
    /// Variables of the multilinear polynomial (2^N coefficients).
    #[arg(long, default_value_t = 20)]
    num_variables: usize,
    /// Timed repetitions of each prover (interleaved).
    #[arg(long, default_value_t = 5)]
    repeats: usize,
    /// Workers of both pools: Plonky3's rayon pool and the engine's (0: one per core).
    #[arg(long, default_value_t = 0)]
    workers: usize,
    /// WHIR folding factor.
    #[arg(long, default_value_t = 4)]
    folding: usize,
    /// Proof-of-work bits of the WHIR configuration (Plonky3's own benchmark uses 20).
    #[arg(long, default_value_t = 20)]
    pow_bits: usize,
    /// The matrix commitment scheme of both provers.
    #[arg(long, value_enum, default_value_t = MmcsChoice::Keccak)]
    mmcs: MmcsChoice,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
    /// Also list every NTT call of one commit and open (method, width, height, rate or padding
    /// bits) with both NTTs' median times (on standard error with `--json`).
    #[arg(long)]
    calls: bool,
}

/// One NTT call: the trait method, the matrix's width and height, the rate or padding bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Call {
    method: &'static str,
    width: usize,
    height: usize,
    bits: usize,
}

/// The time a prover spent inside its NTT, and each call with its time.
#[derive(Debug, Default)]
struct Meter {
    nanos: AtomicU64,
    calls: Mutex<Vec<(Call, Duration)>>,
}

impl Meter {
    fn record(&self, call: Call, elapsed: Duration) {
        self.nanos.fetch_add(elapsed.as_nanos() as u64, Ordering::Relaxed);
        self.calls
            .lock()
            .expect("the call log is never poisoned")
            .push((call, elapsed));
    }

    /// Empties the meter, returning the total and the calls since the last take.
    fn take(&self) -> (Duration, Vec<(Call, Duration)>) {
        let total = Duration::from_nanos(self.nanos.swap(0, Ordering::Relaxed));
        let calls = std::mem::take(&mut *self.calls.lock().expect("never poisoned"));
        (total, calls)
    }
}

/// An NTT that records each of its calls on a [`Meter`].
#[derive(Debug)]
struct Timed<N> {
    inner: N,
    meter: Arc<Meter>,
}

impl<N> Timed<N> {
    fn time<T>(&self, call: Call, f: impl FnOnce(&N) -> T) -> T {
        let start = Instant::now();
        let out = f(&self.inner);
        self.meter.record(call, start.elapsed());
        out
    }
}

type M = RowMajorMatrix<Poly64>;

fn call(method: &'static str, mat: &impl Matrix<Poly64>, bits: usize) -> Call {
    Call {
        method,
        width: mat.width(),
        height: mat.height(),
        bits,
    }
}

impl<N: AdditiveNtt<Poly64>> AdditiveNtt<Poly64> for Timed<N> {
    fn shifted_ntt_batch(&self, mat: M, shift: Poly64) -> M {
        self.time(call("shifted_ntt", &mat, 0), |n| n.shifted_ntt_batch(mat, shift))
    }
    fn shifted_intt_batch(&self, mat: M, shift: Poly64) -> M {
        self.time(call("shifted_intt", &mat, 0), |n| {
            n.shifted_intt_batch(mat, shift)
        })
    }
    fn ntt_batch(&self, mat: M) -> M {
        self.time(call("ntt", &mat, 0), |n| n.ntt_batch(mat))
    }
    fn ntt_batch_padded(&self, mat: M, log_inv_rate: usize) -> M {
        self.time(call("ntt_padded", &mat, log_inv_rate), |n| {
            n.ntt_batch_padded(mat, log_inv_rate)
        })
    }
    fn ntt_batch_borrowed(&self, mat: RowMajorMatrixView<'_, Poly64>, log_inv_rate: usize) -> M {
        self.time(call("ntt_borrowed", &mat, log_inv_rate), |n| {
            n.ntt_batch_borrowed(mat, log_inv_rate)
        })
    }
    fn intt_batch(&self, mat: M) -> M {
        self.time(call("intt", &mat, 0), |n| n.intt_batch(mat))
    }
    fn lde_batch(&self, mat: M, added_bits: usize) -> M {
        self.time(call("lde", &mat, added_bits), |n| n.lde_batch(mat, added_bits))
    }
    fn shifted_lde_batch(&self, mat: M, added_bits: usize, shift: Poly64) -> M {
        self.time(call("shifted_lde", &mat, added_bits), |n| {
            n.shifted_lde_batch(mat, added_bits, shift)
        })
    }
}

const fn challenger() -> Challenger {
    Challenger::from_hasher(Vec::new(), Keccak256Hash)
}

/// Plonky3's benchmark instance: one random column, prefix layout, Keccak Merkle tree,
/// 100-bit security, Johnson bound, rate 1/2.
struct Instance {
    args_folding: usize,
    num_variables: usize,
    pow_bits: usize,
}

impl Instance {
    fn witness(&self) -> Witness<Poly64> {
        let mut rng = SmallRng::seed_from_u64(0x00B1_A47E);
        PrefixProver::<Poly64, Poly192>::new_witness(
            vec![Table::rand(&mut rng, 1, self.num_variables)],
            self.args_folding,
        )
    }

    fn protocol(&self) -> OpeningProtocol {
        OpeningProtocol::new(vec![TableSpec::new(
            TableShape::new(self.num_variables, 1),
            vec![OpeningBatch::new(vec![0], vec![])],
        )])
    }

    fn config<D: p3_whir::WhirDomain<Poly64, Poly192>>(
        &self,
        domain: &D,
    ) -> WhirConfig<Poly192, Poly64, Challenger> {
        WhirConfig::new_with_domain(
            self.num_variables,
            ProtocolParameters {
                security_level: 100,
                pow_bits: self.pow_bits,
                round_log_inv_rates: vec![],
                folding_factor: FoldingFactor::Constant(self.args_folding),
                soundness_type: SecurityAssumption::JohnsonBound,
                starting_log_inv_rate: 1,
            },
            domain,
        )
        .expect("a valid WHIR configuration")
    }

    fn pcs<N: AdditiveNtt<Poly64> + Sync, MT: Mmcs<Poly64>>(
        &self,
        ntt: N,
        mmcs: MT,
        meter: &Arc<Meter>,
    ) -> Pcs<N, MT> {
        let domain = BinaryWhirDomain::new(Timed {
            inner: ntt,
            meter: meter.clone(),
        });
        WhirProver::new(self.config(&domain), domain, mmcs)
    }

    /// The cap height Plonky3 recommends for this instance.
    fn cap_height(&self) -> usize {
        let domain: BinaryWhirDomain = BinaryWhirDomain::default();
        recommended_cap_height(&self.config(&domain))
    }
}

/// Where one commit's time went: nanoseconds (hashing in thread time), and minor page faults.
#[derive(Clone, Copy, Debug, Default)]
struct Breakdown {
    ntt: u64,
    leaf_hash: u64,
    fingerprint: u64,
    tree_nodes: u64,
    other: u64,
    page_faults: u64,
}

/// Reads a prover's hashing counters: (rows hashed in the encoder, rows hashed by the Mmcs,
/// fingerprints, tree nodes), cumulative nanoseconds.
type HashCounters = Box<dyn Fn() -> [u64; 4] + Send + Sync>;

/// Minor page faults of the process so far.
fn minor_faults() -> u64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `getrusage` writes the `rusage` it is given, here a zeroed one we own.
    let ok = unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) } == 0;
    // SAFETY: zeroed is a valid `rusage` (plain integers), and `getrusage` only fills it in.
    let usage = unsafe { usage.assume_init() };
    if ok { usage.ru_minflt as u64 } else { 0 }
}

/// One prover's measurements.
#[derive(Default)]
struct Samples {
    commit: Vec<Duration>,
    open: Vec<Duration>,
    encode: Vec<Duration>,
    breakdown: Vec<Breakdown>,
    calls: Vec<Vec<(Call, Duration)>>,
    proofs: Vec<Vec<u8>>,
}

fn median_ms(samples: &[Duration]) -> f64 {
    ntt_runtime::stats::Spread::of_ms(samples).median
}

/// The median of one field of the breakdowns, in milliseconds (or a plain count).
fn median_of(samples: &[Breakdown], field: impl Fn(&Breakdown) -> u64) -> f64 {
    median_ms(
        &samples
            .iter()
            .map(|b| Duration::from_nanos(field(b)))
            .collect::<Vec<_>>(),
    )
}

/// Commits and opens once, timed; returns the serialised commitment and proof.
fn run_once<N, MT>(
    instance: &Instance,
    pcs: &Pcs<N, MT>,
    meter: &Meter,
    counters: &(dyn Fn() -> [u64; 4] + Sync),
    out: &mut Samples,
) -> Vec<u8>
where
    N: AdditiveNtt<Poly64> + Sync,
    MT: Mmcs<Poly64>,
    Challenger: CanObserve<MT::Commitment>,
{
    let witness = instance.witness();
    meter.take();
    let mut transcript = challenger();
    let [encoder0, leaves0, fingerprint0, nodes0] = counters();
    let faults0 = minor_faults();
    let start = Instant::now();
    let (commitment, data) = pcs.commit(witness, &mut transcript).expect("commit");
    let committed = Instant::now();
    let faults = minor_faults() - faults0;
    let [encoder1, leaves1, fingerprint1, nodes1] = counters();
    let (commit_encode, _) = meter.take();
    let proof = pcs
        .open(data, instance.protocol(), &mut transcript)
        .expect("open");
    let opened = Instant::now();
    let commit = (committed - start).as_nanos() as u64;
    let encoder_hash = encoder1 - encoder0;
    let fingerprint = fingerprint1 - fingerprint0;
    let ntt = (commit_encode.as_nanos() as u64).saturating_sub(encoder_hash);
    // The Mmcs's leaf time includes the fingerprint checks; they are shown apart.
    let leaf_hash = encoder_hash + (leaves1 - leaves0).saturating_sub(fingerprint);
    let tree_nodes = nodes1 - nodes0;
    out.breakdown.push(Breakdown {
        ntt,
        leaf_hash,
        fingerprint,
        tree_nodes,
        other: commit.saturating_sub(ntt + leaf_hash + fingerprint + tree_nodes),
        page_faults: faults,
    });
    out.commit.push(committed - start);
    out.open.push(opened - committed);
    let (open_encode, calls) = meter.take();
    out.encode.push(commit_encode + open_encode);
    out.calls.push(calls);
    postcard::to_allocvec(&(&commitment, &proof)).expect("serialise")
}

/// Both provers' measurements, and whether every proof verified and all were the same bytes.
struct Comparison {
    plonky: Samples,
    engine: Samples,
    verified: bool,
    identical: bool,
    /// The engine's Merkle commits that took the encoder's row digests, and those that found
    /// their codeword changed (none for the chunk tree).
    handover: Option<(u64, u64)>,
}

/// One side of a comparison: its NTT, its Mmcs, and its hashing counters.
struct Side<N, MT> {
    ntt: N,
    mmcs: MT,
    counters: HashCounters,
}

/// Commits and opens with both provers, interleaved, in the `rayon` pool; Plonky3's prover
/// verifies every proof (the engine's after a round trip through its bytes).
fn compare<MP, ME>(
    args: &Args,
    instance: &Instance,
    rayon: &rayon::ThreadPool,
    plonky_side: Side<LchNtt<Poly64>, MP>,
    engine_side: Side<EngineNtt, ME>,
) -> Comparison
where
    MP: Mmcs<Poly64> + Sync,
    ME: Mmcs<Poly64> + Sync,
    Challenger: CanObserve<MP::Commitment> + CanObserve<ME::Commitment>,
    PcsProof<Poly64, Poly192, MP>: DeserializeOwned,
{
    let (plonky_meter, engine_meter, verify_meter) = (
        Arc::new(Meter::default()),
        Arc::new(Meter::default()),
        Arc::new(Meter::default()),
    );
    let plonky = instance.pcs(plonky_side.ntt, plonky_side.mmcs.clone(), &plonky_meter);
    let engine = instance.pcs(engine_side.ntt, engine_side.mmcs, &engine_meter);
    let verifier = instance.pcs(LchNtt::<Poly64>::default(), plonky_side.mmcs, &verify_meter);
    let verify = |bytes: &[u8]| {
        type Sent<MP> = (<MP as Mmcs<Poly64>>::Commitment, PcsProof<Poly64, Poly192, MP>);
        let decoded: Result<Sent<MP>, _> = postcard::from_bytes(bytes);
        decoded.is_ok_and(|(commitment, proof)| {
            verifier
                .verify(&commitment, &proof, &mut challenger(), instance.protocol())
                .is_ok()
        })
    };

    let (mut p, mut e) = (Samples::default(), Samples::default());
    let mut verified = true;
    rayon.install(|| {
        let mut run_plonky = |out: &mut Samples| {
            let bytes = run_once(instance, &plonky, &plonky_meter, &*plonky_side.counters, out);
            verified &= verify(&bytes);
            out.proofs.push(bytes);
        };
        // One untimed round each warms caches, tables and thread pools.
        let mut warm = Samples::default();
        run_plonky(&mut warm);
        let run_engine = |out: &mut Samples| {
            let bytes = run_once(instance, &engine, &engine_meter, &*engine_side.counters, out);
            out.proofs.push(bytes);
        };
        run_engine(&mut warm);
        for rep in 0..args.repeats {
            // Alternate which goes first, so drift in the machine's load hits both alike.
            if rep % 2 == 0 {
                run_plonky(&mut p);
                run_engine(&mut e);
            } else {
                run_engine(&mut e);
                run_plonky(&mut p);
            }
        }
        verified &= warm.proofs.iter().chain(&e.proofs).all(|bytes| verify(bytes));
    });
    let identical = p
        .proofs
        .iter()
        .chain(&e.proofs)
        .all(|proof| *proof == p.proofs[0]);
    Comparison {
        plonky: p,
        engine: e,
        verified,
        identical,
        handover: None,
    }
}

/// Plonky3's tree of `H` against the engine's, sharing `ntt`'s pool.
fn compare_merkle<H: RowHash>(
    args: &Args,
    instance: &Instance,
    rayon: &rayon::ThreadPool,
    ntt: EngineNtt,
) -> Comparison
where
    Challenger: CanObserve<<MerkleMmcs<H> as Mmcs<Poly64>>::Commitment>,
{
    let cap = instance.cap_height();
    let mmcs = MerkleMmcs::<H>::sharing_pool_of(&ntt, cap);
    let stats = mmcs.clone();
    let handover = mmcs.clone();
    let plonky = Side {
        ntt: LchNtt::<Poly64>::default(),
        mmcs: plonky_mmcs::<H>(cap),
        counters: Box::new(|| {
            [
                0,
                PLONKY_LEAF_NS.load(Ordering::Relaxed),
                0,
                PLONKY_NODE_NS.load(Ordering::Relaxed),
            ]
        }),
    };
    let engine = Side {
        ntt,
        mmcs,
        counters: Box::new(move || {
            let s = stats.stats();
            [
                s.encoder_hash_ns,
                s.leaf_hash_ns,
                s.fingerprint_ns,
                s.node_hash_ns,
            ]
        }),
    };
    let comparison = compare(args, instance, rayon, plonky, engine);
    let s = handover.stats();
    Comparison {
        handover: Some((s.fused, s.stale)),
        ..comparison
    }
}

fn main() {
    let args = Args::parse();
    let workers = if args.workers == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        args.workers
    };
    // Plonky3 runs on rayon (its `parallel` feature); the engine on its own pinned pool of the
    // same size. Only one of them works at a time.
    let rayon = rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()
        .expect("rayon pool");
    let instance = Instance {
        args_folding: args.folding,
        num_variables: args.num_variables,
        pow_bits: args.pow_bits,
    };
    let ntt = EngineNtt::with_workers(workers);
    let Comparison {
        plonky: p,
        engine: e,
        verified,
        identical,
        handover,
    } = match args.mmcs {
        MmcsChoice::Keccak => compare_merkle::<Keccak256Hash>(&args, &instance, &rayon, ntt),
        MmcsChoice::Blake3 => compare_merkle::<p3_blake3::Blake3>(&args, &instance, &rayon, ntt),
        MmcsChoice::Sha256 => compare_merkle::<p3_sha256::Sha256>(&args, &instance, &rayon, ntt),
        MmcsChoice::Blake3Chunks => {
            // The Mmcs hashes on the engine's pool: NTT and hashing take turns on its workers.
            let mmcs = Blake3Mmcs::sharing_pool_of(&ntt);
            let none = || -> HashCounters { Box::new(|| [0; 4]) };
            let plonky = Side {
                ntt: LchNtt::<Poly64>::default(),
                mmcs: mmcs.clone(),
                counters: none(),
            };
            let engine = Side {
                ntt,
                mmcs,
                counters: none(),
            };
            compare(&args, &instance, &rayon, plonky, engine)
        }
    };

    let (pc, ec) = (median_ms(&p.commit), median_ms(&e.commit));
    let (po, eo) = (median_ms(&p.open), median_ms(&e.open));
    let (pe, ee) = (median_ms(&p.encode), median_ms(&e.encode));
    if args.json {
        let breakdown = |samples: &Samples| {
            let b = &samples.breakdown;
            serde_json::json!({
                "ntt": median_of(b, |b| b.ntt),
                "leaf_hash": median_of(b, |b| b.leaf_hash),
                "fingerprint": median_of(b, |b| b.fingerprint),
                "tree_nodes": median_of(b, |b| b.tree_nodes),
                "other": median_of(b, |b| b.other),
                "page_faults": median_of(b, |b| b.page_faults) * 1e6,
            })
        };
        let report = serde_json::json!({
            "num_variables": args.num_variables,
            "workers": workers,
            "mmcs": args.mmcs.name(),
            "verified_by_plonky3": verified,
            "proofs_identical": identical,
            "proof_bytes": p.proofs[0].len(),
            "commit_ms": { "plonky3": pc, "engine": ec },
            "open_ms": { "plonky3": po, "engine": eo },
            "encode_ms": { "plonky3": pe, "engine": ee },
            "commit_speedup": pc / ec,
            "open_speedup": po / eo,
            "encode_speedup": pe / ee,
            "commit_breakdown_ms": { "plonky3": breakdown(&p), "engine": breakdown(&e) },
            // Every encode of a prove is followed by the commit of its codeword: the untimed
            // warm-up and each timed run made this many commits on the engine's side.
            "engine_commits": e.calls.first().map_or(0, |c| c.len() + 1) * (e.commit.len() + 1),
            "engine_commits_fused": handover.map(|(fused, _)| fused),
            "engine_commits_stale": handover.map(|(_, stale)| stale),
        });
        println!("{report}");
    } else {
        println!(
            "WHIR, 2^{} coefficients, folding {}, {} worker(s), {} Mmcs, {} repeats (medians)",
            args.num_variables,
            args.folding,
            workers,
            args.mmcs.name(),
            args.repeats
        );
        println!(
            "{:<10} {:>12} {:>12} {:>9}",
            "", "plonky3 ms", "engine ms", "speedup"
        );
        for (name, a, b) in [("commit", pc, ec), ("open", po, eo), ("encode", pe, ee)] {
            println!("{name:<10} {a:>12.2} {b:>12.2} {:>8.2}×", a / b);
        }
        println!(
            "verified by Plonky3: {verified}; proofs identical: {identical}; proof: {} bytes",
            p.proofs[0].len()
        );
    }
    if args.calls {
        // After the table; with `--json` on standard error, so standard output stays one object.
        let mut out: Box<dyn std::io::Write> = if args.json {
            Box::new(std::io::stderr())
        } else {
            Box::new(std::io::stdout())
        };
        print_calls(&mut out, &p.calls, &e.calls).expect("write the call table");
    }
    if !verified || !identical {
        std::process::exit(1);
    }
}

/// Each NTT call of one commit and open, with both provers' median times. Both provers make
/// the same calls in the same order (their transcripts are the same bytes).
fn print_calls(
    out: &mut dyn std::io::Write,
    plonky: &[Vec<(Call, Duration)>],
    engine: &[Vec<(Call, Duration)>],
) -> std::io::Result<()> {
    let Some(first) = plonky.first() else {
        return Ok(());
    };
    let median_of = |runs: &[Vec<(Call, Duration)>], i: usize| {
        median_ms(&runs.iter().map(|calls| calls[i].1).collect::<Vec<_>>())
    };
    writeln!(
        out,
        "{:<13} {:>6} {:>8} {:>5} {:>12} {:>12} {:>9}",
        "call", "width", "height", "bits", "plonky3 ms", "engine ms", "speedup"
    )?;
    for (i, (call, _)) in first.iter().enumerate() {
        let (a, b) = (median_of(plonky, i), median_of(engine, i));
        writeln!(
            out,
            "{:<13} {:>6} {:>8} {:>5} {a:>12.3} {b:>12.3} {:>8.2}×",
            call.method,
            call.width,
            call.height,
            call.bits,
            a / b
        )?;
    }
    Ok(())
}
