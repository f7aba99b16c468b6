//! SM9 key encapsulation and public-key encryption (GM/T 0044-2016 part 4; GB/T
//! 38635.2-2020), in the XOR stream mode and, for compatibility with gmsm, its SM4-CBC
//! mode.

use crate::curve::{Affine, G1, G2, P2};
use crate::error::Error;
use crate::field::{Fn, Fp};
use crate::g1comb::G1Base;
use crate::hash::h1;
use crate::pairing::{G2Prepared, GtBase, pairing, pairing_prepared};
use crate::points::{
    g1_from_bytes, g1_mul_base, g1_to_bytes, g1_to_uncompressed, g2_from_bytes, g2_to_uncompressed,
    random_scalar,
};
use crate::sign::extract_scalar;
use crate::tower::{Fp2, Fp12};
use crate::{der, hid};
use rand_core::TryCryptoRng;
use shangmi_sm3::{Digest, Sm3};

/// The encryption master key pair of a key generation centre: ke and Ppub-e = ke·P1.
/// It also serves key exchange (hid 0x02).
#[derive(Clone)]
pub struct EncryptMasterKey {
    ke: Fn,
    public: EncryptMasterPublicKey,
}

/// The encryption master public key Ppub-e ∈ G1 with g = e(Ppub-e, P2) (computed once),
/// and the multiples of P1 and of Ppub-e that encryption uses (with `alloc`: two
/// fixed-base tables, about 78 KiB each, made with the key).
#[derive(Clone, Debug)]
pub struct EncryptMasterPublicKey {
    pub(crate) ppub: Affine<Fp>,
    pub(crate) g: GtBase,
    p1: G1Base,
    ppub_table: G1Base,
}

/// A recipient's Q = H1(ID || hid)·P1 + Ppub-e, kept as its h1 (public data): r·Q is then
/// (r·h1)·P1 + r·Ppub-e, two fixed-base multiplications. `user_point` checks that Q is not
/// the identity; `user_point_unchecked` leaves that to its caller.
pub(crate) struct UserPoint {
    h1: Fn,
}

/// A user's encryption (or key exchange) private key de = t2·P2 ∈ G2, with the master
/// public key.
#[derive(Clone)]
pub struct EncryptPrivateKey {
    pub(crate) de: Affine<Fp2>,
    /// The Miller-loop lines of de (about 16 KB), computed once.
    pub(crate) prep: G2Prepared,
    pub(crate) master: EncryptMasterPublicKey,
}

/// The length of C1 || C3 in the raw ciphertext (C2 follows).
pub const CIPHERTEXT_OVERHEAD: usize = 64 + 32;

/// A KDF output stream: SM3(Z || ct) for ct = 1, 2, … with Z absorbed once.
struct KdfStream {
    base: Sm3,
    ct: u32,
    buf: [u8; 32],
    pos: usize,
}

impl KdfStream {
    fn new(z: &[&[u8]]) -> Self {
        let mut base = Sm3::new();
        for part in z {
            base.update(part);
        }
        Self {
            base,
            ct: 0,
            buf: [0; 32],
            pos: 32,
        }
    }

    fn fill(&mut self, out: &mut [u8]) {
        for b in out {
            if self.pos == 32 {
                self.ct += 1;
                let mut h = self.base.clone();
                h.update(self.ct.to_be_bytes());
                self.buf = h.finalize().into();
                self.pos = 0;
            }
            *b = self.buf[self.pos];
            self.pos += 1;
        }
    }
}

/// Constant-time all-zero test.
fn all_zero(b: &[u8]) -> bool {
    let acc = b.iter().fold(0u8, |a, &x| a | x);
    shangmi_dispatch::ct::opaque_const(acc) == 0
}

pub(crate) use shangmi_dispatch::ct::eq as ct_eq;

impl EncryptMasterKey {
    master_key_constructors!("ke");

    #[cfg(feature = "zeroize")]
    pub(crate) fn ke_mut(&mut self) -> &mut Fn {
        &mut self.ke
    }

    fn from_scalar(ke: Fn) -> Self {
        // ke ∈ [1, N-1]: never the identity.
        let ppub = g1_mul_base(&ke).to_affine().unwrap_or(crate::curve::P1);
        Self {
            ke,
            public: EncryptMasterPublicKey::from_point(ppub),
        }
    }

