//! SM2 public-key encryption (GB/T 32918.4-2016 §6–7): C1 = k·G, (x2, y2) = k·P_B,
//! t = KDF(x2 ‖ y2, |M|), C2 = M ⊕ t, C3 = SM3(x2 ‖ M ‖ y2).
//!
//! Ciphertexts come in the layouts seen in the wild: C1 ‖ C3 ‖ C2 (the 2016 standard),
//! C1 ‖ C2 ‖ C3 (the 2010 draft and older libraries), each with C1 as an uncompressed SEC1 point
//! (`04 ‖ x ‖ y`) or as bare `x ‖ y`, and the ASN.1 form of GM/T 0009 §7.2
//! (`SEQUENCE { x INTEGER, y INTEGER, hash OCTET STRING, ciphertext OCTET STRING }`).
//!
//! ```
//! use shangmi_sm2::pke::{DecryptingKey, Layout};
//! let mut rng = getrandom::SysRng; // the operating system's generator
//! let dk = DecryptingKey::from_bytes(&[5u8; 32]).unwrap();
//! let ct = dk.encrypting_key().encrypt(&mut rng, b"hello", Layout::C1C3C2).unwrap();
//! assert_eq!(dk.decrypt(&ct, Layout::C1C3C2).unwrap(), b"hello");
//! ```

use crate::arith::limbs;
use crate::arith::mul::mul_g;
use crate::arith::scalar::is_in_range;
use crate::hash::Sm3;
use crate::{Error, NonZeroScalar, PublicKey, SecretKey};
use alloc::vec::Vec;
use digest::Digest;
use elliptic_curve::subtle::ConstantTimeEq;
use rand_core::TryCryptoRng;
use zeroize::Zeroize;

/// Ciphertext layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `04 ‖ x1 ‖ y1 ‖ C3 ‖ C2` (GB/T 32918.4-2016).
    C1C3C2,
    /// `04 ‖ x1 ‖ y1 ‖ C2 ‖ C3` (the older order).
    C1C2C3,
    /// `x1 ‖ y1 ‖ C3 ‖ C2`: C1 without the 0x04 prefix.
    C1C3C2Raw,
    /// `x1 ‖ y1 ‖ C2 ‖ C3`: C1 without the 0x04 prefix.
    C1C2C3Raw,
}

/// The KDF of GB/T 32918.4 §5.4.3: SM3(Z ‖ ct) for ct = 1, 2, … (32-bit big-endian),
/// XORed into `data`. Returns false if the key stream was all zero.
fn kdf_xor(x2: &[u8; 32], y2: &[u8; 32], data: &mut [u8]) -> bool {
    let mut any = 0u8;
    for (i, chunk) in data.chunks_mut(32).enumerate() {
        let ct = (i as u32).wrapping_add(1);
        let mut h = Sm3::new();
        h.update(x2);
        h.update(y2);
        h.update(ct.to_be_bytes());
        let mut t: [u8; 32] = h.finalize().into();
        for (d, k) in chunk.iter_mut().zip(t.iter()) {
            *d ^= k;
            any |= k;
        }
        t.zeroize();
    }
    data.is_empty() || any != 0
}

fn c3(x2: &[u8; 32], msg: &[u8], y2: &[u8; 32]) -> [u8; 32] {
    let mut h = Sm3::new();
    h.update(x2);
    h.update(msg);
    h.update(y2);
    h.finalize().into()
}

/// A recipient's public key for encryption.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncryptingKey {
    public: PublicKey,
}

impl EncryptingKey {
    /// From a public key.
    pub fn new(public: PublicKey) -> Self {
        EncryptingKey { public }
    }

