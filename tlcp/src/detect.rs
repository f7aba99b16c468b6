//! One port for TLCP and TLS, sans-IO: which protocol a connection speaks, read from the
//! header of its first record, and which TLS configuration a ClientHello asks for.
//!
//! A client's first record is a handshake record (content type 22) carrying its
//! ClientHello. TLCP clients put the TLCP version 01 01 in that header (GB/T 38636-2020
//! §6.3.3.2), TLS clients a 03 xx version (RFC 8446 §5.1: 03 01 for TLS 1.3, 03 00–03 03
//! before it); Tongsuo's and gotlcp's dual-mode servers decide on the same two bytes.
//! Anything else is refused at the first byte that cannot start such a record, with the
//! alert RFC 8446 §6.2 names for it.

use crate::error::AlertDescription;
use crate::record::MAX_FRAGMENT;

/// Bytes of a record header: type, version (2), length (2).
pub const HEADER_LEN: usize = 5;

/// Bytes up to the end of a TLS ClientHello's `legacy_version`: the record header, the
/// handshake header (type, length (3)) and the version (2); see [`check_tls_hello`].
pub const HELLO_VERSION_END: usize = HEADER_LEN + 6;

/// The protocol a connection's first record speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// TLCP (GB/T 38636-2020): record version 01 01.
    Tlcp,
    /// TLS (any version; the TLS server chooses): record version 03 xx.
    Tls,
}

/// Why a connection's first bytes cannot start a TLCP or TLS handshake.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// The first byte is not the handshake content type 22: plain text (an HTTP request
    /// on the TLS port), an SSL 2.0 ClientHello, another record type, or garbage.
    NotHandshake(u8),
    /// A handshake record whose version is neither TLCP's 01 01 nor TLS's 03 xx.
    UnknownVersion([u8; 2]),
    /// A handshake record of length 0 (RFC 8446 §5.1 forbids empty handshake fragments).
    EmptyRecord,
    /// A record longer than 2^14 bytes, the most a plaintext fragment may hold.
    Oversized(u16),
    /// A TLS ClientHello whose `legacy_version` is below TLS 1.2's 03 03: an SSL 3.0,
    /// TLS 1.0 or TLS 1.1 client, which no configuration here can serve (RFC 8446 §4.1.2
    /// and Appendix D: such a client gets protocol_version, not a failed negotiation).
    ObsoleteTls([u8; 2]),
}

impl Refusal {
    /// The alert this refusal sends (RFC 8446 §6.2).
    pub fn alert(&self) -> AlertDescription {
        match self {
            Refusal::NotHandshake(_) => AlertDescription::UnexpectedMessage,
            Refusal::UnknownVersion(_) => AlertDescription::ProtocolVersion,
            Refusal::EmptyRecord => AlertDescription::DecodeError,
            Refusal::Oversized(_) => AlertDescription::RecordOverflow,
            Refusal::ObsoleteTls(_) => AlertDescription::ProtocolVersion,
        }
    }

    /// The fatal alert record to send before closing: in TLCP's record version when the
    /// client spoke TLCP, else TLS 1.2's (which TLS 1.3 peers read too).
    pub fn alert_record(&self, protocol: Option<Protocol>) -> [u8; 7] {
        let [major, minor] = match protocol {
            Some(Protocol::Tlcp) => [1, 1],
            _ => [3, 3],
        };
        [21, major, minor, 0, 2, 2, self.alert().to_u8()]
    }
}

impl core::fmt::Display for Refusal {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Refusal::NotHandshake(b) => {
                write!(f, "first byte 0x{b:02x} does not start a handshake record")
            }
            Refusal::UnknownVersion([a, b]) => {
                write!(f, "record version {a:02x} {b:02x} is neither TLCP nor TLS")
            }
            Refusal::EmptyRecord => write!(f, "empty first handshake record"),
            Refusal::Oversized(n) => write!(f, "first record of {n} bytes exceeds 2^14"),
            Refusal::ObsoleteTls([a, b]) => {
                write!(
                    f,
                    "ClientHello version {a:02x} {b:02x} is older than TLS 1.2"
                )
            }
        }
    }
}

impl std::error::Error for Refusal {}

