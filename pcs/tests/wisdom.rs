//! Wisdom files: round trips, foreign or broken files ignored, and the planner following them.

use ntt_kernels::Backend;
use ntt_pcs::wisdom::{self, ShapeClass, Wisdom, WisdomEntry, WisdomStatus};
use ntt_pcs::{CommitParams, Committer, Encoder, MessageLayout, PlanConfig, SetupError, Shape};
use ntt_runtime::{ThreadPoolBuilder, Topology};
use std::path::PathBuf;
use std::sync::Arc;

fn temp_file(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ntt-wisdom-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("wisdom.json")
}

fn encoder() -> Encoder {
    Encoder::builder()
        .workers(2)
        .backend(Backend::portable())
        .build()
        .expect("encoder")
}

fn target() -> Shape {
    Shape::new(17, 64, 1).expect("valid shape")
}

/// Wisdom for this machine that forces a plan the topology would not choose for [`target()`].
fn forcing_wisdom(topology: &Topology, encoder: &Encoder) -> Wisdom {
    let derived = encoder.plan(target(), MessageLayout::Lanes);
    let derived_json = serde_json::to_string(&derived).unwrap();
    // A tiny L2 unit changes the number of passes whatever the machine.
    let config = PlanConfig {
        l2_bytes: Some(16 * 1024),
        ..PlanConfig::default()
    };
    let forced = encoder
        .clone()
        .with_config(config.clone())
        .plan(target(), MessageLayout::Lanes);
    assert_ne!(
        serde_json::to_string(&forced).unwrap(),
        derived_json,
        "the forced setting must matter"
    );
    let mut w = Wisdom::for_machine(topology);
    w.insert(WisdomEntry {
        class: ShapeClass::of(target(), 2),
        config,
        speedup: 1.3,
        significant: true,
    });
    w
}

#[test]
fn wisdom_round_trips_through_its_file() {
    let enc = encoder();
    let topology = enc.pool().topology().clone();
    let w = forcing_wisdom(&topology, &enc);
    let path = temp_file("round-trip");
    w.save(&path).unwrap();
    let (loaded, status) = wisdom::load_from(&path, &topology);
    assert_eq!(loaded.as_ref(), Some(&w));
    assert!(
        matches!(status, WisdomStatus::InUse { entries: 1, .. }),
        "{status:?}"
    );
}

#[test]
fn the_plan_follows_matching_wisdom_only_for_its_class() {
    let enc = encoder();
    let topology = enc.pool().topology().clone();
    let w = Arc::new(forcing_wisdom(&topology, &enc));
    let wise = enc.clone().with_wisdom(Some(w.clone()));
    let json = |e: &Encoder, s: Shape| serde_json::to_string(&e.plan(s, MessageLayout::Lanes)).unwrap();
    assert_ne!(json(&wise, target()), json(&enc, target()));
    assert_eq!(
        json(&wise, target()),
        json(&enc.clone().with_config(w.entries[0].config.clone()), target())
    );
    // A shape far from every entry plans as before.
    let far = Shape::new(8, 4, 1).expect("valid shape");
    assert_eq!(json(&wise, far), json(&enc, far));
    // Settings forced by the caller win over wisdom.
    let forced = PlanConfig {
        l2_bytes: Some(64 * 1024),
        ..PlanConfig::default()
    };
    assert_eq!(
        json(&wise.clone().with_config(forced.clone()), target()),
        json(&enc.clone().with_config(forced), target())
    );
}

