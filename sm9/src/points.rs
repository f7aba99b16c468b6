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

/// The coordinates `coords`, each 32 bytes big-endian, one after the other (`N` = 32 × their
/// number).
fn coords_to_bytes<const N: usize>(coords: &[&Fp]) -> [u8; N] {
    let mut out = [0u8; N];
    for (chunk, c) in out.chunks_exact_mut(32).zip(coords) {
        chunk.copy_from_slice(&c.to_bytes());
    }
    out
}

/// `K` coordinates below p from their 32·K-byte form (given as it is or as 0x04 || it).
fn coords_from_bytes<const K: usize>(b: &[u8]) -> Result<[Fp; K], Error> {
    let b = unprefixed(b, 32 * K)?;
    let mut out = [Fp::ZERO; K];
    for (c, chunk) in out.iter_mut().zip(b.chunks_exact(32)) {
        *c = fp(chunk)?;
    }
    Ok(out)
}

/// 64 bytes x || y.
pub(crate) fn g1_to_bytes(p: &Affine<Fp>) -> [u8; 64] {
    coords_to_bytes(&[&p.x, &p.y])
}

/// 0x04 || x || y.
pub(crate) fn g1_to_uncompressed(p: &Affine<Fp>) -> [u8; 65] {
    prefixed(&g1_to_bytes(p))
}

/// Parses x || y or 0x04 || x || y: coordinates below p and on the curve (G1 has
/// cofactor 1, so that is the whole group check).
pub(crate) fn g1_from_bytes(b: &[u8]) -> Result<Affine<Fp>, Error> {
    let [x, y] = coords_from_bytes(b)?;
    let p = Affine { x, y };
    if p.is_on_curve() {
        Ok(p)
    } else {
        Err(Error::InvalidPoint)
    }
}

/// 128 bytes x1 || x0 || y1 || y0.
pub(crate) fn g2_to_bytes(p: &Affine<Fp2>) -> [u8; 128] {
    coords_to_bytes(&[&p.x.c1, &p.x.c0, &p.y.c1, &p.y.c0])
}

/// 0x04 || x1 || x0 || y1 || y0.
pub(crate) fn g2_to_uncompressed(p: &Affine<Fp2>) -> [u8; 129] {
    prefixed(&g2_to_bytes(p))
}

/// Parses the 128-byte form or 0x04 || it: on the twist and in the order-N subgroup
/// (variable time: for public keys).
pub(crate) fn g2_from_bytes(b: &[u8]) -> Result<Affine<Fp2>, Error> {
    let [x1, x0, y1, y0] = coords_from_bytes(b)?;
    let p = Affine {
        x: Fp2::new(x0, x1),
        y: Fp2::new(y0, y1),
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
