//! A module (`C_Initialize` once per process), its slots and tokens, and the objects a
//! token shows.
//!
//! PKCS#11 keeps its state per process: a second `C_Initialize` fails and one
//! `C_Finalize` ends every user's sessions. So [`Pkcs11Module::load`] keeps one
//! initialised context per module path for the life of the process, shared by every
//! handle, and never finalises it; a module some other component initialised already
//! (`CKR_CRYPTOKI_ALREADY_INITIALIZED`) is used as it is.

use crate::error::{Pkcs11Error, ck};
use cryptoki::context::{CInitializeArgs, CInitializeFlags, Pkcs11};
use cryptoki::error::{Error as CkError, RvError};
use cryptoki::mechanism::MechanismType;
use cryptoki::object::{Attribute, AttributeType, ObjectClass, ObjectHandle};
use cryptoki::session::{Session, UserType};
use cryptoki::slot::Slot;
use cryptoki::types::RawAuthPin;
use shangmi_device::{Pin, bad_output};
use shangmi_sm2::PublicKey;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError};

/// The DER of the SM2 curve's OID (1.2.156.10197.1.301), as `CKA_EC_PARAMS` holds it.
pub(crate) const SM2_EC_PARAMS: [u8; 10] =
    [0x06, 0x08, 0x2A, 0x81, 0x1C, 0xCF, 0x55, 0x01, 0x82, 0x2D];

/// A loaded and initialised PKCS#11 module (cheap to clone; stays loaded for the life of
/// the process, see the module documentation).
#[derive(Clone)]
pub struct Pkcs11Module {
    pub(crate) ctx: Pkcs11,
    path: PathBuf,
}

impl core::fmt::Debug for Pkcs11Module {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Pkcs11Module")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// What `C_GetInfo` reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleInfo {
    /// The Cryptoki version the module implements (major, minor).
    pub cryptoki_version: (u8, u8),
    /// The module's maker.
    pub manufacturer: String,
    /// Its description.
    pub description: String,
    /// Its version (major, minor).
    pub version: (u8, u8),
}

/// A token as `C_GetTokenInfo` describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenDesc {
    /// The slot holding it.
    pub slot_id: u64,
    /// The slot's description.
    pub slot_description: String,
    /// The token's label (RFC 7512 `token`).
    pub label: String,
    /// Maker (`manufacturer`).
    pub manufacturer: String,
    /// Model (`model`).
    pub model: String,
    /// Serial number (`serial`).
    pub serial: String,
    /// Whether a login is needed for private objects.
    pub login_required: bool,
    /// `CKF_USER_PIN_COUNT_LOW`.
    pub pin_count_low: bool,
    /// `CKF_USER_PIN_FINAL_TRY`.
    pub pin_final_try: bool,
    /// `CKF_USER_PIN_LOCKED`.
    pub pin_locked: bool,
}

/// The kind of an object (`CKA_CLASS`), as RFC 7512's `type` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ObjectKind {
    /// `CKO_PRIVATE_KEY` (`type=private`).
    PrivateKey,
    /// `CKO_PUBLIC_KEY` (`type=public`).
    PublicKey,
    /// `CKO_CERTIFICATE` (`type=cert`).
    Certificate,
    /// `CKO_SECRET_KEY` (`type=secret-key`).
    SecretKey,
    /// `CKO_DATA` (`type=data`).
    Data,
}

impl ObjectKind {
    /// RFC 7512's name.
    pub fn uri_name(self) -> &'static str {
        match self {
            ObjectKind::PrivateKey => "private",
            ObjectKind::PublicKey => "public",
            ObjectKind::Certificate => "cert",
            ObjectKind::SecretKey => "secret-key",
            ObjectKind::Data => "data",
        }
    }

    /// Every kind.
    const ALL: [ObjectKind; 5] = [
        ObjectKind::PrivateKey,
        ObjectKind::PublicKey,
        ObjectKind::Certificate,
        ObjectKind::SecretKey,
        ObjectKind::Data,
    ];

    /// From RFC 7512's name.
    pub fn from_uri_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.uri_name() == name)
    }

    pub(crate) fn class(self) -> ObjectClass {
        match self {
            ObjectKind::PrivateKey => ObjectClass::PRIVATE_KEY,
            ObjectKind::PublicKey => ObjectClass::PUBLIC_KEY,
            ObjectKind::Certificate => ObjectClass::CERTIFICATE,
            ObjectKind::SecretKey => ObjectClass::SECRET_KEY,
            ObjectKind::Data => ObjectClass::DATA,
        }
    }

    fn from_class(c: ObjectClass) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.class() == c)
    }
}

