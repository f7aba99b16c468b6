//! SM2 public-key encryption (GB/T 32918.4-2016 §6–7): C1 = k·G, (x2, y2) = k·P_B,
//! t = KDF(x2 ‖ y2, |M|), C2 = M ⊕ t, C3 = SM3(x2 ‖ M ‖ y2).
//!
//! Ciphertexts come in the layouts seen in the wild: C1 ‖ C3 ‖ C2 (the 2016 standard),
//! C1 ‖ C2 ‖ C3 (the 2010 draft and older libraries), each with C1 as a SEC1 point
//! (uncompressed `04 ‖ x ‖ y`, or compressed `02/03 ‖ x` as gmsm and some HSMs write it) or
//! as bare `x ‖ y`, and the ASN.1 form of GM/T 0009 §7.2
//! (`SEQUENCE { x INTEGER, y INTEGER, hash OCTET STRING, ciphertext OCTET STRING }`, which
//! always carries both coordinates). Decryption reads C1's form from its tag byte, so every
//! prefixed layout accepts both forms.
//!
//! The empty message is refused both ways ([`Error::EmptyMessage`]): GB/T 32918.4 checks
//! that the key stream t is not all zero (A5 on encryption, B4 on decryption), and an empty
//! t has nothing to check; OpenSSL 3 refuses to encrypt an empty message and gmsm returns
//! no ciphertext for it.
//!
//! ```
//! use shangmi_sm2::pke::{DecryptingKey, Layout};
//! let mut rng = getrandom::SysRng; // the operating system's generator
//! let dk = DecryptingKey::from_bytes(&[5u8; 32].into()).unwrap();
//! let ct = dk.encrypting_key().encrypt(&mut rng, b"hello", Layout::C1C3C2).unwrap();
//! assert_eq!(dk.decrypt(&ct, Layout::C1C3C2).unwrap(), b"hello");
//! // C1 compressed (33 bytes instead of 65); decryption reads the form from the tag.
//! let short = dk.encrypting_key().encrypt(&mut rng, b"hello", Layout::C1C3C2Compressed).unwrap();
//! assert_eq!(short.len(), ct.len() - 32);
//! assert_eq!(dk.decrypt(&short, Layout::C1C3C2).unwrap(), b"hello");
//! ```

use crate::arith::limbs::{self, Limbs};
use crate::arith::mul::{mul_ct, mul_g};
use crate::arith::point::{Affine, Jacobian};
use crate::asn1;
use crate::hash::Sm3;
use crate::keys::KeyPool;
use crate::{Error, FieldBytes, NonZeroScalar, PublicKey, SecretKey};
use alloc::vec::Vec;
use digest::Digest;
use elliptic_curve::sec1::ToSec1Point;
use elliptic_curve::subtle::ConstantTimeEq;
use rand_core::TryCryptoRng;
use zeroize::Zeroize;

/// Ciphertext layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `04 ‖ x1 ‖ y1 ‖ C3 ‖ C2` (GB/T 32918.4-2016). Decryption also accepts C1 compressed.
    C1C3C2,
    /// `04 ‖ x1 ‖ y1 ‖ C2 ‖ C3` (the older order). Decryption also accepts C1 compressed.
    C1C2C3,
    /// `x1 ‖ y1 ‖ C3 ‖ C2`: C1 without the 0x04 prefix.
    C1C3C2Raw,
    /// `x1 ‖ y1 ‖ C2 ‖ C3`: C1 without the 0x04 prefix.
    C1C2C3Raw,
    /// `02/03 ‖ x1 ‖ C3 ‖ C2`: C1 compressed (the tag carries y1's parity), 32 bytes shorter.
    /// Decryption also accepts C1 uncompressed.
    C1C3C2Compressed,
    /// `02/03 ‖ x1 ‖ C2 ‖ C3`: C1 compressed, the older order. Decryption also accepts C1
    /// uncompressed.
    C1C2C3Compressed,
}

impl Layout {
    /// Every layout.
    pub const ALL: [Layout; 6] = [
        Layout::C1C3C2,
        Layout::C1C2C3,
        Layout::C1C3C2Raw,
        Layout::C1C2C3Raw,
        Layout::C1C3C2Compressed,
        Layout::C1C2C3Compressed,
    ];

