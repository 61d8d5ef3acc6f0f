//! Shared helpers for the criterion benches (inputs, seeded data).
