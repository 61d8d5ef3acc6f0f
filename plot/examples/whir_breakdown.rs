//! Each side's WHIR commit as a stacked bar, from the `--json` lines of
//! `ntt-plonky3`'s `whir` example: one pair of bars (Plonky3's prover, the engine's) per run,
//! split into the witness's padding and transposition with allocation and first touch
//! (`other`), the NTT, leaf hashing, the engine's fingerprint check and the tree nodes; the
//! median wall time of the commit and its minor page faults (a count: their time is inside the
//! segment that took them) are printed above each bar. Each bar is as tall as its wall time: on
//! more than one worker the hashing segments are thread time summed over the workers, so the
//! segments are drawn as their shares of the bar. At most [`PER_ROW`] runs share a row, so the
//! figure stays within 1,200 px wide.
//!
//! ```text
//! whir --num-variables 20 --workers 1 --pow-bits 0 --mmcs keccak --json > runs.jsonl
//! cargo run -p ntt-plot --example whir_breakdown -- --out docs/img/whir --stem commit-breakdown \
//!     --note "AMD EPYC (Zen 3), 2 vCPU, load 2.1" runs.jsonl
//! ```
//!
//! Several lines of the same run (size, workers, hash) are reduced to their median, segment by
//! segment.

use clap::Parser;
use ntt_plot::style::{GREY, PALETTE, legend};
use ntt_plot::{FONT, Figure, PlotError};
use plotters::coord::Shift;
use plotters::prelude::*;
use serde_json::Value;
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(about = "Stacked bars of the WHIR example's commit breakdown")]
struct Args {
    /// Directory the SVG and PNG go to.
    #[arg(long)]
    out: PathBuf,
    /// File name of both, without extension.
    #[arg(long, default_value = "commit-breakdown")]
    stem: String,
    /// A grey line under the title (the machine, its load).
    #[arg(long, default_value = "")]
    note: String,
    /// Files of `whir --json` lines.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
}

/// The segments of a bar, bottom up: the breakdown's key and its legend.
const SEGMENTS: [(&str, &str); 5] = [
    ("other", "padding, transpose, allocation"),
    ("ntt", "NTT"),
    ("leaf_hash", "leaf hashing"),
    ("fingerprint", "fingerprint check"),
    ("tree_nodes", "tree nodes"),
];

/// One side of one run: its segments in milliseconds and its page faults.
#[derive(Clone, Debug)]
struct Bar {
    segments: [f64; SEGMENTS.len()],
    faults: f64,
    /// The commit's median wall time: the segments' sum on one worker; on more, hashing is
    /// thread time summed over the workers, so the bar may stand above it.
    wall: f64,
}

/// One run: what it was and both sides' bars.
#[derive(Clone, Debug)]
struct Run {
    label: String,
    plonky3: Bar,
    engine: Bar,
}

fn bar(side: &Value, wall: f64) -> Option<Bar> {
    let mut segments = [0.0; SEGMENTS.len()];
    for (slot, (key, _)) in segments.iter_mut().zip(SEGMENTS) {
        *slot = side.get(key)?.as_f64()?;
    }
    Some(Bar {
        segments,
        faults: side.get("page_faults")?.as_f64()?,
        wall,
    })
}

fn run(line: &Value) -> Option<Run> {
    let breakdown = line.get("commit_breakdown_ms")?;
    let wall = |side: &str| line.get("commit_ms")?.get(side)?.as_f64();
    let label = format!(
        "2^{} {} {}w",
        line.get("num_variables")?.as_u64()?,
        line.get("mmcs")?.as_str()?,
        line.get("workers")?.as_u64()?
    );
    Some(Run {
        label,
        plonky3: bar(breakdown.get("plonky3")?, wall("plonky3")?)?,
        engine: bar(breakdown.get("engine")?, wall("engine")?)?,
    })
}

fn median(values: Vec<f64>) -> f64 {
    ntt_runtime::stats::median(values)
}

/// The segment-wise median of bars.
fn median_bar(bars: &[&Bar]) -> Bar {
    let mut segments = [0.0; SEGMENTS.len()];
    for (i, slot) in segments.iter_mut().enumerate() {
        *slot = median(bars.iter().map(|b| b.segments[i]).collect());
    }
    Bar {
        segments,
        faults: median(bars.iter().map(|b| b.faults).collect()),
        wall: median(bars.iter().map(|b| b.wall).collect()),
    }
}

/// Runs of the same label merged into their medians, in first-seen order.
fn merge(runs: Vec<Run>) -> Vec<Run> {
    let mut labels: Vec<String> = Vec::new();
    for r in &runs {
        if !labels.contains(&r.label) {
            labels.push(r.label.clone());
        }
    }
    labels
        .into_iter()
        .map(|label| {
            let same: Vec<&Run> = runs.iter().filter(|r| r.label == label).collect();
            Run {
                plonky3: median_bar(&same.iter().map(|r| &r.plonky3).collect::<Vec<_>>()),
                engine: median_bar(&same.iter().map(|r| &r.engine).collect::<Vec<_>>()),
                label,
            }
        })
        .collect()
}

