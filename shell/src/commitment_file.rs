//! The commitment file `ntt open --commitment` and `ntt-mpi` write and `ntt verify --commitment`
//! reads: the library's serialized commitment,
//! `{"format_version": 1, "root": "<64 hex digits>", "log_rows": D, "lanes": N, "basis": B}`
//! (`basis` may be left out: `polynomial`); for a row tree `"tree": "rows", "hash",
//! "cap_height", "cap": [...]` in place of `"root"` (docs/FORMAT.md).
//!
//! Earlier releases wrote a `"version": 1` key as well (six keys), and documented a file with
//! `version` in place of `format_version`: both still read. When both keys are there they must
//! agree.

use crate::unique_keys;
use ntt_pcs::ntt_verify::MAX_CAP_HEIGHT;
use ntt_pcs::{COMMITMENT_FORMAT_VERSION, Commitment};

/// Bytes of one cap digest in the file [`text`] gives: `    "<64 hex digits>",` and its newline.
const DIGEST_LINE_BYTES: u64 = 4 + 1 + 64 + 1 + 1 + 1;
/// Bytes of the rest of that file (the other keys, the brackets): a few hundred.
const OTHER_BYTES: u64 = 1 << 10;
/// The largest file [`text`] gives: a row tree's cap of 2^[`MAX_CAP_HEIGHT`] digests.
const LARGEST_WRITTEN: u64 = (1 << MAX_CAP_HEIGHT) * DIGEST_LINE_BYTES + OTHER_BYTES;
/// A commitment file is read up to twice the largest written (about 9 MiB), which leaves room for
/// other spacing (wider indents, CRLF line ends); anything larger is not one.
pub const MAX_BYTES: u64 = 2 * LARGEST_WRITTEN;

/// The key earlier releases wrote (and documented) for the version.
const LEGACY_VERSION_KEY: &str = "version";
/// The one version key, the library's.
const VERSION_KEY: &str = "format_version";

/// The file's text for `commitment`: its JSON, pretty-printed, and a newline.
pub fn text(commitment: &Commitment) -> String {
    serde_json::to_string_pretty(commitment).expect("a commitment serializes") + "\n"
}

/// The commitment in a file's bytes, or why there is none (a key given twice included).
///
/// # Errors
/// Why the bytes are not a commitment file, as a message.
pub fn parse(bytes: &[u8]) -> Result<Commitment, String> {
    let mut value = unique_keys::parse(bytes).map_err(|e| e.to_string())?;
    let Some(object) = value.as_object_mut() else {
        return Err("not a JSON object".to_owned());
    };
    if let Some(legacy) = object.remove(LEGACY_VERSION_KEY) {
        match object.get(VERSION_KEY) {
            Some(current) if *current != legacy => {
                return Err(format!(
                    "`{LEGACY_VERSION_KEY}` ({legacy}) and `{VERSION_KEY}` ({current}) disagree"
                ));
            }
            Some(_) => {}
            None => {
                object.insert(VERSION_KEY.to_owned(), legacy);
            }
        }
    }
    match object.get(VERSION_KEY) {
        None => return Err(format!("missing field `{VERSION_KEY}`")),
        Some(v) if v.as_u64() != Some(u64::from(COMMITMENT_FORMAT_VERSION)) => {
            return Err(format!(
                "a version {v} commitment file; this build reads version {COMMITMENT_FORMAT_VERSION}"
            ));
        }
        Some(_) => {}
    }
    serde_json::from_value(value).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ntt_pcs::CodewordShape;
    use serde_json::Value;

    fn commitment() -> Commitment {
        Commitment::new([0xab; 32], CodewordShape::new(3, 5).expect("valid"))
    }

    #[test]
    fn the_written_form_has_one_version_key_and_reads_back() {
        let written = serde_json::to_string(&commitment()).expect("serializes");
        let keys: Vec<String> = serde_json::from_str::<serde_json::Map<String, Value>>(&written)
            .expect("an object")
            .keys()
            .cloned()
            .collect();
        // serde_json's map lists keys sorted.
        assert_eq!(keys, ["basis", "format_version", "lanes", "log_rows", "root"]);
        assert_eq!(parse(written.as_bytes()), Ok(commitment()));
    }

    #[test]
    fn the_largest_cap_fits_the_bound() {
        let log_rows = MAX_CAP_HEIGHT;
        let scheme = ntt_pcs::Scheme::rows(ntt_pcs::HashKind::Keccak, MAX_CAP_HEIGHT).expect("scheme");
        let cap = (0..1u32 << MAX_CAP_HEIGHT)
            .map(|i| [i as u8; 32])
            .collect::<Vec<_>>();
        let shape = CodewordShape::new(log_rows, 1 << 20).expect("valid");
        let largest = Commitment::with_cap(scheme, cap, shape).expect("a whole cap");
        let written = text(&largest);
        assert!(written.len() as u64 <= LARGEST_WRITTEN, "{} bytes", written.len());
        assert!(written.len() as u64 > LARGEST_WRITTEN - OTHER_BYTES);
        assert_eq!(parse(written.as_bytes()), Ok(largest));
    }

    #[test]
    fn every_earlier_form_reads() {
        let root = "ab".repeat(32);
        for text in [
            // As the documentation described it.
            format!(r#"{{"version": 1, "root": "{root}", "log_rows": 3, "lanes": 5}}"#),
            // As earlier releases wrote it: both keys.
            format!(
                r#"{{"version": 1, "format_version": 1, "root": "{root}", "log_rows": 3, "lanes": 5, "basis": "polynomial"}}"#
            ),
            format!(r#"{{"format_version": 1, "root": "{root}", "log_rows": 3, "lanes": 5}}"#),
        ] {
            assert_eq!(parse(text.as_bytes()), Ok(commitment()), "{text}");
        }
    }

    #[test]
    fn versions_are_checked() {
        let root = "ab".repeat(32);
        for (text, why) in [
            (
                format!(r#"{{"root": "{root}", "log_rows": 3, "lanes": 5}}"#),
                "missing field `format_version`",
            ),
            (
                format!(r#"{{"version": 2, "root": "{root}", "log_rows": 3, "lanes": 5}}"#),
                "version 2",
            ),
            (
                format!(
                    r#"{{"version": 1, "format_version": 2, "root": "{root}", "log_rows": 3, "lanes": 5}}"#
                ),
                "disagree",
            ),
            (
                format!(r#"{{"format_version": "1", "root": "{root}", "log_rows": 3, "lanes": 5}}"#),
                "version \"1\"",
            ),
            ("[1]".to_owned(), "not a JSON object"),
        ] {
            let err = parse(text.as_bytes()).expect_err(&text);
            assert!(err.contains(why), "{text}: {err}");
        }
    }
}
