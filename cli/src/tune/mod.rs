//! Cache-budget tuning experiments: which planner settings run fastest on this machine.
//!
//! [`sweep`] lists the candidate settings, [`measure`] times them interleaved, [`report`] turns
//! the samples into medians, spreads and files, [`plot`] draws them.

pub mod measure;
pub mod plot;
pub mod report;
pub mod sweep;
