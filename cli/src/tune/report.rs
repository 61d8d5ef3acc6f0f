//! Summaries, files and the plot of a tuning run.

use super::sweep::{Candidate, Family};
use crate::stats::Spread;
use plotters::prelude::*;
use serde::Serialize;
use std::fmt::Write as _;
use std::time::Duration;

/// The shape and worker count one group of candidates ran at.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct Setting {
    pub log_n: u32,
    pub lanes: usize,
    pub log_inv_rate: u32,
    pub threads: usize,
}

impl Setting {
    pub fn name(&self) -> String {
        format!(
            "2^{} words, {} lanes, rate 1/{}, {} thread(s)",
            self.log_n,
            self.lanes,
            1u32 << self.log_inv_rate,
            self.threads
        )
    }
}

/// One candidate's measurements at one setting.
#[derive(Clone, Debug, Serialize)]
pub struct Measured {
    pub setting: Setting,
    pub candidate: Candidate,
    /// The plan's one-line summary, so equal plans can be seen for what they are.
    pub plan: String,
    pub samples_ms: Vec<f64>,
    pub ms: Spread,
}

impl Measured {
    pub fn new(setting: Setting, candidate: Candidate, plan: String, samples: &[Duration]) -> Self {
        Self {
            setting,
            candidate,
            plan,
            samples_ms: samples.iter().map(|d| d.as_secs_f64() * 1e3).collect(),
            ms: Spread::of(samples),
        }
    }
}

/// The verdict for one setting.
#[derive(Clone, Debug, Serialize)]
pub struct Best {
    pub setting: Setting,
    pub best: String,
    pub best_ms: f64,
    pub default_ms: f64,
    /// default median / best median.
    pub speedup: f64,
    /// Whether the gap between the medians exceeds both candidates' spread (max − min).
    pub significant: bool,
}

/// The fastest candidate of each setting against that setting's default.
pub fn best_per_setting(results: &[Measured]) -> Vec<Best> {
    let mut settings: Vec<Setting> = Vec::new();
    for r in results {
        if !settings.contains(&r.setting) {
            settings.push(r.setting);
        }
    }
    settings
        .into_iter()
        .filter_map(|s| {
            let group: Vec<&Measured> = results.iter().filter(|r| r.setting == s).collect();
            let default = group
                .iter()
                .find(|r| r.candidate.family == Family::Default && r.candidate.label == "default")?;
            let best = group.iter().min_by(|a, b| a.ms.median.total_cmp(&b.ms.median))?;
            let spread = |m: &Measured| m.ms.max - m.ms.min;
            let gap = default.ms.median - best.ms.median;
            Some(Best {
                setting: s,
                best: best.candidate.label.clone(),
                best_ms: best.ms.median,
                default_ms: default.ms.median,
                speedup: default.ms.median / best.ms.median,
                significant: gap > spread(best).max(spread(default)),
            })
        })
        .collect()
}

/// One row per sample.
pub fn csv(results: &[Measured]) -> String {
    let mut out = String::from(
        "log_n,lanes,log_inv_rate,threads,label,family,l2_bytes,l3_bytes,wide,log_residues,deep,round,ms\n",
    );
    for r in results {
        let c = &r.candidate.config;
        let opt = |v: Option<String>| v.unwrap_or_default();
        for (round, ms) in r.samples_ms.iter().enumerate() {
            let _ = writeln!(
                out,
                "{},{},{},{},{},{:?},{},{},{},{},{},{round},{ms:.4}",
                r.setting.log_n,
                r.setting.lanes,
                r.setting.log_inv_rate,
                r.setting.threads,
                r.candidate.label,
                r.candidate.family,
                opt(c.l2_bytes.map(|v| v.to_string())),
                opt(c.l3_bytes.map(|v| v.to_string())),
                opt(c.wide.map(|v| v.to_string())),
                opt(c.log_residues.map(|v| v.to_string())),
                opt(c.deep.map(|v| v.to_string())),
            );
        }
    }
    out
}

/// Median time against L2 budget for the narrow and wide families (one panel per setting),
/// with the default's median as a horizontal reference line, as an SVG document.
pub fn plot(results: &[Measured]) -> Result<String, String> {
    let mut svg = String::new();
    draw(results, &mut svg)?;
    Ok(svg)
}

