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


def xor(a, b):
    return [x ^ y for x, y in zip(a, b)]


def rotl(x, n):
    return ((x << n) & 0xFFFFFFFF) | ((x >> (32 - n)) & 0xFFFFFFFF)


def get_uint32_be(key_data):
    return (key_data[0] << 24) | (key_data[1] << 16) | (key_data[2] << 8) | key_data[3]


def put_uint32_be(n):
    return [(n >> 24) & 0xFF, (n >> 16) & 0xFF, (n >> 8) & 0xFF, n & 0xFF]


def pkcs7_padding(data, block=16):
    n = 16 - len(data) % block
    return list(data) + [n] * n


def zero_padding(data, block=16):
    return list(data) + [0] * (16 - len(data) % block)


def pkcs7_unpadding(data):
    return data[: -data[-1]]


def zero_unpadding(data, i=1):
    # gmssl's behaviour: one trailing zero byte is removed.
    return data[:-i] if data[-i] == 0 else data


def list_to_bytes(data):
    return bytes(data)


def bytes_to_list(data):
    return list(data)


def random_hex(x):
    """``x`` random hex digits from the operating system's generator (gmssl uses
    ``random.choice``, which is not a cryptographic generator)."""
    return "".join(secrets.choice("0123456789abcdef") for _ in range(x))