    /// From a SEC1 point (compressed or uncompressed).
    pub fn from_sec1_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Ok(Self::new(crate::keys::public_key_from_sec1(bytes)?))
    }

    /// The public key.
    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// Encrypts `msg` with a random k.
    pub fn encrypt<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        msg: &[u8],
        layout: Layout,
    ) -> Result<Vec<u8>, Error> {
        loop {
            let mut k = [0u8; 32];
            rng.try_fill_bytes(&mut k).map_err(|_| Error::Rng)?;
            let r = self.encrypt_with_nonce(&k, msg, layout);
            k.zeroize();
            match r {
                Err(Error::InvalidSecretKey) | Err(Error::KdfZero) => continue,
                other => return other,
            }
        }
    }

    /// Encrypts to the ASN.1 form with a random k.
    pub fn encrypt_der<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        msg: &[u8],
    ) -> Result<Vec<u8>, Error> {
        let raw = self.encrypt(rng, msg, Layout::C1C3C2)?;
        Ok(raw_to_der(&raw))
    }

    /// Encrypts with a caller-chosen k (hazmat: for published vectors only; reusing k
    /// leaks the plaintext XOR). Fails with `InvalidSecretKey` for k outside [1, n-1] and
    /// `KdfZero` when the key stream is all zero.
    pub fn encrypt_with_nonce(
        &self,
        k: &[u8; 32],
        msg: &[u8],
        layout: Layout,
    ) -> Result<Vec<u8>, Error> {
        if is_in_range(k) == 0 {
            return Err(Error::InvalidSecretKey);
        }
        let (c1, _) = mul_g(&limbs::from_be_bytes(k)).to_affine();
        let scalar: Option<NonZeroScalar> = NonZeroScalar::from_repr((*k).into()).into_option();
        let scalar = scalar.ok_or(Error::InvalidSecretKey)?;
        let (mut x2, mut y2) = crate::curve::mul_point_ct(self.public.as_affine(), &scalar)
            .ok_or(Error::InvalidPoint)?;
        let mut c2 = msg.to_vec();
        let ok = kdf_xor(&x2, &y2, &mut c2);
        let hash = c3(&x2, msg, &y2);
        x2.zeroize();
        y2.zeroize();
        if !ok {
            return Err(Error::KdfZero);
        }
        let mut out = Vec::with_capacity(97 + msg.len());
        if matches!(layout, Layout::C1C3C2 | Layout::C1C2C3) {
            out.push(0x04);
        }
        out.extend_from_slice(&c1.x.to_bytes());
        out.extend_from_slice(&c1.y.to_bytes());
        match layout {
            Layout::C1C3C2 | Layout::C1C3C2Raw => {
                out.extend_from_slice(&hash);
                out.extend_from_slice(&c2);
            }
            Layout::C1C2C3 | Layout::C1C2C3Raw => {
                out.extend_from_slice(&c2);
                out.extend_from_slice(&hash);
            }
        }
        Ok(out)
    }
}

/// A private key for decryption.
#[derive(Clone)]
pub struct DecryptingKey {
    secret: SecretKey,
    encrypting_key: EncryptingKey,
}

impl core::fmt::Debug for DecryptingKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DecryptingKey")
            .field("encrypting_key", &self.encrypting_key)
            .finish_non_exhaustive()
    }
}

impl DecryptingKey {
    /// From a secret key.
    pub fn new(secret: SecretKey) -> Self {
        let encrypting_key = EncryptingKey::new(secret.public_key());
        DecryptingKey {
            secret,
            encrypting_key,
        }
    }

    /// From a 32-byte big-endian secret in [1, n-1].
    pub fn from_bytes(d: &[u8; 32]) -> Result<Self, Error> {
        Ok(Self::new(
            SecretKey::from_bytes(&(*d).into()).map_err(|_| Error::InvalidSecretKey)?,
        ))
    }

    /// The matching encryption key.
    pub fn encrypting_key(&self) -> &EncryptingKey {
        &self.encrypting_key
    }

    /// Decrypts a ciphertext in the given layout.
    pub fn decrypt(&self, ct: &[u8], layout: Layout) -> Result<Vec<u8>, Error> {
        let (c1, rest) = match layout {
            Layout::C1C3C2 | Layout::C1C2C3 => {
                if ct.len() < 97 || ct[0] != 0x04 {
                    return Err(Error::Decryption);
                }
                ct[1..].split_at(64)
            }
            Layout::C1C3C2Raw | Layout::C1C2C3Raw => {
                if ct.len() < 96 {
                    return Err(Error::Decryption);
                }
                ct.split_at(64)
            }
        };
        let (hash, c2) = match layout {
            Layout::C1C3C2 | Layout::C1C3C2Raw => {
                let (h, c2) = rest.split_at(32);
                (h, c2)
            }
            Layout::C1C2C3 | Layout::C1C2C3Raw => {
                let (c2, h) = rest.split_at(rest.len() - 32);
                (h, c2)
            }
        };
        self.decrypt_parts(c1, hash, c2)
    }

