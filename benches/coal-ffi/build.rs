//! Finds coal 3.x (the C++ library, as PyPI's `libcoal` installs it) and
//! builds the C++ shim `shim/shim.cpp` against it; without coal it builds
//! nothing and sets `cfg(coal_missing)`, so that `coal_ffi::available()` is
//! false and every query answers `None`. Nothing else needs coal.
//!
//! Where coal is looked for, first hit wins:
//! 1. `COAL_PREFIX`: a prefix with `include/coal/config.hh` and `lib/libcoal.so`
//!    (a conda environment, `/opt/openrobots`, a CMake install prefix);
//! 2. `<purelib>/cmeel.prefix`, `purelib` being the site-packages folder of
//!    `python3` (or of `COAL_PYTHON`): where `pip install libcoal==3.0.3`
//!    puts coal's headers and `libcoal.so`, and `cmeel-eigen` Eigen's headers
//!    (`include/eigen3`). Without Eigen there, `/usr/include/eigen3`
//!    (Debian `libeigen3-dev`) is used.
//!
//! `COAL_PREFIX=none` forces the stub. The shim is a shared library that
//! binaries find by absolute path and that finds coal through an rpath (see
//! [`build`]), so nothing runs with `LD_LIBRARY_PATH`.
//! Installing coal after a build: `cargo clean --release -p coal-ffi` (the
//! benches build in `target/release`; or touch this
//! file), since the build script cannot watch for a prefix that does not
//! exist yet without running on every build.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(coal_missing)");
    println!("cargo:rerun-if-env-changed=COAL_PREFIX");
    println!("cargo:rerun-if-env-changed=COAL_PYTHON");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=shim/shim.cpp");

    match find_coal() {
        Ok((prefix, eigen)) => build(&prefix, &eigen),
        Err(why) => {
            // Not a cargo warning: the benches and tests run without coal by
            // design, and CI builds them on machines without it.
            eprintln!("coal-ffi: coal not found ({why}); building the stub");
            println!("cargo:rustc-cfg=coal_missing");
        }
    }
}

/// The coal prefix and the folder holding Eigen's `Eigen/Core`.
fn find_coal() -> Result<(PathBuf, PathBuf), String> {
    let prefix = match std::env::var("COAL_PREFIX") {
        Ok(p) if p == "none" => return Err("COAL_PREFIX=none".into()),
        Ok(p) if !p.is_empty() => PathBuf::from(p),
        _ => cmeel_prefix()?,
    };
    let config = prefix.join("include/coal/config.hh");
    let lib = prefix.join("lib/libcoal.so");
    if !config.is_file() || !lib.is_file() {
        return Err(format!("no include/coal/config.hh and lib/libcoal.so under {}", prefix.display()));
    }
    let eigen = [prefix.join("include/eigen3"), PathBuf::from("/usr/include/eigen3")]
        .into_iter()
        .find(|d| d.join("Eigen/Core").is_file())
        .ok_or_else(|| format!("no Eigen headers (pip install cmeel-eigen) beside {}", prefix.display()))?;
    println!("cargo:rerun-if-changed={}", config.display());
    println!("cargo:rerun-if-changed={}", lib.display());
    Ok((prefix, eigen))
}

/// `<python3's purelib>/cmeel.prefix`.
fn cmeel_prefix() -> Result<PathBuf, String> {
    let python = std::env::var("COAL_PYTHON").unwrap_or_else(|_| "python3".into());
    let out = Command::new(&python)
        .args(["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
        .output()
        .map_err(|e| format!("cannot run {python}: {e}"))?;
    if !out.status.success() {
        return Err(format!("{python} failed to print its site-packages folder"));
    }
    let purelib = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let prefix = Path::new(&purelib).join("cmeel.prefix");
    if prefix.is_dir() {
        Ok(prefix)
    } else {
        Err(format!("no {} (pip install libcoal==3.0.3 cmeel-eigen)", prefix.display()))
    }
}

/// Compiles the shim into a shared library whose soname is its absolute
/// path in `OUT_DIR`, with an rpath to coal's `lib` folder. A dependent's
/// binary (the narrowphase benches) then records that path and finds the
/// shim without an rpath of its own (a build script's `rustc-link-arg`
/// reaches only its own package's binaries), and the shim finds
/// `libcoal.so`, which finds its own dependencies through its `$ORIGIN` rpath.
fn build(prefix: &Path, eigen: &Path) {
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let so = out.join("libnpcoal_shim.so");
    let include = prefix.join("include");
    let mut cc = cc::Build::new();
    cc.cpp(true)
        .std("c++17")
        .pic(true)
        .include(&include)
        .include(eigen)
        // Only the default x86-64 flags: a `-march` that enables AVX changes
        // Eigen's alignment and with it the layout of coal's classes, which
        // the shared library was compiled without.
        .flag("-O2")
        .flag("-Wno-deprecated-declarations")
        .warnings(false);
    // The definitions coal's CMake and pkg-config files give their users.
    if include.join("octomap").is_dir() {
        cc.define("COAL_HAS_OCTOMAP", None)
            .define("COAL_HAVE_OCTOMAP", None)
            .define("OCTOMAP_MAJOR_VERSION", "1")
            .define("OCTOMAP_MINOR_VERSION", "10")
            .define("OCTOMAP_PATCH_VERSION", "0");
    }
    let mut cmd = cc.get_compiler().to_command();
    cmd.arg("-shared").arg("shim/shim.cpp").arg("-o").arg(&so).arg(format!("-Wl,-soname,{}", so.display()));
    for dir in [prefix.join("lib"), prefix.join("lib64")] {
        if dir.is_dir() {
            cmd.arg(format!("-L{}", dir.display())).arg(format!("-Wl,-rpath,{}", dir.display()));
        }
    }
    cmd.arg("-lcoal");
    let status = cmd.status().unwrap_or_else(|e| panic!("coal-ffi: cannot run the C++ compiler ({cmd:?}): {e}"));
    assert!(status.success(), "coal-ffi: compiling shim/shim.cpp against {} failed: {cmd:?}", prefix.display());

    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=dylib=npcoal_shim");
    println!("cargo:prefix={}", prefix.display());
}
