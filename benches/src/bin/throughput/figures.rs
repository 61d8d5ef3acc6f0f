//! The throughput run's plots: the baselines side by side and the engine against the physical
//! bound by size, each one [`Figure`] written as SVG and PNG; and scaling by workers, a table
//! (`scaling.md`: two or three worker counts make a chart of a few points per line).

use crate::saved::{Saved, SavedMeasurement, SavedRow, public_name};
use ntt_plot::style::{GREY, PALETTE, legend};
use ntt_plot::{FONT, Figure, PlotError, ticks};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

const PANEL: (u32, u32) = (720, 520);
const HEADER: u32 = 90;

/// Writes every plot the document has data for into `dir`; returns the files written.
///
/// # Errors
/// A drawing, encoding or file error.
pub(crate) fn write_all(saved: &Saved, note: &str, dir: &Path) -> Result<Vec<PathBuf>, PlotError> {
    let mut written = Vec::new();
    let rate = preferred_rate(saved);
    if !saved.comparisons.is_empty() {
        written.extend(ntt_plot::write_both(
            &Baselines { saved, note },
            dir,
            "baselines",
        )?);
    }
    if !saved.throughput.is_empty() {
        written.extend(ntt_plot::write_both(
            &AgainstBound { saved, note, rate },
            dir,
            "bound",
        )?);
    }
    if worker_counts(saved).len() > 1 {
        let path = dir.join("scaling.md");
        std::fs::write(&path, scaling_table(saved, rate) + "\n").map_err(|source| PlotError::Write {
            path: path.clone(),
            source,
        })?;
        written.push(path);
    }
    Ok(written)
}

/// Rate 1/2 when the run has it (the comparison's rate), else the first one measured.
fn preferred_rate(saved: &Saved) -> u32 {
    let rates: Vec<u32> = saved.throughput.iter().map(|r| r.commit.log_inv_rate).collect();
    if rates.contains(&1) {
        1
    } else {
        rates.first().copied().unwrap_or(1)
    }
}

fn worker_counts(saved: &Saved) -> Vec<usize> {
    let mut w: Vec<usize> = saved.throughput.iter().map(|r| r.commit.workers).collect();
    w.sort_unstable();
    w.dedup();
    w
}

/// The reused-buffer rows at `rate` (fresh rows add page faults that are not the engine's).
fn reused_rows(saved: &Saved, rate: u32) -> impl Iterator<Item = &SavedRow> {
    saved
        .throughput
        .iter()
        .filter(move |r| r.commit.buffers == "reused" && r.commit.log_inv_rate == rate)
}

/// Title, then the machine and the note in grey; returns the area below.
fn header<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    saved: &Saved,
    note: &str,
) -> Result<DrawingArea<DB, Shift>, PlotError> {
    root.fill(&WHITE)?;
    let (top, body) = root.split_vertically(HEADER);
    top.draw(&Text::new(title.to_owned(), (14, 10), (FONT, 22).into_font()))?;
    let grey = (FONT, 15).into_font().color(&GREY);
    top.draw(&Text::new(saved.machine_line(), (14, 42), grey.clone()))?;
    top.draw(&Text::new(note.to_owned(), (14, 62), grey))?;
    Ok(body)
}

fn span(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    })
}

fn rate_name(log_inv_rate: u32) -> String {
    format!("rate 1/{}", 1u64 << log_inv_rate)
}

fn workers_name(w: usize) -> String {
    if w == 1 {
        "1 worker".to_owned()
    } else {
        format!("{w} workers")
    }
}

/// Every engine of each comparison as a bar of witness GiB/s, min–max whiskers; one panel per
/// operation (encode, commit), one group of bars per size and worker count.
pub(crate) struct Baselines<'a> {
    pub saved: &'a Saved,
    pub note: &'a str,
}

impl Baselines<'_> {
    fn ops(&self) -> Vec<&str> {
        let mut ops: Vec<&str> = Vec::new();
        for c in &self.saved.comparisons {
            if !ops.contains(&c.op.as_str()) {
                ops.push(&c.op);
            }
        }
        ops
    }
}

