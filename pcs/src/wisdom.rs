//! Wisdom: the planner settings a tuning experiment measured best on one machine, kept in a file.
//!
//! As FFTW keeps measured plans, `ntt tune --save` keeps, per shape class, the [`PlanConfig`]
//! that ran fastest. The file carries the CPU model and a fingerprint of the cache topology; the
//! planner uses an entry only when the fingerprint matches the machine it runs on, so wisdom
//! copied to another machine is ignored (with a warning), never trusted.
//!
//! Location: `$NTT_WISDOM` when set (`off`, `none` or `0` disables wisdom), otherwise
//! `$XDG_CONFIG_HOME/ntt-engine/wisdom.json`, otherwise `$HOME/.config/ntt-engine/wisdom.json`.
//! The `ntt` and `ntt-mpi` commands read it there; the library reads no wisdom unless asked:
//! [`EncoderBuilder::wisdom`](crate::EncoderBuilder::wisdom) names a file,
//! [`EncoderBuilder::saved_wisdom`](crate::EncoderBuilder::saved_wisdom) reads the one at this
//! location.

use crate::plan::PlanConfig;
use crate::shape::Shape;
use ntt_runtime::Topology;
use serde::{Deserialize, Serialize};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The environment variable that overrides the wisdom file's location or disables wisdom.
pub const WISDOM_ENV: &str = "NTT_WISDOM";
/// Bumped whenever the file's meaning changes; other versions are ignored.
pub const WISDOM_FORMAT_VERSION: u32 = 1;
/// An entry serves shapes whose codeword size is within this many doublings of its own.
const MAX_LOG_SIZE_DISTANCE: u32 = 1;

/// Everything a tuning experiment decided for one machine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Wisdom {
    /// [`WISDOM_FORMAT_VERSION`] when written; files of other versions are ignored.
    pub format_version: u32,
    /// The CPU model string, for people reading the file.
    pub cpu_model: String,
    /// [`fingerprint`] of the topology the measurements ran on.
    pub fingerprint: String,
    /// One entry per shape class measured.
    pub entries: Vec<WisdomEntry>,
}

/// The best measured settings for one class of shapes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WisdomEntry {
    /// The shapes the entry was measured on.
    pub class: ShapeClass,
    /// Settings to force; `None` fields stay topology-derived.
    pub config: PlanConfig,
    /// Measured speed-up of `config` over the topology-derived plan (median / median).
    pub speedup: f64,
    /// Whether that speed-up was larger than the measurements' spread.
    pub significant: bool,
}

/// Shapes that behave alike for the planner: codeword size and worker count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ShapeClass {
    /// log2 of the codeword's words, lanes rounded up to a power of two.
    pub log_words: u32,
    /// Workers in the pool.
    pub workers: usize,
}

impl ShapeClass {
    /// The class of `shape` encoded by `workers` workers.
    pub fn of(shape: Shape, workers: usize) -> Self {
        let log_lanes = shape.lanes().next_power_of_two().trailing_zeros();
        Self {
            log_words: shape.log_rows() + log_lanes,
            workers,
        }
    }
}

/// Why wisdom is or is not in use; the topology report and `ntt plan` print it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum WisdomStatus {
    /// Loaded and matching this machine.
    InUse {
        /// The file read.
        path: PathBuf,
        /// Its entries.
        entries: usize,
    },
    /// No file at the location.
    Absent {
        /// Where the file was looked for.
        path: PathBuf,
    },
    /// Turned off by the environment (or no home directory to look in).
    Disabled {
        /// What turned it off.
        reason: String,
    },
    /// A file exists but cannot be used; the reason is a warning for the user.
    Ignored {
        /// The file.
        path: PathBuf,
        /// Why it cannot be used.
        reason: String,
    },
}

impl core::fmt::Display for WisdomStatus {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::InUse { path, entries } => {
                write!(f, "in use: {} ({entries} shape class(es))", path.display())
            }
            Self::Absent { path } => write!(f, "none saved at {}", path.display()),
            Self::Disabled { reason } => write!(f, "disabled ({reason})"),
            Self::Ignored { path, reason } => write!(f, "ignored {}: {reason}", path.display()),
        }
    }
}