/// The protocol of a connection whose first bytes are `first`: `Ok(None)` while the five
/// header bytes are not all there and those present are consistent with a handshake
/// record; a [`Refusal`] as soon as one byte rules that out.
pub fn detect(first: &[u8]) -> Result<Option<Protocol>, Refusal> {
    let protocol = match first {
        [] => return Ok(None),
        [t, ..] if *t != 22 => return Err(Refusal::NotHandshake(*t)),
        [_] => return Ok(None),
        [_, 1] => return Ok(None),
        [_, 3, ..] => Protocol::Tls,
        [_, 1, 1, ..] => Protocol::Tlcp,
        [_, a, b, ..] => return Err(Refusal::UnknownVersion([*a, *b])),
        [_, a] => return Err(Refusal::UnknownVersion([*a, 0])),
    };
    let [_, _, _, hi, lo, ..] = *first else {
        return Ok(None);
    };
    match u16::from_be_bytes([hi, lo]) {
        0 => Err(Refusal::EmptyRecord),
        n if usize::from(n) > MAX_FRAGMENT => Err(Refusal::Oversized(n)),
        _ => Ok(Some(protocol)),
    }
}

/// For a first record [`detect`] found to be TLS: `Ok(false)` while the ClientHello's
/// `legacy_version` has not arrived, `Ok(true)` once the TLS server may take over, and
/// [`Refusal::ObsoleteTls`] for a client older than TLS 1.2 (every TLS 1.2 and 1.3 client
/// writes 03 03 there; RFC 8446 §4.1.2). A first record too short to hold the version, or
/// one that is not a ClientHello, is left to the TLS server to judge.
pub fn check_tls_hello(first: &[u8]) -> Result<bool, Refusal> {
    let Some(&[hi, lo]) = first.get(3..HEADER_LEN) else {
        return Ok(false);
    };
    if usize::from(u16::from_be_bytes([hi, lo])) < HELLO_VERSION_END - HEADER_LEN {
        return Ok(true);
    }
    match first.get(HEADER_LEN..HELLO_VERSION_END) {
        None => Ok(false),
        Some(&[1, _, _, _, major, minor]) if u16::from_be_bytes([major, minor]) < 0x0303 => {
            Err(Refusal::ObsoleteTls([major, minor]))
        }
        Some(_) => Ok(true),
    }
}

