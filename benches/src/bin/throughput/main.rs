//! `cargo run --release -p ntt-benches --bin throughput -- [--json] [--log-n 20..26] ...`
//!
//! Prints the machine's physical limits, the engine's commit / encode / hashing throughput and
//! the baselines side by side, all measured by this one process. GiB/s is witness bytes (the
//! committed data) per second of the median run. `--plot DIR` draws the run (or, with
//! `--from FILE`, a saved run) as SVG and PNG plots.

mod args;
mod compare;
mod figures;
mod measurement;
mod ours;
mod report;
mod saved;
mod touch;

use args::Args;
use clap::Parser;
use ntt_benches::{Limits, Ours};

fn main() {
    let args = Args::parse();
    if let (Some(from), Some(dir)) = (&args.from, &args.plot) {
        let saved = saved::Saved::read(from).unwrap_or_else(|e| fail(&e, 2));
        return plot(&saved, &args.plot_note, dir);
    }
    let (table_shapes, compare_shapes) = match args.shapes() {
        Ok(shapes) => shapes,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let workers: Vec<usize> = {
        let mut w: Vec<usize> = args
            .workers
            .0
            .iter()
            .map(|&w| if w == 0 { cores } else { w as usize })
            .collect();
        w.dedup();
        w
    };
    let machine = report::Machine::detect(cores);
    if !args.json {
        report::print_machine(&machine);
    }

    let limits = (!args.no_limits).then(|| {
        let mut hash_sizes: Vec<usize> = table_shapes.iter().map(|s| s.codeword_bytes()).collect();
        hash_sizes.sort_unstable();
        hash_sizes.dedup();
        let limits = Limits::measure(cores, args.bandwidth_mib << 20, &hash_sizes, args.repeat);
        if !args.json {
            report::print_limits(&limits);
        }
        limits
    });

    let engines: Vec<Ours> = workers.iter().map(|&w| Ours::new(w)).collect();
    let mut rows = Vec::new();
    for &shape in &table_shapes {
        if !args.json {
            report::print_throughput_header(shape, args.repeat);
        }
        for engine in &engines {
            // The last shape's pooled buffers would only crowd this one's.
            engine.committer.release_buffers();
            if let Err(e) = ours::fits(shape) {
                eprintln!("  skipped at {} workers: {e}", engine.workers);
                continue;
            }
            for row in ours::measure(engine, shape, args.repeat, limits.as_ref()) {
                if !args.json {
                    report::print_throughput_row(&row);
                    touch::print(&row.first_touch);
                }
                rows.push(row);
            }
        }
    }
    let mut comparisons = Vec::new();
    for &shape in &compare_shapes {
        for engine in &engines {
            for c in [
                compare::encode(engine, shape, args.repeat),
                compare::commit(engine, shape, args.repeat),
            ] {
                if !args.json {
                    report::print_comparison(&c);
                }
                comparisons.push(c);
            }
        }
    }

    let doc = serde_json::json!({
        "machine": machine,
        "limits": limits,
        "throughput": rows,
        "comparisons": comparisons,
    });
    let text = serde_json::to_string_pretty(&doc).expect("plain data serializes");
    if args.json {
        println!("{text}");
    }
    if let Some(path) = &args.save
        && let Err(e) = std::fs::write(path, &text)
    {
        fail(&format!("cannot write {}: {e}", path.display()), 1);
    }
    if let Some(dir) = &args.plot {
        let saved: saved::Saved = serde_json::from_str(&text).expect("the document just written reads back");
        plot(&saved, &args.plot_note, dir);
    }
}

fn plot(saved: &saved::Saved, note: &str, dir: &std::path::Path) {
    match figures::write_all(saved, note, dir) {
        Ok(files) => {
            for f in files {
                eprintln!("wrote {}", f.display());
            }
        }
        Err(e) => fail(&e.to_string(), 1),
    }
}

fn fail(message: &str, code: i32) -> ! {
    eprintln!("error: {message}");
    std::process::exit(code);
}
