//! One module per subcommand.

pub(crate) mod commit;
pub(crate) mod encode;
pub(crate) mod open;
pub(crate) mod plan;
pub(crate) mod topology;
pub(crate) mod tune;
pub(crate) mod verify;
pub(crate) mod witness;
