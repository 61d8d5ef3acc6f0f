//! Parsing the names the environment variables take (`NTT_BACKEND`, `NTT_COLUMNS`): every
//! choice's name, matched after trimming and ignoring case.

/// The value of `all` whose `name` is `s`, trimmed and in any case.
pub(crate) fn by_name<T: Copy, const N: usize>(
    all: [T; N],
    name: fn(T) -> &'static str,
    s: &str,
) -> Option<T> {
    let wanted = s.trim().to_ascii_lowercase();
    all.into_iter().find(|&v| name(v) == wanted)
}
