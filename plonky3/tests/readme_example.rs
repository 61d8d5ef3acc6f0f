//! The README's Plonky3 example is `examples/whir_minimal.rs` word for word (CI runs that file).

#[test]
fn the_readme_shows_the_minimal_example_as_it_runs() {
    let readme = include_str!("../README.md");
    let example = include_str!("../examples/whir_minimal.rs");
    assert!(
        readme.contains(&format!("```rust,ignore\n{example}```")),
        "README.md's Plonky3 example differs from plonky3/examples/whir_minimal.rs"
    );
}