impl Figure for Baselines<'_> {
    fn size(&self) -> (u32, u32) {
        (PANEL.0 * self.ops().len().max(1) as u32, PANEL.1 + HEADER)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static,
    {
        let first = self.saved.comparisons.first().and_then(|c| c.results.first());
        let shape = first.map_or(String::new(), |m| {
            format!(", {} lanes, {}", m.lanes, rate_name(m.log_inv_rate))
        });
        let body = header(
            root,
            &format!("ntt-engine against its baselines{shape}: median bars, min–max whiskers"),
            self.saved,
            self.note,
        )?;
        let ops = self.ops();
        for (panel, op) in body.split_evenly((1, ops.len())).iter().zip(&ops) {
            let comparisons: Vec<_> = self.saved.comparisons.iter().filter(|c| c.op == *op).collect();
            let groups: Vec<(f64, usize)> = comparisons
                .iter()
                .filter_map(|c| c.results.first().map(|m| (m.log_words(), c.workers)))
                .collect();
            let mut engines: Vec<&str> = Vec::new();
            for m in comparisons.iter().flat_map(|c| &c.results) {
                if !engines.contains(&m.engine.as_str()) {
                    engines.push(&m.engine);
                }
            }
            let (_, top) = span(
                comparisons
                    .iter()
                    .flat_map(|c| &c.results)
                    .map(|m| m.gib_s_at(m.min_ms)),
            );
            let label_of = |x: &f64| {
                let i = x.round();
                match groups.get(i as usize) {
                    Some(&(log_words, w)) if (x - i).abs() < 1e-6 && i >= 0.0 => {
                        format!("{}, {w}w", ticks::pow2(&log_words))
                    }
                    _ => String::new(),
                }
            };
            let mut chart = ChartBuilder::on(panel)
                .caption(format!("{op}: witness GiB/s (higher is faster)"), (FONT, 19))
                .margin(14)
                .x_label_area_size(52)
                .y_label_area_size(64)
                .build_cartesian_2d(-0.5..(groups.len() as f64 - 0.5), 0.0..(top * 1.35).max(1e-3))?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(groups.len() + 1)
                .x_label_formatter(&label_of)
                .x_desc("witness words, workers (w)")
                .y_desc("GiB/s of witness")
                .label_style((FONT, 15))
                .axis_desc_style((FONT, 16))
                .draw()?;
            let width = 0.8 / engines.len().max(1) as f64;
            for (e, engine) in engines.iter().enumerate() {
                let color = PALETTE[e % PALETTE.len()];
                let bars: Vec<(f64, &SavedMeasurement)> = comparisons
                    .iter()
                    .enumerate()
                    .filter_map(|(g, c)| {
                        c.results
                            .iter()
                            .find(|m| m.engine == *engine)
                            .map(|m| (g as f64, m))
                    })
                    .map(|(g, m)| (g - 0.4 + width * (e as f64 + 0.5), m))
                    .collect();
                chart
                    .draw_series(bars.iter().map(|&(x, m)| {
                        Rectangle::new(
                            [(x - width * 0.45, 0.0), (x + width * 0.45, m.gib_s)],
                            color.filled(),
                        )
                    }))?
                    .label(public_name(engine).to_owned())
                    .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], color.filled()));
                chart.draw_series(bars.iter().map(|&(x, m)| {
                    ErrorBar::new_vertical(
                        x,
                        m.gib_s_at(m.max_ms),
                        m.gib_s,
                        m.gib_s_at(m.min_ms),
                        BLACK.stroke_width(1),
                        8,
                    )
                }))?;
            }
            legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        }
        Ok(())
    }
}

/// Commit and encode throughput against their two floors by witness size: compute (the
/// butterflies at the L1 kernel rate, and for the commit BLAKE3 in cache) and traffic (the bytes
/// the plan's sweeps move at the measured bandwidths); one panel per worker count.
pub(crate) struct AgainstBound<'a> {
    pub saved: &'a Saved,
    pub note: &'a str,
    pub rate: u32,
}

/// Points `(log2 words, GiB/s)` of one series: `ms` of each row (skipping rows without it), as
/// the throughput of the witness that `m` measured.
fn floor_points(
    rows: &[&SavedRow],
    m: fn(&SavedRow) -> &SavedMeasurement,
    ms: fn(&SavedRow) -> Option<f64>,
) -> Vec<(f64, f64)> {
    rows.iter()
        .filter_map(|r| ms(r).map(|b| (m(r).log_words(), m(r).gib_s_at(b))))
        .collect()
}

