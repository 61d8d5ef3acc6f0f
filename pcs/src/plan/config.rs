//! Forced planner inputs for tuning experiments.

use serde::{Deserialize, Serialize};

/// Which cache a deep sub-block is sized to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeepBudget {
    /// A sub-block fits the worker's L2 unit; its layers run in place, in cache.
    L2,
    /// A sub-block fits the worker's L3 share; inside it the layers run as an in-cache gathered
    /// step and L2-sized pieces, so a whole sweep of the buffer can be saved.
    L3,
}

impl core::str::FromStr for DeepBudget {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "l2" => Ok(Self::L2),
            "l3" => Ok(Self::L3),
            other => Err(format!("unknown deep budget `{other}` (expected l2 or l3)")),
        }
    }
}

impl core::fmt::Display for DeepBudget {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::L2 => "l2",
            Self::L3 => "l3",
        })
    }
}

/// Values that override what the planner derives from the topology. `None` everywhere (the
/// default) means "derive it"; each `Some` is used as given.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct PlanConfig {
    /// Bytes one in-cache unit (a gathered group or an L2 deep sub-block) may occupy.
    /// Derived: the smallest per-worker L2 share.
    pub l2_bytes: Option<usize>,
    /// Bytes an L3 deep sub-block may occupy. Derived: half of the smallest per-worker L3 share.
    pub l3_bytes: Option<usize>,
    /// The narrow/wide gate: `false` gathers one residue per group, `true` several adjacent
    /// residues (long contiguous runs).
    pub wide: Option<bool>,
    /// Residues per gathered group, as a log (used by the wide plan; capped by the shape).
    pub log_residues: Option<u32>,
    /// Which cache the deep pass is sized to.
    pub deep: Option<DeepBudget>,
    /// Non-temporal stores for data a pass will not read back.
    pub stream: Option<bool>,
    /// Transpose a lane-major message into the buffer before the passes.
    pub transpose_first: Option<bool>,
    /// Gathered passes (sweeps before the deep pass), at least as many as the L2 unit needs and
    /// at most one per layer to gather: more passes take fewer layers each, so their groups
    /// have fewer rows and take more residues.
    pub gathered_passes: Option<u32>,
}

impl PlanConfig {
    /// Each setting of `self`, or `fallback`'s where `self` leaves it unforced.
    pub fn or(&self, fallback: &PlanConfig) -> PlanConfig {
        PlanConfig {
            l2_bytes: self.l2_bytes.or(fallback.l2_bytes),
            l3_bytes: self.l3_bytes.or(fallback.l3_bytes),
            wide: self.wide.or(fallback.wide),
            log_residues: self.log_residues.or(fallback.log_residues),
            deep: self.deep.or(fallback.deep),
            stream: self.stream.or(fallback.stream),
            transpose_first: self.transpose_first.or(fallback.transpose_first),
            gathered_passes: self.gathered_passes.or(fallback.gathered_passes),
        }
    }
}