    /// The layout's name, as [`core::str::FromStr`] reads it: `C1C3C2`, `C1C2C3`,
    /// `C1C3C2_RAW`, `C1C2C3_RAW`, `C1C3C2_COMPRESSED` or `C1C2C3_COMPRESSED`.
    pub fn name(self) -> &'static str {
        match self {
            Layout::C1C3C2 => "C1C3C2",
            Layout::C1C2C3 => "C1C2C3",
            Layout::C1C3C2Raw => "C1C3C2_RAW",
            Layout::C1C2C3Raw => "C1C2C3_RAW",
            Layout::C1C3C2Compressed => "C1C3C2_COMPRESSED",
            Layout::C1C2C3Compressed => "C1C2C3_COMPRESSED",
        }
    }

    /// Whether C3 comes before C2.
    fn c3_first(self) -> bool {
        matches!(
            self,
            Layout::C1C3C2 | Layout::C1C3C2Raw | Layout::C1C3C2Compressed
        )
    }

    /// Whether C1 is bare `x ‖ y` (no SEC1 tag).
    fn raw(self) -> bool {
        matches!(self, Layout::C1C3C2Raw | Layout::C1C2C3Raw)
    }
}

impl core::fmt::Display for Layout {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// A layout name that [`Layout`]'s `FromStr` does not know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnknownLayout;

impl core::fmt::Display for UnknownLayout {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(
            "unknown SM2 ciphertext layout (C1C3C2, C1C2C3, C1C3C2_RAW, C1C2C3_RAW, \
             C1C3C2_COMPRESSED or C1C2C3_COMPRESSED)",
        )
    }
}

impl core::error::Error for UnknownLayout {}

impl core::str::FromStr for Layout {
    type Err = UnknownLayout;

    /// A layout by its [`Layout::name`], in any case, with `_` or `-` before the suffix
    /// (`c1c3c2-raw` reads as `C1C3C2_RAW`).
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Layout::ALL
            .into_iter()
            .find(|layout| {
                let want = layout.name().as_bytes();
                name.len() == want.len()
                    && name.bytes().zip(want).all(|(got, &want)| {
                        got.eq_ignore_ascii_case(&want) || (got == b'-' && want == b'_')
                    })
            })
            .ok_or(UnknownLayout)
    }
}

/// C2 = M ⊕ KDF(x2 ‖ y2, |M|) in place (GB/T 32918.4 §5.4.3, `shangmi_sm3::kdf`); false
/// when the key stream was all zero (or empty: nothing the A5/B4 check could accept).
fn kdf_xor(x2: &[u8; 32], y2: &[u8; 32], data: &mut [u8]) -> bool {
    shangmi_sm3::kdf::kdf_xor(&[x2, y2], data)
}

fn c3(x2: &[u8; 32], msg: &[u8], y2: &[u8; 32]) -> [u8; 32] {
    let mut h = Sm3::new();
    h.update(x2);
    h.update(msg);
    h.update(y2);
    h.finalize().into()
}

/// C1 as `x ‖ y` (64 bytes).
type C1 = [u8; 64];

/// Writes C1 (in `layout`'s form), C3 and C2 in `layout`'s order.
fn assemble(c1: &C1, hash: &[u8], c2: &[u8], layout: Layout) -> Vec<u8> {
    let mut out = Vec::with_capacity(97 + c2.len());
    match layout {
        Layout::C1C3C2Compressed | Layout::C1C2C3Compressed => {
            out.push(0x02 | (c1[63] & 1));
            out.extend_from_slice(&c1[..32]);
        }
        Layout::C1C3C2 | Layout::C1C2C3 => {
            out.push(0x04);
            out.extend_from_slice(c1);
        }
        Layout::C1C3C2Raw | Layout::C1C2C3Raw => out.extend_from_slice(c1),
    }
    if layout.c3_first() {
        out.extend_from_slice(hash);
        out.extend_from_slice(c2);
    } else {
        out.extend_from_slice(c2);
        out.extend_from_slice(hash);
    }
    out
}

/// (C1's encoding, C3, C2).
type Split<'a> = (&'a [u8], &'a [u8], &'a [u8]);

