//! Tick labels for axes drawn in log2 coordinates.

/// `2^20` for a log2 coordinate of 20 (rounded to the nearest whole power).
pub fn pow2(log2: &f64) -> String {
    format!("2^{}", log2.round() as i64)
}

/// `512 KiB`, `2 MiB` for a log2-of-KiB coordinate (9 → 512 KiB, 11 → 2 MiB); fractional
/// coordinates round to one decimal.
pub fn kib_log2(log2_kib: &f64) -> String {
    let kib = log2_kib.exp2();
    let (value, unit) = if kib >= 1024.0 * 1024.0 {
        (kib / (1024.0 * 1024.0), "GiB")
    } else if kib >= 1024.0 {
        (kib / 1024.0, "MiB")
    } else {
        (kib, "KiB")
    };
    if (value - value.round()).abs() < 1e-6 {
        format!("{} {unit}", value.round())
    } else {
        format!("{value:.1} {unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_read_as_sizes() {
        assert_eq!(pow2(&20.0), "2^20");
        assert_eq!(pow2(&19.6), "2^20");
        assert_eq!(kib_log2(&9.0), "512 KiB");
        assert_eq!(kib_log2(&11.0), "2 MiB");
        assert_eq!(kib_log2(&20.0), "1 GiB");
        assert_eq!(kib_log2(&0.5), "1.4 KiB");
    }
}
