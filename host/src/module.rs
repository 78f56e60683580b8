//! The embedded PTX modules and the choice among them by compute capability.
//!
//! Arch is a build, not an `if`: each module is one rustc build of `kernels-gpu`
//! (`-Ctarget-cpu=...`). The host loads exactly one per device and refuses kernels that module
//! does not carry, with a typed error.

use crate::error::{Error, Result};
use ferroflash_contract::names::ArchSet;

/// One PTX module shipped in this crate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ModuleArch {
    /// `mma.sync`, `cp.async`; runs on every GPU from sm_80 (JIT by the driver on newer ones).
    Sm80,
    /// Hopper-specific (`wgmma`, fp8 `mma`/`cvt`); runs only on compute capability 9.0.
    Sm90a,
    /// Blackwell-specific (`tcgen05`); runs only on compute capability 10.0.
    Sm100a,
}

impl ModuleArch {
    /// Every module, oldest first.
    pub const ALL: [ModuleArch; 3] = [ModuleArch::Sm80, ModuleArch::Sm90a, ModuleArch::Sm100a];

    /// The module for a compute capability. sm_90 and sm_100 get their arch-specific module;
    /// other GPUs from sm_80 on get the portable sm_80 module; older GPUs are refused.
    pub fn for_compute_capability(major: i32, minor: i32) -> Result<ModuleArch> {
        match (major, minor) {
            (9, 0) => Ok(ModuleArch::Sm90a),
            (10, 0) => Ok(ModuleArch::Sm100a),
            (m, _) if m >= 8 => Ok(ModuleArch::Sm80),
            _ => Err(Error::UnsupportedArch { major, minor }),
        }
    }

    /// Name as in `-Ctarget-cpu`.
    pub const fn name(self) -> &'static str {
        match self {
            ModuleArch::Sm80 => "sm_80",
            ModuleArch::Sm90a => "sm_90a",
            ModuleArch::Sm100a => "sm_100a",
        }
    }

    /// The PTX text.
    pub fn ptx(self) -> &'static str {
        match self {
            ModuleArch::Sm80 => include_str!(env!("FF_PTX_SM_80")),
            ModuleArch::Sm90a => include_str!(env!("FF_PTX_SM_90A")),
            ModuleArch::Sm100a => include_str!(env!("FF_PTX_SM_100A")),
        }
    }

    /// The module assembled by ptxas 13.0 at build time, where the build embedded one
    /// (`FF_CUBIN=1`, as `cargo xtask bundle` builds; sm_90a only): loaded whole, without JIT.
    pub fn cubin(self) -> Option<&'static [u8]> {
        match self {
            #[cfg(ff_cubin)]
            ModuleArch::Sm90a => Some(include_bytes!(env!("FF_CUBIN_SM_90A"))),
            _ => None,
        }
    }

    /// The module's entries, each as a module of its own (See Note [one module per entry] in
    /// docs/DESIGN.md), indexed once per process.
    pub fn split(self) -> &'static ptxbuild::EntrySplit<'static> {
        use std::sync::OnceLock;
        static SPLITS: [OnceLock<ptxbuild::EntrySplit<'static>>; 3] =
            [const { OnceLock::new() }; 3];
        SPLITS[self as usize].get_or_init(|| {
            // The build checked every module (test `every_entry_splits_into_a_whole_module`).
            ptxbuild::EntrySplit::new(self.ptx()).expect("embedded PTX splits into entries")
        })
    }

    /// Whether this module carries entries of `set`.
    pub const fn carries(self, set: ArchSet) -> bool {
        match set {
            ArchSet::All => true,
            ArchSet::Sm89Plus => !matches!(self, ModuleArch::Sm80),
            ArchSet::Sm90aOnly => matches!(self, ModuleArch::Sm90a),
            ArchSet::Sm100aOnly => matches!(self, ModuleArch::Sm100a),
        }
    }
}

/// Which arch set an entry belongs to, from the contract's one list.
pub fn arch_set_of(entry: &str) -> Option<ArchSet> {
    ferroflash_contract::names::all_entries()
        .find(|(n, _)| *n == entry)
        .map(|(_, s)| s)
}

