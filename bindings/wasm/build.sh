#!/usr/bin/env bash
# Builds the npm package (pkg-node/, `--target nodejs`) and the browser build (www/pkg/,
# `--target web`) from one `cargo build` for wasm32: what `wasm-pack build` does, without
# wasm-pack (one tool fewer to build from source; wasm-pack works too, see the README).
# Needs the wasm32-unknown-unknown target and the wasm-bindgen CLI of the version
# Cargo.lock pins (`cargo install wasm-bindgen-cli --version V`).
#   bash bindings/wasm/build.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
target=${CARGO_TARGET_DIR:-$here/target}
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
    cp "$here/LICENSE-APACHE" "$here/LICENSE-MIT" "$dir/"
done
manifest '' >"$here/pkg-node/package.json"
manifest '"type": "module",
  ' >"$here/www/pkg/package.json"
ls -l "$here/pkg-node/shangmi_wasm_bg.wasm"