/// Splits a ciphertext in `layout` into (C1 as a SEC1 encoding, C3, C2) without checking
/// the point. Prefixed layouts take C1's length from its tag: 0x04 (65 bytes) or 0x02/0x03
/// (33 bytes); no other tag (identity, hybrid, compact) is a ciphertext's C1.
fn split(ct: &[u8], layout: Layout) -> Result<Split<'_>, Error> {
    let c1_len = if layout.raw() {
        64
    } else {
        match ct.first() {
            Some(0x04) => 65,
            Some(0x02 | 0x03) => 33,
            _ => return Err(Error::Decryption),
        }
    };
    if ct.len() < c1_len + 32 {
        return Err(Error::Decryption);
    }
    let (c1, rest) = ct.split_at(c1_len);
    let (hash, c2) = if layout.c3_first() {
        rest.split_at(32)
    } else {
        let (c2, hash) = rest.split_at(rest.len() - 32);
        (hash, c2)
    };
    Ok((c1, hash, c2))
}

/// C1's encoding (SEC1, or bare `x ‖ y`) to a checked curve point. B1: C1 must be on the
/// curve and not the identity (the cofactor is 1).
fn decode_c1(c1: &[u8]) -> Result<PublicKey, Error> {
    if c1.len() == 64 {
        let mut enc = [0u8; 65];
        enc[0] = 0x04;
        enc[1..].copy_from_slice(c1);
        PublicKey::from_sec1_bytes(&enc)
    } else {
        PublicKey::from_sec1_bytes(c1)
    }
    .map_err(|_| Error::Decryption)
}

/// A point as `x ‖ y`.
fn xy(point: &PublicKey) -> C1 {
    let enc = point.to_sec1_point(false);
    let mut out = [0u8; 64];
    if let Some(coordinates) = enc.as_bytes().get(1..65) {
        out.copy_from_slice(coordinates);
    }
    out
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

    /// Encrypts `msg` with a random k. Fails with [`Error::EmptyMessage`] for an empty
    /// `msg` (see the module documentation).
    pub fn encrypt<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        msg: &[u8],
        layout: Layout,
    ) -> Result<Vec<u8>, Error> {
        until_usable(msg, || {
            let mut k = FieldBytes::default();
            rng.try_fill_bytes(&mut k).map_err(|_| Error::Rng)?;
            let r = self.encrypt_with_nonce(&k, msg, layout);
            k.zeroize();
            r
        })
    }

    /// Encrypts to the ASN.1 form with a random k.
    pub fn encrypt_der<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        msg: &[u8],
    ) -> Result<Vec<u8>, Error> {
        let raw = self.encrypt(rng, msg, Layout::C1C3C2)?;
        raw_to_der(&raw)
    }

    /// Encrypts with a caller-chosen k (hazmat: for published vectors only; reusing k
    /// leaks the plaintext XOR). Fails with `EmptyMessage` for an empty `msg`,
    /// `InvalidSecretKey` for k outside [1, n-1] and `KdfZero` when the key stream is all
    /// zero.
    pub fn encrypt_with_nonce(
        &self,
        k: &FieldBytes,
        msg: &[u8],
        layout: Layout,
    ) -> Result<Vec<u8>, Error> {
        if msg.is_empty() {
            return Err(Error::EmptyMessage);
        }
        let scalar: Option<NonZeroScalar> = NonZeroScalar::from_repr(*k).into_option();
        let scalar = scalar.ok_or(Error::InvalidSecretKey)?;
        let mut k = scalar.to_canonical_limbs();
        let out = self.encrypt_limbs(&k, None, msg, layout);
        k.zeroize();
        out
    }

    /// Encrypts `msg` with the next k and C1 = k·G of `pool` (made ahead in batches, see
    /// [`KeyPool`]; a refill draws from `rng` when the pool is empty). This moves the k·G
    /// out of the encryption into the refill, for callers that want each encryption quick
    /// and can refill at quiet times; it saves nothing overall, since [`Self::encrypt`]
    /// already shares one inversion between k·G and k·P. Fails with [`Error::EmptyMessage`]
    /// for an empty `msg`, [`Error::Rng`] if a refill's generator fails.
    ///
    /// ```
    /// use shangmi_sm2::{keys::KeyPool, pke::{DecryptingKey, Layout}};
    /// let key = DecryptingKey::random(&mut rand::rng())?;
    /// let mut pool = KeyPool::new();
    /// let ct = key.encrypting_key().encrypt_with_pool(&mut pool, &mut rand::rng(), b"hi", Layout::C1C3C2)?;
    /// assert_eq!(key.decrypt(&ct, Layout::C1C3C2)?, b"hi");
    /// # Ok::<(), shangmi_sm2::Error>(())
    /// ```
    pub fn encrypt_with_pool<R: TryCryptoRng + ?Sized>(
        &self,
        pool: &mut KeyPool,
        rng: &mut R,
        msg: &[u8],
        layout: Layout,
    ) -> Result<Vec<u8>, Error> {
        until_usable(msg, || {
            let (mut k, c1) = pool.take(rng)?;
            let mut kl = limbs::from_be_bytes(&k);
            k.zeroize();
            let r = self.encrypt_limbs(&kl, Some(c1), msg, layout);
            kl.zeroize();
            r
        })
    }

    /// Encryption with k in [1, n-1] as limbs, and C1 = k·G if the caller has it.
    fn encrypt_limbs(
        &self,
        k: &Limbs,
        c1: Option<Affine>,
        msg: &[u8],
        layout: Layout,
    ) -> Result<Vec<u8>, Error> {
        let p = crate::curve::affine_from_primeorder(self.public.as_affine())
            .ok_or(Error::InvalidPoint)?;
        // k·P is never the identity (P has prime order n, k is in [1, n-1]), nor is k·G: when
        // the caller has no C1, both go affine with one shared inversion.
        let kp = mul_ct(k, &p);
        if kp.is_infinity() != 0 {
            return Err(Error::InvalidPoint);
        }
        let (c1, shared) = match c1 {
            Some(c1) => (c1, kp.to_affine().0),
            None => {
                let [c1, shared] = Jacobian::batch_to_affine(&[mul_g(k), kp]);
                (c1, shared)
            }
        };
        let (mut x2, mut y2) = (shared.x.to_be_bytes(), shared.y.to_be_bytes());
        let mut c2 = msg.to_vec();
        let ok = kdf_xor(&x2, &y2, &mut c2);
        let hash = c3(&x2, msg, &y2);
        x2.zeroize();
        y2.zeroize();
        if !ok {
            return Err(Error::KdfZero);
        }
        let mut xy = [0u8; 64];
        xy[..32].copy_from_slice(&c1.x.to_be_bytes());
        xy[32..].copy_from_slice(&c1.y.to_be_bytes());
        Ok(assemble(&xy, &hash, &c2, layout))
    }
}

