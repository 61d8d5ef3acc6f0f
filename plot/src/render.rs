//! One drawing routine, two files.

use crate::font::register_font;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// Why a plot could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlotError {
    /// The drawing itself failed (an empty range, a font that cannot lay out a text).
    #[error("cannot draw the plot: {0}")]
    Draw(String),
    /// The PNG encoder refused the image.
    #[error("cannot encode the PNG: {0}")]
    Png(#[from] png::EncodingError),
    /// A file could not be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why it could not be written.
        source: std::io::Error,
    },
}

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for PlotError {
    fn from(e: DrawingAreaErrorKind<E>) -> Self {
        Self::Draw(e.to_string())
    }
}

/// A plot: its size in pixels and how to draw it on any plotters backend.
pub trait Figure {
    /// Width and height in pixels (the PNG's size, the SVG's view box).
    fn size(&self) -> (u32, u32);

    /// Draws the whole figure, background included, on `root`.
    ///
    /// # Errors
    /// Whatever the backend reports.
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static;
}

/// The figure as an SVG document.
///
/// # Errors
/// A drawing error.
pub fn svg(figure: &impl Figure) -> Result<String, PlotError> {
    register_font();
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, figure.size()).into_drawing_area();
        figure.draw(&root)?;
        root.present()?;
    }
    Ok(out)
}

/// The figure as PNG bytes (8-bit RGB), text rasterised with the bundled font.
///
/// # Errors
/// A drawing or encoding error.
pub fn png(figure: &impl Figure) -> Result<Vec<u8>, PlotError> {
    register_font();
    let (w, h) = figure.size();
    let mut rgb = vec![0u8; w as usize * h as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
        figure.draw(&root)?;
        root.present()?;
    }
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, w, h);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&rgb)?;
    writer.finish()?;
    Ok(out)
}

/// Writes `dir/STEM.svg` and `dir/STEM.png` (creating `dir`) and returns their paths.
///
/// # Errors
/// A drawing, encoding or file error.
pub fn write_both(figure: &impl Figure, dir: &Path, stem: &str) -> Result<[PathBuf; 2], PlotError> {
    let write = |path: PathBuf, bytes: &[u8]| {
        std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::write(&path, bytes))
            .map_err(|source| PlotError::Write {
                path: path.clone(),
                source,
            })
            .map(|()| path)
    };
    let svg_path = write(dir.join(format!("{stem}.svg")), svg(figure)?.as_bytes())?;
    let png_path = write(dir.join(format!("{stem}.png")), &png(figure)?)?;
    Ok([svg_path, png_path])
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Labelled;

    impl Figure for Labelled {
        fn size(&self) -> (u32, u32) {
            (200, 120)
        }
        fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError>
        where
            DB::ErrorType: 'static,
        {
            root.fill(&WHITE)?;
            root.draw(&Text::new("GiB/s", (20, 40), (crate::FONT, 32).into_font()))?;
            Ok(())
        }
    }

    /// Text is rasterised from the bundled font: the PNG decodes to the right size and holds
    /// dark pixels where the label is, with no system font involved.
    #[test]
    fn png_text_comes_from_the_bundled_font() {
        let bytes = png(&Labelled).expect("renders");
        let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        let mut reader = decoder.read_info().expect("a PNG");
        let mut pixels = vec![0; reader.output_buffer_size().expect("a frame size")];
        let info = reader.next_frame(&mut pixels).expect("one frame");
        assert_eq!((info.width, info.height), (200, 120));
        let dark = pixels.chunks(3).filter(|p| p.iter().all(|&c| c < 100)).count();
        assert!(dark > 50, "only {dark} dark pixels: the label was not drawn");
    }

    #[test]
    fn svg_keeps_text_as_text() {
        assert!(svg(&Labelled).expect("renders").contains("GiB/s"));
    }
}
