"""SM2, SM3 and SM4 from the shangmi Rust crates (constant-time, hardware-accelerated).

    import shangmi
    shangmi.sm3(b"abc").hexdigest()
    key = shangmi.PrivateKey.generate()
    sig = key.sign(b"message")                  # DER, ID "1234567812345678"
    key.public_key().verify(sig, b"message")    # raises InvalidSignature
    ct = key.public_key().encrypt(b"secret")    # C1C3C2 with 04
    shangmi.SM4GCM(k16).encrypt(nonce12, data, aad)

The drop-in layer for code written against PyPI's ``gmssl`` is
``from shangmi.compat.gmssl import sm2, sm3, sm4, func``.
"""

from ._shangmi import (
    DEFAULT_ID,
    SM4CBC,
    SM4CCM,
    SM4CMAC,
    SM4CTR,
    SM4ECB,
    SM4GCM,
    SM4XTS,
    Confirmation,
    InvalidKey,
    InvalidSignature,
    InvalidTag,
    KeyExchange,
    PrivateKey,
    PublicKey,
    ShangmiError,
    hkdf_sm3,
    hmac_sm3,
    sm2_convert,
    sm3,
    sm3_kdf,
)

#: SM2 ciphertext layouts accepted by ``PublicKey.encrypt`` / ``PrivateKey.decrypt``.
LAYOUTS = (
    "C1C3C2",
    "C1C2C3",
    "C1C3C2_RAW",
    "C1C2C3_RAW",
    "C1C3C2_COMPRESSED",
    "C1C2C3_COMPRESSED",
    "ASN1",
)

__all__ = [
    "DEFAULT_ID",
    "LAYOUTS",
    "SM4CBC",
    "SM4CCM",
    "SM4CMAC",
    "SM4CTR",
    "SM4ECB",
    "SM4GCM",
    "SM4XTS",
    "Confirmation",
    "InvalidKey",
    "InvalidSignature",
    "InvalidTag",
    "KeyExchange",
    "PrivateKey",
    "PublicKey",
    "ShangmiError",
    "hkdf_sm3",
    "hmac_sm3",
    "sm2_convert",
    "sm3",
    "sm3_kdf",
]
__version__ = "0.1.0"