    master_key_accessors!(
        ke,
        EncryptMasterPublicKey,
        EncryptPrivateKey,
        ENCRYPT,
        "0x03",
        "encryption key"
    );

    /// Extracts the private key of `id` under a given hid (0x02 for key exchange).
    pub fn extract_with_hid(&self, id: &[u8], hid: u8) -> Result<EncryptPrivateKey, Error> {
        let t2 = extract_scalar(&self.ke, id, hid)?;
        let de = crate::pairing::g2_mul(&G2::from(P2), &t2.to_limbs())
            .to_affine()
            .ok_or(Error::ExtractionFailed)?;
        Ok(EncryptPrivateKey {
            de,
            prep: G2Prepared::new(&de),
            master: self.public.clone(),
        })
    }

    /// DER as gmsm writes it: INTEGER ke.
    #[cfg(feature = "alloc")]
    pub fn to_der(&self) -> alloc::vec::Vec<u8> {
        der::write::key_uint(&self.ke.to_bytes())
    }

    /// Parses INTEGER ke, rejecting trailing data.
    pub fn from_der(input: &[u8]) -> Result<Self, Error> {
        Self::from_bytes(&der::scalar_key(input)?)
    }
}

impl EncryptMasterPublicKey {
    fn from_point(ppub: Affine<Fp>) -> Self {
        Self {
            ppub,
            g: GtBase::new(pairing(&ppub, &P2)),
            p1: G1Base::new(&G1::from(crate::curve::P1)),
            ppub_table: G1Base::new(&G1::from(ppub)),
        }
    }

    /// Parses Ppub-e: 64 bytes or 0x04 || 64 bytes, on the curve.
    pub fn from_bytes(b: &[u8]) -> Result<Self, Error> {
        Ok(Self::from_point(
            g1_from_bytes(b).map_err(|_| Error::InvalidKey)?,
        ))
    }

    /// Ppub-e as x || y.
    pub fn to_bytes(&self) -> [u8; 64] {
        g1_to_bytes(&self.ppub)
    }

    /// DER as gmsm writes it: BIT STRING 0x04 || x || y.
    #[cfg(feature = "alloc")]
    pub fn to_der(&self) -> alloc::vec::Vec<u8> {
        der::write::key_bit_string(&g1_to_uncompressed(&self.ppub))
    }

    /// Parses BIT STRING Ppub-e (or SEQUENCE { BIT STRING }).
    pub fn from_der(input: &[u8]) -> Result<Self, Error> {
        Self::from_bytes(der::master_public_key(input)?)
    }

    /// Q = H1(ID || hid)·P1 + Ppub-e (public data), `InvalidKey` if it is the identity.
    pub(crate) fn user_point(&self, id: &[u8], hid: u8) -> Result<UserPoint, Error> {
        let h1 = h1(id, hid);
        let q = self.p1.mul(&h1.to_limbs()).add(&G1::from(self.ppub));
        if q.is_identity() {
            Err(Error::InvalidKey)
        } else {
            Ok(UserPoint { h1 })
        }
    }

    /// Q as its h1 without the identity check (the check costs a fixed-base
    /// multiplication): for r ∈ [1, N-1], r·Q is the identity exactly when Q is (prime
    /// order N), so the encryption loops check Q by [`Self::user_point`] only after a
    /// failed attempt, instead of drawing r again forever.
    pub(crate) fn user_point_unchecked(&self, id: &[u8], hid: u8) -> UserPoint {
        UserPoint { h1: h1(id, hid) }
    }

    /// r·Q = (r·h1)·P1 + r·Ppub-e (constant time in r).
    pub(crate) fn user_mul(&self, q: &UserPoint, r: &Fn) -> G1 {
        self.p1
            .mul(&r.mul(&q.h1).to_limbs())
            .add(&self.ppub_table.mul(&r.to_limbs()))
    }

    /// The 64-byte C and its w = g^r for a given r (part 4, 7.2 steps A1-A5).
    fn encap_point(&self, q: &UserPoint, r: &Fn) -> Option<([u8; 64], Fp12)> {
        let c = self.user_mul(q, r).to_affine()?;
        Some((g1_to_bytes(&c), self.g.pow(&r.to_limbs())))
    }