/// An object a token shows (without a login: its public objects).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectDesc {
    /// Its kind (`None`: a class RFC 7512 does not name).
    pub kind: Option<ObjectKind>,
    /// `CKA_LABEL` (RFC 7512 `object`), if readable as text.
    pub label: Option<String>,
    /// `CKA_ID` (RFC 7512 `id`).
    pub id: Vec<u8>,
    /// `CKA_KEY_TYPE` of a key.
    pub key_type: Option<u64>,
    /// The SM2 public key of a key object with a readable `CKA_EC_POINT` on the SM2 curve.
    pub sm2_public: Option<PublicKey>,
    /// `CKA_SIGN`, `CKA_DECRYPT` of a private key, where readable.
    pub can_sign: Option<bool>,
    /// `CKA_DECRYPT` of a private key, where readable.
    pub can_decrypt: Option<bool>,
}

/// Which objects to find: every given attribute must match.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ObjectQuery {
    /// `CKA_LABEL`.
    pub label: Option<String>,
    /// `CKA_ID`.
    pub id: Option<Vec<u8>>,
    /// `CKA_CLASS`.
    pub kind: Option<ObjectKind>,
}

impl ObjectQuery {
    pub(crate) fn template(&self) -> Vec<Attribute> {
        let mut t = Vec::new();
        if let Some(k) = self.kind {
            t.push(Attribute::Class(k.class()));
        }
        if let Some(l) = &self.label {
            t.push(Attribute::Label(l.as_bytes().to_vec()));
        }
        if let Some(id) = &self.id {
            t.push(Attribute::Id(id.clone()));
        }
        t
    }

    /// The attributes as text, for errors (`object="x" id=%01`).
    pub(crate) fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(l) = &self.label {
            parts.push(format!("object={l:?}"));
        }
        if let Some(id) = &self.id {
            parts.push(format!("id={}", encode_bytes(id)));
        }
        if let Some(k) = self.kind {
            parts.push(format!("type={}", k.uri_name()));
        }
        if parts.is_empty() {
            "any object".into()
        } else {
            parts.join(" ")
        }
    }
}

/// Which token: every given attribute must match (RFC 7512's token attributes).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TokenQuery {
    /// `token` (the label).
    pub label: Option<String>,
    /// `manufacturer`.
    pub manufacturer: Option<String>,
    /// `model`.
    pub model: Option<String>,
    /// `serial`.
    pub serial: Option<String>,
    /// `slot-id`.
    pub slot_id: Option<u64>,
}

impl TokenQuery {
    fn matches(&self, t: &TokenDesc) -> bool {
        let eq = |want: &Option<String>, have: &str| want.as_deref().is_none_or(|w| w == have);
        eq(&self.label, &t.label)
            && eq(&self.manufacturer, &t.manufacturer)
            && eq(&self.model, &t.model)
            && eq(&self.serial, &t.serial)
            && self.slot_id.is_none_or(|s| s == t.slot_id)
    }

    fn describe(&self) -> String {
        let mut parts = Vec::new();
        for (name, v) in [
            ("token", &self.label),
            ("manufacturer", &self.manufacturer),
            ("model", &self.model),
            ("serial", &self.serial),
        ] {
            if let Some(v) = v {
                parts.push(format!("{name}={v:?}"));
            }
        }
        if let Some(s) = self.slot_id {
            parts.push(format!("slot-id={s}"));
        }
        if parts.is_empty() {
            "any token".into()
        } else {
            parts.join(" ")
        }
    }
}

fn registry() -> &'static Mutex<HashMap<PathBuf, Pkcs11>> {
    static MODULES: OnceLock<Mutex<HashMap<PathBuf, Pkcs11>>> = OnceLock::new();
    MODULES.get_or_init(|| Mutex::new(HashMap::new()))
}

