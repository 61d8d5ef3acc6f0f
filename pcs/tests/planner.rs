//! The planner is a pure function of its inputs, follows the pool's budgets, explains itself
//! and serialises.

use ntt_kernels::BackendKind;
use ntt_pcs::plan::{Plan, plan, plan_in_place};
use ntt_pcs::{DeepBudget, Expansion, MessageLayout, PlanConfig, Shape};
use ntt_runtime::WorkerBudget;

fn target() -> Shape {
    Shape::new(19, 64, 1).expect("valid shape")
}

fn budgets(workers: usize, l2: usize, l3: usize) -> Vec<WorkerBudget> {
    vec![
        WorkerBudget {
            l2_bytes: l2,
            l3_bytes: l3,
        };
        workers
    ]
}

fn layers_covered(p: &Plan) -> u32 {
    p.gathered.iter().map(|g| g.log_group_rows).sum::<u32>()
        + p.deep.as_ref().map_or(0, |d| p.shape.log_rows() - d.first_layer)
}

#[test]
fn plans_follow_the_budgets() {
    let backend = BackendKind::Portable;
    let cfg = PlanConfig::default();
    let big = plan(
        target(),
        MessageLayout::Rows,
        1,
        &budgets(1, 2 << 20, 300 << 20),
        backend,
        &cfg,
    );
    let small = plan(
        target(),
        MessageLayout::Rows,
        1,
        &budgets(1, 128 << 10, 256 << 10),
        backend,
        &cfg,
    );
    // Small L2, larger L3, buffer far past the LLC: the L3 deep pass saves the third sweep.
    let tiered = plan(
        target(),
        MessageLayout::Rows,
        1,
        &budgets(1, 128 << 10, 8 << 20),
        backend,
        &cfg,
    );
    assert_eq!(big.log_fit_l2, 12, "{big}");
    assert_eq!(small.log_fit_l2, 8, "{small}");
    assert_eq!(big.sweeps(), 2, "{big}");
    assert_eq!(small.sweeps(), 3, "{small}");
    assert_eq!(tiered.sweeps(), 2, "{tiered}");
    assert_eq!(
        tiered.deep.as_ref().map(|d| d.budget),
        Some(DeepBudget::L3),
        "{tiered}"
    );
    assert_eq!(big.deep.as_ref().map(|d| d.budget), Some(DeepBudget::L2), "{big}");
    for p in [&big, &small, &tiered] {
        assert_eq!(layers_covered(p), target().log_message_rows(), "{p}");
        for g in &p.gathered {
            assert!(
                g.group_bytes <= 2 * p.l2_unit_bytes,
                "group over twice the unit: {p}"
            );
        }
    }
    // Plain stores unless forced, inside the LLC or past it.
    assert!(!big.stream, "{big}");
    assert!(!small.stream, "{small}");
    // Same inputs, same plan.
    assert_eq!(
        big,
        plan(
            target(),
            MessageLayout::Rows,
            1,
            &budgets(1, 2 << 20, 300 << 20),
            backend,
            &cfg
        )
    );
}

/// Among placements with as few radix steps, the gathered pass gets a full radix-8 step: with a
/// 2 MiB unit (12 layers of 64 lanes), 2^14 rows run 3 + 10 rather than 1 + 12 or 2 + 11, and
/// 2^15 rows 3 + 11 rather than 2 + 12; where a pass already has 3 layers (2^16: 3 + 12) or more
/// (2^17: 4 + 12) the deep pass keeps the whole unit.
#[test]
fn the_gathered_pass_gets_a_full_radix_step() {
    let b = budgets(1, 2 << 20, 300 << 20);
    for (log_rows, gathered, deep) in [(14, 3, 10), (15, 3, 11), (16, 3, 12), (17, 4, 12)] {
        let shape = Shape::new(log_rows, 64, 1).expect("valid shape");
        let p = plan_in_place(shape, 1, &b, BackendKind::Portable, &PlanConfig::default());
        let split: Vec<u32> = p.gathered.iter().map(|g| g.log_group_rows).collect();
        assert_eq!(split, [gathered], "{p}");
        assert_eq!(
            p.deep.as_ref().map(|d| log_rows - d.first_layer),
            Some(deep),
            "{p}"
        );
        assert_eq!(p.sweeps(), 2, "{p}");
    }
}

/// The backend is recorded, not consulted: any kind plans, whether or not this CPU runs it, and
/// every kind gets the same passes.
#[test]
fn the_backend_kind_is_recorded_and_changes_no_pass() {
    let b = budgets(2, 2 << 20, 150 << 20);
    let cfg = PlanConfig::default();
    let portable = plan(target(), MessageLayout::Lanes, 2, &b, BackendKind::Portable, &cfg);
    for kind in BackendKind::ALL {
        let p = plan(target(), MessageLayout::Lanes, 2, &b, kind, &cfg);
        assert_eq!(p.backend, kind);
        let mut as_portable = p.clone();
        as_portable.backend = BackendKind::Portable;
        assert_eq!(as_portable, portable, "{kind:?}");
    }
}