/// The first result of `attempt` (an encryption of `msg`) whose k was usable: a k out of
/// range (a random draw) or whose key stream is all zero (probability about 2^-256) is
/// drawn again. [`Error::EmptyMessage`] for an empty `msg`, before any draw.
fn until_usable(
    msg: &[u8],
    mut attempt: impl FnMut() -> Result<Vec<u8>, Error>,
) -> Result<Vec<u8>, Error> {
    if msg.is_empty() {
        return Err(Error::EmptyMessage);
    }
    loop {
        match attempt() {
            Err(Error::InvalidSecretKey) | Err(Error::KdfZero) => continue,
            other => return other,
        }
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

    /// From a 32-byte big-endian secret in [1, n-1] (as [`SecretKey::from_bytes`]).
    pub fn from_bytes(d: &FieldBytes) -> Result<Self, Error> {
        Ok(Self::new(
            SecretKey::from_bytes(d).map_err(|_| Error::InvalidSecretKey)?,
        ))
    }

    /// The secret key (for encoding it: `EncodePrivateKey`, `keys::secret_key_to_pkcs8_der`).
    pub fn secret_key(&self) -> &SecretKey {
        &self.secret
    }

    /// The matching encryption key.
    pub fn encrypting_key(&self) -> &EncryptingKey {
        &self.encrypting_key
    }

    /// Decrypts a ciphertext in the given layout (prefixed layouts accept C1 compressed or
    /// uncompressed). Fails with [`Error::EmptyMessage`] when C2 is empty and
    /// [`Error::Decryption`] for everything else that is wrong.
    pub fn decrypt(&self, ct: &[u8], layout: Layout) -> Result<Vec<u8>, Error> {
        let (c1, hash, c2) = split(ct, layout)?;
        if c2.is_empty() {
            return Err(Error::EmptyMessage);
        }
        self.decrypt_parts(&decode_c1(c1)?, hash, c2)
    }

    /// Decrypts the ASN.1 form (errors as [`DecryptingKey::decrypt`]).
    pub fn decrypt_der(&self, der: &[u8]) -> Result<Vec<u8>, Error> {
        let (c1, hash, c2) = parse_der(der)?;
        if c2.is_empty() {
            return Err(Error::EmptyMessage);
        }
        self.decrypt_parts(&decode_c1(&c1)?, hash, c2)
    }

    fn decrypt_parts(&self, c1: &PublicKey, hash: &[u8], c2: &[u8]) -> Result<Vec<u8>, Error> {
        let mut msg = alloc::vec![0u8; c2.len()];
        decrypt_parts_into(&self.secret, c1, hash, c2, &mut msg)?;
        Ok(msg)
    }
}

/// Decrypts a `C1 ‖ C3 ‖ C2` ciphertext (C1 compressed or not) with `secret` into `out`,
/// returning the plaintext's length: the one decryption of [`DecryptingKey`] and of the
/// in-memory `PrivateKeyOps` keys, which need no public key and no heap for it. Errors as
/// [`DecryptingKey::decrypt`]; `out` shorter than C2 is [`Error::Decryption`].
pub(crate) fn decrypt_c1c3c2_into(
    secret: &SecretKey,
    ct: &[u8],
    out: &mut [u8],
) -> Result<usize, Error> {
    let (c1, hash, c2) = split(ct, Layout::C1C3C2)?;
    if c2.is_empty() {
        return Err(Error::EmptyMessage);
    }
    decrypt_parts_into(secret, &decode_c1(c1)?, hash, c2, out)
}

/// C2 decrypted into `out` when C3 matches (wiped otherwise); the plaintext's length.
fn decrypt_parts_into(
    secret: &SecretKey,
    c1: &PublicKey,
    hash: &[u8],
    c2: &[u8],
    out: &mut [u8],
) -> Result<usize, Error> {
    let msg = out.get_mut(..c2.len()).ok_or(Error::Decryption)?;
    let (mut x2, mut y2) = crate::curve::mul_point_ct(c1.as_affine(), &secret.to_nonzero_scalar())
        .ok_or(Error::Decryption)?;
    msg.copy_from_slice(c2);
    let ok = kdf_xor(&x2, &y2, msg);
    let expect = c3(&x2, msg, &y2);
    x2.zeroize();
    y2.zeroize();
    if !ok || !bool::from(expect.ct_eq(hash)) {
        msg.zeroize();
        return Err(Error::Decryption);
    }
    Ok(c2.len())
}

/// `04 ‖ x ‖ y ‖ C3 ‖ C2` to the GM/T 0009 ASN.1 form.
fn raw_to_der(raw: &[u8]) -> Result<Vec<u8>, Error> {
    let (c1, rest) = raw.split_at_checked(65).ok_or(Error::Decryption)?;
    let (hash, c2) = rest.split_at_checked(32).ok_or(Error::Decryption)?;
    let xy: &C1 = c1[1..].try_into().map_err(|_| Error::Decryption)?;
    asn1::encode_ciphertext(xy, hash, c2).map_err(|_| Error::Decryption)
}

/// Parses the ASN.1 ciphertext strictly (see `asn1.rs`).
fn parse_der(der: &[u8]) -> Result<asn1::CiphertextParts<'_>, Error> {
    asn1::decode_ciphertext(der).map_err(|_| Error::Decryption)
}

