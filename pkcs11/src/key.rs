//! [`Pkcs11Key`]: an SM2 private key object behind [`PrivateKeyOps`], with a pool of
//! logged-in sessions.
//!
//! Signing goes through the configured sign-a-digest mechanism over e = SM3(Z_A ‖ M),
//! with Z_A computed here from the public key and the identifier, default or not (the
//! default identifier's Z_A kept from [`Pkcs11Key::open`]). This is the chosen path for
//! every identifier: the result is the same signature, it takes identifiers of any length,
//! and it needs no vendor parameter layout. A module without such a mechanism signs with
//! SM3 inside, the identifier's raw bytes as the mechanism parameter — the convention
//! xipki's SM2 signer uses (`P11ByteArrayParams(userId)` for its vendor SM2-with-SM3
//! mechanism); SANSEC's `swpkcs11.h` defines no parameter structure for `CKM_SM3_SM2`
//! (it has `CKM_SM3_SM2_APPID1` for the default identifier instead). Decryption hands the
//! ciphertext in the configured layout to the configured mechanism.

use crate::error::{Pkcs11Error, ck};
use crate::mechanisms::{Mechanisms, SignatureEncoding};
use crate::module::{ObjectKind, ObjectQuery, Pkcs11Module, find_one, login, public_key_of};
use shangmi_device::{Pin, SessionPool, bad_output};

use cryptoki::mechanism::vendor_defined::VendorDefinedMechanism;
use cryptoki::mechanism::{Mechanism, MechanismType};
use cryptoki::object::{Attribute, AttributeType, ObjectHandle};
use cryptoki::session::Session;
use shangmi_sm2::dsa::{Signature, VerifyingKey};
use shangmi_sm2::pke::Layout;
use shangmi_sm2::{PrivateKeyOps, PublicKey};
use std::time::Duration;
use zeroize::Zeroize;

/// The default identifier `1234567812345678` (GB/T 35276), the SM3-inside mechanism's
/// parameter.
const DEFAULT_ID: [u8; 16] = *b"1234567812345678";

/// How a key is opened: the mechanism numbers, and its session pool.
#[derive(Clone, Copy, Debug)]
pub struct KeyOptions {
    /// The vendor's mechanism numbers.
    pub mechanisms: Mechanisms,
    /// Sessions opened when the key is opened: at least 1.
    pub sessions: usize,
    /// The longest wait for a free session before [`Pkcs11Error::SessionsExhausted`].
    pub wait: Duration,
}

impl Default for KeyOptions {
    /// The default mechanisms ([`Mechanisms::SANSEC`]), 4 sessions, 5 s.
    fn default() -> Self {
        KeyOptions {
            mechanisms: Mechanisms::default(),
            sessions: 4,
            wait: Duration::from_secs(5),
        }
    }
}

/// The key object to open and the login that opens it: what [`Pkcs11Key::open`] and
/// [`Pkcs11SecretKey::open`](crate::Pkcs11SecretKey::open) take (named fields: the slot,
/// the query and the PIN cannot be passed in each other's place).
pub struct KeyObject<'a> {
    /// The loaded module.
    pub module: &'a Pkcs11Module,
    /// The slot holding the token.
    pub slot_id: u64,
    /// The object's label and/or ID (its `kind` is set by the `open` that takes this).
    pub query: &'a ObjectQuery,
    /// The user PIN (zeroized when the `open` returns).
    pub pin: Pin,
}

/// What an opened key can do with this module and configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// It signs: `CKA_SIGN` is not false and a signing mechanism is configured and listed.
    pub sign: bool,
    /// It decrypts: `CKA_DECRYPT` is not false and the decryption mechanism is configured
    /// and listed.
    pub decrypt: bool,
}

/// A fixed set of sessions, handed to one caller at a time.
pub(crate) struct Pool(SessionPool<Session>);

impl Pool {
    /// Opens `options.sessions` (at least 1) sessions on the token in `slot_id` and logs
    /// in on the first with `pin` (a login holds for every session of the token);
    /// `f` runs on that first session before the others are opened.
    pub(crate) fn open<T>(
        module: &Pkcs11Module,
        slot_id: u64,
        pin: Pin,
        options: &KeyOptions,
        f: impl FnOnce(&Session) -> Result<T, Pkcs11Error>,
    ) -> Result<(T, Pool), Pkcs11Error> {
        let slot = module.slot(slot_id)?;
        let open = || {
            module
                .ctx
                .open_ro_session(slot)
                .map_err(ck("C_OpenSession"))
        };
        let first = open()?;
        login(module, slot_id, &first, pin)?;
        let t = f(&first)?;
        let mut sessions = vec![first];
        for _ in 1..options.sessions.max(1) {
            sessions.push(open()?);
        }
        Ok((t, Pool(SessionPool::new(sessions, options.wait))))
    }

