//! Which topology to read: this machine's (through hwloc, sysfs or defaults), or another
//! machine's, loaded from an hwloc XML export or built from a synthetic description (hwloc's
//! grammar, see [`super::synthetic`]) for a what-if report.

use std::fmt;
use std::path::PathBuf;

/// The environment variable that chooses the topology source (see [`TopologySpec::parse`]).
pub const TOPOLOGY_ENV: &str = "NTT_TOPOLOGY";

/// A topology source, as `NTT_TOPOLOGY` or a `--topology` flag names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TopologySpec {
    /// This machine through hwloc, then sysfs, then defaults (`hwloc`, or nothing); without the
    /// `hwloc` feature, through sysfs, then defaults.
    Hwloc,
    /// This machine through sysfs, then defaults; hwloc is not consulted (`sysfs`).
    Sysfs,
    /// Documented defaults over this process's CPUs (`defaults`).
    Defaults,
    /// Another machine: an hwloc XML export such as `lstopo --of xml` writes (`xml:FILE`).
    Xml(PathBuf),
    /// Another machine: a synthetic description in hwloc's grammar
    /// (`synthetic:pack:2 core:8 pu:2`), built without hwloc.
    Synthetic(String),
}

/// A topology source that could not be understood or loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TopologyError {
    /// The text is none of the forms [`TopologySpec::parse`] accepts.
    #[error(
        "unknown topology source `{0}` (expected hwloc, sysfs, defaults, xml:FILE or synthetic:DESCRIPTION)"
    )]
    Unknown(String),
    /// hwloc could not load the XML file, the synthetic description is outside the documented
    /// grammar, or either has no usable PU.
    #[error("{0}")]
    Load(String),
    /// Another machine with more PUs than [`MAX_PUS`](super::MAX_PUS) (the product of a
    /// synthetic description's arities, saturated at `u128::MAX`).
    #[error("{pus} PUs is more than the {} a topology may have", super::MAX_PUS)]
    TooLarge {
        /// The PUs the description or export names.
        pus: u128,
    },
    /// `NTT_TOPOLOGY` is set to bytes that are not UTF-8.
    #[error(transparent)]
    Env(#[from] crate::env::EnvError),
    /// Another machine's hwloc XML export was asked for, and this build has no hwloc to load it
    /// with (synthetic descriptions need no hwloc).
    #[error("loading an hwloc XML topology needs hwloc: this build lacks the `hwloc` feature of ntt-runtime")]
    NoHwloc,
}

impl TopologySpec {
    /// Parses `hwloc`, `sysfs`, `defaults`, `xml:FILE` or `synthetic:DESCRIPTION`; an empty
    /// string means `hwloc`.
    ///
    /// # Errors
    /// [`TopologyError::Unknown`] for anything else, or an `xml:`/`synthetic:` with nothing after it.
    pub fn parse(text: &str) -> Result<Self, TopologyError> {
        let text = text.trim();
        if let Some(path) = text.strip_prefix("xml:") {
            if path.is_empty() {
                return Err(TopologyError::Unknown(text.to_owned()));
            }
            return Ok(Self::Xml(PathBuf::from(path)));
        }
        if let Some(description) = text.strip_prefix("synthetic:") {
            if description.trim().is_empty() {
                return Err(TopologyError::Unknown(text.to_owned()));
            }
            return Ok(Self::Synthetic(description.trim().to_owned()));
        }
        match text {
            "" | "hwloc" => Ok(Self::Hwloc),
            "sysfs" => Ok(Self::Sysfs),
            "defaults" => Ok(Self::Defaults),
            other => Err(TopologyError::Unknown(other.to_owned())),
        }
    }

    /// The source `NTT_TOPOLOGY` names (`hwloc` when unset).
    ///
    /// # Errors
    /// As for [`TopologySpec::parse`]; [`TopologyError::Env`] for a value that is not UTF-8.
    pub fn from_env() -> Result<Self, TopologyError> {
        Self::parse(&crate::env::var(TOPOLOGY_ENV)?.unwrap_or_default())
    }

    /// Whether this names another machine (a what-if), not the one this process runs on.
    pub fn is_what_if(&self) -> bool {
        matches!(self, Self::Xml(_) | Self::Synthetic(_))
    }
}

impl fmt::Display for TopologySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Hwloc => f.write_str("hwloc"),
            Self::Sysfs => f.write_str("sysfs"),
            Self::Defaults => f.write_str("defaults"),
            Self::Xml(path) => write!(f, "xml:{}", path.display()),
            Self::Synthetic(description) => write!(f, "synthetic:{description}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_form_and_rejects_the_rest() {
        assert_eq!(TopologySpec::parse(""), Ok(TopologySpec::Hwloc));
        assert_eq!(TopologySpec::parse("sysfs"), Ok(TopologySpec::Sysfs));
        assert_eq!(TopologySpec::parse("defaults"), Ok(TopologySpec::Defaults));
        assert_eq!(
            TopologySpec::parse("xml:/tmp/a b.xml"),
            Ok(TopologySpec::Xml(PathBuf::from("/tmp/a b.xml")))
        );
        let synthetic = TopologySpec::parse("synthetic: pack:2 core:4 pu:2 ").expect("synthetic");
        assert_eq!(synthetic, TopologySpec::Synthetic("pack:2 core:4 pu:2".into()));
        assert!(synthetic.is_what_if() && !TopologySpec::Sysfs.is_what_if());
        assert_eq!(synthetic.to_string(), "synthetic:pack:2 core:4 pu:2");
        for bad in ["xml:", "synthetic:", "lstopo", "XML:a"] {
            assert!(
                matches!(TopologySpec::parse(bad), Err(TopologyError::Unknown(_))),
                "{bad}"
            );
        }
    }
}
