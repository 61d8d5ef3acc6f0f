//! The one JSON shape every `--json` output shares: an object whose first key is `version`.

use crate::error::CliError;
use serde::Serialize;

/// The version of the JSON the commands print (docs/CLI.md lists every key). Bumped when a key
/// changes meaning or goes away; new keys may appear without a bump.
pub(crate) const JSON_VERSION: u32 = 1;

#[derive(Serialize)]
struct Versioned<'a, T: Serialize> {
    version: u32,
    #[serde(flatten)]
    body: &'a T,
}

/// `body` (a struct or map) as pretty JSON with `"version"` first, newline-terminated.
pub(crate) fn json<T: Serialize>(body: &T) -> Result<String, CliError> {
    let text = serde_json::to_string_pretty(&Versioned {
        version: JSON_VERSION,
        body,
    })?;
    Ok(text + "\n")
}

/// `n` and the noun, singular when `n` is 1: `count(1, "thread")` is `1 thread`, and
/// `count(2, "thread")` is `2 threads`.
pub(crate) fn count(n: usize, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

// Every time the JSON prints, in milliseconds rounded to the microsecond, as ntt-mpi prints them.
pub(crate) use ntt_shell::millis::{ms, round_ms};

/// Renames the key `workers` (a worker count, as the library names it) to `threads`, as the
/// flag is named, throughout a JSON value.
pub(crate) fn workers_as_threads(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            if map.get("workers").is_some_and(serde_json::Value::is_number)
                && let Some(n) = map.remove("workers")
            {
                map.insert("threads".to_owned(), n);
            }
            map.values_mut().for_each(workers_as_threads);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(workers_as_threads),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular() {
        assert_eq!(count(1, "thread"), "1 thread");
        assert_eq!(count(0, "row"), "0 rows");
        assert_eq!(count(3, "PU"), "3 PUs");
    }

    #[test]
    fn version_comes_first_and_workers_become_threads() {
        #[derive(Serialize)]
        struct Body {
            a: u32,
        }
        let text = json(&Body { a: 1 }).unwrap();
        assert!(text.starts_with("{\n  \"version\": 1,\n  \"a\": 1"), "{text}");
        let mut v = serde_json::json!({"workers": 2, "inner": [{"workers": 3}], "list": {"workers": []}});
        workers_as_threads(&mut v);
        assert_eq!(
            v,
            serde_json::json!({"threads": 2, "inner": [{"threads": 3}], "list": {"workers": []}})
        );
    }
}