impl Pkcs11Module {
    /// Loads the module at `path` and initialises it (`C_Initialize` with OS locking), or
    /// returns the context already made for that path in this process.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, Pkcs11Error> {
        let path = path.as_ref();
        // One key per file, however it is spelt (a missing file keeps its spelling, and
        // fails to load below).
        let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
        let mut modules = registry().lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(ctx) = modules.get(&key) {
            return Ok(Pkcs11Module {
                ctx: ctx.clone(),
                path: path.to_owned(),
            });
        }
        let ctx = Pkcs11::new(path).map_err(|e| match e {
            CkError::LibraryLoading(e) => Pkcs11Error::Load(format!("{}: {e}", path.display())),
            e => Pkcs11Error::from_cryptoki("C_GetFunctionList", e),
        })?;
        match ctx.initialize(CInitializeArgs::new(CInitializeFlags::OS_LOCKING_OK)) {
            Ok(()) | Err(CkError::Pkcs11(RvError::CryptokiAlreadyInitialized, _)) => {}
            Err(e) => return Err(Pkcs11Error::from_cryptoki("C_Initialize", e)),
        }
        modules.insert(key, ctx.clone());
        Ok(Pkcs11Module {
            ctx,
            path: path.to_owned(),
        })
    }

    /// The path it was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the module says of itself (`C_GetInfo`).
    pub fn info(&self) -> Result<ModuleInfo, Pkcs11Error> {
        let i = self.ctx.get_library_info().map_err(ck("C_GetInfo"))?;
        let v = |v: cryptoki::types::Version| (v.major(), v.minor());
        Ok(ModuleInfo {
            cryptoki_version: v(i.cryptoki_version()),
            manufacturer: i.manufacturer_id().trim().to_owned(),
            description: i.library_description().trim().to_owned(),
            version: v(i.library_version()),
        })
    }

    /// The slots with a token present, each with its token's description.
    pub fn tokens(&self) -> Result<Vec<TokenDesc>, Pkcs11Error> {
        let slots = self
            .ctx
            .get_slots_with_token()
            .map_err(ck("C_GetSlotList"))?;
        slots.into_iter().map(|s| self.token_desc(s)).collect()
    }

    pub(crate) fn token_desc(&self, slot: Slot) -> Result<TokenDesc, Pkcs11Error> {
        let si = self.ctx.get_slot_info(slot).map_err(ck("C_GetSlotInfo"))?;
        let t = self
            .ctx
            .get_token_info(slot)
            .map_err(ck("C_GetTokenInfo"))?;
        Ok(TokenDesc {
            slot_id: slot.id(),
            slot_description: si.slot_description().trim().to_owned(),
            label: t.label().trim().to_owned(),
            manufacturer: t.manufacturer_id().trim().to_owned(),
            model: t.model().trim().to_owned(),
            serial: t.serial_number().trim().to_owned(),
            login_required: t.login_required(),
            pin_count_low: t.user_pin_count_low(),
            pin_final_try: t.user_pin_final_try(),
            pin_locked: t.user_pin_locked(),
        })
    }

    /// The one token matching `query` ([`Pkcs11Error::NotFound`] or
    /// [`Pkcs11Error::Ambiguous`] otherwise).
    pub fn find_token(&self, query: &TokenQuery) -> Result<TokenDesc, Pkcs11Error> {
        let mut found: Vec<_> = self
            .tokens()?
            .into_iter()
            .filter(|t| query.matches(t))
            .collect();
        match found.len() {
            1 => Ok(found.remove(0)),
            0 => Err(Pkcs11Error::NotFound {
                kind: "token",
                what: query.describe(),
            }),
            count => Err(Pkcs11Error::Ambiguous {
                kind: "token",
                count,
            }),
        }
    }

    /// Whether the token in `slot_id` has mechanism `number` (`C_GetMechanismInfo`
    /// answers for it; `cryptoki`'s mechanism list drops vendor-defined numbers, so each
    /// is asked for by itself): `Ok(false)` for `CKR_MECHANISM_INVALID`.
    pub fn has_mechanism(&self, slot_id: u64, number: u64) -> Result<bool, Pkcs11Error> {
        let ty = MechanismType::new_vendor_defined(number as _)
            .map_err(|_| Pkcs11Error::Unsupported("a mechanism number below CKM_VENDOR_DEFINED"))?;
        match self.ctx.get_mechanism_info(self.slot(slot_id)?, ty) {
            Ok(_) => Ok(true),
            Err(CkError::Pkcs11(RvError::MechanismInvalid, _)) => Ok(false),
            Err(e) => Err(Pkcs11Error::from_cryptoki("C_GetMechanismInfo", e)),
        }
    }

    pub(crate) fn slot(&self, slot_id: u64) -> Result<Slot, Pkcs11Error> {
        self.ctx
            .get_slots_with_token()
            .map_err(ck("C_GetSlotList"))?
            .into_iter()
            .find(|s| s.id() == slot_id)
            .ok_or(Pkcs11Error::NotFound {
                kind: "token",
                what: format!("slot-id={slot_id}"),
            })
    }

    /// Opens a read-only session on the token in `slot_id`.
    pub(crate) fn session(&self, slot_id: u64) -> Result<Session, Pkcs11Error> {
        self.ctx
            .open_ro_session(self.slot(slot_id)?)
            .map_err(ck("C_OpenSession"))
    }

    /// The objects of the token in `slot_id` matching `query`: with `pin`, after logging
    /// in (private keys too); without, what a session without a login sees (public keys,
    /// certificates, and whatever the token does not mark private).
    pub fn objects(
        &self,
        slot_id: u64,
        query: &ObjectQuery,
        pin: Option<Pin>,
    ) -> Result<Vec<ObjectDesc>, Pkcs11Error> {
        let s = self.session(slot_id)?;
        if let Some(pin) = pin {
            login(self, slot_id, &s, pin)?;
        }
        let handles = find(&s, query)?;
        handles.into_iter().map(|h| describe(&s, h)).collect()
    }

    /// Fills `buf` from the token's generator (`C_GenerateRandom`; no login).
    pub fn random(&self, slot_id: u64, buf: &mut [u8]) -> Result<(), Pkcs11Error> {
        let s = self.session(slot_id)?;
        for chunk in buf.chunks_mut(1024) {
            s.generate_random_slice(chunk)
                .map_err(ck("C_GenerateRandom"))?;
        }
        Ok(())
    }

    /// The SM2 public key of the key pair matching `query` in the token in `slot_id`, read
    /// without a login from the public key object (or a private key object that shows
    /// `CKA_EC_POINT`).
    pub fn public_key(&self, slot_id: u64, query: &ObjectQuery) -> Result<PublicKey, Pkcs11Error> {
        let s = self.session(slot_id)?;
        public_key_of(&s, query)
    }
}