impl Figure for AgainstBound<'_> {
    fn size(&self) -> (u32, u32) {
        (
            PANEL.0 * worker_counts(self.saved).len().max(1) as u32,
            PANEL.1 + HEADER,
        )
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static,
    {
        let body = header(
            root,
            &format!(
                "ntt-engine against its floors, {}, reused buffers (dashed: compute, dotted: traffic)",
                rate_name(self.rate)
            ),
            self.saved,
            self.note,
        )?;
        let workers = worker_counts(self.saved);
        for (panel, &w) in body.split_evenly((1, workers.len())).iter().zip(&workers) {
            let rows: Vec<&SavedRow> = reused_rows(self.saved, self.rate)
                .filter(|r| r.commit.workers == w)
                .collect();
            let measured = |m: fn(&SavedRow) -> &SavedMeasurement| -> Vec<(f64, f64)> {
                rows.iter().map(|r| (m(r).log_words(), m(r).gib_s)).collect()
            };
            let series = [
                (
                    "commit",
                    measured(|r| &r.commit),
                    floor_points(&rows, |r| &r.commit, |r| r.commit_compute_ms),
                    PALETTE[0],
                ),
                (
                    "encode",
                    measured(|r| &r.encode),
                    floor_points(&rows, |r| &r.encode, |r| r.encode_compute_ms),
                    PALETTE[1],
                ),
            ];
            let traffic = floor_points(&rows, |r| &r.encode, |r| r.traffic_ms);
            let all = || {
                series
                    .iter()
                    .flat_map(|(_, m, c, _)| m.iter().chain(c))
                    .chain(&traffic)
            };
            let (x0, x1) = span(all().map(|p| p.0));
            let (_, y1) = span(all().map(|p| p.1));
            if !x0.is_finite() {
                continue;
            }
            let mut chart = ChartBuilder::on(panel)
                .caption(workers_name(w), (FONT, 19))
                .margin(14)
                .x_label_area_size(52)
                .y_label_area_size(64)
                .build_cartesian_2d((x0 - 0.5)..(x1 + 0.5), 0.0..(y1 * 1.45).max(1e-3))?;
            chart
                .configure_mesh()
                .x_labels(((x1 - x0) as usize + 2).min(14))
                .x_label_formatter(&ticks::pow2)
                .x_desc("witness words (64-bit)")
                .y_desc("GiB/s of witness")
                .label_style((FONT, 15))
                .axis_desc_style((FONT, 16))
                .draw()?;
            for (name, measured, compute, color) in series {
                chart
                    .draw_series(LineSeries::new(measured.clone(), color.stroke_width(2)))?
                    .label(format!("{name}, measured"))
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2)));
                chart.draw_series(measured.iter().map(|&p| Circle::new(p, 4, color.filled())))?;
                if !compute.is_empty() {
                    chart
                        .draw_series(DashedLineSeries::new(compute, 8, 5, color.stroke_width(2)))?
                        .label(format!("{name}, compute floor"))
                        .legend(move |(x, y)| {
                            PathElement::new(vec![(x, y), (x + 6, y)], color.stroke_width(2))
                        });
                }
            }
            if !traffic.is_empty() {
                let gray = GREY;
                chart
                    .draw_series(DashedLineSeries::new(traffic, 2, 4, gray.stroke_width(2)))?
                    .label("traffic floor (the plan's sweeps)")
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 3, y)], gray.stroke_width(2)));
            }
            legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        }
        Ok(())
    }
}