#[test]
fn forced_values_override_the_topology() {
    let backend = BackendKind::Portable;
    let b = budgets(2, 2 << 20, 150 << 20);
    let forced = PlanConfig {
        l2_bytes: Some(64 << 10),
        wide: Some(false),
        stream: Some(true),
        deep: Some(DeepBudget::L3),
        l3_bytes: Some(1 << 20),
        log_residues: None,
        transpose_first: Some(true),
        gathered_passes: Some(2),
    };
    let p = plan_in_place(target(), 2, &b, backend, &forced);
    assert_eq!(p.l2_unit_bytes, 64 << 10);
    assert!(!p.wide && p.stream);
    assert!(p.gathered.iter().all(|g| g.log_residues == 0), "{p}");
    assert_eq!(p.deep.as_ref().map(|d| d.budget), Some(DeepBudget::L3), "{p}");
    assert_eq!(layers_covered(&p), 18, "{p}");
    assert_eq!(p.gathered.len(), 2, "{p}");
}

/// The explanation names the backend as `NTT_BACKEND` and every report spell it.
#[test]
fn plan_text_names_the_backend_in_lower_case() {
    for backend in BackendKind::ALL {
        let p = plan(
            target(),
            MessageLayout::Lanes,
            2,
            &budgets(2, 2 << 20, 150 << 20),
            backend,
            &PlanConfig::default(),
        );
        let header = p.to_string().lines().next().expect("a header").to_owned();
        assert!(
            header.ends_with(&format!("backend {}", backend.name())),
            "{header}"
        );
        assert_eq!(backend.name(), backend.name().to_lowercase());
    }
}

#[test]
fn plans_explain_themselves_and_serialise() {
    let p = plan(
        target(),
        MessageLayout::Lanes,
        2,
        &budgets(2, 2 << 20, 150 << 20),
        BackendKind::Portable,
        &PlanConfig::default(),
    );
    let text = p.to_string();
    for needle in [
        "gathered",
        "deep",
        "sweeps of the buffer: 2",
        "sink",
        "lane-major",
    ] {
        assert!(text.contains(needle), "{needle} missing from:\n{text}");
    }
    assert!(p.summary().starts_with("2 sweeps"), "{}", p.summary());
    let json = serde_json::to_string(&p).expect("serialises");
    let back: Plan = serde_json::from_str(&json).expect("deserialises");
    assert_eq!(back, p);
    let cfg: PlanConfig = serde_json::from_str(r#"{"wide": true, "deep": "l3"}"#).expect("config json");
    assert_eq!(cfg.wide, Some(true));
    assert_eq!(cfg.deep, Some(DeepBudget::L3));
    assert_eq!(cfg.l2_bytes, None);
    assert_eq!("lanes".parse::<MessageLayout>(), Ok(MessageLayout::Lanes));
    assert_eq!("rows".parse::<MessageLayout>(), Ok(MessageLayout::Rows));
    assert!("columns".parse::<MessageLayout>().is_err());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 512, ..Default::default() })]

    /// Every plan runs each layer from r to log_rows exactly once, in order, within its budgets.
    #[test]
    fn every_plan_covers_every_layer_once(
        log_rows in 0u32..=40,
        lanes in 1usize..=1000,
        r in 0u32..=6,
        workers in 1usize..=64,
        log_l2 in 6u32..=23,
        log_l3_extra in 0u32..=8,
        in_place in proptest::prelude::any::<bool>(),
    ) {
        let shape = Shape::with_expansion(log_rows, lanes, r.min(log_rows), Expansion::Unbounded).expect("valid shape");
        let b = budgets(workers, 1 << log_l2, 1 << (log_l2 + log_l3_extra));
        let cfg = PlanConfig::default();
        let p = if in_place {
            plan_in_place(shape, workers, &b, BackendKind::Portable, &cfg)
        } else {
            plan(shape, MessageLayout::Lanes, workers, &b, BackendKind::Portable, &cfg)
        };
        let mut layer = shape.log_inv_rate();
        for g in &p.gathered {
            proptest::prop_assert_eq!(g.first_layer, layer, "{}", p);
            proptest::prop_assert!(g.log_group_rows >= 1 && g.log_group_rows <= p.log_fit_l2, "{}", p);
            proptest::prop_assert!(g.log_residues <= g.log_step, "{}", p);
            layer += g.log_group_rows;
        }
        proptest::prop_assert_eq!(layer, p.deep_start, "{}", p);
        if let Some(d) = &p.deep {
            proptest::prop_assert_eq!(d.first_layer, layer, "{}", p);
        } else {
            proptest::prop_assert_eq!(layer, log_rows, "{}", p);
        }
        proptest::prop_assert!(p.sink.log_block_rows <= log_rows, "{}", p);
    }
}
