//! The plans an encoder has made, kept for its next calls of the same shape.
//!
//! Planning a 2^10-word encode costs about as much as a tenth of its butterflies; a prover makes
//! the same few shapes over and over (WHIR's rounds, each matrix of a circuit). A plan depends on
//! the shape and the message layout, and on the pool, backend, forced values and wisdom, which
//! are fixed for one cache: the encoder starts a fresh cache whenever it changes one of those.

use crate::plan::Plan;
use crate::shape::{MessageLayout, Shape};
use std::sync::{Arc, Mutex};

/// Plans kept, at most: more distinct shapes than a prover's rounds and matrices use, and a
/// linear scan of them costs less than a tenth of a plan.
pub(super) const CAPACITY: usize = 32;

/// What a cached plan was made for (beyond what the whole cache shares).
type Key = (Shape, Option<MessageLayout>);

/// A bounded cache of plans, least recently used evicted first.
#[derive(Debug, Default)]
pub(super) struct PlanCache {
    /// Oldest use first.
    entries: Mutex<Vec<(Key, Arc<Plan>)>>,
}

impl PlanCache {
    /// The plan for `shape` and `layout`: the cached one, else `make()`'s, then cached.
    pub(super) fn get_or_make(
        &self,
        shape: Shape,
        layout: Option<MessageLayout>,
        make: impl FnOnce() -> Plan,
    ) -> Arc<Plan> {
        let key = (shape, layout);
        {
            // A poisoned lock only means another thread panicked while it held it; every entry
            // is a finished plan.
            let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(i) = entries.iter().position(|(k, _)| *k == key) {
                let entry = entries.remove(i);
                let plan = Arc::clone(&entry.1);
                entries.push(entry);
                return plan;
            }
        }
        // Planned outside the lock: two threads may both plan a new shape; both plans are equal.
        let plan = Arc::new(make());
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if !entries.iter().any(|(k, _)| *k == key) {
            if entries.len() == CAPACITY {
                entries.remove(0);
            }
            entries.push((key, Arc::clone(&plan)));
        }
        plan
    }

    /// Plans held now.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.entries.lock().unwrap_or_else(|p| p.into_inner()).len()
    }
}

#[cfg(test)]
mod tests {
    use super::super::Encoder;
    use super::*;
    use crate::plan::PlanConfig;
    use crate::shape::Expansion;

    fn shapes() -> Vec<(Shape, Option<MessageLayout>)> {
        let mut out = Vec::new();
        for lanes in [1usize, 2, 3, 8, 24] {
            for log_rows in [4u32, 9, 13] {
                for r in [0u32, 1, 3] {
                    let shape = Shape::with_expansion(log_rows, lanes, r, Expansion::Unbounded)
                        .expect("a valid shape");
                    for layout in [None, Some(MessageLayout::Rows), Some(MessageLayout::Lanes)] {
                        out.push((shape, layout));
                    }
                }
            }
        }
        out
    }

    /// Every plan the encoder hands out, first made or taken from the cache, equals the
    /// planner's answer made afresh, also once the cache has been cycled through several times
    /// over (it holds at most `CAPACITY` plans).
    #[test]
    fn cached_plans_equal_fresh_ones() {
        let enc = Encoder::builder().workers(2).build().expect("encoder");
        let shapes = shapes();
        assert!(shapes.len() > 3 * CAPACITY);
        for round in 0..3 {
            for &(shape, layout) in shapes.iter().chain(shapes.iter().take(5)) {
                let fresh = enc.fresh_plan(shape, layout);
                assert_eq!(
                    *enc.plan_inner(shape, layout),
                    fresh,
                    "round {round} {shape} {layout:?}"
                );
                assert_eq!(*enc.plan_inner(shape, layout), fresh, "again {shape} {layout:?}");
                assert!(enc.plans.len() <= CAPACITY);
            }
        }
        assert_eq!(enc.plans.len(), CAPACITY);
    }

    /// The plans in use stay cached: a shape used between every new one is planned once.
    #[test]
    fn recently_used_plans_stay() {
        let enc = Encoder::builder().workers(1).build().expect("encoder");
        let shapes = shapes();
        let (hot, hot_layout) = shapes[0];
        let first = enc.plan_inner(hot, hot_layout);
        for &(shape, layout) in &shapes[1..] {
            let _ = enc.plan_inner(shape, layout);
            let again = enc.plan_inner(hot, hot_layout);
            assert!(Arc::ptr_eq(&first, &again), "{shape} {layout:?}");
        }
    }

    /// Forcing planner values starts a fresh cache: the plan follows the new values.
    #[test]
    fn a_new_config_is_not_served_old_plans() {
        let enc = Encoder::builder().workers(1).build().expect("encoder");
        let shape = Shape::with_expansion(12, 4, 1, Expansion::Unbounded).expect("a valid shape");
        let before = enc.plan_in_place(shape);
        let forced = PlanConfig {
            stream: Some(!before.stream),
            ..PlanConfig::default()
        };
        let enc = enc.with_config(forced);
        let after = enc.plan_in_place(shape);
        assert_eq!(after.stream, !before.stream);
        assert_eq!(after, enc.fresh_plan(shape, None));
    }
}
