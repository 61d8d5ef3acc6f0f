//! The command line: `ntt commit`'s and `ntt open`'s flags, the same definitions
//! ([`ntt_shell::args`]).

use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};
use ntt_shell::args::{
    CommitmentOutputArgs, DomainArgs, EngineArgs, FileArg, JsonArgs, RowList, TreeArgs, WitnessArgs,
    parse_rows,
};

/// One commitment computed by the ranks of an MPI job: run under `mpirun -np P` (P a power of
/// two); rank 0 prints the root `ntt commit` prints on one machine.
#[derive(Debug, Parser)]
#[command(name = "ntt-mpi", version)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Encode and commit a witness, each rank its share of the codeword.
    #[command(after_help = "Example:\n  \
        mpirun -np 4 ntt-mpi commit --input w.bin --lanes 64 --log-inv-rate 2 --json\n  \
        ntt commit --input w.bin --lanes 64 --log-inv-rate 2          # the same root")]
    Commit(CommitArgs),
    /// Commit, then write a proof for some codeword rows: the bytes `ntt open` writes.
    #[command(after_help = "Example:\n  \
        mpirun -np 4 ntt-mpi open --input w.bin --lanes 64 --log-inv-rate 2 --rows 3,17 --output p.bin --commitment c.json\n  \
        ntt verify --commitment c.json --rows 3,17 --proof p.bin")]
    Open(OpenArgs),
}

/// The witness, the code, the engine and the tree: the flags `commit` and `open` share, the
/// ones `ntt commit` and `ntt open` take ([`ntt_shell::args`]).
#[derive(Debug, Args)]
#[command(mut_arg("input_file", |arg| arg.help(INPUT_HELP)))]
pub(crate) struct JobArgs {
    #[command(flatten)]
    pub witness: WitnessArgs,
    #[command(flatten)]
    pub engine: EngineArgs,
    #[command(flatten)]
    pub domain: DomainArgs,
    #[command(flatten)]
    pub tree: TreeArgs,
    #[command(flatten)]
    pub json: JsonArgs,
}

/// Where `ntt-mpi` differs from `ntt`: every rank reads the witness at offsets.
const INPUT_HELP: &str = "Raw little-endian u64 witness words; every rank reads this path (a \
    shared file system, or the same file on every node). The same as --input";

/// Flags of `ntt-mpi commit`.
#[derive(Debug, Args)]
#[command(mut_arg("output", |arg| arg.help(OUTPUT_HELP)))]
pub(crate) struct CommitArgs {
    #[command(flatten)]
    pub job: JobArgs,
    #[command(flatten)]
    pub output: CommitmentOutputArgs,
    /// Write the codeword (row-major, little-endian u64) to this file, each rank its own byte
    /// range (a shared file system across nodes).
    #[arg(long, value_name = "FILE")]
    pub save_codeword: Option<PathBuf>,
}

/// `ntt commit --output`'s help, but for `-`, which `ntt-mpi` refuses.
const OUTPUT_HELP: &str =
    "Write the commitment file `ntt verify --commitment` reads (as `open --commitment`)";

impl CommitArgs {
    /// Where rank 0 writes the commitment file (`-` is refused before MPI starts).
    pub(crate) fn commitment_file(&self) -> Option<&Path> {
        self.output.output.as_ref().and_then(FileArg::path)
    }
}

/// Flags of `ntt-mpi open`.
#[derive(Debug, Args)]
pub(crate) struct OpenArgs {
    #[command(flatten)]
    pub job: JobArgs,
    /// Codeword rows to open, comma-separated.
    #[arg(long, value_name = "LIST", value_parser = parse_rows)]
    pub rows: RowList,
    /// Where rank 0 writes the proof (the binary format of docs/FORMAT.md).
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Also write the commitment as JSON for `ntt verify --commitment`.
    #[arg(long, value_name = "FILE")]
    pub commitment: Option<PathBuf>,
}

fn is_dash(p: &std::path::Path) -> bool {
    p.as_os_str() == "-"
}

const NO_DASH: &str = "ntt-mpi reads and writes files at offsets on every rank: `-` (standard input or output) is not supported";

/// The flags of `outputs` that are given, with their paths.
fn given<'a>(outputs: &[(&'a str, Option<&'a Path>)]) -> Vec<(&'a str, &'a Path)> {
    outputs
        .iter()
        .filter_map(|&(flag, path)| Some((flag, path?)))
        .collect()
}

