//! Command-line arguments of the throughput binary.

use clap::Parser;

/// Commit, encode and hashing throughput of ntt-engine, the machine's physical limits, and the
/// baselines (p3-binary-dft, rayon + BLAKE3) side by side. Medians of `--repeat` runs.
#[derive(Debug, Parser)]
#[command(name = "throughput")]
pub struct Args {
    /// Print one JSON document instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Also write the JSON document to this file (the tables still print).
    #[arg(long)]
    pub save: Option<std::path::PathBuf>,
    /// Witness sizes as log2(words): `20..24` and `20..=24` are both inclusive, or a list `20,22`.
    #[arg(long, default_value = "20..22", value_parser = parse_list)]
    pub log_n: List,
    /// Rates as log2(1/rate): `1` is rate 1/2, `2` is rate 1/4.
    #[arg(long, default_value = "1,2", value_parser = parse_list)]
    pub log_inv_rate: List,
    /// Lanes per codeword row.
    #[arg(long, default_value_t = 64)]
    pub lanes: usize,
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
}

/// A list of small numbers given on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct List(pub Vec<u32>);

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