    /// Key encapsulation to `id` (hid 0x03): fills `key` with K and returns C (x || y).
    pub fn encapsulate<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        id: &[u8],
        key: &mut [u8],
    ) -> Result<[u8; 64], Error> {
        if key.is_empty() {
            return Err(Error::InvalidArgument);
        }
        let q = self.user_point_unchecked(id, hid::ENCRYPT);
        loop {
            let r = random_scalar(rng)?;
            if let Some(c) = self.encapsulate_with_r(&q, id, &r, key) {
                return Ok(c);
            }
            // A failure: an all-zero key stream, or Q is the identity (then every r fails).
            self.user_point(id, hid::ENCRYPT)?;
        }
    }

    fn encapsulate_with_r(
        &self,
        q: &UserPoint,
        id: &[u8],
        r: &Fn,
        key: &mut [u8],
    ) -> Option<[u8; 64]> {
        let (c, w) = self.encap_point(q, r)?;
        KdfStream::new(&[&c, &w.to_bytes(), id]).fill(key);
        if all_zero(key) { None } else { Some(c) }
    }

    /// Test hook: encapsulation with a fixed r (the standard's examples).
    #[doc(hidden)]
    pub fn encapsulate_with_fixed_r(
        &self,
        id: &[u8],
        r: &[u8; 32],
        key: &mut [u8],
    ) -> Result<[u8; 64], Error> {
        let q = self.user_point(id, hid::ENCRYPT)?;
        let r = Fn::from_bytes_nonzero(r).ok_or(Error::InvalidArgument)?;
        self.encapsulate_with_r(&q, id, &r, key)
            .ok_or(Error::InvalidArgument)
    }

    /// Encrypts `msg` to `id` in the XOR stream mode into `out` = C1 || C3 || C2
    /// (`out.len()` must be `msg.len() + 96`; the standard's order, as gmsm's raw form).
    pub fn encrypt_into<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        id: &[u8],
        msg: &[u8],
        out: &mut [u8],
    ) -> Result<(), Error> {
        if msg.is_empty() || out.len() != msg.len() + CIPHERTEXT_OVERHEAD {
            return Err(Error::InvalidArgument);
        }
        let q = self.user_point_unchecked(id, hid::ENCRYPT);
        loop {
            let r = random_scalar(rng)?;
            if self.encrypt_with_r(&q, id, &r, msg, out) {
                return Ok(());
            }
            // A failure: an all-zero key stream, or Q is the identity (then every r fails).
            self.user_point(id, hid::ENCRYPT)?;
        }
    }

    fn encrypt_with_r(&self, q: &UserPoint, id: &[u8], r: &Fn, msg: &[u8], out: &mut [u8]) -> bool {
        let Some((c1, w)) = self.encap_point(q, r) else {
            return false;
        };
        let mut kdf = KdfStream::new(&[&c1, &w.to_bytes(), id]);
        let (head, c2) = out.split_at_mut(CIPHERTEXT_OVERHEAD);
        kdf.fill(c2);
        if all_zero(c2) {
            return false;
        }
        for (c, m) in c2.iter_mut().zip(msg) {
            *c ^= m;
        }
        let mut k2 = [0u8; 32];
        kdf.fill(&mut k2);
        let c3 = crate::hash::sm3(&[c2, &k2]);
        head[..64].copy_from_slice(&c1);
        head[64..].copy_from_slice(&c3);
        true
    }

    /// Test hook: XOR-mode encryption with a fixed r.
    #[doc(hidden)]
    pub fn encrypt_with_fixed_r(
        &self,
        id: &[u8],
        r: &[u8; 32],
        msg: &[u8],
        out: &mut [u8],
    ) -> Result<(), Error> {
        if msg.is_empty() || out.len() != msg.len() + CIPHERTEXT_OVERHEAD {
            return Err(Error::InvalidArgument);
        }
        let q = self.user_point(id, hid::ENCRYPT)?;
        let r = Fn::from_bytes_nonzero(r).ok_or(Error::InvalidArgument)?;
        if self.encrypt_with_r(&q, id, &r, msg, out) {
            Ok(())
        } else {
            Err(Error::InvalidArgument)
        }
    }

    /// Encrypts in the XOR mode, returning C1 || C3 || C2.
    #[cfg(feature = "alloc")]
    pub fn encrypt<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        id: &[u8],
        msg: &[u8],
    ) -> Result<alloc::vec::Vec<u8>, Error> {
        let mut out = alloc::vec![0u8; msg.len() + CIPHERTEXT_OVERHEAD];
        self.encrypt_into(rng, id, msg, &mut out)?;
        Ok(out)
    }

    /// Encrypts in the XOR mode, returning the DER form GmSSL and gmsm write:
    /// SEQUENCE { INTEGER 0 (XOR), BIT STRING 04||C1, OCTET STRING C3, OCTET STRING C2 }.
    #[cfg(feature = "alloc")]
    pub fn encrypt_der<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        id: &[u8],
        msg: &[u8],
    ) -> Result<alloc::vec::Vec<u8>, Error> {
        let raw = self.encrypt(rng, id, msg)?;
        raw_to_der(&raw, 0)
    }

    /// Encrypts in an SM4 block mode (K1 = 16 bytes, PKCS#7 padding; CBC puts its
    /// random IV before the blocks, as gmsm does), returning C1 || C3 || C2
    /// ([`CiphertextForm::Raw`]) or the DER form with enc type 1 for ECB, 2 for CBC
    /// ([`CiphertextForm::Der`]).
    #[cfg(feature = "alloc")]
    pub fn encrypt_sm4<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        id: &[u8],
        msg: &[u8],
        mode: BlockMode,
        form: CiphertextForm,
    ) -> Result<alloc::vec::Vec<u8>, Error> {
        if msg.is_empty() {
            return Err(Error::InvalidArgument);
        }
        let q = self.user_point_unchecked(id, hid::ENCRYPT);
        let raw = loop {
            let r = random_scalar(rng)?;
            let mut iv = [0u8; 16];
            if mode == BlockMode::Cbc {
                rng.try_fill_bytes(&mut iv).map_err(|_| Error::Rng)?;
            }
            if let Some(ct) = self.encrypt_sm4_with_r(&q, id, &r, msg, mode, &iv) {
                break ct;
            }
            // A failure: an all-zero key stream, or Q is the identity (then every r fails).
            self.user_point(id, hid::ENCRYPT)?;
        };
        match form {
            CiphertextForm::Raw => Ok(raw),
            CiphertextForm::Der => raw_to_der(&raw, if mode == BlockMode::Ecb { 1 } else { 2 }),
        }
    }

    #[cfg(feature = "alloc")]
    fn encrypt_sm4_with_r(
        &self,
        q: &UserPoint,
        id: &[u8],
        r: &Fn,
        msg: &[u8],
        mode: BlockMode,
        iv: &[u8; 16],
    ) -> Option<alloc::vec::Vec<u8>> {
        let (c1, w) = self.encap_point(q, r)?;
        let mut kdf = KdfStream::new(&[&c1, &w.to_bytes(), id]);
        let mut k1 = [0u8; 16];
        let mut k2 = [0u8; 32];
        kdf.fill(&mut k1);
        kdf.fill(&mut k2);
        if all_zero(&k1) {
            return None;
        }
        let c2 = block::encrypt(&k1, msg, mode, iv);
        let c3 = crate::hash::sm3(&[&c2, &k2]);
        let mut out = alloc::vec::Vec::with_capacity(CIPHERTEXT_OVERHEAD + c2.len());
        out.extend_from_slice(&c1);
        out.extend_from_slice(&c3);
        out.extend_from_slice(&c2);
        Some(out)
    }

    /// Test hook: SM4-mode encryption with a fixed r (and IV for CBC).
    #[doc(hidden)]
    #[cfg(feature = "alloc")]
    pub fn encrypt_sm4_with_fixed_r(
        &self,
        id: &[u8],
        r: &[u8; 32],
        msg: &[u8],
        mode: BlockMode,
        iv: &[u8; 16],
    ) -> Result<alloc::vec::Vec<u8>, Error> {
        let q = self.user_point(id, hid::ENCRYPT)?;
        let r = Fn::from_bytes_nonzero(r).ok_or(Error::InvalidArgument)?;
        self.encrypt_sm4_with_r(&q, id, &r, msg, mode, iv)
            .ok_or(Error::InvalidArgument)
    }
}

