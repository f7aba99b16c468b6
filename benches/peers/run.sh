#!/usr/bin/env bash
# The peer harness: `shangmi speed` against emmansun/gmsm v0.44.0 (our Go benchmarks over
# its public API, peers_test.go) and `openssl speed`, alternated round by round (A B A B),
# then one table of ratios (table.py). Not part of CI: a run takes a few minutes.
#
#   benches/peers/run.sh                    # 2 rounds, 0.3 s per cell
#   ROUNDS=3 CELL_SECONDS=0.5 benches/peers/run.sh
#   PEERS_OUT=/some/dir benches/peers/run.sh   # keep the raw outputs there
#   GMSSL_BENCH=/path/to/prog benches/peers/run.sh   # and GmSSL's SM2, see below
#   PEERS_SVG=/tmp/chart.svg benches/peers/run.sh    # the chart elsewhere
#
# Besides the table it draws the figures as an SVG (chart.py: MB/s against message size,
# op/s bars for SM2/SM9, the CPU and date in the title), by default over benches/peers/
# peers.svg, the chart README.md and PERFORMANCE.md show.
#
# Needs cargo, go (gmsm comes from the Go module proxy, pinned in go.mod/go.sum), python3;
# openssl is optional (its column stays empty without it). OpenSSL's ECDSA P-256 (its
# hand-written x86-64 assembly) is timed too, as a reference for the SM2 rows.
#
# GmSSL (optional, a peer built by whoever runs this, never part of the repository): set
# GMSSL_BENCH to a command that times GmSSL's SM2 and prints one line per operation, "<row>
# <op/s>", with our row names: sm2-keygen, sm2-sign-context (its signing context, hashing
# Z_A and a 32-byte message), sm2-verify, sm2-encrypt-32, sm2-decrypt-32. It runs in each
# round after ours; or set GMSSL_RESULTS to a file of such lines measured elsewhere (then
# every round reads the same figures). The table then gets a GmSSL section.
set -euo pipefail

rounds=${ROUNDS:-2}
cell=${CELL_SECONDS:-0.3}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if [ -n "${PEERS_OUT:-}" ]; then
    work=$PEERS_OUT
    mkdir -p "$work"
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi

cargo build --quiet --release -p shangmi-cli --manifest-path "$root/Cargo.toml"
target=$(cargo metadata --format-version 1 --no-deps --manifest-path "$root/Cargo.toml" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
ours="$target/release/shangmi"
(cd "$here" && go test -c -o "$work/gmsm.test" .)
cpus=$(nproc)

for r in $(seq "$rounds"); do
    echo "round $r/$rounds: shangmi" >&2
    "$ours" speed --seconds "$cell" sm4-ecb sm4-cbc sm4-ctr sm4-gcm sm4-ccm-seal \
        sm4-xts-enc sm4-cmac sm3 sm2 sm9 zuc eea3 eia3 >"$work/ours.$r"
    echo "round $r/$rounds: gmsm" >&2
    "$work/gmsm.test" -test.run '^$' -test.bench . -test.benchtime "${cell}s" \
        -test.cpu "$cpus" >"$work/gmsm.$r"
    if [ -n "${GMSSL_BENCH:-}" ]; then
        echo "round $r/$rounds: gmssl" >&2
        $GMSSL_BENCH >"$work/gmssl.$r"
    elif [ -n "${GMSSL_RESULTS:-}" ]; then
        cp "$GMSSL_RESULTS" "$work/gmssl.$r"
    fi
    if command -v openssl >/dev/null; then
        echo "round $r/$rounds: openssl" >&2
        {
            for evp in sm4-ecb sm4-cbc sm4-ctr; do
                echo "# $evp 8192"
                openssl speed -seconds 1 -bytes 8192 -evp "$evp" 2>/dev/null | tail -1
            done
            for n in 1024 8192; do
                echo "# sm3 $n"
                openssl speed -seconds 1 -bytes "$n" -evp sm3 2>/dev/null | tail -1
            done
            echo "# sm2"
            openssl speed -seconds 1 sm2 2>/dev/null | tail -1
            echo "# ecdsap256"
            openssl speed -seconds 1 ecdsap256 2>/dev/null | tail -1
        } >"$work/openssl.$r"
    fi
done

python3 "$here/table.py" "$work" "$rounds" "$cpus" "${PEERS_SVG:-$here/peers.svg}"