/// Human description of what an arch set needs, for errors.
pub const fn needs(set: ArchSet) -> &'static str {
    match set {
        ArchSet::All => "sm_80",
        ArchSet::Sm89Plus => {
            "the sm_90a or sm_100a module (fp8 instructions; sm_8x GPUs load the sm_80 module)"
        }
        ArchSet::Sm90aOnly => "sm_90a (wgmma)",
        ArchSet::Sm100aOnly => "sm_100a (tcgen05)",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_is_in_exactly_the_modules_it_should_be() {
        for arch in ModuleArch::ALL {
            let entries = ptxbuild::entries(arch.ptx());
            for (name, set) in ferroflash_contract::names::all_entries() {
                assert_eq!(
                    entries.iter().any(|e| e == name),
                    arch.carries(set),
                    "{name} in {}",
                    arch.name()
                );
            }
        }
    }

    #[test]
    fn only_sm_90a_may_embed_a_cubin_and_it_is_a_cuda_elf() {
        for arch in ModuleArch::ALL {
            let Some(image) = arch.cubin() else { continue };
            assert_eq!(arch, ModuleArch::Sm90a);
            assert_eq!(&image[..4], b"\x7fELF", "cubin magic");
            // e_machine 190 = EM_CUDA (little-endian, offset 18).
            assert_eq!(u16::from_le_bytes([image[18], image[19]]), 190);
            for name in ptxbuild::entries(arch.ptx()) {
                let sym = format!(".text.{name}");
                assert!(
                    image.windows(sym.len()).any(|w| w == sym.as_bytes()),
                    "{name} in the cubin"
                );
            }
        }
    }

    #[test]
    fn every_entry_splits_into_a_whole_module() {
        for arch in ModuleArch::ALL {
            let text = arch.ptx();
            let split = arch.split();
            assert_eq!(
                split.names().collect::<Vec<_>>(),
                ptxbuild::entries(text),
                "{}",
                arch.name()
            );
            let head = &text[..text.find(".visible .entry").unwrap()];
            let tail_func = text.rfind("\n.func ").unwrap();
            for name in split.names() {
                let m = split.module_of(name).unwrap();
                assert!(m.starts_with(head), "{name}: prelude");
                assert!(m.ends_with(&text[tail_func..]), "{name}: .func definitions");
                assert_eq!(m.matches(".entry ").count(), 1, "{name}");
                assert_eq!(m.matches('{').count(), m.matches('}').count(), "{name}");
            }
            // (`EntrySplit::new` refuses text other than comments between entries.)
        }
    }

    #[test]
    fn arch_instructions_only_where_they_belong() {
        assert!(!ModuleArch::Sm80.ptx().contains("wgmma"));
        assert!(!ModuleArch::Sm100a.ptx().contains("wgmma"));
        assert!(ModuleArch::Sm90a.ptx().contains("wgmma.mma_async"));
        assert!(!ModuleArch::Sm90a.ptx().contains("tcgen05"));
        assert!(ModuleArch::Sm100a.ptx().contains("tcgen05.mma"));
        for a in ModuleArch::ALL {
            assert!(
                !a.ptx().contains(".extern .func"),
                "{} has unresolved externs",
                a.name()
            );
        }
    }

    #[test]
    fn capability_mapping() {
        assert_eq!(
            ModuleArch::for_compute_capability(9, 0),
            Ok(ModuleArch::Sm90a)
        );
        assert_eq!(
            ModuleArch::for_compute_capability(8, 6),
            Ok(ModuleArch::Sm80)
        );
        assert_eq!(
            ModuleArch::for_compute_capability(12, 0),
            Ok(ModuleArch::Sm80)
        );
        assert_eq!(
            ModuleArch::for_compute_capability(10, 0),
            Ok(ModuleArch::Sm100a)
        );
        assert_eq!(
            ModuleArch::for_compute_capability(7, 5),
            Err(Error::UnsupportedArch { major: 7, minor: 5 })
        );
    }
}
