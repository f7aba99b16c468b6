//! The TLCP wire messages as types, each with one codec: [`Codec::encode`] writes the
//! message body, [`Codec::read`] parses it from a [`Reader`] with every length checked
//! (a malformed body is [`Error::PeerMisbehaved`] with decode_error, or the alert the
//! protocol names for that field).
//!
//! Layouts (GB/T 38636-2020 as Tongsuo, GmSSL and gotlcp put them on the wire; see
//! `ARCHITECTURE.md`): the hellos of TLS 1.2 with version 0x0101; Certificate a u24 list of
//! u24 certificates (sign, encryption, then the chain); ServerKeyExchange without a
//! signature-algorithm field, ECC (signature only) or ECDHE (named curve SM2 point, then
//! the signature); ClientKeyExchange ECC (u16 SM2 ciphertext) or ECDHE (the 69-byte point
//! parameters, or GmSSL's form with a u16 length first, read and kept as such);
//! CertificateVerify a u16 signature; NewSessionTicket as RFC 5077 §3.3.

use crate::error::{AlertDescription, CertificateError, Error, bad, decode};
use crate::record::VERSION;
use rustls_pki_types::CertificateDer;

pub use crate::codec::Reader;
use crate::codec::{put_u16, put_u24, put_vec8, put_vec16, put_vec24};

/// Largest session ID (32 bytes).
pub const MAX_SESSION_ID: usize = 32;
/// Most certificates accepted in one Certificate message.
pub const MAX_CERTIFICATES: usize = 16;

/// A record's content type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ContentType {
    /// change_cipher_spec (20).
    ChangeCipherSpec,
    /// alert (21).
    Alert,
    /// handshake (22).
    Handshake,
    /// application_data (23).
    ApplicationData,
}

impl ContentType {
    /// The wire value.
    pub const fn to_u8(self) -> u8 {
        match self {
            ContentType::ChangeCipherSpec => 20,
            ContentType::Alert => 21,
            ContentType::Handshake => 22,
            ContentType::ApplicationData => 23,
        }
    }

    /// From the wire value (`None` for any other).
    pub const fn from_u8(v: u8) -> Option<Self> {
        Some(match v {
            20 => ContentType::ChangeCipherSpec,
            21 => ContentType::Alert,
            22 => ContentType::Handshake,
            23 => ContentType::ApplicationData,
            _ => return None,
        })
    }
}

/// A handshake message's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HandshakeType {
    /// hello_request (0).
    HelloRequest,
    /// client_hello (1).
    ClientHello,
    /// server_hello (2).
    ServerHello,
    /// new_session_ticket (4, RFC 5077).
    NewSessionTicket,
    /// certificate (11).
    Certificate,
    /// server_key_exchange (12).
    ServerKeyExchange,
    /// certificate_request (13).
    CertificateRequest,
    /// server_hello_done (14).
    ServerHelloDone,
    /// certificate_verify (15).
    CertificateVerify,
    /// client_key_exchange (16).
    ClientKeyExchange,
    /// finished (20).
    Finished,
}

impl HandshakeType {
    /// The wire value.
    pub const fn to_u8(self) -> u8 {
        match self {
            HandshakeType::HelloRequest => 0,
            HandshakeType::ClientHello => 1,
            HandshakeType::ServerHello => 2,
            HandshakeType::NewSessionTicket => 4,
            HandshakeType::Certificate => 11,
            HandshakeType::ServerKeyExchange => 12,
            HandshakeType::CertificateRequest => 13,
            HandshakeType::ServerHelloDone => 14,
            HandshakeType::CertificateVerify => 15,
            HandshakeType::ClientKeyExchange => 16,
            HandshakeType::Finished => 20,
        }
    }

    /// From the wire value (`None` for any other).
    pub const fn from_u8(v: u8) -> Option<Self> {
        Some(match v {
            0 => HandshakeType::HelloRequest,
            1 => HandshakeType::ClientHello,
            2 => HandshakeType::ServerHello,
            4 => HandshakeType::NewSessionTicket,
            11 => HandshakeType::Certificate,
            12 => HandshakeType::ServerKeyExchange,
            13 => HandshakeType::CertificateRequest,
            14 => HandshakeType::ServerHelloDone,
            15 => HandshakeType::CertificateVerify,
            16 => HandshakeType::ClientKeyExchange,
            20 => HandshakeType::Finished,
            _ => return None,
        })
    }
}

/// An alert's level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AlertLevel {
    /// warning (1).
    Warning,
    /// fatal (2).
    Fatal,
    /// Any other value.
    Unknown(u8),
}

impl AlertLevel {
    /// The wire value.
    pub const fn to_u8(self) -> u8 {
        match self {
            AlertLevel::Warning => 1,
            AlertLevel::Fatal => 2,
            AlertLevel::Unknown(v) => v,
        }
    }

