#!/usr/bin/env bash
# Lists the public items of the chevron crate, one per line (`module::path::Item (kind)`), from
# the pages `cargo doc` writes: one page per public item (struct, enum, trait, function, type,
# constant, static, macro), methods and fields not counted. With a directory argument it reads
# that documentation instead of building it. docs/public-api.md records the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
doc_dir="${1:-}"
if [[ -z "$doc_dir" ]]; then
    cargo doc -p chevron --no-deps --quiet
    doc_dir="${CARGO_TARGET_DIR:-target}/doc/chevron"
fi
cd "$doc_dir"
# Pages of re-exported items at their private paths are redirects: left out.
find . -name '*.html' -exec grep -L 'http-equiv="refresh"' {} + \
    | grep -E '/(struct|enum|trait|fn|type|constant|static|macro|union)\.[^/]+\.html$' \
    | sed -E 's#^\./##; s#/#::#g; s#(struct|enum|trait|fn|type|constant|static|macro|union)\.([^.]+)\.html$#\2 (\1)#' \
    | sed -E 's#^#chevron::#' \
    | sort