impl Command {
    /// The flags both commands share.
    pub(crate) fn job(&self) -> &JobArgs {
        match self {
            Self::Commit(args) => &args.job,
            Self::Open(args) => &args.job,
        }
    }

    /// What clap cannot check: every rank reads and writes files at offsets, so no `-`; no two
    /// outputs on one file, and none on the witness (as `ntt`, [`ntt_shell::refuse_overlaps`]).
    pub(crate) fn check(&self) -> Result<(), String> {
        let outputs = match self {
            Self::Commit(args) => {
                if args.output.output.as_ref().is_some_and(FileArg::is_std) {
                    return Err(NO_DASH.to_owned());
                }
                given(&[
                    ("--output", args.commitment_file()),
                    ("--save-codeword", args.save_codeword.as_deref()),
                ])
            }
            Self::Open(args) => given(&[
                ("--output", Some(args.output.as_path())),
                ("--commitment", args.commitment.as_deref()),
            ]),
        };
        if outputs.iter().any(|(_, path)| is_dash(path)) {
            return Err(NO_DASH.to_owned());
        }
        let input = self.job().check()?;
        ntt_shell::refuse_overlaps(&outputs, &[("--input", input)]).map_err(|e| e.to_string())
    }

    /// Every flag that must be the same on every rank, as `(flag, value)`: all but the witness
    /// (a path on each rank's node, compared by the size of what it names), `--threads` and
    /// `--pin` (each node's own).
    pub(crate) fn agreed_flags(&self) -> Vec<(&'static str, String)> {
        let path = |p: Option<&Path>| p.map_or_else(String::new, |p| p.display().to_string());
        let (name, mut files) = match self {
            Self::Commit(args) => (
                "commit",
                vec![
                    ("--output", path(args.commitment_file())),
                    ("--save-codeword", path(args.save_codeword.as_deref())),
                ],
            ),
            Self::Open(args) => (
                "open",
                vec![
                    ("--rows", format!("{:?}", args.rows.0)),
                    ("--output", path(Some(args.output.as_path()))),
                    ("--commitment", path(args.commitment.as_deref())),
                ],
            ),
        };
        let job = self.job();
        let (w, tree) = (&job.witness, &job.tree);
        let mut flags = vec![
            ("command", name.to_owned()),
            ("--lanes", w.lanes.to_string()),
            ("--log-inv-rate", w.log_inv_rate.to_string()),
            ("--layout", format!("{:?}", w.layout)),
            (
                "--allow-large-expansion",
                w.expansion.allow_large_expansion.to_string(),
            ),
            ("--basis", format!("{:?}", job.domain.basis)),
            ("--tree", format!("{:?}", tree.tree)),
            ("--hash", format!("{:?}", tree.hash)),
            ("--cap-height", format!("{:?}", tree.cap_height)),
            ("--json", job.json.json.to_string()),
        ];
        flags.append(&mut files);
        flags
    }
}

impl JobArgs {
    /// What clap cannot check of the shared flags; the witness's path.
    fn check(&self) -> Result<&Path, String> {
        let Some(input) = self.witness.input().path() else {
            return Err(NO_DASH.to_owned());
        };
        if self.engine.threads == Some(0) {
            return Err("--threads must be at least 1".to_owned());
        }
        self.scheme()?;
        Ok(input)
    }

    /// The witness's path (`-` is refused before MPI starts).
    pub(crate) fn input(&self) -> &Path {
        self.witness.input().path().expect("checked before MPI started")
    }

