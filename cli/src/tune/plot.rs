//! The plot of a tuning run: time against the L2 unit budget, relative to the default plan, one
//! panel per worker count (and backend), every shape in it.

use super::report::{Measured, Setting};
use super::sweep::Family;
use ntt_plot::{FONT, Figure, PlotError, ticks};
use plotters::coord::Shift;
use plotters::prelude::*;

const PALETTE: [RGBColor; 5] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
];
const GREY: RGBColor = RGBColor(90, 90, 90);
const PANEL: (u32, u32) = (760, 540);
const HEADER: u32 = 74;

/// The figure of one tuning run; `machine` names the CPU under the title.
pub struct TunePlot<'a> {
    pub results: &'a [Measured],
    pub machine: &'a str,
}

/// One panel: the settings that share a worker count and backend.
#[derive(Clone, Copy, PartialEq, Eq)]
struct PanelKey {
    threads: usize,
    backend: ntt_kernels::BackendKind,
}

impl PanelKey {
    fn of(s: &Setting) -> Self {
        Self {
            threads: s.threads,
            backend: s.backend,
        }
    }
}

/// A candidate's point: x = log2 of its L2 budget in KiB, y = its time over the default's
/// median (median, min, max).
type Point = (f64, f64, f64, f64);

impl TunePlot<'_> {
    fn panels(&self) -> Vec<PanelKey> {
        let mut keys: Vec<PanelKey> = Vec::new();
        for r in self.results {
            let k = PanelKey::of(&r.setting);
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        keys
    }

    fn settings(&self, key: PanelKey) -> Vec<Setting> {
        let mut out: Vec<Setting> = Vec::new();
        for r in self.results.iter().filter(|r| PanelKey::of(&r.setting) == key) {
            if !out.contains(&r.setting) {
                out.push(r.setting);
            }
        }
        out
    }

    fn points(&self, setting: Setting, family: Family) -> Vec<Point> {
        let group = || self.results.iter().filter(move |r| r.setting == setting);
        let Some(default) =
            group().find(|r| r.candidate.family == Family::Default && r.candidate.label == "default")
        else {
            return Vec::new();
        };
        let base = default.ms.median;
        let mut pts: Vec<Point> = group()
            .filter(|r| r.candidate.family == family)
            .filter_map(|r| {
                let kib = r.candidate.config.l2_bytes? as f64 / 1024.0;
                Some((kib.log2(), r.ms.median / base, r.ms.min / base, r.ms.max / base))
            })
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        pts
    }
}

impl Figure for TunePlot<'_> {
    fn size(&self) -> (u32, u32) {
        let n = self.panels().len().max(1) as u32;
        let cols = n.min(2);
        (PANEL.0 * cols, PANEL.1 * n.div_ceil(cols) + HEADER)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let (top, body) = root.split_vertically(HEADER);
        top.draw(&Text::new(
            "ntt tune: commit time against the L2 unit budget, relative to the default plan".to_owned(),
            (14, 10),
            (FONT, 22).into_font(),
        ))?;
        top.draw(&Text::new(
            format!(
                "{}; dots: median, whiskers: min–max of the rounds; below 1 is faster",
                self.machine
            ),
            (14, 44),
            (FONT, 15).into_font().color(&GREY),
        ))?;
        let panels = self.panels();
        let cols = panels.len().clamp(1, 2);
        let rows = panels.len().div_ceil(cols).max(1);
        for (area, &key) in body.split_evenly((rows, cols)).iter().zip(&panels) {
            self.draw_panel(area, key)?;
        }
        Ok(())
    }
}

impl TunePlot<'_> {
    fn draw_panel<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        key: PanelKey,
    ) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static,
    {
        let settings = self.settings(key);
        let series: Vec<(Setting, Family, Vec<Point>)> = settings
            .iter()
            .flat_map(|&s| [Family::Wide, Family::Narrow].map(|f| (s, f, self.points(s, f))))
            .filter(|(_, _, pts)| !pts.is_empty())
            .collect();
        let derived: Vec<f64> = settings
            .iter()
            .map(|s| (s.planner_l2_bytes as f64 / 1024.0).log2())
            .collect();
        let xs = series
            .iter()
            .flat_map(|(_, _, p)| p.iter().map(|p| p.0))
            .chain(derived.iter().copied());
        let (x0, x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(x), b.max(x))
        });
        let y1 = series
            .iter()
            .flat_map(|(_, _, p)| p.iter().map(|p| p.3))
            .fold(1.0f64, f64::max);
        if !x0.is_finite() {
            return Ok(());
        }
        let mut chart = ChartBuilder::on(area)
            .caption(
                format!(
                    "{} thread(s), backend {}",
                    key.threads,
                    format!("{:?}", key.backend).to_lowercase()
                ),
                (FONT, 19),
            )
            .margin(14)
            .x_label_area_size(52)
            .y_label_area_size(64)
            .build_cartesian_2d((x0 - 0.5)..(x1 + 0.5), 0.0..(y1 * 1.1))?;
        chart
            .configure_mesh()
            .x_labels(((x1 - x0) as usize + 2).min(12))
            .x_label_formatter(&ticks::kib_log2)
            .y_label_formatter(&|y| format!("{y:.1}×"))
            .x_desc("L2 unit budget (log scale)")
            .y_desc("commit time / default plan's")
            .label_style((FONT, 15))
            .axis_desc_style((FONT, 16))
            .draw()?;
        chart
            .draw_series(LineSeries::new(
                [(x0 - 0.5, 1.0), (x1 + 0.5, 1.0)],
                BLACK.mix(0.6),
            ))?
            .label("default plan")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], BLACK.mix(0.6)));
        for (i, &d) in derived.iter().enumerate() {
            let line = DashedLineSeries::new([(d, 0.0), (d, y1 * 1.1)], 6, 4, GREY.stroke_width(2));
            let drawn = chart.draw_series(line)?;
            if i == 0 {
                drawn
                    .label("planner's L2 unit")
                    .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 6, y)], GREY.stroke_width(2)));
            }
        }
        for (setting, family, pts) in &series {
            let s = settings.iter().position(|s| s == setting).unwrap_or(0);
            let color = PALETTE[s % PALETTE.len()];
            let (style, shift, name) = match family {
                Family::Wide => (color.stroke_width(2), 0.04, "wide"),
                _ => (color.mix(0.55).stroke_width(2), -0.04, "narrow"),
            };
            let line: Vec<(f64, f64)> = pts.iter().map(|p| (p.0 + shift, p.1)).collect();
            chart
                .draw_series(LineSeries::new(line, style))?
                .label(format!("2^{} words, {name}", setting.log_n))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], style));
            chart.draw_series(
                pts.iter()
                    .map(|p| ErrorBar::new_vertical(p.0 + shift, p.2, p.1, p.3, style.stroke_width(1), 6)),
            )?;
            chart.draw_series(
                pts.iter()
                    .map(|p| Circle::new((p.0 + shift, p.1), 3, style.filled())),
            )?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .label_font((FONT, 14))
            .draw()?;
        Ok(())
    }
}
