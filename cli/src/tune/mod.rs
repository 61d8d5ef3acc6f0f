//! Cache-budget tuning experiments: which planner settings run fastest on this machine.
//!
//! [`sweep`] lists the candidate settings, [`measure`] times them interleaved, [`report`] turns
//! the samples into medians, spreads and files, [`plot`] draws them.

pub(crate) mod measure;
pub(crate) mod plot;
pub(crate) mod report;
pub(crate) mod sweep;
