//! Errors and alerts.

use core::fmt;

/// A TLS/TLCP alert description (RFC 5246 §7.2 plus the TLCP additions 200–205 of
/// GB/T 38636-2020).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AlertDescription {
    /// close_notify (0).
    CloseNotify,
    /// unexpected_message (10).
    UnexpectedMessage,
    /// bad_record_mac (20).
    BadRecordMac,
    /// record_overflow (22).
    RecordOverflow,
    /// decompression_failure (30).
    DecompressionFailure,
    /// handshake_failure (40).
    HandshakeFailure,
    /// bad_certificate (42).
    BadCertificate,
    /// unsupported_certificate (43).
    UnsupportedCertificate,
    /// certificate_revoked (44).
    CertificateRevoked,
    /// certificate_expired (45).
    CertificateExpired,
    /// certificate_unknown (46).
    CertificateUnknown,
    /// illegal_parameter (47).
    IllegalParameter,
    /// unknown_ca (48).
    UnknownCa,
    /// access_denied (49).
    AccessDenied,
    /// decode_error (50).
    DecodeError,
    /// decrypt_error (51).
    DecryptError,
    /// protocol_version (70).
    ProtocolVersion,
    /// insufficient_security (71).
    InsufficientSecurity,
    /// internal_error (80).
    InternalError,
    /// user_canceled (90).
    UserCanceled,
    /// no_renegotiation (100).
    NoRenegotiation,
    /// unsupported_extension (110).
    UnsupportedExtension,
    /// unrecognized_name (112).
    UnrecognizedName,
    /// no_application_protocol (120).
    NoApplicationProtocol,
    /// TLCP unsupported_site2site (200).
    UnsupportedSite2Site,
    /// TLCP no_area (201).
    NoArea,
    /// TLCP unsupported_areatype (202).
    UnsupportedAreaType,
    /// TLCP bad_ibcparam (203).
    BadIbcParam,
    /// TLCP unsupported_ibcparam (204).
    UnsupportedIbcParam,
    /// TLCP identity_need (205).
    IdentityNeed,
    /// Any other value.
    Unknown(u8),
}

impl AlertDescription {
    /// The wire value.
    pub fn to_u8(self) -> u8 {
        use AlertDescription::*;
        match self {
            CloseNotify => 0,
            UnexpectedMessage => 10,
            BadRecordMac => 20,
            RecordOverflow => 22,
            DecompressionFailure => 30,
            HandshakeFailure => 40,
            BadCertificate => 42,
            UnsupportedCertificate => 43,
            CertificateRevoked => 44,
            CertificateExpired => 45,
            CertificateUnknown => 46,
            IllegalParameter => 47,
            UnknownCa => 48,
            AccessDenied => 49,
            DecodeError => 50,
            DecryptError => 51,
            ProtocolVersion => 70,
            InsufficientSecurity => 71,
            InternalError => 80,
            UserCanceled => 90,
            NoRenegotiation => 100,
            UnsupportedExtension => 110,
            UnrecognizedName => 112,
            NoApplicationProtocol => 120,
            UnsupportedSite2Site => 200,
            NoArea => 201,
            UnsupportedAreaType => 202,
            BadIbcParam => 203,
            UnsupportedIbcParam => 204,
            IdentityNeed => 205,
            Unknown(v) => v,
        }
    }

    /// From the wire value.
    pub fn from_u8(v: u8) -> Self {
        use AlertDescription::*;
        match v {
            0 => CloseNotify,
            10 => UnexpectedMessage,
            20 => BadRecordMac,
            22 => RecordOverflow,
            30 => DecompressionFailure,
            40 => HandshakeFailure,
            42 => BadCertificate,
            43 => UnsupportedCertificate,
            44 => CertificateRevoked,
            45 => CertificateExpired,
            46 => CertificateUnknown,
            47 => IllegalParameter,
            48 => UnknownCa,
            49 => AccessDenied,
            50 => DecodeError,
            51 => DecryptError,
            70 => ProtocolVersion,
            71 => InsufficientSecurity,
            80 => InternalError,
            90 => UserCanceled,
            100 => NoRenegotiation,
            110 => UnsupportedExtension,
            112 => UnrecognizedName,
            120 => NoApplicationProtocol,
            200 => UnsupportedSite2Site,
            201 => NoArea,
            202 => UnsupportedAreaType,
            203 => BadIbcParam,
            204 => UnsupportedIbcParam,
            205 => IdentityNeed,
            v => Unknown(v),
        }
    }
}

