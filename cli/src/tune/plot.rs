//! The plot of a tuning run: time against the L2 unit budget, relative to the default plan, one
//! panel per worker count (and backend), every shape in it.

use super::report::{Measured, Setting};
use super::sweep::Family;
use crate::report::count;
use ntt_plot::style::{GREY, PALETTE};
use ntt_plot::{FONT, Figure, PlotError, ticks};
use plotters::coord::Shift;
use plotters::prelude::*;

const PANEL: (u32, u32) = (760, 540);
const HEADER: u32 = 74;

/// The figure of one tuning run; `machine` names the CPU under the title.
pub(crate) struct TunePlot<'a> {
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

    /// Whether every candidate at `setting` planned the default plan's work (small sizes),
    /// leaving nothing to compare it with.
    fn only_default(&self, setting: Setting) -> bool {
        self.results.iter().filter(|r| r.setting == setting).count() == 1
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

/// Relative times beyond these are clipped (a run that lost its core to another process).
const Y_RANGE: (f64, f64) = (1.0 / 16.0, 16.0);
const LEGEND_WIDTH: u32 = 210;

/// A legend entry: its text and how its line is drawn.
struct Entry {
    text: String,
    style: ShapeStyle,
    dashed: bool,
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
        if !x0.is_finite() {
            return Ok(());
        }
        // Ratios are drawn as log2 so that 2× slower and 2× faster are as far from 1×.
        let ys = || {
            series
                .iter()
                .flat_map(|(_, _, p)| p.iter().flat_map(|p| [p.1, p.2, p.3]))
        };
        let y0 = (ys().fold(1.0f64, f64::min).log2() - 0.25).max(Y_RANGE.0.log2());
        let y1 = (ys().fold(1.0f64, f64::max).log2() + 0.25).min(Y_RANGE.1.log2());
        let clip = |y: f64| y.log2().clamp(y0, y1);
        let (plot_area, legend_area) = area.split_horizontally(area.dim_in_pixel().0 - LEGEND_WIDTH);
        let mut chart = ChartBuilder::on(&plot_area)
            .caption(
                format!("{}, backend {}", count(key.threads, "thread"), key.backend.name()),
                (FONT, 19),
            )
            .margin(14)
            .x_label_area_size(52)
            .y_label_area_size(64)
            .build_cartesian_2d((x0 - 0.5)..(x1 + 0.5), y0..y1)?;
        chart
            .configure_mesh()
            .x_labels(((x1 - x0) as usize + 2).min(12))
            .x_label_formatter(&ticks::kib_log2)
            .y_labels(((y1 - y0).ceil() as usize + 1) * 2)
            .y_label_formatter(&ratio_label)
            .x_desc("L2 unit budget (log scale)")
            .y_desc("commit time / default plan's (log scale)")
            .label_style((FONT, 15))
            .axis_desc_style((FONT, 16))
            .draw()?;
        let mut legend = vec![Entry {
            text: "default plan (1×)".to_owned(),
            style: BLACK.mix(0.6).stroke_width(1),
            dashed: false,
        }];
        chart.draw_series(LineSeries::new(
            [(x0 - 0.5, 0.0), (x1 + 0.5, 0.0)],
            BLACK.mix(0.6),
        ))?;
        for &d in &derived {
            chart.draw_series(DashedLineSeries::new(
                [(d, y0), (d, y1)],
                6,
                4,
                GREY.stroke_width(2),
            ))?;
        }
        legend.push(Entry {
            text: "planner's L2 unit".to_owned(),
            style: GREY.stroke_width(2),
            dashed: true,
        });
        for (setting, family, pts) in &series {
            let s = settings.iter().position(|s| s == setting).unwrap_or(0);
            let color = PALETTE[s % PALETTE.len()];
            let (style, shift, name) = match family {
                Family::Wide => (color.stroke_width(2), 0.04, "wide"),
                _ => (color.mix(0.55).stroke_width(2), -0.04, "narrow"),
            };
            let line: Vec<(f64, f64)> = pts.iter().map(|p| (p.0 + shift, clip(p.1))).collect();
            chart.draw_series(LineSeries::new(line, style))?;
            chart.draw_series(pts.iter().map(|p| {
                ErrorBar::new_vertical(
                    p.0 + shift,
                    clip(p.2),
                    clip(p.1),
                    clip(p.3),
                    style.stroke_width(1),
                    6,
                )
            }))?;
            chart.draw_series(
                pts.iter()
                    .map(|p| Circle::new((p.0 + shift, clip(p.1)), 3, style.filled())),
            )?;
            legend.push(Entry {
                text: format!("2^{} words, {name}", setting.log_n),
                style,
                dashed: false,
            });
        }
        // A size at which every candidate plans the default's work has no line: say so
        // rather than leave the panel silently empty.
        let font = (FONT, 16).into_font().color(&GREY);
        let lonely = settings.iter().filter(|&&s| self.only_default(s));
        for (i, setting) in lonely.enumerate() {
            plot_area.draw(&Text::new(
                format!("2^{} words: {ONLY_DEFAULT}", setting.log_n),
                (90, 60 + 22 * i as i32),
                font.clone(),
            ))?;
        }
        draw_legend(&legend_area, &legend)
    }
}

/// What the plot and the text say of a size with nothing to compare the default plan with.
pub(crate) const ONLY_DEFAULT: &str =
    "only the default plan fits this size (every candidate plans the same work)";

/// `0.5×`, `1×`, `4×` at whole powers of two of a log2 coordinate; nothing between them.
fn ratio_label(log2: &f64) -> String {
    let whole = log2.round();
    if (log2 - whole).abs() > 1e-6 {
        return String::new();
    }
    format!("{}×", whole.exp2())
}

/// The entries in a column beside the chart, where they cover no data.
fn draw_legend<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, entries: &[Entry]) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let font = (FONT, 14).into_font();
    for (i, e) in entries.iter().enumerate() {
        let y = 70 + 24 * i as i32;
        if e.dashed {
            for x in [4, 14, 24] {
                area.draw(&PathElement::new(vec![(x, y), (x + 6, y)], e.style))?;
            }
        } else {
            area.draw(&PathElement::new(vec![(4, y), (30, y)], e.style))?;
        }
        area.draw(&Text::new(e.text.clone(), (38, y - 8), font.clone()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn ratios_are_labelled_at_powers_of_two() {
        assert_eq!(super::ratio_label(&0.0), "1×");
        assert_eq!(super::ratio_label(&2.0), "4×");
        assert_eq!(super::ratio_label(&-1.0), "0.5×");
        assert_eq!(super::ratio_label(&-3.0), "0.125×");
        assert_eq!(super::ratio_label(&0.5), "");
    }
}
