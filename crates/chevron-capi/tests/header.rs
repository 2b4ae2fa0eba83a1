//! Checks that the committed C header `include/chevron.h` is what cbindgen generates from the
//! current sources. `CHEVRON_UPDATE_HEADER=1` rewrites it instead of failing.

use std::path::Path;

#[test]
fn the_committed_header_is_current() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config =
        cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml parses");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header")
        .write(&mut generated);
    let path = crate_dir.join("../../include/chevron.h");
    let committed = std::fs::read(&path).unwrap_or_default();
    if committed == generated {
        return;
    }
    if std::env::var_os("CHEVRON_UPDATE_HEADER").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    panic!(
        "include/chevron.h is not what cbindgen generates from the sources: run \
         `CHEVRON_UPDATE_HEADER=1 cargo test -p chevron-capi --test header` and commit it"
    );
}
