//! Every `ntt` example in README.md runs as written, in order, in a fresh directory.

mod common;

use common::*;

/// The shell block of the README's "The `ntt` command" section.
fn readme_block() -> Vec<String> {
    let readme = include_str!("../../README.md");
    let section = readme
        .split("## The `ntt` command")
        .nth(1)
        .expect("README has a section on the `ntt` command");
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("the section starts with a sh block");
    block.lines().map(str::to_owned).collect()
}

#[test]
fn readme_examples_run_as_written() {
    let dir = scratch("readme");
    let lines = readme_block();
    let mut ran = 0;
    for line in &lines {
        // A comment starts at ` #`; nothing in the examples needs a shell beyond that.
        let command = line.split(" #").next().unwrap_or("").trim();
        if command.is_empty() || command == "cargo build --release -p ntt-cli" {
            continue;
        }
        let args: Vec<&str> = command
            .strip_prefix("./target/release/ntt ")
            .unwrap_or_else(|| panic!("README line is not an ntt command: {line}"))
            .split_whitespace()
            .collect();
        assert!(
            args.iter().all(|a| !a.contains(['<', '>', '[', ']', '|', '$'])),
            "README line is not runnable as written: {line}"
        );
        let mut cmd = command_in(&args, &dir);
        cmd.env("NTT_WISDOM", dir.join("wisdom.json"));
        let out = finish(cmd, None, HANG);
        assert!(out.status.success(), "`{command}` failed: {}", stderr(&out));
        ran += 1;
    }
    assert!(ran >= 8, "only {ran} examples found");
    assert_no_temporaries(&dir);
}

fn command_in(args: &[&str], dir: &std::path::Path) -> std::process::Command {
    let mut cmd = command(args);
    cmd.current_dir(dir);
    cmd
}