/// The SM4 block modes of the encryption's C2 (GM/T 0044-2016 part 4, 7.2 allows a
/// block cipher; gmsm's enc types 1 and 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockMode {
    /// SM4-ECB with PKCS#7 padding (the block-cipher example of GM/T 0044-2016 part 5).
    Ecb,
    /// SM4-CBC with PKCS#7 padding, a random 16-byte IV first.
    Cbc,
}

/// The encoding of an SM4-mode ciphertext ([`EncryptMasterPublicKey::encrypt_sm4`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CiphertextForm {
    /// C1 || C3 || C2, the standard's order (gmsm's raw form; [`EncryptPrivateKey::decrypt_sm4`]
    /// reads it).
    Raw,
    /// SEQUENCE { INTEGER enc type, BIT STRING 04||C1, OCTET STRING C3, OCTET STRING C2 },
    /// the form GmSSL and gmsm write ([`EncryptPrivateKey::decrypt_der`] reads it).
    Der,
}

/// C2 in an SM4 block mode: sm4-modes' ECB and CBC with PKCS#7 padding (the one CBC of the
/// workspace).
#[cfg(feature = "alloc")]
mod block {
    use super::BlockMode;
    use crate::error::Error;
    use alloc::vec::Vec;
    use shangmi_sm4_modes::cipher::block_padding::Pkcs7;
    use shangmi_sm4_modes::cipher::{BlockModeDecrypt, BlockModeEncrypt, KeyInit, KeyIvInit};
    use shangmi_sm4_modes::{Sm4CbcDec, Sm4CbcEnc, Sm4EcbDec, Sm4EcbEnc};

