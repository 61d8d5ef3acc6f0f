//! Plonky3's NTT calls at the shapes WHIR makes, timed with Plonky3's `LchNtt` and with
//! `EngineNtt`, interleaved, inside a rayon pool of the same size as the engine's.
//!
//! ```text
//! RUSTFLAGS="-C target-cpu=native" cargo run --release -p ntt-plonky3 --example calls -- \
//!     --shape 16x32768/1 --shape 48x16384/4 --workers 1,2
//! ```
//!
//! A shape `WxH/B` is a `ntt_batch_padded` call on a `W`-column matrix of `H` rows of which the
//! first `H/2^B` are the message (WHIR's commit and opening rounds); `WxH/0` is a plain
//! `ntt_batch`.

use clap::Parser;
use ntt_pcs::{Expansion, PlanConfig};
use ntt_plonky3::EngineNtt;
use p3_binary_dft::{AdditiveNtt, LchNtt};
use p3_binary_field::Poly64;
use p3_matrix::dense::RowMajorMatrix;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use std::time::{Duration, Instant};

/// One call's shape.
#[derive(Clone, Copy, Debug)]
struct Shape {
    width: usize,
    height: usize,
    bits: usize,
}

fn parse_shape(text: &str) -> Result<Shape, String> {
    let bad = || format!("`{text}` is not WIDTHxHEIGHT/BITS");
    let (dims, bits) = text.split_once('/').ok_or_else(bad)?;
    let (width, height) = dims.split_once('x').ok_or_else(bad)?;
    let shape = Shape {
        width: width.parse().map_err(|_| bad())?,
        height: height.parse().map_err(|_| bad())?,
        bits: bits.parse().map_err(|_| bad())?,
    };
    if !shape.height.is_power_of_two() || shape.height >> shape.bits == 0 || shape.width == 0 {
        return Err(format!(
            "`{text}`: the height must be a power of two of at least 2^BITS rows, the width at least 1"
        ));
    }
    Ok(shape)
}

#[derive(Parser, Debug)]
#[command(about = "WHIR's NTT calls, Plonky3's LchNtt against EngineNtt")]
struct Args {
    /// Shapes `WIDTHxHEIGHT/BITS` (repeatable); the default is WHIR's at 2^18 and 2^20 variables.
    #[arg(long = "shape", value_parser = parse_shape)]
    shapes: Vec<Shape>,
    /// Worker counts of both pools.
    #[arg(long, value_delimiter = ',', default_value = "1,2")]
    workers: Vec<usize>,
    /// Timed runs of each NTT per shape (interleaved).
    #[arg(long, default_value_t = 21)]
    repeats: usize,
    /// For a profiler: run only this NTT, `--repeats` times per shape, each call on the previous
    /// call's output (no copies in between), and print nothing but its median.
    #[arg(long, value_enum)]
    only: Option<Side>,
    /// For tuning experiments: the engine's plan settings as `ntt_pcs::PlanConfig` JSON, e.g.
    /// `{"deep":"l3"}` or `{"l2_bytes":1048576}` (unset fields are derived as usual).
    #[arg(long, value_parser = parse_config)]
    plan_config: Option<PlanConfig>,
    /// Print the engine's plan for each shape.
    #[arg(long)]
    show_plan: bool,
}

fn parse_config(text: &str) -> Result<PlanConfig, String> {
    serde_json::from_str(text).map_err(|e| format!("not a PlanConfig: {e}"))
}

/// One of the two NTTs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Side {
    Plonky3,
    Engine,
}

/// Calls `ntt` `repeats` times, each on the last output; the fastest and the median time.
fn chained<N: AdditiveNtt<Poly64>>(
    ntt: &N,
    mut mat: RowMajorMatrix<Poly64>,
    bits: usize,
    repeats: usize,
) -> (f64, f64) {
    let mut times = Vec::with_capacity(repeats);
    for _ in 0..repeats {
        let (elapsed, out) = timed(ntt, mat, bits);
        mat = out;
        times.push(elapsed);
    }
    let fastest = times.iter().min().map_or(0.0, |t| t.as_secs_f64() * 1e3);
    (fastest, median_ms(times))
}

