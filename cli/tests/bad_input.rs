//! Careless and hostile input, as a table: each case is a command line, its environment, the exit
//! code, a phrase its message must contain, and the files it must not leave (or must not change).

mod common;

use common::*;
use std::os::unix::process::CommandExt;
use std::time::Duration;

/// One row of the table. In `args` and file names, `@` stands for the scratch directory.
struct Case {
    args: &'static str,
    env: Vec<(&'static str, &'static str)>,
    /// Variables set to raw bytes (not UTF-8).
    env_bytes: Vec<(&'static str, &'static [u8])>,
    code: i32,
    message: &'static str,
    /// Files that must not exist afterwards (no partial output).
    absent: Vec<&'static str>,
    /// Files that must keep their contents (a failed run does not truncate its old output).
    unchanged: Vec<&'static str>,
    /// Standard output goes to `/dev/full`.
    stdout_full: bool,
    /// The address space is limited to this many bytes (`RLIMIT_AS`).
    address_space: Option<u64>,
    /// The run must end within this time (a hang fails the case).
    within: Duration,
}

fn case(args: &'static str, code: i32, message: &'static str) -> Case {
    Case {
        args,
        env: Vec::new(),
        env_bytes: Vec::new(),
        code,
        message,
        absent: Vec::new(),
        unchanged: Vec::new(),
        stdout_full: false,
        address_space: None,
        within: Duration::from_secs(60),
    }
}

impl Case {
    fn env(mut self, var: &'static str, value: &'static str) -> Self {
        self.env.push((var, value));
        self
    }

    fn env_bytes(mut self, var: &'static str, value: &'static [u8]) -> Self {
        self.env_bytes.push((var, value));
        self
    }

    fn absent(mut self, file: &'static str) -> Self {
        self.absent.push(file);
        self
    }

    fn unchanged(mut self, file: &'static str) -> Self {
        self.unchanged.push(file);
        self
    }

    fn stdout_full(mut self) -> Self {
        self.stdout_full = true;
        self
    }

    fn address_space(mut self, bytes: u64) -> Self {
        self.address_space = Some(bytes);
        self
    }

    fn within(mut self, secs: u64) -> Self {
        self.within = Duration::from_secs(secs);
        self
    }
}

/// What-if topologies from hwloc XML: read only from small regular files, never forever; in a
/// build without hwloc, refused with the feature named.
fn xml_cases() -> Vec<Case> {
    if !ntt_runtime::HWLOC_ENABLED {
        return vec![
            case(
                "topology --topology xml:@/huge.xml",
                2,
                "built without its `hwloc` feature",
            ),
            case("plan --log-n 12 --lanes 4 --threads 1", 2, "--features hwloc")
                .env("NTT_TOPOLOGY", "xml:@/fifo")
                .within(30),
        ];
    }
    vec![
        case("topology --topology xml:/dev/zero", 2, "not a regular file").within(30),
        case("topology --topology xml:@/fifo", 2, "not a regular file").within(30),
        case("topology --topology xml:@/huge.xml", 2, "more than the 8388608").within(30),
        case(
            "plan --log-n 12 --lanes 4 --topology xml:/dev/zero",
            2,
            "not a regular file",
        )
        .within(30),
        case("plan --log-n 12 --lanes 4 --threads 1", 2, "not a regular file")
            .env("NTT_TOPOLOGY", "xml:/dev/zero")
            .within(30),
        case("plan --log-n 12 --lanes 4 --threads 1", 2, "not a regular file")
            .env("NTT_TOPOLOGY", "xml:@/fifo")
            .within(30),
    ]
}