    /// From the wire value.
    pub const fn from_u8(v: u8) -> Self {
        match v {
            1 => AlertLevel::Warning,
            2 => AlertLevel::Fatal,
            v => AlertLevel::Unknown(v),
        }
    }
}

/// An alert record's body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Alert {
    /// Warning or fatal.
    pub level: AlertLevel,
    /// What happened.
    pub description: AlertDescription,
}

impl Alert {
    /// The two wire bytes.
    pub fn to_bytes(self) -> [u8; 2] {
        [self.level.to_u8(), self.description.to_u8()]
    }
}

/// One codec per message: the body's bytes (without the handshake header).
pub trait Codec: Sized {
    /// Appends the encoding to `out`. Lengths are those of the fields: a value built with a
    /// field longer than its wire length field allows (see each type) encodes wrongly.
    fn encode(&self, out: &mut Vec<u8>);

    /// Parses one value from `r`, leaving `r` after it.
    fn read(r: &mut Reader<'_>) -> Result<Self, Error>;

    /// Parses `bytes` as exactly one value (trailing bytes are a decode_error).
    fn read_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = Reader::new(bytes);
        let v = Self::read(&mut r)?;
        r.finish()?;
        Ok(v)
    }

    /// The encoding as a new vector.
    fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode(&mut out);
        out
    }
}

/// A handshake message: its type and body codec.
pub trait HandshakeMessage: Codec {
    /// The type byte of the handshake header.
    const TYPE: HandshakeType;

    /// Appends the whole message (type, u24 length, body) to `out`.
    fn encode_message(&self, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(&[Self::TYPE.to_u8(), 0, 0, 0]);
        self.encode(out);
        let len = out.len() - start - 4;
        out[start + 1..start + 4].copy_from_slice(&[
            (len >> 16) as u8,
            (len >> 8) as u8,
            len as u8,
        ]);
    }
}

/// The start both hellos share: the version (refused with `why` unless TLCP's), the
/// random and the session ID.
fn read_hello_start(r: &mut Reader<'_>, why: &'static str) -> Result<([u8; 32], Vec<u8>), Error> {
    if r.u16()? != VERSION {
        return Err(bad(AlertDescription::ProtocolVersion, why));
    }
    let mut random = [0u8; 32];
    random.copy_from_slice(r.take(32)?);
    let sid = r.vec8()?;
    if sid.len() > MAX_SESSION_ID {
        return Err(decode("session ID too long"));
    }
    Ok((random, sid.to_vec()))
}

/// Writes what [`read_hello_start`] reads.
fn put_hello_start(out: &mut Vec<u8>, random: &[u8; 32], session_id: &[u8]) {
    put_u16(out, VERSION);
    out.extend_from_slice(random);
    put_vec8(out, session_id);
}

/// Writes a hello's extension block, if it has one (`put` writes one extension).
fn put_extensions<E>(out: &mut Vec<u8>, exts: &Option<Vec<E>>, put: impl Fn(&E, &mut Vec<u8>)) {
    if let Some(exts) = exts {
        put_list16(out, |l| {
            for e in exts {
                put(e, l);
            }
        });
    }
}

/// A ClientHello extension (RFC 6066 server_name, RFC 7301 ALPN, RFC 5077 session_ticket;
/// any other kept as its type and bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientExtension {
    /// server_name (0): the list of (name type, name); type 0 is a host name.
    ServerName(Vec<(u8, Vec<u8>)>),
    /// application_layer_protocol_negotiation (16): the protocols offered (none empty).
    Alpn(Vec<Vec<u8>>),
    /// session_ticket (35): empty to ask for a ticket, else the ticket to resume with.
    SessionTicket(Vec<u8>),
    /// Any other extension.
    Unknown(u16, Vec<u8>),
}

fn encode_extension(out: &mut Vec<u8>, typ: u16, body: impl FnOnce(&mut Vec<u8>)) {
    put_u16(out, typ);
    let at = out.len();
    out.extend_from_slice(&[0, 0]);
    body(out);
    let len = (out.len() - at - 2) as u16;
    out[at..at + 2].copy_from_slice(&len.to_be_bytes());
}

/// Writes a u16-length list whose contents `body` appends.
fn put_list16(out: &mut Vec<u8>, body: impl FnOnce(&mut Vec<u8>)) {
    let at = out.len();
    out.extend_from_slice(&[0, 0]);
    body(out);
    let len = (out.len() - at - 2) as u16;
    out[at..at + 2].copy_from_slice(&len.to_be_bytes());
}