/// The commit's reused-buffer medians per witness size and worker count, and the speed-up
/// over the fewest workers, as one line of HTML (a table that fits on one Markdown line).
pub(crate) fn scaling_table(saved: &Saved, rate: u32) -> String {
    let workers = worker_counts(saved);
    let mut sizes: Vec<f64> = reused_rows(saved, rate).map(|r| r.commit.log_words()).collect();
    sizes.sort_by(f64::total_cmp);
    sizes.dedup();
    let at = |w: usize, size: f64| {
        reused_rows(saved, rate)
            .find(|r| r.commit.workers == w && r.commit.log_words() == size)
            .map(|r| r.commit.median_ms)
    };
    let cell = |v: Option<String>| format!("<td>{}</td>", v.unwrap_or_else(|| "–".to_owned()));
    let mut html = format!("<table><tr><th>commit, reused buffers, {}</th>", rate_name(rate));
    for (i, &size) in sizes.iter().enumerate() {
        let words = if i == 0 { " words" } else { "" };
        html += &format!("<th>{}{words}</th>", ticks::pow2(&size));
    }
    html += "</tr>";
    for &w in &workers {
        html += &format!("<tr><td>{}, ms</td>", workers_name(w));
        for &size in &sizes {
            html += &cell(at(w, size).map(|ms| format!("{ms:.3}")));
        }
        html += "</tr>";
    }
    let (base, top) = (workers[0], workers[workers.len() - 1]);
    html += &format!("<tr><td>speed-up, {base} → {}</td>", workers_name(top));
    for &size in &sizes {
        let speedup = at(base, size).zip(at(top, size)).map(|(one, many)| one / many);
        html += &cell(speedup.map(|x| format!("{x:.2}×")));
    }
    html + "</tr></table>"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measurement(engine: &str, log_rows: u32, workers: usize, buffers: &str, ms: f64) -> serde_json::Value {
        serde_json::json!({
            "op": "commit", "engine": engine, "log_n": log_rows + 6, "log_message_rows": log_rows,
            "lanes": 64, "log_inv_rate": 1, "workers": workers, "buffers": buffers,
            "median_ms": ms, "min_ms": ms * 0.9, "max_ms": ms * 1.2, "runs": 5,
            "gib_s": (8u64 << (log_rows + 6)) as f64 / (1u64 << 30) as f64 / (ms / 1e3),
        })
    }

    /// A document as `--save` writes it: two sizes, two worker counts, both comparisons.
    fn saved() -> Saved {
        let mut throughput = Vec::new();
        let mut comparisons = Vec::new();
        for log_rows in [10, 14] {
            for workers in [1, 2] {
                let ms = f64::from(1u32 << (log_rows - 10)) / workers as f64;
                throughput.push(serde_json::json!({
                    "commit": measurement("ntt-engine", log_rows, workers, "reused", ms),
                    "encode": measurement("ntt-engine", log_rows, workers, "reused", ms * 0.7),
                    "commit_compute_ms": ms * 0.6, "encode_compute_ms": ms * 0.4,
                    "traffic_ms": ms * 0.3,
                }));
                for op in ["encode", "commit"] {
                    comparisons.push(serde_json::json!({
                        "op": op, "workers": workers,
                        "results": [
                            measurement("ntt-engine", log_rows, workers, "fresh", ms),
                            measurement(if op == "encode" { "p3-binary-dft" } else { "rayon+blake3" }, log_rows, workers, "fresh", 2.0 * ms),
                        ],
                    }));
                }
            }
        }
        serde_json::from_value(serde_json::json!({
            "machine": {"cpu": "Test CPU", "cores": 2, "backend": "portable", "p3_clmul_kernels": true},
            "limits": null, "throughput": throughput, "comparisons": comparisons,
        }))
        .expect("the document reads back")
    }

    #[test]
    fn every_plot_is_written_as_svg_and_png_with_public_names() {
        let dir = std::env::temp_dir().join(format!("throughput-plots-{}", std::process::id()));
        let files = write_all(&saved(), "a test", &dir).expect("plots render");
        let names: Vec<String> = files
            .iter()
            .map(|f| f.file_name().expect("a file").to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                "baselines.svg",
                "baselines.png",
                "bound.svg",
                "bound.png",
                "scaling.md"
            ]
        );
        let table = std::fs::read_to_string(dir.join("scaling.md")).expect("written");
        assert!(
            table.starts_with("<table>") && table.contains("speed-up, 1 → 2 workers"),
            "{table}"
        );
        let baselines = std::fs::read_to_string(dir.join("baselines.svg")).expect("written");
        assert!(baselines.contains("Plonky3 p3-binary-dft") && baselines.contains("Test CPU"));
        assert!(
            baselines.contains("2^16, 2w"),
            "group labels name size and workers"
        );
        let bound = std::fs::read_to_string(dir.join("bound.svg")).expect("written");
        assert!(
            bound.contains("commit, compute floor")
                && bound.contains("traffic floor")
                && bound.contains("GiB/s of witness"),
            "both floors are drawn"
        );
        for f in files.iter().filter(|f| f.extension().is_some_and(|e| e != "md")) {
            assert!(
                std::fs::metadata(f).expect("written").len() > 1000,
                "{} is empty",
                f.display()
            );
        }
        std::fs::remove_dir_all(&dir).expect("cleans up");
    }

    #[test]
    fn one_worker_count_has_no_scaling_plot() {
        let mut one = saved();
        one.throughput.retain(|r| r.commit.workers == 1);
        one.comparisons.clear();
        let dir = std::env::temp_dir().join(format!("throughput-plots-one-{}", std::process::id()));
        let files = write_all(&one, "", &dir).expect("plots render");
        assert_eq!(files.len(), 2, "{files:?}");
        std::fs::remove_dir_all(&dir).expect("cleans up");
    }
}
