"""The peer harness's figures as one SVG (issue 38, item 7): throughput against message size
for four kinds of work (ours, gmsm, OpenSSL where `openssl speed` has the row), then op/s bars
for SM2 and SM9 (ours, gmsm, GmSSL when GMSSL_BENCH/GMSSL_RESULTS gave it, OpenSSL).

Plain SVG written by hand: no plotting library to install. Both axes of the line panels and
the bars' axis are logarithmic, because the figures span two to three decades. Each point is
the median over the harness's rounds; the title names the CPU and the date of the run.
"""

import math
import statistics
from html import escape

# (title, our row, OpenSSL's key per size or None)
LINES = [
    ("SM4-GCM seal", "sm4-gcm-seal", {}),
    ("SM4-CBC decrypt", "sm4-cbc-dec", {}),
    ("SM3", "sm3", {1024: "sm3 1024", 8192: "sm3 8192"}),
    ("128-EEA3 (ZUC)", "eea3", {}),
]
# (label, our row, gmsm's row, GmSSL's row, OpenSSL's key)
BARS = [
    ("SM2 keygen", "sm2-keygen", "sm2-keygen", "sm2-keygen", None),
    ("SM2 sign", "sm2-sign", "sm2-sign", None, "sm2 sign"),
    ("SM2 sign (contexts)", "sm2-sign-context", None, "sm2-sign-context", None),
    ("SM2 verify", "sm2-verify", "sm2-verify", "sm2-verify", "sm2 verify"),
    ("SM2 encrypt 32 B", "sm2-encrypt-32", "sm2-encrypt-32", "sm2-encrypt-32", None),
    ("SM9 sign", "sm9-sign", "sm9-sign", None, None),
    ("SM9 verify", "sm9-verify", "sm9-verify", None, None),
    ("SM9 encrypt 32 B", "sm9-encrypt-32", "sm9-encrypt-32", None, None),
]
PEERS = [  # name, colour, dashed
    ("shangmi", "#c0392b", False),
    ("gmsm v0.44", "#2471a3", False),
    ("GmSSL", "#7d3c98", False),
    ("OpenSSL", "#239b56", True),
]
W, PANEL_W, PANEL_H, LEFT, TOP, SPACE = 980, 190, 190, 58, 80, 46


def _median(values):
    values = [v for v in values if v]
    return statistics.median(values) if values else None


def _series(rounds, row):
    """{size: median} over the rounds for one (row, size) family of a parsed peer."""
    sizes = sorted({s for r in rounds for (name, s) in r if name == row and s is not None})
    return {s: _median([r.get((row, s)) for r in rounds]) for s in sizes}


def _log_ticks(lo, hi):
    return [10**e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)]


def _num(v):
    return f"{v:,.0f}" if v >= 100 else (f"{v:.1f}" if v >= 1 else f"{v:.2g}")


def _size(n):
    return f"{n // 1024} KiB" if n >= 1024 else f"{n} B"


def _line_panel(out, x0, y0, title, curves):
    """curves: [(peer index, {size: MB/s})]; log-log axes over what the curves hold."""
    pts = [(s, v) for _, c in curves for s, v in c.items() if v]
    out.append(f'<text x="{x0 + PANEL_W / 2}" y="{y0 - 8}" class="h">{escape(title)}</text>')
    if not pts:
        out.append(f'<text x="{x0 + 10}" y="{y0 + 20}">no data</text>')
        return
    xs, ys = [s for s, _ in pts], [v for _, v in pts]
    xlo, xhi = min(xs), max(xs)
    yt = _log_ticks(min(ys), max(ys))
    ylo, yhi = yt[0], yt[-1]
    lx = lambda s: x0 + (PANEL_W * (math.log(s / xlo) / math.log(xhi / xlo)) if xhi > xlo else PANEL_W / 2)
    ly = lambda v: y0 + PANEL_H - PANEL_H * math.log(v / ylo) / math.log(yhi / ylo)
    out.append(f'<rect x="{x0}" y="{y0}" width="{PANEL_W}" height="{PANEL_H}" class="frame"/>')
    for t in yt:
        out.append(f'<line x1="{x0}" x2="{x0 + PANEL_W}" y1="{ly(t):.1f}" y2="{ly(t):.1f}" class="grid"/>')
        out.append(f'<text x="{x0 - 4}" y="{ly(t) + 4:.1f}" class="yl">{_num(t)}</text>')
    last = -1e9
    for s in sorted(set(xs)):
        if lx(s) - last >= 30:  # labels that would overlap are left out
            out.append(f'<text x="{lx(s):.1f}" y="{y0 + PANEL_H + 14}" class="xl">{_size(s)}</text>')
            last = lx(s)
    for peer, curve in curves:
        name, colour, dashed = PEERS[peer]
        line = [(lx(s), ly(v)) for s, v in sorted(curve.items()) if v]
        if len(line) > 1:
            d = " ".join(f"{x:.1f},{y:.1f}" for x, y in line)
            dash = ' stroke-dasharray="5,3"' if dashed else ""
            out.append(f'<polyline points="{d}" stroke="{colour}"{dash} class="curve"/>')
        for x, y in line:
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.6" fill="{colour}"/>')


