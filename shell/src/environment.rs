//! The engine's environment variables, checked before a command runs: every `NTT_*` variable
//! that is set must be valid UTF-8, and those that name something must name something that
//! exists, or the command stops with exit code 2 naming the variable: `NTT_BACKEND`,
//! `NTT_COLUMNS`, `NTT_HUGE_PAGES`, `NTT_FIRST_TOUCH` and `NTT_TOPOLOGY` here. (The pool checks
//! `NTT_THREADS`, `NTT_PIN` and `NTT_IDLE_SPIN_US` when it is built, and `ntt` reads `NTT_LOG` as
//! its logging filter, with the same exit code.)

use ntt_kernels::{BackendKind, ColumnStart};
use ntt_runtime::env::{self, EnvError};
use ntt_runtime::{TOPOLOGY_ENV, TopologySpec};

/// `NTT_WISDOM` is a path, which need not be UTF-8.
const PATH_VARIABLES: [&str; 1] = [ntt_pcs::wisdom::WISDOM_ENV];

/// Checks every `NTT_*` variable of the environment.
///
/// # Errors
/// The [`EnvError`] of the first variable (in name order) that is not UTF-8, then of the first
/// that names nothing.
pub fn check() -> Result<(), EnvError> {
    let mut names: Vec<String> = std::env::vars_os()
        .filter_map(|(name, _)| name.into_string().ok())
        .filter(|name| name.starts_with("NTT_") && !PATH_VARIABLES.contains(&name.as_str()))
        .collect();
    names.sort();
    for name in &names {
        env::var(name)?;
    }
    let named = |name: &str, parse: fn(&str) -> Result<(), String>| env::parse(name, parse).map(drop);
    named("NTT_BACKEND", |v| {
        v.parse::<BackendKind>().map(drop).map_err(|e| e.to_string())
    })?;
    named("NTT_COLUMNS", |v| {
        v.parse::<ColumnStart>().map(drop).map_err(|e| e.to_string())
    })?;
    named(ntt_pcs::HUGE_PAGES_ENV, |v| {
        v.parse::<ntt_pcs::HugePages>().map(drop)
    })?;
    ntt_pcs::check_first_touch_env()?;
    named(TOPOLOGY_ENV, |v| {
        TopologySpec::parse(v).map(drop).map_err(|e| e.to_string())
    })?;
    Ok(())
}
