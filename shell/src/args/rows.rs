//! Row indices given as `3,17,4`: what `open` and `verify` take with `--rows`.

/// Row indices given as `3,17,4`, in the order given (repeats kept).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowList(pub Vec<usize>);

impl RowList {
    /// The indices as `u64`, as the distributed commit's rows are counted.
    pub fn to_u64(&self) -> Vec<u64> {
        self.0.iter().map(|&row| row as u64).collect()
    }
}

/// Parses `3,17,4` into row indices: a `clap` value parser for `--rows`.
///
/// # Errors
/// A message naming the first part that is not a row index, or saying that none is given.
pub fn parse_rows(list: &str) -> Result<RowList, String> {
    let rows = list
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<usize>()
                .map_err(|_| format!("`{s}` is not a row index"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if rows.is_empty() {
        return Err("no row indices given".to_owned());
    }
    Ok(RowList(rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_parse_and_reject_garbage() {
        assert_eq!(parse_rows("3, 17,0,3").unwrap(), RowList(vec![3, 17, 0, 3]));
        assert_eq!(parse_rows("5,").unwrap().to_u64(), vec![5]);
        assert_eq!(parse_rows("3,x").unwrap_err(), "`x` is not a row index");
        assert_eq!(parse_rows("-1").unwrap_err(), "`-1` is not a row index");
        assert_eq!(parse_rows(" , ").unwrap_err(), "no row indices given");
        assert!(parse_rows("").is_err());
    }
}
