//! TLCP's ECDHE with the encryption key in the device: the SM2 key agreement of GM/T 0018
//! (GB/T 36322-2018 §6.3) ends in a key *handle*, never key bytes, so the premaster stays
//! in the device and TLCP's master secret — PRF(premaster, …), four HMAC-SM3s keyed with
//! the premaster — is computed there by GM/T 0018-2023's keyed hash
//! (`SDF_HMACInit(session, key handle, SGD_SM3)`, `SDF_HMACUpdate`, `SDF_HMACFinal`).
//! Only the master secret leaves the device, as with any TLCP record layer on the host.
//!
//! TLCP's server is the sponsor (`SDF_GenerateAgreementDataWithECC`, then
//! `SDF_GenerateKeyWithECC`): it sends its ephemeral point in ServerKeyExchange before it
//! sees the client's. The agreement is tied to the session that started it, so a server's
//! exchange keeps one of the key's sessions until it ends. TLCP's client is the responder
//! (`SDF_GenerateAgreementDataAndKeyWithECC`: its ephemeral point and the key in one call,
//! once the server's point is known), so its point comes out with the key
//! ([`HeldKey::ephemeral_public`]).
//!
//! A device without these functions (GM/T 0018-2012 editions have no keyed hash; GmSSL's
//! SoftSDF answers `SDR_NOTSUPPORT` to the agreement) is found when the key is opened: the
//! key then says it cannot run the exchange and TLCP leaves out the ECDHE suites.

use crate::device::{Lease, Pool};
use crate::error::{SdfError, check};
use crate::ffi::{
    DestroyKey, EccPublicKey, GenerateAgreementData, GenerateAgreementDataAndKey,
    GenerateKeyWithEcc, Handle, HmacFinal, HmacInit, HmacUpdate, SGD_SM3,
};
use core::ffi::c_uint;
use shangmi_device::{bad_output, right_align};
use shangmi_sm2::elliptic_curve::sec1::ToSec1Point;
use shangmi_sm2::{HeldKey, KeyAgreement, Peer, PublicKey};
use std::sync::Arc;

/// The agreed key's length: TLCP's 48-byte premaster. GM/T 0018 fixes it when the sponsor
/// starts (`uiKeyBits`), before the caller of [`KeyAgreement::finish_held`] names it.
pub(crate) const AGREED_BITS: c_uint = 384;

shangmi_device::function_table! {
    /// The agreement and keyed-hash functions (GM/T 0018-2012 §6.3, GM/T 0018-2023 §6.6);
    /// a device key has them if the library exports all the required ones.
    #[derive(Clone, Copy)]
    // SAFETY: each type is the GM/T 0018 signature of the named function.
    pub(crate) unsafe struct KxFunctions {
        start: required GenerateAgreementData = "SDF_GenerateAgreementDataWithECC",
        finish: required GenerateKeyWithEcc = "SDF_GenerateKeyWithECC",
        respond: optional GenerateAgreementDataAndKey = "SDF_GenerateAgreementDataAndKeyWithECC",
        hmac_init: required HmacInit = "SDF_HMACInit",
        hmac_update: required HmacUpdate = "SDF_HMACUpdate",
        hmac_final: required HmacFinal = "SDF_HMACFinal",
        destroy: required DestroyKey = "SDF_DestroyKey",
    }
}

/// A public key as `ECCrefPublicKey`.
fn raw_public(key: &PublicKey) -> EccPublicKey {
    let point = key.to_sec1_point(false);
    let bytes = point.as_bytes();
    let (mut x, mut y) = ([0u8; 32], [0u8; 32]);
    x.copy_from_slice(&bytes[1..33]);
    y.copy_from_slice(&bytes[33..65]);
    EccPublicKey {
        bits: 256,
        x: right_align(&x),
        y: right_align(&y),
    }
}

fn id_len(id: &[u8]) -> Result<c_uint, SdfError> {
    c_uint::try_from(id.len()).map_err(|_| SdfError::Unsupported("an identifier over 4 GiB"))
}

/// The device's agreement handle (an opaque token of the session that made it).
struct AgreementHandle(Handle);

// SAFETY: an opaque token; GM/T 0018 lets a session (and what it made) be used from any
// thread one call at a time, and the exchange that owns it is used by one thread at a time.
unsafe impl Send for AgreementHandle {}

/// One started agreement.
pub struct SdfKx {
    fns: KxFunctions,
    started: Started,
}

enum Started {
    /// The device made its ephemeral key and holds the agreement on `session`.
    Sponsor {
        session: Lease,
        handle: AgreementHandle,
        ephemeral: PublicKey,
    },
    /// Nothing asked of the device yet: it makes its point and the key when finishing.
    Responder {
        pool: Arc<Pool>,
        index: u32,
        id: Vec<u8>,
        public: PublicKey,
    },
}

