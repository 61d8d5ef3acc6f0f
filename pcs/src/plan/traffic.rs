//! The memory traffic of a plan: the bytes each of its sweeps reads and writes.
//!
//! Every pass reads its source once and writes the codeword buffer once (a gathered group, a deep
//! sub-block or a transpose chunk is read into cache, worked on there and written back): a pass
//! that reads the message reads 1/2^r of the codeword's bytes, one that reads the buffer all of
//! them, and each writes all of them, but the transpose, which writes the message's rows into
//! replica 0. An unfused sink reads the finished buffer once more. Bytes that a cache keeps
//! between passes are counted anyway: on the sizes where traffic bounds an encode the buffer is
//! larger than the last-level cache. Divided by the machine's copy bandwidth this is the plan's
//! traffic floor, beside its compute floor (its butterflies at the in-cache kernel rate).

use super::{Plan, Source};
use serde::{Deserialize, Serialize};

/// One sweep of a plan over memory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SweepTraffic {
    /// The pass: `transpose`, `gathered 1..7`, `deep 7..19`, `replicate` or `sink`.
    pub pass: String,
    /// Bytes it reads.
    pub read_bytes: usize,
    /// Bytes it writes.
    pub write_bytes: usize,
}

impl SweepTraffic {
    /// Bytes it moves, read and written.
    pub fn bytes(&self) -> usize {
        self.read_bytes + self.write_bytes
    }
}

impl Plan {
    /// The bytes each sweep of the plan reads and writes, in order.
    pub fn traffic(&self) -> Vec<SweepTraffic> {
        let codeword = self.shape.codeword_words() * 8;
        let message = self.shape.message_words() * 8;
        let reads = |source: Source| if source.is_message() { message } else { codeword };
        let sweep = |pass: String, read_bytes, write_bytes| SweepTraffic {
            pass,
            read_bytes,
            write_bytes,
        };
        let mut sweeps = Vec::new();
        if self.transpose_first {
            sweeps.push(sweep("transpose".to_owned(), message, message));
        }
        if self.replicate_only {
            sweeps.push(sweep("replicate".to_owned(), message, codeword));
        }
        for g in &self.gathered {
            let pass = format!("gathered {}..{}", g.first_layer, g.end_layer());
            sweeps.push(sweep(pass, reads(g.source), codeword));
        }
        if let Some(d) = &self.deep {
            let pass = format!("deep {}..{}", d.first_layer, self.shape.log_rows());
            sweeps.push(sweep(pass, reads(d.source), codeword));
        }
        if !self.sink.fused {
            sweeps.push(sweep("sink".to_owned(), codeword, 0));
        }
        sweeps
    }

    /// Bytes the whole plan moves, read and written.
    pub fn traffic_bytes(&self) -> usize {
        self.traffic().iter().map(SweepTraffic::bytes).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{PlanConfig, plan_for};
    use crate::shape::{MessageLayout, Shape};
    use ntt_kernels::BackendKind;
    use ntt_runtime::WorkerBudget;

    fn plan(log_rows: u32, layout: Option<MessageLayout>) -> super::Plan {
        let budget = WorkerBudget {
            l2_bytes: 1 << 20,
            l3_bytes: 16 << 20,
        };
        let shape = Shape::new(log_rows, 64, 1).expect("valid shape");
        plan_for(
            shape,
            layout,
            1,
            &[budget],
            BackendKind::Avx512,
            &PlanConfig::default(),
        )
    }

    #[test]
    fn each_sweep_reads_its_source_and_writes_the_buffer() {
        // 2^19 rows of 64 lanes: a 256 MiB codeword from a 128 MiB message.
        let (codeword, message) = (256usize << 20, 128usize << 20);
        let rows = plan(19, Some(MessageLayout::Rows));
        let t = rows.traffic();
        assert_eq!(t.len(), 2, "{t:?}");
        assert_eq!((t[0].read_bytes, t[0].write_bytes), (message, codeword));
        assert_eq!((t[1].read_bytes, t[1].write_bytes), (codeword, codeword));
        assert!(t[0].pass.starts_with("gathered 1..") && t[1].pass.starts_with("deep "));
        assert_eq!(rows.traffic_bytes(), message + 3 * codeword);
        // A lane-major message is transposed first: one more sweep of the message.
        let lanes = plan(19, Some(MessageLayout::Lanes));
        assert!(lanes.transpose_first);
        assert_eq!(lanes.traffic()[0].pass, "transpose");
        assert_eq!(lanes.traffic_bytes(), rows.traffic_bytes() + 2 * message);
    }

    #[test]
    fn a_plan_without_a_deep_pass_reads_the_buffer_for_its_sink() {
        let shape = Shape::new(3, 64, 3).expect("valid shape");
        let p = plan_for(shape, None, 1, &[], BackendKind::Portable, &PlanConfig::default());
        let t = p.traffic();
        assert_eq!(t.first().map(|s| s.pass.as_str()), Some("replicate"));
        assert_eq!(
            t.last().map(|s| (s.pass.as_str(), s.write_bytes)),
            Some(("sink", 0))
        );
    }
}