impl ClientExtension {
    /// The extension's type on the wire.
    pub fn ext_type(&self) -> u16 {
        match self {
            ClientExtension::ServerName(_) => 0,
            ClientExtension::Alpn(_) => 16,
            ClientExtension::SessionTicket(_) => 35,
            ClientExtension::Unknown(typ, _) => *typ,
        }
    }

    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            ClientExtension::ServerName(names) => encode_extension(out, 0, |d| {
                put_list16(d, |l| {
                    for (kind, name) in names {
                        l.push(*kind);
                        put_vec16(l, name);
                    }
                })
            }),
            ClientExtension::Alpn(protos) => encode_extension(out, 16, |d| {
                put_list16(d, |l| {
                    for p in protos {
                        put_vec8(l, p);
                    }
                })
            }),
            ClientExtension::SessionTicket(t) => {
                put_u16(out, 35);
                put_vec16(out, t);
            }
            ClientExtension::Unknown(typ, data) => {
                put_u16(out, *typ);
                put_vec16(out, data);
            }
        }
    }

    fn read(typ: u16, data: &[u8]) -> Result<Self, Error> {
        let mut d = Reader::new(data);
        Ok(match typ {
            0 => {
                let mut list = Reader::new(d.vec16()?);
                d.finish()?;
                let mut names: Vec<(u8, Vec<u8>)> = Vec::new();
                while !list.is_empty() {
                    let kind = list.u8()?;
                    // RFC 6066 §3: no more than one name of a type (rustls refuses it
                    // with illegal_parameter too).
                    if names.iter().any(|(k, _)| *k == kind) {
                        return Err(bad(
                            AlertDescription::IllegalParameter,
                            "two server names of one type",
                        ));
                    }
                    names.push((kind, list.vec16()?.to_vec()));
                }
                ClientExtension::ServerName(names)
            }
            16 => {
                let mut list = Reader::new(d.vec16()?);
                d.finish()?;
                let mut protos = Vec::new();
                while !list.is_empty() {
                    let p = list.vec8()?;
                    if p.is_empty() {
                        return Err(decode("empty ALPN protocol"));
                    }
                    protos.push(p.to_vec());
                }
                ClientExtension::Alpn(protos)
            }
            35 => ClientExtension::SessionTicket(data.to_vec()),
            _ => ClientExtension::Unknown(typ, data.to_vec()),
        })
    }
}

/// Reads an optional u16-length extension block (absent when nothing follows), each
/// extension's type and body through `one`.
///
/// A type that comes twice is refused with illegal_parameter: RFC 5246 §7.4.1.4 ("There
/// MUST NOT be more than one extension of the same type"), the alert OpenSSL's and
/// Tongsuo's `tls_collect_extensions` send (`SSL_AD_ILLEGAL_PARAMETER`, also in Tongsuo's
/// `ntls_extensions.c`) and rustls 0.23 (`InvalidMessage::DuplicateExtension`).
fn read_extensions<T>(
    r: &mut Reader<'_>,
    one: impl Fn(u16, &[u8]) -> Result<T, Error>,
) -> Result<Option<Vec<T>>, Error> {
    if r.is_empty() {
        return Ok(None);
    }
    let mut exts = Reader::new(r.vec16()?);
    r.finish()?;
    let mut out = Vec::new();
    let mut types = Vec::new();
    while !exts.is_empty() {
        let typ = exts.u16()?;
        let data = exts.vec16()?;
        types.push(typ);
        out.push(one(typ, data)?);
    }
    // At most 16,384 types (4 bytes each in 64 KiB): sorting keeps this O(n log n).
    types.sort_unstable();
    if types.windows(2).any(|w| w[0] == w[1]) {
        return Err(bad(
            AlertDescription::IllegalParameter,
            "an extension type sent twice",
        ));
    }
    Ok(Some(out))
}

/// ClientHello (version 0x0101).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientHello {
    /// client_random: 4 bytes of time, 28 random.
    pub random: [u8; 32],
    /// At most [`MAX_SESSION_ID`] bytes (empty: no resumption by ID).
    pub session_id: Vec<u8>,
    /// The suites offered (at least one; at most 32767).
    pub cipher_suites: Vec<u16>,
    /// Compression methods (must include null, 0).
    pub compression_methods: Vec<u8>,
    /// The extension block, if one was sent (`Some` of an empty list: an empty block).
    pub extensions: Option<Vec<ClientExtension>>,
}

impl Codec for ClientHello {
    fn encode(&self, out: &mut Vec<u8>) {
        put_hello_start(out, &self.random, &self.session_id);
        put_u16(out, (self.cipher_suites.len() * 2) as u16);
        for s in &self.cipher_suites {
            put_u16(out, *s);
        }
        put_vec8(out, &self.compression_methods);
        put_extensions(out, &self.extensions, ClientExtension::encode);
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, Error> {
        let (random, session_id) = read_hello_start(r, "client version is not TLCP 1.1")?;
        let suite_bytes = r.vec16()?;
        if suite_bytes.is_empty() || suite_bytes.len() % 2 != 0 {
            return Err(decode("cipher suite list"));
        }
        let cipher_suites = suite_bytes
            .chunks_exact(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]))
            .collect();
        let compression_methods = r.vec8()?.to_vec();
        if !compression_methods.contains(&0) {
            return Err(bad(
                AlertDescription::IllegalParameter,
                "no null compression",
            ));
        }
        let extensions = read_extensions(r, ClientExtension::read)?;
        Ok(ClientHello {
            random,
            session_id,
            cipher_suites,
            compression_methods,
            extensions,
        })
    }
}

