//! How outputs are written: whole or not at all even when the process is stopped by a signal,
//! and with one rule for the mode of what they replace.

mod common;

use common::*;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// Whether `pid` has a file open for writing under `dir` (a named temporary, or an unnamed
/// `O_TMPFILE` file, which /proc shows as `dir/#inode (deleted)`).
fn writing_under(pid: u32, dir: &Path) -> bool {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.filter_map(Result::ok)
        .filter_map(|fd| std::fs::read_link(fd.path()).ok())
        .any(|target| target.starts_with(dir) && !target.ends_with("w.bin"))
}

/// Starts `ntt args` and waits until it is writing under `dir`.
fn start_writing(args: &[&str], dir: &Path) -> Child {
    let mut cmd = command(args);
    cmd.stdout(Stdio::null()).stderr(Stdio::null());
    let child = cmd.spawn().expect("the binary runs");
    let started = Instant::now();
    while !writing_under(child.id(), dir) {
        assert!(started.elapsed() < HANG, "`ntt {args:?}` never started writing");
        std::thread::sleep(Duration::from_millis(5));
    }
    child
}

fn signal(child: &Child, signal: libc::c_int) {
    // SAFETY: kill has no memory-safety preconditions; the child has not been waited for.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
}

/// Names in `dir` other than `keep`.
fn litter(dir: &Path, keep: &[&str]) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("scratch dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|name| !keep.contains(&name.as_str()))
        .collect()
}

#[test]
fn a_signal_during_a_large_write_leaves_nothing_and_the_old_file_whole() {
    let dir = scratch("signals");
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let input = dir.join("w.bin");
    write_witness(&input, 1 << 22, 9);
    // 256 MiB outputs: long enough to be stopped halfway on any machine.
    let target = out.join("big.bin");
    let commands: [Vec<&str>; 3] = [
        vec!["witness", "--log-n", "25", "--output", s(&target)],
        vec![
            "encode",
            "--input",
            s(&input),
            "--lanes",
            "64",
            "--log-inv-rate",
            "3",
            "--output",
            s(&target),
        ],
        vec![
            "commit",
            "--input",
            s(&input),
            "--lanes",
            "64",
            "--log-inv-rate",
            "3",
            "--save-codeword",
            s(&target),
        ],
    ];
    for args in &commands {
        for (sig, code) in [
            (libc::SIGINT, Some(130)),
            (libc::SIGTERM, Some(143)),
            (libc::SIGKILL, None),
        ] {
            for existing in [false, true] {
                if existing {
                    std::fs::write(&target, b"the old output").unwrap();
                } else {
                    let _ = std::fs::remove_file(&target);
                }
                let child = start_writing(args, &out);
                signal(&child, sig);
                let status = child.wait_with_output().expect("wait").status;
                let label = format!("`ntt {}` stopped by signal {sig}", args.join(" "));
                match code {
                    Some(code) => assert_eq!(status.code(), Some(code), "{label}"),
                    None => assert!(status.code().is_none(), "{label}: {status:?}"),
                }
                if existing {
                    assert_eq!(std::fs::read(&target).unwrap(), b"the old output", "{label}");
                    assert_eq!(litter(&out, &["big.bin"]), Vec::<String>::new(), "{label}");
                } else {
                    // Either nothing, or (if the signal came as the file was named) the whole file.
                    let left = litter(&out, &[]);
                    assert!(left.is_empty() || left == ["big.bin"], "{label} left {left:?}");
                }
            }
        }
    }
}

#[test]
fn a_replaced_output_keeps_its_mode_and_symlinks_are_followed() {
    let dir = scratch("modes");
    let private = dir.join("private.bin");
    std::fs::write(&private, b"secret").unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o600)).unwrap();
    let run = |output: &Path| {
        let out = ntt(&["witness", "--log-n", "10", "--output", s(output)]);
        assert!(out.status.success(), "{}", stderr(&out));
    };
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;

    run(&private);
    assert_eq!(mode(&private), 0o600, "a 0600 file stays 0600");
    assert_eq!(std::fs::metadata(&private).unwrap().len(), 8 << 10);

    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o640)).unwrap();
    run(&private);
    assert_eq!(mode(&private), 0o640);

    // A new file: 0666 less the umask (the test's umask, read back by creating a file).
    let probe = dir.join("probe");
    std::fs::write(&probe, b"").unwrap();
    let fresh = dir.join("fresh.bin");
    run(&fresh);
    assert_eq!(mode(&fresh), mode(&probe) & 0o666);

    // A symbolic link is followed: the file it names is replaced, the link stays a link.
    let link = dir.join("link.bin");
    std::os::unix::fs::symlink(&private, &link).unwrap();
    std::fs::write(&private, b"old").unwrap();
    run(&link);
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::metadata(&private).unwrap().len(), 8 << 10);
    assert_eq!(mode(&private), 0o640);

    // A hard link is not: the path gets a new file, the other name keeps the old contents.
    let other = dir.join("other-name.bin");
    std::fs::hard_link(&private, &other).unwrap();
    let before = std::fs::read(&other).unwrap();
    let out = ntt(&["witness", "--log-n", "9", "--output", s(&private)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read(&other).unwrap(), before);
    assert_eq!(std::fs::metadata(&private).unwrap().len(), 8 << 9);
    assert_eq!(mode(&private), 0o640);
    assert_no_temporaries(&dir);
}

/// The wisdom `tune --save` writes follows the rule of every output.
#[test]
fn saved_wisdom_keeps_the_mode_of_the_file_it_replaces() {
    let dir = scratch("wisdom-mode");
    let wisdom = dir.join("wisdom.json");
    std::fs::write(&wisdom, b"{}").unwrap();
    std::fs::set_permissions(&wisdom, std::fs::Permissions::from_mode(0o604)).unwrap();
    let mut cmd = command(&[
        "tune",
        "--log-n",
        "8",
        "--lanes",
        "4",
        "--threads",
        "1",
        "--backends",
        "portable",
        "--repeat",
        "1",
        "--save",
        "--output",
        s(&dir.join("tuned")),
    ]);
    cmd.env("NTT_WISDOM", &wisdom);
    let out = finish(cmd, None, HANG);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(std::fs::read_to_string(&wisdom).unwrap().contains("fingerprint"));
    assert_eq!(
        std::fs::metadata(&wisdom).unwrap().permissions().mode() & 0o777,
        0o604
    );
}
