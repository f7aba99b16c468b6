//! Byte encodings of G1/G2 points and scalars (GM/T 0044-2016 part 1, 6.2 as GmSSL and
//! gmsm write them: coordinates big-endian, an F_p² element as (u-part, 1-part), an
//! optional 0x04 prefix for the uncompressed form).

use crate::curve::{Affine, G1, G2};
use crate::error::Error;
use crate::field::{Fn, Fp};
use crate::tower::Fp2;
use rand_core::TryCryptoRng;

fn fp(b: &[u8]) -> Result<Fp, Error> {
    let a: &[u8; 32] = b.try_into().map_err(|_| Error::InvalidPoint)?;
    Fp::from_bytes(a).ok_or(Error::InvalidPoint)
}

/// 0x04 || `body` (`N` = 1 + its length).
fn prefixed<const N: usize>(body: &[u8]) -> [u8; N] {
    let mut out = [4u8; N];
    out[1..].copy_from_slice(body);
    out
}

/// The `n`-byte form in `b`, given as it is or as 0x04 || it.
fn unprefixed(b: &[u8], n: usize) -> Result<&[u8], Error> {
    match b.len() {
        l if l == n => Ok(b),
        l if l == n + 1 && b[0] == 4 => Ok(&b[1..]),
        _ => Err(Error::InvalidPoint),
    }
}

/// 64 bytes x || y.
pub(crate) fn g1_to_bytes(p: &Affine<Fp>) -> [u8; 64] {
    let mut out = [0u8; 64];
    out[..32].copy_from_slice(&p.x.to_bytes());
    out[32..].copy_from_slice(&p.y.to_bytes());
    out
}

/// 0x04 || x || y.
pub(crate) fn g1_to_uncompressed(p: &Affine<Fp>) -> [u8; 65] {
    prefixed(&g1_to_bytes(p))
}

/// Parses x || y or 0x04 || x || y: coordinates below p and on the curve (G1 has
/// cofactor 1, so that is the whole group check).
pub(crate) fn g1_from_bytes(b: &[u8]) -> Result<Affine<Fp>, Error> {
    let b = unprefixed(b, 64)?;
    let p = Affine {
        x: fp(&b[..32])?,
        y: fp(&b[32..])?,
    };
    if p.is_on_curve() {
        Ok(p)
    } else {
        Err(Error::InvalidPoint)
    }
}

/// 128 bytes x1 || x0 || y1 || y0.
pub(crate) fn g2_to_bytes(p: &Affine<Fp2>) -> [u8; 128] {
    let mut out = [0u8; 128];
    out[..32].copy_from_slice(&p.x.c1.to_bytes());
    out[32..64].copy_from_slice(&p.x.c0.to_bytes());
    out[64..96].copy_from_slice(&p.y.c1.to_bytes());
    out[96..].copy_from_slice(&p.y.c0.to_bytes());
    out
}

/// 0x04 || x1 || x0 || y1 || y0.
pub(crate) fn g2_to_uncompressed(p: &Affine<Fp2>) -> [u8; 129] {
    prefixed(&g2_to_bytes(p))
}

/// Parses the 128-byte form or 0x04 || it: on the twist and in the order-N subgroup
/// (variable time: for public keys).
pub(crate) fn g2_from_bytes(b: &[u8]) -> Result<Affine<Fp2>, Error> {
    let b = unprefixed(b, 128)?;
    let p = Affine {
        x: Fp2::new(fp(&b[32..64])?, fp(&b[..32])?),
        y: Fp2::new(fp(&b[96..])?, fp(&b[64..96])?),
    };
    if !p.is_on_curve() || !G2::from(p).mul_ct(&Fn::MODULUS).is_identity() {
        return Err(Error::InvalidPoint);
    }
    Ok(p)
}

/// k·P1 (constant time).
pub(crate) fn g1_mul_base(k: &Fn) -> G1 {
    G1::from(crate::curve::P1).mul_ct(&k.to_limbs())
}

/// A uniformly random scalar in [1, N-1] by rejection sampling.
pub(crate) fn random_scalar<R: TryCryptoRng + ?Sized>(rng: &mut R) -> Result<Fn, Error> {
    loop {
        let mut b = [0u8; 32];
        rng.try_fill_bytes(&mut b).map_err(|_| Error::Rng)?;
        if let Some(k) = Fn::from_bytes_nonzero(&b) {
            return Ok(k);
        }
    }
}