impl core::fmt::Debug for SdfKx {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SdfKx").finish_non_exhaustive()
    }
}

impl SdfKx {
    /// The sponsor's first step on a session of `pool`: `SDF_GenerateAgreementDataWithECC`
    /// for the encryption key at `index` with identifier `id`.
    pub(crate) fn start(
        fns: KxFunctions,
        pool: &Arc<Pool>,
        index: u32,
        id: &[u8],
    ) -> Result<Self, SdfError> {
        const NAME: &str = "SDF_GenerateAgreementDataWithECC";
        let session = pool.lease()?;
        let (mut own, mut ephemeral) = (EccPublicKey::ZERO, EccPublicKey::ZERO);
        let mut handle: Handle = core::ptr::null_mut();
        // SAFETY: an open session with the access right to `index`; `id` is readable for
        // its length; the two public keys and the handle are valid out-parameters.
        check(NAME, unsafe {
            (fns.start)(
                session.handle,
                index,
                AGREED_BITS,
                id.as_ptr(),
                id_len(id)?,
                &mut own,
                &mut ephemeral,
                &mut handle,
            )
        })?;
        let ephemeral = ephemeral
            .to_public_key()
            .map_err(bad_output::<SdfError>(NAME))?;
        Ok(SdfKx {
            fns,
            started: Started::Sponsor {
                session,
                handle: AgreementHandle(handle),
                ephemeral,
            },
        })
    }

    /// The responder, which asks nothing of the device until it finishes (the device makes
    /// its ephemeral key and the agreed key in one call); `public` is the key's own.
    pub(crate) fn respond(
        fns: KxFunctions,
        pool: &Arc<Pool>,
        index: u32,
        id: &[u8],
        public: PublicKey,
    ) -> Result<Self, SdfError> {
        fns.respond.ok_or(SdfError::MissingSymbol(
            "SDF_GenerateAgreementDataAndKeyWithECC",
        ))?;
        Ok(SdfKx {
            fns,
            started: Started::Responder {
                pool: pool.clone(),
                index,
                id: id.to_vec(),
                public,
            },
        })
    }
}

impl KeyAgreement for SdfKx {
    type Error = SdfError;

    /// The sponsor's ephemeral point; for the responder, which makes its point only as it
    /// finishes ([`HeldKey::ephemeral_public`]), the key's static public key.
    fn ephemeral_public(&self) -> PublicKey {
        match &self.started {
            Started::Sponsor { ephemeral, .. } => *ephemeral,
            Started::Responder { public, .. } => *public,
        }
    }

    /// Refused: the device keeps the agreed key ([`finish_held`](Self::finish_held)).
    fn finish(self, _: Peer<'_>, _: &mut [u8]) -> Result<(), SdfError> {
        Err(SdfError::Unsupported(
            "the agreed key stays in the device: only a keyed hash with it can be had",
        ))
    }

    fn holds_output(&self) -> bool {
        true
    }

    /// The sponsor: `SDF_GenerateKeyWithECC` with the responder's key, identifier and
    /// ephemeral point. The responder: `SDF_GenerateAgreementDataAndKeyWithECC` with the
    /// sponsor's. Then `use_key` with the key handle behind the device's HMAC-SM3; the
    /// handle is destroyed after (`SDF_DestroyKey`), whatever `use_key` returned.
    fn finish_held<T>(
        self,
        peer: Peer<'_>,
        klen: usize,
        use_key: impl FnOnce(&mut dyn HeldKey<SdfError>) -> Result<T, SdfError>,
    ) -> Result<T, SdfError> {
        if klen != AGREED_BITS as usize / 8 {
            return Err(SdfError::Unsupported(
                "a device agreement other than TLCP's 48-byte premaster",
            ));
        }
        let (public, ephemeral) = (raw_public(peer.public), raw_public(peer.ephemeral));
        let mut key: Handle = core::ptr::null_mut();
        let (session, own_ephemeral) = match self.started {
            Started::Sponsor {
                session,
                handle,
                ephemeral: own,
            } => {
                // SAFETY: the session that started the agreement, its handle (used once:
                // `self` is consumed), the identifier readable for its length, two
                // `ECCrefPublicKey`s and a valid out-parameter for the key handle.
                check("SDF_GenerateKeyWithECC", unsafe {
                    (self.fns.finish)(
                        session.handle,
                        peer.id.as_ptr(),
                        id_len(peer.id)?,
                        &public,
                        &ephemeral,
                        handle.0,
                        &mut key,
                    )
                })?;
                (session, own)
            }
            Started::Responder {
                pool, index, id, ..
            } => {
                const NAME: &str = "SDF_GenerateAgreementDataAndKeyWithECC";
                let f = self.fns.respond.ok_or(SdfError::MissingSymbol(NAME))?;
                let session = pool.lease()?;
                let (mut own, mut own_ephemeral) = (EccPublicKey::ZERO, EccPublicKey::ZERO);
                // SAFETY: an open session with the access right to `index`; both
                // identifiers readable for their lengths; the sponsor's keys are
                // `ECCrefPublicKey`s; our two keys and the key handle valid out-parameters.
                check(NAME, unsafe {
                    f(
                        session.handle,
                        index,
                        AGREED_BITS,
                        id.as_ptr(),
                        id_len(&id)?,
                        peer.id.as_ptr(),
                        id_len(peer.id)?,
                        &public,
                        &ephemeral,
                        &mut own,
                        &mut own_ephemeral,
                        &mut key,
                    )
                })?;
                match own_ephemeral.to_public_key() {
                    Ok(point) => (session, point),
                    Err(what) => {
                        let _ = destroy(self.fns, &session, key);
                        return Err(bad_output(NAME)(what));
                    }
                }
            }
        };
        let mut held = HeldSdfKey {
            fns: self.fns,
            session: &session,
            key,
            ephemeral: own_ephemeral,
        };
        let out = use_key(&mut held);
        let destroyed = destroy(self.fns, &session, key);
        let out = out?;
        destroyed?;
        Ok(out)
    }
}

