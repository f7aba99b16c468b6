"""Reads run.sh's outputs (ours.N, gmsm.N, openssl.N and gmssl.N for rounds 1..R) and prints one
Markdown table: per row the medians over the rounds and the ratio ours/peer of each round
(A and B of one round ran minutes apart at most), as "median (min-max)". With a fourth
argument, also writes the figures as an SVG chart there (chart.py)."""

import datetime
import re
import statistics
import sys
from pathlib import Path

from chart import write_svg

# (label, our row, bytes or None for op/s rows)
ROWS = [
    ("SM4 ECB encrypt 8 KiB", "sm4-ecb-enc", 8192),
    ("SM4 CBC encrypt 1 KiB", "sm4-cbc-enc", 1024),
    ("SM4 CBC encrypt 8 KiB", "sm4-cbc-enc", 8192),
    ("SM4 CBC decrypt 64 B", "sm4-cbc-dec", 64),
    ("SM4 CBC decrypt 256 B", "sm4-cbc-dec", 256),
    ("SM4 CBC decrypt 1 KiB", "sm4-cbc-dec", 1024),
    ("SM4 CBC decrypt 8 KiB", "sm4-cbc-dec", 8192),
    ("SM4 CTR 8 KiB", "sm4-ctr", 8192),
    ("SM4 GCM seal 16 B", "sm4-gcm-seal", 16),
    ("SM4 GCM seal 64 B", "sm4-gcm-seal", 64),
    ("SM4 GCM seal 1 KiB", "sm4-gcm-seal", 1024),
    ("SM4 GCM seal 8 KiB", "sm4-gcm-seal", 8192),
    ("SM4 GCM seal 16 KiB", "sm4-gcm-seal", 16384),
    ("SM4 GCM open 8 KiB", "sm4-gcm-open", 8192),
    ("SM4 CCM seal 8 KiB", "sm4-ccm-seal", 8192),
    ("SM4 XTS encrypt 8 KiB", "sm4-xts-enc", 8192),
    ("SM4 CMAC 1 KiB", "sm4-cmac", 1024),
    ("SM4 CMAC 8 KiB", "sm4-cmac", 8192),
    ("SM3 1 KiB", "sm3", 1024),
    ("SM3 8 KiB", "sm3", 8192),
    ("ZUC-128 keystream 1 KiB", "zuc128", 1024),
    ("ZUC-128 keystream 8 KiB", "zuc128", 8192),
    ("ZUC-256 keystream 8 KiB", "zuc256", 8192),
    ("128-EEA3 64 B", "eea3", 64),
    ("128-EEA3 8 KiB", "eea3", 8192),
    ("128-EIA3 64 B", "eia3", 64),
    ("128-EIA3 8 KiB", "eia3", 8192),
    ("ZUC-256 MAC-128 8 KiB", "zuc256-mac128", 8192),
    ("SM2 keygen (op/s)", "sm2-keygen", None),
    ("SM2 sign (op/s)", "sm2-sign", None),
    ("SM2 verify (op/s)", "sm2-verify", None),
    ("SM2 encrypt 32 B (op/s)", "sm2-encrypt-32", None),
    ("SM9 sign (op/s)", "sm9-sign", None),
    ("SM9 verify (op/s)", "sm9-verify", None),
    ("SM9 encrypt 32 B (op/s)", "sm9-encrypt-32", None),
    ("SM9 decrypt 32 B (op/s)", "sm9-decrypt-32", None),
]

OPENSSL = {
    ("sm4-ecb-enc", 8192): "sm4-ecb 8192",
    ("sm4-cbc-enc", 8192): "sm4-cbc 8192",
    ("sm4-ctr", 8192): "sm4-ctr 8192",
    ("sm3", 1024): "sm3 1024",
    ("sm3", 8192): "sm3 8192",
    ("sm2-sign", None): "sm2 sign",
    ("sm2-verify", None): "sm2 verify",
}


