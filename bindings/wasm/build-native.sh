#!/usr/bin/env bash
# Builds the native engine of the `shangmi` npm package (bindings/node, napi-rs) with cargo
# and copies the cdylib to native/shangmi.<platform>-<arch>.node, where js/index.js looks
# for it (no @napi-rs/cli needed). Without a Rust toolchain the package still works on the
# WebAssembly engine. SHANGMI_NATIVE=0 skips it.
#   npm run build      (or: bash bindings/wasm/build-native.sh)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ "${SHANGMI_NATIVE:-1}" = 0 ] && { echo "native addon skipped (SHANGMI_NATIVE=0)"; exit 0; }
target=${CARGO_TARGET_DIR:-$here/../node/target}
cargo build --release --locked --manifest-path "$here/../node/Cargo.toml" --target-dir "$target"
name=$(node -p 'process.platform + "-" + process.arch')
case $(uname -s) in Darwin) lib=libshangmi_node.dylib ;; *) lib=libshangmi_node.so ;; esac
mkdir -p "$here/native"
cp "$target/release/$lib" "$here/native/shangmi.$name.node"
ls -l "$here/native/shangmi.$name.node"
