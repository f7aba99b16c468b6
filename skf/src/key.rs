//! [`SkfKey`]: one key pair of a container behind [`PrivateKeyOps`].
//!
//! `SKF_ECCSignData` signs a **prepared digest**: e = SM3(Z_A ‖ M), with Z_A computed here
//! from the exported public key and the identifier ([`PrivateKeyOps::sign_with_id`]; the
//! default identifier `1234567812345678` with [`PrivateKeyOps::sign`]). `SKF_ECCDecrypt`
//! takes the ciphertext as an `ECCCIPHERBLOB` (C1's coordinates, C3, then C2).

use crate::device::{Container, ContainerType, KeyUsage, right_aligned};
use crate::error::{SkfError, check};
use crate::ffi::{CIPHER_HEAD, EccCipherHead, EccSignatureBlob, Ulong};
use rand_core::TryCryptoRng;
use shangmi_sm2::dsa::Signature;
use shangmi_sm2::kx::Role;
use shangmi_sm2::pke::Layout;
use shangmi_sm2::{KeyAgreement, PrivateKeyOps, PublicKey};
use zeroize::{Zeroize, Zeroizing};

/// The longest plaintext [`SkfKey`] decrypts (C2's length); TLCP's premaster is 48.
pub const MAX_PLAINTEXT: usize = 1024;

/// `ECCCIPHERBLOB` with room for [`MAX_PLAINTEXT`] bytes of C2.
#[repr(C)]
struct CipherBuf {
    head: EccCipherHead,
    c: [u8; MAX_PLAINTEXT],
}

const _: () = assert!(core::mem::offset_of!(CipherBuf, c) == CIPHER_HEAD);

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
}

/// No key exchange: GM/T 0016's agreement functions return a key handle, never key
/// material, so an [`SkfKey`] cannot give TLCP's ECDHE premaster (ECC suites work).
#[derive(Debug)]
pub enum NoKeyExchange {}

impl KeyAgreement for NoKeyExchange {
    type Error = SkfError;

    fn ephemeral_public(&self) -> PublicKey {
        match *self {}
    }

    fn finish(self, _: &PublicKey, _: &[u8], _: &PublicKey, _: &mut [u8]) -> Result<(), SkfError> {
        match self {}
    }
}

impl PrivateKeyOps for SkfKey {
    type Error = SkfError;
    type KeyExchange = NoKeyExchange;

    fn public_key(&self) -> PublicKey {
        self.public
    }

    fn sign_digest(&self, e: &[u8; 32]) -> Result<Signature, SkfError> {
        const NAME: &str = "SKF_ECCSignData";
        if self.usage != KeyUsage::Sign {
            return Err(SkfError::Unsupported("an SKF encryption key does not sign"));
        }
        let c = &self.container.0;
        let shared = c.shared();
        let f = shared
            .lib
            .fns
            .ecc_sign_data
            .ok_or(SkfError::MissingSymbol(NAME))?;
        let mut sig = EccSignatureBlob {
            r: [0; 64],
            s: [0; 64],
        };
        {
            let _g = shared.lock();
            // SAFETY: an open container; `e` is readable for 32 bytes and `sig` is an
            // `ECCSIGNATUREBLOB`-sized out-parameter.
            check(NAME, unsafe { f(c.handle, e.as_ptr(), 32, &mut sig) })?;
        }
        let bad = |what| SkfError::BadOutput {
            function: NAME,
            what,
        };
        let r = right_aligned(&sig.r).ok_or(bad("r wider than 32 bytes"))?;
        let s = right_aligned(&sig.s).ok_or(bad("s wider than 32 bytes"))?;
        let (mut rb, mut sb) = ([0u8; 32], [0u8; 32]);
        rb.copy_from_slice(r);
        sb.copy_from_slice(s);
        Signature::from_scalars(rb, sb).map_err(|_| bad("r or s out of range"))
    }

    fn decrypt_into(&self, c1c3c2: &[u8], out: &mut [u8]) -> Result<usize, SkfError> {
        const NAME: &str = "SKF_ECCDecrypt";
        if self.usage != KeyUsage::Encrypt {
            return Err(SkfError::Unsupported("an SKF sign key does not decrypt"));
        }
        let c = &self.container.0;
        let shared = c.shared();
        let f = shared
            .lib
            .fns
            .ecc_decrypt
            .ok_or(SkfError::MissingSymbol(NAME))?;
        // C1 uncompressed and checked on the curve.
        let ct = shangmi_sm2::pke::convert(c1c3c2, Layout::C1C3C2, Layout::C1C3C2)?;
        let c2 = ct.get(97..).unwrap_or_default();
        if c2.is_empty() {
            return Err(shangmi_sm2::Error::EmptyMessage.into());
        }
        if c2.len() > MAX_PLAINTEXT {
            return Err(SkfError::Unsupported("SM2 plaintexts over 1024 bytes"));
        }
        if out.len() < c2.len() {
            return Err(shangmi_sm2::Error::Decryption.into());
        }
        let mut buf = Box::new(CipherBuf {
            head: EccCipherHead {
                x: [0; 64],
                y: [0; 64],
                hash: [0; 32],
                cipher_len: c2.len() as Ulong,
            },
            c: [0; MAX_PLAINTEXT],
        });
        buf.head.x[32..].copy_from_slice(&ct[1..33]);
        buf.head.y[32..].copy_from_slice(&ct[33..65]);
        buf.head.hash.copy_from_slice(&ct[65..97]);
        buf.c[..c2.len()].copy_from_slice(c2);
        let mut plain = Zeroizing::new([0u8; MAX_PLAINTEXT]);
        let mut len = MAX_PLAINTEXT as Ulong;
        let res = {
            let _g = shared.lock();
            // SAFETY: an open container; `buf` is an `ECCCIPHERBLOB` whose body holds
            // `CipherLen` bytes; `plain` is writable for MAX_PLAINTEXT bytes, which `len`
            // says on input.
            check(NAME, unsafe {
                f(c.handle, &buf.head, plain.as_mut_ptr(), &mut len)
            })
        };
        buf.c.zeroize();
        res?;
        if len as usize != c2.len() {
            return Err(SkfError::BadOutput {
                function: NAME,
                what: "plaintext length differs from the ciphertext's",
            });
        }
        out[..c2.len()].copy_from_slice(&plain[..c2.len()]);
        Ok(c2.len())
    }

    /// False: see [`NoKeyExchange`] (a TLCP configuration leaves the ECDHE suites out).
    fn supports_key_exchange(&self) -> bool {
        false
    }

    fn start_key_exchange<R: TryCryptoRng + ?Sized>(
        &self,
        _: &mut R,
        _: Role,
        _: &[u8],
    ) -> Result<NoKeyExchange, SkfError> {
        Err(SkfError::Unsupported(
            "SM2 key exchange: SKF's agreement functions return a key handle, not key material",
        ))
    }
}
