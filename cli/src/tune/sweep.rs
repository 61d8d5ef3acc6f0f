//! The candidate planner settings of a tuning sweep.

use ntt_pcs::plan::Plan;
use ntt_pcs::{DeepBudget, PlanConfig};
use serde::Serialize;

/// Plan families a plot draws as separate series.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Family {
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
    /// More gathered passes (sweeps) than the L2 unit needs: fewer layers each, more residues.
    Sweeps,
    /// A lane-major message transposed first, or not, against the planner's choice.
    Transpose,
}

/// One configuration to measure.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Candidate {
    pub label: String,
    pub family: Family,
    pub config: PlanConfig,
}

/// How far the sweep reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Depth {
    /// Budgets at 1/4..2× the derived ones; a couple of residue counts.
    Default,
    /// Budgets at 1/16..8×, every residue count, streaming on and off.
    Full,
}

/// The candidates around `current`, the plan the planner makes now (from the topology, nothing
/// forced): its L2 and L3 units are the 1× points of the budget sweeps, so the sweep brackets
/// the planner's real choice.
pub(crate) fn candidates(current: &Plan, depth: Depth) -> Vec<Candidate> {
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
    out.extend(structure_candidates(current, depth));
    out
}

/// The candidates that change the plan's structure rather than a budget: more gathered passes,
/// the other transpose choice, and (`Full`) streaming stores on and off.
fn structure_candidates(current: &Plan, depth: Depth) -> Vec<Candidate> {
    let mut out = Vec::new();
    let extra_passes: &[u32] = match depth {
        Depth::Default => &[1],
        Depth::Full => &[1, 2],
    };
    for &extra in extra_passes {
        let passes = current.gathered.len() as u32 + extra;
        out.push(Candidate {
            label: format!("gathered-passes={passes}"),
            family: Family::Sweeps,
            config: PlanConfig {
                gathered_passes: Some(passes),
                ..PlanConfig::default()
            },
        });
    }
    // The transpose choice matters where a gathered pass would read a lane-major message.
    if current.layout == Some(ntt_pcs::MessageLayout::Lanes) && !current.gathered.is_empty() {
        let transpose = !current.transpose_first;
        out.push(Candidate {
            label: format!("transpose-first={transpose}"),
            family: Family::Transpose,
            config: PlanConfig {
                transpose_first: Some(transpose),
                ..PlanConfig::default()
            },
        });
    }
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

/// Whether two plans do the same work: the same passes, sink and stores for the same shape,
/// message, workers and backend. What a plan only records (its cache units, the forced values,
/// the gate's reason) changes nothing that runs, so candidates that differ only there are one
/// point of the sweep.
pub(crate) fn same_work(a: &Plan, b: &Plan) -> bool {
    a.shape == b.shape
        && a.layout == b.layout
        && a.workers == b.workers
        && a.backend == b.backend
        && a.transpose_first == b.transpose_first
        && a.transpose_stream == b.transpose_stream
        && a.gathered == b.gathered
        && a.deep == b.deep
        && a.replicate_only == b.replicate_only
        && a.sink == b.sink
        && a.stream == b.stream
}

/// The candidates' plans grouped by [`same_work`]: indices into `plans`, each group in order and
/// the groups in order of their first member, which is the one timed.
pub(crate) fn same_work_groups(plans: &[Plan]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, plan) in plans.iter().enumerate() {
        match groups.iter_mut().find(|g| same_work(&plans[g[0]], plan)) {
            Some(group) => group.push(i),
            None => groups.push(vec![i]),
        }
    }
    groups
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
        plan_with(PlanConfig::default())
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

    /// The sweep reaches past the planner's sweep count and its transpose choice, and those
    /// candidates plan differently from the default.
    #[test]
    fn the_sweep_tries_more_sweeps_and_the_other_transpose_choice() {
        let default = current();
        let c = candidates(&default, Depth::Full);
        let passes: Vec<u32> = c.iter().filter_map(|c| c.config.gathered_passes).collect();
        let have = default.gathered.len() as u32;
        assert_eq!(passes, vec![have + 1, have + 2]);
        let transpose = c
            .iter()
            .find(|c| c.family == Family::Transpose)
            .expect("a lane-major plan tries the other transpose choice");
        let other = plan_with(transpose.config.clone());
        assert_ne!(other.transpose_first, default.transpose_first);
        assert!(!same_work(&other, &default));
        let more = plan_with(PlanConfig {
            gathered_passes: Some(have + 1),
            ..PlanConfig::default()
        });
        assert_eq!(more.gathered.len() as u32, have + 1, "{more}");
    }

    fn plan_with(config: PlanConfig) -> Plan {
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
            &config,
        )
    }

    /// Forcing what the planner chose anyway, or an L2 unit a little off that places the same
    /// passes, records different budgets but does the same work: one point. A much smaller unit
    /// changes the passes: another point.
    #[test]
    fn plans_differing_only_in_recorded_budgets_are_one_point() {
        let default = current();
        let forced_same = plan_with(PlanConfig {
            wide: Some(default.wide),
            ..PlanConfig::default()
        });
        let nearby = plan_with(PlanConfig {
            l2_bytes: Some((2 << 20) + 4096),
            ..PlanConfig::default()
        });
        let small = plan_with(PlanConfig {
            l2_bytes: Some(16 << 10),
            ..PlanConfig::default()
        });
        assert_ne!(forced_same, default, "the forced value is recorded");
        assert_ne!(nearby.l2_unit_bytes, default.l2_unit_bytes);
        assert!(same_work(&forced_same, &default));
        assert!(same_work(&nearby, &default), "{nearby}\n{default}");
        assert!(!same_work(&small, &default), "{small}");
        let groups = same_work_groups(&[default, small.clone(), forced_same, nearby, small]);
        assert_eq!(groups, vec![vec![0, 2, 3], vec![1, 4]]);
    }

    /// The default sweep around a real plan has candidates that repeat a plan: they are timed
    /// once, and every candidate is in exactly one group.
    #[test]
    fn the_sweep_times_each_distinct_plan_once() {
        let c = candidates(&current(), Depth::Default);
        let plans: Vec<Plan> = c.iter().map(|c| plan_with(c.config.clone())).collect();
        let groups = same_work_groups(&plans);
        assert!(groups.len() < c.len(), "some candidates repeat a plan");
        let mut members: Vec<usize> = groups.iter().flatten().copied().collect();
        members.sort_unstable();
        assert_eq!(members, (0..c.len()).collect::<Vec<_>>());
        assert_eq!(groups[0][0], 0, "the default is timed");
        for (i, a) in groups.iter().enumerate() {
            for b in &groups[i + 1..] {
                assert!(!same_work(&plans[a[0]], &plans[b[0]]));
            }
        }
    }

    #[test]
    fn full_sweeps_more() {
        assert!(candidates(&current(), Depth::Full).len() > candidates(&current(), Depth::Default).len());
    }
}