impl HandshakeMessage for ClientHello {
    const TYPE: HandshakeType = HandshakeType::ClientHello;
}

/// A ServerHello extension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerExtension {
    /// application_layer_protocol_negotiation (16): the one protocol chosen (not empty).
    Alpn(Vec<u8>),
    /// session_ticket (35), empty: a NewSessionTicket will follow.
    SessionTicket,
    /// Any other extension (ignored by the client).
    Unknown(u16, Vec<u8>),
}

impl ServerExtension {
    /// The extension's type on the wire.
    pub fn ext_type(&self) -> u16 {
        match self {
            ServerExtension::Alpn(_) => 16,
            ServerExtension::SessionTicket => 35,
            ServerExtension::Unknown(typ, _) => *typ,
        }
    }

    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            ServerExtension::Alpn(p) => encode_extension(out, 16, |d| {
                put_list16(d, |l| put_vec8(l, p));
            }),
            ServerExtension::SessionTicket => {
                put_u16(out, 35);
                put_u16(out, 0);
            }
            ServerExtension::Unknown(typ, data) => {
                put_u16(out, *typ);
                put_vec16(out, data);
            }
        }
    }

    fn read(typ: u16, data: &[u8]) -> Result<Self, Error> {
        Ok(match typ {
            16 => {
                let mut d = Reader::new(data);
                let mut list = Reader::new(d.vec16()?);
                d.finish()?;
                let proto = list.vec8()?;
                list.finish()?;
                if proto.is_empty() {
                    return Err(decode("empty ALPN protocol"));
                }
                ServerExtension::Alpn(proto.to_vec())
            }
            35 if data.is_empty() => ServerExtension::SessionTicket,
            35 => return Err(decode("session_ticket in ServerHello not empty")),
            _ => ServerExtension::Unknown(typ, data.to_vec()),
        })
    }
}

/// ServerHello (version 0x0101).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerHello {
    /// server_random.
    pub random: [u8; 32],
    /// At most [`MAX_SESSION_ID`] bytes.
    pub session_id: Vec<u8>,
    /// The suite chosen.
    pub cipher_suite: u16,
    /// The compression method chosen (TLCP: null, 0).
    pub compression_method: u8,
    /// The extension block, if one was sent.
    pub extensions: Option<Vec<ServerExtension>>,
}

impl Codec for ServerHello {
    fn encode(&self, out: &mut Vec<u8>) {
        put_hello_start(out, &self.random, &self.session_id);
        put_u16(out, self.cipher_suite);
        out.push(self.compression_method);
        put_extensions(out, &self.extensions, ServerExtension::encode);
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, Error> {
        let (random, session_id) = read_hello_start(r, "server version is not TLCP 1.1")?;
        let cipher_suite = r.u16()?;
        let compression_method = r.u8()?;
        let extensions = read_extensions(r, ServerExtension::read)?;
        Ok(ServerHello {
            random,
            session_id,
            cipher_suite,
            compression_method,
            extensions,
        })
    }
}

impl HandshakeMessage for ServerHello {
    const TYPE: HandshakeType = HandshakeType::ServerHello;
}

/// Certificate: sign certificate, encryption certificate, then the chain (a client without
/// a pair sends an empty list). At most [`MAX_CERTIFICATES`], none empty, each below 2^24
/// bytes. Read, the certificates are owned (`'static`); to send, they may be borrowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Certificate<'a> {
    /// The certificates in wire order.
    pub certificates: Vec<CertificateDer<'a>>,
}

impl<'a> Certificate<'a> {
    /// A message borrowing `certificates` (DER).
    pub fn borrowed(certificates: impl IntoIterator<Item = &'a [u8]>) -> Self {
        Certificate {
            certificates: certificates.into_iter().map(CertificateDer::from).collect(),
        }
    }
}

impl Codec for Certificate<'_> {
    fn encode(&self, out: &mut Vec<u8>) {
        let at = out.len();
        out.extend_from_slice(&[0, 0, 0]);
        for c in &self.certificates {
            put_vec24(out, c.as_ref());
        }
        let len = out.len() - at - 3;
        out[at..at + 3].copy_from_slice(&[(len >> 16) as u8, (len >> 8) as u8, len as u8]);
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, Error> {
        let mut list = Reader::new(r.vec24()?);
        let mut certificates = Vec::new();
        while !list.is_empty() {
            let c = list.vec24()?;
            if c.is_empty() {
                return Err(decode("empty certificate"));
            }
            if certificates.len() >= MAX_CERTIFICATES {
                return Err(Error::InvalidCertificate(CertificateError::Other(
                    "more than 16 certificates".into(),
                )));
            }
            certificates.push(CertificateDer::from(c.to_vec()));
        }
        Ok(Certificate { certificates })
    }
}