    /// Decrypts the ASN.1 form.
    pub fn decrypt_der(&self, der: &[u8]) -> Result<Vec<u8>, Error> {
        let (c1, hash, c2) = parse_der(der)?;
        self.decrypt_parts(&c1, hash, c2)
    }

    fn decrypt_parts(&self, c1_xy: &[u8], hash: &[u8], c2: &[u8]) -> Result<Vec<u8>, Error> {
        let mut enc = [0u8; 65];
        enc[0] = 0x04;
        enc[1..].copy_from_slice(c1_xy);
        // B1: C1 must be a valid curve point (not the identity; cofactor 1).
        let c1 = PublicKey::from_sec1_bytes(&enc).map_err(|_| Error::Decryption)?;
        let (mut x2, mut y2) =
            crate::curve::mul_point_ct(c1.as_affine(), &self.secret.to_nonzero_scalar())
                .ok_or(Error::Decryption)?;
        let mut msg = c2.to_vec();
        let ok = kdf_xor(&x2, &y2, &mut msg);
        let expect = c3(&x2, &msg, &y2);
        x2.zeroize();
        y2.zeroize();
        if !ok || !bool::from(expect.ct_eq(hash)) {
            msg.zeroize();
            return Err(Error::Decryption);
        }
        Ok(msg)
    }
}

/// DER length header.
fn push_len(out: &mut Vec<u8>, len: usize) {
    if len < 0x80 {
        out.push(len as u8);
    } else if len < 0x100 {
        out.extend_from_slice(&[0x81, len as u8]);
    } else if len < 0x1_0000 {
        out.extend_from_slice(&[0x82, (len >> 8) as u8, len as u8]);
    } else if len < 0x100_0000 {
        out.extend_from_slice(&[0x83, (len >> 16) as u8, (len >> 8) as u8, len as u8]);
    } else {
        out.extend_from_slice(&[
            0x84,
            (len >> 24) as u8,
            (len >> 16) as u8,
            (len >> 8) as u8,
            len as u8,
        ]);
    }
}

fn push_uint(out: &mut Vec<u8>, v: &[u8]) {
    let skip = v.iter().take_while(|&&b| b == 0).count().min(v.len() - 1);
    let digits = &v[skip..];
    let pad = usize::from(digits[0] >= 0x80);
    out.push(0x02);
    push_len(out, digits.len() + pad);
    if pad == 1 {
        out.push(0);
    }
    out.extend_from_slice(digits);
}

/// `04 ‖ x ‖ y ‖ C3 ‖ C2` to the GM/T 0009 ASN.1 form.
fn raw_to_der(raw: &[u8]) -> Vec<u8> {
    let mut body = Vec::with_capacity(raw.len() + 16);
    push_uint(&mut body, &raw[1..33]);
    push_uint(&mut body, &raw[33..65]);
    body.push(0x04);
    push_len(&mut body, 32);
    body.extend_from_slice(&raw[65..97]);
    body.push(0x04);
    push_len(&mut body, raw.len() - 97);
    body.extend_from_slice(&raw[97..]);
    let mut out = Vec::with_capacity(body.len() + 6);
    out.push(0x30);
    push_len(&mut out, body.len());
    out.extend_from_slice(&body);
    out
}

/// One TLV with a strict DER length; returns (value, rest).
fn tlv(der: &[u8], tag: u8) -> Result<(&[u8], &[u8]), Error> {
    let bad = Error::Decryption;
    let (&t, rest) = der.split_first().ok_or(bad)?;
    let (&l0, mut rest) = rest.split_first().ok_or(bad)?;
    if t != tag {
        return Err(bad);
    }
    let len = if l0 < 0x80 {
        usize::from(l0)
    } else {
        let n = usize::from(l0 & 0x7F);
        if n == 0 || n > 4 || rest.len() < n || rest[0] == 0 {
            return Err(bad);
        }
        let mut len = 0usize;
        for &b in &rest[..n] {
            len = (len << 8) | usize::from(b);
        }
        rest = &rest[n..];
        if len < 0x80 {
            return Err(bad); // long form where the short form fits
        }
        len
    };
    if rest.len() < len {
        return Err(bad);
    }
    Ok(rest.split_at(len))
}

