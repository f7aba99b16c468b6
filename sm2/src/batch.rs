//! Many independent operations at once: signature verifications (a CA, a gateway or a log
//! checking many signatures) and ECDH shared secrets (a TLS/TLCP terminator's handshakes).
//!
//! Items are taken eight at a time. On x86-64 CPUs with AVX-512 IFMA (the "SM2 lanes"
//! backend `lanes-ifma`, picked by `shangmi-dispatch` at run time) each group of eight runs
//! as one eight-lane scalar multiplication: one AVX-512 field product serves all eight
//! items. A last group of fewer than eight, and every group on other CPUs or in builds that
//! force another backend, runs one item at a time on the ordinary paths. The answers are
//! the same either way, item by item.
//!
//! Results come per item, in input order: a batch says *which* signatures fail, not just
//! whether all pass, and a bad peer key fails its own item with a typed error
//! ([`Error::InvalidPoint`]) while the others go on. Nothing here panics on input.
//!
//! The `*_into` functions write into a slice the caller gives (no allocation: `no_std`
//! builds have them); with the `alloc` feature [`verify`] and [`diffie_hellman`] return a
//! `Vec`.
//!
//! Timing: verification handles public data only and may take data-dependent time (today
//! its lanes happen to be constant time; the first checks, the scalar remainder and the
//! final comparison are not). ECDH is constant time in the secret keys, as
//! [`crate::ecdh::diffie_hellman_sec1`] is: its lanes scan every entry of every lane's
//! table, and which items are valid (public) is the only thing that steers a branch.
//!
//! ```
//! use shangmi_sm2::{Error, SecretKey, batch, ecdh};
//! use shangmi_sm2::dsa::{Signature, SigningKey, VerifyingKey};
//! use shangmi_sm2::signature::Signer;
//!
//! // Ten signatures by ten keys, the seventh over another message.
//! let signers: Vec<SigningKey> = (1..=10u8)
//!     .map(|i| SigningKey::from_bytes(&[i; 32].into()))
//!     .collect::<Result<_, _>>()?;
//! let keys: Vec<VerifyingKey> = signers.iter().map(|s| s.verifying_key().clone()).collect();
//! let sigs: Vec<Signature> = signers
//!     .iter()
//!     .enumerate()
//!     .map(|(i, s)| s.sign(if i == 6 { &b"forged"[..] } else { b"hello" }))
//!     .collect();
//! let items: Vec<(&VerifyingKey, &[u8], &Signature)> = keys
//!     .iter()
//!     .zip(&sigs)
//!     .map(|(k, s)| (k, &b"hello"[..], s))
//!     .collect();
//! let results = batch::verify(&items);
//! for (i, r) in results.iter().enumerate() {
//!     assert_eq!(r.is_err(), i == 6);
//! }
//!
//! // ECDH: one secret per peer key share (uncompressed SEC1), a bad share fails alone.
//! let secret = |i: u8| SecretKey::from_bytes(&[i; 32].into()).map_err(|_| Error::InvalidSecretKey);
//! let secrets: Vec<SecretKey> = (1..=9).map(secret).collect::<Result<_, _>>()?;
//! let mut shares: Vec<[u8; 65]> = (11..=19)
//!     .map(|i| Ok(ecdh::public_point_uncompressed(&secret(i)?)))
//!     .collect::<Result<_, Error>>()?;
//! shares[3][64] ^= 1; // off the curve
//! let pairs: Vec<(&SecretKey, &[u8])> =
//!     secrets.iter().zip(&shares).map(|(s, p)| (s, &p[..])).collect();
//! let shared = batch::diffie_hellman(&pairs);
//! assert_eq!(shared[3].as_ref().err(), Some(&Error::InvalidPoint));
//! assert_eq!(
//!     shared[0].as_ref().unwrap().as_bytes(),
//!     ecdh::diffie_hellman_sec1(&secrets[0], &shares[0])?.as_bytes()
//! );
//! # Ok::<(), Error>(())
//! ```

use crate::arith::lanes::{mul_ct_many, mul_g_add_many};
use crate::arith::limbs::Limbs;
use crate::arith::point::{Affine, Jacobian};
use crate::dsa::{Signature, VerifyingKey, verify_point, verify_scalars};
use crate::ecdh::{SharedSecret, peer_point};
use crate::{Error, Scalar, SecretKey};
use zeroize::Zeroize;

/// Items per group: the lanes of the eight-lane backend.
const LANES: usize = 8;

/// Checks each signature against its key and message (e = SM3(Z_A ‖ M) with the key's
/// identifier, as [`VerifyingKey`]'s `Verifier` impl computes it), writing `out[i]`:
/// `Ok(())` or [`Error::Verification`]. Fails with [`Error::BatchLength`] (writing
/// nothing) unless `out` is as long as `items`.
///
/// Keys may repeat or all differ. Items whose key is
/// [`precomputed`](VerifyingKey::precomputed) are checked one by one with its table (faster
/// than a lane); the others fill the groups of eight, in input order.
pub fn verify_into(
    items: &[(&VerifyingKey, &[u8], &Signature)],
    out: &mut [Result<(), Error>],
) -> Result<(), Error> {
    verify_with(
        items,
        out,
        |(key, msg, _)| key.hash_message(msg),
        |i| (i.0, i.2),
    )
}

/// [`verify_into`] over prehashed messages: e = SM3(Z_A ‖ M), 32 bytes, as
/// [`VerifyingKey::verify_e`] takes it.
pub fn verify_prehash_into(
    items: &[(&VerifyingKey, &[u8; 32], &Signature)],
    out: &mut [Result<(), Error>],
) -> Result<(), Error> {
    verify_with(items, out, |(_, e, _)| **e, |i| (i.0, i.2))
}

