//! Object identifiers: GM/T 0006 algorithms, GM/T 0010 content types, RFC 5280/5652 ones.

use const_oid::ObjectIdentifier as Oid;

/// SM2 signature with SM3 (GM/T 0006 `sm2sign-with-sm3`).
pub const SM2_WITH_SM3: Oid = Oid::new_unwrap("1.2.156.10197.1.501");
/// SM2 (curve and key algorithm, GM/T 0006).
pub const SM2: Oid = Oid::new_unwrap("1.2.156.10197.1.301");
/// SM2-1 signature (GM/T 0006 `sm2-1`), written by GmSSL as a CMS signature algorithm.
pub const SM2_SIGN: Oid = Oid::new_unwrap("1.2.156.10197.1.301.1");
/// SM2-3 public-key encryption (GM/T 0006 `sm2-3`), the CMS key-transport algorithm.
pub const SM2_ENCRYPT: Oid = Oid::new_unwrap("1.2.156.10197.1.301.3");
/// 1.2.156.10197.1.301.2 (GM/T 0006 `sm2-2`, key exchange), which GmSSL 3 writes as the
/// key-encryption algorithm of its EnvelopedData recipients; read as SM2 encryption.
pub const SM2_ENCRYPT_GMSSL: Oid = Oid::new_unwrap("1.2.156.10197.1.301.2");
/// id-ecPublicKey (RFC 5480).
pub const EC_PUBLIC_KEY: Oid = Oid::new_unwrap("1.2.840.10045.2.1");
/// SM3 (GM/T 0006).
pub const SM3: Oid = Oid::new_unwrap("1.2.156.10197.1.401");
/// HMAC-SM3 as a PBKDF2 PRF under GM/T 0091-2020's OID (`hmacWithSM3`, sm3 3 1), which
/// OpenSSL 3.x (3.6.3's `obj_mac.h`) writes and reads.
pub const HMAC_SM3: Oid = Oid::new_unwrap("1.2.156.10197.1.401.3.1");
/// HMAC-SM3 as a PBKDF2 PRF as GmSSL and gmsm name it; OpenSSL 3.6 refuses it ("unsupported
/// prf").
pub const HMAC_SM3_GMSSL: Oid = Oid::new_unwrap("1.2.156.10197.1.401.2");
/// SM4 (GM/T 0006), the bare algorithm.
pub const SM4: Oid = Oid::new_unwrap("1.2.156.10197.1.104");
/// SM4-ECB (GM/T 0006).
pub const SM4_ECB: Oid = Oid::new_unwrap("1.2.156.10197.1.104.1");
/// SM4-CBC (GM/T 0006).
pub const SM4_CBC: Oid = Oid::new_unwrap("1.2.156.10197.1.104.2");

/// GM/T 0010 `data` (1.2.156.10197.6.1.4.2.1).
pub const GM_DATA: Oid = Oid::new_unwrap("1.2.156.10197.6.1.4.2.1");
/// GM/T 0010 `signedData`.
pub const GM_SIGNED_DATA: Oid = Oid::new_unwrap("1.2.156.10197.6.1.4.2.2");
/// GM/T 0010 `envelopedData`.
pub const GM_ENVELOPED_DATA: Oid = Oid::new_unwrap("1.2.156.10197.6.1.4.2.3");
/// GM/T 0010 `signedAndEnvelopedData`.
pub const GM_SIGNED_AND_ENVELOPED_DATA: Oid = Oid::new_unwrap("1.2.156.10197.6.1.4.2.4");
/// GM/T 0010 `encryptedData`.
pub const GM_ENCRYPTED_DATA: Oid = Oid::new_unwrap("1.2.156.10197.6.1.4.2.5");
/// GM/T 0010 `keyAgreementInfo`.
pub const GM_KEY_AGREEMENT_INFO: Oid = Oid::new_unwrap("1.2.156.10197.6.1.4.2.6");

/// RFC 5652 `id-data`.
pub const DATA: Oid = Oid::new_unwrap("1.2.840.113549.1.7.1");
/// RFC 5652 `id-signedData`.
pub const SIGNED_DATA: Oid = Oid::new_unwrap("1.2.840.113549.1.7.2");
/// RFC 5652 `id-envelopedData`.
pub const ENVELOPED_DATA: Oid = Oid::new_unwrap("1.2.840.113549.1.7.3");
/// RFC 5652 `id-contentType` attribute.
pub const CONTENT_TYPE: Oid = Oid::new_unwrap("1.2.840.113549.1.9.3");
/// RFC 5652 `id-messageDigest` attribute.
pub const MESSAGE_DIGEST: Oid = Oid::new_unwrap("1.2.840.113549.1.9.4");
/// RFC 5652 `id-signingTime` attribute.
pub const SIGNING_TIME: Oid = Oid::new_unwrap("1.2.840.113549.1.9.5");

/// id-kp-serverAuth (RFC 5280 §4.2.1.12).
pub const KP_SERVER_AUTH: Oid = Oid::new_unwrap("1.3.6.1.5.5.7.3.1");
/// id-kp-clientAuth.
pub const KP_CLIENT_AUTH: Oid = Oid::new_unwrap("1.3.6.1.5.5.7.3.2");
/// anyExtendedKeyUsage.
pub const ANY_EKU: Oid = Oid::new_unwrap("2.5.29.37.0");
/// basicConstraints.
pub const BASIC_CONSTRAINTS: Oid = Oid::new_unwrap("2.5.29.19");
/// keyUsage.
pub const KEY_USAGE: Oid = Oid::new_unwrap("2.5.29.15");
/// extKeyUsage.
pub const EXT_KEY_USAGE: Oid = Oid::new_unwrap("2.5.29.37");
/// subjectAltName.
pub const SUBJECT_ALT_NAME: Oid = Oid::new_unwrap("2.5.29.17");
/// nameConstraints.
pub const NAME_CONSTRAINTS: Oid = Oid::new_unwrap("2.5.29.30");
/// subjectKeyIdentifier.
pub const SUBJECT_KEY_IDENTIFIER: Oid = Oid::new_unwrap("2.5.29.14");
/// authorityKeyIdentifier.
pub const AUTHORITY_KEY_IDENTIFIER: Oid = Oid::new_unwrap("2.5.29.35");
