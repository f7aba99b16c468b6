//! The SM2 structures GM/T 0018 (SDF) and GM/T 0016 (SKF) share, included by those two test
//! devices (`#[path = "../../ecc.rs"] mod ecc;`): `ECCrefPublicKey` / `ECCPUBLICKEYBLOB`,
//! `ECCSignature` / `ECCSIGNATUREBLOB`, and the head of `ECCCipher` / `ECCCIPHERBLOB`
//! (field layout from GmSSL 3.3's `sdf.h` and `skf.h`). Coordinates and scalars stand
//! right-aligned in 64-byte fields.

use shangmi_sm2::dsa::Signature;
use shangmi_sm2::elliptic_curve::sec1::ToSec1Point;
use shangmi_sm2::pke::{Layout, Parts};

/// `ECCrefPublicKey` / `ECCPUBLICKEYBLOB`.
#[repr(C)]
pub struct EccPublicKey {
    pub(crate) bits: u32,
    pub(crate) x: [u8; 64],
    pub(crate) y: [u8; 64],
}

impl EccPublicKey {
    /// `key`'s coordinates, with the bit length `bits` (256, or another to test refusals).
    pub(crate) fn new(key: &shangmi_sm2::PublicKey, bits: u32) -> Self {
        let point = key.to_sec1_point(false);
        let mut p = EccPublicKey {
            bits,
            x: [0; 64],
            y: [0; 64],
        };
        p.x[32..].copy_from_slice(&point.as_bytes()[1..33]);
        p.y[32..].copy_from_slice(&point.as_bytes()[33..65]);
        p
    }
}

/// `ECCSignature` / `ECCSIGNATUREBLOB`.
#[repr(C)]
pub struct EccSignature {
    pub(crate) r: [u8; 64],
    pub(crate) s: [u8; 64],
}

impl EccSignature {
    /// `signature`'s r and s.
    pub(crate) fn new(signature: &Signature) -> Self {
        let mut out = EccSignature {
            r: [0; 64],
            s: [0; 64],
        };
        out.r[32..].copy_from_slice(signature.r());
        out.s[32..].copy_from_slice(signature.s());
        out
    }
}

/// The head of `ECCCipher` / `ECCCIPHERBLOB`: C1's coordinates, C3, and the length of C2,
/// whose bytes follow it.
#[repr(C)]
pub struct EccCipherHead {
    pub(crate) x: [u8; 64],
    pub(crate) y: [u8; 64],
    pub(crate) hash: [u8; 32],
    pub(crate) len: u32,
}

impl EccCipherHead {
    /// The ciphertext C1 ‖ C3 ‖ C2 of the structure at `cipher` (C2 the `len` bytes after
    /// the head).
    ///
    /// # Safety
    /// `cipher` is readable as a head followed by its `len` bytes of C2.
    pub(crate) unsafe fn c1c3c2(cipher: *const EccCipherHead) -> Vec<u8> {
        // SAFETY: readable as a head by the caller's contract.
        let head = unsafe { &*cipher };
        // SAFETY: C2's `len` bytes follow the head (caller's contract).
        let c2 = unsafe {
            core::slice::from_raw_parts(
                cipher.cast::<u8>().add(size_of::<EccCipherHead>()),
                head.len as usize,
            )
        };
        let (mut x, mut y) = ([0u8; 32], [0u8; 32]);
        x.copy_from_slice(&head.x[32..]);
        y.copy_from_slice(&head.y[32..]);
        Parts {
            x,
            y,
            c3: &head.hash,
            c2,
        }
        .join(Layout::C1C3C2)
    }
}
