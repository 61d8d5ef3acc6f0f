//! The plot of a tuning run: time against the L2 unit budget, relative to the default plan, one
//! panel per worker count (and backend), every shape in it.

use super::report::{Measured, Setting};
use super::sweep::{Candidate, Family};
use crate::report::count;
use ntt_plot::style::{GREY, PALETTE};
use ntt_plot::{FONT, Figure, PlotError, ticks};
use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
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

    /// The default plan's measurement at `setting`.
    fn default_at(&self, setting: Setting) -> Option<&Measured> {
        self.results.iter().find(|r| {
            r.setting == setting && r.candidate.family == Family::Default && r.candidate.label == "default"
        })
    }

    /// Every timed candidate of `family` at `setting` but the default itself, by budget.
    fn points(&self, setting: Setting, family: Family) -> Vec<Point> {
        let Some(default) = self.default_at(setting) else {
            return Vec::new();
        };
        let base = default.ms.median;
        let mut pts: Vec<Point> = self
            .results
            .iter()
            .filter(|r| r.setting == setting && r.candidate.family == family)
            .filter(|r| !std::ptr::eq(*r, default))
            .map(|r| {
                let x = budget_x(&r.candidate, setting);
                (x, r.ms.median / base, r.ms.min / base, r.ms.max / base)
            })
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        pts
    }
}

/// A candidate's x: log2 of its L2 budget in KiB, else (a family that keeps the L2 unit) the
/// planner's.
fn budget_x(c: &Candidate, setting: Setting) -> f64 {
    let bytes = c.config.l2_bytes.unwrap_or(setting.planner_l2_bytes);
    (bytes as f64 / 1024.0).log2()
}

/// Every family the sweep tries, in legend order: how it is drawn and where beside its budget.
const FAMILIES: [(Family, &str, Marker, f64); 8] = [
    (Family::Wide, "wide", Marker::Dot, 0.04),
    (Family::Narrow, "narrow", Marker::Dot, -0.04),
    (Family::Residues, "residues", Marker::Cross, 0.14),
    (Family::DeepL2, "deep-L2", Marker::Triangle, -0.14),
    (Family::DeepL3, "deep-L3", Marker::Square, 0.22),
    (Family::Sweeps, "more sweeps", Marker::Diamond, -0.22),
    (Family::Transpose, "transpose", Marker::Bar, 0.3),
    (Family::Default, "streaming", Marker::Hollow, -0.3),
];

/// The glyph of a family's points (budget-swept families are also joined by lines).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Marker {
    Dot,
    Cross,
    Triangle,
    Square,
    Diamond,
    Bar,
    Hollow,
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

/// Relative times beyond these are never drawn to scale (a run that lost its core to another
/// process), whatever the quantiles say.
const Y_RANGE: (f64, f64) = (1.0 / 16.0, 16.0);
/// The y-range covers these quantiles of the panel's times (and 1×); points beyond it are
/// drawn at its edge as open triangles.
const QUANTILES: (f64, f64) = (0.05, 0.95);
const LEGEND_WIDTH: u32 = 210;

/// A legend entry: its text and how its line or glyph is drawn.
struct Entry {
    text: String,
    style: ShapeStyle,
    look: Look,
}

/// How a legend entry is drawn.
#[derive(Clone, Copy)]
enum Look {
    Line,
    Dashed,
    Glyph(Marker),
    Ring,
    OffScale,
}

/// A panel's series: one size, one family, its points.
type Series = (Setting, Family, Vec<Point>);