    pub(super) fn encrypt(key: &[u8; 16], msg: &[u8], mode: BlockMode, iv: &[u8; 16]) -> Vec<u8> {
        match mode {
            BlockMode::Ecb => Sm4EcbEnc::new(&(*key).into()).encrypt_padded_vec::<Pkcs7>(msg),
            BlockMode::Cbc => {
                let body =
                    Sm4CbcEnc::new(&(*key).into(), &(*iv).into()).encrypt_padded_vec::<Pkcs7>(msg);
                let mut out = Vec::with_capacity(16 + body.len());
                out.extend_from_slice(iv);
                out.extend_from_slice(&body);
                out
            }
        }
    }

    /// PKCS#7 is checked after C3, so a padding failure is no oracle.
    pub(super) fn decrypt(key: &[u8; 16], c2: &[u8], mode: BlockMode) -> Result<Vec<u8>, Error> {
        let plain = match mode {
            BlockMode::Ecb => Sm4EcbDec::new(&(*key).into()).decrypt_padded_vec::<Pkcs7>(c2),
            BlockMode::Cbc => {
                let (iv, body) = c2.split_at_checked(16).ok_or(Error::Decryption)?;
                let iv: [u8; 16] = iv.try_into().map_err(|_| Error::Decryption)?;
                Sm4CbcDec::new(&(*key).into(), &iv.into()).decrypt_padded_vec::<Pkcs7>(body)
            }
        };
        plain.map_err(|_| Error::Decryption)
    }
}

/// C1 || C3 || C2 to the DER form with an enc type.
#[cfg(feature = "alloc")]
fn raw_to_der(raw: &[u8], enc_type: u8) -> Result<alloc::vec::Vec<u8>, Error> {
    let mut inner = alloc::vec::Vec::with_capacity(raw.len() + 16);
    der::write::uint(&mut inner, &[enc_type])?;
    let mut c1 = [4u8; 65];
    c1[1..].copy_from_slice(&raw[..64]);
    der::write::bit_string(&mut inner, &c1)?;
    der::write::octet_string(&mut inner, &raw[64..96])?;
    der::write::octet_string(&mut inner, &raw[96..])?;
    der::write::sequence(&inner)
}