    pub(crate) fn with<T>(
        &self,
        f: impl FnOnce(&Session) -> Result<T, Pkcs11Error>,
    ) -> Result<T, Pkcs11Error> {
        let session = self.0.take().ok_or(Pkcs11Error::SessionsExhausted)?;
        let out = f(&session);
        self.0.give_back(session);
        out
    }
}

/// A key object in a token and the pool of sessions it is used through: what
/// [`Pkcs11Key`] and [`Pkcs11SecretKey`](crate::Pkcs11SecretKey) both hold.
pub(crate) struct TokenObject {
    pub(crate) slot_id: u64,
    pub(crate) handle: ObjectHandle,
    pub(crate) mechanisms: Mechanisms,
    pub(crate) pool: Pool,
}

impl TokenObject {
    /// Opens the one object of `kind` matching `object.query` (whatever `kind` it names)
    /// through a new pool ([`Pool::open`]); `f` runs on the first session with the object's
    /// handle.
    pub(crate) fn open<T>(
        object: KeyObject<'_>,
        kind: ObjectKind,
        options: KeyOptions,
        f: impl FnOnce(&Session, ObjectHandle) -> Result<T, Pkcs11Error>,
    ) -> Result<(Self, T), Pkcs11Error> {
        let KeyObject {
            module,
            slot_id,
            query,
            pin,
        } = object;
        let q = ObjectQuery {
            kind: Some(kind),
            ..query.clone()
        };
        let ((handle, t), pool) = Pool::open(module, slot_id, pin, &options, |first| {
            let handle = find_one(first, &q)?;
            Ok((handle, f(first, handle)?))
        })?;
        let object = TokenObject {
            slot_id,
            handle,
            mechanisms: options.mechanisms,
            pool,
        };
        Ok((object, t))
    }

    /// The `Debug` of the key type `name` holding this object: its slot and mechanism set.
    pub(crate) fn debug(&self, name: &str, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct(name)
            .field("slot_id", &self.slot_id)
            .field("mechanisms", &self.mechanisms.name)
            .finish_non_exhaustive()
    }
}

/// The mechanism `number` as `cryptoki`'s type (vendor-defined numbers only).
pub(crate) fn vendor_mechanism(number: u64) -> Result<MechanismType, Pkcs11Error> {
    MechanismType::new_vendor_defined(number as _)
        .map_err(|_| Pkcs11Error::Unsupported("a mechanism number below CKM_VENDOR_DEFINED"))
}

/// The longest signer identifier [`Pkcs11Key`] passes to a module's SM3-inside signing
/// mechanism; where a sign-a-digest mechanism is configured, any identifier (of any
/// length) takes the host's Z_A instead (see [`Pkcs11Key`]'s `sign_with_id`).
pub const MAX_MODULE_ID_LEN: usize = 64;

/// Calls `f` with mechanism `ty` whose parameter is `id`'s raw bytes (`pParameter` = the
/// identifier, `ulParameterLen` = its length): `None` unless 1 ≤ `id.len()` ≤
/// [`MAX_MODULE_ID_LEN`]. `cryptoki` 0.12 passes a parameter as a `&T` of `size_of::<T>()`
/// bytes, so the length picks an array type here.
fn with_id_parameter<R>(
    ty: MechanismType,
    id: &[u8],
    f: impl FnOnce(&Mechanism<'_>) -> R,
) -> Option<R> {
    macro_rules! by_length {
        ($($n:literal)*) => {
            match id.len() {
                $($n => {
                    let raw: [u8; $n] = id.try_into().ok()?;
                    Some(f(&Mechanism::VendorDefined(VendorDefinedMechanism::new(ty, Some(&raw)))))
                })*
                _ => None,
            }
        };
    }
    by_length!(
        1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
        33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61
        62 63 64
    )
}

/// An SM2 private key object in a PKCS#11 token, with a pool of sessions logged in as the
/// user. `Send + Sync`: each call takes a session of its own.
pub struct Pkcs11Key {
    module: Pkcs11Module,
    object: TokenObject,
    capabilities: Capabilities,
    public: PublicKey,
    /// The public key with Z_A for the default identifier, computed once.
    default_id: VerifyingKey,
}

impl core::fmt::Debug for Pkcs11Key {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.object.debug("Pkcs11Key", f)
    }
}