fn cases() -> Vec<Case> {
    let mut cases = xml_cases();
    cases.extend(vec![
        // Witness files.
        case("commit --input @/missing.bin --lanes 4", 3, "cannot read `"),
        case("commit --input @/odd.bin --lanes 4", 2, "not a whole number of rows"),
        case("commit --input @/three.bin --lanes 4", 2, "must be a power of two"),
        case("commit --input @/ragged.bin --lanes 1", 2, "whole number of 8-byte"),
        case("commit --input @ --lanes 1", 2, "is a directory"),
        case("commit --repeat 0", 2, "--repeat must be at least 1"),
        // An endless input stops at the memory the process may use; it does not run out of it.
        case("commit --input /dev/zero --lanes 1", 2, "can be at most").address_space(768 << 20),
        case("encode --input /dev/zero --lanes 1 --log-inv-rate 1 --output @/z.bin", 2, "can be at most")
            .address_space(768 << 20)
            .absent("@/z.bin"),
        // Worker counts are bad input.
        case("commit --input @/good.bin --lanes 4 --threads 100000", 2, "invalid worker count"),
        case("commit --input @/good.bin --lanes 4 --threads 0", 2, "--threads must be at least 1"),
        case("commit --input @/good.bin --lanes 4 --threads -1", 2, "-1"),
        case("commit --input @/good.bin --lanes 4", 2, "NTT_THREADS").env("NTT_THREADS", "abc"),
        case("commit --input @/good.bin --lanes 4", 2, "NTT_THREADS").env("NTT_THREADS", "0"),
        case("commit --input @/good.bin --lanes 4", 2, "NTT_THREADS").env("NTT_THREADS", "-1"),
        case("commit --input @/good.bin --lanes 4", 2, "unknown column start `diagonal`").env("NTT_COLUMNS", "diagonal"),
        case("topology --backend portable", 2, "unknown column start").env("NTT_COLUMNS", "diagonal"),
        case("tune --log-n 10 --lanes 4 --threads 100000", 2, "invalid worker count").absent("@/ntt-tune"),
        // Proofs and the verifier's own arguments.
        case("verify --root xyz --lanes 4 --log-rows 3 --rows 1 --proof @/p.bin", 2, "not a hex root"),
        case(
            "open --input @/good.bin --lanes 4 --log-inv-rate 1 --rows 16 --output @/p16.bin --commitment @/c16.json",
            2,
            "16",
        )
        .absent("@/p16.bin")
        .absent("@/c16.json"),
        case("verify --root 00 --lanes 4 --log-rows 4 --rows 1 --proof @/p.bin", 2, "a root is 32 bytes"),
        case(
            "verify --root 0000000000000000000000000000000000000000000000000000000000000000 --lanes 4 --log-rows 4 --rows 1 --proof @/junk.bin",
            2,
            "malformed proof",
        ),
        case(
            "verify --root 0000000000000000000000000000000000000000000000000000000000000000 --lanes 0 --log-rows 4 --rows 1 --proof @/junk.bin",
            2,
            "--lanes must be at least 1",
        ),
        case(
            "verify --root 0000000000000000000000000000000000000000000000000000000000000000 --lanes 4 --log-rows 64 --rows 1 --proof @/junk.bin",
            2,
            "--log-rows 64",
        ),
        case(
            "verify --root 0000000000000000000000000000000000000000000000000000000000000000 --lanes 4 --log-rows 4 --rows 16 --proof @/junk.bin",
            2,
            "--rows: row 16 is past the end",
        ),
        case(
            "verify --root 0000000000000000000000000000000000000000000000000000000000000000 --lanes 4 --log-rows 4 --rows 1 --proof /dev/zero",
            2,
            "can be at most",
        ),
        case("verify --commitment @/c.json --rows 1 --proof @/p.bin", 0, ""),
        case("verify --commitment @/c.json --lanes 5 --rows 1 --proof @/p.bin", 2, "--lanes 5 disagrees"),
        case("verify --commitment @/junk.bin --rows 1 --proof @/p.bin", 2, "not a commitment file"),
        case("verify --commitment - --rows 1 --proof -", 2, "cannot all read standard input"),
        case("verify --lanes 4 --log-rows 4 --rows 1 --proof @/p.bin", 2, "--commitment"),
        // Positional files: the commitment, then the proof, no more, and not with the flag too.
        case("verify @/c.json @/p.bin --rows 1", 0, ""),
        case("verify @/c.json @/p.bin @/p.bin --rows 1", 2, "no more were expected"),
        case("verify @/c.json --rows 1", 2, "give the proof file"),
        case("verify --rows 1", 2, "give the commitment file"),
        case("verify @/c.json @/p.bin --proof @/p.bin --rows 1", 2, "unexpected file"),
        case("commit @/good.bin --input @/good.bin --lanes 4", 2, "cannot be used with"),
        case("encode --lanes 4 --log-inv-rate 1 --output @/e.bin", 2, "FILE").absent("@/e.bin"),
        case("tune --log-n 10 --lanes 4 --pin sometimes", 2, "invalid value 'sometimes'").absent("@/ntt-tune"),
        case("tune --log-n 10 --lanes 4 --thread-counts 0", 2, "--thread-counts 0").absent("@/ntt-tune"),
        // Wisdom is read only from a small regular file: a FIFO or a device is a warning, not a hang.
        case("plan --log-n 12 --lanes 4 --threads 1", 0, "not a regular file")
            .env("NTT_WISDOM", "@/fifo")
            .within(30),
        case("plan --log-n 12 --lanes 4 --threads 1", 0, "not a regular file")
            .env("NTT_WISDOM", "/dev/zero")
            .within(30),
        case("plan --log-n 12 --lanes 4 --threads 1", 0, "more than the").env("NTT_WISDOM", "@/huge.json"),
        // A typo in the topology source is bad input, as for every NTT_* variable.
        case("plan --log-n 12 --lanes 4 --threads 1", 2, "NTT_TOPOLOGY=\"bogus\": unknown topology source `bogus`").env("NTT_TOPOLOGY", "bogus"),
        // Every NTT_* variable: malformed or not UTF-8 is bad input, named.
        case("commit --input @/good.bin --lanes 4", 2, "NTT_IDLE_SPIN_US=\"abc\"").env("NTT_IDLE_SPIN_US", "abc"),
        case("commit --input @/good.bin --lanes 4", 2, "NTT_IDLE_SPIN_US=\"-1\"").env("NTT_IDLE_SPIN_US", "-1"),
        case("commit --input @/good.bin --lanes 4", 2, "NTT_IDLE_SPIN_US").env("NTT_IDLE_SPIN_US", "18446744073709551616"),
        case("commit --input @/good.bin --lanes 4", 2, "NTT_THREADS=\"\u{fffd}\": not valid UTF-8").env_bytes("NTT_THREADS", b"\xff"),
        case("commit --input @/good.bin --lanes 4", 2, "NTT_BACKEND=\"\u{fffd}\": not valid UTF-8").env_bytes("NTT_BACKEND", b"\xff"),
        case("witness --log-n 4 --output @/wb.bin", 2, "NTT_BACKEND=\"sse9\"").env("NTT_BACKEND", "sse9").absent("@/wb.bin"),
        case("witness --log-n 4 --output @/wb.bin", 2, "NTT_COLUMNS").env_bytes("NTT_COLUMNS", b"line\xff").absent("@/wb.bin"),
        case("plan --log-n 12 --lanes 4 --threads 1", 2, "NTT_TOPOLOGY=\"xml:\u{fffd}\": not valid UTF-8").env_bytes("NTT_TOPOLOGY", b"xml:\xff"),
        case("witness --log-n 4 --output -", 2, "NTT_LOG=\"ntt=loud\": not a tracing filter").env("NTT_LOG", "ntt=loud"),
        case("witness --log-n 4 --output -", 2, "NTT_SOMETHING_NEW").env_bytes("NTT_SOMETHING_NEW", b"\xfe"),
        case("commit --input @/good.bin --lanes 4", 2, "NTT_FIRST_TOUCH=\"bogus\": not a first-touch method").env("NTT_FIRST_TOUCH", "bogus"),
        case("commit --input @/good.bin --lanes 4", 2, "NTT_FIRST_TOUCH=\"POPULATE\"").env("NTT_FIRST_TOUCH", "POPULATE"),
        case("commit --input @/good.bin --lanes 4", 2, "NTT_FIRST_TOUCH=\"1\"").env("NTT_FIRST_TOUCH", "1"),
        case("open --input @/good.bin --lanes 4 --log-inv-rate 1 --rows 1 --output @/pft.bin", 2, "NTT_FIRST_TOUCH=\"passes,write\"")
            .env("NTT_FIRST_TOUCH", "passes,write")
            .absent("@/pft.bin"),
        case("plan --log-n 12 --lanes 4 --threads 1", 2, "NTT_FIRST_TOUCH").env_bytes("NTT_FIRST_TOUCH", b"write\xff"),
        // Synthetic machines above the documented size are refused before hwloc builds them.
        case("topology", 2, "10000000000000 PUs is more than the 8192")
            .env("NTT_TOPOLOGY", "synthetic:pack:100000 core:100000 pu:1000")
            .within(30),
        case("plan --log-n 12 --lanes 4", 2, "4194304 PUs is more than the 8192")
            .env("NTT_TOPOLOGY", "synthetic:pack:64 core:1024 pu:64")
            .within(30),
        case("topology --json", 0, "").env("NTT_TOPOLOGY", "synthetic:pack:4 core:1024 pu:2").within(60),
        // The commitment file: as documented, as earlier releases wrote it, and as now.
        case("verify --commitment @/c-documented.json --rows 1 --proof @/p.bin", 0, ""),
        case("verify --commitment @/c-six-keys.json --rows 1 --proof @/p.bin", 0, ""),
        case("verify --commitment @/c-disagree.json --rows 1 --proof @/p.bin", 2, "disagree"),
        // A key given twice is refused, whichever value another reader would take.
        case("verify --commitment @/c-root-twice.json --rows 1 --proof @/p.bin", 2, "duplicate key `root`"),
        case("verify --commitment @/c-hash-twice.json --rows 1 --proof @/p-rows.bin", 2, "duplicate key `hash`"),
        case("verify --commitment @/c-rows.json --rows 1 --proof @/p-rows.bin", 0, ""),
        // The widest cap open writes (2^16 digests, 4.7 MB) is a commitment file verify reads.
        case(
            "open --input @/w16.bin --lanes 1 --log-inv-rate 1 --tree rows --cap-height 16 --rows 3 --output @/p-cap.bin --commitment @/c-cap.json",
            0,
            "",
        ),
        case("verify --commitment @/c-cap.json --rows 3 --proof @/p-cap.bin", 0, ""),
        // Two outputs on one file, or an output on an input, are refused before anything runs.
        case(
            "open --input @/good.bin --lanes 4 --log-inv-rate 1 --rows 1 --output @/same.bin --commitment @/same.bin",
            2,
            "--output and --commitment name the same file",
        )
        .absent("@/same.bin"),
        case(
            "open --input @/good.bin --lanes 4 --log-inv-rate 1 --rows 1 --output @/p.bin --commitment @/./p.bin",
            2,
            "name the same file",
        )
        .unchanged("@/p.bin"),
        case("encode --input @/good.bin --lanes 4 --log-inv-rate 1 --output @/good.bin", 2, "is the file --input reads")
            .unchanged("@/good.bin"),
        case("encode --input @/good.bin --lanes 4 --log-inv-rate 1 --output @/good-hard.bin", 2, "is the file --input reads")
            .unchanged("@/good.bin"),
        case("encode --input @/good.bin --lanes 4 --log-inv-rate 1 --output @/good-sym.bin", 2, "is the file --input reads")
            .unchanged("@/good.bin"),
        case("commit --input @/good.bin --lanes 4 --save-codeword @/good.bin", 2, "is the file --input reads")
            .unchanged("@/good.bin"),
        case(
            "open --input @/good.bin --lanes 4 --log-inv-rate 1 --rows 1 --output @/good.bin",
            2,
            "is the file --input reads",
        )
        .unchanged("@/good.bin"),
        case("encode --input @/good.bin --lanes 4 --log-inv-rate 1 --output /dev/null", 0, ""),
        case("commit --input @/good.bin --lanes 4 --output @/cc.bin --save-codeword @/cc.bin", 2, "--output and --save-codeword name the same file")
            .absent("@/cc.bin"),
        case("commit --input @/good.bin --lanes 4 --output @/good-sym.bin", 2, "is the file --input reads").unchanged("@/good.bin"),
        case("commit --input @/good.bin --lanes 4 --output - --save-codeword -", 2, "cannot both write standard output"),
        // `commit --output` writes the commitment file `open --commitment` writes.
        case("commit --input @/good.bin --lanes 4 --log-inv-rate 1 --output @/cc.json", 0, ""),
        case("verify --commitment @/cc.json --rows 1 --proof @/p.bin", 0, ""),
        // Outputs: never partial, never half-replaced.
        case(
            "encode --input @/odd.bin --lanes 4 --log-inv-rate 1 --output @/keep.bin",
            2,
            "not a whole number of rows",
        )
        .unchanged("@/keep.bin"),
        case(
            "encode --input @/good.bin --lanes 4 --log-inv-rate 1 --output @/no/such/dir/c.bin",
            3,
            "cannot write `",
        )
        .absent("@/no"),
        case("encode --input @/good.bin --lanes 4 --log-inv-rate 1 --output /dev/full", 3, "cannot write `/dev/full`"),
        case(
            "open --input @/good.bin --lanes 4 --log-inv-rate 1 --rows 1 --output - --commitment -",
            2,
            "cannot both write standard output",
        ),
        case("tune --log-n 10 --output -", 2, "`-` cannot be one"),
        case("tune --log-n 10 --lanes 4 --threads 1 --backends portable,neon --save", 2, "one --backends entry"),
        case("tune --log-n 10 --lanes 4 --threads 1 --backends sse9", 2, "sse9"),
        // A standard output that cannot be written is an I/O failure, reported, not a panic.
        case("commit --input @/good.bin --lanes 4", 3, "cannot write standard output").stdout_full(),
        case("plan --log-n 12 --lanes 4 --threads 1", 3, "cannot write standard output").stdout_full(),
        case("witness --log-n 10 --lanes 4 --output -", 3, "cannot write standard output").stdout_full(),
        case("--version", 3, "").stdout_full(),
        // Shapes: refused before anything is allocated, with a message that names the problem.
        case("commit --input @/good.bin --lanes 4 --log-inv-rate 5", 2, "--allow-large-expansion"),
        case("commit --input @/wide.bin --lanes 64 --log-inv-rate 40", 2, "--allow-large-expansion"),
        case(
            "commit --input @/wide.bin --lanes 64 --log-inv-rate 40 --allow-large-expansion",
            2,
            "of memory, more than",
        ),
        case(
            "open --input @/wide.bin --lanes 64 --log-inv-rate 40 --rows 1 --output @/p40.bin",
            2,
            "--allow-large-expansion",
        )
        .absent("@/p40.bin"),
        case(
            "commit --input @/good.bin --lanes 4 --log-inv-rate 4294967295",
            2,
            "log inverse rate 4294967295",
        ),
        case(
            "commit --input @/good.bin --lanes 4 --log-inv-rate 4294967295 --allow-large-expansion",
            2,
            "more than 2^62 bytes",
        ),
        case(
            "commit --input @/good.bin --lanes 4 --log-inv-rate 58 --allow-large-expansion",
            2,
            "more than 2^62 bytes",
        ),
        case(
            "commit --input @/good.bin --lanes 4 --log-inv-rate 40 --allow-large-expansion",
            2,
            "of memory, more than",
        ),
        case(
            "open --input @/good.bin --lanes 4 --log-inv-rate 40 --allow-large-expansion --rows 1 --output @/p40.bin",
            2,
            "of memory, more than",
        )
        .absent("@/p40.bin"),
        case(
            "encode --input @/good.bin --lanes 4 --log-inv-rate 40 --allow-large-expansion --output @/c40.bin",
            2,
            "of memory, more than",
        )
        .absent("@/c40.bin"),
        case(
            "encode --input @/good.bin --lanes 4 --log-inv-rate 50 --allow-large-expansion --output @/c50.bin",
            2,
            "of memory, more than",
        )
        .absent("@/c50.bin"),
        case("encode --input @/good.bin --lanes 4 --log-inv-rate 50 --output @/c50.bin", 2, "--allow-large-expansion")
            .absent("@/c50.bin"),
        case("tune --log-n 40 --threads 1 --output @/tuned", 2, "of memory, more than").absent("@/tuned"),
        // `tune` takes --allow-large-expansion as `commit` and `plan` do.
        case("tune --log-n 12 --lanes 1 --log-inv-rate 5 --threads 1 --repeat 1 --output @/t5", 2, "--allow-large-expansion")
            .absent("@/t5"),
        case(
            "tune --log-n 12 --lanes 1 --log-inv-rate 5 --allow-large-expansion --threads 1 --repeat 1 --output @/t5",
            0,
            "",
        ),
        // A row tree (64 bytes a row, 8 times a one-lane codeword) that the allocator refuses is
        // a system failure, not an abort: 2^24 rows keep 1 GiB of digests.
        case("commit --input @/w16.bin --lanes 1 --log-inv-rate 8 --allow-large-expansion --tree rows", 3, "cannot allocate the row tree")
            .address_space(1 << 30),
        case(
            "open --input @/w16.bin --lanes 1 --log-inv-rate 8 --allow-large-expansion --tree rows --rows 1 --output @/pt.bin",
            3,
            "cannot allocate the row tree",
        )
        .address_space(1 << 30)
        .absent("@/pt.bin"),
        // Witnesses.
        case("witness --log-n 40 --output @/w40.bin", 2, "--log-n 40").absent("@/w40.bin"),
        case("witness --log-n 10 --lanes 48 --output @/w48.bin", 2, "power of two").absent("@/w48.bin"),
    ]);
    cases
}

