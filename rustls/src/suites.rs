//! The two RFC 8998 cipher suites. rustls 0.23 has no names for them, so they travel as
//! `CipherSuite::Unknown` with their IANA codepoints.

use rustls::crypto::CipherSuiteCommon;
use rustls::{CipherSuite, SupportedCipherSuite, Tls13CipherSuite};

/// TLS_SM4_GCM_SM3 (0x00C6).
pub const TLS_SM4_GCM_SM3_ID: CipherSuite = CipherSuite::Unknown(0x00c6);
/// TLS_SM4_CCM_SM3 (0x00C7).
pub const TLS_SM4_CCM_SM3_ID: CipherSuite = CipherSuite::Unknown(0x00c7);

/// Records sealed under one key before rustls must send a KeyUpdate. RFC 8446 §5.5 gives
/// 2^24.5 full-size records for AES-GCM and RFC 9147 §4.5.3 gives 2^23.5 for AES-CCM; the
/// bounds come from the 128-bit block size, which SM4 shares, so both SM suites take 2^23.
const CONFIDENTIALITY_LIMIT: u64 = 1 << 23;

/// An SM suite: SM3 transcript hash and HKDF-SM3 around the record AEAD `aead`.
const fn sm_suite(
    suite: CipherSuite,
    aead: &'static dyn rustls::crypto::cipher::Tls13AeadAlgorithm,
) -> Tls13CipherSuite {
    Tls13CipherSuite {
        common: CipherSuiteCommon {
            suite,
            hash_provider: &crate::hash::SM3,
            confidentiality_limit: CONFIDENTIALITY_LIMIT,
        },
        hkdf_provider: &crate::hash::HKDF_SM3,
        aead_alg: aead,
        quic: None,
    }
}

/// The suite struct of TLS_SM4_GCM_SM3.
pub static TLS13_SM4_GCM_SM3_SUITE: Tls13CipherSuite =
    sm_suite(TLS_SM4_GCM_SM3_ID, &crate::aead::SM4_GCM);
/// The suite struct of TLS_SM4_CCM_SM3.
pub static TLS13_SM4_CCM_SM3_SUITE: Tls13CipherSuite =
    sm_suite(TLS_SM4_CCM_SM3_ID, &crate::aead::SM4_CCM);

/// TLS_SM4_GCM_SM3, for `CryptoProvider::cipher_suites`.
pub static TLS13_SM4_GCM_SM3: SupportedCipherSuite =
    SupportedCipherSuite::Tls13(&TLS13_SM4_GCM_SM3_SUITE);
/// TLS_SM4_CCM_SM3, for `CryptoProvider::cipher_suites`.
pub static TLS13_SM4_CCM_SM3: SupportedCipherSuite =
    SupportedCipherSuite::Tls13(&TLS13_SM4_CCM_SM3_SUITE);

/// Both suites, GCM first (it is the faster of the two on every engine).
pub static ALL: &[SupportedCipherSuite] = &[TLS13_SM4_GCM_SM3, TLS13_SM4_CCM_SM3];