/// `CKA_SIGN` and `CKA_DECRYPT` of a private key, each `None` if unreadable.
fn usage(s: &Session, h: ObjectHandle) -> Result<(Option<bool>, Option<bool>), Pkcs11Error> {
    let attrs = s
        .get_attributes(h, &[AttributeType::Sign, AttributeType::Decrypt])
        .map_err(ck("C_GetAttributeValue"))?;
    let (mut sign, mut decrypt) = (None, None);
    for a in attrs {
        match a {
            Attribute::Sign(b) => sign = Some(b),
            Attribute::Decrypt(b) => decrypt = Some(b),
            _ => {}
        }
    }
    Ok((sign, decrypt))
}

impl Pkcs11Key {
    /// Opens the private key matching `key.query` (its `kind` taken as
    /// [`ObjectKind::PrivateKey`]) in the token in `key.slot_id`: logs in with `key.pin`
    /// (zeroized when this returns; a wrong one is [`Pkcs11Error::WrongPin`], a locked one
    /// [`Pkcs11Error::PinLocked`]), opens `options.sessions` sessions, finds the key and
    /// its public key (the public key object with the same label/ID, or the private
    /// object's `CKA_EC_POINT`), and checks which configured mechanisms the token lists.
    pub fn open(key: KeyObject<'_>, options: KeyOptions) -> Result<Self, Pkcs11Error> {
        let (module, slot_id, query) = (key.module, key.slot_id, key.query);
        let kind = ObjectKind::PrivateKey;
        let (object, (public, (can_sign, can_decrypt))) =
            TokenObject::open(key, kind, options, |first, handle| {
                Ok((public_key_of(first, query)?, usage(first, handle)?))
            })?;
        // A module that cannot say (no C_GetMechanismInfo) is trusted with the
        // configuration.
        let has =
            |m: Option<u64>| m.is_some_and(|m| module.has_mechanism(slot_id, m).unwrap_or(true));
        let m = &object.mechanisms;
        let capabilities = Capabilities {
            sign: can_sign != Some(false) && (has(m.sign_digest) || has(m.sign_sm3)),
            decrypt: can_decrypt != Some(false) && has(m.decrypt),
        };
        Ok(Pkcs11Key {
            module: module.clone(),
            object,
            capabilities,
            public,
            default_id: VerifyingKey::new(&public),
        })
    }

    /// The module.
    pub fn module(&self) -> &Pkcs11Module {
        &self.module
    }

    /// The slot holding the token.
    pub fn slot_id(&self) -> u64 {
        self.object.slot_id
    }

    /// What the key can do here (known when it was opened).
    pub fn capabilities(&self) -> Capabilities {
        self.capabilities
    }

    /// The mechanism numbers in use.
    pub fn mechanisms(&self) -> &Mechanisms {
        &self.object.mechanisms
    }

    /// Signs `data` with mechanism `number`, the signer's identifier `id` (if given) as
    /// its raw parameter, and decodes the signature.
    fn sign_with(
        &self,
        number: u64,
        id: Option<&[u8]>,
        data: &[u8],
    ) -> Result<Signature, Pkcs11Error> {
        const NAME: &str = "C_Sign";
        if !self.capabilities.sign {
            return Err(Pkcs11Error::Unsupported(
                "this key does not sign (CKA_SIGN false, or no signing mechanism listed)",
            ));
        }
        let ty = vendor_mechanism(number)?;
        let sign = |mech: &Mechanism<'_>| {
            self.object
                .pool
                .with(|s| s.sign(mech, self.object.handle, data).map_err(ck(NAME)))
        };
        let out = match id {
            None => sign(&Mechanism::VendorDefined(
                VendorDefinedMechanism::new::<u8>(ty, None),
            ))?,
            Some(id) => with_id_parameter(ty, id, sign).ok_or(Pkcs11Error::InvalidInput(
                "the SM3-inside mechanism takes a signer identifier of 1 to 64 bytes",
            ))??,
        };
        let bad = bad_output::<Pkcs11Error>(NAME);
        match self.object.mechanisms.signature {
            SignatureEncoding::Raw => {
                let raw: &[u8; 64] = out
                    .as_slice()
                    .try_into()
                    .map_err(|_| bad("signature is not 64 bytes (r ‖ s)"))?;
                Signature::from_bytes(raw).map_err(|_| bad("r or s out of range"))
            }
            SignatureEncoding::Der => Signature::from_der(&out)
                .map_err(|_| bad("signature is not a valid DER SM2 signature")),
        }
    }
}