/// Splits the DER form into (enc type, C1 as 64 bytes, C3, C2).
/// (enc type, C1, C3, C2) borrowed from a DER ciphertext.
type Parts<'a> = (u32, [u8; 64], &'a [u8], &'a [u8]);

fn parse_der(input: &[u8]) -> Result<Parts<'_>, Error> {
    let e = |_| Error::Decryption;
    let (inner, rest) = der::read_sequence(input).map_err(e)?;
    let (t, inner) = der::read_small_uint(inner).map_err(e)?;
    let (c1, inner) = der::read_bit_string(inner).map_err(e)?;
    let (c3, inner) = der::read_octet_string(inner).map_err(e)?;
    let (c2, inner) = der::read_octet_string(inner).map_err(e)?;
    if t > 2 || !rest.is_empty() || !inner.is_empty() || c1.len() != 65 || c1[0] != 4 {
        return Err(Error::Decryption);
    }
    if c3.len() != 32 || c2.is_empty() {
        return Err(Error::Decryption);
    }
    let mut c = [0u8; 64];
    c.copy_from_slice(&c1[1..]);
    Ok((t, c, c3, c2))
}

impl EncryptPrivateKey {
    /// The key from de (128 bytes or 0x04 || 128 bytes; checked to be in G2) and the
    /// master public key.
    pub fn from_bytes(de: &[u8], master: &EncryptMasterPublicKey) -> Result<Self, Error> {
        let de = g2_from_bytes(de).map_err(|_| Error::InvalidKey)?;
        Ok(Self {
            de,
            prep: G2Prepared::new(&de),
            master: master.clone(),
        })
    }

    user_key_encodings!(
        EncryptMasterPublicKey,
        de,
        129,
        g2_to_uncompressed,
        "de",
        ""
    );

    /// w = e(C, de) and the KDF stream over C || w || ID.
    fn kdf_for(&self, id: &[u8], c: &[u8]) -> Result<KdfStream, Error> {
        let p = g1_from_bytes(c).map_err(|_| Error::Decryption)?;
        let w = pairing_prepared(&p, &self.prep);
        Ok(KdfStream::new(&[&g1_to_bytes(&p), &w.to_bytes(), id]))
    }

    /// Key decapsulation (part 4, 7.3): C as 64 bytes or 0x04 || 64 bytes; fills `key`.
    pub fn decapsulate(&self, id: &[u8], c: &[u8], key: &mut [u8]) -> Result<(), Error> {
        if key.is_empty() {
            return Err(Error::InvalidArgument);
        }
        self.kdf_for(id, c)?.fill(key);
        if all_zero(key) {
            Err(Error::Decryption)
        } else {
            Ok(())
        }
    }

    /// Decrypts C1 || C3 || C2 (XOR mode) into `out` (`out.len()` = `ct.len() - 96`).
    pub fn decrypt_into(&self, id: &[u8], ct: &[u8], out: &mut [u8]) -> Result<(), Error> {
        if ct.len() <= CIPHERTEXT_OVERHEAD || out.len() != ct.len() - CIPHERTEXT_OVERHEAD {
            return Err(Error::Decryption);
        }
        let (c1, rest) = ct.split_at(64);
        let (c3, c2) = rest.split_at(32);
        self.decrypt_parts(id, c1, c3, c2, out)
    }

    fn decrypt_parts(
        &self,
        id: &[u8],
        c1: &[u8],
        c3: &[u8],
        c2: &[u8],
        out: &mut [u8],
    ) -> Result<(), Error> {
        if out.len() != c2.len() || c3.len() != 32 {
            return Err(Error::Decryption);
        }
        let mut kdf = self.kdf_for(id, c1)?;
        kdf.fill(out);
        let zero = all_zero(out);
        let mut k2 = [0u8; 32];
        kdf.fill(&mut k2);
        let u = crate::hash::sm3(&[c2, &k2]);
        if zero | !ct_eq(&u, c3) {
            out.iter_mut().for_each(|b| *b = 0);
            return Err(Error::Decryption);
        }
        for (m, c) in out.iter_mut().zip(c2) {
            *m ^= c;
        }
        Ok(())
    }

