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
use shangmi_sm2::{SecretKey, ecdh, keys::KeyPool};
use std::sync::{Mutex, PoisonError};
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
    pool: Option<&'static SharedPool>,
}

/// curveSM2 + ML-KEM-768, TLS 1.3 only.
#[derive(Debug)]
pub struct CurveSm2MlKem768 {
    random: &'static dyn SecureRandom,
    pool: Option<&'static SharedPool>,
}

/// curveSM2 with the operating system's generator, ephemeral keys from [`OS_POOL`].
pub static CURVE_SM2: CurveSm2 = CurveSm2 {
    random: &crate::rand::OS_RANDOM,
    pool: Some(&OS_POOL),
};
/// curveSM2MLKEM768 with the operating system's generator, its SM2 half from [`OS_POOL`].
pub static CURVE_SM2_MLKEM768: CurveSm2MlKem768 = CurveSm2MlKem768 {
    random: &crate::rand::OS_RANDOM,
    pool: Some(&OS_POOL),
};

/// Both groups, curveSM2 first: rustls sends a key share for its first group only, and
/// curveSM2 is the group RFC 8998 names (Tongsuo and GmSSL take it without a retry).
pub static ALL: &[&dyn SupportedKxGroup] = &[&CURVE_SM2, &CURVE_SM2_MLKEM768];

/// The two groups drawing from `random` (leaked: rustls keeps groups as `&'static`). They
/// make each ephemeral key on its own, from one 32-byte draw, so a seeded generator replays
/// the same handshakes; the default groups take theirs from [`OS_POOL`].
pub fn groups_with_random(random: &'static dyn SecureRandom) -> [&'static dyn SupportedKxGroup; 2] {
    [
        Box::leak(Box::new(CurveSm2 { random, pool: None })),
        Box::leak(Box::new(CurveSm2MlKem768 { random, pool: None })),
    ]
}

/// Ephemeral SM2 key pairs made [`KeyPool::BATCH`] at a time with one shared inversion,
/// for the default groups: a key share then costs one fixed-base multiplication and 1/32 of
/// an inversion instead of a whole one (key generation about 1.26x as fast). Each pair is
/// handed out once. The pool is refilled outside the lock, so threads wait for each other
/// only to take a pair, and it is dropped when the process id changes, so a child process
/// after `fork` never reuses its parent's keys.
#[derive(Debug)]
pub struct SharedPool(Mutex<Option<(u32, Box<KeyPool>)>>);

/// The pool of the default groups.
pub static OS_POOL: SharedPool = SharedPool(Mutex::new(None));

impl SharedPool {
    /// The next pair: the secret and its uncompressed share.
    fn take(&self, random: &dyn SecureRandom) -> Result<(SecretKey, [u8; POINT_LEN]), Error> {
        self.take_in(std::process::id(), random)
    }

    /// [`Self::take`] in the process `pid`.
    fn take_in(
        &self,
        pid: u32,
        random: &dyn SecureRandom,
    ) -> Result<(SecretKey, [u8; POINT_LEN]), Error> {
        let mut rng = crate::rand::RandCore(random);
        {
            let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some((owner, pool)) = slot.as_mut()
                && *owner == pid
                && pool.available() > 0
            {
                return pool.take_ecdh(&mut rng).map_err(rng_error);
            }
        }
        let mut fresh = Box::new(KeyPool::new());
        fresh.refill(&mut rng).map_err(rng_error)?;
        let pair = fresh.take_ecdh(&mut rng).map_err(rng_error)?;
        let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        match slot.as_ref() {
            Some((owner, pool)) if *owner == pid && pool.available() > 0 => {}
            _ => *slot = Some((pid, fresh)),
        }
        Ok(pair)
    }
}

/// A key pool's only failure is its generator's.
fn rng_error(_: shangmi_sm2::Error) -> Error {
    Error::FailedToGetRandomBytes
}

/// A fresh SM2 key pair: from `pool` if there is one, else from `random`: 32 bytes taken as
/// a big-endian integer, drawn again in the rare case (about 2^-32) that it is 0 or not
/// below the group order.
fn ephemeral_sm2(
    random: &dyn SecureRandom,
    pool: Option<&SharedPool>,
) -> Result<(SecretKey, [u8; POINT_LEN]), Error> {
    if let Some(pool) = pool {
        return pool.take(random);
    }
    let mut bytes = [0u8; 32];
    let secret = loop {
        random.fill(&mut bytes)?;
        let key = SecretKey::from_bytes(&bytes.into());
        bytes.zeroize();
        if let Ok(key) = key {
            break key;
        }
    };
    let public = ecdh::public_point_uncompressed(&secret);
    Ok((secret, public))
}

