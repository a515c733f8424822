//! Optimisers. Configuration (hyper-parameters) is separate from state (moments, step count),
//! so a state can be checkpointed and a configuration shared.

mod adam;

pub use adam::{Adam, AdamConfig};
