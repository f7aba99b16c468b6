"""Speed of the wheel against `cryptography` (the OpenSSL its wheel bundles) and gmssl:
SM4-GCM, SM4-CBC and SM3 over 1 MiB, SM2 sign_with_sm3. Not run in CI (timings are not
tests). The two sides alternate call by call (A B A B ...) and each figure is the fastest
call; the machine's load is yours to note.

    python bindings/python/bench.py [--rounds 3] [--mib 1]
"""

import argparse
import os
import platform
import time

import shangmi


def best(fn, rounds, inner=1):
    """Fastest of `rounds` timings of `inner` calls, per call."""
    out = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(inner):
            fn()
        out.append((time.perf_counter() - t) / inner)
    return min(out)


def alternate(a, b, rounds, calls):
    """Fastest call of each over `rounds * calls` calls, alternated call by call (A B A B):
    on a loaded machine the fastest call is the one least disturbed, and alternating puts
    both sides under the same load."""
    ta = tb = float("inf")
    for _ in range(rounds * calls):
        t = time.perf_counter()
        a()
        ta = min(ta, time.perf_counter() - t)
        t = time.perf_counter()
        b()
        tb = min(tb, time.perf_counter() - t)
    return ta, tb


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            info = f.read()
        fam = [l.split(":")[1].strip() for l in info.splitlines() if l.startswith("cpu family")]
        mod = [l.split(":")[1].strip() for l in info.splitlines() if l.startswith("model\t")]
        name = [l.split(":")[1].strip() for l in info.splitlines() if l.startswith("model name")]
        return "%s (family %s model %s)" % (name[0], fam[0], mod[0])
    except (OSError, IndexError):
        return platform.processor() or "unknown CPU"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--mib", type=int, default=1)
    args = ap.parse_args()
    from cryptography.hazmat.backends.openssl import backend
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    n = args.mib << 20
    data, key, iv, nonce = os.urandom(n), os.urandom(16), os.urandom(16), os.urandom(12)
    print("CPU:", cpu_name())
    print("cryptography's", backend.openssl_version_text(), "| fastest of alternated calls")
    rows = []

    def row(name, ours, theirs, unit_bytes=n):
        mb = lambda t: unit_bytes / t / 1e6
        rows.append((name, mb(ours), mb(theirs), theirs / ours))

    gcm = shangmi.SM4GCM(key)

    def c_gcm():
        e = Cipher(algorithms.SM4(key), modes.GCM(nonce)).encryptor()
        e.update(data)
        e.finalize()

    row("SM4-GCM encrypt", *alternate(lambda: gcm.encrypt(nonce, data), c_gcm, args.rounds, 10))
    cbc = shangmi.SM4CBC(key)
    padded = data + bytes([16]) * 16

    def c_cbc():
        e = Cipher(algorithms.SM4(key), modes.CBC(iv)).encryptor()
        e.update(padded)
        e.finalize()

    row("SM4-CBC encrypt", *alternate(lambda: cbc.encrypt(iv, data), c_cbc, args.rounds, 10))
    ct = cbc.encrypt(iv, data)

    def c_cbc_dec():
        d = Cipher(algorithms.SM4(key), modes.CBC(iv)).decryptor()
        d.update(ct)
        d.finalize()

    row("SM4-CBC decrypt", *alternate(lambda: cbc.decrypt(iv, ct), c_cbc_dec, args.rounds, 10))

    def c_sm3():
        h = hashes.Hash(hashes.SM3())
        h.update(data)
        h.finalize()

    row("SM3", *alternate(lambda: shangmi.sm3(data).digest(), c_sm3, args.rounds, 10))
    print("%-18s %12s %14s %8s" % ("1 MiB x " + str(args.mib), "shangmi MB/s", "crypto MB/s",
                                   "ratio"))
    for name, a, b, r in rows:
        print("%-18s %12.0f %14.0f %7.2fx" % (name, a, b, r))
    try:
        from gmssl import sm2 as g_sm2

        from shangmi.compat.gmssl import sm2 as o_sm2
    except ImportError:
        return
    while True:  # gmssl's lstrip("04") breaks keys whose x starts with 0 or 4
        k = shangmi.PrivateKey.generate()
        priv, pub = k.to_hex(), k.public_key().to_hex()
        if pub[2] not in "04":
            break
    ours = o_sm2.CryptSM2(private_key=priv, public_key=pub)
    theirs = g_sm2.CryptSM2(private_key=priv, public_key=pub)
    from shangmi.compat.gmssl import func

    # before: a hex nonce drawn digit by digit, then signed with it
    old = lambda: ours.sign(k.public_key().digest(b"message"), func.random_hex(64))  # noqa: E731
    a, b = alternate(lambda: ours.sign_with_sm3(b"message"), old, args.rounds, 100)
    native = best(lambda: k.sign(b"message"), args.rounds * 100)
    g = best(lambda: theirs.sign_with_sm3(b"message"), args.rounds)
    print("sign_with_sm3: %.1f us (native PrivateKey.sign %.1f us; a digit-by-digit K %.1f us; "
          "gmssl %.0f us, %.0fx)" % (a * 1e6, native * 1e6, b * 1e6, g * 1e6, g / a))


if __name__ == "__main__":
    main()