#[test]
fn every_bad_input_gets_its_exit_code_and_message() {
    let dir = scratch("table");
    write_witness(&dir.join("odd.bin"), 4 * 8 + 1, 4);
    write_witness(&dir.join("three.bin"), 4 * 3, 5);
    write_witness(&dir.join("good.bin"), 4 * 8, 6);
    write_witness(&dir.join("wide.bin"), 64 * 4, 7);
    write_witness(&dir.join("w16.bin"), 1 << 16, 8);
    std::fs::write(dir.join("ragged.bin"), [0u8; 13]).unwrap();
    std::fs::write(dir.join("junk.bin"), b"not a proof").unwrap();
    std::fs::write(dir.join("keep.bin"), b"the old codeword").unwrap();
    std::fs::write(dir.join("huge.json"), vec![b' '; 2 << 20]).unwrap();
    let fifo = std::ffi::CString::new(dir.join("fifo").to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0, "mkfifo");
    let d = dir.to_str().unwrap();
    let open = ntt(&[
        "open",
        "--input",
        &format!("{d}/good.bin"),
        "--lanes",
        "4",
        "--log-inv-rate",
        "1",
        "--rows",
        "1",
        "--output",
        &format!("{d}/p.bin"),
        "--commitment",
        &format!("{d}/c.json"),
    ]);
    assert!(open.status.success(), "{}", stderr(&open));
    std::fs::hard_link(dir.join("good.bin"), dir.join("good-hard.bin")).unwrap();
    std::os::unix::fs::symlink(dir.join("good.bin"), dir.join("good-sym.bin")).unwrap();
    std::fs::write(dir.join("huge.xml"), vec![b' '; 9 << 20]).unwrap();
    // The commitment file in the forms other releases and the documentation used.
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("c.json")).unwrap()).unwrap();
    let (root, log_rows, lanes) = (&written["root"], &written["log_rows"], &written["lanes"]);
    for (name, file) in [
        (
            "c-documented.json",
            serde_json::json!({"version": 1, "root": root, "log_rows": log_rows, "lanes": lanes}),
        ),
        (
            "c-six-keys.json",
            serde_json::json!({"version": 1, "format_version": 1, "root": root, "log_rows": log_rows, "lanes": lanes, "basis": "polynomial"}),
        ),
        (
            "c-disagree.json",
            serde_json::json!({"version": 2, "format_version": 1, "root": root, "log_rows": log_rows, "lanes": lanes}),
        ),
    ] {
        std::fs::write(dir.join(name), file.to_string()).unwrap();
    }
    // Keys given twice: the real root second, and a row tree's hash as BLAKE3, then Keccak.
    let zeros = "0".repeat(64);
    std::fs::write(
        dir.join("c-root-twice.json"),
        format!(r#"{{"format_version": 1, "root": "{zeros}", "log_rows": {log_rows}, "lanes": {lanes}, "root": {root}}}"#),
    )
    .unwrap();
    let open_rows = ntt(&[
        "open",
        "--input",
        &format!("{d}/good.bin"),
        "--lanes",
        "4",
        "--log-inv-rate",
        "1",
        "--tree",
        "rows",
        "--hash",
        "keccak",
        "--rows",
        "1",
        "--output",
        &format!("{d}/p-rows.bin"),
        "--commitment",
        &format!("{d}/c-rows.json"),
    ]);
    assert!(open_rows.status.success(), "{}", stderr(&open_rows));
    let rows: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("c-rows.json")).unwrap()).unwrap();
    std::fs::write(
        dir.join("c-hash-twice.json"),
        format!(
            r#"{{"format_version": 1, "tree": "rows", "hash": "blake3", "cap_height": 0, "cap": {}, "log_rows": {}, "lanes": {}, "hash": "keccak"}}"#,
            rows["cap"], rows["log_rows"], rows["lanes"]
        ),
    )
    .unwrap();

    for case in cases() {
        // Split first, then substitute, so a directory with spaces stays one argument.
        let args: Vec<String> = case.args.split_whitespace().map(|a| a.replace('@', d)).collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let before: Vec<Vec<u8>> = case
            .unchanged
            .iter()
            .map(|f| std::fs::read(f.replace('@', d)).unwrap())
            .collect();
        let mut cmd = command(&args);
        cmd.current_dir(&dir);
        for (var, value) in &case.env {
            cmd.env(var, value.replace('@', d));
        }
        for (var, value) in &case.env_bytes {
            use std::os::unix::ffi::OsStrExt;
            cmd.env(var, std::ffi::OsStr::from_bytes(value));
        }
        if let Some(bytes) = case.address_space {
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            let set_limit = move || {
                // SAFETY: `limit` is a valid rlimit; setrlimit is async-signal-safe.
                if unsafe { libc::setrlimit(libc::RLIMIT_AS, &limit) } != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            };
            // SAFETY: the hook only calls setrlimit, which is safe between fork and exec.
            unsafe { cmd.pre_exec(set_limit) };
        }
        let out = if case.stdout_full {
            cmd.stdout(std::fs::File::create("/dev/full").unwrap());
            let out = cmd.stderr(std::process::Stdio::piped()).output().unwrap();
            assert_clean_failure(&out, case.code, case.message);
            out
        } else {
            finish(cmd, None, case.within)
        };
        let label = format!("`ntt {}`", case.args);
        if case.code == 0 {
            assert!(out.status.success(), "{label}: {}", stderr(&out));
            assert!(
                stderr(&out).contains(case.message),
                "{label}: stderr lacks `{}`: {}",
                case.message,
                stderr(&out)
            );
        } else {
            assert_clean_failure(&out, case.code, case.message);
            assert!(
                stderr(&out).starts_with("error: ") || stderr(&out).contains("\nerror: "),
                "{label}"
            );
        }
        for file in &case.absent {
            let path = file.replace('@', d);
            assert!(std::fs::metadata(&path).is_err(), "{label} left `{path}`");
        }
        for (file, old) in case.unchanged.iter().zip(before) {
            assert_eq!(
                std::fs::read(file.replace('@', d)).unwrap(),
                old,
                "{label} changed {file}"
            );
        }
        assert_no_temporaries(&dir);
    }
}

