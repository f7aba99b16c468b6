//! SM9 signatures (GM/T 0044-2016 part 2; GB/T 38635.2-2020).

use crate::curve::{Affine, G1, G2, P1, P2};
use crate::error::Error;
use crate::field::{Fn, Fp};
use crate::g1comb::G1Base;
use crate::hash::{h_n, h1};
use crate::pairing::{G2Prepared, GtBase, pairing_prepared, pairing_product2};
use crate::points::{
    g1_from_bytes, g1_to_bytes, g1_to_uncompressed, g2_from_bytes, g2_to_bytes, g2_to_uncompressed,
    random_scalar,
};
use crate::tower::Fp2;
use crate::{der, hid};
use rand_core::TryCryptoRng;

/// Extracts t2 = ks / (H1(ID || hid) + ks) mod N (GM/T 0044-2016 part 2, 5.2 / part 4,
/// 6.2), the scalar of every user private key. The inversion is Fermat's (constant time).
pub(crate) fn extract_scalar(master: &Fn, id: &[u8], hid: u8) -> Result<Fn, Error> {
    let t1 = h1(id, hid).add(master);
    if t1.is_zero() {
        return Err(Error::ExtractionFailed);
    }
    Ok(master.mul(&t1.invert()))
}

/// The signing master key pair of a key generation centre: ks and Ppub-s = ks·P2.
#[derive(Clone)]
pub struct SignMasterKey {
    ks: Fn,
    public: SignMasterPublicKey,
}

/// The signing master public key Ppub-s ∈ G2, with the pairing value g = e(P1, Ppub-s)
/// that signing and verification use (computed once), and the multiples of P1 that
/// verification and key extraction use (with `alloc`: a fixed-base table, about 78 KiB).
#[derive(Clone, Debug)]
pub struct SignMasterPublicKey {
    ppub: Affine<Fp2>,
    g: GtBase,
    p1: G1Base,
    /// The Miller-loop lines of Ppub-s and of P2, for verification's pairing product.
    prep_ppub: G2Prepared,
    prep_p2: G2Prepared,
}

/// A user's signing private key ds = t2·P1 ∈ G1 with the master public key, and (with
/// `alloc`) the multiples of ds that signing uses, a fixed-base table of about 78 KiB made
/// when the key is made (about 0.3 ms on an AMD Zen 3).
#[derive(Clone)]
pub struct SigningKey {
    ds: Affine<Fp>,
    ds_table: G1Base,
    master: SignMasterPublicKey,
}

/// What verifies a signer: the master public key and the signer's identity (and hid).
#[derive(Clone, Debug)]
pub struct VerifyingKey<'a> {
    master: &'a SignMasterPublicKey,
    id: &'a [u8],
    hid: u8,
}

/// An SM9 signature (h, S): h ∈ [1, N-1], S ∈ G1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signature {
    h: [u8; 32],
    s: Affine<Fp>,
}

impl SignMasterKey {
    master_key_constructors!("ks");

    #[cfg(feature = "zeroize")]
    pub(crate) fn ks_mut(&mut self) -> &mut Fn {
        &mut self.ks
    }

    fn from_scalar(ks: Fn) -> Self {
        let ppub = crate::pairing::g2_mul(&G2::from(P2), &ks.to_limbs()).to_affine();
        // ks ∈ [1, N-1] and P2 has order N, so ks·P2 is never the identity.
        let ppub = ppub.unwrap_or(P2);
        Self {
            ks,
            public: SignMasterPublicKey::from_point(ppub),
        }
    }

    master_key_accessors!(
        ks,
        SignMasterPublicKey,
        SigningKey,
        SIGN,
        "0x01",
        "signing key"
    );

    /// Extracts the signing key of `id` under a given hid.
    pub fn extract_with_hid(&self, id: &[u8], hid: u8) -> Result<SigningKey, Error> {
        let t2 = extract_scalar(&self.ks, id, hid)?;
        let ds = self
            .public
            .p1
            .mul(&t2.to_limbs())
            .to_affine()
            .ok_or(Error::ExtractionFailed)?;
        Ok(SigningKey::new(ds, &self.public))
    }

    /// DER as gmsm writes it: INTEGER ks.
    #[cfg(feature = "alloc")]
    pub fn to_der(&self) -> alloc::vec::Vec<u8> {
        der::write::key_uint(&self.ks.to_bytes())
    }

    /// Parses INTEGER ks (gmsm's form) or SEQUENCE { INTEGER ks, BIT STRING Ppub-s }
    /// (the form gmsm's parser also accepts), rejecting trailing data.
    pub fn from_der(input: &[u8]) -> Result<Self, Error> {
        let ks = if der::starts_sequence(input) {
            let (inner, rest) = der::read_sequence(input)?;
            let (ks, inner_rest) = der::read_uint32(inner)?;
            let key = Self::from_bytes(&ks)?;
            if !inner_rest.is_empty()
                && g2_from_bytes(der::point_key(inner_rest)?)? != key.public.ppub
            {
                return Err(Error::InvalidKey);
            }
            if !rest.is_empty() {
                return Err(Error::Encoding);
            }
            return Ok(key);
        } else {
            der::scalar_key(input)?
        };
        Self::from_bytes(&ks)
    }
}

