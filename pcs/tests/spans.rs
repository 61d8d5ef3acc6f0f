//! The spans a commit, an opening and a check emit: the stages at info, the passes at debug,
//! and everything nested under its caller's span, the passes the workers run included.

use ntt_kernels::Backend;
use ntt_pcs::{CommitParams, Committer, Encoder};
use ntt_runtime::PinPolicy;
use std::sync::Mutex;
use tracing::span::{Attributes, Id};
use tracing::{Level, Subscriber};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// One span as it was opened: its name, level, parent's name and thread.
#[derive(Clone, Debug)]
struct Opened {
    name: &'static str,
    level: Level,
    parent: Option<&'static str>,
    ancestors: Vec<&'static str>,
}

static OPENED: Mutex<Vec<Opened>> = Mutex::new(Vec::new());

/// Records every span opened anywhere in the process (the workers' threads included).
struct Recorder;

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Recorder {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let span = ctx.span(id).expect("a new span is registered");
        let ancestors: Vec<&'static str> = span.scope().skip(1).map(|s| s.name()).collect();
        OPENED.lock().unwrap().push(Opened {
            name: attrs.metadata().name(),
            level: *attrs.metadata().level(),
            parent: ancestors.first().copied(),
            ancestors,
        });
    }
}

fn witness(words: usize) -> Vec<u64> {
    (0..words as u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (i >> 5))
        .collect()
}

#[test]
fn stages_are_info_spans_and_passes_nest_under_the_encode() {
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(Recorder))
        .expect("the only subscriber of this test binary");
    let encoder = Encoder::builder()
        .workers(2)
        .pin(PinPolicy::None)
        .backend(Backend::detect())
        .build()
        .expect("encoder");
    let committer = Committer::new(encoder);
    // 2^20 words: large enough that the encode is handed to the workers, not run inline.
    let w = witness(1 << 20);
    let (commitment, prover) = committer
        .commit(&w, CommitParams::lanes(16).log_inv_rate(1))
        .expect("commit");
    let opening = prover.open(&[3, 1000]).expect("open");
    ntt_pcs::verify(&commitment, &[3, 1000], &opening).expect("the opening holds");

    let opened = OPENED.lock().unwrap().clone();
    let find = |name: &str| -> Vec<&Opened> { opened.iter().filter(|o| o.name == name).collect() };
    for name in ["commit", "allocate", "encode", "merge", "open", "verify"] {
        // (The hashers' finer `hash` and `merge` spans are at trace.)
        assert!(
            find(name).iter().any(|s| s.level == Level::INFO),
            "no `{name}` span at info in {opened:#?}"
        );
    }
    for name in ["allocate", "encode", "merge"] {
        assert!(
            find(name)
                .iter()
                .any(|s| s.level == Level::INFO && s.parent == Some("commit")),
            "no `{name}` at info under commit"
        );
    }
    let passes: Vec<&Opened> = opened.iter().filter(|o| o.name.ends_with("_pass")).collect();
    assert!(!passes.is_empty(), "no pass spans: {opened:#?}");
    for pass in &passes {
        assert_eq!(pass.level, Level::DEBUG, "{pass:?}");
        assert_eq!(pass.parent, Some("forward"), "{pass:?}");
        assert_eq!(pass.ancestors[1..], ["encode", "commit"], "{pass:?}");
    }
    // Nothing the commit's workers opened is an orphan: every span but the top-level calls'
    // has a parent.
    let orphans: Vec<&Opened> = opened
        .iter()
        .filter(|o| o.parent.is_none() && !["commit", "open", "verify"].contains(&o.name))
        .collect();
    assert!(orphans.is_empty(), "spans with no parent: {orphans:#?}");
}
