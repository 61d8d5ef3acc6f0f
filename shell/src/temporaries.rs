//! Temporary files that exist now, and their removal when a signal ends the process.

use std::io;
use std::path::PathBuf;
use std::sync::Mutex;

/// Paths of temporary files that exist now: what a signal must remove before the process ends.
static TEMPORARIES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A temporary's place on the list, for as long as it is held.
#[derive(Debug)]
pub(crate) struct Listed(PathBuf);

impl Listed {
    pub(crate) fn new(path: PathBuf) -> Self {
        lock().push(path.clone());
        Self(path)
    }
}

impl Drop for Listed {
    fn drop(&mut self) {
        let mut list = lock();
        if let Some(at) = list.iter().position(|p| *p == self.0) {
            list.swap_remove(at);
        }
    }
}

fn lock() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    TEMPORARIES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// On SIGINT or SIGTERM, removes the temporary files of outputs being written and exits with
/// 128 + the signal's number (130, 143), as shells expect of a process a signal stopped.
///
/// # Errors
/// When the signal handlers cannot be installed or their thread started.
pub fn remove_temporaries_on_signals() -> io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    std::thread::Builder::new()
        .name("ntt-signals".to_owned())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                for path in lock().drain(..) {
                    let _ = std::fs::remove_file(path);
                }
                // SAFETY: `_exit` ends the process at once; it has no preconditions. Unlike
                // `exit`, it takes no lock another thread (a blocked write) may hold.
                unsafe { libc::_exit(128 + signal) };
            }
        })?;
    Ok(())
}