impl HandshakeMessage for Certificate<'_> {
    const TYPE: HandshakeType = HandshakeType::Certificate;
}

/// The ECDHE parameters of either key exchange message: curve type 3 (named curve),
/// curve 0x0029 (SM2), then the uncompressed point (65 bytes, `04 ‖ X ‖ Y`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EcdheParams {
    /// The ephemeral public point, uncompressed.
    pub point: [u8; 65],
}

/// The encoded length of [`EcdheParams`].
pub const ECDHE_PARAMS_LEN: usize = 69;

impl Codec for EcdheParams {
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&[3, 0, 0x29, 65]);
        out.extend_from_slice(&self.point);
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, Error> {
        let p = r.take(ECDHE_PARAMS_LEN)?;
        if p[..3] != [3, 0, 0x29] {
            return Err(bad(
                AlertDescription::IllegalParameter,
                "ECDHE parameters are not named curve SM2",
            ));
        }
        if p[3] != 65 || p[4] != 4 {
            return Err(bad(
                AlertDescription::IllegalParameter,
                "ECDHE point is not uncompressed",
            ));
        }
        let mut point = [0u8; 65];
        point.copy_from_slice(&p[4..]);
        Ok(EcdheParams { point })
    }
}

/// A handshake message whose body is its fields in order: the struct (with the docs
/// given), its [`Codec`] and its [`HandshakeMessage`] type. Each field says how it is
/// carried: `vec16` (bytes after a u16 length), `rest` (the rest of the body), `u32` (big
/// endian) or `codec` (the field type's own [`Codec`]).
macro_rules! message {
    ($(
        $(#[$m:meta])*
        $name:ident = $typ:ident {
            $($(#[$fm:meta])* $field:ident: $fty:ty => $how:ident,)+
        }
    )+) => {$(
        $(#[$m])*
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct $name {
            $($(#[$fm])* pub $field: $fty,)+
        }

        impl Codec for $name {
            fn encode(&self, out: &mut Vec<u8>) {
                $(message!(@put $how, out, &self.$field);)+
            }

            fn read(r: &mut Reader<'_>) -> Result<Self, Error> {
                Ok($name {
                    $($field: message!(@read $how, $fty, r),)+
                })
            }
        }

        impl HandshakeMessage for $name {
            const TYPE: HandshakeType = HandshakeType::$typ;
        }
    )+};
    (@put vec16, $out:ident, $v:expr) => { put_vec16($out, $v) };
    (@put rest, $out:ident, $v:expr) => { $out.extend_from_slice($v) };
    (@put u32, $out:ident, $v:expr) => { $out.extend_from_slice(&$v.to_be_bytes()) };
    (@put codec, $out:ident, $v:expr) => { $v.encode($out) };
    (@read vec16, $t:ty, $r:ident) => { $r.vec16()?.to_vec() };
    (@read rest, $t:ty, $r:ident) => { $r.rest().to_vec() };
    (@read u32, $t:ty, $r:ident) => { $r.u32()? };
    (@read codec, $t:ty, $r:ident) => { <$t>::read($r)? };
}

message! {
    /// ServerKeyExchange of the ECC suites: the sign key's SM2 signature (DER) over
    /// client_random ‖ server_random ‖ u24-length encryption certificate.
    ServerKeyExchangeEcc = ServerKeyExchange {
        /// DER SM2 signature (u16 length).
        signature: Vec<u8> => vec16,
    }

    /// ServerKeyExchange of the ECDHE suites: the server's ephemeral point and the sign
    /// key's signature over client_random ‖ server_random ‖ the parameters' bytes.
    ServerKeyExchangeEcdhe = ServerKeyExchange {
        /// The parameters (signed as encoded).
        params: EcdheParams => codec,
        /// DER SM2 signature (u16 length).
        signature: Vec<u8> => vec16,
    }
}

/// CertificateRequest: certificate types (at least one; 1 rsa_sign, 64 ecdsa_sign) and
/// the acceptable CAs' DER names. No signature-algorithm list in TLCP.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CertificateRequest {
    /// The certificate types (u8 length, not empty).
    pub certificate_types: Vec<u8>,
    /// DER distinguished names (each u16 length, in a u16 list).
    pub ca_names: Vec<Vec<u8>>,
}

impl Codec for CertificateRequest {
    fn encode(&self, out: &mut Vec<u8>) {
        put_vec8(out, &self.certificate_types);
        put_list16(out, |l| {
            for n in &self.ca_names {
                put_vec16(l, n);
            }
        });
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, Error> {
        let types = r.vec8()?;
        if types.is_empty() {
            return Err(decode("empty certificate types"));
        }
        let mut names = Reader::new(r.vec16()?);
        let mut ca_names = Vec::new();
        while !names.is_empty() {
            ca_names.push(names.vec16()?.to_vec());
        }
        Ok(CertificateRequest {
            certificate_types: types.to_vec(),
            ca_names,
        })
    }
}

impl HandshakeMessage for CertificateRequest {
    const TYPE: HandshakeType = HandshakeType::CertificateRequest;
}

/// ServerHelloDone (empty).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerHelloDone;

impl Codec for ServerHelloDone {
    fn encode(&self, _out: &mut Vec<u8>) {}

    fn read(_r: &mut Reader<'_>) -> Result<Self, Error> {
        Ok(ServerHelloDone)
    }
}

impl HandshakeMessage for ServerHelloDone {
    const TYPE: HandshakeType = HandshakeType::ServerHelloDone;
}

message! {
    /// ClientKeyExchange of the ECC suites: the 48-byte premaster (01 01 ‖ 46 random bytes)
    /// SM2-encrypted (DER C1C3C2) to the server's encryption certificate.
    ClientKeyExchangeEcc = ClientKeyExchange {
        /// DER SM2 ciphertext (u16 length).
        ciphertext: Vec<u8> => vec16,
    }
}

/// ClientKeyExchange of the ECDHE suites: the client's ephemeral point, as 69 bytes
/// (Tongsuo, Kona, gmssl.cn) or with a u16 length first (71 bytes, GmSSL 3.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientKeyExchangeEcdhe {
    /// The client's parameters.
    pub params: EcdheParams,
    /// Whether a u16 length precedes them (GmSSL's form).
    pub length_prefixed: bool,
}

impl Codec for ClientKeyExchangeEcdhe {
    fn encode(&self, out: &mut Vec<u8>) {
        if self.length_prefixed {
            put_u16(out, ECDHE_PARAMS_LEN as u16);
        }
        self.params.encode(out);
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, Error> {
        // The 69-byte form starts with the curve type 3, GmSSL's with the length 00 45.
        let length_prefixed = match r.peek() {
            Some(3) => false,
            Some(0) if r.u16()? == ECDHE_PARAMS_LEN as u16 => true,
            _ => return Err(decode("ECDHE ClientKeyExchange length")),
        };
        let params = EcdheParams::read(r)?;
        Ok(ClientKeyExchangeEcdhe {
            params,
            length_prefixed,
        })
    }
}

impl HandshakeMessage for ClientKeyExchangeEcdhe {
    const TYPE: HandshakeType = HandshakeType::ClientKeyExchange;
}

message! {
    /// CertificateVerify: the client's SM2 signature over the transcript.
    CertificateVerify = CertificateVerify {
        /// DER SM2 signature (u16 length).
        signature: Vec<u8> => vec16,
    }

    /// Finished: verify_data (12 bytes when sent; read as whatever the body holds, so that
    /// a wrong length is refused by the comparison, with decrypt_error).
    Finished = Finished {
        /// PRF(master_secret, label, SM3(transcript)).
        verify_data: Vec<u8> => rest,
    }

    /// NewSessionTicket (RFC 5077 §3.3): lifetime hint and ticket (empty: none after all).
    NewSessionTicket = NewSessionTicket {
        /// Seconds the ticket may be kept (0: unspecified).
        lifetime_hint: u32 => u32,
        /// The opaque ticket (u16 length).
        ticket: Vec<u8> => vec16,
    }
}

/// Appends a handshake header for a body of `len` bytes (used for raw messages).
pub(crate) fn put_handshake_header(out: &mut Vec<u8>, typ: u8, len: usize) {
    out.push(typ);
    put_u24(out, len);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::collection::vec;
    use proptest::prelude::*;

    fn bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
        vec(any::<u8>(), 0..=max)
    }

    fn nonempty(max: usize) -> impl Strategy<Value = Vec<u8>> {
        vec(any::<u8>(), 1..=max)
    }

    fn params() -> impl Strategy<Value = EcdheParams> {
        vec(any::<u8>(), 64).prop_map(|xy| {
            let mut point = [4u8; 65];
            point[1..].copy_from_slice(&xy);
            EcdheParams { point }
        })
    }

    fn client_ext() -> impl Strategy<Value = ClientExtension> {
        prop_oneof![
            proptest::collection::btree_map(any::<u8>(), bytes(40), 0..3)
                .prop_map(|names| ClientExtension::ServerName(names.into_iter().collect())),
            vec(nonempty(20), 0..4).prop_map(ClientExtension::Alpn),
            bytes(200).prop_map(ClientExtension::SessionTicket),
            // Types the parser keeps as they are (not 0, 16, 35).
            (1u16..16, bytes(30)).prop_map(|(t, d)| ClientExtension::Unknown(t, d)),
            (36u16.., bytes(30)).prop_map(|(t, d)| ClientExtension::Unknown(t, d)),
        ]
    }

    fn server_ext() -> impl Strategy<Value = ServerExtension> {
        prop_oneof![
            nonempty(30).prop_map(ServerExtension::Alpn),
            Just(ServerExtension::SessionTicket),
            (0u16..16, bytes(30)).prop_map(|(t, d)| ServerExtension::Unknown(t, d)),
            (36u16.., bytes(30)).prop_map(|(t, d)| ServerExtension::Unknown(t, d)),
        ]
    }

    /// Extension lists as a valid hello carries them: each type once.
    fn one_of_each<T: Clone + core::fmt::Debug>(
        ext: impl Strategy<Value = T>,
        max: usize,
        typ: fn(&T) -> u16,
    ) -> impl Strategy<Value = Vec<T>> {
        vec(ext, 0..max).prop_map(move |mut v| {
            let mut seen = Vec::new();
            v.retain(|e| {
                let fresh = !seen.contains(&typ(e));
                seen.push(typ(e));
                fresh
            });
            v
        })
    }

    /// A copy of the first element inserted at `at` (any place, the end included).
    fn repeat_first<T: Clone>(v: &mut Vec<T>, at: prop::sample::Index) {
        let again = v[0].clone();
        v.insert(at.index(v.len() + 1), again);
    }

    /// `x`'s encoding is refused with illegal_parameter.
    fn illegal<T: Codec + core::fmt::Debug>(x: &T) {
        let e = T::read_bytes(&x.to_bytes()).expect_err("refused");
        assert_eq!(e.alert(), Some(AlertDescription::IllegalParameter));
    }

    fn random() -> impl Strategy<Value = [u8; 32]> {
        any::<[u8; 32]>()
    }

    /// encode, read back (the whole body, nothing left over), encode again: equal values
    /// and equal bytes; every proper prefix is refused without a panic.
    fn round_trip<T: Codec + PartialEq + core::fmt::Debug>(x: &T) {
        let enc = x.to_bytes();
        let back = T::read_bytes(&enc).expect("reads its own encoding");
        assert_eq!(&back, x);
        assert_eq!(back.to_bytes(), enc);
        for cut in [enc.len() / 2, enc.len().saturating_sub(1)] {
            if cut < enc.len() {
                let _ = T::read_bytes(&enc[..cut]);
            }
        }
    }

    proptest! {
        #[test]
        fn client_hello_round_trip(
            random in random(),
            session_id in bytes(MAX_SESSION_ID),
            cipher_suites in vec(any::<u16>(), 1..6),
            mut compression_methods in bytes(3),
            extensions in proptest::option::of(one_of_each(client_ext(), 5, ClientExtension::ext_type)),
        ) {
            compression_methods.push(0);
            round_trip(&ClientHello { random, session_id, cipher_suites, compression_methods, extensions });
        }

        /// Any extension sent twice (same type, same or other contents) is refused with
        /// illegal_parameter, wherever the second copy stands.
        #[test]
        fn repeated_extension_refused(
            mut client in vec(client_ext(), 1..5),
            mut server in vec(server_ext(), 1..4),
            at in any::<prop::sample::Index>(),
        ) {
            repeat_first(&mut client, at);
            repeat_first(&mut server, at);
            illegal(&ClientHello {
                random: [0; 32],
                session_id: Vec::new(),
                cipher_suites: vec![0xe053],
                compression_methods: vec![0],
                extensions: Some(client),
            });
            illegal(&ServerHello {
                random: [0; 32],
                session_id: Vec::new(),
                cipher_suite: 0xe053,
                compression_method: 0,
                extensions: Some(server),
            });
        }

        #[test]
        fn server_hello_round_trip(
            random in random(),
            session_id in bytes(MAX_SESSION_ID),
            cipher_suite in any::<u16>(),
            compression_method in any::<u8>(),
            extensions in proptest::option::of(one_of_each(server_ext(), 4, ServerExtension::ext_type)),
        ) {
            round_trip(&ServerHello { random, session_id, cipher_suite, compression_method, extensions });
        }

        #[test]
        fn certificate_round_trip(certs in vec(nonempty(300), 0..=MAX_CERTIFICATES)) {
            round_trip(&Certificate {
                certificates: certs.into_iter().map(CertificateDer::from).collect(),
            });
        }

        #[test]
        fn key_exchanges_round_trip(
            params in params(),
            signature in bytes(80),
            length_prefixed in any::<bool>(),
        ) {
            round_trip(&ServerKeyExchangeEcc { signature: signature.clone() });
            round_trip(&ServerKeyExchangeEcdhe { params: params.clone(), signature: signature.clone() });
            round_trip(&ClientKeyExchangeEcc { ciphertext: signature.clone() });
            round_trip(&ClientKeyExchangeEcdhe { params, length_prefixed });
            round_trip(&CertificateVerify { signature });
        }

        #[test]
        fn other_messages_round_trip(
            certificate_types in nonempty(4),
            ca_names in vec(bytes(60), 0..4),
            verify_data in bytes(12),
            lifetime_hint in any::<u32>(),
            ticket in bytes(300),
        ) {
            round_trip(&CertificateRequest { certificate_types, ca_names });
            round_trip(&ServerHelloDone);
            round_trip(&Finished { verify_data });
            round_trip(&NewSessionTicket { lifetime_hint, ticket });
        }

        /// Arbitrary bytes: every reader returns (a value or an error), never panics; what
        /// reads as a whole re-encodes to the same bytes, except where the wire has several
        /// spellings of one value (none for these types).
        #[test]
        fn read_never_panics(data in bytes(400)) {
            fn check<T: Codec>(data: &[u8]) {
                if let Ok(v) = T::read_bytes(data) {
                    assert_eq!(v.to_bytes(), data);
                }
            }
            check::<ClientHello>(&data);
            check::<ServerHello>(&data);
            check::<Certificate<'static>>(&data);
            check::<ServerKeyExchangeEcc>(&data);
            check::<ServerKeyExchangeEcdhe>(&data);
            check::<CertificateRequest>(&data);
            check::<ServerHelloDone>(&data);
            check::<ClientKeyExchangeEcc>(&data);
            check::<ClientKeyExchangeEcdhe>(&data);
            check::<CertificateVerify>(&data);
            check::<Finished>(&data);
            check::<NewSessionTicket>(&data);
        }
    }

    /// Refusals carry their alert: decode_error for bad lengths, the protocol's own alert
    /// where it names one.
    #[test]
    fn typed_refusals() {
        let alert = |e: Error| e.alert();
        let mut ch = ClientHello {
            random: [1; 32],
            session_id: vec![],
            cipher_suites: vec![0xE053],
            compression_methods: vec![0],
            extensions: None,
        }
        .to_bytes();
        ch[0] = 3;
        assert_eq!(
            alert(ClientHello::read_bytes(&ch).unwrap_err()),
            Some(AlertDescription::ProtocolVersion)
        );
        let long_sid = ServerHello {
            random: [0; 32],
            session_id: vec![0; 33],
            cipher_suite: 0xE053,
            compression_method: 0,
            extensions: None,
        }
        .to_bytes();
        assert_eq!(
            alert(ServerHello::read_bytes(&long_sid).unwrap_err()),
            Some(AlertDescription::DecodeError)
        );
        let mut no_null = ClientHello::read_bytes(&{
            ch[0] = 1;
            ch.clone()
        })
        .expect("valid");
        no_null.compression_methods = vec![1];
        assert_eq!(
            alert(ClientHello::read_bytes(&no_null.to_bytes()).unwrap_err()),
            Some(AlertDescription::IllegalParameter)
        );
        let mut p = EcdheParams { point: [4; 65] }.to_bytes();
        p[2] = 0x17; // secp256r1
        assert_eq!(
            alert(EcdheParams::read_bytes(&p).unwrap_err()),
            Some(AlertDescription::IllegalParameter)
        );
        assert_eq!(
            alert(ServerHelloDone::read_bytes(&[0]).unwrap_err()),
            Some(AlertDescription::DecodeError)
        );
        let too_many = Certificate {
            certificates: vec![CertificateDer::from(vec![1u8]); MAX_CERTIFICATES + 1],
        }
        .to_bytes();
        assert_eq!(
            alert(Certificate::read_bytes(&too_many).unwrap_err()),
            Some(AlertDescription::BadCertificate)
        );
        // GmSSL's 71-byte ClientKeyExchange reads as such; a wrong inner length does not.
        let gmssl = ClientKeyExchangeEcdhe {
            params: EcdheParams { point: [4; 65] },
            length_prefixed: true,
        }
        .to_bytes();
        assert_eq!(&gmssl[..3], &[0, 69, 3]);
        let mut wrong = gmssl.clone();
        wrong[1] = 70;
        assert_eq!(
            alert(ClientKeyExchangeEcdhe::read_bytes(&wrong).unwrap_err()),
            Some(AlertDescription::DecodeError)
        );
    }

    /// The framing: type byte, u24 length, body.
    #[test]
    fn handshake_header() {
        let mut out = Vec::new();
        NewSessionTicket {
            lifetime_hint: 7,
            ticket: vec![9; 3],
        }
        .encode_message(&mut out);
        assert_eq!(out, [4, 0, 0, 9, 0, 0, 0, 7, 0, 3, 9, 9, 9]);
        for v in 0..=255u8 {
            if let Some(t) = HandshakeType::from_u8(v) {
                assert_eq!(t.to_u8(), v);
            }
            if let Some(t) = ContentType::from_u8(v) {
                assert_eq!(t.to_u8(), v);
            }
            assert_eq!(AlertLevel::from_u8(v).to_u8(), v);
        }
    }
}