/// Saves racing on one path (four threads, two contents) all succeed, leave the file whole (one
/// of the saves) and leave no temporary file behind.
#[test]
fn concurrent_saves_all_succeed_and_leave_one_whole_file() {
    let enc = encoder();
    let topology = enc.pool().topology().clone();
    let first = forcing_wisdom(&topology, &enc);
    let mut second = first.clone();
    second.insert(WisdomEntry {
        class: ShapeClass::of(Shape::new(21, 64, 1).expect("valid shape"), 2),
        config: PlanConfig::default(),
        speedup: 1.1,
        significant: false,
    });
    assert_ne!(first, second);
    let path = temp_file("concurrent");
    let start = std::sync::Barrier::new(4);
    std::thread::scope(|scope| {
        for w in [&first, &second, &first, &second] {
            let (path, start) = (&path, &start);
            scope.spawn(move || {
                start.wait();
                for _ in 0..200 {
                    w.save(path).expect("a concurrent save succeeds");
                }
            });
        }
    });
    let (loaded, status) = wisdom::load_from(&path, &topology);
    let loaded = loaded.unwrap_or_else(|| panic!("a whole file: {status:?}"));
    assert!(loaded == first || loaded == second);
    let dir = path.parent().expect("a directory");
    let names: Vec<_> = std::fs::read_dir(dir)
        .expect("the directory")
        .map(|e| e.expect("an entry").file_name())
        .collect();
    assert_eq!(names, ["wisdom.json"]);
}

#[test]
fn wisdom_from_another_machine_is_ignored() {
    let enc = encoder();
    let topology = enc.pool().topology().clone();
    let mut w = forcing_wisdom(&topology, &enc);
    w.fingerprint = "0000000000000000".to_owned();
    let path = temp_file("foreign");
    w.save(&path).unwrap();
    let (loaded, status) = wisdom::load_from(&path, &topology);
    assert!(loaded.is_none());
    assert!(
        matches!(&status, WisdomStatus::Ignored { reason, .. } if reason.contains("another machine")),
        "{status:?}"
    );
}

#[test]
fn corrupt_truncated_and_missing_wisdom_is_ignored() {
    let enc = encoder();
    let topology = enc.pool().topology().clone();
    let w = forcing_wisdom(&topology, &enc);
    let path = temp_file("corrupt");
    w.save(&path).unwrap();
    let full = std::fs::read(&path).unwrap();
    for bad in [
        &full[..full.len() / 2],
        b"{ not json".as_slice(),
        b"".as_slice(),
        b"[1,2,3]".as_slice(),
    ] {
        std::fs::write(&path, bad).unwrap();
        let (loaded, status) = wisdom::load_from(&path, &topology);
        assert!(loaded.is_none());
        assert!(matches!(status, WisdomStatus::Ignored { .. }), "{status:?}");
    }
    // A key given twice, at the top or inside an entry, is refused, not read as its last value.
    let text = String::from_utf8(full.clone()).unwrap();
    for twice in [
        text.replacen('{', "{\"format_version\": 1,", 1),
        text.replacen("\"speedup\"", "\"speedup\": 9.0, \"speedup\"", 1),
    ] {
        std::fs::write(&path, &twice).unwrap();
        let (loaded, status) = wisdom::load_from(&path, &topology);
        assert!(loaded.is_none(), "{twice}");
        assert!(
            matches!(&status, WisdomStatus::Ignored { reason, .. } if reason.contains("duplicate field")),
            "{status:?}"
        );
    }
    let mut other_version = w.clone();
    other_version.format_version += 1;
    other_version.save(&path).unwrap();
    assert!(matches!(
        wisdom::load_from(&path, &topology).1,
        WisdomStatus::Ignored { .. }
    ));
    std::fs::remove_file(&path).unwrap();
    assert!(matches!(
        wisdom::load_from(&path, &topology).1,
        WisdomStatus::Absent { .. }
    ));
}