/// The agreed key's handle behind the device's keyed hash.
struct HeldSdfKey<'a> {
    fns: KxFunctions,
    session: &'a Lease,
    key: Handle,
    ephemeral: PublicKey,
}

/// `SDF_DestroyKey` on a key handle `session` made (called once per handle).
fn destroy(fns: KxFunctions, session: &Lease, key: Handle) -> Result<(), SdfError> {
    // SAFETY: an open session and a key handle it made, destroyed once by the caller.
    check("SDF_DestroyKey", unsafe {
        (fns.destroy)(session.handle, key)
    })
}

impl HeldKey<SdfError> for HeldSdfKey<'_> {
    fn ephemeral_public(&self) -> PublicKey {
        self.ephemeral
    }
    fn hmac_sm3(&mut self, parts: &[&[u8]]) -> Result<[u8; 32], SdfError> {
        let s = self.session.handle;
        // SAFETY: an open session and a key handle it made.
        check("SDF_HMACInit", unsafe {
            (self.fns.hmac_init)(s, self.key, SGD_SM3)
        })?;
        for part in parts {
            let len = c_uint::try_from(part.len())
                .map_err(|_| SdfError::Unsupported("a keyed hash input over 4 GiB"))?;
            // SAFETY: the session's keyed hash is started; `part` is readable for `len`.
            check("SDF_HMACUpdate", unsafe {
                (self.fns.hmac_update)(s, part.as_ptr(), len)
            })?;
        }
        // Room for any digest a device might return; SM3's is 32 bytes.
        let mut mac = zeroize::Zeroizing::new([0u8; 64]);
        let mut len = mac.len() as c_uint;
        // SAFETY: the session's keyed hash is started; `mac` is writable for `len` bytes.
        check("SDF_HMACFinal", unsafe {
            (self.fns.hmac_final)(s, mac.as_mut_ptr(), &mut len)
        })?;
        if len != 32 {
            return Err(bad_output("SDF_HMACFinal")(
                "an HMAC-SM3 that is not 32 bytes",
            ));
        }
        let mut out = [0u8; 32];
        out.copy_from_slice(&mac[..32]);
        Ok(out)
    }
}

/// Whether the device runs the whole path for the encryption key at `index`: an agreement
/// with a fixed peer (public points of no secret), one keyed hash, the handle destroyed.
/// A device whose functions answer an error (`SDR_NOTSUPPORT`) has no exchange.
pub(crate) fn probe(fns: KxFunctions, pool: &Arc<Pool>, index: u32) -> bool {
    let peer = |k: u8| {
        shangmi_sm2::SecretKey::from_bytes(&[k; 32].into())
            .ok()
            .map(|s| s.public_key())
    };
    let (Some(public), Some(ephemeral)) = (peer(1), peer(2)) else {
        return false;
    };
    SdfKx::start(fns, pool, index, shangmi_sm2::DEFAULT_ID)
        .and_then(|kx| {
            kx.finish_held(
                Peer {
                    public: &public,
                    id: shangmi_sm2::DEFAULT_ID,
                    ephemeral: &ephemeral,
                },
                AGREED_BITS as usize / 8,
                |key| key.hmac_sm3(&[b"probe"]),
            )
        })
        .is_ok()
}
