"""``gmssl.sm3``: ``sm3_hash(list_or_bytes) -> hex str`` and ``sm3_kdf(z, klen)``."""

from ... import _shangmi

__all__ = ["sm3_hash", "sm3_kdf"]


def sm3_hash(msg):
    """SM3 of ``msg`` (a list of byte values, as gmssl takes it, or bytes) as 64 hex digits."""
    return _shangmi.sm3(bytes(msg)).hexdigest()


def sm3_kdf(z, klen):
    """GB/T 32918.4 KDF, gmssl's signature: ``z`` is hex text as bytes (``b"a1b2..."``),
    ``klen`` a byte count; returns hex."""
    if isinstance(z, (bytes, bytearray)):
        z = z.decode("utf8")
    return _shangmi.sm3_kdf(bytes.fromhex(z), int(klen)).hex()
