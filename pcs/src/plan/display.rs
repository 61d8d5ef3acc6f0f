//! A plan as a readable explanation and as a one-line summary.

use super::{
    DeepBudget, DeepPass, DeepSchedule, Gather, GatheredPass, MessageRead, Plan, Radix8Kernel, Radix8Step,
    Radix8Steps, Source,
};
use core::fmt;

/// A byte count in the largest binary unit that keeps it readable (`2 MiB`, `1.5 KiB`):
/// [`ntt_runtime::units::human_bytes`] of a `usize`.
pub fn bytes(b: usize) -> String {
    ntt_runtime::units::human_bytes(b as u64)
}

fn source(s: Source) -> &'static str {
    match s {
        Source::Buffer => "the buffer",
        Source::InPlaceMessage => "the message in replica 0 of the buffer",
        Source::MessageRows => "the row-major message",
        Source::MessageLanes => "the lane-major message in place (8×8 register transposes)",
    }
}

fn gather(g: Gather) -> &'static str {
    match g {
        Gather::Fused => "the first step loads the strided rows directly",
        Gather::Transposed => "rows transposed into scratch first",
    }
}

fn read(r: MessageRead) -> &'static str {
    match r {
        MessageRead::ByFirstStep => "the first step reads the message rows",
        MessageRead::IntoScratch => "the message rows are copied into scratch first",
    }
}

fn schedule(s: DeepSchedule) -> String {
    match s {
        DeepSchedule::BufferLoop => "a loop over the tasks, in place".to_owned(),
        DeepSchedule::MessageLoop { read: r } => format!("a loop over the tasks ({})", read(r)),
        DeepSchedule::ReadersThenReplica0 { read: r } => format!(
            "a loop over the other replicas' tasks ({}), then one over replica 0's, in place",
            read(r)
        ),
        DeepSchedule::FirstStepGraph => {
            "a graph: each replica-0 task waits for the first steps that read its rows".to_owned()
        }
        DeepSchedule::TaskGraph => {
            "a graph: each replica-0 task waits for the tasks that read its rows".to_owned()
        }
        DeepSchedule::Split { pieces } => {
            format!("a graph of {pieces} first-step pieces per task, then its segments, then the sink")
        }
    }
}

/// The steps as runs of one kernel: `3, 6 along segments; 9 across blocks`.
fn kernels(steps: &[Radix8Step]) -> String {
    let mut out = String::new();
    for (i, s) in steps.iter().enumerate() {
        let last_of_run = steps.get(i + 1).is_none_or(|next| next.kernel != s.kernel);
        out.push_str(&s.first_layer.to_string());
        if last_of_run {
            out.push_str(match s.kernel {
                Radix8Kernel::AlongSegments => " along segments",
                Radix8Kernel::AcrossBlocks => " across blocks",
            });
            if i + 1 < steps.len() {
                out.push_str("; ");
            }
        } else {
            out.push_str(", ");
        }
    }
    out
}

/// The line of a pass's radix-8 kernels (none when it runs no radix-8 step in a buffer).
fn write_kernels(f: &mut fmt::Formatter<'_>, what: &str, steps: &Radix8Steps) -> fmt::Result {
    if !steps.forward.is_empty() {
        write!(
            f,
            "    radix-8 steps {what}, by first layer: {}",
            kernels(&steps.forward)
        )?;
    } else if !steps.inverse.is_empty() {
        write!(f, "    radix-8 steps {what}: none")?;
    }
    if steps.inverse != steps.forward {
        write!(f, " (inverse transform: {})", kernels(&steps.inverse))?;
    }
    if !steps.forward.is_empty() || !steps.inverse.is_empty() {
        writeln!(f)?;
    }
    Ok(())
}

/// The short form's mark for a pass with steps across blocks: ` across@9`.
fn across_mark(steps: &Radix8Steps) -> String {
    steps
        .forward_across_from()
        .map(|l| format!(" across@{l}"))
        .unwrap_or_default()
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_header(f)?;
        self.write_budgets(f)?;
        if self.shape.log_inv_rate() > 0 && !self.replicate_only {
            writeln!(
                f,
                "  layers 0..{}: copies (replication trick), never written",
                self.shape.log_inv_rate()
            )?;
        }
        if self.transpose_first {
            let log_chunk =
                super::transpose_chunk_log_rows(self.shape.lanes(), self.shape.log_message_rows());
            writeln!(
                f,
                "  pass 0 transpose: the lane-major message into replica 0 of the buffer, row-major, {} chunks of 2^{} rows ({} each; each lane read in runs of {}; {} stores); the passes then read it in place",
                1usize << (self.shape.log_message_rows() - log_chunk),
                log_chunk,
                bytes((self.shape.lanes() << log_chunk) * 8),
                bytes(8 << log_chunk),
                if self.transpose_stream {
                    "streaming"
                } else {
                    "cached"
                },
            )?;
        }
        let mut pass = 1;
        for g in &self.gathered {
            self.write_gathered(f, pass, g)?;
            pass += 1;
        }
        if self.replicate_only {
            writeln!(
                f,
                "  pass {pass}: every layer is a copy; each row is the message row"
            )?;
        }
        if let Some(d) = &self.deep {
            self.write_deep(f, pass, d)?;
        }
        self.write_sink(f)?;
        self.write_traffic(f)?;
        write!(f, "  sweeps of the buffer: {}", self.sweeps())
    }
}

/// The lines of [`Plan`]'s explanation, one function per kind of line.
impl Plan {
    /// The shape, the message, the workers and the backend.
    fn write_header(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let input = match self.layout {
            None => "message in place".to_owned(),
            Some(l) => format!("{l} message"),
        };
        writeln!(
            f,
            "plan: {} ({input}), {} worker{}, backend {}",
            self.shape,
            self.workers,
            if self.workers == 1 { "" } else { "s" },
            self.backend.name()
        )
    }

