//! One Plonky3 binary-WHIR instance committed and opened with Plonky3's own NTT (`LchNtt`) and
//! with the engine's (`EngineNtt`), interleaved and repeated; every proof verified by Plonky3.
//!
//! ```text
//! RUSTFLAGS="-C target-cpu=native" cargo run --release -p ntt-plonky3 --example whir -- --num-variables 20
//! ```
//!
//! Both provers hash with the same Mmcs: `--mmcs keccak` (the default), Plonky3's Keccak
//! `MerkleTreeMmcs`, so the proofs are those of Plonky3's own benchmark; or `--mmcs blake3`, the
//! engine's `Blake3Mmcs`, hashing on the engine's pool (the proofs differ from Keccak's, and
//! again both provers' are the same bytes).
//!
//! Prints a table of median times, or with `--json` one object: `num_variables`, `mmcs`,
//! `verified_by_plonky3`, `proofs_identical`, `proof_bytes` (commitment and proof, serialised
//! with postcard), `commit_ms`, `open_ms`, `encode_ms` (each
//! `{plonky3, engine}`; encode is the time inside the NTT calls of commit and open), and the
//! speedups (Plonky3's median over the engine's).
//! `--calls` adds a table of every NTT call of one commit and open, with both NTTs' medians.

use clap::{Parser, ValueEnum};
use ntt_plonky3::{Blake3Mmcs, EngineNtt};
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
use p3_symmetric::{CompressionFunctionFromHasher, SerializingHasher};
use p3_whir::{FoldingFactor, ProtocolParameters, SecurityAssumption, WhirConfig, WhirProver};
use rand_p3::SeedableRng;
use rand_p3::rngs::SmallRng;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

type Hash = SerializingHasher<Keccak256Hash>;
type Compress = CompressionFunctionFromHasher<Keccak256Hash, 2, 32>;
type KeccakMmcs = MerkleTreeMmcs<Poly64, u8, Hash, Compress, 2, 32>;
type Challenger = BinaryChallenger<Poly64, HashChallenger<u8, Keccak256Hash, 32>>;
type Pcs<N, MT> = WhirProver<
    Poly192,
    Poly64,
    BinaryWhirDomain<Poly64, Timed<N>>,
    MT,
    Challenger,
    PrefixProver<Poly64, Poly192>,
>;

/// The matrix commitment scheme both provers use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum MmcsChoice {
    /// Plonky3's `MerkleTreeMmcs` with Keccak-256 (Plonky3's WHIR benchmark).
    Keccak,
    /// The engine's `Blake3Mmcs`, hashing on the engine's pool.
    Blake3,
}

impl MmcsChoice {
    fn name(self) -> &'static str {
        match self {
            Self::Keccak => "keccak",
            Self::Blake3 => "blake3",
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

    /// Plonky3's Keccak Merkle tree, with the cap height Plonky3 recommends for this instance.
    fn keccak_mmcs(&self) -> KeccakMmcs {
        let domain: BinaryWhirDomain = BinaryWhirDomain::default();
        KeccakMmcs::new(
            Hash::new(Keccak256Hash),
            Compress::new(Keccak256Hash),
            recommended_cap_height(&self.config(&domain)),
        )
    }
}

/// One prover's measurements.
#[derive(Default)]
struct Samples {
    commit: Vec<Duration>,
    open: Vec<Duration>,
    encode: Vec<Duration>,
    calls: Vec<Vec<(Call, Duration)>>,
    proofs: Vec<Vec<u8>>,
}

fn median_ms(samples: &[Duration]) -> f64 {
    let mut ms: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1e3).collect();
    ms.sort_by(f64::total_cmp);
    let n = ms.len();
    if n % 2 == 1 {
        ms[n / 2]
    } else {
        (ms[n / 2 - 1] + ms[n / 2]) / 2.0
    }
}

