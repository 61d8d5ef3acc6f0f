//! Running the `ntt` binary in tests: scratch directories, witnesses, outputs and clean failures.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// How long any one run may take before the test calls it a hang.
pub(crate) const HANG: Duration = Duration::from_secs(120);

/// A command line for the binary with a clean environment for the engine's variables.
pub(crate) fn command(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ntt"));
    cmd.args(args);
    for var in ["NTT_BACKEND", "NTT_THREADS", "NTT_TOPOLOGY", "NTT_LOG", "NTT_PIN"] {
        cmd.env_remove(var);
    }
    // Plans must not depend on wisdom the machine running the tests happens to have.
    cmd.env("NTT_WISDOM", "off");
    cmd
}

pub(crate) fn ntt(args: &[&str]) -> Output {
    ntt_with(args, &[], None)
}

/// Runs the binary with extra environment and optional standard input; fails the test when it
/// runs longer than [`HANG`].
pub(crate) fn ntt_with(args: &[&str], env: &[(&str, &str)], stdin: Option<&[u8]>) -> Output {
    let mut cmd = command(args);
    cmd.envs(env.iter().copied());
    finish(cmd, stdin, HANG)
}

/// Runs `cmd` (standard input from `stdin`, or none), killing it after `limit`.
pub(crate) fn finish(mut cmd: Command, stdin: Option<&[u8]>, limit: Duration) -> Output {
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    cmd.stderr(Stdio::piped());
    let mut child = cmd.stdout(Stdio::piped()).spawn().expect("the binary runs");
    let feeder = stdin.map(|bytes| {
        let mut pipe = child.stdin.take().expect("piped stdin");
        let bytes = bytes.to_vec();
        std::thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        })
    });
    let start = Instant::now();
    let id = child.id();
    let watchdog = std::thread::spawn(move || {
        while start.elapsed() < limit {
            std::thread::sleep(Duration::from_millis(50));
            if std::fs::metadata(format!("/proc/{id}")).is_err() {
                return false;
            }
        }
        // SAFETY: kill has no memory-safety preconditions; `id` is our own child.
        unsafe { libc::kill(id as libc::pid_t, libc::SIGKILL) };
        true
    });
    let out = child.wait_with_output().expect("wait for the binary");
    if let Some(feeder) = feeder {
        let _ = feeder.join();
    }
    let _ = watchdog;
    assert!(
        start.elapsed() < limit,
        "`ntt {:?}` ran longer than {limit:?} (hung?)",
        cmd.get_args().collect::<Vec<_>>()
    );
    out
}

pub(crate) fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub(crate) fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Standard output as one JSON value.
pub(crate) fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\nstderr: {}", stdout(out), stderr(out)))
}

/// A path as a command-line argument.
pub(crate) fn s(path: &Path) -> &str {
    path.to_str().expect("UTF-8 scratch paths")
}

/// A fresh scratch directory unique to one test.
pub(crate) fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ntt-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

pub(crate) fn write_witness(path: &Path, words: usize, seed: u64) {
    let mut x = seed;
    let bytes: Vec<u8> = (0..words)
        .flat_map(|_| {
            // SplitMix64: any fixed sequence of words will do here.
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            (z ^ (z >> 31)).to_le_bytes()
        })
        .collect();
    std::fs::write(path, bytes).expect("write witness");
}

/// The exit code and a phrase of the message, and no panic or backtrace hint shown to the user.
pub(crate) fn assert_clean_failure(out: &Output, code: i32, message: &str) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout: {}\nstderr: {}",
        stdout(out),
        stderr(out)
    );
    let err = stderr(out);
    assert!(err.contains(message), "stderr lacks `{message}`: {err}");
    assert!(!err.contains("panicked"), "a panic reached the user: {err}");
    assert!(
        !err.contains("RUST_BACKTRACE"),
        "a backtrace hint reached the user: {err}"
    );
}

/// No temporary file of an atomic write is left in `dir`.
pub(crate) fn assert_no_temporaries(dir: &Path) {
    for entry in std::fs::read_dir(dir).expect("scratch dir") {
        let name = entry.expect("entry").file_name();
        let name = name.to_string_lossy();
        assert!(
            !(name.starts_with('.') && name.ends_with(".tmp")),
            "temporary `{name}` left in {}",
            dir.display()
        );
    }
}
