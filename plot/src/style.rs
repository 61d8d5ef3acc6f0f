//! The look every plot of the project shares: its colours and its legend.

use crate::{FONT, PlotError};
use plotters::coord::CoordTranslate;
use plotters::prelude::*;

/// Series colours, in order (the matplotlib "tab10" start: blue, orange, green, red, purple,
/// brown), distinguishable in print and for the common colour-vision deficiencies.
pub const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

/// Secondary text and reference lines.
pub const GREY: RGBColor = RGBColor(90, 90, 90);

/// Draws `chart`'s series labels at `position`, framed on a faint white ground so that they stay
/// readable over the data.
///
/// # Errors
/// A drawing error of the backend.
pub fn legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    position: SeriesLabelPosition,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font((FONT, 15))
        .draw()?;
    Ok(())
}
