//! `ntt verify`: check an opening proof against a commitment and print the opened rows.

use crate::error::CliError;
use crate::files::{self, FileArg};
use crate::{commitment_file, input, memory, report};
use clap::Args;
use ntt_pcs::{Commitment, Proof, VerifyError};
use ntt_shell::args::{JsonArgs, TreeArgs};
use serde::Serialize;
use std::fmt::Write as _;

/// Flags of `ntt verify`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    ntt verify c.json p.bin --rows 3,17         # as --commitment c.json --proof p.bin\n  \
    ntt verify --root 5e1f...c3 --lanes 64 --log-rows 17 --rows 3,17 --proof p.bin\n  \
    ntt verify --root 9a0c...41 --tree rows --hash keccak --lanes 64 --log-rows 17 --rows 3 --proof p.bin\n\
The root does not bind the shape: take --lanes and --log-rows (or the commitment file) from a\n\
source you trust, not from the prover.\n\
Exit status: 0 when the proof holds, 1 when it does not, 2 for bad input.")]
pub(crate) struct VerifyArgs {
    /// The commitment file, then the proof file, in place of --commitment and --proof (with
    /// --root, or with one of those flags given, the one file left).
    #[arg(value_name = "FILE", num_args = 0..=2)]
    files: Vec<FileArg>,
    /// The commitment as JSON (`ntt open --commitment`); `-` reads standard input. Given with
    /// --lanes or --log-rows, those must agree with it.
    #[arg(long, value_name = "FILE")]
    commitment: Option<FileArg>,
    /// The commitment root, 64 hex digits.
    #[arg(long, value_name = "HEX", value_parser = input::parse_root, conflicts_with = "commitment")]
    root: Option<[u8; 32]>,
    /// Lanes per row.
    #[arg(long, value_name = "N")]
    lanes: Option<usize>,
    /// Log2 of the codeword row count.
    #[arg(long, value_name = "D")]
    log_rows: Option<u32>,
    /// The opened rows, comma-separated, as given to `ntt open`.
    #[arg(long, value_name = "LIST", value_parser = ntt_shell::args::parse_rows)]
    rows: ntt_shell::args::RowList,
    /// The proof file written by `ntt open`; `-` reads standard input.
    #[arg(long, value_name = "FILE")]
    proof: Option<FileArg>,
    /// The tree of a commitment given by --root (a cap of several digests needs --commitment);
    /// given with --commitment, these must agree with it.
    #[command(flatten)]
    tree: TreeArgs,
    #[command(flatten)]
    json: JsonArgs,
}

