//! Links the system libccd (Debian/Ubuntu: `apt-get install libccd-dev`).
//! `CCD_LIB_DIR` adds a search path for a libccd installed elsewhere.
fn main() {
    println!("cargo:rerun-if-env-changed=CCD_LIB_DIR");
    if let Ok(dir) = std::env::var("CCD_LIB_DIR") {
        println!("cargo:rustc-link-search=native={dir}");
    }
    println!("cargo:rustc-link-lib=ccd");
}
