//! Summaries and files of a tuning run (its plot: [`super::plot`]).

use super::sweep::{Candidate, Family};
use crate::report::count;
use crate::stats::Spread;
use ntt_kernels::BackendKind;
use serde::Serialize;
use std::fmt::Write as _;
use std::time::Duration;

/// The shape, worker count and backend one group of candidates ran at.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub(crate) struct Setting {
    pub log_n: u32,
    pub lanes: usize,
    pub log_inv_rate: u32,
    pub threads: usize,
    pub backend: BackendKind,
    /// The L2 unit of the plan the planner makes now (the sweep's 1× point).
    pub planner_l2_bytes: usize,
}

impl Setting {
    pub(crate) fn name(&self) -> String {
        format!(
            "2^{} words, {}, rate 1/{}, {}, {}",
            self.log_n,
            count(self.lanes, "lane"),
            1u32 << self.log_inv_rate,
            count(self.threads, "thread"),
            format!("{:?}", self.backend).to_lowercase()
        )
    }
}

/// One candidate's measurements at one setting.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Measured {
    pub setting: Setting,
    pub candidate: Candidate,
    /// The plan's one-line summary, so equal plans can be seen for what they are.
    pub plan: String,
    /// The other candidates whose plan does the same work: not timed again, this is their point.
    pub same_plan: Vec<String>,
    /// The candidates `same_plan` names (for the plot, which marks where they lie).
    #[serde(skip)]
    pub same_plan_candidates: Vec<Candidate>,
    pub samples_ms: Vec<f64>,
    pub ms: Spread,
}

impl Measured {
    pub(crate) fn new(setting: Setting, candidate: Candidate, plan: String, samples: &[Duration]) -> Self {
        Self {
            setting,
            candidate,
            plan,
            same_plan: Vec::new(),
            same_plan_candidates: Vec::new(),
            samples_ms: samples.iter().map(|&d| crate::report::ms(d)).collect(),
            ms: crate::stats::spread_ms(samples),
        }
    }
}

/// The verdict for one setting.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Best {
    pub setting: Setting,
    pub best: String,
    pub best_ms: f64,
    pub default_ms: f64,
    /// default median / best median.
    pub speedup: f64,
    /// Whether the gap between the medians exceeds both candidates' spread (max − min).
    pub significant: bool,
}

/// The fastest candidate of each setting against that setting's default.
pub(crate) fn best_per_setting(results: &[Measured]) -> Vec<Best> {
    let mut settings: Vec<Setting> = Vec::new();
    for r in results {
        if !settings.contains(&r.setting) {
            settings.push(r.setting);
        }
    }
    settings
        .into_iter()
        .filter_map(|s| {
            let group: Vec<&Measured> = results.iter().filter(|r| r.setting == s).collect();
            let default = group
                .iter()
                .find(|r| r.candidate.family == Family::Default && r.candidate.label == "default")?;
            let best = group.iter().min_by(|a, b| a.ms.median.total_cmp(&b.ms.median))?;
            let spread = |m: &Measured| m.ms.max - m.ms.min;
            let gap = default.ms.median - best.ms.median;
            Some(Best {
                setting: s,
                best: best.candidate.label.clone(),
                best_ms: best.ms.median,
                default_ms: default.ms.median,
                speedup: default.ms.median / best.ms.median,
                significant: gap > spread(best).max(spread(default)),
            })
        })
        .collect()
}

/// One row per sample.
pub(crate) fn csv(results: &[Measured]) -> String {
    let mut out = String::from(
        "log_n,lanes,log_inv_rate,threads,backend,label,family,l2_bytes,l3_bytes,wide,log_residues,deep,round,ms\n",
    );
    for r in results {
        let c = &r.candidate.config;
        let opt = |v: Option<String>| v.unwrap_or_default();
        for (round, ms) in r.samples_ms.iter().enumerate() {
            let _ = writeln!(
                out,
                "{},{},{},{},{},{},{:?},{},{},{},{},{},{round},{ms:.4}",
                r.setting.log_n,
                r.setting.lanes,
                r.setting.log_inv_rate,
                r.setting.threads,
                format!("{:?}", r.setting.backend).to_lowercase(),
                r.candidate.label,
                r.candidate.family,
                opt(c.l2_bytes.map(|v| v.to_string())),
                opt(c.l3_bytes.map(|v| v.to_string())),
                opt(c.wide.map(|v| v.to_string())),
                opt(c.log_residues.map(|v| v.to_string())),
                opt(c.deep.map(|v| v.to_string())),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ntt_pcs::PlanConfig;

    fn measured(label: &str, family: Family, ms: &[u64]) -> Measured {
        let setting = Setting {
            log_n: 10,
            lanes: 4,
            log_inv_rate: 1,
            threads: 1,
            backend: BackendKind::Portable,
            planner_l2_bytes: 8192,
        };
        let samples: Vec<Duration> = ms.iter().map(|&m| Duration::from_millis(m)).collect();
        let config = PlanConfig {
            l2_bytes: Some(4096),
            ..PlanConfig::default()
        };
        Measured::new(
            setting,
            Candidate {
                label: label.into(),
                family,
                config,
            },
            String::new(),
            &samples,
        )
    }

    #[test]
    fn best_is_compared_with_the_default_and_its_spread() {
        let clear = best_per_setting(&[
            measured("default", Family::Default, &[100, 101, 102]),
            measured("fast", Family::Narrow, &[50, 51, 52]),
        ]);
        assert_eq!(clear[0].best, "fast");
        assert!((clear[0].speedup - 101.0 / 51.0).abs() < 1e-9);
        assert!(clear[0].significant);
        let noisy = best_per_setting(&[
            measured("default", Family::Default, &[60, 100, 140]),
            measured("fast", Family::Narrow, &[90, 95, 99]),
        ]);
        assert!(!noisy[0].significant);
    }

    #[test]
    fn csv_has_a_row_per_sample_and_the_plot_renders() {
        let results = [
            measured("default", Family::Default, &[3, 4]),
            measured("n", Family::Narrow, &[1, 2]),
        ];
        assert_eq!(csv(&results).lines().count(), 1 + 4);
        let plot = super::super::plot::TunePlot {
            results: &results,
            machine: "Test CPU",
        };
        let svg = ntt_plot::svg(&plot).unwrap();
        assert!(svg.contains("<svg") && svg.contains("narrow") && svg.contains("Test CPU"));
        // SVG escapes the apostrophe.
        assert!(
            svg.contains("planner&apos;s L2 unit") || svg.contains("planner's L2 unit"),
            "the derived budget is marked"
        );
        assert!(
            svg.contains("1 thread, backend portable"),
            "one panel per worker count"
        );
        assert!(ntt_plot::png(&plot).unwrap().len() > 1000);
    }
}
