"""Differential tests of `shangmi.compat.gmssl` against the real `gmssl` 3.2 from PyPI:
their outputs open with ours and ours with theirs; with the same K signatures are equal."""

import os
import random

import pytest

gmssl = pytest.importorskip("gmssl")
from gmssl import func as g_func  # noqa: E402
from gmssl import sm2 as g_sm2  # noqa: E402
from gmssl import sm3 as g_sm3  # noqa: E402
from gmssl import sm4 as g_sm4  # noqa: E402

import shangmi  # noqa: E402
from shangmi.compat.gmssl import func, sm2, sm3, sm4  # noqa: E402

RNG = random.Random(28)


def keypair():
    while True:
        k = shangmi.PrivateKey.generate()
        pub = k.public_key().to_hex()
        # gmssl strips the 04 prefix with str.lstrip("04"), which also eats a leading 0 or 4
        # of x: give gmssl keys whose x does not start so (ours takes either).
        if pub[2] not in "04":
            return k.to_hex(), pub


def test_sm3_hash_and_kdf():
    for n in [0, 1, 55, 56, 64, 200, 1000]:
        m = os.urandom(n)
        assert sm3.sm3_hash(func.bytes_to_list(m)) == g_sm3.sm3_hash(g_func.bytes_to_list(m))
        assert sm3.sm3_hash(m) == g_sm3.sm3_hash(list(m))
    z = os.urandom(64).hex().encode()
    for klen in [1, 16, 32, 33, 100]:
        assert sm3.sm3_kdf(z, klen) == g_sm3.sm3_kdf(z, klen)


@pytest.mark.parametrize("padding", [sm4.PKCS7, sm4.ZERO])
def test_sm4_ecb_cbc(padding):
    for n in [0, 1, 15, 16, 17, 33, 200]:
        key, iv, m = os.urandom(16), os.urandom(16), os.urandom(n)
        if padding == sm4.ZERO and n and m[-1] == 0:
            m = m[:-1] + b"\x01"
        ours, theirs = sm4.CryptSM4(padding_mode=padding), g_sm4.CryptSM4(padding_mode=padding)
        ours.set_key(key, sm4.SM4_ENCRYPT)
        theirs.set_key(key, g_sm4.SM4_ENCRYPT)
        ct = ours.crypt_ecb(m)
        assert ct == theirs.crypt_ecb(m)
        cbc = ours.crypt_cbc(iv, m)
        assert cbc == theirs.crypt_cbc(iv, m)
        ours.set_key(key, sm4.SM4_DECRYPT)
        theirs.set_key(key, g_sm4.SM4_DECRYPT)
        assert ours.crypt_ecb(ct) == theirs.crypt_ecb(ct)
        assert ours.crypt_cbc(iv, cbc) == theirs.crypt_cbc(iv, cbc) == m


@pytest.mark.parametrize("mode", [0, 1])
@pytest.mark.parametrize("asn1", [False, True])
def test_sm2_sign_identical_with_fixed_k(mode, asn1):
    for _ in range(4):
        priv, pub = keypair()
        ours = sm2.CryptSM2(private_key=priv, public_key=pub, mode=mode, asn1=asn1)
        theirs = g_sm2.CryptSM2(private_key=priv, public_key=pub, mode=mode, asn1=asn1)
        data = os.urandom(RNG.choice([1, 20, 32, 40]))
        k = g_func.random_hex(64)
        s1, s2 = ours.sign(data, k), theirs.sign(data, k)
        assert s1 == s2
        assert ours.verify(s2, data) and theirs.verify(s1, data)
        msg = os.urandom(RNG.randrange(0, 100))
        s1, s2 = ours.sign_with_sm3(msg, k), theirs.sign_with_sm3(msg, k)
        assert s1 == s2
        assert ours.verify_with_sm3(s2, msg) and theirs.verify_with_sm3(s1, msg)
        # random K on our side: theirs verifies
        s3 = ours.sign_with_sm3(msg)
        assert theirs.verify_with_sm3(s3, msg)
        assert not ours.verify_with_sm3(s3, msg + b"x")


def test_sm2_pub_without_prefix_and_verify_only():
    priv, pub = keypair()
    signer = sm2.CryptSM2(private_key=priv, public_key=pub[2:])
    verifier = sm2.CryptSM2(private_key=None, public_key=pub)
    s = signer.sign_with_sm3(b"abc")
    assert verifier.verify_with_sm3(s, b"abc")
    assert not verifier.verify_with_sm3("00" * 64, b"abc")
    assert not verifier.verify_with_sm3("zz", b"abc")


