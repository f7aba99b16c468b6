//! Key exchange groups: curveSM2 (RFC 8998 §3.2.1: ECDHE on the SM2 curve, shares are
//! uncompressed points, the secret is the 32-byte x-coordinate) and curveSM2MLKEM768, its
//! hybrid with ML-KEM-768 (FIPS 203).
//!
//! The hybrid puts the classical part first, as SecP256r1MLKEM768 does
//! (draft-ietf-tls-ecdhe-mlkem): the client's share is its SM2 point (65 bytes) ‖ its ML-KEM
//! encapsulation key (1,184 bytes), the server's is its SM2 point (65) ‖ the ML-KEM
//! ciphertext (1,088), and the secret is the ECDH x-coordinate (32) ‖ the ML-KEM shared
//! secret (32). Tongsuo 8.5 offers it by default under the codepoint 0x11EE, and emmansun/gmsm
//! lays it out the same way. A client whose first group is the hybrid also offers its SM2 half
//! as a curveSM2 share (rustls' hybrid-component mechanism), so a server that knows only
//! curveSM2 needs no HelloRetryRequest.

use ml_kem::kem::{Decapsulate, KeyExport};
use ml_kem::{MlKem768, ml_kem_768};
use rustls::crypto::{
    ActiveKeyExchange, CompletedKeyExchange, SecureRandom, SharedSecret, SupportedKxGroup,
};
use rustls::{Error, NamedGroup, PeerMisbehaved, ProtocolVersion};
use shangmi_sm2::{SecretKey, ecdh};
use zeroize::Zeroize;

/// curveSM2 (0x0029).
pub const CURVE_SM2_ID: NamedGroup = NamedGroup::Unknown(0x0029);
/// curveSM2MLKEM768 (0x11EE).
pub const CURVE_SM2_MLKEM768_ID: NamedGroup = NamedGroup::Unknown(0x11ee);

/// Length of an uncompressed SM2 point (`04` ‖ x ‖ y).
const POINT_LEN: usize = 65;
/// ML-KEM-768 encapsulation key and ciphertext lengths (FIPS 203 Table 3).
const MLKEM768_EK_LEN: usize = 1184;
const MLKEM768_CT_LEN: usize = 1088;

/// ECDHE on the SM2 curve, TLS 1.3 only.
#[derive(Debug)]
pub struct CurveSm2 {
    random: &'static dyn SecureRandom,
}

/// curveSM2 + ML-KEM-768, TLS 1.3 only.
#[derive(Debug)]
pub struct CurveSm2MlKem768 {
    random: &'static dyn SecureRandom,
}

/// curveSM2 with the operating system's generator.
pub static CURVE_SM2: CurveSm2 = CurveSm2 {
    random: &crate::rand::OS_RANDOM,
};
/// curveSM2MLKEM768 with the operating system's generator.
pub static CURVE_SM2_MLKEM768: CurveSm2MlKem768 = CurveSm2MlKem768 {
    random: &crate::rand::OS_RANDOM,
};

/// Both groups, curveSM2 first: rustls sends a key share for its first group only, and
/// curveSM2 is the group RFC 8998 names (Tongsuo and GmSSL take it without a retry).
pub static ALL: &[&dyn SupportedKxGroup] = &[&CURVE_SM2, &CURVE_SM2_MLKEM768];

/// The two groups drawing from `random` (leaked: rustls keeps groups as `&'static`).
pub fn groups_with_random(random: &'static dyn SecureRandom) -> [&'static dyn SupportedKxGroup; 2] {
    [
        Box::leak(Box::new(CurveSm2 { random })),
        Box::leak(Box::new(CurveSm2MlKem768 { random })),
    ]
}

/// A fresh SM2 secret key from `random`: 32 bytes taken as a big-endian integer, drawn again
/// in the rare case (about 2^-32) that it is 0 or not below the group order.
fn ephemeral_sm2(random: &dyn SecureRandom) -> Result<SecretKey, Error> {
    let mut bytes = [0u8; 32];
    loop {
        random.fill(&mut bytes)?;
        let key = SecretKey::from_bytes(&bytes.into());
        bytes.zeroize();
        if let Ok(key) = key {
            return Ok(key);
        }
    }
}

/// x(d·Q) for the peer's share. RFC 8446 §4.2.8.2 allows only the uncompressed form, and
/// the point must lie on the curve: `diffie_hellman_sec1` checks both.
fn sm2_secret(secret: &SecretKey, share: &[u8]) -> Result<ecdh::SharedSecret, Error> {
    ecdh::diffie_hellman_sec1(secret, share).map_err(|_| PeerMisbehaved::InvalidKeyShare.into())
}

impl SupportedKxGroup for CurveSm2 {
    fn start(&self) -> Result<Box<dyn ActiveKeyExchange>, Error> {
        let secret = ephemeral_sm2(self.random)?;
        let public = ecdh::public_point_uncompressed(&secret);
        Ok(Box::new(Sm2Exchange { secret, public }))
    }

    fn name(&self) -> NamedGroup {
        CURVE_SM2_ID
    }

    fn usable_for_version(&self, version: ProtocolVersion) -> bool {
        version == ProtocolVersion::TLSv1_3
    }
}

