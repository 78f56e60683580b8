//! Kernel entry points. Entry names are listed once in `ferroflash_contract::names`.

pub mod selftest;
pub mod decode;
pub mod bench;