/// Converts between layouts without decrypting (for interoperability). The point C1 is
/// checked (and decompressed or compressed as `to` needs); C2 and C3 are copied as they are.
pub fn convert(ct: &[u8], from: Layout, to: Layout) -> Result<Vec<u8>, Error> {
    let (c1, hash, c2) = split(ct, from)?;
    Ok(assemble(&xy(&decode_c1(c1)?), hash, c2, to))
}

/// A ciphertext's parts as the fixed-field structures of crypto devices hold them (GM/T
/// 0018's `ECCCipher`, GM/T 0016's `ECCCIPHERBLOB`: C1's x and y, C3, then C2): the one
/// splitter and joiner behind every device interface and test device.
///
/// ```
/// use shangmi_sm2::pke::{DecryptingKey, Layout, Parts};
/// let dk = DecryptingKey::from_bytes(&[5u8; 32].into()).unwrap();
/// let ct = dk.encrypting_key().encrypt(&mut getrandom::SysRng, b"hi", Layout::C1C2C3Compressed).unwrap();
/// let parts = Parts::split(&ct, Layout::C1C2C3)?; // C1 checked and decompressed
/// assert_eq!(parts.c2.len(), 2);
/// assert_eq!(dk.decrypt(&parts.join(Layout::C1C3C2), Layout::C1C3C2)?, b"hi");
/// # Ok::<(), shangmi_sm2::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parts<'a> {
    /// C1's x coordinate.
    pub x: [u8; 32],
    /// C1's y coordinate.
    pub y: [u8; 32],
    /// C3 = SM3(x2 ‖ M ‖ y2).
    pub c3: &'a [u8; 32],
    /// C2, as long as the message.
    pub c2: &'a [u8],
}