/// The y-range (log2) covering the robust quantiles of every time in `series`, and 1×.
fn y_range(series: &[Series]) -> (f64, f64) {
    let mut ys: Vec<f64> = series
        .iter()
        .flat_map(|(_, _, p)| p.iter().flat_map(|p| [p.1, p.2, p.3]))
        .filter(|y| y.is_finite() && *y > 0.0)
        .map(f64::log2)
        .collect();
    ys.sort_by(f64::total_cmp);
    let quantile = |q: f64| {
        if ys.is_empty() {
            0.0
        } else {
            ys[((ys.len() - 1) as f64 * q).round() as usize]
        }
    };
    let y0 = (quantile(QUANTILES.0).min(0.0) - 0.25).max(Y_RANGE.0.log2());
    let y1 = (quantile(QUANTILES.1).max(0.0) + 0.25).min(Y_RANGE.1.log2());
    (y0, y1)
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
        let series: Vec<Series> = settings
            .iter()
            .flat_map(|&s| FAMILIES.map(|(f, ..)| (s, f, self.points(s, f))))
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
        let (y0, y1) = y_range(&series);
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
            .x_desc("L2 unit budget (log scale; other families at the planner's)")
            .y_desc("commit time / default plan's (log scale)")
            .label_style((FONT, 15))
            .axis_desc_style((FONT, 16))
            .draw()?;
        let mut legend = draw_references(&mut chart, (x0, x1), (y0, y1), &derived)?;
        let mut off_scale = false;
        for (setting, family, pts) in &series {
            let s = settings.iter().position(|s| s == setting).unwrap_or(0);
            let drawn = draw_series(&mut chart, (*family, PALETTE[s % PALETTE.len()]), pts, (y0, y1))?;
            off_scale |= drawn.1;
            legend.push(Entry {
                text: format!("2^{} words, {}", setting.log_n, family_name(*family)),
                style: drawn.0,
                look: Look::Glyph(family_marker(*family)),
            });
        }
        if self.draw_default_equals(&mut chart, &settings)? {
            legend.push(Entry {
                text: "plans the default's work".to_owned(),
                style: BLACK.stroke_width(1),
                look: Look::Ring,
            });
        }
        if off_scale {
            legend.push(Entry {
                text: "off scale (at the edge)".to_owned(),
                style: BLACK.stroke_width(1),
                look: Look::OffScale,
            });
        }
        self.say_only_default(&plot_area, &settings)?;
        draw_legend(&legend_area, &legend)
    }

    /// Rings at 1× where the candidates lie whose plans do the default's work (they were not
    /// timed again); whether there were any.
    fn draw_default_equals<DB: DrawingBackend>(
        &self,
        chart: &mut Chart<'_, DB>,
        settings: &[Setting],
    ) -> Result<bool, PlotError>
    where
        DB::ErrorType: 'static,
    {
        let mut any = false;
        for &setting in settings {
            let Some(default) = self.default_at(setting) else {
                continue;
            };
            let rings = default.same_plan_candidates.iter().map(|c| {
                let shift = FAMILIES.iter().find(|f| f.0 == c.family).map_or(0.0, |f| f.3);
                EmptyElement::at((budget_x(c, setting) + shift, 0.0))
                    + Circle::new((0, 0), 6, BLACK.stroke_width(1))
            });
            any |= !default.same_plan_candidates.is_empty();
            chart.draw_series(rings)?;
        }
        Ok(any)
    }

    /// A size at which every candidate plans the default's work has no points: say so rather
    /// than leave the panel silently empty.
    fn say_only_default<DB: DrawingBackend>(
        &self,
        plot_area: &DrawingArea<DB, Shift>,
        settings: &[Setting],
    ) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static,
    {
        let font = (FONT, 16).into_font().color(&GREY);
        let lonely = settings.iter().filter(|&&s| self.only_default(s));
        for (i, setting) in lonely.enumerate() {
            plot_area.draw(&Text::new(
                format!("2^{} words: {ONLY_DEFAULT}", setting.log_n),
                (90, 60 + 22 * i as i32),
                font.clone(),
            ))?;
        }
        Ok(())
    }
}

/// A panel's chart: log2 budget against log2 ratio.
type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// The 1× line and the planner's L2 units; their legend entries.
fn draw_references<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
    derived: &[f64],
) -> Result<Vec<Entry>, PlotError>
where
    DB::ErrorType: 'static,
{
    chart.draw_series(LineSeries::new(
        [(x0 - 0.5, 0.0), (x1 + 0.5, 0.0)],
        BLACK.mix(0.6),
    ))?;
    for &d in derived {
        chart.draw_series(DashedLineSeries::new(
            [(d, y0), (d, y1)],
            6,
            4,
            GREY.stroke_width(2),
        ))?;
    }
    Ok(vec![
        Entry {
            text: "default plan (1×)".to_owned(),
            style: BLACK.mix(0.6).stroke_width(1),
            look: Look::Line,
        },
        Entry {
            text: "planner's L2 unit".to_owned(),
            style: GREY.stroke_width(2),
            look: Look::Dashed,
        },
    ])
}

