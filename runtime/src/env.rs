//! The engine's environment variables (`NTT_*`), read one way: a variable that is set must be
//! valid UTF-8 and mean something, or its reader says which variable is wrong and why, instead
//! of reading it as unset. Unset and blank (only whitespace) are the same: not set.
//!
//! ```
//! use ntt_runtime::env;
//!
//! // A variable nobody sets reads as unset; a reader parses what is there.
//! assert_eq!(env::var("NTT_DOC_EXAMPLE_UNSET"), Ok(None));
//! let spin = env::parse("NTT_DOC_EXAMPLE_UNSET", |v| v.parse::<u64>().map_err(|e| e.to_string()));
//! assert_eq!(spin, Ok(None));
//! ```

/// A variable that is set but cannot be used: not UTF-8, or not a value its reader accepts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{name}={value:?}: {reason}")]
pub struct EnvError {
    name: String,
    value: String,
    reason: String,
}

impl EnvError {
    /// `name`'s value `value` (lossily shown when not UTF-8) is unusable for `reason`.
    pub fn new(name: impl Into<String>, value: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            value: value.into(),
            reason: reason.into(),
        }
    }

    /// The variable's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Why its value cannot be used.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

/// The value of `name`, trimmed; `None` when unset or blank.
///
/// # Errors
/// [`EnvError`] when the value is not valid UTF-8.
pub fn var(name: &str) -> Result<Option<String>, EnvError> {
    match std::env::var(name) {
        Ok(value) => {
            let value = value.trim();
            Ok((!value.is_empty()).then(|| value.to_owned()))
        }
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(raw)) => {
            Err(EnvError::new(name, raw.to_string_lossy(), "not valid UTF-8"))
        }
    }
}

/// The value of `name` as `parse` reads it; `None` when unset or blank.
///
/// # Errors
/// [`EnvError`] when the value is not valid UTF-8, or `parse` refuses it (its message is the
/// reason).
pub fn parse<T>(name: &str, parse: impl FnOnce(&str) -> Result<T, String>) -> Result<Option<T>, EnvError> {
    match var(name)? {
        Some(value) => parse(&value)
            .map(Some)
            .map_err(|reason| EnvError::new(name, value, reason)),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_blank_and_set_values() {
        for (name, value) in [
            ("NTT_ENV_TEST_BLANK", "  "),
            ("NTT_ENV_TEST_SET", " 12 "),
            ("NTT_ENV_TEST_WORD", "abc"),
        ] {
            // SAFETY: these variables are this test's alone; nothing else reads them.
            unsafe { std::env::set_var(name, value) };
        }
        assert_eq!(var("NTT_ENV_TEST_UNSET"), Ok(None));
        assert_eq!(var("NTT_ENV_TEST_BLANK"), Ok(None));
        assert_eq!(var("NTT_ENV_TEST_SET"), Ok(Some("12".to_owned())));
        let number = |v: &str| v.parse::<u64>().map_err(|e| e.to_string());
        assert_eq!(parse("NTT_ENV_TEST_SET", number), Ok(Some(12)));
        let err = parse("NTT_ENV_TEST_WORD", number).expect_err("not a number");
        assert_eq!(err.name(), "NTT_ENV_TEST_WORD");
        assert!(
            err.to_string()
                .starts_with("NTT_ENV_TEST_WORD=\"abc\": invalid digit"),
            "{err}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn values_that_are_not_utf8_are_errors() {
        use std::os::unix::ffi::OsStrExt;
        // SAFETY: this variable is this test's alone; nothing else reads it.
        unsafe { std::env::set_var("NTT_ENV_TEST_BYTES", std::ffi::OsStr::from_bytes(b"\xff4")) };
        let err = var("NTT_ENV_TEST_BYTES").expect_err("not UTF-8");
        assert_eq!(err.name(), "NTT_ENV_TEST_BYTES");
        assert_eq!(err.reason(), "not valid UTF-8");
    }
}