/// Commits and opens once, timed; returns whether Plonky3's default verifier accepts the proof.
fn run_once<N, MT>(
    instance: &Instance,
    pcs: &Pcs<N, MT>,
    meter: &Meter,
    verifier: &Pcs<LchNtt<Poly64>, MT>,
    out: &mut Samples,
) -> bool
where
    N: AdditiveNtt<Poly64> + Sync,
    MT: Mmcs<Poly64>,
    Challenger: CanObserve<MT::Commitment>,
{
    let witness = instance.witness();
    meter.take();
    let mut transcript = challenger();
    let start = Instant::now();
    let (commitment, data) = pcs.commit(witness, &mut transcript).expect("commit");
    let committed = Instant::now();
    let proof = pcs
        .open(data, instance.protocol(), &mut transcript)
        .expect("open");
    let opened = Instant::now();
    out.commit.push(committed - start);
    out.open.push(opened - committed);
    let (encode, calls) = meter.take();
    out.encode.push(encode);
    out.calls.push(calls);
    out.proofs
        .push(postcard::to_allocvec(&(&commitment, &proof)).expect("serialise"));
    verifier
        .verify(&commitment, &proof, &mut challenger(), instance.protocol())
        .is_ok()
}

/// Both provers' measurements, and whether every proof verified and all were the same bytes.
struct Comparison {
    plonky: Samples,
    engine: Samples,
    verified: bool,
    identical: bool,
}

/// Commits and opens with both NTTs and `mmcs`, interleaved, in the `rayon` pool.
fn compare<MT>(
    args: &Args,
    instance: &Instance,
    rayon: &rayon::ThreadPool,
    ntt: EngineNtt,
    mmcs: MT,
) -> Comparison
where
    MT: Mmcs<Poly64> + Sync,
    Challenger: CanObserve<MT::Commitment>,
{
    let (plonky_meter, engine_meter, verify_meter) = (
        Arc::new(Meter::default()),
        Arc::new(Meter::default()),
        Arc::new(Meter::default()),
    );
    let plonky = instance.pcs(LchNtt::<Poly64>::default(), mmcs.clone(), &plonky_meter);
    let engine = instance.pcs(ntt, mmcs.clone(), &engine_meter);
    let verifier = instance.pcs(LchNtt::<Poly64>::default(), mmcs, &verify_meter);

    let (mut p, mut e) = (Samples::default(), Samples::default());
    let mut verified = true;
    rayon.install(|| {
        // One untimed round each warms caches, tables and thread pools.
        let mut warm = Samples::default();
        verified &= run_once(instance, &plonky, &plonky_meter, &verifier, &mut warm);
        verified &= run_once(instance, &engine, &engine_meter, &verifier, &mut warm);
        for rep in 0..args.repeats {
            // Alternate which goes first, so drift in the machine's load hits both alike.
            if rep % 2 == 0 {
                verified &= run_once(instance, &plonky, &plonky_meter, &verifier, &mut p);
                verified &= run_once(instance, &engine, &engine_meter, &verifier, &mut e);
            } else {
                verified &= run_once(instance, &engine, &engine_meter, &verifier, &mut e);
                verified &= run_once(instance, &plonky, &plonky_meter, &verifier, &mut p);
            }
        }
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
    } = match args.mmcs {
        MmcsChoice::Keccak => compare(&args, &instance, &rayon, ntt, instance.keccak_mmcs()),
        MmcsChoice::Blake3 => {
            // The Mmcs hashes on the engine's pool: NTT and hashing take turns on its workers.
            let mmcs = Blake3Mmcs::sharing_pool_of(&ntt);
            compare(&args, &instance, &rayon, ntt, mmcs)
        }
    };

    let (pc, ec) = (median_ms(&p.commit), median_ms(&e.commit));
    let (po, eo) = (median_ms(&p.open), median_ms(&e.open));
    let (pe, ee) = (median_ms(&p.encode), median_ms(&e.encode));
    if args.json {
        let report = serde_json::json!({
            "num_variables": args.num_variables,
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
