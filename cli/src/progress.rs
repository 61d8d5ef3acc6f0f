//! Progress for long runs: a bar when a person watches stderr, plain status lines otherwise.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// Whether stderr is a terminal (a person is watching).
pub(crate) fn interactive() -> bool {
    std::io::stderr().is_terminal()
}

/// A bar over `len` steps on stderr; hidden unless stderr is a terminal.
pub(crate) fn bar(len: u64, what: &str) -> ProgressBar {
    if len <= 1 || !interactive() {
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

/// A status line on stderr for logs and pipelines, where a bar would be noise: printed only when
/// stderr is not a terminal (the bar says the same there).
pub(crate) fn status(line: &str) {
    if !interactive() {
        eprintln!("{line}");
    }
}