/// The handles matching `query` (`C_FindObjectsInit`/`C_FindObjects`/`C_FindObjectsFinal`).
pub(crate) fn find(s: &Session, query: &ObjectQuery) -> Result<Vec<ObjectHandle>, Pkcs11Error> {
    s.find_objects(&query.template())
        .map_err(ck("C_FindObjects"))
}

/// The one object matching `query`.
pub(crate) fn find_one(s: &Session, query: &ObjectQuery) -> Result<ObjectHandle, Pkcs11Error> {
    let mut found = find(s, query)?;
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(Pkcs11Error::NotFound {
            kind: "object",
            what: query.describe(),
        }),
        count => Err(Pkcs11Error::Ambiguous {
            kind: "object",
            count,
        }),
    }
}

/// The SM2 public key for the pair `query` names (its `type` ignored): `CKA_EC_POINT` of
/// the public key object with that label/ID, else of the private key object.
pub(crate) fn public_key_of(s: &Session, query: &ObjectQuery) -> Result<PublicKey, Pkcs11Error> {
    let mut last = None;
    for kind in [ObjectKind::PublicKey, ObjectKind::PrivateKey] {
        let q = ObjectQuery {
            kind: Some(kind),
            ..query.clone()
        };
        match find_one(s, &q) {
            Ok(h) => match ec_point(s, h)? {
                Some(p) => return Ok(p),
                None => {
                    last = Some(Pkcs11Error::NotFound {
                        kind: "object",
                        what: format!("{} with CKA_EC_POINT", q.describe()),
                    })
                }
            },
            Err(e @ Pkcs11Error::NotFound { .. }) => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or(Pkcs11Error::NotFound {
        kind: "object",
        what: query.describe(),
    }))
}

/// `CKA_EC_POINT` of `h` as an SM2 public key (`None` if the object has none); a point
/// with other `CKA_EC_PARAMS` than the SM2 curve, off the curve or malformed is
/// [`Pkcs11Error::BadOutput`].
pub(crate) fn ec_point(s: &Session, h: ObjectHandle) -> Result<Option<PublicKey>, Pkcs11Error> {
    const NAME: &str = "C_GetAttributeValue";
    let attrs = s
        .get_attributes(h, &[AttributeType::EcParams, AttributeType::EcPoint])
        .map_err(ck(NAME))?;
    let bad = bad_output::<Pkcs11Error>(NAME);
    let mut point = None;
    for a in attrs {
        match a {
            Attribute::EcParams(p) if p != SM2_EC_PARAMS => {
                return Err(Pkcs11Error::Unsupported(
                    "a key on another curve than SM2's",
                ));
            }
            Attribute::EcPoint(p) => point = Some(p),
            _ => {}
        }
    }
    let Some(p) = point else { return Ok(None) };
    // DER OCTET STRING around the point (the standard), or the bare point (some vendors).
    let sec1 = match p.as_slice() {
        [0x04, 0x41, rest @ ..] if rest.len() == 65 => rest,
        raw if raw.len() == 65 => raw,
        _ => return Err(bad("CKA_EC_POINT is not an uncompressed 256-bit point")),
    };
    shangmi_sm2::keys::public_key_from_sec1(sec1)
        .map(Some)
        .map_err(|_| bad("CKA_EC_POINT is not on the SM2 curve"))
}

/// An object's description, with what of it is readable.
fn describe(s: &Session, h: ObjectHandle) -> Result<ObjectDesc, Pkcs11Error> {
    let attrs = s
        .get_attributes(
            h,
            &[
                AttributeType::Class,
                AttributeType::Label,
                AttributeType::Id,
                AttributeType::KeyType,
                AttributeType::Sign,
                AttributeType::Decrypt,
            ],
        )
        .map_err(ck("C_GetAttributeValue"))?;
    let mut d = ObjectDesc {
        kind: None,
        label: None,
        id: Vec::new(),
        key_type: None,
        sm2_public: None,
        can_sign: None,
        can_decrypt: None,
    };
    for a in attrs {
        match a {
            Attribute::Class(c) => d.kind = ObjectKind::from_class(c),
            Attribute::Label(l) => d.label = String::from_utf8(l).ok(),
            Attribute::Id(id) => d.id = id,
            #[allow(clippy::unnecessary_cast)] // CK_KEY_TYPE is u64 on LP64 only
            Attribute::KeyType(t) => d.key_type = Some(*t as u64),
            Attribute::Sign(b) => d.can_sign = Some(b),
            Attribute::Decrypt(b) => d.can_decrypt = Some(b),
            _ => {}
        }
    }
    if matches!(d.kind, Some(ObjectKind::PublicKey | ObjectKind::PrivateKey)) {
        // A point this crate cannot read is left out of a listing, not an error.
        d.sm2_public = ec_point(s, h).ok().flatten();
    }
    Ok(d)
}

/// Logs the user in on `s` with `pin` (zeroized when this returns); a user already logged
/// in (by another key on the token, in this process) is fine.
pub(crate) fn login(
    module: &Pkcs11Module,
    slot_id: u64,
    s: &Session,
    pin: Pin,
) -> Result<(), Pkcs11Error> {
    let raw = RawAuthPin::new(Box::new(pin.as_bytes().to_vec()));
    drop(pin);
    match s.login_with_raw(UserType::User, &raw) {
        Ok(()) | Err(CkError::Pkcs11(RvError::UserAlreadyLoggedIn, _)) => Ok(()),
        Err(CkError::Pkcs11(RvError::PinIncorrect, _)) => {
            // The flags after the failure say how close the PIN is to locking.
            let t = module.token_desc(module.slot(slot_id)?)?;
            if t.pin_locked {
                Err(Pkcs11Error::PinLocked)
            } else {
                Err(Pkcs11Error::WrongPin {
                    count_low: t.pin_count_low,
                    final_try: t.pin_final_try,
                })
            }
        }
        Err(CkError::Pkcs11(RvError::PinLocked, _)) => Err(Pkcs11Error::PinLocked),
        Err(e) => Err(Pkcs11Error::from_cryptoki("C_Login", e)),
    }
}

/// `bytes` percent-encoded, every byte (as RFC 7512 writes `id`).
pub(crate) fn encode_bytes(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("%{b:02x}")).collect()
}
