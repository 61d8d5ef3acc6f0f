//! A file argument: a path, or `-`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// A file argument: a path, or `-` for standard input (when read) or standard output (when
/// written). `ntt-mpi` refuses `-`: its ranks read and write files at offsets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileArg {
    /// `-`: standard input or output.
    Std,
    /// A path.
    Path(PathBuf),
}

impl From<OsString> for FileArg {
    fn from(arg: OsString) -> Self {
        if arg == "-" {
            Self::Std
        } else {
            Self::Path(arg.into())
        }
    }
}

/// As given on the command line: `-` or the path.
impl std::fmt::Display for FileArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Std => f.write_str("-"),
            Self::Path(p) => write!(f, "{}", p.display()),
        }
    }
}

impl FileArg {
    /// Whether it is `-`.
    pub fn is_std(&self) -> bool {
        matches!(self, Self::Std)
    }

    /// The path, unless it is `-`.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Self::Std => None,
            Self::Path(p) => Some(p),
        }
    }

    /// How messages name it when read.
    pub fn source_name(&self) -> String {
        match self {
            Self::Std => "standard input".to_owned(),
            Self::Path(p) => format!("`{}`", p.display()),
        }
    }

    /// How messages name it when written.
    pub fn sink_name(&self) -> String {
        match self {
            Self::Std => "standard output".to_owned(),
            Self::Path(p) => format!("`{}`", p.display()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dash_is_standard_io() {
        assert_eq!(FileArg::from(OsString::from("-")), FileArg::Std);
        assert_eq!(
            FileArg::from(OsString::from("./-")),
            FileArg::Path(PathBuf::from("./-"))
        );
        assert_eq!(FileArg::Std.path(), None);
        assert_eq!(
            FileArg::from(OsString::from("w.bin")).path(),
            Some(Path::new("w.bin"))
        );
    }
}