fn median_ms(samples: Vec<Duration>) -> f64 {
    ntt_runtime::stats::Spread::of_ms(&samples).median
}

/// A copy of `input` through the call its shape names, timed (the copy is not).
fn call<N: AdditiveNtt<Poly64>>(
    ntt: &N,
    input: &RowMajorMatrix<Poly64>,
    bits: usize,
) -> (Duration, RowMajorMatrix<Poly64>) {
    timed(ntt, input.clone(), bits)
}

/// `mat` through `ntt_batch` (`bits` 0) or `ntt_batch_padded`, timed.
fn timed<N: AdditiveNtt<Poly64>>(
    ntt: &N,
    mat: RowMajorMatrix<Poly64>,
    bits: usize,
) -> (Duration, RowMajorMatrix<Poly64>) {
    let start = Instant::now();
    let out = if bits == 0 {
        ntt.ntt_batch(mat)
    } else {
        ntt.ntt_batch_padded(mat, bits)
    };
    (start.elapsed(), out)
}

fn main() {
    let args = Args::parse();
    let shapes = if args.shapes.is_empty() {
        [
            "16x32768/1",
            "48x16384/4",
            "48x8192/7",
            "16x131072/1",
            "48x65536/4",
            "48x32768/7",
            "48x16384/10",
        ]
        .iter()
        .map(|s| parse_shape(s).expect("built-in shapes parse"))
        .collect()
    } else {
        args.shapes
    };
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    println!(
        "{:>7} {:>6} {:>8} {:>5} {:>12} {:>12} {:>9}",
        "workers", "width", "height", "bits", "plonky3 ms", "engine ms", "speedup"
    );
    for &workers in &args.workers {
        let rayon = rayon::ThreadPoolBuilder::new()
            .num_threads(workers)
            .build()
            .expect("rayon pool");
        let mut engine = EngineNtt::with_workers(workers);
        if let Some(config) = &args.plan_config {
            engine = EngineNtt::from_encoder(engine.encoder().clone().with_config(config.clone()));
        }
        let plonky = LchNtt::<Poly64>::default();
        for shape in &shapes {
            let message = (shape.height >> shape.bits) * shape.width;
            let mut values: Vec<Poly64> = (0..message).map(|_| Poly64::new(rng.random())).collect();
            values.resize(shape.height * shape.width, Poly64::new(0));
            let input = RowMajorMatrix::new(values, shape.width);
            if args.show_plan {
                let shape = ntt_pcs::Shape::with_expansion(
                    shape.height.trailing_zeros(),
                    shape.width,
                    shape.bits as u32,
                    Expansion::Unbounded,
                )
                .expect("a valid shape");
                println!("{}", engine.encoder().plan_in_place(shape));
            }
            if let Some(side) = args.only {
                let (fastest, median) = rayon.install(|| match side {
                    Side::Plonky3 => chained(&plonky, input, shape.bits, args.repeats),
                    Side::Engine => chained(&engine, input, shape.bits, args.repeats),
                });
                println!(
                    "{workers:>7} {:>6} {:>8} {:>5} {side:?} fastest {fastest:.4} ms, median {median:.4} ms",
                    shape.width, shape.height, shape.bits
                );
                continue;
            }
            let (mut p, mut e) = (Vec::new(), Vec::new());
            rayon.install(|| {
                let (_, want) = call(&plonky, &input, shape.bits);
                let (_, got) = call(&engine, &input, shape.bits);
                assert!(want == got, "EngineNtt differs from LchNtt at {shape:?}");
                for _ in 0..args.repeats {
                    p.push(call(&plonky, &input, shape.bits).0);
                    e.push(call(&engine, &input, shape.bits).0);
                }
            });
            let (a, b) = (median_ms(p), median_ms(e));
            println!(
                "{workers:>7} {:>6} {:>8} {:>5} {a:>12.4} {b:>12.4} {:>8.2}×",
                shape.width,
                shape.height,
                shape.bits,
                a / b
            );
        }
    }
}