/// Where wisdom lives, or why there is none: `Err` holds the reason it is disabled.
pub fn location() -> Result<PathBuf, String> {
    match std::env::var_os(WISDOM_ENV) {
        Some(v) if matches!(v.to_str(), Some("off" | "none" | "0" | "")) => {
            Err(format!("{WISDOM_ENV}={}", v.to_string_lossy()))
        }
        Some(path) => Ok(PathBuf::from(path)),
        None => std::env::var_os("XDG_CONFIG_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
            .map(|dir| dir.join("ntt-engine").join("wisdom.json"))
            .ok_or_else(|| "neither XDG_CONFIG_HOME nor HOME is set".to_owned()),
    }
}

/// Loads the wisdom at [`location`] for this machine. Missing, disabled, corrupt or foreign
/// wisdom gives `None` and a status saying why; it never fails.
pub fn load(topology: &Topology) -> (Option<Wisdom>, WisdomStatus) {
    match location() {
        Err(reason) => (None, WisdomStatus::Disabled { reason }),
        Ok(path) => load_from(&path, topology),
    }
}

/// [`load`] from an explicit path.
pub fn load_from(path: &Path, topology: &Topology) -> (Option<Wisdom>, WisdomStatus) {
    match examine(path, topology) {
        Examined::Usable(wisdom) => in_use(path, wisdom),
        Examined::Absent => (
            None,
            WisdomStatus::Absent {
                path: path.to_owned(),
            },
        ),
        Examined::Broken(reason) | Examined::Foreign(reason) => ignored(path, reason),
    }
}

/// What a wisdom file holds for this machine.
enum Examined {
    /// Wisdom measured here.
    Usable(Wisdom),
    /// No file.
    Absent,
    /// Unreadable, not wisdom JSON, or another format version: the reason.
    Broken(String),
    /// Wisdom of another machine: the reason.
    Foreign(String),
}

fn examine(path: &Path, topology: &Topology) -> Examined {
    let text = match read_regular_file(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Examined::Absent,
        Err(e) => return Examined::Broken(format!("cannot read it: {e}")),
    };
    let wisdom: Wisdom = match serde_json::from_str(&text) {
        Ok(w) => w,
        Err(e) => return Examined::Broken(format!("it is not valid wisdom JSON: {e}")),
    };
    if wisdom.format_version != WISDOM_FORMAT_VERSION {
        return Examined::Broken(format!(
            "format version {} (this build reads {WISDOM_FORMAT_VERSION})",
            wisdom.format_version
        ));
    }
    let here = fingerprint(topology);
    if wisdom.fingerprint != here {
        return Examined::Foreign(format!(
            "it was measured on another machine ({}, fingerprint {}; this one is {here})",
            wisdom.cpu_model, wisdom.fingerprint
        ));
    }
    Examined::Usable(wisdom)
}

/// Why a wisdom file a library caller asked for cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("wisdom {}: {reason}", path.display())]
pub struct WisdomError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong with it.
    pub reason: String,
}

/// Loads wisdom as the library's builders do ([`crate::EncoderBuilder::wisdom`],
/// [`crate::EncoderBuilder::saved_wisdom`]): stricter than [`load_from`], which never fails.
/// A file that cannot be read, is not wisdom JSON or has another format version is an error;
/// so is a missing file when `required`. Wisdom measured on another machine (another topology
/// fingerprint) is ignored with a warning (a `tracing` event at `warn`), as the `ntt` command
/// ignores it.
///
/// # Errors
/// A [`WisdomError`] naming the file and what is wrong with it.
pub fn load_checked(
    path: &Path,
    topology: &Topology,
    required: bool,
) -> Result<(Option<Wisdom>, WisdomStatus), WisdomError> {
    let error = |reason: String| WisdomError {
        path: path.to_owned(),
        reason,
    };
    match examine(path, topology) {
        Examined::Usable(wisdom) => Ok(in_use(path, wisdom)),
        Examined::Absent if required => Err(error("no such file".to_owned())),
        Examined::Absent => Ok((
            None,
            WisdomStatus::Absent {
                path: path.to_owned(),
            },
        )),
        Examined::Broken(reason) => Err(error(reason)),
        Examined::Foreign(reason) => {
            tracing::warn!(path = %path.display(), "wisdom ignored: {reason}");
            Ok(ignored(path, reason))
        }
    }
}

fn in_use(path: &Path, wisdom: Wisdom) -> (Option<Wisdom>, WisdomStatus) {
    let entries = wisdom.entries.len();
    (
        Some(wisdom),
        WisdomStatus::InUse {
            path: path.to_owned(),
            entries,
        },
    )
}

/// A wisdom file is a few kilobytes; anything larger is not one.
const MAX_WISDOM_BYTES: u64 = 1 << 20;

