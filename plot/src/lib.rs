//! Plots of ntt-engine's measurements, written as SVG and as PNG with a font that ships in the
//! repository (DejaVu Sans, `assets/fonts/`, Bitstream Vera licence), so a PNG comes out the same
//! on a machine without system fonts (a container, CI) as on a desktop.
//!
//! A plot is a [`Figure`]: its size and a `draw` generic over the plotters backend, so one drawing
//! routine makes both files. [`svg()`] and [`png()`] render it; [`write_both`] writes `STEM.svg` and
//! `STEM.png` side by side. Text uses the family [`FONT`], registered from the bundled bytes on
//! first use.
//!
//! ```
//! use ntt_plot::{Figure, PlotError};
//! use plotters::prelude::*;
//!
//! struct Line;
//! impl Figure for Line {
//!     fn size(&self) -> (u32, u32) {
//!         (320, 200)
//!     }
//!     fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, plotters::coord::Shift>) -> Result<(), PlotError>
//!     where
//!         DB::ErrorType: 'static,
//!     {
//!         root.fill(&WHITE)?;
//!         let mut chart = ChartBuilder::on(root)
//!             .caption("y = x", (ntt_plot::FONT, 16))
//!             .x_label_area_size(30)
//!             .y_label_area_size(30)
//!             .build_cartesian_2d(0.0..1.0, 0.0..1.0)?;
//!         chart.configure_mesh().x_desc("x (units)").draw()?;
//!         chart.draw_series(LineSeries::new([(0.0, 0.0), (1.0, 1.0)], &BLUE))?;
//!         Ok(())
//!     }
//! }
//! let png = ntt_plot::png(&Line).expect("renders");
//! assert_eq!(&png[1..4], b"PNG");
//! assert!(ntt_plot::svg(&Line).expect("renders").contains("y = x"));
//! ```

#![deny(missing_docs)]

mod font;
mod render;
pub mod style;
pub mod ticks;

pub use font::{FONT, register_font};
pub use render::{Figure, PlotError, png, svg, write_both};