def parse_ours(text):
    """`shangmi speed`: a MB/s table with a header of sizes, then an op/s table."""
    out, sizes, ops = {}, [], False
    for line in text.splitlines():
        words = line.split()
        if not words:
            continue
        if words[0].startswith("Operations"):
            ops = True
        elif line.strip().endswith(" B") and not ops:
            sizes = [int(w) for w in words if w.isdigit()]
        elif ops and words[0].startswith(("sm2-", "sm9-")) and len(words) >= 2:
            out[(words[0], None)] = float(words[1])
        elif sizes and words[0].startswith(("sm4-", "sm3", "zuc", "eea3", "eia3")) and len(words) == len(sizes) + 1:
            for size, value in zip(sizes, words[1:]):
                out[(words[0], size)] = float(value)
    return out


def parse_gmsm(text, cpus):
    """go test -bench lines: BenchmarkSM4/<row>/<bytes>-<cpus> N ns/op MB/s."""
    out = {}
    suffix = f"-{cpus}" if cpus > 1 else ""
    for line in text.splitlines():
        m = re.match(r"^Benchmark\w+/(\S+)\s+\d+\s+([\d.]+) ns/op(?:\s+([\d.]+) MB/s)?", line)
        if not m:
            continue
        name = m.group(1)
        if suffix and name.endswith(suffix):
            name = name[: -len(suffix)]
        parts = name.split("/")
        if len(parts) == 2 and m.group(3):
            out[(parts[0], int(parts[1]))] = float(m.group(3))
        elif len(parts) == 1:
            out[(parts[0], None)] = 1e9 / float(m.group(2))
    return out


def parse_openssl(text):
    """Blocks of '# <what>' then openssl speed's last line (1000s of bytes/s, or SM2)."""
    out, what = {}, None
    for line in text.splitlines():
        if line.startswith("# "):
            what = line[2:].strip()
            continue
        words = line.split()
        if what in ("sm2", "ecdsap256") and len(words) >= 2:
            out[f"{what} sign"], out[f"{what} verify"] = float(words[-2]), float(words[-1])
        elif what and words and words[-1].endswith("k"):
            out[what] = float(words[-1][:-1]) * 1000 / 1e6
    return out


# Rows of the GmSSL section: (label, our row, GmSSL's row).
GMSSL_ROWS = [
    ("SM2 keygen", "sm2-keygen", "sm2-keygen"),
    ("SM2 keygen (ours from a key pool)", "sm2-keygen-pool", "sm2-keygen"),
    ("SM2 sign (signing contexts)", "sm2-sign-context", "sm2-sign-context"),
    ("SM2 verify", "sm2-verify", "sm2-verify"),
    ("SM2 encrypt 32 B", "sm2-encrypt-32", "sm2-encrypt-32"),
    ("SM2 decrypt 32 B", "sm2-decrypt-32", "sm2-decrypt-32"),
]


def parse_gmssl(text):
    """GMSSL_BENCH's lines: '<row> <op/s>'."""
    out = {}
    for line in text.splitlines():
        words = line.split()
        if len(words) >= 2 and words[0].startswith("sm2-"):
            try:
                out[(words[0], None)] = float(words[1])
            except ValueError:
                pass
    return out


def fmt(v):
    return "—" if v is None else (f"{v:,.0f}" if v >= 100 else f"{v:.1f}")


def ratios(a, b):
    rs = [x / y for x, y in zip(a, b) if x and y]
    if not rs:
        return "—"
    med = statistics.median(rs)
    return f"{med:.2f}x" if len(rs) == 1 else f"{med:.2f}x ({min(rs):.2f}–{max(rs):.2f})"


def header(*columns):
    """A table's first two lines: "work", then the right-aligned `columns`."""
    print("| work | " + " | ".join(columns) + " |")
    print("|---|" + "--:|" * len(columns))