    /// The cache units, the narrow/wide gate and the kind of stores.
    fn write_budgets(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "  budgets: L2 unit {} (2^{} rows), L3 unit {} (2^{} rows); gate: {} ({}); stores: {} (buffer {} vs LLC {})",
            bytes(self.l2_unit_bytes),
            self.log_fit_l2,
            bytes(self.l3_unit_bytes),
            self.log_fit_l3,
            if self.wide { "wide" } else { "narrow" },
            self.gate,
            if self.stream { "streaming" } else { "cached" },
            bytes(self.shape.codeword_words() * 8),
            bytes(self.llc_bytes),
        )
    }

    /// One gathered pass.
    fn write_gathered(&self, f: &mut fmt::Formatter<'_>, pass: usize, g: &GatheredPass) -> fmt::Result {
        let width = self.shape.lanes() << g.log_residues;
        let tiles = if g.tile_columns < width {
            format!(
                ", tile by tile ({} columns, {} per tile)",
                g.tile_columns,
                bytes((g.tile_columns << g.log_group_rows) * 8)
            )
        } else {
            String::new()
        };
        let reps = if g.source.is_message() {
            format!(
                ", each done in all {} blocks (block 0 last){tiles}",
                1usize << g.first_layer
            )
        } else {
            String::new()
        };
        writeln!(
            f,
            "  pass {pass} gathered: layers {}..{}: {} groups of 2^{} rows × {} residue(s), stride 2^{} rows, {} per group{reps}; reads {} ({}), writes the buffer",
            g.first_layer,
            g.end_layer(),
            g.groups,
            g.log_group_rows,
            1usize << g.log_residues,
            g.log_step,
            bytes(g.group_bytes),
            source(g.source),
            gather(g.gather),
        )?;
        write_kernels(f, "in scratch", &g.radix8)
    }

    /// The deep pass.
    fn write_deep(&self, f: &mut fmt::Formatter<'_>, pass: usize, d: &DeepPass) -> fmt::Result {
        let inner = match d.budget {
            DeepBudget::L3 => format!(
                "; inside: {} gathered layers (2^{} residues) then 2^{} pieces of 2^{} rows in L2",
                d.inner_log_group_rows,
                d.inner_log_residues,
                d.inner_log_group_rows,
                d.log_piece_rows()
            ),
            DeepBudget::L2 => String::new(),
        };
        writeln!(
            f,
            "  pass {pass} deep ({}): layers {}..{}: {} tasks of {} sub-block(s) of 2^{} rows ({} each){inner}; reads {}",
            d.budget,
            d.first_layer,
            self.shape.log_rows(),
            d.tasks,
            1usize << d.log_subs_per_task,
            d.log_sub_rows,
            bytes(d.sub_bytes),
            source(d.source),
        )?;
        write!(f, "    runs as {}", schedule(d.schedule))?;
        if d.inline_schedule != d.schedule {
            write!(
                f,
                "; on the calling thread alone (an encode too small to hand off), {}",
                schedule(d.inline_schedule)
            )?;
        }
        writeln!(f)?;
        write_kernels(f, "of a sub-block", &d.radix8)
    }

    /// The bytes each sweep reads and writes.
    fn write_traffic(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sweeps: Vec<String> = self
            .traffic()
            .iter()
            .map(|t| {
                format!(
                    "{} reads {}, writes {}",
                    t.pass,
                    bytes(t.read_bytes),
                    bytes(t.write_bytes)
                )
            })
            .collect();
        writeln!(
            f,
            "  traffic: {}; {} in all",
            sweeps.join("; "),
            bytes(self.traffic_bytes())
        )
    }

    /// How finished rows reach the sink.
    fn write_sink(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "  sink: blocks of 2^{} rows, {}",
            self.sink.log_block_rows,
            if self.sink.fused {
                "handed over by the deep tasks while in cache"
            } else {
                "read back in one more sweep at the end"
            }
        )
    }
}

impl Plan {
    /// One line for the CLI.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        if self.transpose_first {
            parts.push(
                if self.transpose_stream {
                    "transpose,stream"
                } else {
                    "transpose"
                }
                .to_owned(),
            );
        }
        for g in &self.gathered {
            parts.push(format!(
                "gather[{}..{} 2^{}r×{}{}]",
                g.first_layer,
                g.end_layer(),
                g.log_group_rows,
                1usize << g.log_residues,
                across_mark(&g.radix8),
            ));
        }
        if self.replicate_only {
            parts.push("replicate".to_owned());
        }
        if let Some(d) = &self.deep {
            parts.push(format!(
                "deep-{}[{}..{} {}×2^{}r {}{}]",
                d.budget,
                d.first_layer,
                self.shape.log_rows(),
                d.tasks,
                d.log_sub_rows + d.log_subs_per_task,
                d.schedule,
                across_mark(&d.radix8),
            ));
        }
        format!(
            "{} sweep{}: {} | {} | sink 2^{} rows{} | {}",
            self.sweeps(),
            if self.sweeps() == 1 { "" } else { "s" },
            parts.join(" "),
            if self.wide { "wide" } else { "narrow" },
            self.sink.log_block_rows,
            if self.sink.fused { "" } else { " (unfused)" },
            if self.stream { "streaming" } else { "cached" },
        )
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn byte_counts_read_naturally() {
        assert_eq!(super::bytes(48 * 1024), "48 KiB");
        assert_eq!(super::bytes(2 << 20), "2 MiB");
        assert_eq!(super::bytes(1536), "1.5 KiB");
        assert_eq!(super::bytes(100), "100 B");
    }
}
