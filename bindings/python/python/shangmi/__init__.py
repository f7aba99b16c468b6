"""SM2, SM3 and SM4 from the shangmi Rust crates (constant-time, hardware-accelerated).

    import shangmi
    shangmi.sm3(b"abc").hexdigest()
    key = shangmi.PrivateKey.generate()
    sig = key.sign(b"message")                  # DER, ID "1234567812345678"
    key.public_key().verify(sig, b"message")    # raises InvalidSignature
    ct = key.public_key().encrypt(b"secret")    # C1C3C2 with 04
    shangmi.SM4GCM(k16).encrypt(nonce12, data, aad)
    shangmi.sm4_stream_encrypt(k16, data)       # what `shangmi sm4 encrypt --mode gcm` writes

Also: certificates, requests, CRLs, CMS and PKCS#12 (``Certificate``, ``verify_chain``,
``cms_sign`` ...), SM9 (``SM9SignMasterKey`` ...), ZUC (``zuc_eea3``, ``zuc_eia3``, ``ZUC``),
and TLCP in ``shangmi.tlcp`` (``connect``; ``shangmi.tlcp.requests.TLCPAdapter``).

The drop-in layer for code written against PyPI's ``gmssl`` is
``from shangmi.compat.gmssl import sm2, sm3, sm4, func``.
"""

from ._shangmi import (
    Certificate,
    CertificateError,
    CertificateRequest,
    Confirmation,
    DEFAULT_ID,
    InvalidKey,
    InvalidSignature,
    InvalidTag,
    KeyExchange,
    PrivateKey,
    PublicKey,
    SM4CBC,
    SM4CCM,
    SM4CMAC,
    SM4CTR,
    SM4ECB,
    SM4GCM,
    SM4XTS,
    SM9EncryptMasterKey,
    SM9EncryptMasterPublicKey,
    SM9EncryptPrivateKey,
    SM9SignMasterKey,
    SM9SignMasterPublicKey,
    SM9SigningKey,
    ShangmiError,
    ZUC,
    cert_issue,
    cert_issue_from_request,
    cms_decrypt,
    cms_encrypt,
    cms_sign,
    cms_verify,
    crl_issue,
    hkdf_sm3,
    hmac_sm3,
    pkcs12_export,
    pkcs12_import,
    sm2_convert,
    sm3,
    sm3_kdf,
    sm4_stream_decrypt,
    sm4_stream_encrypt,
    verify_chain,
    zuc256_mac,
    zuc_eea3,
    zuc_eia3,
)


def cert_self_signed(key, subject, profile="ca", days=3650, sans=None, path_len=None):
    """A self-signed certificate for ``key`` (a root CA with the default profile "ca"):
    ``cert_issue(None, key, None, subject, profile, days, sans, path_len)``."""
    return cert_issue(None, key, None, subject, profile, days, sans, path_len)


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
    "Certificate",
    "CertificateError",
    "CertificateRequest",
    "Confirmation",
    "DEFAULT_ID",
    "InvalidKey",
    "InvalidSignature",
    "InvalidTag",
    "KeyExchange",
    "LAYOUTS",
    "PrivateKey",
    "PublicKey",
    "SM4CBC",
    "SM4CCM",
    "SM4CMAC",
    "SM4CTR",
    "SM4ECB",
    "SM4GCM",
    "SM4XTS",
    "SM9EncryptMasterKey",
    "SM9EncryptMasterPublicKey",
    "SM9EncryptPrivateKey",
    "SM9SignMasterKey",
    "SM9SignMasterPublicKey",
    "SM9SigningKey",
    "ShangmiError",
    "ZUC",
    "cert_issue",
    "cert_issue_from_request",
    "cert_self_signed",
    "cms_decrypt",
    "cms_encrypt",
    "cms_sign",
    "cms_verify",
    "crl_issue",
    "hkdf_sm3",
    "hmac_sm3",
    "pkcs12_export",
    "pkcs12_import",
    "sm2_convert",
    "sm3",
    "sm3_kdf",
    "sm4_stream_decrypt",
    "sm4_stream_encrypt",
    "verify_chain",
    "zuc256_mac",
    "zuc_eea3",
    "zuc_eia3",
]
__version__ = "0.1.0"