def column(runs, key):
    """`key`'s value in each round (None where a round lacks it)."""
    return [r.get(key) for r in runs]


def typical(values):
    """The median over the rounds that have a value, formatted."""
    found = [x for x in values if x]
    return fmt(statistics.median(found) if found else None)


def main():
    work, rounds, cpus = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    read = lambda name: (work / name).read_text() if (work / name).exists() else ""
    ours = [parse_ours(read(f"ours.{r}")) for r in range(1, rounds + 1)]
    gmsm = [parse_gmsm(read(f"gmsm.{r}"), cpus) for r in range(1, rounds + 1)]
    ossl = [parse_openssl(read(f"openssl.{r}")) for r in range(1, rounds + 1)]
    gmssl = [parse_gmssl(read(f"gmssl.{r}")) for r in range(1, rounds + 1)]
    machine = next(
        (l.removeprefix("shangmi speed on ").strip()
         for l in read("ours.1").splitlines()
         if l.startswith("shangmi speed on ")),
        "an unnamed CPU",
    )
    if len(sys.argv) > 4:
        date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        write_svg(sys.argv[4], machine, date, ours, gmsm, ossl, gmssl)
    print(f"Measured on {machine}.")
    print(f"{rounds} rounds, alternated; MB/s unless marked; median over rounds, ratio per round")
    print()
    header("ours", "gmsm v0.44", "ours/gmsm", "OpenSSL", "ours/OpenSSL")
    for label, row, size in ROWS:
        a, b = column(ours, (row, size)), column(gmsm, (row, size))
        key = OPENSSL.get((row, size))
        c = column(ossl, key) if key else []
        print(
            f"| {label} | {typical(a)} | {typical(b)} | {ratios(a, b)} "
            f"| {typical(c)} | {ratios(a, c) if any(c) else '—'} |"
        )

    if any(gmssl):
        print()
        print("SM2 against GmSSL (op/s; GMSSL_BENCH, same rounds):")
        print()
        header("ours", "GmSSL", "ours/GmSSL")
        for label, row, theirs in GMSSL_ROWS:
            a, b = column(ours, (row, None)), column(gmssl, (theirs, None))
            print(f"| {label} | {typical(a)} | {typical(b)} | {ratios(a, b)} |")

    # The same-size reference: a 256-bit prime curve in OpenSSL's hand-written assembly,
    # against which both SM2 implementations can be placed.
    print()
    print("Reference, OpenSSL ECDSA P-256 (op/s), a 256-bit prime curve like SM2's:")
    print()
    header("ours SM2", "gmsm SM2", "OpenSSL P-256", "ours/P-256", "gmsm/P-256")
    for op in ("sign", "verify"):
        a, b = column(ours, (f"sm2-{op}", None)), column(gmsm, (f"sm2-{op}", None))
        c = column(ossl, f"ecdsap256 {op}")
        print(
            f"| {op} | {typical(a)} | {typical(b)} "
            f"| {typical(c)} | {ratios(a, c)} | {ratios(b, c)} |"
        )

    # Our own modes against our own engine calls, same process and round: CBC decryption
    # against ECB decryption, GCM against CTR (the cost of the chaining and of GHASH).
    print()
    print("Ours against ours (ratio per round, median (min-max)):")
    print()
    sizes = [16, 64, 256, 1024, 8192, 16384]
    header(*(f"{s} B" for s in sizes))
    for label, row, base in (
        ("CBC decrypt / ECB decrypt", "sm4-cbc-dec", "sm4-ecb-dec"),
        ("GCM seal / CTR", "sm4-gcm-seal", "sm4-ctr"),
        ("GCM open / CTR", "sm4-gcm-open", "sm4-ctr"),
    ):
        cells = [
            ratios(column(ours, (row, s)), column(ours, (base, s)))
            for s in sizes
        ]
        print(f"| {label} | " + " | ".join(cells) + " |")


main()