/// One family's points at one size: budget-swept families joined by a line, every point with
/// its min–max whisker, points beyond the y-range as open triangles at its edge. Returns the
/// style drawn and whether a point was off scale.
fn draw_series<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    (family, color): (Family, RGBColor),
    pts: &[Point],
    (y0, y1): (f64, f64),
) -> Result<(ShapeStyle, bool), PlotError>
where
    DB::ErrorType: 'static,
{
    let (shift, marker) = FAMILIES
        .iter()
        .find(|f| f.0 == family)
        .map_or((0.0, Marker::Dot), |f| (f.3, f.2));
    let style = if family == Family::Narrow {
        color.mix(0.55).stroke_width(2)
    } else {
        color.stroke_width(2)
    };
    let clip = |y: f64| y.log2().clamp(y0, y1);
    let (inside, outside): (Vec<Point>, Vec<Point>) =
        pts.iter().partition(|p| (y0..=y1).contains(&p.1.log2()));
    if matches!(family, Family::Wide | Family::Narrow) {
        let line: Vec<(f64, f64)> = pts.iter().map(|p| (p.0 + shift, clip(p.1))).collect();
        chart.draw_series(LineSeries::new(line, style))?;
    }
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
    let at = |p: &Point| EmptyElement::at((p.0 + shift, p.1.log2()));
    let fill = style.filled();
    match marker {
        Marker::Dot => chart.draw_series(inside.iter().map(|p| at(p) + Circle::new((0, 0), 3, fill)))?,
        Marker::Cross => chart.draw_series(inside.iter().map(|p| at(p) + Cross::new((0, 0), 4, style)))?,
        Marker::Triangle => chart.draw_series(
            inside
                .iter()
                .map(|p| at(p) + TriangleMarker::new((0, 0), 5, fill)),
        )?,
        Marker::Square => chart.draw_series(
            inside
                .iter()
                .map(|p| at(p) + Rectangle::new([(-3, -3), (3, 3)], fill)),
        )?,
        Marker::Diamond => chart.draw_series(
            inside
                .iter()
                .map(|p| at(p) + Polygon::new(vec![(0, -4), (4, 0), (0, 4), (-4, 0)], fill)),
        )?,
        Marker::Bar => chart.draw_series(
            inside
                .iter()
                .map(|p| at(p) + Rectangle::new([(-1, -5), (1, 5)], fill)),
        )?,
        Marker::Hollow => chart.draw_series(inside.iter().map(|p| at(p) + Circle::new((0, 0), 4, style)))?,
    };
    chart.draw_series(outside.iter().map(|p| {
        EmptyElement::at((p.0 + shift, clip(p.1))) + TriangleMarker::new((0, 0), 7, style.stroke_width(2))
    }))?;
    Ok((style, !outside.is_empty()))
}

/// The legend's name of a family.
fn family_name(family: Family) -> &'static str {
    FAMILIES.iter().find(|f| f.0 == family).map_or("other", |f| f.1)
}

/// The glyph of a family.
fn family_marker(family: Family) -> Marker {
    FAMILIES
        .iter()
        .find(|f| f.0 == family)
        .map_or(Marker::Dot, |f| f.2)
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
        let y = 70 + 22 * i as i32;
        match e.look {
            Look::Line => area.draw(&PathElement::new(vec![(4, y), (30, y)], e.style))?,
            Look::Dashed => {
                for x in [4, 14, 24] {
                    area.draw(&PathElement::new(vec![(x, y), (x + 6, y)], e.style))?;
                }
            }
            Look::Glyph(marker) => {
                area.draw(&PathElement::new(vec![(4, y), (30, y)], e.style.stroke_width(1)))?;
                let at = EmptyElement::at((17, y));
                match marker {
                    Marker::Dot => area.draw(&(at + Circle::new((0, 0), 3, e.style.filled())))?,
                    Marker::Cross => area.draw(&(at + Cross::new((0, 0), 4, e.style)))?,
                    Marker::Triangle => {
                        area.draw(&(at + TriangleMarker::new((0, 0), 5, e.style.filled())))?
                    }
                    Marker::Square => {
                        area.draw(&(at + Rectangle::new([(-3, -3), (3, 3)], e.style.filled())))?
                    }
                    Marker::Diamond => area.draw(
                        &(at + Polygon::new(vec![(0, -4), (4, 0), (0, 4), (-4, 0)], e.style.filled())),
                    )?,
                    Marker::Bar => area.draw(&(at + Rectangle::new([(-1, -5), (1, 5)], e.style.filled())))?,
                    Marker::Hollow => area.draw(&(at + Circle::new((0, 0), 4, e.style)))?,
                }
            }
            Look::Ring => area.draw(&(EmptyElement::at((17, y)) + Circle::new((0, 0), 6, e.style)))?,
            Look::OffScale => {
                area.draw(&(EmptyElement::at((17, y)) + TriangleMarker::new((0, 0), 7, e.style)))?
            }
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
