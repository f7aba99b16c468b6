//! Verifying SM2 signatures for rustls and webpki, with the distinguishing ID each place
//! needs: certificate signatures use the default ID `1234567812345678` (what Tongsuo, GmSSL
//! and OpenSSL with `distid` sign and verify chains with), TLS 1.3 CertificateVerify uses
//! `TLSv1.3+GM+Cipher+Suite` (RFC 8998 §3.2.1). rustls reads chain algorithms from
//! [`WebPkiSupportedAlgorithms::all`] and handshake algorithms from its `mapping`, so the two
//! IDs live in different objects.
//!
//! Chains are accepted with the SPKI in both forms seen in the wild (id-ecPublicKey with the
//! SM2 curve, and the bare SM2 OID) and with the signature AlgorithmIdentifier
//! sm2-with-sm3 (1.2.156.10197.1.501) with or without NULL parameters. CertificateVerify is
//! checked against id-ecPublicKey SPKIs (rustls 0.23 uses the first algorithm mapped to a
//! scheme, and webpki compares its SPKI identifier byte for byte).
//!
//! [`server_verifier`] and [`client_verifier`] build rustls' webpki verifiers on this
//! provider with CRLs: webpki checks the CRLs' SM2-with-SM3 signatures with the same chain
//! algorithms (default ID). The revocation policy is the one of `shangmi_pki::verify` and
//! `shangmi-tlcp`: every certificate of the chain below the root must be covered by a CRL of
//! its issuer that verifies and has not passed its nextUpdate, and must not be listed in
//! it; a listed peer is refused with certificate_revoked (rustls'
//! `CertificateError::Revoked`). No CRLs: no revocation check.

use rustls::RootCertStore;
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::CertificateRevocationListDer;
use rustls::pki_types::{AlgorithmIdentifier, InvalidSignature, SignatureVerificationAlgorithm};
use rustls::server::danger::ClientCertVerifier;
use rustls::server::{VerifierBuilderError, WebPkiClientVerifier};
use shangmi_sm2::dsa::{Signature, VerifyingKey};
use shangmi_sm2::signature::Verifier as _;
use shangmi_sm2::{DEFAULT_ID, TLS13_ID};
use std::sync::{Arc, Mutex};

/// AlgorithmIdentifier contents (without the outer SEQUENCE, as webpki wants them):
/// id-ecPublicKey (1.2.840.10045.2.1) with the SM2 curve 1.2.156.10197.1.301.
const SPKI_EC_SM2: &[u8] = &[
    0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x81, 0x1c, 0xcf, 0x55,
    0x01, 0x82, 0x2d,
];
/// The bare SM2 OID 1.2.156.10197.1.301 as the key algorithm (GM/T 0010 style).
const SPKI_BARE_SM2: &[u8] = &[0x06, 0x08, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x82, 0x2d];
/// sm2-with-sm3, 1.2.156.10197.1.501, no parameters (what Tongsuo and GmSSL write).
const SIG_SM2_SM3: &[u8] = &[0x06, 0x08, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x83, 0x75];
/// sm2-with-sm3 with NULL parameters.
const SIG_SM2_SM3_NULL: &[u8] = &[
    0x06, 0x08, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x83, 0x75, 0x05, 0x00,
];

/// An SM2-with-SM3 verification algorithm for one distinguishing ID and one pair of
/// AlgorithmIdentifiers.
#[derive(Debug)]
pub struct Sm2Sm3 {
    id: &'static [u8],
    public_key_alg: &'static [u8],
    signature_alg: &'static [u8],
}

impl Sm2Sm3 {
    /// A certificate-signature form: the default ID with these AlgorithmIdentifiers.
    const fn certificate(public_key_alg: &'static [u8], signature_alg: &'static [u8]) -> Self {
        Sm2Sm3 {
            id: DEFAULT_ID,
            public_key_alg,
            signature_alg,
        }
    }
}

impl SignatureVerificationAlgorithm for Sm2Sm3 {
    fn verify_signature(
        &self,
        public_key: &[u8],
        message: &[u8],
        signature: &[u8],
    ) -> Result<(), InvalidSignature> {
        let signature = Signature::from_der(signature).map_err(|_| InvalidSignature)?;
        let key = KEYS.get(self.id, public_key).ok_or(InvalidSignature)?;
        key.verify(message, &signature)
            .map_err(|_| InvalidSignature)
    }

    fn public_key_alg_id(&self) -> AlgorithmIdentifier {
        AlgorithmIdentifier::from_slice(self.public_key_alg)
    }

    fn signature_alg_id(&self) -> AlgorithmIdentifier {
        AlgorithmIdentifier::from_slice(self.signature_alg)
    }
}