    /// Decrypts C1 || C3 || C2 (XOR mode).
    #[cfg(feature = "alloc")]
    pub fn decrypt(&self, id: &[u8], ct: &[u8]) -> Result<alloc::vec::Vec<u8>, Error> {
        if ct.len() <= CIPHERTEXT_OVERHEAD {
            return Err(Error::Decryption);
        }
        let mut out = alloc::vec![0u8; ct.len() - CIPHERTEXT_OVERHEAD];
        self.decrypt_into(id, ct, &mut out)?;
        Ok(out)
    }

    /// Decrypts the DER form: enc type 0 (XOR), 1 (SM4-ECB) or 2 (SM4-CBC).
    #[cfg(feature = "alloc")]
    pub fn decrypt_der(&self, id: &[u8], ct: &[u8]) -> Result<alloc::vec::Vec<u8>, Error> {
        let (t, c1, c3, c2) = parse_der(ct)?;
        match t {
            0 => {
                let mut out = alloc::vec![0u8; c2.len()];
                self.decrypt_parts(id, &c1, c3, c2, &mut out)?;
                Ok(out)
            }
            1 => self.decrypt_sm4_parts(id, &c1, c3, c2, BlockMode::Ecb),
            _ => self.decrypt_sm4_parts(id, &c1, c3, c2, BlockMode::Cbc),
        }
    }

    /// Decrypts C1 || C3 || C2 in an SM4 block mode.
    #[cfg(feature = "alloc")]
    pub fn decrypt_sm4(
        &self,
        id: &[u8],
        ct: &[u8],
        mode: BlockMode,
    ) -> Result<alloc::vec::Vec<u8>, Error> {
        if ct.len() <= CIPHERTEXT_OVERHEAD {
            return Err(Error::Decryption);
        }
        let (c1, rest) = ct.split_at(64);
        let (c3, c2) = rest.split_at(32);
        self.decrypt_sm4_parts(id, c1, c3, c2, mode)
    }

    #[cfg(feature = "alloc")]
    fn decrypt_sm4_parts(
        &self,
        id: &[u8],
        c1: &[u8],
        c3: &[u8],
        c2: &[u8],
        mode: BlockMode,
    ) -> Result<alloc::vec::Vec<u8>, Error> {
        let mut kdf = self.kdf_for(id, c1)?;
        let mut k1 = [0u8; 16];
        let mut k2 = [0u8; 32];
        kdf.fill(&mut k1);
        kdf.fill(&mut k2);
        let u = crate::hash::sm3(&[c2, &k2]);
        if all_zero(&k1) | !ct_eq(&u, c3) {
            return Err(Error::Decryption);
        }
        block::decrypt(&k1, c2, mode)
    }
}