fn parse_uint(v: &[u8]) -> Result<[u8; 32], Error> {
    let bad = Error::Decryption;
    if v.is_empty() || v[0] & 0x80 != 0 || (v.len() > 1 && v[0] == 0 && v[1] & 0x80 == 0) {
        return Err(bad);
    }
    let v = if v[0] == 0 && v.len() > 1 { &v[1..] } else { v };
    if v.len() > 32 {
        return Err(bad);
    }
    let mut out = [0u8; 32];
    out[32 - v.len()..].copy_from_slice(v);
    Ok(out)
}

/// (x ‖ y of C1, C3, C2).
type Parts<'a> = ([u8; 64], &'a [u8], &'a [u8]);

/// Parses the ASN.1 ciphertext strictly.
fn parse_der(der: &[u8]) -> Result<Parts<'_>, Error> {
    let (body, rest) = tlv(der, 0x30)?;
    if !rest.is_empty() {
        return Err(Error::Decryption);
    }
    let (x, body) = tlv(body, 0x02)?;
    let (y, body) = tlv(body, 0x02)?;
    let (hash, body) = tlv(body, 0x04)?;
    let (c2, body) = tlv(body, 0x04)?;
    if !body.is_empty() || hash.len() != 32 {
        return Err(Error::Decryption);
    }
    let mut c1 = [0u8; 64];
    c1[..32].copy_from_slice(&parse_uint(x)?);
    c1[32..].copy_from_slice(&parse_uint(y)?);
    Ok((c1, hash, c2))
}

/// Converts between layouts without decrypting (for interoperability).
pub fn convert(ct: &[u8], from: Layout, to: Layout) -> Result<Vec<u8>, Error> {
    let prefixed = matches!(from, Layout::C1C3C2 | Layout::C1C2C3);
    let c1_len = if prefixed { 65 } else { 64 };
    if ct.len() < c1_len + 32 || (prefixed && ct[0] != 0x04) {
        return Err(Error::Decryption);
    }
    let (c1, rest) = ct.split_at(c1_len);
    let c1 = if prefixed { &c1[1..] } else { c1 };
    let (hash, c2) = match from {
        Layout::C1C3C2 | Layout::C1C3C2Raw => (&rest[..32], &rest[32..]),
        _ => (&rest[rest.len() - 32..], &rest[..rest.len() - 32]),
    };
    let mut out = Vec::with_capacity(ct.len() + 1);
    if matches!(to, Layout::C1C3C2 | Layout::C1C2C3) {
        out.push(0x04);
    }
    out.extend_from_slice(c1);
    match to {
        Layout::C1C3C2 | Layout::C1C3C2Raw => {
            out.extend_from_slice(hash);
            out.extend_from_slice(c2);
        }
        _ => {
            out.extend_from_slice(c2);
            out.extend_from_slice(hash);
        }
    }
    Ok(out)
}

/// The ASN.1 form to `04 ‖ x ‖ y ‖ C3 ‖ C2`.
pub fn der_to_c1c3c2(der: &[u8]) -> Result<Vec<u8>, Error> {
    let (c1, hash, c2) = parse_der(der)?;
    let mut out = Vec::with_capacity(97 + c2.len());
    out.push(0x04);
    out.extend_from_slice(&c1);
    out.extend_from_slice(hash);
    out.extend_from_slice(c2);
    Ok(out)
}

/// `04 ‖ x ‖ y ‖ C3 ‖ C2` to the ASN.1 form.
pub fn c1c3c2_to_der(ct: &[u8]) -> Result<Vec<u8>, Error> {
    if ct.len() < 97 || ct[0] != 0x04 {
        return Err(Error::Decryption);
    }
    Ok(raw_to_der(ct))
}