/// Why a certificate was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CertificateError {
    /// The peer sent fewer than the two leaves (sign, encryption) TLCP needs.
    MissingCertificates,
    /// A certificate could not be parsed.
    BadEncoding,
    /// The chain does not lead to a configured root.
    UnknownIssuer,
    /// A signature in the chain is wrong.
    BadSignature,
    /// Outside its validity period.
    Expired,
    /// Not yet valid.
    NotValidYet,
    /// The sign certificate does not name the server.
    NotValidForName,
    /// The key usages do not fit (sign certificate without digitalSignature, encryption
    /// certificate without keyEncipherment/keyAgreement/dataEncipherment).
    BadKeyUsage,
    /// The sign and encryption certificates come from different issuers.
    IssuerMismatch,
    /// The key is not an SM2 key.
    UnsupportedKey,
    /// A certificate of the chain is listed in its issuer's CRL (certificate_revoked).
    Revoked,
    /// CRLs are configured but none is from the issuer of a certificate of the chain
    /// (certificate_unknown).
    RevocationStatusUnknown,
    /// The issuer's CRL is past its nextUpdate (certificate_unknown).
    CrlExpired,
    /// The issuer's CRL is not signed by the issuer's key, or the issuer may not sign CRLs
    /// (certificate_unknown).
    CrlBadSignature,
    /// Anything else webpki reported (its message).
    Other(String),
}

/// Errors of a connection or configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The peer sent a fatal alert (or a warning other than close_notify).
    AlertReceived(AlertDescription),
    /// We refused the peer's input and sent it this alert; the string says what was wrong.
    PeerMisbehaved(AlertDescription, &'static str),
    /// The peer's certificates were refused (the alert sent is in the string's
    /// [`Error::alert`]).
    InvalidCertificate(CertificateError),
    /// A record failed its MAC, padding or AEAD tag check (bad_record_mac sent).
    DecryptError,
    /// The peer closed the TCP connection without close_notify (truncation).
    UnexpectedEof,
    /// No suite in common, or a required capability missing (handshake_failure sent).
    HandshakeFailure(&'static str),
    /// The configuration is unusable.
    Config(&'static str),
    /// A cryptographic operation failed locally (random generator, key operation).
    Crypto(&'static str),
    /// The connection already failed or was closed; no more data.
    Closed,
    /// A direction's record sequence number reached its limit (2^64 − 1): the connection
    /// ends rather than wrap it (which would reuse GCM nonces and MAC inputs). No alert
    /// can follow on that direction.
    SequenceExhausted,
}

impl Error {
    /// The alert this error sends to the peer, if any.
    pub fn alert(&self) -> Option<AlertDescription> {
        match self {
            Error::AlertReceived(_)
            | Error::UnexpectedEof
            | Error::Closed
            | Error::Config(_)
            | Error::SequenceExhausted => None,
            Error::PeerMisbehaved(a, _) => Some(*a),
            Error::InvalidCertificate(c) => Some(match c {
                CertificateError::Expired | CertificateError::NotValidYet => {
                    AlertDescription::CertificateExpired
                }
                CertificateError::UnknownIssuer => AlertDescription::UnknownCa,
                CertificateError::Revoked => AlertDescription::CertificateRevoked,
                CertificateError::RevocationStatusUnknown
                | CertificateError::CrlExpired
                | CertificateError::CrlBadSignature => AlertDescription::CertificateUnknown,
                CertificateError::BadKeyUsage | CertificateError::UnsupportedKey => {
                    AlertDescription::UnsupportedCertificate
                }
                CertificateError::MissingCertificates
                | CertificateError::BadEncoding
                | CertificateError::BadSignature
                | CertificateError::NotValidForName
                | CertificateError::IssuerMismatch
                | CertificateError::Other(_) => AlertDescription::BadCertificate,
            }),
            Error::DecryptError => Some(AlertDescription::BadRecordMac),
            Error::HandshakeFailure(_) => Some(AlertDescription::HandshakeFailure),
            Error::Crypto(_) => Some(AlertDescription::InternalError),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::AlertReceived(a) => write!(f, "received alert {a:?}"),
            Error::PeerMisbehaved(a, why) => write!(f, "peer misbehaved ({why}); sent {a:?}"),
            Error::InvalidCertificate(c) => write!(f, "invalid peer certificate: {c:?}"),
            Error::DecryptError => write!(f, "record failed its integrity check"),
            Error::UnexpectedEof => write!(f, "peer closed the connection without close_notify"),
            Error::HandshakeFailure(why) => write!(f, "handshake failure: {why}"),
            Error::Config(why) => write!(f, "configuration error: {why}"),
            Error::Crypto(why) => write!(f, "cryptographic failure: {why}"),
            Error::Closed => write!(f, "connection closed"),
            Error::SequenceExhausted => write!(f, "record sequence numbers exhausted"),
        }
    }
}

impl std::error::Error for Error {}

impl From<rustls::crypto::GetRandomFailed> for Error {
    fn from(_: rustls::crypto::GetRandomFailed) -> Self {
        Error::Crypto("random generator failed")
    }
}

impl From<Error> for std::io::Error {
    fn from(e: Error) -> Self {
        let kind = match e {
            Error::UnexpectedEof => std::io::ErrorKind::UnexpectedEof,
            _ => std::io::ErrorKind::InvalidData,
        };
        std::io::Error::new(kind, e)
    }
}

/// Shorthand for a refusal with its alert.
pub(crate) fn bad(alert: AlertDescription, why: &'static str) -> Error {
    Error::PeerMisbehaved(alert, why)
}

/// A decode error.
pub(crate) fn decode(why: &'static str) -> Error {
    Error::PeerMisbehaved(AlertDescription::DecodeError, why)
}
