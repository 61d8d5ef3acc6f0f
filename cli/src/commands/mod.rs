//! One module per subcommand.

pub mod commit;
pub mod encode;
pub mod open;
pub mod plan;
pub mod topology;
pub mod tune;
pub mod verify;
pub mod witness;
