//! Command-line arguments of the throughput binary.

use clap::Parser;
use ntt_benches::{BenchShape, ShapeError};

/// Commit, encode and hashing throughput of ntt-engine, the machine's physical limits, and the
/// baselines (p3-binary-dft, rayon + BLAKE3) side by side. Medians of `--repeat` runs.
#[derive(Debug, Parser)]
#[command(name = "throughput")]
pub(crate) struct Args {
    /// Print one JSON document instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Also write the JSON document to this file (the tables still print).
    #[arg(long)]
    pub save: Option<std::path::PathBuf>,
    /// Draw the plots (baselines, bound, scaling; SVG and PNG) into this directory.
    #[arg(long, value_name = "DIR")]
    pub plot: Option<std::path::PathBuf>,
    /// Measure nothing: draw the plots of a document saved with `--save` or `--json`
    /// (needs `--plot`).
    #[arg(long, value_name = "FILE", requires = "plot")]
    pub from: Option<std::path::PathBuf>,
    /// A line printed under each plot's title beside the machine (say what the run was on).
    #[arg(long, value_name = "TEXT", default_value = "")]
    pub plot_note: String,
    /// Witness sizes as log2(words): `20..24` and `20..=24` are both inclusive, or a list `20,22`.
    #[arg(long, default_value = "20..22", value_parser = parse_list)]
    pub log_n: List,
    /// Rates as log2(1/rate): `1` is rate 1/2, `2` is rate 1/4.
    #[arg(long, default_value = "1,2", value_parser = parse_list)]
    pub log_inv_rate: List,
    /// Sizes as log2(message rows per lane) instead of `--log-n`: the witness is
    /// `lanes · 2^rows` words, so any lane count fits (`--lanes 24 --log-rows 12..17`).
    #[arg(long, value_parser = parse_list)]
    pub log_rows: Option<List>,
    /// Lanes per codeword row: any count from 1 (with `--log-n`, one that splits every size into
    /// a power-of-two number of rows; otherwise give `--log-rows`).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..))]
    pub lanes: u32,
    /// Worker counts; 0 means every core.
    #[arg(long, default_value = "1,0", value_parser = parse_list)]
    pub workers: List,
    /// Timed runs per figure (after one warm-up run).
    #[arg(long, default_value_t = 5)]
    pub repeat: usize,
    /// Skip the physical limits.
    #[arg(long)]
    pub no_limits: bool,
    /// Bytes of the memory-bandwidth buffers, in MiB (keep it well above the last-level cache).
    #[arg(long, default_value_t = 1024)]
    pub bandwidth_mib: usize,
    /// Witness sizes (log2 words) of the baseline comparison at rate 1/2; `none` skips it.
    #[arg(long, default_value = "20,22", value_parser = parse_list)]
    pub compare_log_n: List,
    /// The baseline comparison's sizes as log2(message rows per lane), instead of
    /// `--compare-log-n`.
    #[arg(long, value_parser = parse_list)]
    pub compare_log_rows: Option<List>,
}

impl Args {
    /// The shapes of the throughput table (every size × rate) and of the comparison (rate 1/2),
    /// or why a size does not fit the lane count.
    pub(crate) fn shapes(&self) -> Result<(Vec<BenchShape>, Vec<BenchShape>), ShapeError> {
        let lanes = self.lanes as usize;
        let sized = |log_n: &List, log_rows: &Option<List>, r: u32| -> Result<Vec<BenchShape>, ShapeError> {
            match log_rows {
                Some(rows) => Ok(rows
                    .0
                    .iter()
                    .map(|&m| BenchShape::from_rows(m, lanes, r))
                    .collect()),
                None => log_n
                    .0
                    .iter()
                    .map(|&n| BenchShape::from_words(n, lanes, r))
                    .collect(),
            }
        };
        let mut table = Vec::new();
        for shape in sized(&self.log_n, &self.log_rows, 0)? {
            for &r in &self.log_inv_rate.0 {
                table.push(BenchShape {
                    log_inv_rate: r,
                    ..shape
                });
            }
        }
        let compare = sized(&self.compare_log_n, &self.compare_log_rows, 1)?;
        Ok((table, compare))
    }
}

/// A list of small numbers given on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct List(pub Vec<u32>);

/// `a..b` or `a..=b` (both inclusive), a comma list, a single value, or `none` (empty).
fn parse_list(s: &str) -> Result<List, String> {
    parse_numbers(s).map(List)
}

fn parse_numbers(s: &str) -> Result<Vec<u32>, String> {
    let s = s.trim();
    if s == "none" {
        return Ok(Vec::new());
    }
    let num = |x: &str| x.trim().parse::<u32>().map_err(|e| format!("`{x}`: {e}"));
    if let Some((a, b)) = s.split_once("..") {
        let (a, b) = (num(a)?, num(b.trim_start_matches('='))?);
        if a > b {
            return Err(format!("empty range `{s}`"));
        }
        return Ok((a..=b).collect());
    }
    s.split(',').map(num).collect()
}

#[cfg(test)]
mod tests {
    use super::parse_numbers as parse_list;
    use super::*;

    fn args(line: &str) -> Args {
        Args::try_parse_from(std::iter::once("throughput").chain(line.split_whitespace()))
            .expect("valid arguments")
    }

    #[test]
    fn lane_counts_that_do_not_divide_the_sizes_are_refused() {
        let err = args("--lanes 24 --log-n 20")
            .shapes()
            .expect_err("24 does not divide 2^20");
        assert!(err.to_string().contains("24 lanes"), "{err}");
        let (table, compare) = args("--lanes 24 --log-rows 10,12 --log-inv-rate 1 --compare-log-rows 11")
            .shapes()
            .expect("rows per lane fit any lane count");
        assert_eq!(table.len(), 2);
        assert_eq!(table[1].witness_words(), 24 << 12);
        assert_eq!(compare[0].witness_words(), 24 << 11);
        let (table, _) = args("--lanes 4 --log-n 12 --log-inv-rate 1,2")
            .shapes()
            .expect("4 divides");
        assert_eq!(table.iter().map(|s| s.log_rows()).collect::<Vec<_>>(), [11, 12]);
        assert!(Args::try_parse_from(["throughput", "--lanes", "0"]).is_err());
    }

    #[test]
    fn lists_and_inclusive_ranges() {
        assert_eq!(parse_list("20..22"), Ok(vec![20, 21, 22]));
        assert_eq!(parse_list("20..=22"), Ok(vec![20, 21, 22]));
        assert_eq!(parse_list("20,26"), Ok(vec![20, 26]));
        assert_eq!(parse_list("none"), Ok(vec![]));
        assert!(parse_list("22..20").is_err());
        assert!(parse_list("x").is_err());
    }
}