def _bar_panel(out, y0, rows):
    """rows: [(label, [value per peer or None])]; horizontal log-scale bars."""
    values = [v for _, vs in rows for v in vs if v]
    if not values:
        return y0
    ticks = _log_ticks(min(values) / 2, max(values))
    lo, hi = ticks[0], ticks[-1]
    x0, width, bar, gap = LEFT + 110, W - LEFT - 110 - 90, 7, 10
    lx = lambda v: x0 + width * math.log(v / lo) / math.log(hi / lo)
    out.append(f'<text x="{W / 2}" y="{y0}" class="h">Operations per second (log scale)</text>')
    y = y0 + 14
    top = y
    for label, vs in rows:
        present = [(p, v) for p, v in enumerate(vs) if v]
        if not present:
            continue
        h = bar * len(present)
        out.append(f'<text x="{x0 - 6}" y="{y + h / 2 + 4:.1f}" class="yl">{escape(label)}</text>')
        for p, v in present:
            out.append(
                f'<rect x="{x0}" y="{y}" width="{max(lx(v) - x0, 1):.1f}" height="{bar - 1}" '
                f'fill="{PEERS[p][1]}"/>'
            )
            out.append(f'<text x="{lx(v) + 3:.1f}" y="{y + bar - 1}" class="v">{_num(v)}</text>')
            y += bar
        y += gap
    for t in ticks:
        out.append(f'<line x1="{lx(t):.1f}" x2="{lx(t):.1f}" y1="{top - 4}" y2="{y}" class="grid"/>')
        out.append(f'<text x="{lx(t):.1f}" y="{y + 12}" class="xl">{_num(t)}</text>')
    return y + 20


def write_svg(path, machine, date, ours, gmsm, ossl, gmssl):
    """ours/gmsm/gmssl: per round {(row, size or None): value}; ossl: per round {key: value}."""
    out = []
    for i, (title, row, ossl_keys) in enumerate(LINES):
        curves = [(0, _series(ours, row)), (1, _series(gmsm, row))]
        if ossl_keys:
            curves.append((3, {s: _median([o.get(k) for o in ossl]) for s, k in ossl_keys.items()}))
        _line_panel(out, LEFT + i * (PANEL_W + SPACE), TOP + 20, f"{title}, MB/s", curves)
    rows = []
    for label, o, g, gs, os_ in BARS:
        rows.append(
            (
                label,
                [
                    _median([r.get((o, None)) for r in ours]),
                    _median([r.get((g, None)) for r in gmsm]) if g else None,
                    _median([r.get((gs, None)) for r in gmssl]) if gs else None,
                    _median([r.get(os_) for r in ossl]) if os_ else None,
                ],
            )
        )
    height = _bar_panel(out, TOP + PANEL_H + 70, rows)
    legend = []
    present = [bool(any(ours)), bool(any(gmsm)), bool(any(gmssl)), bool(any(ossl))]
    for i, (name, colour, _) in enumerate(p for p, shown in zip(PEERS, present) if shown):
        x = LEFT + i * 130
        legend.append(f'<rect x="{x}" y="{TOP - 22}" width="12" height="12" fill="{colour}"/>')
        legend.append(f'<text x="{x + 17}" y="{TOP - 12}">{escape(name)}</text>')
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{height}" '
        f'viewBox="0 0 {W} {height}" font-family="sans-serif" font-size="11">\n'
        "<style>.h{font-weight:bold;text-anchor:middle}.yl{text-anchor:end}"
        ".xl{text-anchor:middle;font-size:9px}.v{font-size:9px}.grid{stroke:#ddd}"
        ".frame{fill:none;stroke:#999}.curve{fill:none;stroke-width:1.6}</style>\n"
        f'<rect width="{W}" height="{height}" fill="white"/>\n'
        f'<text x="{W / 2}" y="20" class="h" font-size="14">shangmi against its peers, '
        f"{escape(date)}</text>\n"
        f'<text x="{W / 2}" y="38" class="h" font-weight="normal">{escape(machine)}; '
        "benches/peers/run.sh, median of the rounds</text>\n"
    )
    with open(path, "w") as f:
        f.write(head + "\n".join(legend + out) + "\n</svg>\n")
