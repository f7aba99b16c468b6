"""Argument checks shared by the gmssl layer: what gmssl takes, refused with TypeError or
ValueError before anything reaches the native module."""

__all__ = ["byte_values", "hex_text"]


def byte_values(data, what="data"):
    """bytes from bytes, bytearray, memoryview or a list/tuple of ints 0..255 (gmssl's
    lists); anything else (str, int, float, None, dict) is a TypeError."""
    if isinstance(data, bytes):
        return data
    if isinstance(data, (bytearray, memoryview)):
        return bytes(data)
    if isinstance(data, (list, tuple)):
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in data):
            raise TypeError("%s: a list of byte values must hold ints" % what)
        return bytes(data)  # ValueError for values outside 0..255
    raise TypeError(
        "%s must be bytes, bytearray, memoryview or a list of byte values, not %s"
        % (what, type(data).__name__)
    )


def hex_text(value, what, max_digits=None):
    """A hex string (gmssl's keys and nonces) as an int; TypeError for non-str, ValueError
    for non-hex text or more than ``max_digits`` digits."""
    if not isinstance(value, str):
        raise TypeError("%s must be a hex string, not %s" % (what, type(value).__name__))
    if max_digits is not None and len(value) > max_digits:
        raise ValueError("%s has %d hex digits, more than %d" % (what, len(value), max_digits))
    try:
        return int(value, 16)
    except ValueError:
        raise ValueError("%s is not a hex string" % what) from None
