//! The command line: `ntt commit`'s flags, the same names and meanings.

use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand, ValueEnum};
use ntt_pcs::{Basis, Domain, Expansion, HashKind, MessageLayout, Scheme, TreeKind};

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

/// How the witness words are arranged (as `ntt commit --layout`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Layout {
    /// Lane-major: lane t is the contiguous block t of the witness.
    Lanes,
    /// Row-major: word `row·lanes + lane`.
    Rows,
}

/// The evaluation domain's basis (as `ntt commit --basis`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum BasisArg {
    /// β_j = x^j: row k is evaluated at the integer k.
    Polynomial,
    /// The Cantor basis: Plonky3's additive NTT domain.
    Cantor,
}

/// The commitment's tree (as `ntt commit --tree`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum TreeArg {
    /// BLAKE3's own tree over the codeword bytes (root = `b3sum` of the codeword).
    Chunks,
    /// One leaf per codeword row: Plonky3's `MerkleTreeMmcs` of the codeword as a matrix.
    Rows,
}

/// A row tree's hash (as `ntt commit --hash`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum HashArg {
    /// BLAKE3.
    Blake3,
    /// Keccak-256.
    Keccak,
}

/// The witness, the code and the engine: the flags `commit` and `open` share.
#[derive(Debug, Args)]
pub(crate) struct WitnessArgs {
    /// Raw little-endian u64 witness words; every rank reads this path (a shared file system, or
    /// the same file on every node).
    #[arg(long, value_name = "FILE")]
    pub input: PathBuf,
    /// Lanes (independent codewords) per row.
    #[arg(long, value_name = "N")]
    pub lanes: usize,
    /// Log2 of the inverse code rate (1 = rate 1/2).
    #[arg(long, value_name = "R")]
    pub log_inv_rate: u32,
    /// Arrangement of the witness words.
    #[arg(long, value_enum, default_value_t = Layout::Lanes)]
    pub layout: Layout,
    /// Allow a log inverse rate above 4 (a codeword more than 16 times the witness).
    #[arg(long)]
    pub allow_large_expansion: bool,
    /// Basis of the evaluation domain.
    #[arg(long, value_enum, default_value_t = BasisArg::Polynomial)]
    pub basis: BasisArg,
    /// Merkle tree of the commitment [default: chunks].
    #[arg(long, value_enum, value_name = "TREE")]
    pub tree: Option<TreeArg>,
    /// Hash of a row tree [default: blake3]; the chunk tree is BLAKE3 only.
    #[arg(long, value_enum, value_name = "HASH")]
    pub hash: Option<HashArg>,
    /// Levels of a row tree left open at the top: the commitment is the 2^N digests there
    /// [default: 0, a single root].
    #[arg(long, value_name = "N")]
    pub cap_height: Option<u32>,
    /// Worker threads per rank (default: `NTT_THREADS`, else one per core the rank may use).
    #[arg(long, value_name = "T")]
    pub threads: Option<usize>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Flags of `ntt-mpi commit`.
#[derive(Debug, Args)]
pub(crate) struct CommitArgs {
    #[command(flatten)]
    pub witness: WitnessArgs,
    /// Write the commitment (root, log-rows, lanes, basis) as JSON for `ntt verify --commitment`.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Write the codeword (row-major, little-endian u64) to this file, each rank its own byte
    /// range (a shared file system across nodes).
    #[arg(long, value_name = "FILE")]
    pub save_codeword: Option<PathBuf>,
}

/// Flags of `ntt-mpi open`.
#[derive(Debug, Args)]
pub(crate) struct OpenArgs {
    #[command(flatten)]
    pub witness: WitnessArgs,
    /// Codeword rows to open, comma-separated.
    #[arg(long, value_name = "LIST", value_parser = parse_rows)]
    pub rows: RowList,
    /// Where rank 0 writes the proof (the binary format of docs/FORMAT.md).
    #[arg(long, value_name = "FILE")]
    pub output: PathBuf,
    /// Also write the commitment as JSON for `ntt verify --commitment`.
    #[arg(long, value_name = "FILE")]
    pub commitment: Option<PathBuf>,
}

/// Row indices given as `3,17,4`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RowList(pub Vec<u64>);

fn parse_rows(list: &str) -> Result<RowList, String> {
    let rows = list
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<u64>().map_err(|_| format!("`{s}` is not a row index")))
        .collect::<Result<Vec<_>, _>>()?;
    if rows.is_empty() {
        return Err("no row indices given".to_owned());
    }
    Ok(RowList(rows))
}

fn is_dash(p: &std::path::Path) -> bool {
    p.as_os_str() == "-"
}

const NO_DASH: &str = "ntt-mpi reads and writes files at offsets on every rank: `-` (standard input or output) is not supported";