impl SignMasterPublicKey {
    fn from_point(ppub: Affine<Fp2>) -> Self {
        let prep_ppub = G2Prepared::new(&ppub);
        let g = GtBase::new(pairing_prepared(&P1, &prep_ppub));
        Self {
            ppub,
            g,
            p1: G1Base::new(&G1::from(P1)),
            prep_ppub,
            prep_p2: G2Prepared::new(&P2),
        }
    }

    /// Parses Ppub-s: 128 bytes or 0x04 || 128 bytes; checks the point is in G2.
    pub fn from_bytes(b: &[u8]) -> Result<Self, Error> {
        Ok(Self::from_point(
            g2_from_bytes(b).map_err(|_| Error::InvalidKey)?,
        ))
    }

    /// Ppub-s as 0x04 || x || y (129 bytes).
    pub fn to_uncompressed(&self) -> [u8; 129] {
        g2_to_uncompressed(&self.ppub)
    }

    /// Ppub-s as x || y (128 bytes).
    pub fn to_bytes(&self) -> [u8; 128] {
        g2_to_bytes(&self.ppub)
    }

    /// DER as gmsm and GmSSL write it: BIT STRING 0x04 || x || y.
    #[cfg(feature = "alloc")]
    pub fn to_der(&self) -> alloc::vec::Vec<u8> {
        der::write::key_bit_string(&self.to_uncompressed())
    }

    /// Parses BIT STRING Ppub-s (or SEQUENCE { BIT STRING } as gmsm also accepts).
    pub fn from_der(input: &[u8]) -> Result<Self, Error> {
        Self::from_bytes(der::master_public_key(input)?)
    }

    /// The verifying key of `id` (hid 0x01).
    pub fn verifying_key<'a>(&'a self, id: &'a [u8]) -> VerifyingKey<'a> {
        VerifyingKey {
            master: self,
            id,
            hid: hid::SIGN,
        }
    }

    /// The verifying key of `id` under a given hid.
    pub fn verifying_key_with_hid<'a>(&'a self, id: &'a [u8], hid: u8) -> VerifyingKey<'a> {
        VerifyingKey {
            master: self,
            id,
            hid,
        }
    }

    /// Verifies (h, S) on `msg` by `id` with hid (GM/T 0044-2016 part 2, 7.2).
    /// Variable time: every input is public.
    pub fn verify(&self, id: &[u8], hid: u8, msg: &[u8], sig: &Signature) -> Result<(), Error> {
        let h = Fn::from_bytes_nonzero(&sig.h).ok_or(Error::Verification)?;
        // S is on the curve by construction of `Signature`. With P = h1·P2 + Ppub-s and
        // t = e(P1, Ppub-s)^h, w = e(S, P)·t = e(h1·S, P2)·e(S + h·P1, Ppub-s): one
        // pairing product over the two prepared G2 points.
        let h1 = h1(id, hid);
        let s = G1::from(sig.s);
        let a = s
            .mul_vartime(&h1.to_limbs())
            .to_affine()
            .ok_or(Error::Verification)?;
        let b = s.add(&self.p1.mul(&h.to_limbs()));
        let w = match b.to_affine() {
            Some(b) => pairing_product2(&a, &self.prep_p2, &b, &self.prep_ppub),
            None => pairing_prepared(&a, &self.prep_p2),
        };
        let h2 = h_n(0x02, &[msg, &w.to_bytes()]);
        if h2 == h {
            Ok(())
        } else {
            Err(Error::Verification)
        }
    }
}

impl SigningKey {
    #[cfg(feature = "zeroize")]
    pub(crate) fn ds_mut(&mut self) -> &mut Affine<Fp> {
        &mut self.ds
    }

    #[cfg(feature = "zeroize")]
    pub(crate) fn ds_table_mut(&mut self) -> &mut G1Base {
        &mut self.ds_table
    }

    fn new(ds: Affine<Fp>, master: &SignMasterPublicKey) -> Self {
        Self {
            ds,
            ds_table: G1Base::new(&G1::from(ds)),
            master: master.clone(),
        }
    }

    /// The signing key from its encoding ds (64 bytes or 0x04 || 64 bytes) and the
    /// master public key.
    pub fn from_bytes(ds: &[u8], master: &SignMasterPublicKey) -> Result<Self, Error> {
        let ds = g1_from_bytes(ds).map_err(|_| Error::InvalidKey)?;
        Ok(Self::new(ds, master))
    }

