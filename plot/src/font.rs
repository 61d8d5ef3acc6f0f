//! The bundled font.

use plotters::style::FontStyle;
use std::sync::Once;

/// The family name plots use for every text; it is the bundled DejaVu Sans.
pub const FONT: &str = "sans-serif";

/// DejaVu Sans 2.37 (Bitstream Vera licence with public-domain DejaVu changes:
/// `assets/fonts/LICENSE.txt`).
static DEJAVU_SANS: &[u8] = include_bytes!("../assets/fonts/DejaVuSans.ttf");

/// Registers the bundled font as [`FONT`] for every style (plotters falls back to the normal
/// face for bold and italic). Idempotent; [`crate::svg`] and [`crate::png`] call it.
pub fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        plotters::style::register_font(FONT, FontStyle::Normal, DEJAVU_SANS)
            .unwrap_or_else(|_| unreachable!("the bundled DejaVu Sans is a valid TrueType font"));
    });
}
