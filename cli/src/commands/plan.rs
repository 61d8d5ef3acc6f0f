//! `ntt plan`: explain the plan the engine would run for a shape.

use crate::args::{EngineArgs, ExpansionArgs, JsonArgs, Layout};
use crate::error::CliError;
use crate::{engine, files, report};
use clap::Args;
use ntt_pcs::{Expansion, Shape};

/// Flags of `ntt plan`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    ntt plan --log-n 24 --lanes 64 --log-inv-rate 1 --threads 2\n  \
    ntt plan --log-n 28 --lanes 64 --log-inv-rate 2 --json")]
pub struct PlanArgs {
    /// Log2 of the witness size in words.
    #[arg(long, value_name = "N")]
    log_n: u32,
    /// Lanes per row (a power of two no larger than 2^log-n).
    #[arg(long, value_name = "N", default_value_t = 64)]
    lanes: usize,
    /// Log2 of the inverse code rate.
    #[arg(long, value_name = "R", default_value_t = 1)]
    log_inv_rate: u32,
    /// Arrangement of the witness words.
    #[arg(long, value_enum, default_value_t = Layout::Lanes)]
    layout: Layout,
    #[command(flatten)]
    expansion: ExpansionArgs,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    json: JsonArgs,
}

/// The codeword shape of a `2^log_n`-word witness in `lanes` lanes (the library's limits).
pub fn shape_for(
    log_n: u32,
    lanes: usize,
    log_inv_rate: u32,
    expansion: Expansion,
) -> Result<Shape, CliError> {
    if !lanes.is_power_of_two() || lanes.trailing_zeros() > log_n {
        return Err(CliError::Input(format!(
            "--lanes {lanes} must be a power of two no larger than 2^{log_n} so that the rows come out whole"
        )));
    }
    Ok(Shape::for_message(
        log_n - lanes.trailing_zeros(),
        lanes,
        log_inv_rate,
        expansion,
    )?)
}

pub fn run(args: PlanArgs) -> Result<(), CliError> {
    let shape = shape_for(
        args.log_n,
        args.lanes,
        args.log_inv_rate,
        args.expansion.expansion(),
    )?;
    let engine = engine::engine(args.engine.threads)?;
    let plan = engine.encoder.plan(shape, args.layout.into());
    let text = if args.json.json {
        let mut value = serde_json::to_value(&plan)?;
        report::workers_as_threads(&mut value);
        if let Some(object) = value.as_object_mut() {
            object.insert("wisdom".to_owned(), serde_json::to_value(&engine.wisdom)?);
        }
        report::json(&value)?
    } else {
        format!("{plan}\nwisdom: {}\n", engine.wisdom)
    };
    files::print(&text)
}