impl<'a> Parts<'a> {
    /// Splits a ciphertext in `layout` (C1 compressed or not where the layout has a tag):
    /// C1 must be on the curve ([`Error::Decryption`] otherwise, as for a short or
    /// malformed ciphertext) and C2 not empty ([`Error::EmptyMessage`]).
    pub fn split(ct: &'a [u8], layout: Layout) -> Result<Self, Error> {
        let (c1, c3, c2) = split(ct, layout)?;
        if c2.is_empty() {
            return Err(Error::EmptyMessage);
        }
        let c1 = xy(&decode_c1(c1)?);
        let (mut x, mut y) = ([0u8; 32], [0u8; 32]);
        x.copy_from_slice(&c1[..32]);
        y.copy_from_slice(&c1[32..]);
        let c3 = c3.try_into().map_err(|_| Error::Decryption)?;
        Ok(Parts { x, y, c3, c2 })
    }

    /// The ciphertext in `layout`. C1 is written as given, unchecked: decryption checks it.
    pub fn join(&self, layout: Layout) -> Vec<u8> {
        let mut c1 = [0u8; 64];
        c1[..32].copy_from_slice(&self.x);
        c1[32..].copy_from_slice(&self.y);
        assemble(&c1, self.c3, self.c2, layout)
    }
}

/// The ASN.1 form to `04 ‖ x ‖ y ‖ C3 ‖ C2`.
pub fn der_to_c1c3c2(der: &[u8]) -> Result<Vec<u8>, Error> {
    let (c1, hash, c2) = parse_der(der)?;
    Ok(assemble(&c1, hash, c2, Layout::C1C3C2))
}

/// `C1 ‖ C3 ‖ C2` (C1 uncompressed or compressed) to the ASN.1 form.
pub fn c1c3c2_to_der(ct: &[u8]) -> Result<Vec<u8>, Error> {
    let (c1, hash, c2) = split(ct, Layout::C1C3C2)?;
    let c1 = if c1.len() == 65 {
        let mut out = [0u8; 64];
        out.copy_from_slice(&c1[1..]);
        out
    } else {
        xy(&decode_c1(c1)?)
    };
    raw_to_der(&assemble(&c1, hash, c2, Layout::C1C3C2))
}

#[cfg(test)]
mod parts_tests {
    use super::*;

    #[test]
    fn parts_split_checked_and_join_back() {
        let dk = DecryptingKey::from_bytes(&[7u8; 32].into()).unwrap();
        let ct = dk
            .encrypting_key()
            .encrypt_with_nonce(&[9u8; 32].into(), b"parts", Layout::C1C3C2)
            .unwrap();
        let parts = Parts::split(&ct, Layout::C1C3C2).unwrap();
        assert_eq!((&parts.x[..], &parts.y[..]), (&ct[1..33], &ct[33..65]));
        assert_eq!((&parts.c3[..], parts.c2), (&ct[65..97], &ct[97..]));
        assert_eq!(parts.join(Layout::C1C3C2), ct);
        // Too short, C2 empty, C1 off the curve.
        assert_eq!(
            Parts::split(&ct[..96], Layout::C1C3C2),
            Err(Error::Decryption)
        );
        assert_eq!(
            Parts::split(&ct[..97], Layout::C1C3C2),
            Err(Error::EmptyMessage)
        );
        let mut off = ct.clone();
        off[64] ^= 1;
        assert_eq!(Parts::split(&off, Layout::C1C3C2), Err(Error::Decryption));
    }
}