/// No key exchange: PKCS#11 defines no SM2 key exchange, and its derive functions return a
/// key handle, so a [`Pkcs11Key`] cannot give TLCP's ECDHE premaster (ECC suites work; see
/// [`shangmi_device::NoKeyExchange`]).
pub type NoKeyExchange = shangmi_device::NoKeyExchange<Pkcs11Error>;

impl PrivateKeyOps for Pkcs11Key {
    type Error = Pkcs11Error;
    type KeyExchange = NoKeyExchange;

    fn public_key(&self) -> PublicKey {
        self.public
    }

    /// With the default identifier's Z_A kept from [`Pkcs11Key::open`].
    fn sign(&self, msg: &[u8]) -> Result<Signature, Pkcs11Error> {
        match (
            self.object.mechanisms.sign_digest,
            self.object.mechanisms.sign_sm3,
        ) {
            (None, Some(m)) => self.sign_with(m, Some(&DEFAULT_ID), msg),
            _ => self.sign_digest(&self.default_id.hash_message(msg)),
        }
    }

    /// With a sign-a-digest mechanism configured (every preset has one): Z_A for `id` and
    /// e = SM3(Z_A ‖ `msg`) computed here, the module signs e — for the default identifier
    /// and any other alike, of any length. Without one: the SM3-inside mechanism, `id`
    /// passed as its raw parameter (1 to [`MAX_MODULE_ID_LEN`] bytes; a longer one is
    /// [`Pkcs11Error::InvalidInput`]).
    fn sign_with_id(&self, id: &[u8], msg: &[u8]) -> Result<Signature, Pkcs11Error> {
        match (
            self.object.mechanisms.sign_digest,
            self.object.mechanisms.sign_sm3,
        ) {
            (None, Some(m)) => self.sign_with(m, Some(id), msg),
            _ => {
                let e = VerifyingKey::new_with_id(&self.public, id)?.hash_message(msg);
                self.sign_digest(&e)
            }
        }
    }

    fn sign_digest(&self, e: &[u8; 32]) -> Result<Signature, Pkcs11Error> {
        let m = self
            .object
            .mechanisms
            .sign_digest
            .ok_or(Pkcs11Error::Unsupported(
                "signing a prepared digest: no such mechanism configured",
            ))?;
        self.sign_with(m, None, e)
    }

    fn decrypt_into(&self, c1c3c2: &[u8], out: &mut [u8]) -> Result<usize, Pkcs11Error> {
        const NAME: &str = "C_Decrypt";
        let m = self
            .object
            .mechanisms
            .decrypt
            .ok_or(Pkcs11Error::Unsupported(
                "SM2 decryption: no such mechanism configured",
            ))?;
        if !self.capabilities.decrypt {
            return Err(Pkcs11Error::Unsupported(
                "this key does not decrypt (CKA_DECRYPT false, or the mechanism is not listed)",
            ));
        }
        // C1 uncompressed and checked on the curve, then in the module's layout.
        let ct =
            shangmi_sm2::pke::convert(c1c3c2, Layout::C1C3C2, self.object.mechanisms.ciphertext)?;
        let c2_len = c1c3c2_len(&ct, self.object.mechanisms.ciphertext);
        if c2_len == 0 {
            return Err(shangmi_sm2::Error::EmptyMessage.into());
        }
        if out.len() < c2_len {
            return Err(shangmi_sm2::Error::Decryption.into());
        }
        let ty = vendor_mechanism(m)?;
        let mech = Mechanism::VendorDefined(VendorDefinedMechanism::new::<u8>(ty, None));
        let mut plain = self
            .object
            .pool
            .with(|s| s.decrypt(&mech, self.object.handle, &ct).map_err(ck(NAME)))?;
        let res = if plain.len() == c2_len {
            out[..c2_len].copy_from_slice(&plain);
            Ok(c2_len)
        } else {
            Err(bad_output(NAME)(
                "plaintext length differs from the ciphertext's",
            ))
        };
        plain.zeroize();
        res
    }

    shangmi_device::no_key_exchange!(
        NoKeyExchange,
        Pkcs11Error,
        Pkcs11Error::Unsupported(
            "SM2 key exchange: PKCS#11 has no SM2 key exchange that returns key material",
        )
    );
}

/// C2's length in a ciphertext of `layout` (C1 as the layout has it, C3 32 bytes).
fn c1c3c2_len(ct: &[u8], layout: Layout) -> usize {
    let c1 = match layout {
        Layout::C1C3C2 | Layout::C1C2C3 => 65,
        Layout::C1C3C2Raw | Layout::C1C2C3Raw => 64,
        Layout::C1C3C2Compressed | Layout::C1C2C3Compressed => 33,
    };
    ct.len().saturating_sub(c1 + 32)
}
