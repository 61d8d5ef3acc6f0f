//! The candidate planner settings of a tuning sweep.

use ntt_pcs::plan::Plan;
use ntt_pcs::{DeepBudget, PlanConfig};
use serde::Serialize;

/// Plan families a plot draws as separate series.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// The topology-derived plan, nothing forced: the baseline every speed-up is against.
    Default,
    /// One residue per gathered group, L2 budget swept.
    Narrow,
    /// Several adjacent residues per group, L2 budget swept.
    Wide,
    /// Residues per group swept on the wide plan.
    Residues,
    /// The deep pass sized to L3, L3 budget swept.
    DeepL3,
    /// The deep pass forced to L2.
    DeepL2,
}

/// One configuration to measure.
#[derive(Clone, Debug, Serialize)]
pub struct Candidate {
    pub label: String,
    pub family: Family,
    pub config: PlanConfig,
}

/// How far the sweep reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    /// Budgets at 1/4..2× the derived ones; a couple of residue counts.
    Default,
    /// Budgets at 1/16..8×, every residue count, streaming on and off.
    Full,
}

/// The candidates around `current`, the plan the planner makes now (from the topology, nothing
/// forced): its L2 and L3 units are the 1× points of the budget sweeps, so the sweep brackets
/// the planner's real choice.
pub fn candidates(current: &Plan, depth: Depth) -> Vec<Candidate> {
    let l2 = current.l2_unit_bytes.max(4096);
    let l3 = current.l3_unit_bytes.max(l2);
    let (factors, residues): (&[f64], &[u32]) = match depth {
        Depth::Default => (&[0.25, 0.5, 1.0, 2.0], &[3, 6]),
        Depth::Full => (
            &[0.0625, 0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0],
            &[0, 1, 2, 3, 4, 5, 6],
        ),
    };
    let scale = |bytes: usize, f: f64| ((bytes as f64 * f) as usize).max(1024);
    let mut out = vec![Candidate {
        label: "default".into(),
        family: Family::Default,
        config: PlanConfig::default(),
    }];
    for (family, wide) in [(Family::Narrow, false), (Family::Wide, true)] {
        for &f in factors {
            let bytes = scale(l2, f);
            out.push(Candidate {
                label: format!("{}-l2={}K", if wide { "wide" } else { "narrow" }, bytes / 1024),
                family,
                config: PlanConfig {
                    wide: Some(wide),
                    l2_bytes: Some(bytes),
                    ..PlanConfig::default()
                },
            });
        }
    }
    for &log_residues in residues {
        out.push(Candidate {
            label: format!("wide-residues=2^{log_residues}"),
            family: Family::Residues,
            config: PlanConfig {
                wide: Some(true),
                log_residues: Some(log_residues),
                ..PlanConfig::default()
            },
        });
    }
    for &f in factors.iter().filter(|&&f| f >= 0.5) {
        let bytes = scale(l3, f);
        out.push(Candidate {
            label: format!("deep-l3={}K", bytes / 1024),
            family: Family::DeepL3,
            config: PlanConfig {
                deep: Some(DeepBudget::L3),
                l3_bytes: Some(bytes),
                ..PlanConfig::default()
            },
        });
    }
    out.push(Candidate {
        label: "deep-l2".into(),
        family: Family::DeepL2,
        config: PlanConfig {
            deep: Some(DeepBudget::L2),
            ..PlanConfig::default()
        },
    });
    if depth == Depth::Full {
        for stream in [false, true] {
            out.push(Candidate {
                label: format!("stream={stream}"),
                family: Family::Default,
                config: PlanConfig {
                    stream: Some(stream),
                    ..PlanConfig::default()
                },
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ntt_kernels::BackendKind;
    use ntt_pcs::plan::plan_for;
    use ntt_pcs::{MessageLayout, Shape};
    use ntt_runtime::WorkerBudget;

    /// What the planner plans for a worker with a 2 MiB L2 and 32 MiB L3 share.
    fn current() -> Plan {
        let budget = WorkerBudget {
            l2_bytes: 2 << 20,
            l3_bytes: 32 << 20,
        };
        let shape = Shape::new(17, 64, 1).expect("a valid shape");
        plan_for(
            shape,
            Some(MessageLayout::Lanes),
            1,
            &[budget],
            BackendKind::Portable,
            &PlanConfig::default(),
        )
    }

    #[test]
    fn default_comes_first_and_labels_are_unique() {
        for depth in [Depth::Default, Depth::Full] {
            let c = candidates(&current(), depth);
            assert_eq!(c[0].family, Family::Default);
            assert_eq!(c[0].config, PlanConfig::default());
            let mut labels: Vec<_> = c.iter().map(|c| c.label.clone()).collect();
            labels.sort();
            labels.dedup();
            assert_eq!(labels.len(), c.len());
        }
    }

    /// The sweep's 1× points are the units the planner really uses (the whole 2 MiB L2 share,
    /// half the 32 MiB L3 share), so it reaches above them as well as below.
    #[test]
    fn the_one_x_point_is_the_planners_choice() {
        let plan = current();
        assert_eq!((plan.l2_unit_bytes, plan.l3_unit_bytes), (2 << 20, 16 << 20));
        let c = candidates(&plan, Depth::Default);
        let l2s: Vec<usize> = c
            .iter()
            .filter(|c| c.family == Family::Narrow)
            .filter_map(|c| c.config.l2_bytes)
            .collect();
        assert_eq!(l2s, vec![512 << 10, 1 << 20, 2 << 20, 4 << 20]);
        assert!(
            c.iter()
                .any(|c| c.family == Family::DeepL3 && c.config.l3_bytes == Some(16 << 20))
        );
    }

    #[test]
    fn full_sweeps_more() {
        assert!(candidates(&current(), Depth::Full).len() > candidates(&current(), Depth::Default).len());
    }
}