struct Breakdown<'a> {
    runs: &'a [Run],
    note: &'a str,
}

/// Runs per row of bars: at 150 px a run, the figure stays within 1,200 px.
const PER_ROW: usize = 6;
/// The height of one row of bars.
const ROW_HEIGHT: u32 = 530;

impl Bar {
    /// The segments scaled to add up to the wall time: each stage's share of the bar.
    fn wall_segments(&self) -> [f64; SEGMENTS.len()] {
        let sum: f64 = self.segments.iter().sum();
        let scale = if sum > 0.0 { self.wall / sum } else { 0.0 };
        self.segments.map(|s| s * scale)
    }
}

impl Figure for Breakdown<'_> {
    fn size(&self) -> (u32, u32) {
        let per_row = self.runs.len().clamp(1, PER_ROW) as u32;
        let rows = self.runs.len().div_ceil(PER_ROW).max(1) as u32;
        (220 + 150 * per_row, 70 + ROW_HEIGHT * rows)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let (top, body) = root.split_vertically(70);
        top.draw(&Text::new(
            "WHIR commit, medians: Plonky3 (P) and the engine (E), same proof bytes; bars: wall time",
            (14, 10),
            (FONT, 20).into_font(),
        ))?;
        top.draw(&Text::new(
            self.note.to_owned(),
            (14, 40),
            (FONT, 15).into_font().color(&GREY),
        ))?;
        let rows: Vec<&[Run]> = self.runs.chunks(PER_ROW).collect();
        let slots = self.runs.len().clamp(1, PER_ROW);
        for (area, runs) in body.split_evenly((rows.len().max(1), 1)).iter().zip(rows) {
            draw_row(area, runs, slots)?;
        }
        Ok(())
    }
}

/// One row of run pairs in `slots` places (the same in every row), on its own y-axis (sizes
/// grow fourfold from row to row: one scale would flatten the small ones).
fn draw_row<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    runs: &[Run],
    slots: usize,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let highest = runs
        .iter()
        .flat_map(|r| [r.plonky3.wall, r.engine.wall])
        .fold(0.0, f64::max);
    let label_of = move |x: &f64| {
        let i = x.round();
        match runs.get(i as usize) {
            Some(r) if (x - i).abs() < 1e-6 && i >= 0.0 => r.label.clone(),
            _ => String::new(),
        }
    };
    let mut chart = ChartBuilder::on(area)
        .margin(14)
        .x_label_area_size(40)
        .y_label_area_size(64)
        .build_cartesian_2d(-0.5..(slots as f64 - 0.5), 0.0..(highest * 1.45).max(1e-3))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(runs.len() + 1)
        .x_label_formatter(&label_of)
        .y_desc("ms, wall time (segments: each stage's share)")
        .y_labels(8)
        .label_style((FONT, 14))
        .axis_desc_style((FONT, 16))
        .draw()?;
    let width = 0.34;
    let x_of = |g: usize, k: usize| g as f64 - 0.38 + k as f64 * (width + 0.08);
    for (s, (_, name)) in SEGMENTS.iter().enumerate() {
        let color = PALETTE[s % PALETTE.len()];
        let mut rects = Vec::new();
        for (g, r) in runs.iter().enumerate() {
            for (k, side) in [&r.plonky3, &r.engine].into_iter().enumerate() {
                let segments = side.wall_segments();
                let y0: f64 = segments[..s].iter().sum();
                let y1 = y0 + segments[s];
                rects.push(Rectangle::new(
                    [(x_of(g, k), y0), (x_of(g, k) + width, y1)],
                    color.filled(),
                ));
            }
        }
        chart
            .draw_series(rects)?
            .label(*name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], color.filled()));
    }
    let text = (FONT, 12).into_font().color(&GREY);
    let mut notes = Vec::new();
    for (g, r) in runs.iter().enumerate() {
        for (k, (side, who)) in [(&r.plonky3, "P"), (&r.engine, "E")].into_iter().enumerate() {
            let y = side.wall + highest * 0.1;
            notes.push(Text::new(
                format!("{who} {:.1} ms", side.wall),
                (x_of(g, k), y),
                text.clone(),
            ));
            notes.push(Text::new(
                format!("{:.0} pf", side.faults),
                (x_of(g, k), y - highest * 0.05),
                text.clone(),
            ));
        }
    }
    chart.draw_series(notes)?;
    legend(&mut chart, SeriesLabelPosition::UpperRight)?;
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let mut runs = Vec::new();
    for path in &args.inputs {
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        for line in text.lines().filter(|l| l.trim_start().starts_with('{')) {
            let value: Value = serde_json::from_str(line)?;
            runs.push(run(&value).ok_or_else(|| {
                format!(
                    "{}: a line without the whir example's commit_breakdown_ms",
                    path.display()
                )
            })?);
        }
    }
    let runs = merge(runs);
    let written = ntt_plot::write_both(
        &Breakdown {
            runs: &runs,
            note: &args.note,
        },
        &args.out,
        &args.stem,
    )?;
    for path in written {
        println!("{}", path.display());
    }
    Ok(())
}