#[test]
fn only_a_small_regular_file_is_read_as_wisdom() {
    let topology = encoder().pool().topology().clone();
    // A directory (as a FIFO or a device would be) is not read at all: no hang, no endless read.
    let dir = temp_file("not-regular");
    let dir = dir.parent().unwrap();
    let (loaded, status) = wisdom::load_from(dir, &topology);
    assert!(loaded.is_none());
    assert!(
        matches!(&status, WisdomStatus::Ignored { reason, .. } if reason.contains("not a regular file")),
        "{status:?}"
    );
    let path = temp_file("huge");
    std::fs::write(&path, vec![b' '; 2 << 20]).unwrap();
    let (loaded, status) = wisdom::load_from(&path, &topology);
    assert!(loaded.is_none());
    assert!(
        matches!(&status, WisdomStatus::Ignored { reason, .. } if reason.contains("more than")),
        "{status:?}"
    );
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn the_fingerprint_ignores_the_worker_count_but_not_the_caches() {
    let one = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let eight = ThreadPoolBuilder::new().num_threads(8).build().unwrap();
    assert_eq!(
        wisdom::fingerprint(one.topology()),
        wisdom::fingerprint(eight.topology())
    );
    let mut changed = one.topology().clone();
    for c in changed.caches.iter_mut().filter(|c| c.level == 2) {
        c.size_bytes *= 2;
    }
    assert_ne!(wisdom::fingerprint(&changed), wisdom::fingerprint(one.topology()));
}

/// An encoder on `enc`'s pool, asked for the wisdom at `path`.
fn wise_encoder(enc: &Encoder, path: &std::path::Path) -> Result<Encoder, SetupError> {
    Encoder::builder()
        .pool(enc.pool().clone())
        .backend(enc.backend())
        .wisdom(path)
        .build()
}

#[test]
fn the_builders_wisdom_changes_the_plan_not_the_root() {
    let enc = encoder();
    let topology = enc.pool().topology().clone();
    let w = forcing_wisdom(&topology, &enc);
    let path = temp_file("builder");
    w.save(&path).unwrap();
    let wise = wise_encoder(&enc, &path).expect("the builder reads the wisdom");
    assert!(
        matches!(wise.wisdom_status(), Some(WisdomStatus::InUse { entries: 1, .. })),
        "{:?}",
        wise.wisdom_status()
    );
    assert_eq!(enc.wisdom_status(), None);
    let plan = |e: &Encoder| e.plan(target(), MessageLayout::Lanes);
    let forced = enc.clone().with_config(w.entries[0].config.clone());
    assert_eq!(plan(&wise), plan(&forced));
    assert_ne!(plan(&wise), plan(&enc));
    // Plans differ, bytes do not.
    let params = CommitParams::lanes(target().lanes()).log_inv_rate(1);
    let witness: Vec<u64> = (0..(target().lanes() << (target().log_rows() - 1)) as u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .collect();
    let root = |e: &Encoder| {
        Committer::new(e.clone())
            .commit(&witness, params)
            .expect("commits")
            .0
            .root_hex()
    };
    assert_eq!(root(&wise), root(&enc));
}

#[test]
fn the_builder_ignores_another_machines_wisdom() {
    let enc = encoder();
    let topology = enc.pool().topology().clone();
    let mut w = forcing_wisdom(&topology, &enc);
    w.fingerprint = "0000000000000000".to_owned();
    let path = temp_file("builder-foreign");
    w.save(&path).unwrap();
    let wise = wise_encoder(&enc, &path).expect("foreign wisdom is not an error");
    assert!(
        matches!(wise.wisdom_status(), Some(WisdomStatus::Ignored { reason, .. }) if reason.contains("another machine")),
        "{:?}",
        wise.wisdom_status()
    );
    assert_eq!(
        wise.plan(target(), MessageLayout::Lanes),
        enc.plan(target(), MessageLayout::Lanes)
    );
}

#[test]
fn the_builder_refuses_malformed_or_missing_wisdom() {
    let enc = encoder();
    let path = temp_file("builder-malformed");
    for bad in [b"{ not json".as_slice(), b"[1,2,3]".as_slice()] {
        std::fs::write(&path, bad).unwrap();
        let err = wise_encoder(&enc, &path).expect_err("malformed wisdom is an error");
        assert!(
            matches!(&err, SetupError::Wisdom(e) if e.path == path && e.reason.contains("not valid wisdom JSON")),
            "{err:?}"
        );
        assert!(err.is_bad_input());
    }
    std::fs::remove_file(&path).unwrap();
    let err = wise_encoder(&enc, &path).expect_err("a missing file named is an error");
    assert!(
        matches!(&err, SetupError::Wisdom(e) if e.reason == "no such file"),
        "{err:?}"
    );
    let err = wise_encoder(&enc, path.parent().unwrap()).expect_err("a directory is not wisdom");
    assert!(matches!(&err, SetupError::Wisdom(_)), "{err:?}");
}
