//! The four SM2 cipher suites of TLCP.

/// A TLCP cipher suite (GB/T 38636-2020 Table 2; SM9 and RSA suites are out of scope).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CipherSuite {
    /// ECC_SM4_GCM_SM3 (0xE053): SM2-encrypted premaster, SM4-GCM records.
    EccSm4GcmSm3,
    /// ECC_SM4_CBC_SM3 (0xE013): SM2-encrypted premaster, SM4-CBC + HMAC-SM3 records.
    EccSm4CbcSm3,
    /// ECDHE_SM4_GCM_SM3 (0xE051): SM2 key exchange (needs client certificates), SM4-GCM.
    EcdheSm4GcmSm3,
    /// ECDHE_SM4_CBC_SM3 (0xE011): SM2 key exchange (needs client certificates), SM4-CBC.
    EcdheSm4CbcSm3,
}

impl CipherSuite {
    /// Every suite, in the default order of preference (GCM first, ECC before ECDHE).
    pub const ALL: [CipherSuite; 4] = [
        CipherSuite::EccSm4GcmSm3,
        CipherSuite::EcdheSm4GcmSm3,
        CipherSuite::EccSm4CbcSm3,
        CipherSuite::EcdheSm4CbcSm3,
    ];

    /// The two-byte identifier.
    pub fn id(self) -> u16 {
        match self {
            CipherSuite::EccSm4GcmSm3 => 0xE053,
            CipherSuite::EccSm4CbcSm3 => 0xE013,
            CipherSuite::EcdheSm4GcmSm3 => 0xE051,
            CipherSuite::EcdheSm4CbcSm3 => 0xE011,
        }
    }

    /// From the two-byte identifier.
    pub fn from_id(id: u16) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.id() == id)
    }

    /// Whether the key exchange is ECDHE (SM2 key exchange) rather than ECC.
    pub fn is_ecdhe(self) -> bool {
        matches!(
            self,
            CipherSuite::EcdheSm4GcmSm3 | CipherSuite::EcdheSm4CbcSm3
        )
    }

    /// Whether records are SM4-GCM (else SM4-CBC with HMAC-SM3).
    pub fn is_gcm(self) -> bool {
        matches!(
            self,
            CipherSuite::EccSm4GcmSm3 | CipherSuite::EcdheSm4GcmSm3
        )
    }

    /// The GB/T 38636 name, e.g. `ECC_SM4_GCM_SM3`.
    pub fn name(self) -> &'static str {
        match self {
            CipherSuite::EccSm4GcmSm3 => "ECC_SM4_GCM_SM3",
            CipherSuite::EccSm4CbcSm3 => "ECC_SM4_CBC_SM3",
            CipherSuite::EcdheSm4GcmSm3 => "ECDHE_SM4_GCM_SM3",
            CipherSuite::EcdheSm4CbcSm3 => "ECDHE_SM4_CBC_SM3",
        }
    }

    /// The OpenSSL-style name Tongsuo uses, e.g. `ECC-SM2-SM4-GCM-SM3`.
    pub fn openssl_name(self) -> &'static str {
        match self {
            CipherSuite::EccSm4GcmSm3 => "ECC-SM2-SM4-GCM-SM3",
            CipherSuite::EccSm4CbcSm3 => "ECC-SM2-SM4-CBC-SM3",
            CipherSuite::EcdheSm4GcmSm3 => "ECDHE-SM2-SM4-GCM-SM3",
            CipherSuite::EcdheSm4CbcSm3 => "ECDHE-SM2-SM4-CBC-SM3",
        }
    }

    /// (MAC key, encryption key, IV) lengths in the key block.
    pub(crate) fn key_block_shape(self) -> (usize, usize, usize) {
        if self.is_gcm() {
            (0, 16, 4)
        } else {
            (32, 16, 16)
        }
    }
}

impl core::fmt::Display for CipherSuite {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// Reads a suite's name: the GB/T 38636 one (`ECC_SM4_GCM_SM3`) or the OpenSSL-style one
/// (`ECC-SM2-SM4-GCM-SM3`), in any case.
///
/// ```
/// use shangmi_tlcp::CipherSuite;
/// assert_eq!("ecc_sm4_cbc_sm3".parse(), Ok(CipherSuite::EccSm4CbcSm3));
/// assert_eq!("ECDHE-SM2-SM4-GCM-SM3".parse(), Ok(CipherSuite::EcdheSm4GcmSm3));
/// assert!("RSA".parse::<CipherSuite>().is_err());
/// for s in CipherSuite::ALL {
///     assert_eq!(s.name().parse(), Ok(s));
///     assert_eq!(s.openssl_name().parse(), Ok(s));
/// }
/// ```
impl core::str::FromStr for CipherSuite {
    type Err = UnknownSuite;

    fn from_str(name: &str) -> Result<Self, UnknownSuite> {
        Self::ALL
            .into_iter()
            .find(|s| {
                s.name().eq_ignore_ascii_case(name) || s.openssl_name().eq_ignore_ascii_case(name)
            })
            .ok_or_else(|| UnknownSuite(name.to_owned()))
    }
}

/// A name [`CipherSuite`]'s `FromStr` does not know (the name given).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownSuite(pub String);

impl core::fmt::Display for UnknownSuite {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "unknown TLCP suite '{}' (", self.0)?;
        for (i, s) in CipherSuite::ALL.into_iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            write!(f, "{sep}{}", s.name())?;
        }
        f.write_str(")")
    }
}

impl std::error::Error for UnknownSuite {}

/// The name of a TLCP connection's suite (empty before one is chosen), as the one-port
/// acceptor and the HTTPS connector report it.
#[cfg(any(feature = "one-port", feature = "hyper-client"))]
pub(crate) fn tlcp_suite_name(suite: Option<CipherSuite>) -> String {
    suite.map_or_else(String::new, |s| s.name().to_owned())
}

/// What the one-port acceptor and the HTTPS connector report of a rustls connection: its
/// version's name, its suite's name (empty before one is chosen) and whether it resumed a
/// session.
#[cfg(any(feature = "one-port", feature = "hyper-client"))]
pub(crate) fn tls_summary(conn: &rustls::CommonState) -> (&'static str, String, bool) {
    let version = match conn.protocol_version() {
        Some(rustls::ProtocolVersion::TLSv1_2) => "TLS 1.2",
        _ => "TLS 1.3",
    };
    let suite = conn
        .negotiated_cipher_suite()
        .map_or_else(String::new, |s| tls_suite_name(s.suite()));
    let resumed = conn.handshake_kind() == Some(rustls::HandshakeKind::Resumed);
    (version, suite, resumed)
}

/// A rustls suite's name, with RFC 8998's that rustls 0.23 does not know.
#[cfg(any(feature = "one-port", feature = "hyper-client"))]
pub(crate) fn tls_suite_name(suite: rustls::CipherSuite) -> String {
    if suite == shangmi_rustls::suites::TLS_SM4_GCM_SM3_ID {
        "TLS_SM4_GCM_SM3".into()
    } else if suite == shangmi_rustls::suites::TLS_SM4_CCM_SM3_ID {
        "TLS_SM4_CCM_SM3".into()
    } else {
        suite
            .as_str()
            .map_or_else(|| format!("{suite:?}"), str::to_owned)
    }
}