@pytest.mark.parametrize("mode", [0, 1])
def test_sm2_encrypt_both_ways(mode):
    for _ in range(4):
        priv, pub = keypair()
        ours = sm2.CryptSM2(private_key=priv, public_key=pub, mode=mode)
        theirs = g_sm2.CryptSM2(private_key=priv, public_key=pub, mode=mode)
        m = os.urandom(RNG.randrange(1, 200))
        assert theirs.decrypt(ours.encrypt(m)) == m
        assert ours.decrypt(theirs.encrypt(m)) == m
        ct = ours.encrypt(m)
        # the other order does not decrypt (C3 checked) and returns None, never garbage
        other = sm2.CryptSM2(private_key=priv, public_key=pub, mode=1 - mode)
        assert other.decrypt(ct) is None


def test_kg_and_sm3_z_equal_gmssl():
    n = int(g_sm2.default_ecc_table["n"], 16)
    for _ in range(3):
        priv, pub = keypair()
        ours = sm2.CryptSM2(private_key=priv, public_key=pub)
        theirs = g_sm2.CryptSM2(private_key=priv, public_key=pub)
        g = g_sm2.default_ecc_table["g"]
        # the idiom: the public key from the private key
        assert ours._kg(int(priv, 16), g) == theirs._kg(int(priv, 16), g) == pub[2:]
        for k in [1, 2, RNG.getrandbits(256), n - 1, n + 5, (1 << 256) + 7, 0]:
            assert ours._kg(k, pub[2:]) == theirs._kg(k, pub[2:]), k
        assert ours._kg(n, g) is None and theirs._kg(n, g) is None
        for m in [b"", b"abc", os.urandom(100)]:
            assert ours._sm3_z(m) == theirs._sm3_z(m)
    with pytest.raises(ValueError):
        ours._kg(5, "00" * 64)  # not on the curve (gmssl computes garbage)
    with pytest.raises(TypeError):
        ours._kg("5", g)


def test_private_key_longer_than_64_digits_refused():
    priv, pub = keypair()
    with pytest.raises(ValueError):
        sm2.CryptSM2(private_key="01" + priv, public_key=pub)
    with pytest.raises(ValueError):
        sm2.CryptSM2(private_key="00" * 32, public_key=pub)  # zero is no key
    with pytest.raises(TypeError):
        sm2.CryptSM2(private_key=12345, public_key=pub)
    # shorter hex (leading zeros left out) is the same key, as in gmssl
    k = sm2.CryptSM2(private_key=priv.lstrip("0") or "0", public_key="")
    assert k.public_key == pub[2:]


@pytest.mark.parametrize("mode", [0, 1])
def test_decrypt_takes_04_prefixed_ciphertext(mode):
    priv, pub = keypair()
    ours = sm2.CryptSM2(private_key=priv, public_key=pub, mode=mode)
    theirs = g_sm2.CryptSM2(private_key=priv, public_key=pub, mode=mode)
    m = os.urandom(50)
    assert ours.decrypt(b"\x04" + theirs.encrypt(m)) == m
    layout = "C1C3C2" if mode else "C1C2C3"
    assert ours.decrypt(shangmi.PublicKey.from_hex(pub).encrypt(m, layout)) == m
    assert ours.decrypt(b"\x04" + os.urandom(120)) is None


def test_public_key_lstrip_bug_not_copied():
    # gmssl strips "04" with str.lstrip, eating x's own leading 0/4 digits; we remove one
    # prefix only, so keys whose x starts with 0 or 4 work.
    while True:
        k = shangmi.PrivateKey.generate()
        pub = k.public_key().to_hex()
        if pub[2] in "04":
            break
    ours = sm2.CryptSM2(private_key=k.to_hex(), public_key=pub)
    assert ours.public_key == pub[2:]
    assert ours.verify_with_sm3(ours.sign_with_sm3(b"m"), b"m")


def test_sign_with_sm3_native_nonce_verifies_in_gmssl():
    priv, pub = keypair()
    ours = sm2.CryptSM2(private_key=priv, public_key=pub, asn1=True)
    theirs = g_sm2.CryptSM2(private_key=priv, public_key=pub, asn1=True)
    sigs = {ours.sign_with_sm3(b"msg") for _ in range(4)}
    assert len(sigs) == 4  # a fresh nonce each time
    assert all(theirs.verify_with_sm3(s, b"msg") for s in sigs)
