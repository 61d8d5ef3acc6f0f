//! The commitment's tree as both binaries report it: the same JSON keys (`tree`, `hash`,
//! `cap_height`, `cap`) and the same text lines.

use std::fmt::Write as _;

use ntt_pcs::{Commitment, HashKind, Scheme, TreeKind};
use serde::Serialize;

/// The tree, hash and cap height of a commitment, and every digest it commits (flatten it into
/// a report).
#[derive(Debug, Serialize)]
pub struct TreeReport {
    tree: TreeKind,
    /// The row tree's hash (`blake3` for the chunk tree).
    hash: HashKind,
    cap_height: u32,
    /// Every committed digest, hex (the root alone unless a row tree has a cap).
    cap: Vec<String>,
    #[serde(skip)]
    scheme: Scheme,
}

impl TreeReport {
    /// The report of `commitment`'s tree.
    pub fn of(commitment: &Commitment) -> Self {
        let scheme = commitment.scheme();
        Self {
            tree: scheme.tree(),
            hash: scheme.hash(),
            cap_height: scheme.cap_height(),
            cap: commitment.cap_hex(),
            scheme,
        }
    }

    /// The root line, or one line per cap digest, then the tree line.
    pub fn text(&self, out: &mut String) {
        match self.cap.as_slice() {
            [root] => {
                let _ = writeln!(out, "root        {root}");
            }
            cap => {
                for (i, digest) in cap.iter().enumerate() {
                    let _ = writeln!(out, "{:<11} {digest}", format!("cap[{i}]"));
                }
            }
        }
        let _ = writeln!(out, "tree        {}", self.scheme);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ntt_pcs::CodewordShape;

    #[test]
    fn a_cap_prints_one_line_a_digest_and_the_tree() {
        let shape = CodewordShape::new(4, 2).expect("shape");
        let scheme = Scheme::rows(HashKind::Keccak, 1).expect("scheme");
        let commitment = Commitment::with_cap(scheme, vec![[1; 32], [2; 32]], shape).expect("commitment");
        let mut text = String::new();
        TreeReport::of(&commitment).text(&mut text);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with("cap[0]      0101"));
        assert!(lines[1].starts_with("cap[1]      0202"));
        assert_eq!(lines[2], "tree        keccak row tree, cap height 1");
        let json = serde_json::to_value(TreeReport::of(&commitment)).expect("json");
        assert_eq!(json["tree"], "rows");
        assert_eq!(json["hash"], "keccak");
        assert_eq!(json["cap_height"], 1);
        assert_eq!(json["cap"].as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn a_chunk_tree_prints_its_root_and_the_tree() {
        let shape = CodewordShape::new(4, 2).expect("shape");
        let mut text = String::new();
        TreeReport::of(&Commitment::new([7; 32], shape)).text(&mut text);
        assert_eq!(
            text,
            format!("root        {}\ntree        BLAKE3 chunk tree\n", "07".repeat(32))
        );
    }
}
