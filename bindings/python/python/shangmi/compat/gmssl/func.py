"""The helpers of ``gmssl.func`` (same names and results)."""

import secrets

__all__ = [
    "xor",
    "rotl",
    "get_uint32_be",
    "put_uint32_be",
    "pkcs7_padding",
    "zero_padding",
    "pkcs7_unpadding",
    "zero_unpadding",
    "list_to_bytes",
    "bytes_to_list",
    "random_hex",
]


# The same expressions as gmssl's, so that every input (lists, bytes, or wrong types) gives
# the same result or the same exception; zero_unpadding alone differs (see its note).


def xor(a, b):
    return list(map(lambda x, y: x ^ y, a, b))


def rotl(x, n):
    return ((x << n) & 0xFFFFFFFF) | ((x >> (32 - n)) & 0xFFFFFFFF)


def get_uint32_be(key_data):
    return (key_data[0] << 24) | (key_data[1] << 16) | (key_data[2] << 8) | key_data[3]


def put_uint32_be(n):
    return [((n >> 24) & 0xFF), ((n >> 16) & 0xFF), ((n >> 8) & 0xFF), (n & 0xFF)]


def pkcs7_padding(data, block=16):
    return data + [(16 - len(data) % block) for _ in range(16 - len(data) % block)]


def zero_padding(data, block=16):
    return data + [0 for _ in range(16 - len(data) % block)]


def pkcs7_unpadding(data):
    return data[: -data[-1]]


def zero_unpadding(data, i=1):
    """Removes one trailing zero byte. gmssl returns the int ``i + 1`` when the last byte is
    not zero (its SM4 then fails on it); this returns ``data`` unchanged."""
    return data[:-i] if data[-i] == 0 else data


def list_to_bytes(data):
    return b"".join([bytes((i,)) for i in data])


def bytes_to_list(data):
    return [i for i in data]


def random_hex(x):
    """``x`` random hex digits from the operating system's generator (gmssl uses
    ``random.choice``, which is not a cryptographic generator)."""
    return "".join(secrets.choice("0123456789abcdef") for _ in range(x))