    /// The scheme `--tree`, `--hash` and `--cap-height` name, or why there is none (bad input).
    pub(crate) fn scheme(&self) -> Result<ntt_pcs::Scheme, String> {
        self.tree.scheme().map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;
    use ntt_shell::args::{PinArg, SHARED_ARGV};

    fn parse(argv: &[&str]) -> Result<Command, clap::Error> {
        Cli::try_parse_from(["ntt-mpi"].iter().chain(argv)).map(|cli| cli.command)
    }

    fn commit(argv: &[&str]) -> CommitArgs {
        match parse(&[&["commit"], argv].concat()).unwrap() {
            Command::Commit(args) => args,
            Command::Open(_) => unreachable!(),
        }
    }

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn short_flags_pin_and_a_positional_witness() {
        let args = commit(&[
            "w.bin",
            "-j",
            "2",
            "--pin",
            "none",
            "--lanes",
            "4",
            "--log-inv-rate",
            "1",
        ]);
        assert_eq!(args.job.input(), Path::new("w.bin"));
        assert_eq!(args.job.engine.threads, Some(2));
        assert_eq!(args.job.engine.pin, Some(PinArg::None));
        assert_eq!(
            args.job.engine.pin_policy().unwrap(),
            Some(ntt_runtime::PinPolicy::None)
        );
        for input in [["--input", "w.bin"], ["-i", "w.bin"]] {
            let args = commit(&[&input[..], &["--lanes", "4", "--log-inv-rate", "1"]].concat());
            assert_eq!(args.job.input(), Path::new("w.bin"));
            assert_eq!(args.job.engine.threads, None);
        }
        let both = [
            "commit",
            "w.bin",
            "--input",
            "w.bin",
            "--lanes",
            "4",
            "--log-inv-rate",
            "1",
        ];
        assert!(parse(&both).is_err());
        let none = ["commit", "--lanes", "4", "--log-inv-rate", "1"];
        assert!(parse(&none).is_err());
    }

    #[test]
    fn the_flags_are_ntts() {
        let command = Cli::command();
        for name in ["commit", "open"] {
            let sub = command.find_subcommand(name).unwrap();
            let flags = ntt_shell::args::flags_of(sub);
            for flag in ntt_shell::args::shared_flags() {
                assert!(flags.contains(&flag), "ntt-mpi {name} lacks {flag}");
            }
        }
        let args = commit(SHARED_ARGV);
        assert_eq!(args.job.input(), Path::new("w.bin"));
        assert_eq!(args.job.engine.threads, Some(2));
        assert_eq!(args.job.engine.pin, Some(PinArg::Pus));
        assert_eq!(args.commitment_file(), Some(Path::new("c.json")));
        assert_eq!(
            args.job.tree.scheme().unwrap(),
            ntt_pcs::Scheme::rows(ntt_pcs::HashKind::Keccak, 1).unwrap()
        );
        let shared = &SHARED_ARGV[..SHARED_ARGV.len() - 2];
        let open = parse(&[&["open"], shared, &["--rows", "3,17", "-o", "p.bin"]].concat()).unwrap();
        let Command::Open(args) = &open else {
            unreachable!()
        };
        assert_eq!(args.output, Path::new("p.bin"));
        assert_eq!(args.rows, RowList(vec![3, 17]));
        open.check().unwrap();
    }

    #[test]
    fn threads_and_pin_are_each_nodes_own() {
        let base = ["commit", "w.bin", "--lanes", "4", "--log-inv-rate", "1"];
        let tuned = parse(&[&base[..], &["-j", "3", "--pin", "cores"]].concat()).unwrap();
        let other_input = parse(&["commit", "-i", "v.bin", "--lanes", "4", "--log-inv-rate", "1"]).unwrap();
        let plain = parse(&base).unwrap();
        assert_eq!(tuned.agreed_flags(), plain.agreed_flags());
        assert_eq!(other_input.agreed_flags(), plain.agreed_flags());
        let keccak = parse(&[&base[..], &["--tree", "rows", "--hash", "keccak"]].concat()).unwrap();
        assert_ne!(keccak.agreed_flags(), plain.agreed_flags());
    }

    #[test]
    fn what_clap_cannot_check() {
        let check = |argv: &[&str]| parse(argv).unwrap().check();
        let shape = ["--lanes", "4", "--log-inv-rate", "1"];
        assert!(check(&[&["commit", "w.bin"], &shape[..]].concat()).is_ok());
        for bad in [
            &["commit", "-"][..],
            &["commit", "w.bin", "-o", "-"],
            &["commit", "w.bin", "--save-codeword", "-"],
            &["commit", "w.bin", "-j", "0"],
            &["commit", "w.bin", "--hash", "keccak"],
            &["commit", "w.bin", "-o", "w.bin"],
            &["commit", "w.bin", "-o", "c.json", "--save-codeword", "c.json"],
        ] {
            let err = check(&[bad, &shape[..]].concat()).unwrap_err();
            assert!(!err.is_empty(), "{bad:?}");
        }
        let dash = check(&[&["commit", "w.bin", "-o", "-"][..], &shape[..]].concat()).unwrap_err();
        assert_eq!(dash, NO_DASH);
    }

    #[test]
    fn the_help_says_every_rank_reads_the_witness() {
        let mut command = Cli::command();
        let help = command
            .find_subcommand_mut("commit")
            .unwrap()
            .render_help()
            .to_string();
        assert!(help.contains("every rank reads this path"), "{help}");
        assert!(!help.contains("`-` for standard output"), "{help}");
    }
}
