//! `ntt open`: commit to a witness and write a proof for some of its codeword rows.

use crate::error::CliError;
use crate::files::{self, FileArg};
use crate::{commitment_file, engine, input, report};
use clap::Args;
use ntt_pcs::CommitParams;
use ntt_shell::args::{DomainArgs, EngineArgs, JsonArgs, TreeArgs, WitnessArgs};
use serde::Serialize;

/// Flags of `ntt open`.
#[derive(Debug, Args)]
#[command(after_help = "Example:\n  \
    ntt open --input w.bin --lanes 64 --log-inv-rate 1 --rows 3,17 --output p.bin --commitment c.json\n  \
    ntt verify --commitment c.json --rows 3,17 --proof p.bin
  \
    ntt open --input w.bin --lanes 64 --log-inv-rate 1 --rows 3,17 --tree rows --hash keccak --output p.bin --commitment c.json")]
pub(crate) struct OpenArgs {
    #[command(flatten)]
    witness: WitnessArgs,
    /// Codeword rows to open, comma-separated.
    #[arg(long, value_name = "LIST", value_parser = ntt_shell::args::parse_rows)]
    rows: ntt_shell::args::RowList,
    /// Where to write the proof (the binary format of docs/FORMAT.md); `-` for standard output
    /// (the report then goes to standard error).
    #[arg(short, long, value_name = "FILE")]
    output: FileArg,
    /// Also write the commitment (root or cap, log-rows, lanes, tree) as JSON for `ntt verify --commitment`.
    #[arg(long, value_name = "FILE")]
    commitment: Option<FileArg>,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    domain: DomainArgs,
    #[command(flatten)]
    tree: TreeArgs,
    #[command(flatten)]
    json: JsonArgs,
}

#[derive(Serialize)]
struct Report {
    root: String,
    tree: ntt_pcs::TreeKind,
    hash: ntt_pcs::HashKind,
    cap_height: u32,
    cap: Vec<String>,
    basis: ntt_pcs::BasisName,
    log_rows: u32,
    lanes: usize,
    log_inv_rate: u32,
    rows: Vec<usize>,
    threads: usize,
    /// How the workers are pinned: none, cores or pus.
    pin: &'static str,
    proof_bytes: usize,
    output: String,
    commitment: Option<String>,
}

pub(crate) fn run(args: OpenArgs) -> Result<(), CliError> {
    let scheme = args.tree.scheme()?;
    let w = &args.witness;
    files::distinct(
        &[
            ("--output", Some(&args.output)),
            ("--commitment", args.commitment.as_ref()),
        ],
        &[("--input", Some(w.input()))],
    )?;
    let witness = input::read_words(w.input())?;
    let committer =
        engine::committer_on(args.engine, args.domain.domain())?.with_expansion(w.expansion.expansion());
    let (commitment, data) = committer.commit(
        &witness,
        CommitParams::lanes(w.lanes)
            .log_inv_rate(w.log_inv_rate)
            .layout(w.layout.into())
            .scheme(scheme),
    )?;
    let proof = data.open(&args.rows.0)?.to_bytes();
    files::write_bytes(&args.output, &proof)?;
    if let Some(arg) = &args.commitment {
        commitment_file::write(arg, &commitment)?;
    }
    let report = Report {
        root: commitment.root_hex(),
        tree: scheme.tree(),
        hash: scheme.hash(),
        cap_height: scheme.cap_height(),
        cap: commitment.cap_hex(),
        basis: commitment.basis(),
        log_rows: commitment.log_rows(),
        lanes: commitment.lanes(),
        log_inv_rate: w.log_inv_rate,
        rows: args.rows.0.clone(),
        threads: committer.encoder().pool().num_workers(),
        pin: committer.encoder().pool().pin_policy().name(),
        proof_bytes: proof.len(),
        output: args.output.to_string(),
        commitment: args.commitment.as_ref().map(ToString::to_string),
    };
    let text = if args.json.json {
        report::json(&report)?
    } else {
        format!(
            "root      {}\nlog-rows  {}\nlanes     {}\nbasis     {}\n",
            report.root, report.log_rows, report.lanes, report.basis
        )
    };
    let stdout_taken = args.output.is_std() || args.commitment.as_ref().is_some_and(FileArg::is_std);
    if stdout_taken {
        eprint!("{text}");
        Ok(())
    } else {
        files::print(&text)
    }
}