/// Many more workers than cores still commit a tiny witness promptly: idle workers probe only
/// their nearest victims and park, so 4096 of them on 2 cores commit 1024 words in about 0.6 s
/// (it took 22 s when every idle worker scanned every deque). The bound leaves room for a
/// loaded machine; the hang timeout is what catches a regression to the old behaviour.
#[test]
fn four_thousand_workers_commit_a_tiny_witness_promptly() {
    let dir = scratch("threads4096");
    let witness = dir.join("w.bin");
    write_witness(&witness, 4 * 256, 6);
    let cmd = command(&[
        "commit",
        "--input",
        s(&witness),
        "--lanes",
        "4",
        "--threads",
        "4096",
    ]);
    let started = std::time::Instant::now();
    let out = finish(cmd, None, Duration::from_secs(30));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
}

/// A row tree counts in the memory check: a codeword that fits, with a tree (8 times a one-lane
/// codeword) that does not, is refused before anything is allocated, both sizes named.
#[test]
fn a_row_tree_that_does_not_fit_is_refused_before_allocating() {
    let Some(available) = ntt_pcs::memory::AvailableMemory::read().bytes() else {
        return; // No memory figures here: the allocator is the only check.
    };
    // The codeword at most a quarter of the memory, codeword and tree more than all of it.
    let log_rows = (20..=ntt_pcs::MAX_LOG_ROWS)
        .find(|&log_rows| (72u64 << log_rows) / 10 > available / 9)
        .expect("a codeword of 2^59 rows does not fit");
    let dir = scratch("row-tree-memory");
    let witness = dir.join("w.bin");
    write_witness(&witness, 1 << 10, 3);
    let rate = (log_rows - 10).to_string();
    let common = [
        "--input",
        s(&witness),
        "--lanes",
        "1",
        "--log-inv-rate",
        &rate,
        "--allow-large-expansion",
        "--tree",
        "rows",
    ];
    let proof = dir.join("p.bin");
    for command in [&["commit"][..], &["open", "--rows", "1", "--output", s(&proof)]] {
        let args: Vec<&str> = command.iter().chain(&common).copied().collect();
        let out = ntt(&args);
        assert_clean_failure(&out, 2, "a codeword with its row tree needs");
        assert!(stderr(&out).contains("available"), "{}", stderr(&out));
    }
    assert!(!proof.exists());
}
