//! The test PKI: SM2 keys from fixed labels, certificates issued by `shangmi_pki::issue`
//! (the project's one certificate issuer: SKI/AKI, sm2-with-sm3 without parameters, SPKI
//! id-ecPublicKey + SM2 curve, no basicConstraints in end-entity certificates — GmSSL rejects
//! `CA:FALSE`).
//!
//! The recorded interop transcripts carry the certificates of the builder they were recorded
//! with byte for byte; [`Pki::recorded`] reads those from `tests/data/pki/` (data, not a
//! second builder).

use der::{Decode, Encode};
use shangmi_pki::issue::{self, CertParams, Profile};
use shangmi_sm2::SecretKey;
use x509_cert::Certificate;

#[path = "test_pki.rs"]
mod test_pki;
pub use test_pki::key;
use test_pki::params;

/// The validity window of the live certificates (2025-01-01 to 2045-01-01), unix seconds.
const VALID: (u64, u64) = (1_735_689_600, 2_366_841_600);
/// An expired window (2020-01-01 to 2021-01-01).
const EXPIRED: (u64, u64) = (1_577_836_800, 1_609_459_200);

/// `cert` with its signature replaced by one of `key` under the signer ID `id` (the issuer
/// keeps its name and key, only the ID differs).
fn resigned_with_id(cert: &Certificate, key: &SecretKey, id: &[u8]) -> Vec<u8> {
    use shangmi_sm2::signature::Signer;
    let tbs = cert.tbs_certificate().to_der().expect("TBS");
    let signer = shangmi_sm2::dsa::SigningKey::new_with_id(key, id).expect("signing key");
    let sig: shangmi_sm2::dsa::Signature = signer.sign(&tbs);
    let sig =
        der::asn1::BitString::from_bytes(AsRef::<[u8]>::as_ref(&sig.to_der())).expect("bit string");
    let mut body = tbs;
    body.extend(cert.signature_algorithm().to_der().expect("algorithm"));
    body.extend(sig.to_der().expect("signature"));
    let len = der::Length::try_from(body.len()).expect("length");
    let mut out = der::Header::new(der::Tag::Sequence, len)
        .to_der()
        .expect("header");
    out.extend(body);
    Certificate::from_der(&out).expect("re-signed certificate");
    out
}

/// The whole test PKI.
pub struct Pki {
    pub ca_key: SecretKey,
    pub ca: Vec<u8>,
    pub server_key: SecretKey,
    pub server: Vec<u8>,
    pub client_key: SecretKey,
    pub client: Vec<u8>,
    /// The server's certificate, expired.
    pub server_expired: Vec<u8>,
    /// The server's certificate signed by the CA with ID "wrong ID" instead of the default.
    pub server_other_id: Vec<u8>,
}

/// Distinguished names of the test PKI.
pub const CA_NAME: &str = "CN=shangmi test CA,O=shangmi";
pub const SERVER_NAME: &str = "CN=localhost,O=shangmi";
pub const CLIENT_NAME: &str = "CN=shangmi test client,O=shangmi";

impl Pki {
    /// Issues it (about 10 SM2 signatures).
    pub fn new() -> Self {
        let ca_key = key("shangmi test CA key");
        let server_key = key("shangmi test server key");
        let client_key = key("shangmi test client key");
        let ca_profile = Profile::Ca { path_len: None };
        let ca = issue::self_signed(&ca_key, &params(CA_NAME, ca_profile, None, &[1], VALID))
            .expect("CA");
        let leaf = |key: &SecretKey, params: CertParams| {
            issue::issue(&ca, &ca_key, &key.public_key(), &params).expect("certificate")
        };
        // One-byte serial numbers.
        let server_params = |serial: u8, validity| {
            params(
                SERVER_NAME,
                Profile::TlsServer,
                Some("localhost"),
                &[serial],
                validity,
            )
        };
        let server = leaf(&server_key, server_params(2, VALID));
        let server_expired = leaf(&server_key, server_params(4, EXPIRED));
        let other_id = leaf(&server_key, server_params(5, VALID));
        let client = leaf(
            &client_key,
            params(CLIENT_NAME, Profile::TlsClient, None, &[3], VALID),
        );
        let der = |c: &Certificate| c.to_der().expect("DER");
        Self {
            server_other_id: resigned_with_id(&other_id, &ca_key, b"wrong ID"),
            ca: der(&ca),
            ca_key,
            server: der(&server),
            server_key,
            client: der(&client),
            client_key,
            server_expired: der(&server_expired),
        }
    }

    /// The PKI the recorded conversations (`tests/data/tongsuo-*.txt`) were made with: the
    /// same keys, and the CA, server and client certificates as recorded.
    pub fn recorded() -> Self {
        Self {
            ca: include_bytes!("../data/pki/ca.der").to_vec(),
            server: include_bytes!("../data/pki/server.der").to_vec(),
            client: include_bytes!("../data/pki/client.der").to_vec(),
            ..Self::new()
        }
    }
}
