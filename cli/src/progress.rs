//! A progress bar for long runs, shown only to a person watching a terminal.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// A bar over `len` steps; hidden when stdout is not a terminal or the output is JSON.
pub fn bar(len: u64, json: bool, what: &str) -> ProgressBar {
    if json || len <= 1 || !std::io::stdout().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} ({eta})")
            .expect("the template is valid")
            .progress_chars("=> "),
    );
    bar.set_message(what.to_owned());
    bar
}
