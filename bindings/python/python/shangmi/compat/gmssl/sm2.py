"""``gmssl.sm2``: ``CryptSM2(private_key, public_key, ecc_table, mode=0, asn1=False)`` with
hex keys. mode 0 writes C1C2C3 and mode 1 C1C3C2, C1 without the 04 prefix, as gmssl does.
``sign(data, K)`` signs the integer ``data`` with the caller's hex nonce ``K``, so outputs
equal gmssl's byte for byte; ``sign_with_sm3``/``verify_with_sm3`` hash with the default
identifier "1234567812345678"."""

from ... import _shangmi
from . import func

__all__ = ["CryptSM2", "default_ecc_table"]

default_ecc_table = {
    "n": "FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123",
    "p": "FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF00000000FFFFFFFFFFFFFFFF",
    "g": "32c4ae2c1f1981195f9904466a39c9948fe30bbff2660be1715a4589334c74c7"
    "bc3736a2f4f6779c59bdcee36b692153d0a9877cc62a474002df32e52139f0a0",
    "a": "FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF00000000FFFFFFFFFFFFFFFC",
    "b": "28E9FA9E9D9F5E344D5A9E4BCF6509A7F39789F515AB8F92DDBCBD414D940E93",
}

_N = int(default_ecc_table["n"], 16)


def _der_to_raw(der):
    # SEQUENCE { INTEGER r, INTEGER s } -> r || s (strict DER parsing is in the Rust core;
    # this only reformats, then the core checks the values).
    import binascii

    b = binascii.unhexlify(der)
    if len(b) < 8 or b[0] != 0x30:
        return None
    i = 2 if b[1] < 0x80 else 2 + (b[1] & 0x7F)
    out = []
    for _ in range(2):
        if i + 2 > len(b) or b[i] != 0x02:
            return None
        ln = b[i + 1]
        v = b[i + 2 : i + 2 + ln]
        i += 2 + ln
        v = v.lstrip(b"\x00")
        if len(v) > 32:
            return None
        out.append(v.rjust(32, b"\x00"))
    return out[0] + out[1]


def _raw_to_der_hex(raw):
    def integer(v):
        v = v.lstrip(b"\x00") or b"\x00"
        if v[0] & 0x80:
            v = b"\x00" + v
        return b"\x02" + bytes([len(v)]) + v

    body = integer(raw[:32]) + integer(raw[32:])
    return (b"\x30" + bytes([len(body)]) + body).hex()


def _e_bytes(data):
    # gmssl signs e = int(data.hex(), 16); SM2 only uses e mod n.
    e = int.from_bytes(bytes(data), "big") % _N
    return e.to_bytes(32, "big")


class CryptSM2(object):
    def __init__(self, private_key, public_key, ecc_table=default_ecc_table, mode=0, asn1=False):
        """mode: 0 for C1C2C3, 1 for C1C3C2 (gmssl's default is 0)."""
        if ecc_table is not default_ecc_table and {
            k: v.lower() for k, v in ecc_table.items()
        } != {k: v.lower() for k, v in default_ecc_table.items()}:
            raise ValueError("shangmi.compat.gmssl supports the SM2 curve only")
        assert mode in (0, 1), "mode must be one of (0, 1)"
        self.private_key = private_key
        self.ecc_table = ecc_table
        self.para_len = len(ecc_table["n"])
        self.mode = mode
        self.asn1 = asn1
        self._sk = None
        if private_key:
            self._sk = _shangmi.PrivateKey.from_bytes(
                (int(private_key, 16) % (1 << 256)).to_bytes(32, "big")
            )
        if public_key:
            pk = public_key[2:] if len(public_key) == 130 and public_key[:2] == "04" else public_key
            self.public_key = pk
            self._pk = _shangmi.PublicKey.from_hex("04" + pk if len(pk) == 128 else pk)
        elif self._sk is not None:
            self._pk = self._sk.public_key()
            self.public_key = self._pk.to_hex()[2:]
        else:
            raise ValueError("CryptSM2 needs a private or a public key")

    # -- signatures over a caller's digest --------------------------------------------
    def sign(self, data, K):
        """Signs ``data`` (bytes, the integer e) with the nonce ``K`` (hex); returns r||s as
        128 hex digits (DER hex with ``asn1=True``), or None when K gives no signature."""
        if self._sk is None:
            raise ValueError("no private key")
        k = int(K, 16) % _N
        if k == 0:
            return None
        try:
            raw = self._sk.sign_digest(_e_bytes(data), k.to_bytes(32, "big"))
        except _shangmi.ShangmiError:
            return None
        return _raw_to_der_hex(raw) if self.asn1 else raw.hex()

    def verify(self, Sign, data):
        try:
            if self.asn1:
                raw = _der_to_raw(Sign)
                if raw is None:
                    return False
            else:
                raw = bytes.fromhex(Sign[: 2 * self.para_len])
            self._pk.verify_digest(raw, _e_bytes(data))
            return True
        except (ValueError, _shangmi.ShangmiError):
            return False

    def sign_with_sm3(self, data, random_hex_str=None):
        e = self._pk.digest(bytes(data))
        if random_hex_str is None:
            random_hex_str = func.random_hex(self.para_len)
        return self.sign(e, random_hex_str)

    def verify_with_sm3(self, sign, data):
        return self.verify(sign, self._pk.digest(bytes(data)))

    # -- encryption ---------------------------------------------------------------------
    def encrypt(self, data):
        return self._pk.encrypt(bytes(data), "C1C3C2_RAW" if self.mode else "C1C2C3_RAW")

    def decrypt(self, data):
        """Returns the plaintext, or None when the ciphertext does not decrypt (gmssl does
        not check C3 and returns garbage; this layer checks it)."""
        if self._sk is None:
            raise ValueError("no private key")
        try:
            return self._sk.decrypt(bytes(data), "C1C3C2_RAW" if self.mode else "C1C2C3_RAW")
        except _shangmi.ShangmiError:
            return None