debug_name_only!(EncryptMasterKey, EncryptPrivateKey);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curve::P1;

    /// r·Q by the two fixed-base tables ((r·h1)·P1 + r·Ppub-e) equals the direct
    /// constant-time product r·(h1·P1 + Ppub-e) on edge and random r, for two identities.
    #[test]
    fn user_mul_matches_mul_ct() {
        let mut ke = [0u8; 32];
        ke[31] = 0x2a;
        ke[3] = 0x77;
        let master = EncryptMasterKey::from_bytes(&ke).expect("valid ke");
        let public = master.public_key();
        let n1 = shangmi_limbs::sub(&Fn::MODULUS, &[1, 0, 0, 0]).0;
        let be = shangmi_limbs::to_be_bytes;
        let mut rs = std::vec![
            Fn::from_bytes(&be(&[1, 0, 0, 0])).expect("1 < n"),
            Fn::from_bytes(&be(&[16, 0, 0, 0])).expect("16 < n"),
            Fn::from_bytes(&be(&[17, 0, 0, 0])).expect("17 < n"),
            Fn::from_bytes(&be(&n1)).expect("n - 1 < n"),
        ];
        // Random values below n (about 71% of 256-bit values are).
        let random = crate::test_limbs(0x9e37_79b9_7f4a_7c15u64, 40);
        rs.extend(
            random
                .iter()
                .filter_map(|k| Fn::from_bytes(&be(k)))
                .take(12),
        );
        assert_eq!(rs.len(), 16);
        for id in [&b"Bob"[..], &b"alice@example.com"[..]] {
            let q = public
                .user_point(id, hid::ENCRYPT)
                .expect("Q not the identity");
            let direct = G1::from(P1)
                .mul_ct(&q.h1.to_limbs())
                .add(&G1::from(public.ppub));
            for r in &rs {
                let want = direct.mul_ct(&r.to_limbs());
                assert!(
                    public.user_mul(&q, r).equals(&want),
                    "r = {:x?}",
                    r.to_limbs()
                );
            }
        }
    }

    /// Timing of encryption's pieces (release: `cargo test --release -p shangmi-sm9 --lib
    /// enc_timing -- --ignored --nocapture`).
    #[test]
    #[ignore]
    fn enc_timing() {
        fn time(name: &str, iters: u32, mut f: impl FnMut()) {
            let t = std::time::Instant::now();
            for _ in 0..iters {
                f();
            }
            std::println!(
                "{name:<28} {:>8.1} us",
                t.elapsed().as_secs_f64() * 1e6 / f64::from(iters)
            );
        }
        let mut ke = [0u8; 32];
        ke[31] = 0x2a;
        let master = EncryptMasterKey::from_bytes(&ke).expect("valid ke");
        let public = master.public_key();
        let q = public.user_point(b"Bob", hid::ENCRYPT).expect("Q");
        let r = Fn::from_bytes(&[0x5a; 32]).expect("r < n");
        time("user_point (h1, h1*P1 + Ppub)", 200, || {
            core::hint::black_box(public.user_point(b"Bob", hid::ENCRYPT).is_ok());
        });
        time("user_mul (two tables)", 200, || {
            core::hint::black_box(public.user_mul(&q, &r));
        });
        time("encap_point (r*Q, g^r)", 100, || {
            core::hint::black_box(public.encap_point(&q, &r));
        });
        let mut out = [0u8; 32 + CIPHERTEXT_OVERHEAD];
        time("encrypt_with_r (32 bytes)", 100, || {
            core::hint::black_box(public.encrypt_with_r(&q, b"Bob", &r, &[7; 32], &mut out));
        });
    }

    /// A master key with ke = -H1(ID || hid) mod N makes Q the identity for that ID: the
    /// encryptions and the key exchange toward it fail with `InvalidKey` (no endless
    /// redraw of r), and other identities still work.
    #[test]
    fn identity_user_point_is_an_error() {
        use rand::{SeedableRng, rngs::StdRng};
        let mut rng = StdRng::seed_from_u64(29);
        let ke = h1(b"Bob", hid::ENCRYPT).neg().to_bytes();
        let master = EncryptMasterKey::from_bytes(&ke).expect("ke in range");
        let public = master.public_key();
        assert!(public.user_point(b"Bob", hid::ENCRYPT).is_err());
        let mut key = [0u8; 16];
        assert_eq!(
            public.encapsulate(&mut rng, b"Bob", &mut key).err(),
            Some(Error::InvalidKey)
        );
        let mut out = [0u8; 3 + CIPHERTEXT_OVERHEAD];
        assert_eq!(
            public.encrypt_into(&mut rng, b"Bob", b"abc", &mut out),
            Err(Error::InvalidKey)
        );
        #[cfg(feature = "alloc")]
        assert_eq!(
            public
                .encrypt_sm4(
                    &mut rng,
                    b"Bob",
                    b"abc",
                    BlockMode::Cbc,
                    CiphertextForm::Raw
                )
                .err(),
            Some(Error::InvalidKey)
        );
        assert!(public.encapsulate(&mut rng, b"Alice", &mut key).is_ok());
        // Key exchange: Alice (hid 0x02) toward Bob with ke = -H1(Bob || 0x02).
        let ke = h1(b"Bob", hid::KEY_EXCHANGE).neg().to_bytes();
        let master = EncryptMasterKey::from_bytes(&ke).expect("ke in range");
        let alice = master
            .extract_with_hid(b"Alice", hid::KEY_EXCHANGE)
            .expect("Alice's key");
        let mut kx = crate::kx::KeyExchange::initiator(&alice, b"Alice", b"Bob");
        assert_eq!(kx.init(&mut rng).err(), Some(Error::InvalidKey));
    }
}