/// [`verify_into`] into a new vector.
#[cfg(feature = "alloc")]
pub fn verify(items: &[(&VerifyingKey, &[u8], &Signature)]) -> alloc::vec::Vec<Result<(), Error>> {
    let mut out = alloc::vec![Ok(()); items.len()];
    // The lengths agree by construction.
    let _ = verify_into(items, &mut out);
    out
}

/// The verification driver: items whose key is precomputed go one by one through their
/// table, the others in groups of eight; each item's e by `hash`, its key and signature by
/// `parts`.
fn verify_with<T>(
    items: &[T],
    out: &mut [Result<(), Error>],
    hash: impl Fn(&T) -> [u8; 32],
    parts: impl Fn(&T) -> (&VerifyingKey, &Signature),
) -> Result<(), Error> {
    if out.len() != items.len() {
        return Err(Error::BatchLength);
    }
    let mut group = [0usize; LANES];
    let mut n = 0;
    for (i, item) in items.iter().enumerate() {
        let (key, sig) = parts(item);
        if key.is_precomputed() {
            out[i] = key.verify_e(&hash(item), sig);
            continue;
        }
        group[n] = i;
        n += 1;
        if n == LANES {
            verify_group(items, &group, out, &hash, &parts);
            n = 0;
        }
    }
    verify_group(items, &group[..n], out, &hash, &parts);
    Ok(())
}

/// Verifies `items[i]` for each index i of `group` (at most eight) into `out[i]`: eight
/// lanes for a full group where the CPU has them, one by one otherwise.
fn verify_group<T>(
    items: &[T],
    group: &[usize],
    out: &mut [Result<(), Error>],
    hash: &impl Fn(&T) -> [u8; 32],
    parts: &impl Fn(&T) -> (&VerifyingKey, &Signature),
) {
    let n = group.len();
    let mut u1 = [[0u64; 4]; LANES];
    let mut u2 = [[0u64; 4]; LANES];
    let mut q = [Affine::generator(); LANES];
    let mut r = [Scalar::from_canonical(&[0; 4]); LANES];
    let mut early = [Ok(()); LANES];
    for (lane, &i) in group.iter().enumerate() {
        let (key, sig) = parts(&items[i]);
        q[lane] = *key.point();
        // A lane whose signature fails B5 computes 0·G + 0·Q, which is not looked at.
        match verify_scalars(sig) {
            Ok((ri, s, t)) => (r[lane], u1[lane], u2[lane]) = (ri, s, t),
            Err(e) => early[lane] = Err(e),
        }
    }
    let mut p = [Jacobian::INFINITY; LANES];
    mul_g_add_many(&u1[..n], &u2[..n], &q[..n], &mut p[..n]);
    for (lane, &i) in group.iter().enumerate() {
        out[i] = early[lane].and_then(|()| verify_point(&p[lane], &r[lane], &hash(&items[i])));
    }
}

/// x(d·Q) for each pair of a secret key d and a peer's point Q given as uncompressed SEC1
/// bytes (`04` ‖ x ‖ y, a TLS 1.3 / TLCP key share), writing `out[i]`: the shared secret,
/// or [`Error::InvalidPoint`] for a malformed or off-curve point (checked as
/// [`crate::ecdh::diffie_hellman_sec1`] checks it; the same secrets as it gives). Fails
/// with [`Error::BatchLength`] (writing nothing) unless `out` is as long as `pairs`.
///
/// Independent pairs, rather than one secret against many points, because that is what a
/// server terminating many handshakes holds: one ephemeral secret per connection. A
/// caller with one static secret and many peers passes the same key in every pair.
pub fn diffie_hellman_into(
    pairs: &[(&SecretKey, &[u8])],
    out: &mut [Result<SharedSecret, Error>],
) -> Result<(), Error> {
    if out.len() != pairs.len() {
        return Err(Error::BatchLength);
    }
    for (pairs, out) in pairs.chunks(LANES).zip(out.chunks_mut(LANES)) {
        let n = pairs.len();
        let mut k: [Limbs; LANES] = [[1, 0, 0, 0]; LANES];
        let mut q = [Affine::generator(); LANES];
        let mut ok = [false; LANES];
        for (i, (secret, peer)) in pairs.iter().enumerate() {
            // A lane whose peer is invalid computes 1·G (public), not looked at.
            if let Ok(p) = peer_point(peer) {
                q[i] = p;
                k[i] = crate::curve::scalar_to_limbs(&secret.to_nonzero_scalar());
                ok[i] = true;
            }
        }
        // d in [1, n-1] and Q of prime order: no lane is the identity, which the
        // inversion shared by the eight needs.
        let mut p = [Affine::generator().to_jacobian(); LANES];
        mul_ct_many(&k[..n], &q[..n], &mut p[..n]);
        k.zeroize();
        let a = Jacobian::batch_to_affine(&p);
        for (i, o) in out.iter_mut().enumerate() {
            *o = if ok[i] {
                Ok(SharedSecret::new(a[i].x.to_be_bytes()))
            } else {
                Err(Error::InvalidPoint)
            };
        }
    }
    Ok(())
}

/// [`diffie_hellman_into`] into a new vector.
#[cfg(feature = "alloc")]
pub fn diffie_hellman(
    pairs: &[(&SecretKey, &[u8])],
) -> alloc::vec::Vec<Result<SharedSecret, Error>> {
    let mut out = alloc::vec![Err(Error::InvalidPoint); pairs.len()];
    // The lengths agree by construction.
    let _ = diffie_hellman_into(pairs, &mut out);
    out
}
