//! Byte counts for people: one formatter for the library's messages, the `ntt` command's
//! reports and the benches.

/// `bytes` in the largest binary unit that keeps it readable: a whole number when exact
/// (`2 MiB`, `1023 B`), else one decimal (`1.5 GiB`).
///
/// ```
/// use ntt_runtime::units::human_bytes;
///
/// assert_eq!(human_bytes(2 << 20), "2 MiB");
/// assert_eq!(human_bytes(1536), "1.5 KiB");
/// ```
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if value.fract() == 0.0 {
        format!("{value} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::human_bytes;

    #[test]
    fn whole_and_fractional_sizes() {
        assert_eq!(human_bytes(0), "0 B");
        assert_eq!(human_bytes(1023), "1023 B");
        assert_eq!(human_bytes(1024), "1 KiB");
        assert_eq!(human_bytes(3 << 29), "1.5 GiB");
        assert_eq!(human_bytes(1 << 62), "4 EiB");
        assert_eq!(human_bytes(u64::MAX), "16 EiB");
    }
}