fn draw(results: &[Measured], svg: &mut String) -> Result<(), String> {
    let mut settings: Vec<Setting> = Vec::new();
    for r in results {
        if !settings.contains(&r.setting) {
            settings.push(r.setting);
        }
    }
    let cols = settings.len().clamp(1, 2);
    let rows = settings.len().div_ceil(cols).max(1);
    let root = SVGBackend::with_string(svg, (640 * cols as u32, 420 * rows as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    for (panel, setting) in root.split_evenly((rows, cols)).iter().zip(&settings) {
        let group: Vec<&Measured> = results.iter().filter(|r| r.setting == *setting).collect();
        let series = |family: Family| -> Vec<(f64, f64)> {
            let mut pts: Vec<(f64, f64)> = group
                .iter()
                .filter(|r| r.candidate.family == family)
                .filter_map(|r| {
                    r.candidate
                        .config
                        .l2_bytes
                        .map(|b| ((b as f64 / 1024.0).log2(), r.ms.median))
                })
                .collect();
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            pts
        };
        let narrow = series(Family::Narrow);
        let wide = series(Family::Wide);
        let default_ms = group
            .iter()
            .find(|r| r.candidate.label == "default")
            .map(|r| r.ms.median);
        let xs: Vec<f64> = narrow.iter().chain(&wide).map(|p| p.0).collect();
        let ys: Vec<f64> = narrow
            .iter()
            .chain(&wide)
            .map(|p| p.1)
            .chain(default_ms)
            .collect();
        if xs.is_empty() {
            continue;
        }
        let (x0, x1) = (
            xs.iter().copied().fold(f64::INFINITY, f64::min),
            xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        );
        let y1 = ys.iter().copied().fold(0.0, f64::max) * 1.15;
        let mut chart = ChartBuilder::on(panel)
            .caption(setting.name(), ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .build_cartesian_2d((x0 - 0.5)..(x1 + 0.5), 0.0..y1.max(1e-3))
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("L2 unit budget (log2 KiB)")
            .y_desc("median ms")
            .draw()
            .map_err(|e| e.to_string())?;
        for (name, pts, color) in [("narrow", narrow, BLUE), ("wide", wide, RED)] {
            chart
                .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                .map_err(|e| e.to_string())?
                .label(name)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2)));
            chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
                .map_err(|e| e.to_string())?;
        }
        if let Some(d) = default_ms {
            chart
                .draw_series(LineSeries::new(
                    vec![(x0 - 0.5, d), (x1 + 0.5, d)],
                    BLACK.mix(0.6),
                ))
                .map_err(|e| e.to_string())?
                .label("default plan")
                .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], BLACK.mix(0.6)));
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| e.to_string())?;
    }
    root.present().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ntt_pcs::PlanConfig;

    fn measured(label: &str, family: Family, ms: &[u64]) -> Measured {
        let setting = Setting {
            log_n: 10,
            lanes: 4,
            log_inv_rate: 1,
            threads: 1,
        };
        let samples: Vec<Duration> = ms.iter().map(|&m| Duration::from_millis(m)).collect();
        let config = PlanConfig {
            l2_bytes: Some(4096),
            ..PlanConfig::default()
        };
        Measured::new(
            setting,
            Candidate {
                label: label.into(),
                family,
                config,
            },
            String::new(),
            &samples,
        )
    }

    #[test]
    fn best_is_compared_with_the_default_and_its_spread() {
        let clear = best_per_setting(&[
            measured("default", Family::Default, &[100, 101, 102]),
            measured("fast", Family::Narrow, &[50, 51, 52]),
        ]);
        assert_eq!(clear[0].best, "fast");
        assert!((clear[0].speedup - 101.0 / 51.0).abs() < 1e-9);
        assert!(clear[0].significant);
        let noisy = best_per_setting(&[
            measured("default", Family::Default, &[60, 100, 140]),
            measured("fast", Family::Narrow, &[90, 95, 99]),
        ]);
        assert!(!noisy[0].significant);
    }

    #[test]
    fn csv_has_a_row_per_sample_and_the_plot_renders() {
        let results = [
            measured("default", Family::Default, &[3, 4]),
            measured("n", Family::Narrow, &[1, 2]),
        ];
        assert_eq!(csv(&results).lines().count(), 1 + 4);
        let svg = plot(&results).unwrap();
        assert!(svg.contains("<svg") && svg.contains("narrow"));
    }
}
