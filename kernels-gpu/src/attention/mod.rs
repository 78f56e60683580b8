//! Attention building blocks above `tile`: the paged decode CTA (producer and consumer warp
//! roles) and the split-KV combine.

pub mod combine;
pub mod decode;
pub mod kv;
pub mod softmax;
