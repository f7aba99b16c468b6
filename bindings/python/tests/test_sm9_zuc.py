"""SM9 and ZUC from Python: published vectors where they exist, round trips and refusals."""

import pytest

import shangmi


# 3GPP TS 35.223 (ETSI/SAGE 128-EEA3 & 128-EIA3 Document 3): EEA3 test set 1 and EIA3
# test sets 1 and 2 (the same values as zuc/tests/vectors.rs).
def test_zuc_eea3_eia3_3gpp_vectors():
    key = bytes.fromhex("173d14ba5003731d7a60049470f00a29")
    pt = bytes.fromhex("6cf65340735552ab0c9752fa6f9025fe0bd675d9005875b200")
    ct = bytes.fromhex("a6c85fc66afb8533aafc2518dfe784940ee1e4b030238cc800")
    assert shangmi.zuc_eea3(key, 0x66035492, 0xF, 0, pt, 193) == ct
    assert shangmi.zuc_eea3(key, 0x66035492, 0xF, 0, ct, 193) == pt
    assert shangmi.zuc_eia3(bytes(16), 0, 0, 0, b"\x00", 1) == bytes.fromhex("c8a9595e")
    k2 = bytes.fromhex("47054125561eb2dda94059da05097850")
    assert shangmi.zuc_eia3(k2, 0x561EB2DD, 0x14, 0, bytes(12), 90) == bytes.fromhex("6719a088")
    with pytest.raises(ValueError):
        shangmi.zuc_eea3(key, 0, 32, 0, pt)  # BEARER has 5 bits
    with pytest.raises(ValueError):
        shangmi.zuc_eea3(key, 0, 1, 0, pt, 7)  # length not the bit count rounded up


# ZUC-128 keystream test set 1 (Document 3, section 3): z1, z2 for zero key and IV.
# ZUC-256 all-zero key/IV keystream z1 ("The ZUC-256 Stream Cipher", section 4).
def test_zuc_keystreams():
    z = shangmi.ZUC(bytes(16), bytes(16))
    assert z.apply(bytes(4)) + z.apply(bytes(4)) == bytes.fromhex("27bede74018082da")
    z256 = shangmi.ZUC(bytes(32), bytes(25))
    assert z256.apply(bytes(4)) == bytes.fromhex("58d03ad6")
    with pytest.raises(ValueError):
        shangmi.ZUC(bytes(16), bytes(25))
    for n in (4, 8, 16):
        assert len(shangmi.zuc256_mac(bytes(32), bytes(25), b"x" * 100, n)) == n
    with pytest.raises(ValueError):
        shangmi.zuc256_mac(bytes(32), bytes(25), b"", 5)


def test_sm9_sign_verify():
    master = shangmi.SM9SignMasterKey.generate()
    mpk = master.public_key()
    alice = master.extract(b"Alice")
    for der in (True, False):
        sig = alice.sign(b"message", der=der)
        mpk.verify(b"Alice", b"message", sig)
        with pytest.raises(shangmi.InvalidSignature):
            mpk.verify(b"Bob", b"message", sig)
        with pytest.raises(shangmi.InvalidSignature):
            mpk.verify(b"Alice", b"messagf", sig)
    # keys survive their encodings
    again = shangmi.SM9SignMasterKey.from_bytes(master.to_bytes())
    assert again.public_key().to_bytes() == mpk.to_bytes()
    mpk2 = shangmi.SM9SignMasterPublicKey.from_bytes(mpk.to_bytes())
    user = shangmi.SM9SigningKey.from_bytes(alice.to_bytes(), mpk2)
    mpk2.verify(b"Alice", b"m", user.sign(b"m"))
    with pytest.raises(shangmi.InvalidKey):
        shangmi.SM9SignMasterPublicKey.from_bytes(bytes(128))


def test_sm9_encrypt_decrypt():
    master = shangmi.SM9EncryptMasterKey.generate()
    mpk = shangmi.SM9EncryptMasterPublicKey.from_bytes(master.public_key().to_bytes())
    bob = master.extract(b"Bob")
    for der in (False, True):
        ct = mpk.encrypt(b"Bob", b"secret message", der=der)
        assert bob.decrypt(ct) == b"secret message"
        with pytest.raises(shangmi.InvalidTag):
            master.extract(b"Carol").decrypt(ct)
    ct = bytearray(mpk.encrypt(b"Bob", b"x" * 40))
    ct[-1] ^= 1
    with pytest.raises(shangmi.InvalidTag):
        bob.decrypt(bytes(ct))
    same = shangmi.SM9EncryptPrivateKey.from_bytes(bob.to_bytes(), mpk, b"Bob")
    assert same.decrypt(mpk.encrypt(b"Bob", b"y")) == b"y"