/// A curveSM2 exchange under way.
struct Sm2Exchange {
    secret: SecretKey,
    public: [u8; POINT_LEN],
}

impl ActiveKeyExchange for Sm2Exchange {
    fn complete(self: Box<Self>, peer_pub_key: &[u8]) -> Result<SharedSecret, Error> {
        Ok(SharedSecret::from(
            &sm2_secret(&self.secret, peer_pub_key)?.as_bytes()[..],
        ))
    }

    fn pub_key(&self) -> &[u8] {
        &self.public
    }

    fn group(&self) -> NamedGroup {
        CURVE_SM2_ID
    }
}

impl SupportedKxGroup for CurveSm2MlKem768 {
    fn start(&self) -> Result<Box<dyn ActiveKeyExchange>, Error> {
        let secret = ephemeral_sm2(self.random)?;
        let mut seed = ml_kem::Seed::default();
        self.random.fill(&mut seed)?;
        let decap = ml_kem_768::DecapsulationKey::from_seed(seed);
        seed.zeroize();
        let mut share = Vec::with_capacity(POINT_LEN + MLKEM768_EK_LEN);
        share.extend_from_slice(&ecdh::public_point_uncompressed(&secret));
        share.extend_from_slice(&decap.encapsulation_key().to_bytes());
        Ok(Box::new(HybridExchange {
            secret,
            decap,
            share,
        }))
    }

    /// The server's side: ECDH against the client's point, ML-KEM encapsulation against its
    /// key, one share and one secret.
    fn start_and_complete(&self, client_share: &[u8]) -> Result<CompletedKeyExchange, Error> {
        if client_share.len() != POINT_LEN + MLKEM768_EK_LEN {
            return Err(PeerMisbehaved::InvalidKeyShare.into());
        }
        let (point, ek) = client_share.split_at(POINT_LEN);
        let ek = ml_kem::kem::Key::<ml_kem_768::EncapsulationKey>::try_from(ek)
            .map_err(|_| Error::from(PeerMisbehaved::InvalidKeyShare))?;
        // FIPS 203 §7.2: the encapsulation key's modulus check happens in `new`.
        let ek = ml_kem_768::EncapsulationKey::new(&ek)
            .map_err(|_| Error::from(PeerMisbehaved::InvalidKeyShare))?;
        let secret = ephemeral_sm2(self.random)?;
        let classical = sm2_secret(&secret, point)?;
        let mut m = ml_kem::B32::default();
        self.random.fill(&mut m)?;
        let (ct, pq) = ek.encapsulate_deterministic(&m);
        m.zeroize();

        let mut pub_key = Vec::with_capacity(POINT_LEN + MLKEM768_CT_LEN);
        pub_key.extend_from_slice(&ecdh::public_point_uncompressed(&secret));
        pub_key.extend_from_slice(&ct);
        Ok(CompletedKeyExchange {
            group: CURVE_SM2_MLKEM768_ID,
            pub_key,
            secret: hybrid_secret(classical.as_bytes(), &pq),
        })
    }

    fn name(&self) -> NamedGroup {
        CURVE_SM2_MLKEM768_ID
    }

    fn usable_for_version(&self, version: ProtocolVersion) -> bool {
        version == ProtocolVersion::TLSv1_3
    }
}

/// The secret x(ECDH) ‖ K(ML-KEM), built in one buffer that `SharedSecret` wipes on drop.
fn hybrid_secret(classical: &[u8; 32], pq: &[u8]) -> SharedSecret {
    let mut secret = Vec::with_capacity(64);
    secret.extend_from_slice(classical);
    secret.extend_from_slice(pq);
    SharedSecret::from(secret)
}

/// A client's curveSM2MLKEM768 exchange under way.
struct HybridExchange {
    secret: SecretKey,
    decap: ml_kem_768::DecapsulationKey,
    share: Vec<u8>,
}

impl ActiveKeyExchange for HybridExchange {
    fn complete(self: Box<Self>, server_share: &[u8]) -> Result<SharedSecret, Error> {
        if server_share.len() != POINT_LEN + MLKEM768_CT_LEN {
            return Err(PeerMisbehaved::InvalidKeyShare.into());
        }
        let (point, ct) = server_share.split_at(POINT_LEN);
        let classical = sm2_secret(&self.secret, point)?;
        let ct = ml_kem::Ciphertext::<MlKem768>::try_from(ct)
            .map_err(|_| Error::from(PeerMisbehaved::InvalidKeyShare))?;
        let pq = self.decap.decapsulate(&ct);
        Ok(hybrid_secret(classical.as_bytes(), &pq))
    }

    fn hybrid_component(&self) -> Option<(NamedGroup, &[u8])> {
        Some((CURVE_SM2_ID, &self.share[..POINT_LEN]))
    }

    fn complete_hybrid_component(
        self: Box<Self>,
        peer_pub_key: &[u8],
    ) -> Result<SharedSecret, Error> {
        Ok(SharedSecret::from(
            &sm2_secret(&self.secret, peer_pub_key)?.as_bytes()[..],
        ))
    }

    fn pub_key(&self) -> &[u8] {
        &self.share
    }

    fn group(&self) -> NamedGroup {
        CURVE_SM2_MLKEM768_ID
    }
}
