//! [`SdfKey`]: one key pair of a device behind [`PrivateKeyOps`].
//!
//! `SDF_InternalSign_ECC` signs a prepared digest, so Z_A and e = SM3(Z_A ‖ M) are computed
//! here from the exported public key; `SDF_InternalDecrypt_ECC` takes the ciphertext as an
//! `ECCCipher` (C1's coordinates, C3, then C2).

use crate::agree::{KxFunctions, SdfKx};
use crate::device::{KeyUsage, Pin, Pool, PoolOptions, SdfDevice, export_public};
use crate::error::{SdfError, check};
use crate::ffi::{EccSignature, SGD_SM2_3};
use rand_core::TryCryptoRng;
use shangmi_device::{FunctionTable, bad_output};
use shangmi_sm2::dsa::{Signature, VerifyingKey};
use shangmi_sm2::kx::Role;
use shangmi_sm2::{PrivateKeyOps, PublicKey};
use std::sync::Arc;

pub use shangmi_device::MAX_PLAINTEXT;

/// A key pair inside an SDF device: the sign pair or the encryption pair at an index, with
/// a pool of sessions that hold the access right.
pub struct SdfKey {
    device: SdfDevice,
    index: u32,
    usage: KeyUsage,
    public: PublicKey,
    /// The public key with Z_A for the default identifier, computed once (TLCP signs with
    /// it on every handshake).
    default_id: VerifyingKey,
    pool: Arc<Pool>,
    /// The agreement functions, for an encryption key whose device ran them when opened.
    kx: Option<KxFunctions>,
}

impl core::fmt::Debug for SdfKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SdfKey")
            .field("index", &self.index)
            .field("usage", &self.usage)
            .finish_non_exhaustive()
    }
}

impl SdfKey {
    /// Opens the pair `usage` at `index`: exports its public key, opens the session pool and
    /// gets the access right on each session with `pin` (zeroized when this returns; a
    /// wrong PIN is the device's `SDR_PARDENY` or `SDR_PRKRERR`, see
    /// [`SdfError::is_access_denied`]).
    ///
    /// An encryption key whose device exports the agreement and keyed-hash functions runs
    /// one agreement here to learn whether the device does them (see
    /// [`supports_key_exchange`](PrivateKeyOps::supports_key_exchange)).
    pub fn open(
        device: &SdfDevice,
        index: u32,
        usage: KeyUsage,
        pin: Pin,
        options: PoolOptions,
    ) -> Result<Self, SdfError> {
        let public = export_public(&device.session()?, index, usage)?;
        let pool = Arc::new(Pool::open(device, index, pin, options)?);
        let kx = match usage {
            // SAFETY: the key keeps its device, hence the library, as long as it keeps the
            // table (whose types `agree.rs` declares as the GM/T 0018 signatures).
            KeyUsage::Encrypt => unsafe { KxFunctions::resolve(device.0.lib.library()) }
                .ok()
                .filter(|&fns| crate::agree::probe(fns, &pool, index)),
            KeyUsage::Sign => None,
        };
        Ok(SdfKey {
            device: device.clone(),
            index,
            usage,
            public,
            default_id: VerifyingKey::new(&public),
            pool,
            kx,
        })
    }

    /// The key index.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// Which pair.
    pub fn usage(&self) -> KeyUsage {
        self.usage
    }

    /// The device.
    pub fn device(&self) -> &SdfDevice {
        &self.device
    }

    fn require(&self, usage: KeyUsage, what: &'static str) -> Result<(), SdfError> {
        if self.usage == usage {
            Ok(())
        } else {
            Err(SdfError::Unsupported(what))
        }
    }
}

impl PrivateKeyOps for SdfKey {
    type Error = SdfError;
    type KeyExchange = SdfKx;

    fn public_key(&self) -> PublicKey {
        self.public
    }

    /// With the default identifier's Z_A kept from [`SdfKey::open`].
    fn sign(&self, msg: &[u8]) -> Result<Signature, SdfError> {
        self.sign_digest(&self.default_id.hash_message(msg))
    }

    fn sign_digest(&self, e: &[u8; 32]) -> Result<Signature, SdfError> {
        self.require(KeyUsage::Sign, "an SDF encryption key does not sign")?;
        const NAME: &str = "SDF_InternalSign_ECC";
        let mut sig = EccSignature::ZERO;
        self.pool.with(|s| {
            // SAFETY: an open session with the access right; `e` is readable for 32 bytes
            // and `sig` is an `ECCSignature`-sized out-parameter.
            check(NAME, unsafe {
                (s.device.lib.fns.internal_sign)(s.handle, self.index, e.as_ptr(), 32, &mut sig)
            })
        })?;
        sig.to_signature().map_err(bad_output(NAME))
    }

    fn decrypt_into(&self, c1c3c2: &[u8], out: &mut [u8]) -> Result<usize, SdfError> {
        const NAME: &str = "SDF_InternalDecrypt_ECC";
        self.require(KeyUsage::Encrypt, "an SDF sign key does not decrypt")?;
        let f = self
            .device
            .0
            .lib
            .fns
            .internal_decrypt
            .ok_or(SdfError::MissingSymbol(NAME))?;
        shangmi_device::decrypt_through(
            c1c3c2,
            out,
            |cipher, plain, len| {
                self.pool.with(|s| {
                    // SAFETY: an open session with the access right; `cipher` is an
                    // `ECCCipher` whose body holds `L` bytes and more; `plain` is writable
                    // for MAX_PLAINTEXT bytes, which `len` says on input (implementations
                    // that read it) and C2's length bounds (those that do not).
                    check(NAME, unsafe {
                        f(
                            s.handle,
                            self.index,
                            SGD_SM2_3,
                            cipher,
                            plain.as_mut_ptr(),
                            len,
                        )
                    })
                })
            },
            bad_output(NAME),
        )
    }

    /// True for an encryption key whose device ran the agreement and its keyed hash when
    /// the key was opened (GM/T 0018-2023 devices); false for a sign key and for devices
    /// without them (GM/T 0018-2012 has no keyed hash with a key handle; GmSSL's SoftSDF
    /// answers `SDR_NOTSUPPORT` to the agreement).
    fn supports_key_exchange(&self) -> bool {
        self.kx.is_some()
    }

    /// With the device's own ephemeral key; the agreed key stays in the device
    /// ([`SdfKx`]). As the responder ([`Role::Responder`], TLCP's client) the device makes
    /// its ephemeral point and the key in one call when the exchange finishes, so the point
    /// comes from [`HeldKey::ephemeral_public`](shangmi_sm2::HeldKey::ephemeral_public).
    fn start_key_exchange<R: TryCryptoRng + ?Sized>(
        &self,
        _: &mut R,
        role: Role,
        id: &[u8],
    ) -> Result<SdfKx, SdfError> {
        let fns = self.kx.ok_or(SdfError::Unsupported(
            "SM2 key exchange: the device has no SDF_GenerateAgreementDataWithECC/\
             SDF_GenerateKeyWithECC with SDF_HMACInit (GM/T 0018-2023), or refused them",
        ))?;
        match role {
            Role::Initiator => SdfKx::start(fns, &self.pool, self.index, id),
            Role::Responder => SdfKx::respond(fns, &self.pool, self.index, id, self.public),
        }
    }
}
