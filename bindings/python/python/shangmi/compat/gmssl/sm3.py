"""``gmssl.sm3``: ``sm3_hash(list_or_bytes) -> hex str`` and ``sm3_kdf(z, klen)``."""

from ... import _shangmi
from . import _args

__all__ = ["sm3_hash", "sm3_kdf"]


def sm3_hash(msg):
    """SM3 of ``msg`` (a list of byte values, as gmssl takes it, or bytes) as 64 hex digits."""
    return _shangmi.sm3(_args.byte_values(msg, "msg")).hexdigest()


def sm3_kdf(z, klen):
    """GB/T 32918.4 KDF, gmssl's signature: ``z`` is hex text as bytes (``b"a1b2..."``; str is
    also taken), ``klen`` a byte count (gmssl's ``int(klen)``: floats too); returns hex."""
    klen = int(klen)
    if klen < 0:
        raise ValueError("klen must not be negative")
    if isinstance(z, (bytes, bytearray)):
        try:
            z = bytes(z).decode("ascii")
        except UnicodeDecodeError:
            raise ValueError("z must be hex text") from None
    elif not isinstance(z, str):
        raise TypeError("z must be hex text as bytes, not %s" % type(z).__name__)
    return _shangmi.sm3_kdf(bytes.fromhex(z), klen).hex()
