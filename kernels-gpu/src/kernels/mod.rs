//! Kernel entry points. Entry names are listed once in `ferroflash_contract::names`.

pub mod bench;
pub mod decode;
pub mod selftest;