/// Certificate signatures: default ID, id-ecPublicKey SPKI, no parameters.
pub static CERT_SM2_SM3: Sm2Sm3 = Sm2Sm3::certificate(SPKI_EC_SM2, SIG_SM2_SM3);
/// Certificate signatures: default ID, id-ecPublicKey SPKI, NULL parameters.
pub static CERT_SM2_SM3_NULL: Sm2Sm3 = Sm2Sm3::certificate(SPKI_EC_SM2, SIG_SM2_SM3_NULL);
/// Certificate signatures: default ID, bare SM2 OID SPKI, no parameters.
pub static CERT_BARE_SM2_SM3: Sm2Sm3 = Sm2Sm3::certificate(SPKI_BARE_SM2, SIG_SM2_SM3);
/// Certificate signatures: default ID, bare SM2 OID SPKI, NULL parameters.
pub static CERT_BARE_SM2_SM3_NULL: Sm2Sm3 = Sm2Sm3::certificate(SPKI_BARE_SM2, SIG_SM2_SM3_NULL);
/// TLS 1.3 CertificateVerify: ID `TLSv1.3+GM+Cipher+Suite`, id-ecPublicKey SPKI.
pub static TLS13_SM2_SM3: Sm2Sm3 = Sm2Sm3 {
    id: TLS13_ID,
    public_key_alg: SPKI_EC_SM2,
    signature_alg: SIG_SM2_SM3,
};

/// What [`crate::provider()`] verifies: the four certificate forms, and sm2sig_sm3 for
/// handshake signatures.
pub static ALGORITHMS: WebPkiSupportedAlgorithms = WebPkiSupportedAlgorithms {
    all: &[
        &CERT_SM2_SM3,
        &CERT_SM2_SM3_NULL,
        &CERT_BARE_SM2_SM3,
        &CERT_BARE_SM2_SM3_NULL,
    ],
    mapping: &[(crate::sign::SM2_SM3, &[&TLS13_SM2_SM3])],
};

/// A verifier of servers' certificates (for a rustls client) on [`crate::provider()`],
/// trusting `roots` and checking revocation against `crls` (see the module documentation).
pub fn server_verifier(
    roots: Arc<RootCertStore>,
    crls: Vec<CertificateRevocationListDer<'static>>,
) -> Result<Arc<WebPkiServerVerifier>, VerifierBuilderError> {
    let mut builder =
        WebPkiServerVerifier::builder_with_provider(roots, Arc::new(crate::provider()));
    if !crls.is_empty() {
        builder = builder.with_crls(crls).enforce_revocation_expiration();
    }
    builder.build()
}

/// A verifier of clients' certificates (for a rustls server; a certificate is required) on
/// [`crate::provider()`], trusting `roots` and checking revocation against `crls` (see the
/// module documentation).
pub fn client_verifier(
    roots: Arc<RootCertStore>,
    crls: Vec<CertificateRevocationListDer<'static>>,
) -> Result<Arc<dyn ClientCertVerifier>, VerifierBuilderError> {
    let mut builder =
        WebPkiClientVerifier::builder_with_provider(roots, Arc::new(crate::provider()));
    if !crls.is_empty() {
        builder = builder.with_crls(crls).enforce_revocation_expiration();
    }
    builder.build()
}

/// Verification keys seen recently, so that the keys a process meets again and again (its
/// trust anchors, the servers it reconnects to, the clients it serves) are decoded and
/// hashed into Z_A once, and from their second use carry the 4 KiB table that makes SM2
/// verification about 2.4x as fast. Public data only; at most [`KeyCache::CAPACITY`] keys,
/// least recently used evicted.
struct KeyCache {
    entries: Mutex<Vec<CachedKey>>,
}

struct CachedKey {
    id: &'static [u8],
    point: Vec<u8>,
    key: Arc<VerifyingKey>,
    uses: u32,
}

static KEYS: KeyCache = KeyCache {
    entries: Mutex::new(Vec::new()),
};

impl KeyCache {
    const CAPACITY: usize = 16;

    /// The verification key for `point` (SEC1) with distinguishing ID `id`; `None` if the
    /// point is not a valid SM2 public key.
    fn get(&self, id: &'static [u8], point: &[u8]) -> Option<Arc<VerifyingKey>> {
        let hit = self.entries.lock().ok().and_then(|mut entries| {
            let i = entries
                .iter()
                .position(|e| e.id == id && e.point == point)?;
            let mut entry = entries.remove(i);
            entry.uses = entry.uses.saturating_add(1);
            let found = (entry.key.clone(), entry.uses);
            entries.insert(0, entry);
            Some(found)
        });
        match hit {
            Some((key, uses)) if uses == 2 && !key.is_precomputed() => {
                // The second use: build the table outside the lock, then keep it.
                let table = Arc::new((*key).clone().precomputed());
                if let Ok(mut entries) = self.entries.lock()
                    && let Some(e) = entries.iter_mut().find(|e| e.id == id && e.point == point)
                {
                    e.key = table.clone();
                }
                Some(table)
            }
            Some((key, _)) => Some(key),
            None => {
                let public = shangmi_sm2::keys::public_key_from_sec1(point).ok()?;
                let key = Arc::new(VerifyingKey::new_with_id(&public, id).ok()?);
                if let Ok(mut entries) = self.entries.lock() {
                    entries.truncate(Self::CAPACITY - 1);
                    entries.insert(
                        0,
                        CachedKey {
                            id,
                            point: point.to_vec(),
                            key: key.clone(),
                            uses: 1,
                        },
                    );
                }
                Some(key)
            }
        }
    }
}