/// The flags of `outputs` that are given, with their paths.
fn given<'a>(outputs: &[(&'a str, Option<&'a PathBuf>)]) -> Vec<(&'a str, &'a Path)> {
    outputs
        .iter()
        .filter_map(|&(flag, path)| Some((flag, path?.as_path())))
        .collect()
}

impl Command {
    /// What clap cannot check: every rank reads and writes files at offsets, so no `-`; no two
    /// outputs on one file, and none on the witness (as `ntt`, [`ntt_shell::refuse_overlaps`]).
    pub(crate) fn check(&self) -> Result<(), String> {
        let (witness, outputs) = match self {
            Self::Commit(args) => (
                &args.witness,
                given(&[
                    ("--output", args.output.as_ref()),
                    ("--save-codeword", args.save_codeword.as_ref()),
                ]),
            ),
            Self::Open(args) => (
                &args.witness,
                given(&[
                    ("--output", Some(&args.output)),
                    ("--commitment", args.commitment.as_ref()),
                ]),
            ),
        };
        if outputs.iter().any(|(_, path)| is_dash(path)) {
            return Err(NO_DASH.to_owned());
        }
        witness.check()?;
        ntt_shell::refuse_overlaps(&outputs, &[("--input", &witness.input)]).map_err(|e| e.to_string())
    }

    /// Every flag that must be the same on every rank, as `(flag, value)`: all but `--input`
    /// (a path on each rank's node, compared by the size of what it names) and `--threads`
    /// (each node's own).
    pub(crate) fn agreed_flags(&self) -> Vec<(&'static str, String)> {
        let path = |p: Option<&PathBuf>| p.map_or_else(String::new, |p| p.display().to_string());
        let (name, witness, mut files) = match self {
            Self::Commit(args) => (
                "commit",
                &args.witness,
                vec![
                    ("--output", path(args.output.as_ref())),
                    ("--save-codeword", path(args.save_codeword.as_ref())),
                ],
            ),
            Self::Open(args) => (
                "open",
                &args.witness,
                vec![
                    ("--rows", format!("{:?}", args.rows.0)),
                    ("--output", path(Some(&args.output))),
                    ("--commitment", path(args.commitment.as_ref())),
                ],
            ),
        };
        let w = witness;
        let mut flags = vec![
            ("command", name.to_owned()),
            ("--lanes", w.lanes.to_string()),
            ("--log-inv-rate", w.log_inv_rate.to_string()),
            ("--layout", format!("{:?}", w.layout)),
            ("--allow-large-expansion", w.allow_large_expansion.to_string()),
            ("--basis", format!("{:?}", w.basis)),
            ("--tree", format!("{:?}", w.tree)),
            ("--hash", format!("{:?}", w.hash)),
            ("--cap-height", format!("{:?}", w.cap_height)),
            ("--json", w.json.to_string()),
        ];
        flags.append(&mut files);
        flags
    }
}

impl WitnessArgs {
    fn check(&self) -> Result<(), String> {
        if is_dash(&self.input) {
            return Err(NO_DASH.to_owned());
        }
        if self.threads == Some(0) {
            return Err("--threads must be at least 1".to_owned());
        }
        self.scheme().map(|_| ())
    }

    /// The scheme `--tree`, `--hash` and `--cap-height` name, or why there is none.
    pub(crate) fn scheme(&self) -> Result<Scheme, String> {
        let tree = match self.tree {
            Some(TreeArg::Rows) => TreeKind::Rows,
            Some(TreeArg::Chunks) | None => TreeKind::Chunks,
        };
        let hash = match self.hash {
            Some(HashArg::Keccak) => HashKind::Keccak,
            Some(HashArg::Blake3) | None => HashKind::Blake3,
        };
        let cap_height = self.cap_height.unwrap_or(0);
        Scheme::new(tree, hash, cap_height)
            .map_err(|e| format!("--tree {tree} --hash {hash} --cap-height {cap_height}: {e}"))
    }

    pub(crate) fn layout(&self) -> MessageLayout {
        match self.layout {
            Layout::Lanes => MessageLayout::Lanes,
            Layout::Rows => MessageLayout::Rows,
        }
    }

    pub(crate) fn layout_name(&self) -> &'static str {
        match self.layout {
            Layout::Lanes => "lanes",
            Layout::Rows => "rows",
        }
    }

    pub(crate) fn domain(&self) -> Domain {
        Domain::new(match self.basis {
            BasisArg::Polynomial => Basis::Polynomial,
            BasisArg::Cantor => Basis::Cantor,
        })
    }

    pub(crate) fn expansion(&self) -> Expansion {
        if self.allow_large_expansion {
            Expansion::Unbounded
        } else {
            Expansion::Bounded
        }
    }
}