/// Reads a wisdom file: only a regular file (a FIFO would block forever, a device such as
/// `/dev/zero` never ends), and at most [`MAX_WISDOM_BYTES`].
fn read_regular_file(path: &Path) -> std::io::Result<String> {
    ntt_runtime::read_regular_file(path, MAX_WISDOM_BYTES)
}

fn ignored(path: &Path, reason: String) -> (Option<Wisdom>, WisdomStatus) {
    (
        None,
        WisdomStatus::Ignored {
            path: path.to_owned(),
            reason,
        },
    )
}

impl Wisdom {
    /// Empty wisdom for the machine `topology` describes.
    pub fn for_machine(topology: &Topology) -> Self {
        Self {
            format_version: WISDOM_FORMAT_VERSION,
            cpu_model: cpu_model(),
            fingerprint: fingerprint(topology),
            entries: Vec::new(),
        }
    }

    /// Records `entry`, replacing any entry of the same class.
    pub fn insert(&mut self, entry: WisdomEntry) {
        self.entries.retain(|e| e.class != entry.class);
        self.entries.push(entry);
        self.entries.sort_by_key(|e| (e.class.workers, e.class.log_words));
    }

    /// The settings for `shape` at `workers` workers: the entry of the same worker count whose
    /// size is nearest (within one doubling), if any.
    pub fn config_for(&self, shape: Shape, workers: usize) -> Option<&PlanConfig> {
        let class = ShapeClass::of(shape, workers);
        self.entries
            .iter()
            .filter(|e| e.class.workers == workers)
            .map(|e| (e.class.log_words.abs_diff(class.log_words), e))
            .filter(|(d, _)| *d <= MAX_LOG_SIZE_DISTANCE)
            .min_by_key(|(d, _)| *d)
            .map(|(_, e)| &e.config)
    }

    /// The wisdom as pretty JSON, newline-terminated: the file [`Wisdom::save`] writes.
    ///
    /// # Errors
    /// Only if serialization fails (it does not for wisdom made by this crate).
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        Ok(serde_json::to_string_pretty(self)? + "\n")
    }

    /// Writes the wisdom as pretty JSON, creating the directory; atomically replaces the file.
    /// Each save writes a temporary file of its own beside `path`, so concurrent saves do not
    /// interfere: the file ends up as one of them, whole. As for every file the `ntt` command
    /// writes, a new file gets mode 0666 less the umask, a replaced one keeps its permission
    /// bits, and a symbolic link is followed (the file it names is replaced).
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let path = match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() => {
                std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
            }
            _ => path.to_owned(),
        };
        let dir = match path.parent().filter(|d| !d.as_os_str().is_empty()) {
            Some(dir) => {
                std::fs::create_dir_all(dir)?;
                dir
            }
            None => Path::new("."),
        };
        let json = self.to_json().map_err(std::io::Error::other)?;
        // The mode of the file replaced, when there is one (0666 less the umask otherwise).
        #[cfg(unix)]
        let mode = std::fs::metadata(&path)
            .ok()
            .filter(std::fs::Metadata::is_file)
            .map(|m| std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o777);
        let mut builder = tempfile::Builder::new();
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let mut tmp = builder.tempfile_in(dir)?;
        #[cfg(unix)]
        if let Some(mode) = mode {
            tmp.as_file()
                .set_permissions(std::os::unix::fs::PermissionsExt::from_mode(mode))?;
        }
        tmp.write_all(json.as_bytes())?;
        tmp.persist(&path).map(drop).map_err(|e| e.error)
    }
}

/// A short hash of what makes plans machine-specific: the CPU model, the core and PU counts, the
/// NUMA nodes and every cache's level, size and sharing. The worker count is not part of it.
pub fn fingerprint(topology: &Topology) -> String {
    let mut text = format!(
        "cpu={};cores={};pus={};numa={}",
        cpu_model(),
        topology.cores,
        topology.pus.len(),
        topology.numa_nodes.len()
    );
    let mut caches: Vec<(u8, u64, usize)> = topology
        .caches
        .iter()
        .map(|c| (c.level, c.size_bytes, c.pus.len()))
        .collect();
    caches.sort_unstable();
    caches.dedup();
    for (level, size, sharing) in caches {
        text.push_str(&format!(";L{level}={size}/{sharing}"));
    }
    blake3::hash(text.as_bytes()).to_hex()[..16].to_owned()
}

/// The CPU model as the OS names it, or `unknown`.
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines().find_map(|l| {
                l.strip_prefix("model name")
                    .and_then(|r| r.split_once(':'))
                    .map(|(_, m)| m.trim().to_owned())
            })
        })
        .unwrap_or_else(|| "unknown".to_owned())
}