    user_key_encodings!(
        SignMasterPublicKey,
        ds,
        65,
        g1_to_uncompressed,
        "ds",
        " (gmsm's form)"
    );

    /// Signs with a random r (GM/T 0044-2016 part 2, 6.2).
    pub fn sign_with_rng<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        msg: &[u8],
    ) -> Result<Signature, Error> {
        loop {
            let r = random_scalar(rng)?;
            if let Some(sig) = self.sign_with_r(msg, &r) {
                return Ok(sig);
            }
        }
    }

    /// Signs with a given r; `None` when l = r - h is zero (choose another r).
    pub(crate) fn sign_with_r(&self, msg: &[u8], r: &Fn) -> Option<Signature> {
        let w = self.master.g.pow(&r.to_limbs());
        let h = h_n(0x02, &[msg, &w.to_bytes()]);
        let l = r.sub(&h);
        if l.is_zero() {
            return None;
        }
        let s = self.ds_table.mul(&l.to_limbs()).to_affine()?;
        Some(Signature { h: h.to_bytes(), s })
    }

    /// Test hook: signs with a fixed r given as bytes (for the standard's examples).
    #[doc(hidden)]
    pub fn sign_with_fixed_r(&self, msg: &[u8], r: &[u8; 32]) -> Result<Signature, Error> {
        let r = Fn::from_bytes_nonzero(r).ok_or(Error::InvalidArgument)?;
        self.sign_with_r(msg, &r).ok_or(Error::InvalidArgument)
    }
}

impl Signature {
    /// h as 32 big-endian bytes.
    pub fn h(&self) -> [u8; 32] {
        self.h
    }

    /// S as 0x04 || x || y.
    pub fn s_uncompressed(&self) -> [u8; 65] {
        g1_to_uncompressed(&self.s)
    }

    /// h || x(S) || y(S) (96 bytes).
    pub fn to_bytes(&self) -> [u8; 96] {
        let mut out = [0u8; 96];
        out[..32].copy_from_slice(&self.h);
        out[32..].copy_from_slice(&g1_to_bytes(&self.s));
        out
    }

    /// Parses h || S with S as 64 bytes or 0x04 || 64 bytes (S must be on the curve;
    /// h is range-checked by verification).
    pub fn from_bytes(b: &[u8]) -> Result<Self, Error> {
        if b.len() < 32 {
            return Err(Error::Encoding);
        }
        let (h, s) = b.split_at(32);
        let mut hb = [0u8; 32];
        hb.copy_from_slice(h);
        Ok(Self {
            h: hb,
            s: g1_from_bytes(s).map_err(|_| Error::Encoding)?,
        })
    }

    /// DER as GmSSL and gmsm write it: SEQUENCE { OCTET STRING h, BIT STRING 04||S }.
    #[cfg(feature = "alloc")]
    pub fn to_der(&self) -> alloc::vec::Vec<u8> {
        der::write::signature(&self.h, &self.s_uncompressed())
    }

    /// Parses the DER form (strict, no trailing data).
    pub fn from_der(input: &[u8]) -> Result<Self, Error> {
        let (inner, rest) = der::read_sequence(input)?;
        let (h, inner) = der::read_octet_string(inner)?;
        let (s, inner) = der::read_bit_string(inner)?;
        if !rest.is_empty() || !inner.is_empty() || h.len() != 32 || s.len() != 65 {
            return Err(Error::Encoding);
        }
        let mut hb = [0u8; 32];
        hb.copy_from_slice(h);
        Ok(Self {
            h: hb,
            s: g1_from_bytes(s).map_err(|_| Error::Encoding)?,
        })
    }
}

impl TryFrom<&[u8]> for Signature {
    type Error = signature::Error;
    fn try_from(b: &[u8]) -> Result<Self, signature::Error> {
        Self::from_bytes(b).map_err(|_| signature::Error::new())
    }
}

impl TryFrom<[u8; 96]> for Signature {
    type Error = signature::Error;
    fn try_from(b: [u8; 96]) -> Result<Self, signature::Error> {
        Self::try_from(&b[..])
    }
}

impl From<Signature> for [u8; 96] {
    fn from(s: Signature) -> [u8; 96] {
        s.to_bytes()
    }
}

impl signature::SignatureEncoding for Signature {
    type Repr = [u8; 96];
}

impl signature::RandomizedSigner<Signature> for SigningKey {
    fn try_sign_with_rng<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        msg: &[u8],
    ) -> Result<Signature, signature::Error> {
        self.sign_with_rng(rng, msg)
            .map_err(|_| signature::Error::new())
    }
}

impl signature::Verifier<Signature> for VerifyingKey<'_> {
    fn verify(&self, msg: &[u8], sig: &Signature) -> Result<(), signature::Error> {
        self.master
            .verify(self.id, self.hid, msg, sig)
            .map_err(|_| signature::Error::new())
    }
}

debug_name_only!(SignMasterKey, SigningKey);