#[derive(Serialize)]
struct Report {
    holds: bool,
    root: String,
    log_rows: u32,
    lanes: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    rows: Vec<OpenedRow>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

#[derive(Serialize)]
struct OpenedRow {
    index: usize,
    /// The row's words as 16 hex digits each.
    words: Vec<String>,
}

pub(crate) fn run(mut args: VerifyArgs) -> Result<(), CliError> {
    let proof = place_files(&mut args)?;
    files::one_stdin(&[
        ("--commitment", args.commitment.as_ref()),
        ("--proof", Some(&proof)),
    ])?;
    let commitment = trusted_commitment(&args)?;
    let rows = &args.rows.0;
    check_arguments(&commitment, rows)?;
    let bytes = files::read_bounded(
        &proof,
        max_proof_bytes(&commitment, rows.len()).min(memory::available_bytes().unwrap_or(u64::MAX)),
        &format!(
            "an opening of {} of 2^{} rows x {}",
            report::count(rows.len(), "row"),
            commitment.log_rows(),
            report::count(commitment.lanes(), "lane")
        ),
    )?;
    // Checking it is the library's `verify` span (NTT_LOG=info); decoding is this one.
    let opening =
        tracing::debug_span!("decode_proof", bytes = bytes.len()).in_scope(|| Proof::from_bytes(&bytes))?;
    let mut report = Report {
        holds: false,
        root: commitment.root_hex(),
        log_rows: commitment.log_rows(),
        lanes: commitment.lanes(),
        rows: Vec::new(),
        reason: None,
    };
    let verified = ntt_pcs::verify(&commitment, rows, &opening);
    let opened = match verified {
        Ok(opened) => opened,
        Err(e) => {
            let err = argument_error(e);
            if args.json.json && err.exit_code() == crate::error::EXIT_REJECTED {
                report.reason = Some(err.to_string());
                files::print(&report::json(&report)?)?;
            }
            return Err(err);
        }
    };
    report.holds = true;
    report.rows = rows
        .iter()
        .zip(&opened)
        .map(|(&index, row)| OpenedRow {
            index,
            words: row.iter().map(|w| format!("{w:016x}")).collect(),
        })
        .collect();
    let text = if args.json.json {
        report::json(&report)?
    } else {
        let mut out = format!("proof holds for {}\n", report::count(report.rows.len(), "row"));
        for row in &report.rows {
            let _ = writeln!(out, "row {}: {}", row.index, row.words.join(" "));
        }
        out
    };
    files::print(&text)
}

/// Moves the positional files into the places --commitment (unless --root is given) and
/// --proof leave open, in that order, and returns the proof file.
fn place_files(args: &mut VerifyArgs) -> Result<FileArg, CliError> {
    let mut files = std::mem::take(&mut args.files).into_iter();
    if args.commitment.is_none() && args.root.is_none() {
        args.commitment = files.next();
    }
    if args.proof.is_none() {
        args.proof = files.next();
    }
    if let Some(extra) = files.next() {
        return Err(CliError::Input(format!(
            "unexpected file `{extra}`: the commitment and the proof are already given"
        )));
    }
    if args.commitment.is_none() && args.root.is_none() {
        return Err(CliError::Input(
            "give the commitment file (FILE or --commitment), or --root with --lanes and --log-rows"
                .to_owned(),
        ));
    }
    args.proof
        .clone()
        .ok_or_else(|| CliError::Input("give the proof file (FILE or --proof)".to_owned()))
}

/// The commitment from the file or the flags; flags given with a file must agree with it.
fn trusted_commitment(args: &VerifyArgs) -> Result<Commitment, CliError> {
    let Some(arg) = &args.commitment else {
        let (Some(root), Some(lanes), Some(log_rows)) = (args.root, args.lanes, args.log_rows) else {
            return Err(CliError::Input(
                "give --commitment FILE, or --root with --lanes and --log-rows".to_owned(),
            ));
        };
        // The shape is an argument: outside the limits it is bad input, not a rejected proof.
        if lanes == 0 {
            return Err(CliError::Input("--lanes must be at least 1".to_owned()));
        }
        let shape = ntt_pcs::CodewordShape::new(log_rows, lanes)
            .map_err(|e| CliError::Input(format!("--log-rows {log_rows} with --lanes {lanes}: {e}")))?;
        let scheme = args.tree.scheme()?;
        if scheme.cap_len(log_rows) > 1 {
            return Err(CliError::Input(format!(
                "a cap of height {} has {} digests: give the commitment file (--commitment), not --root",
                scheme.cap_height(),
                scheme.cap_len(log_rows)
            )));
        }
        return Commitment::with_cap(scheme, vec![root], shape)
            .map_err(|e| CliError::Internal(e.to_string()));
    };
    let commitment = commitment_file::read(arg)?;
    if args.tree.given() {
        let scheme = args.tree.scheme()?;
        if scheme != commitment.scheme() {
            return Err(CliError::Input(format!(
                "--tree/--hash/--cap-height name a {scheme}; {} is a {}",
                arg.source_name(),
                commitment.scheme()
            )));
        }
    }
    let disagree = |flag: &str, given: String, found: String| {
        CliError::Input(format!(
            "{flag} {given} disagrees with {} ({found})",
            arg.source_name()
        ))
    };
    if let Some(lanes) = args.lanes.filter(|&l| l != commitment.lanes()) {
        return Err(disagree(
            "--lanes",
            lanes.to_string(),
            report::count(commitment.lanes(), "lane"),
        ));
    }
    if let Some(log_rows) = args.log_rows.filter(|&d| d != commitment.log_rows()) {
        return Err(disagree(
            "--log-rows",
            log_rows.to_string(),
            format!("2^{} rows", commitment.log_rows()),
        ));
    }
    Ok(commitment)
}

/// The shape and rows must describe a codeword that can exist before any proof is read: these
/// are the verifier's own arguments, so a mistake in them is bad input (2), not a rejection (1).
fn check_arguments(c: &Commitment, rows: &[usize]) -> Result<(), CliError> {
    if c.lanes() == 0 {
        return Err(CliError::Input("--lanes must be at least 1".to_owned()));
    }
    // The library's one set of codeword limits.
    ntt_pcs::CodewordShape::new(c.log_rows(), c.lanes()).map_err(|e| {
        CliError::Input(format!(
            "--log-rows {} with --lanes {}: {e}",
            c.log_rows(),
            c.lanes()
        ))
    })?;
    let n_rows = 1u64 << c.log_rows();
    if let Some(&row) = rows.iter().find(|&&r| r as u64 >= n_rows) {
        return Err(CliError::Input(format!(
            "--rows: row {row} is past the end of a codeword of 2^{} = {n_rows} rows",
            c.log_rows()
        )));
    }
    Ok(())
}

/// Verifier errors about its own arguments are bad input; the rest say the proof does not hold.
fn argument_error(e: VerifyError) -> CliError {
    match e {
        VerifyError::NoRows | VerifyError::RowOutOfRange { .. } => {
            CliError::Input(format!("bad verifier arguments: {e}"))
        }
        other => CliError::Verify(other),
    }
}

/// The largest proof an opening of `q` rows of this codeword can be (docs/FORMAT.md): the
/// header, the row indices, the chunks covering each row (a row plus at most one partial chunk on
/// each side), and at most two sibling chaining values per tree level per row (a row tree's
/// opening, each row plus one digest per level, is smaller).
fn max_proof_bytes(c: &Commitment, q: usize) -> u64 {
    const HEADER: u128 = 44;
    const CHUNK: u128 = 1024;
    const MAX_LEVELS: u128 = 64;
    let q = q as u128;
    let row_bytes = c.lanes() as u128 * 8;
    let codeword = (1u128 << c.log_rows().min(63)) * row_bytes;
    let chunks = (q * (row_bytes + 2 * CHUNK)).min(codeword);
    let siblings = q * 2 * MAX_LEVELS * 32;
    u64::try_from(HEADER + 8 * q + chunks + siblings).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_honest_proof_fits_the_bound() {
        let words: Vec<u64> = (0..7u64 << 7)
            .map(|w| w.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        let (commitment, prover) = ntt_pcs::commit_codeword(words, 7).unwrap();
        let rows = [3, 127, 0, 3, 64];
        let proof = prover.open(&rows).unwrap().to_bytes();
        assert!(proof.len() as u64 <= max_proof_bytes(&commitment, rows.len()));
        assert!(max_proof_bytes(&commitment, 1) < 1 << 20);
    }

    #[test]
    fn impossible_shapes_and_rows_are_argument_errors() {
        // Shapes outside the limits cannot make a commitment at all.
        assert!(ntt_pcs::CodewordShape::new(4, 0).is_err());
        assert!(ntt_pcs::CodewordShape::new(64, 1).is_err());
        assert!(ntt_pcs::CodewordShape::new(60, 8).is_err());
        let c = |log_rows, lanes| {
            Commitment::new(
                [0; 32],
                ntt_pcs::CodewordShape::new(log_rows, lanes).expect("valid"),
            )
        };
        assert!(check_arguments(&c(4, 2), &[16]).is_err());
        assert!(check_arguments(&c(4, 2), &[15]).is_ok());
    }
}
