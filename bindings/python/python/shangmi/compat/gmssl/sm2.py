"""``gmssl.sm2``: ``CryptSM2(private_key, public_key, ecc_table, mode=0, asn1=False)`` with
hex keys. mode 0 writes C1C2C3 and mode 1 C1C3C2, C1 without the 04 prefix, as gmssl does.
``sign(data, K)`` signs the integer ``data`` with the caller's hex nonce ``K``, so outputs
equal gmssl's byte for byte; ``sign_with_sm3``/``verify_with_sm3`` hash with the default
identifier "1234567812345678"; ``_kg`` and ``_sm3_z`` as gmssl's."""

from ... import _shangmi
from . import _args

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


def _e_bytes(data):
    # gmssl signs e = int(data.hex(), 16); SM2 only uses e mod n.
    data = _data(data)
    if not data:
        raise ValueError("the digest to sign or verify is empty")
    e = int.from_bytes(data, "big") % _N
    return e.to_bytes(32, "big")


def _data(data):
    # gmssl calls data.hex(): bytes, bytearray and memoryview.
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    raise TypeError("data must be bytes, bytearray or memoryview, not %s" % type(data).__name__)


def _public_hex(public_key):
    """gmssl's public key text: 128 hex digits x||y, or 130 with the 04 prefix (exactly
    one 04 removed; gmssl's ``lstrip("04")`` also eats leading 0 and 4 digits of x)."""
    if not isinstance(public_key, str):
        raise TypeError("public_key must be a hex string, not %s" % type(public_key).__name__)
    if len(public_key) == 130 and public_key[:2] == "04":
        return public_key[2:]
    return public_key


class CryptSM2(object):
    def __init__(self, private_key, public_key, ecc_table=default_ecc_table, mode=0, asn1=False):
        """mode: 0 for C1C2C3, 1 for C1C3C2 (gmssl's default is 0)."""
        if not isinstance(ecc_table, dict):
            raise TypeError("ecc_table must be a dict like default_ecc_table")
        if ecc_table is not default_ecc_table and {
            k: str(v).lower() for k, v in ecc_table.items()
        } != {k: v.lower() for k, v in default_ecc_table.items()}:
            raise ValueError("shangmi.compat.gmssl supports the SM2 curve only")
        if mode not in (0, 1) or isinstance(mode, bool):
            raise ValueError("mode must be one of (0, 1)")
        self.private_key = private_key
        self.ecc_table = ecc_table
        self.para_len = len(ecc_table["n"])
        self.ecc_a3 = (int(ecc_table["a"], 16) + 3) % int(ecc_table["p"], 16)
        self.mode = mode
        self.asn1 = asn1
        self._sk = None
        if private_key is not None and private_key != "":
            # At most 64 hex digits: a longer key is refused, not reduced mod 2^256.
            d = _args.hex_text(private_key, "private_key", 64)
            self._sk = _shangmi.PrivateKey.from_bytes(d.to_bytes(32, "big"))
        if public_key is not None and public_key != "":
            pk = _public_hex(public_key)
            if len(pk) != 128:
                raise ValueError("public_key must be 128 hex digits (x||y), or 130 with 04")
            self.public_key = pk
            self._pk = _shangmi.PublicKey.from_hex("04" + pk)
        elif self._sk is not None:
            self._pk = self._sk.public_key()
            self.public_key = self._pk.to_hex()[2:]
        else:
            raise ValueError("CryptSM2 needs a private or a public key")

    # -- gmssl's helpers that user code calls ------------------------------------------
    def _kg(self, k, Point):
        """k·Point for an int ``k`` and a point as 128 hex digits x||y (``ecc_table['g']``
        for the base point): 128 hex digits, or None for the point at infinity. The usual
        idiom ``_kg(int(private_key, 16), ecc_table['g'])`` derives a public key."""
        if not isinstance(k, int) or isinstance(k, bool):
            raise TypeError("k must be an int, not %s" % type(k).__name__)
        pt = _public_hex(Point)
        if len(pt) != 128:
            raise ValueError("Point must be 128 hex digits x||y")
        try:
            p = bytes.fromhex("04" + pt)
        except ValueError:
            raise ValueError("Point is not hex") from None
        # gmssl's double-and-add reads the low 256 bits of k; k = 0 leaves the point as
        # it is (a quirk of its loop, kept).
        k %= 1 << 256
        if k == 0:
            _shangmi.PublicKey.from_bytes(p)  # on the curve, or ValueError
            return pt.lower()
        out = _shangmi.sm2_point_mul(k.to_bytes(32, "big"), p)
        return None if out is None else out[1:].hex()

    def _sm3_z(self, data):
        """SM3(Z_A || data) as 64 hex digits, Z_A over the ID "1234567812345678" and this
        public key (what ``sign_with_sm3`` signs)."""
        return self._pk.digest(_data(data)).hex()

    # -- signatures over a caller's digest --------------------------------------------
    def sign(self, data, K):
        """Signs ``data`` (bytes, the integer e) with the nonce ``K`` (hex); returns r||s as
        128 hex digits (DER hex with ``asn1=True``), or None when K gives no signature."""
        if self._sk is None:
            raise ValueError("no private key")
        e = _e_bytes(data)
        k = _args.hex_text(K, "K", 64) % _N
        if k == 0:
            return None
        try:
            return self._sk.sign_digest(e, k.to_bytes(32, "big"), der=self.asn1).hex()
        except _shangmi.ShangmiError:
            return None

    def verify(self, Sign, data):
        if not isinstance(Sign, str):
            raise TypeError("Sign must be a hex string, not %s" % type(Sign).__name__)
        e = _e_bytes(data)
        try:
            # DER (asn1=True) is parsed strictly by the native layer; r||s as gmssl reads it.
            sig = bytes.fromhex(Sign if self.asn1 else Sign[: 2 * self.para_len])
            if self.asn1 and sig[:1] != b"\x30":
                return False
            self._pk.verify_digest(sig, e)
            return True
        except (ValueError, _shangmi.ShangmiError):
            return False

    def sign_with_sm3(self, data, random_hex_str=None):
        """Signs SM3(Z_A || data). Without ``random_hex_str`` the nonce comes from the native
        generator (gmssl draws it digit by digit with ``random.choice``)."""
        if self._sk is None:
            raise ValueError("no private key")
        e = self._pk.digest(_data(data))
        if random_hex_str is None:
            return self._sk.sign_digest(e, der=self.asn1).hex()
        return self.sign(e, random_hex_str)

    def verify_with_sm3(self, sign, data):
        return self.verify(sign, self._pk.digest(_data(data)))

    # -- encryption ---------------------------------------------------------------------
    def encrypt(self, data):
        return self._pk.encrypt(_data(data), "C1C3C2_RAW" if self.mode else "C1C2C3_RAW")

    def decrypt(self, data):
        """Returns the plaintext, or None when the ciphertext does not decrypt (gmssl does
        not check C3 and returns garbage; this layer checks it). C1 is taken without the 04
        prefix, as ``encrypt`` writes it, or with it (as other libraries write it)."""
        if self._sk is None:
            raise ValueError("no private key")
        data = _data(data)
        raw, prefixed = ("C1C3C2_RAW", "C1C3C2") if self.mode else ("C1C2C3_RAW", "C1C2C3")
        try:
            return self._sk.decrypt(data, raw)
        except _shangmi.ShangmiError:
            pass
        if data[:1] == b"\x04":
            try:
                return self._sk.decrypt(data, prefixed)
            except _shangmi.ShangmiError:
                pass
        return None
