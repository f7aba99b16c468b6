//! SM3 and SM4 inside the token: [`Pkcs11Module::sm3`] digests with the vendor's SM3
//! mechanism, [`Pkcs11SecretKey`] encrypts and decrypts with an SM4 key object the token
//! holds (its value never leaves it), through the vendor's SM4-ECB and SM4-CBC mechanisms.
//!
//! Both SM4 mechanisms work on whole 16-byte blocks and do not pad (as PKCS#11's
//! `CKM_AES_ECB`/`CKM_AES_CBC` do not); padding, where wanted, is the caller's
//! (`shangmi_sm4_modes::cipher::block_padding`). The CBC IV is the mechanism parameter.

use crate::error::{Pkcs11Error, ck};
use crate::key::{KeyObject, KeyOptions, TokenObject, vendor_mechanism};
use crate::mechanisms::Mechanisms;
use crate::module::{ObjectKind, Pkcs11Module};
use cryptoki::mechanism::Mechanism;
use cryptoki::mechanism::vendor_defined::VendorDefinedMechanism;
use shangmi_device::bad_output;

impl Pkcs11Module {
    /// The SM3 digest of `data`, computed by the token in `slot_id` with
    /// `mechanisms.sm3` (`C_DigestInit`/`C_Digest`; no login).
    pub fn sm3(
        &self,
        slot_id: u64,
        mechanisms: &Mechanisms,
        data: &[u8],
    ) -> Result<[u8; 32], Pkcs11Error> {
        const NAME: &str = "C_Digest";
        let out = self
            .session(slot_id)?
            .digest(&sm3_mechanism(mechanisms)?, data)
            .map_err(ck(NAME))?;
        digest_32(NAME, &out)
    }

    /// The SM3 digest of the concatenation of `parts`, handed to the token one part at a
    /// time (`C_DigestInit`, `C_DigestUpdate` per part, `C_DigestFinal`), for input that
    /// does not fit one call.
    pub fn sm3_parts<'a>(
        &self,
        slot_id: u64,
        mechanisms: &Mechanisms,
        parts: impl IntoIterator<Item = &'a [u8]>,
    ) -> Result<[u8; 32], Pkcs11Error> {
        let s = self.session(slot_id)?;
        s.digest_init(&sm3_mechanism(mechanisms)?)
            .map_err(ck("C_DigestInit"))?;
        for part in parts {
            s.digest_update(part).map_err(ck("C_DigestUpdate"))?;
        }
        let out = s.digest_final().map_err(ck("C_DigestFinal"))?;
        digest_32("C_DigestFinal", &out)
    }
}

/// The configured SM3 mechanism, without a parameter.
fn sm3_mechanism(mechanisms: &Mechanisms) -> Result<Mechanism<'static>, Pkcs11Error> {
    let m = mechanisms.sm3.ok_or(Pkcs11Error::Unsupported(
        "SM3: no such mechanism configured",
    ))?;
    Ok(Mechanism::VendorDefined(VendorDefinedMechanism::new::<u8>(
        vendor_mechanism(m)?,
        None,
    )))
}

/// A digest the module returned from `function`, checked to be 32 bytes.
fn digest_32(function: &'static str, out: &[u8]) -> Result<[u8; 32], Pkcs11Error> {
    out.try_into()
        .map_err(|_| bad_output(function)("an SM3 digest that is not 32 bytes"))
}

/// An SM4 mode of the token's mechanisms.
#[derive(Clone, Copy)]
enum Mode<'a> {
    Ecb,
    Cbc(&'a [u8; 16]),
}

/// An SM4 secret key object (`CKO_SECRET_KEY`) in a PKCS#11 token, with a pool of
/// sessions logged in as the user. `Send + Sync`: each call takes a session of its own.
pub struct Pkcs11SecretKey {
    object: TokenObject,
}

impl core::fmt::Debug for Pkcs11SecretKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.object.debug("Pkcs11SecretKey", f)
    }
}

impl Pkcs11SecretKey {
    /// Opens the secret key matching `key.query` (its `kind` taken as
    /// [`ObjectKind::SecretKey`]) in the token in `key.slot_id`: logs in with `key.pin`
    /// (zeroized when this returns; a wrong one is [`Pkcs11Error::WrongPin`]), opens
    /// `options.sessions` sessions and finds the one object (by label and/or ID).
    pub fn open(key: KeyObject<'_>, options: KeyOptions) -> Result<Self, Pkcs11Error> {
        let kind = ObjectKind::SecretKey;
        let (object, ()) = TokenObject::open(key, kind, options, |_, _| Ok(()))?;
        Ok(Pkcs11SecretKey { object })
    }

    /// The slot holding the token.
    pub fn slot_id(&self) -> u64 {
        self.object.slot_id
    }

    /// SM4-ECB encryption of whole blocks (`mechanisms.sm4_ecb`).
    pub fn encrypt_ecb(&self, data: &[u8]) -> Result<Vec<u8>, Pkcs11Error> {
        self.run(Mode::Ecb, true, data)
    }

    /// SM4-ECB decryption of whole blocks.
    pub fn decrypt_ecb(&self, data: &[u8]) -> Result<Vec<u8>, Pkcs11Error> {
        self.run(Mode::Ecb, false, data)
    }

    /// SM4-CBC encryption of whole blocks with `iv` (`mechanisms.sm4_cbc`).
    pub fn encrypt_cbc(&self, iv: &[u8; 16], data: &[u8]) -> Result<Vec<u8>, Pkcs11Error> {
        self.run(Mode::Cbc(iv), true, data)
    }

    /// SM4-CBC decryption of whole blocks with `iv`.
    pub fn decrypt_cbc(&self, iv: &[u8; 16], data: &[u8]) -> Result<Vec<u8>, Pkcs11Error> {
        self.run(Mode::Cbc(iv), false, data)
    }

    fn run(&self, mode: Mode<'_>, encrypt: bool, data: &[u8]) -> Result<Vec<u8>, Pkcs11Error> {
        let name = if encrypt { "C_Encrypt" } else { "C_Decrypt" };
        if !data.len().is_multiple_of(16) {
            return Err(Pkcs11Error::InvalidInput(
                "SM4-ECB/CBC data must be whole 16-byte blocks (the mechanisms do not pad)",
            ));
        }
        let (number, what) = match mode {
            Mode::Ecb => (
                self.object.mechanisms.sm4_ecb,
                "SM4-ECB: no such mechanism configured",
            ),
            Mode::Cbc(_) => (
                self.object.mechanisms.sm4_cbc,
                "SM4-CBC: no such mechanism configured",
            ),
        };
        let ty = vendor_mechanism(number.ok_or(Pkcs11Error::Unsupported(what))?)?;
        let mech = Mechanism::VendorDefined(match mode {
            Mode::Ecb => VendorDefinedMechanism::new::<u8>(ty, None),
            Mode::Cbc(iv) => VendorDefinedMechanism::new(ty, Some(iv)),
        });
        let out = self.object.pool.with(|s| {
            if encrypt {
                s.encrypt(&mech, self.object.handle, data)
            } else {
                s.decrypt(&mech, self.object.handle, data)
            }
            .map_err(ck(name))
        })?;
        if out.len() != data.len() {
            return Err(bad_output(name)(
                "SM4 output of another length than its input",
            ));
        }
        Ok(out)
    }
}
