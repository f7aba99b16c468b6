//! [`SkfKey`]: one key pair of a container behind [`PrivateKeyOps`].
//!
//! `SKF_ECCSignData` signs a **prepared digest**: e = SM3(Z_A ‖ M), with Z_A computed here
//! from the exported public key and the identifier ([`PrivateKeyOps::sign_with_id`]; the
//! default identifier `1234567812345678` with [`PrivateKeyOps::sign`]). `SKF_ECCDecrypt`
//! takes the ciphertext as an `ECCCIPHERBLOB` (C1's coordinates, C3, then C2).

use crate::device::{ContInner, Container, ContainerType, KeyUsage};
use crate::error::{SkfError, check};
use crate::ffi::{EccSignature, Functions};
use shangmi_device::bad_output;
use shangmi_sm2::dsa::Signature;
use shangmi_sm2::{PrivateKeyOps, PublicKey};

pub use shangmi_device::MAX_PLAINTEXT;

/// A key pair inside an SKF container: the sign pair (signs) or the encryption pair
/// (decrypts). Open it after [`Application::verify_pin`](crate::Application::verify_pin).
#[derive(Clone)]
pub struct SkfKey {
    container: Container,
    usage: KeyUsage,
    public: PublicKey,
}

impl core::fmt::Debug for SkfKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SkfKey")
            .field("container", &self.container.name())
            .field("usage", &self.usage)
            .finish_non_exhaustive()
    }
}

impl SkfKey {
    /// Takes the pair `usage` of `container`: exports and checks its public key, and checks
    /// now that the library has the function the key will need (`SKF_ECCSignData` for a
    /// sign key, `SKF_ECCDecrypt` for an encryption key: [`SkfError::MissingSymbol`]) and,
    /// where the library reports it, that the container holds ECC keys.
    pub fn open(container: &Container, usage: KeyUsage) -> Result<Self, SkfError> {
        let caps = container.capabilities();
        caps.require(match usage {
            KeyUsage::Sign => "SKF_ECCSignData",
            KeyUsage::Encrypt => "SKF_ECCDecrypt",
        })?;
        if caps.has("SKF_GetContainerType") {
            match container.container_type()? {
                ContainerType::Ecc => {}
                _ => return Err(SkfError::Unsupported("the container holds no SM2 keys")),
            }
        }
        let public = container.public_key(usage)?;
        Ok(SkfKey {
            container: container.clone(),
            usage,
            public,
        })
    }

    /// Which pair.
    pub fn usage(&self) -> KeyUsage {
        self.usage
    }

    /// The container.
    pub fn container(&self) -> &Container {
        &self.container
    }

    /// The certificate stored with this pair, if any (see
    /// [`Container::certificate`]).
    pub fn certificate(&self) -> Result<Option<Vec<u8>>, SkfError> {
        self.container.certificate(self.usage)
    }

    /// The open container and the optional function `pick` takes from the table (its C
    /// name `name`) for an operation of a `usage` pair; another pair is `refusal`.
    fn function<T>(
        &self,
        usage: KeyUsage,
        refusal: &'static str,
        name: &'static str,
        pick: impl FnOnce(&Functions) -> Option<T>,
    ) -> Result<(&ContInner, T), SkfError> {
        if self.usage != usage {
            return Err(SkfError::Unsupported(refusal));
        }
        let c = &self.container.0;
        let f = pick(&c.shared().lib.fns).ok_or(SkfError::MissingSymbol(name))?;
        Ok((c, f))
    }
}

/// No key exchange: GM/T 0016's agreement functions return a key handle, never key
/// material (see [`shangmi_device::NoKeyExchange`]).
pub type NoKeyExchange = shangmi_device::NoKeyExchange<SkfError>;

impl PrivateKeyOps for SkfKey {
    type Error = SkfError;
    type KeyExchange = NoKeyExchange;

    fn public_key(&self) -> PublicKey {
        self.public
    }

    fn sign_digest(&self, e: &[u8; 32]) -> Result<Signature, SkfError> {
        const NAME: &str = "SKF_ECCSignData";
        let refusal = "an SKF encryption key does not sign";
        let (c, f) = self.function(KeyUsage::Sign, refusal, NAME, |f| f.ecc_sign_data)?;
        let shared = c.shared();
        let mut sig = EccSignature::ZERO;
        {
            let _g = shared.lock();
            // SAFETY: an open container; `e` is readable for 32 bytes and `sig` is an
            // `ECCSIGNATUREBLOB`-sized out-parameter.
            check(NAME, unsafe { f(c.handle, e.as_ptr(), 32, &mut sig) })?;
        }
        sig.to_signature().map_err(bad_output(NAME))
    }

    fn decrypt_into(&self, c1c3c2: &[u8], out: &mut [u8]) -> Result<usize, SkfError> {
        const NAME: &str = "SKF_ECCDecrypt";
        let refusal = "an SKF sign key does not decrypt";
        let (c, f) = self.function(KeyUsage::Encrypt, refusal, NAME, |f| f.ecc_decrypt)?;
        let shared = c.shared();
        shangmi_device::decrypt_through(
            c1c3c2,
            out,
            |cipher, plain, len| {
                let _g = shared.lock();
                // SAFETY: an open container; `cipher` is an `ECCCIPHERBLOB` whose body holds
                // `CipherLen` bytes; `plain` is writable for MAX_PLAINTEXT bytes, which `len`
                // says on input.
                check(NAME, unsafe {
                    f(c.handle, cipher, plain.as_mut_ptr(), len)
                })
            },
            bad_output(NAME),
        )
    }

    shangmi_device::no_key_exchange!(
        NoKeyExchange,
        SkfError,
        SkfError::Unsupported(
            "SM2 key exchange: SKF's agreement functions return a key handle, not key material",
        )
    );
}
