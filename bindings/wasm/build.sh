#!/usr/bin/env bash
# Builds the WebAssembly engine of the `shangmi` npm package: pkg-node/ (`--target nodejs`,
# loaded by js/index.js when the native addon is absent) and the browser build pkg-web/
# (`--target web`, with js/api.js as an ES module; js/web.mjs, the package's entry for
# browsers and bundlers, imports both) from one `cargo build` for wasm32: what
# `wasm-pack build` does, without wasm-pack. `npm run build` runs it (and build-native.sh).
# Needs Rust (rustup), and binaryen's wasm-opt from `npm install` here (npm's `binaryen`
# 132, a devDependency; or WASM_OPT=path): the build fails without it, and fails if the
# module exceeds 400,000 bytes (issue 28's cap). The wasm32 target and the wasm-bindgen CLI
# of the version Cargo.lock pins (0.2.130) are installed when missing.
#
# SM2 is built in its size profile (`--cfg shangmi_sm2_profile="size"`: a 6 KB comb instead
# of 88 KB, out-of-line point formulas) and each module is then shrunk by `wasm-opt -Oz`.
# SHANGMI_WASM_PROFILE=fast builds the fast profile (larger, SM2 signing 1.7x faster).
#   npm install && npm run build      (or: bash bindings/wasm/build.sh)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export PATH=$HOME/.cargo/bin:$PATH
target=${CARGO_TARGET_DIR:-$here/target}
case ${SHANGMI_WASM_PROFILE:-size} in
    size) export RUSTFLAGS="${RUSTFLAGS:-} --cfg shangmi_sm2_profile=\"size\"" ;;
    fast) ;;
    *) echo "SHANGMI_WASM_PROFILE must be size or fast" >&2; exit 2 ;;
esac
# The pinned binaryen first: Debian's (version 108) breaks wasm-bindgen's externref table.
wasm_opt=${WASM_OPT:-$here/node_modules/.bin/wasm-opt}
[ -x "$wasm_opt" ] || { echo "no wasm-opt at $wasm_opt: run npm install in bindings/wasm (or set WASM_OPT)" >&2; exit 1; }
# The pinned tools, fetched when missing: the wasm32 target, and the wasm-bindgen CLI of the
# version Cargo.lock pins (built from crates.io: several minutes, once).
rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown ||
    rustup target add wasm32-unknown-unknown
wb=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' "$here/Cargo.lock")
if ! wasm-bindgen --version 2>/dev/null | grep -qF " $wb"; then
    echo "installing wasm-bindgen-cli $wb (the version Cargo.lock pins; several minutes, once)" >&2
    # With the CLI's own lock file first; a registry (or mirror) that lacks a version that
    # lock names (seen: webpki-roots 1.0.11, needed by ureq) gets the same CLI version with
    # its dependencies resolved against what the registry has.
    # Optimisation level 1, no LTO, 16 codegen units: the CLI only rewrites one small
    # module here, and its build is mostly one serial chain of large crates (5.3 minutes
    # of one core on a Zen 5 with the crate's release profile).
    install_cli() {
        CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_LTO=false \
            CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_PROFILE_RELEASE_DEBUG=0 \
            cargo install "$@" wasm-bindgen-cli --version "$wb"
    }
    install_cli --locked || {
        echo "the locked install failed: resolving wasm-bindgen-cli $wb's dependencies again" >&2
        install_cli
    }
fi
cargo build --release --locked --lib --target wasm32-unknown-unknown \
    --manifest-path "$here/Cargo.toml" --target-dir "$target"
wasm=$target/wasm32-unknown-unknown/release/shangmi_wasm.wasm
for out in nodejs:pkg-node web:pkg-web; do
    dir=$here/${out#*:}
    rm -rf "$dir"
    wasm-bindgen --target "${out%%:*}" --out-dir "$dir" "$wasm"
    # The features rustc's wasm32 target enables by default.
    "$wasm_opt" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
        --enable-sign-ext --enable-mutable-globals --enable-reference-types \
        --enable-multivalue "$dir/shangmi_wasm_bg.wasm" -o "$dir/shangmi_wasm_bg.wasm"
done
# Browsers and bundlers get the same API layer as an ES module (js/web.mjs imports it);
# the self-test page (www/) serves a copy.
{ cat "$here/js/api.js"; echo 'export default makeShangmi'; } >"$here/pkg-web/api.js"
rm -rf "$here/www/pkg"
cp -r "$here/pkg-web" "$here/www/pkg"
size=$(stat -c %s "$here/pkg-node/shangmi_wasm_bg.wasm")
echo "wasm module: $size bytes"
[ "$size" -le 400000 ] || { echo "the wasm module exceeds 400,000 bytes" >&2; exit 1; }