/// x(d·Q) for the peer's share. RFC 8446 §4.2.8.2 allows only the uncompressed form, and
/// the point must lie on the curve: `diffie_hellman_sec1` checks both.
fn sm2_secret(secret: &SecretKey, share: &[u8]) -> Result<ecdh::SharedSecret, Error> {
    ecdh::diffie_hellman_sec1(secret, share).map_err(|_| PeerMisbehaved::InvalidKeyShare.into())
}

/// [`sm2_secret`] as rustls' shared secret: curveSM2's, and the hybrid's SM2 component.
fn sm2_shared(secret: &SecretKey, share: &[u8]) -> Result<SharedSecret, Error> {
    Ok(SharedSecret::from(
        &sm2_secret(secret, share)?.as_bytes()[..],
    ))
}

impl SupportedKxGroup for CurveSm2 {
    fn start(&self) -> Result<Box<dyn ActiveKeyExchange>, Error> {
        let (secret, public) = ephemeral_sm2(self.random, self.pool)?;
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
        sm2_shared(&self.secret, peer_pub_key)
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
        let (secret, point) = ephemeral_sm2(self.random, self.pool)?;
        let mut seed = ml_kem::Seed::default();
        self.random.fill(&mut seed)?;
        let decap = ml_kem_768::DecapsulationKey::from_seed(seed);
        seed.zeroize();
        let mut share = Vec::with_capacity(POINT_LEN + MLKEM768_EK_LEN);
        share.extend_from_slice(&point);
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
        let (secret, own_point) = ephemeral_sm2(self.random, self.pool)?;
        let classical = sm2_secret(&secret, point)?;
        let mut m = ml_kem::B32::default();
        self.random.fill(&mut m)?;
        let (ct, pq) = ek.encapsulate_deterministic(&m);
        m.zeroize();

        let mut pub_key = Vec::with_capacity(POINT_LEN + MLKEM768_CT_LEN);
        pub_key.extend_from_slice(&own_point);
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
        sm2_shared(&self.secret, peer_pub_key)
    }

    fn pub_key(&self) -> &[u8] {
        &self.share
    }

    fn group(&self) -> NamedGroup {
        CURVE_SM2_MLKEM768_ID
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A generator that always fails.
    #[derive(Debug)]
    struct Failing;

    impl SecureRandom for Failing {
        fn fill(&self, _: &mut [u8]) -> Result<(), rustls::crypto::GetRandomFailed> {
            Err(rustls::crypto::GetRandomFailed)
        }
    }

    /// What is left in the pool for `pid`.
    fn left(pool: &SharedPool, pid: u32) -> Option<usize> {
        let slot = pool.0.lock().unwrap_or_else(PoisonError::into_inner);
        slot.as_ref()
            .filter(|(owner, _)| *owner == pid)
            .map(|(_, p)| p.available())
    }

    #[test]
    fn the_pool_hands_out_distinct_valid_pairs_and_refills() {
        let pool = SharedPool(Mutex::new(None));
        let mut seen = std::collections::HashSet::new();
        for i in 0..KeyPool::BATCH + 3 {
            let (secret, share) = pool.take_in(7, &crate::rand::OS_RANDOM).unwrap();
            assert_eq!(share, ecdh::public_point_uncompressed(&secret), "pair {i}");
            assert!(seen.insert(secret.to_bytes()), "pair {i} repeats a secret");
            let expected = (KeyPool::BATCH - 1 - i % KeyPool::BATCH) % KeyPool::BATCH;
            assert_eq!(left(&pool, 7), Some(expected), "after pair {i}");
        }
    }

    #[test]
    fn another_process_gets_a_fresh_pool() {
        let pool = SharedPool(Mutex::new(None));
        let (parent, _) = pool.take_in(7, &crate::rand::OS_RANDOM).unwrap();
        // A forked child (another pid) never takes what is left of its parent's batch.
        let (child, _) = pool.take_in(8, &crate::rand::OS_RANDOM).unwrap();
        assert_ne!(parent.to_bytes(), child.to_bytes());
        assert_eq!(left(&pool, 7), None);
        assert_eq!(left(&pool, 8), Some(KeyPool::BATCH - 1));
    }

    #[test]
    fn a_failing_generator_is_an_error() {
        let pool = SharedPool(Mutex::new(None));
        assert_eq!(
            pool.take_in(7, &Failing).err(),
            Some(Error::FailedToGetRandomBytes)
        );
        assert_eq!(left(&pool, 7), None);
    }
}
