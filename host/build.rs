//! Builds `kernels-gpu` to PTX for sm_80, sm_90a and sm_100a (see `ptxbuild`) and tells the
//! crate where each module is (`FF_PTX_SM_80`, `FF_PTX_SM_90A`, `FF_PTX_SM_100A`), to embed them
//! with `include_str!`.
use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let workspace = manifest.parent().unwrap().to_path_buf();
    let target_root = target_root(&workspace);
    let cargo = PathBuf::from(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    for dir in [
        "kernels-gpu/src",
        "kernels-gpu/Cargo.toml",
        "contract/src",
        "contract/Cargo.toml",
        "ptxbuild/src",
    ] {
        println!("cargo:rerun-if-changed={}", workspace.join(dir).display());
    }
    println!("cargo:rerun-if-env-changed=FF_TILE_STAMPS");
    println!("cargo:rerun-if-env-changed=FF_CUBIN");
    println!("cargo:rerun-if-env-changed=PTXAS");
    println!("cargo::rustc-check-cfg=cfg(ff_cubin)");
    println!("cargo::rustc-check-cfg=cfg(ff_tile_stamps)");
    if ptxbuild::tile_stamps() {
        println!("cargo:rustc-cfg=ff_tile_stamps");
    }
    // The three arch builds are independent: run them side by side.
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = ptxbuild::Arch::ALL
            .iter()
            .map(|&arch| {
                let (cargo, workspace, target_root) = (&cargo, &workspace, &target_root);
                s.spawn(move || (arch, ptxbuild::build(cargo, workspace, target_root, arch)))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (arch, r) in results {
        match r {
            Ok(path) => {
                let var = format!("FF_PTX_{}", arch.name().to_uppercase());
                println!("cargo:rustc-env={var}={}", path.display());
                println!("cargo:rerun-if-changed={}", path.display());
                if arch == ptxbuild::Arch::Sm90a && ptxbuild::cubin_wanted() {
                    let cubin = ptxbuild::assemble(&workspace, arch, &path)
                        .unwrap_or_else(|e| panic!("FF_CUBIN=1: {e}"));
                    println!("cargo:rustc-env=FF_CUBIN_SM_90A={}", cubin.display());
                    println!("cargo:rustc-cfg=ff_cubin");
                }
            }
            Err(e) => panic!("PTX build for {} failed: {e}", arch.name()),
        }
    }
}

/// The workspace's target dir: `CARGO_TARGET_DIR`, else the `target` folder that holds OUT_DIR.
fn target_root(workspace: &Path) -> PathBuf {
    if let Ok(t) = std::env::var("CARGO_TARGET_DIR") {
        let t = PathBuf::from(t);
        return if t.is_absolute() {
            t
        } else {
            workspace.join(t)
        };
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    out.ancestors()
        .find(|p| p.join("CACHEDIR.TAG").exists())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| workspace.join("target"))
}
