"""Speed of the `shangmi` wheel against PyPI's `gmssl` 3.2 and `cryptography` (OpenSSL's
SM3/SM4) in one process, alternated rounds, best round kept. A benchmark, not a test.

    python bench_python.py [--quick]
"""

import os
import sys
import time

import shangmi
from shangmi.compat.gmssl import sm2 as c_sm2

try:
    from gmssl import sm2 as g_sm2, sm3 as g_sm3, sm4 as g_sm4, func as g_func
except ImportError:  # pragma: no cover
    g_sm2 = None
try:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
except ImportError:  # pragma: no cover
    hashes = None

QUICK = "--quick" in sys.argv
MIB = os.urandom(1 << 20)
SMALL = MIB[: 64 * 1024]  # gmssl is too slow for 1 MiB in a short run: timed on 64 KiB, scaled
KEY, IV = os.urandom(16), os.urandom(16)


def rate(fn, nbytes=None, budget=0.3 if QUICK else 1.0):
    """Operations (or MiB when nbytes is given) per second, best of 3 alternated rounds."""
    best = 0.0
    for _ in range(3):
        n, t0 = 0, time.perf_counter()
        while True:
            fn()
            n += 1
            dt = time.perf_counter() - t0
            if dt > budget / 3:
                break
        best = max(best, n / dt)
    return best * nbytes / (1 << 20) if nbytes else best


def sha_cryptography_sm3(data):
    h = hashes.Hash(hashes.SM3())
    h.update(data)
    return h.finalize()


def crypt_cbc(data):
    e = Cipher(algorithms.SM4(KEY), modes.CBC(IV)).encryptor()
    return e.update(data) + e.finalize()


def crypt_ctr(data):
    e = Cipher(algorithms.SM4(KEY), modes.CTR(IV)).encryptor()
    return e.update(data) + e.finalize()


def crypt_gcm(data):
    e = Cipher(algorithms.SM4(KEY), modes.GCM(IV[:12])).encryptor()
    return e.update(data) + e.finalize() + e.tag


def main():
    rows = []
    key = shangmi.PrivateKey.generate()
    pub = key.public_key()
    priv_hex, pub_hex = key.to_hex(), pub.to_hex()
    sig = key.sign(b"message")
    ours_cbc, ours_ctr, ours_gcm = shangmi.SM4CBC(KEY), shangmi.SM4CTR(KEY), shangmi.SM4GCM(KEY)

    # (name, unit, ours, gmssl, cryptography)
    g4 = None
    if g_sm2:
        g4 = g_sm4.CryptSM4()
        g4.set_key(KEY, g_sm4.SM4_ENCRYPT)
        gk = g_sm2.CryptSM2(private_key=priv_hex, public_key=pub_hex[2:])
        gsig = gk.sign_with_sm3(b"message")
    cases = [
        ("SM3 1 MiB", "MiB/s",
         lambda: shangmi.sm3(MIB).digest(),
         (lambda: g_sm3.sm3_hash(list(SMALL[:16384])), 16384) if g_sm2 else None,
         (lambda: sha_cryptography_sm3(MIB)) if hashes else None),
        ("SM4-CBC enc 1 MiB", "MiB/s",
         lambda: ours_cbc.encrypt(IV, MIB),
         (lambda: g4.crypt_cbc(IV, SMALL[:16384]), 16384) if g_sm2 else None,
         (lambda: crypt_cbc(MIB)) if hashes else None),
        ("SM4-CTR 1 MiB", "MiB/s", lambda: ours_ctr.encrypt(IV, MIB), None,
         (lambda: crypt_ctr(MIB)) if hashes else None),
        ("SM4-GCM enc 1 MiB", "MiB/s", lambda: ours_gcm.encrypt(IV[:12], MIB, b""), None,
         (lambda: crypt_gcm(MIB)) if hashes else None),
        ("SM2 sign", "op/s", lambda: key.sign(b"message"),
         (lambda: gk.sign_with_sm3(b"message"), None) if g_sm2 else None, None),
        ("SM2 verify", "op/s", lambda: pub.verify(sig, b"message"),
         (lambda: gk.verify_with_sm3(gsig, b"message"), None) if g_sm2 else None, None),
    ]
    print(f"{'operation':22} {'shangmi':>12} {'gmssl':>12} {'x gmssl':>9} {'cryptography':>13} {'x crypt.':>9}")
    for name, unit, ours, gm, cr in cases:
        nb = (1 << 20) if unit == "MiB/s" else None
        o = rate(ours, nb)
        g = rate(gm[0], gm[1]) if gm else None
        c = rate(cr, nb) if cr else None
        fmt = lambda v: f"{v:12.4g}" if v is not None else f"{'-':>12}"
        ratio = lambda a, b: f"{a / b:9.1f}x" if b else f"{'-':>10}"
        print(f"{name:22} {fmt(o)} {fmt(g)} {ratio(o, g)} {fmt(c):>13} {ratio(o, c)}  {unit}")
        rows.append((name, o, g, c))
    return rows


if __name__ == "__main__":
    main()