/// Whether a TLS ClientHello can be served by an RFC 8998 configuration: it offers
/// TLS_SM4_GCM_SM3 (0x00C6) or TLS_SM4_CCM_SM3 (0x00C7) and the sm2sig_sm3 signature
/// scheme (0x0708). Such a client gets the SM certificate; every other one the ordinary
/// configuration.
pub fn wants_sm(suites: &[rustls::CipherSuite], schemes: &[rustls::SignatureScheme]) -> bool {
    let sm_suite = suites.iter().any(|s| {
        *s == shangmi_rustls::suites::TLS_SM4_GCM_SM3_ID
            || *s == shangmi_rustls::suites::TLS_SM4_CCM_SM3_ID
    });
    sm_suite && schemes.contains(&shangmi_rustls::sign::SM2_SM3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_record_picks_the_protocol() {
        // A TLCP ClientHello record starts 16 01 01, a TLS one 16 03 01 (TLS 1.3 sends the
        // legacy record version 03 01, RFC 8446 §5.1).
        assert_eq!(detect(&[22, 1, 1, 0, 80]), Ok(Some(Protocol::Tlcp)));
        assert_eq!(detect(&[22, 3, 1, 0, 80, 1]), Ok(Some(Protocol::Tls)));
        assert_eq!(detect(&[22, 3, 3, 0x40, 0]), Ok(Some(Protocol::Tls)));
        assert_eq!(detect(&[22, 3, 0, 0, 1]), Ok(Some(Protocol::Tls)));
    }

    #[test]
    fn a_partial_header_waits() {
        for prefix in [&[][..], &[22], &[22, 1], &[22, 1, 1], &[22, 3, 1, 0]] {
            assert_eq!(detect(prefix), Ok(None), "{prefix:?}");
        }
    }

    #[test]
    fn garbage_is_refused_at_the_first_wrong_byte() {
        assert_eq!(detect(b"G"), Err(Refusal::NotHandshake(b'G')));
        assert_eq!(
            detect(b"GET / HTTP/1.1\r\n"),
            Err(Refusal::NotHandshake(b'G'))
        );
        // SSL 2.0 ClientHello: two-byte length with the top bit set.
        assert_eq!(
            detect(&[0x80, 0x2e, 1, 3, 1]),
            Err(Refusal::NotHandshake(0x80))
        );
        // An alert or application data record first.
        assert_eq!(detect(&[21, 3, 3, 0, 2]), Err(Refusal::NotHandshake(21)));
        assert_eq!(detect(&[23, 1, 1, 0, 2]), Err(Refusal::NotHandshake(23)));
        assert_eq!(detect(&[22, 2]), Err(Refusal::UnknownVersion([2, 0])));
        assert_eq!(detect(&[22, 1, 0]), Err(Refusal::UnknownVersion([1, 0])));
        assert_eq!(
            detect(&[22, 0xfe, 0xfd]),
            Err(Refusal::UnknownVersion([0xfe, 0xfd]))
        );
    }

    #[test]
    fn lengths_are_bounded() {
        assert_eq!(detect(&[22, 1, 1, 0, 0]), Err(Refusal::EmptyRecord));
        assert_eq!(detect(&[22, 3, 1, 0x40, 0]), Ok(Some(Protocol::Tls)));
        assert_eq!(
            detect(&[22, 3, 1, 0x40, 1]),
            Err(Refusal::Oversized(0x4001))
        );
        assert_eq!(
            detect(&[22, 1, 1, 0xff, 0xff]),
            Err(Refusal::Oversized(0xffff))
        );
    }

    #[test]
    fn refusals_name_their_alerts() {
        let garbage = Refusal::NotHandshake(b'G');
        assert_eq!(garbage.alert_record(None), [21, 3, 3, 0, 2, 2, 10]);
        let big = Refusal::Oversized(0xffff);
        assert_eq!(
            big.alert_record(Some(Protocol::Tlcp)),
            [21, 1, 1, 0, 2, 2, 22]
        );
        assert_eq!(Refusal::UnknownVersion([2, 0]).alert().to_u8(), 70);
        assert_eq!(Refusal::EmptyRecord.alert().to_u8(), 50);
    }

    #[test]
    fn clients_older_than_tls12_are_refused_by_their_hello_version() {
        let hello = |version: [u8; 2]| {
            let mut r = vec![22, 3, 1, 0, 60, 1, 0, 0, 56];
            r.extend_from_slice(&version);
            r
        };
        for (v, refused) in [([3, 0], true), ([3, 1], true), ([3, 2], true)] {
            assert_eq!(
                check_tls_hello(&hello(v)),
                if refused {
                    Err(Refusal::ObsoleteTls(v))
                } else {
                    Ok(true)
                }
            );
        }
        // TLS 1.2 and 1.3 clients both write 03 03.
        assert_eq!(check_tls_hello(&hello([3, 3])), Ok(true));
        // Not all there yet: wait.
        for end in 0..HELLO_VERSION_END {
            assert_eq!(check_tls_hello(&hello([3, 1])[..end]), Ok(false), "{end}");
        }
        // A first record too short for the version, or not a ClientHello: the TLS
        // server judges it.
        assert_eq!(check_tls_hello(&[22, 3, 1, 0, 4, 1, 0, 0, 0]), Ok(true));
        assert_eq!(
            check_tls_hello(&[22, 3, 1, 0, 60, 2, 0, 0, 56, 3, 0]),
            Ok(true)
        );
        assert_eq!(Refusal::ObsoleteTls([3, 1]).alert().to_u8(), 70);
    }

    #[test]
    fn sm_needs_an_sm_suite_and_sm2sig_sm3() {
        use rustls::{CipherSuite, SignatureScheme};
        let sm_gcm = shangmi_rustls::suites::TLS_SM4_GCM_SM3_ID;
        let sm_ccm = shangmi_rustls::suites::TLS_SM4_CCM_SM3_ID;
        let sm2 = shangmi_rustls::sign::SM2_SM3;
        let aes = CipherSuite::TLS13_AES_128_GCM_SHA256;
        let ecdsa = SignatureScheme::ECDSA_NISTP256_SHA256;
        assert!(wants_sm(&[aes, sm_gcm], &[ecdsa, sm2]));
        assert!(wants_sm(&[sm_ccm], &[sm2]));
        assert!(!wants_sm(&[aes], &[ecdsa, sm2]));
        assert!(!wants_sm(&[aes, sm_gcm], &[ecdsa]));
        assert!(!wants_sm(&[], &[]));
    }
}
