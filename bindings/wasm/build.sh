#!/usr/bin/env bash
# Builds the npm package (pkg-node/, `--target nodejs`) and the browser build (www/pkg/,
# `--target web`) from one `cargo build` for wasm32: what `wasm-pack build` does, without
# wasm-pack (one tool fewer to build from source; wasm-pack works too, see the README).
# Needs the wasm32-unknown-unknown target and the wasm-bindgen CLI of the version
# Cargo.lock pins (`cargo install wasm-bindgen-cli --version V`).
#
# SM2 is built in its size profile (`--cfg shangmi_sm2_profile="size"`: a 6 KB comb instead
# of 88 KB, out-of-line point formulas) and each module is then shrunk by binaryen's
# `wasm-opt -Oz` (npm's `binaryen` 132, a devDependency of tests/, or WASM_OPT=path): 354
# KB against 483 KB for the fast profile, SM2 signing at 0.58x of it (2,340 against 4,060
# op/s in Node, still 60x sm-crypto). SHANGMI_WASM_PROFILE=fast builds the fast profile.
#   bash bindings/wasm/build.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
target=${CARGO_TARGET_DIR:-$here/target}
case ${SHANGMI_WASM_PROFILE:-size} in
    size) export RUSTFLAGS="${RUSTFLAGS:-} --cfg shangmi_sm2_profile=\"size\"" ;;
    fast) ;;
    *) echo "SHANGMI_WASM_PROFILE must be size or fast" >&2; exit 2 ;;
esac
# The pinned binaryen first: Debian's (version 108) breaks wasm-bindgen's externref table.
wasm_opt=${WASM_OPT:-$here/tests/node_modules/.bin/wasm-opt}
[ -x "$wasm_opt" ] || wasm_opt=$(command -v wasm-opt || true)
cargo build --release --locked --lib --target wasm32-unknown-unknown \
    --manifest-path "$here/Cargo.toml" --target-dir "$target"
wasm=$target/wasm32-unknown-unknown/release/shangmi_wasm.wasm
# The npm manifest wasm-pack would write: name, version, licence and files from Cargo.toml.
manifest() {  # $1 = extra fields (JSON members, each followed by a comma)
    local field
    field() { sed -n "s/^$1 = \"\(.*\)\"/\1/p" "$here/Cargo.toml" | head -1; }
    cat <<JSON
{
  "name": "$(field name)",
  $1"description": "$(field description)",
  "version": "$(field version)",
  "license": "$(field license)",
  "repository": { "type": "git", "url": "$(field repository)" },
  "files": ["shangmi_wasm_bg.wasm", "shangmi_wasm.js", "shangmi_wasm.d.ts",
            "LICENSE-APACHE", "LICENSE-MIT", "snippets"],
  "main": "shangmi_wasm.js",
  "types": "shangmi_wasm.d.ts"
}
JSON
}
for out in nodejs:pkg-node web:www/pkg; do
    dir=$here/${out#*:}
    rm -rf "$dir"
    wasm-bindgen --target "${out%%:*}" --out-dir "$dir" "$wasm"
    if [ -n "$wasm_opt" ] && [ -x "$wasm_opt" ]; then
        # The features rustc's wasm32 target enables by default.
        "$wasm_opt" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
            --enable-sign-ext --enable-mutable-globals --enable-reference-types \
            --enable-multivalue "$dir/shangmi_wasm_bg.wasm" -o "$dir/shangmi_wasm_bg.wasm"
    else
        echo "note: no wasm-opt (npm install in bindings/wasm/tests, or WASM_OPT=...): module not shrunk" >&2
    fi
    cp "$here/LICENSE-APACHE" "$here/LICENSE-MIT" "$dir/"
done
manifest '' >"$here/pkg-node/package.json"
manifest '"type": "module",
  ' >"$here/www/pkg/package.json"
ls -l "$here/pkg-node/shangmi_wasm_bg.wasm"
