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
