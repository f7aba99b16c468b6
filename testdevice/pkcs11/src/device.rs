//! The implemented functions (see the crate's documentation). Handles are counters (never
//! 0); object handles are fixed: slot × 100 + the object's place + 1.

#![allow(non_snake_case)] // the C names

use cryptoki_sys::*;
use shangmi_sm2::SecretKey;
use shangmi_sm2::dsa::{SigningKey, VerifyingKey};
use shangmi_sm2::elliptic_curve::sec1::ToSec1Point;
use shangmi_sm2::pke::{DecryptingKey, Layout};
use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::{Mutex, PoisonError};

const CKM_SM2_SIGN: CK_MECHANISM_TYPE = 0x8000_8104;
const CKM_SM3_SM2: CK_MECHANISM_TYPE = 0x8000_8100;
const CKM_SM2_RAW: CK_MECHANISM_TYPE = 0x8000_8200;
const CKM_SM3_HASH: CK_MECHANISM_TYPE = 0x8000_9001;
const CKM_SM4_ECB: CK_MECHANISM_TYPE = 0x8000_0108;
const CKM_SM4_CBC: CK_MECHANISM_TYPE = 0x8000_0109;
const CKK_SM2: CK_KEY_TYPE = 0x8000_0004;
/// SANSEC's `CKK_SM4` (`swpkcs11.h`: `CKK_VENDOR_DEFINED + 0x106`).
const CKK_SM4: CK_KEY_TYPE = 0x8000_0106;
const MECHANISMS: [CK_MECHANISM_TYPE; 6] = [
    CKM_SM2_SIGN,
    CKM_SM3_SM2,
    CKM_SM2_RAW,
    CKM_SM3_HASH,
    CKM_SM4_ECB,
    CKM_SM4_CBC,
];
/// DER of the SM2 curve's OID, 1.2.156.10197.1.301.
const SM2_EC_PARAMS: [u8; 10] = [0x06, 0x08, 0x2A, 0x81, 0x1C, 0xCF, 0x55, 0x01, 0x82, 0x2D];
const TOKENS: [&str; 2] = ["shangmi-p11", "lockout"];
const MAX_RETRIES: u32 = 5;

/// A key pair's fixed description: label, ID, usage.
struct Pair {
    label: &'static str,
    id: u8,
    sign: bool,
    decrypt: bool,
}

const PAIRS: [Pair; 6] = [
    Pair {
        label: "tlcp-sign",
        id: 1,
        sign: true,
        decrypt: false,
    },
    Pair {
        label: "tlcp-enc",
        id: 2,
        sign: false,
        decrypt: true,
    },
    Pair {
        label: "ca",
        id: 3,
        sign: true,
        decrypt: false,
    },
    Pair {
        label: "fault",
        id: 7,
        sign: true,
        decrypt: true,
    },
    Pair {
        label: "garbage",
        id: 8,
        sign: true,
        decrypt: true,
    },
    Pair {
        label: "offcurve",
        id: 9,
        sign: true,
        decrypt: false,
    },
];

/// An SM4 secret key object: label, ID, value.
struct Secret {
    label: &'static str,
    id: u8,
    value: [u8; 16],
}

/// The SM4 keys: `sm4-key` holds GB/T 32907-2016 Appendix A's example key.
const SECRETS: [Secret; 1] = [Secret {
    label: "sm4-key",
    id: 0x10,
    value: [
        0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32,
        0x10,
    ],
}];

/// An object of a token.
#[derive(Clone, Copy)]
enum Obj {
    /// A key pair's private (`private`) or public half.
    Pair { pair: usize, private: bool },
    /// An SM4 key (`SECRETS`), private to a login.
    Secret(usize),
}

impl Obj {
    /// Whether a session without a login cannot see it.
    fn private(self) -> bool {
        match self {
            Obj::Pair { private, .. } => private,
            Obj::Secret(_) => true,
        }
    }
}

/// Objects per token: each pair's two halves, then the secret keys.
const PLACES: usize = PAIRS.len() * 2 + SECRETS.len();

fn obj_at(place: usize) -> Obj {
    if place < PAIRS.len() * 2 {
        Obj::Pair {
            pair: place / 2,
            private: place.is_multiple_of(2),
        }
    } else {
        Obj::Secret(place - PAIRS.len() * 2)
    }
}

/// An SM4 mode of the token.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sm4Mode {
    Ecb,
    Cbc([u8; 16]),
}

/// An operation in progress on a session.
#[derive(Clone)]
enum Op {
    Sign {
        pair: usize,
        id: Option<Vec<u8>>,
    },
    Decrypt {
        pair: usize,
    },
    /// SM4; `parts` holds what `C_EncryptUpdate`/`C_DecryptUpdate` gave (they return
    /// nothing: the final call processes it all, as PKCS#11 allows).
    Sm4 {
        key: usize,
        mode: Sm4Mode,
        encrypt: bool,
        parts: Vec<u8>,
    },
    /// SM3; `parts` holds what `C_DigestUpdate` gave.
    Digest {
        parts: Vec<u8>,
    },
}

struct Sess {
    slot: CK_SLOT_ID,
    found: Option<Vec<CK_OBJECT_HANDLE>>,
    op: Option<Op>,
}

#[derive(Default)]
struct State {
    initialized: bool,
    next: CK_SESSION_HANDLE,
    sessions: BTreeMap<CK_SESSION_HANDLE, Sess>,
    logged_in: [bool; 2],
    /// Wrong PINs left per token (absent: MAX_RETRIES); kept across C_Finalize.
    retries: BTreeMap<usize, u32>,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

fn with_state<T>(f: impl FnOnce(&mut State) -> T) -> T {
    crate::common::with_state(&STATE, f)
}

/// Runs `f` on an open session of an initialised library.
fn with_session<T>(
    h: CK_SESSION_HANDLE,
    f: impl FnOnce(&mut Sess, &mut [bool; 2]) -> Result<T, CK_RV>,
) -> Result<T, CK_RV> {
    with_state(|s| {
        if !s.initialized {
            return Err(CKR_CRYPTOKI_NOT_INITIALIZED);
        }
        let sess = s.sessions.get_mut(&h).ok_or(CKR_SESSION_HANDLE_INVALID)?;
        f(sess, &mut s.logged_in)
    })
}

fn rv(r: Result<(), CK_RV>) -> CK_RV {
    r.err().unwrap_or(CKR_OK)
}

const SEED_VAR: &str = "SHANGMI_TESTP11_SEED";
const SEED_DEFAULT: &str = "shangmi test pkcs11";

fn seed() -> String {
    crate::common::seed(SEED_VAR, SEED_DEFAULT)
}

fn secret(label: &str) -> SecretKey {
    crate::common::derive(SEED_VAR, SEED_DEFAULT, &[label.as_bytes()])
        .unwrap_or_else(|| unreachable!("SM3 outputs are valid scalars but for 2^-128"))
}

/// A pair's key objects, made once per (seed, label) and kept, as a device keeps its keys
/// (not remade on every operation): `None` if the secret cannot sign (d = n − 1).
struct Loaded {
    sign: SigningKey,
    decrypt: DecryptingKey,
}

fn loaded(label: &'static str) -> Option<std::sync::Arc<Loaded>> {
    static CACHE: Mutex<BTreeMap<(String, &'static str), std::sync::Arc<Loaded>>> =
        Mutex::new(BTreeMap::new());
    let seed = seed();
    let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(k) = cache.get(&(seed.clone(), label)) {
        return Some(k.clone());
    }
    let d = secret(label);
    let keys = std::sync::Arc::new(Loaded {
        sign: SigningKey::new(&d).ok()?,
        decrypt: DecryptingKey::new(d),
    });
    cache.insert((seed, label), keys.clone());
    Some(keys)
}

/// The object `h`, if on `slot`.
fn object(slot: CK_SLOT_ID, h: CK_OBJECT_HANDLE) -> Option<Obj> {
    let place = h.checked_sub(slot * 100 + 1)? as usize;
    (place < PLACES).then(|| obj_at(place))
}

fn ulong(v: CK_ULONG) -> Vec<u8> {
    v.to_ne_bytes().to_vec()
}

/// The value of attribute `t` of an object: `Ok(None)` if it has none, `Err` if sensitive.
fn attribute(o: Obj, t: CK_ATTRIBUTE_TYPE) -> Result<Option<Vec<u8>>, CK_RV> {
    match o {
        Obj::Pair { pair, private } => pair_attribute(pair, private, t),
        Obj::Secret(k) => secret_attribute(k, t),
    }
}

/// The value of attribute `t` of SM4 key `k` (its value is sensitive).
fn secret_attribute(k: usize, t: CK_ATTRIBUTE_TYPE) -> Result<Option<Vec<u8>>, CK_RV> {
    let s = &SECRETS[k];
    let flag = |b: bool| Some(vec![CK_BBOOL::from(b)]);
    Ok(match t {
        CKA_CLASS => Some(ulong(CKO_SECRET_KEY)),
        CKA_TOKEN | CKA_PRIVATE | CKA_ENCRYPT | CKA_DECRYPT | CKA_SENSITIVE => flag(true),
        CKA_LABEL => Some(s.label.as_bytes().to_vec()),
        CKA_ID => Some(vec![s.id]),
        CKA_KEY_TYPE => Some(ulong(CKK_SM4)),
        CKA_VALUE_LEN => Some(ulong(16)),
        CKA_SIGN | CKA_VERIFY | CKA_WRAP | CKA_UNWRAP | CKA_DERIVE | CKA_EXTRACTABLE => flag(false),
        CKA_VALUE => return Err(CKR_ATTRIBUTE_SENSITIVE),
        _ => None,
    })
}

/// The value of attribute `t` of a key pair's half.
fn pair_attribute(
    pair: usize,
    private: bool,
    t: CK_ATTRIBUTE_TYPE,
) -> Result<Option<Vec<u8>>, CK_RV> {
    let p = &PAIRS[pair];
    let flag = |b: bool| Some(vec![CK_BBOOL::from(b)]);
    Ok(match t {
        CKA_CLASS => Some(ulong(if private {
            CKO_PRIVATE_KEY
        } else {
            CKO_PUBLIC_KEY
        })),
        CKA_TOKEN => flag(true),
        CKA_PRIVATE => flag(private),
        CKA_LABEL => Some(p.label.as_bytes().to_vec()),
        CKA_ID => Some(vec![p.id]),
        CKA_KEY_TYPE => Some(ulong(CKK_SM2)),
        CKA_EC_PARAMS => Some(SM2_EC_PARAMS.to_vec()),
        CKA_SIGN if private => flag(p.sign),
        CKA_DECRYPT if private => flag(p.decrypt),
        CKA_VERIFY if !private => flag(p.sign),
        CKA_ENCRYPT if !private => flag(p.decrypt),
        CKA_DERIVE | CKA_LOCAL | CKA_MODIFIABLE => flag(false),
        CKA_WRAP if !private => flag(false),
        CKA_UNWRAP | CKA_ALWAYS_AUTHENTICATE if private => flag(false),
        CKA_SENSITIVE | CKA_ALWAYS_SENSITIVE | CKA_NEVER_EXTRACTABLE if private => flag(true),
        CKA_EXTRACTABLE if private => flag(false),
        CKA_VALUE if private => return Err(CKR_ATTRIBUTE_SENSITIVE),
        CKA_EC_POINT if !private => {
            let mut out = vec![0x04, 0x41];
            if p.label == "offcurve" {
                out.push(0x04);
                out.extend_from_slice(&[0; 31]);
                out.push(1);
                out.extend_from_slice(&[0; 31]);
                out.push(1);
            } else {
                out.extend_from_slice(secret(p.label).public_key().to_sec1_point(false).as_bytes());
            }
            Some(out)
        }
        _ => None,
    })
}

/// # Safety
/// `p`, if not null, readable for `len` bytes.
unsafe fn bytes<'a>(p: *const u8, len: CK_ULONG) -> &'a [u8] {
    if p.is_null() || len == 0 {
        &[]
    } else {
        // SAFETY: by the caller's contract.
        unsafe { core::slice::from_raw_parts(p, len as usize) }
    }
}

/// Writes `data` the PKCS#11 way: a null buffer asks the length; a short one is
/// `CKR_BUFFER_TOO_SMALL` (with the length); `claim`, if given, is the length reported
/// after a copy (the garbage key's lie). `Ok(true)` if the data was written.
///
/// # Safety
/// `len` valid; `buf`, if not null, writable for `*len` bytes.
unsafe fn put(
    data: &[u8],
    buf: *mut u8,
    len: *mut CK_ULONG,
    claim: Option<usize>,
) -> Result<bool, CK_RV> {
    if len.is_null() {
        return Err(CKR_ARGUMENTS_BAD);
    }
    let want = claim.unwrap_or(data.len()) as CK_ULONG;
    if buf.is_null() {
        // SAFETY: valid by the caller's contract.
        unsafe { *len = want };
        return Ok(false);
    }
    // SAFETY: as above.
    let cap = unsafe { *len } as usize;
    if cap < data.len() {
        // SAFETY: as above.
        unsafe { *len = want };
        return Err(CKR_BUFFER_TOO_SMALL);
    }
    // SAFETY: `buf` is writable for `cap` ≥ `data.len()` bytes.
    unsafe {
        core::ptr::copy_nonoverlapping(data.as_ptr(), buf, data.len());
        *len = want;
    }
    Ok(true)
}

/// Fills a blank-padded text field.
fn text(field: &mut [u8], t: &str) {
    field.fill(b' ');
    field[..t.len()].copy_from_slice(t.as_bytes());
}

/// Starts the library.
///
/// # Safety
/// None beyond C's (the arguments are not read).
pub unsafe extern "C" fn C_Initialize(_args: *mut c_void) -> CK_RV {
    with_state(|s| {
        if s.initialized {
            return CKR_CRYPTOKI_ALREADY_INITIALIZED;
        }
        s.initialized = true;
        CKR_OK
    })
}

/// Stops the library: every session closes, every login ends.
///
/// # Safety
/// None beyond C's.
pub unsafe extern "C" fn C_Finalize(_reserved: *mut c_void) -> CK_RV {
    with_state(|s| {
        if !s.initialized {
            return CKR_CRYPTOKI_NOT_INITIALIZED;
        }
        s.initialized = false;
        s.sessions.clear();
        s.logged_in = [false; 2];
        CKR_OK
    })
}

fn initialized() -> Result<(), CK_RV> {
    with_state(|s| {
        if s.initialized {
            Ok(())
        } else {
            Err(CKR_CRYPTOKI_NOT_INITIALIZED)
        }
    })
}

/// Describes the library.
///
/// # Safety
/// `info` writable.
pub unsafe extern "C" fn C_GetInfo(info: *mut CK_INFO) -> CK_RV {
    if let Err(e) = initialized() {
        return e;
    }
    if info.is_null() {
        return CKR_ARGUMENTS_BAD;
    }
    let mut i = CK_INFO {
        cryptokiVersion: CK_VERSION {
            major: 2,
            minor: 40,
        },
        manufacturerID: [0; 32],
        flags: 0,
        libraryDescription: [0; 32],
        libraryVersion: CK_VERSION { major: 1, minor: 0 },
    };
    text(&mut i.manufacturerID, "shangmi");
    text(&mut i.libraryDescription, "shangmi test PKCS#11 token");
    // SAFETY: non-null and writable by the caller's contract.
    unsafe { info.write(i) };
    CKR_OK
}

/// Lists slots 0 and 1 (both with a token).
///
/// # Safety
/// `count` valid; `list`, if not null, writable for `*count` IDs.
pub unsafe extern "C" fn C_GetSlotList(
    _present: CK_BBOOL,
    list: *mut CK_SLOT_ID,
    count: *mut CK_ULONG,
) -> CK_RV {
    if let Err(e) = initialized() {
        return e;
    }
    // SAFETY: forwarded from the caller.
    unsafe { write_list(&[0, 1], list, count) }
}

/// `C_GetSlotList` and `C_GetMechanismList`: `items` to `list` (if not null) and their
/// number to `*count`, PKCS#11's two-call convention.
///
/// # Safety
/// `count` valid; `list`, if not null, writable for `*count` entries.
unsafe fn write_list<T: Copy>(items: &[T], list: *mut T, count: *mut CK_ULONG) -> CK_RV {
    if count.is_null() {
        return CKR_ARGUMENTS_BAD;
    }
    // SAFETY: valid by the caller's contract.
    let cap = unsafe { *count } as usize;
    // SAFETY: as above.
    unsafe { *count = items.len() as CK_ULONG };
    if list.is_null() {
        return CKR_OK;
    }
    if cap < items.len() {
        return CKR_BUFFER_TOO_SMALL;
    }
    // SAFETY: writable for `cap` ≥ items.len() entries.
    unsafe { core::ptr::copy_nonoverlapping(items.as_ptr(), list, items.len()) };
    CKR_OK
}

fn slot_ok(slot: CK_SLOT_ID) -> Result<usize, CK_RV> {
    initialized()?;
    usize::try_from(slot)
        .ok()
        .filter(|&s| s < TOKENS.len())
        .ok_or(CKR_SLOT_ID_INVALID)
}

/// Describes a slot.
///
/// # Safety
/// `info` writable.
pub unsafe extern "C" fn C_GetSlotInfo(slot: CK_SLOT_ID, info: *mut CK_SLOT_INFO) -> CK_RV {
    // SAFETY: forwarded from the caller.
    unsafe { slot_info(slot, info, |s| Ok(slot_description(s))) }
}

/// What `C_GetSlotInfo` says of slot `s`.
fn slot_description(s: usize) -> CK_SLOT_INFO {
    let mut i = CK_SLOT_INFO {
        slotDescription: [0; 64],
        manufacturerID: [0; 32],
        flags: CKF_TOKEN_PRESENT,
        hardwareVersion: CK_VERSION { major: 1, minor: 0 },
        firmwareVersion: CK_VERSION { major: 1, minor: 0 },
    };
    text(&mut i.slotDescription, &format!("shangmi test slot {s}"));
    text(&mut i.manufacturerID, "shangmi");
    i
}

/// `C_GetSlotInfo`, `C_GetTokenInfo` and `C_GetMechanismInfo`: `describe` of the slot's
/// index, written to `info` (or its error returned).
///
/// # Safety
/// `info`, if not null, writable.
unsafe fn slot_info<T>(
    slot: CK_SLOT_ID,
    info: *mut T,
    describe: impl FnOnce(usize) -> Result<T, CK_RV>,
) -> CK_RV {
    let s = match slot_ok(slot) {
        Ok(s) => s,
        Err(e) => return e,
    };
    if info.is_null() {
        return CKR_ARGUMENTS_BAD;
    }
    match describe(s) {
        // SAFETY: non-null and writable by the caller's contract.
        Ok(d) => unsafe { info.write(d) },
        Err(e) => return e,
    }
    CKR_OK
}

/// Describes a token, with its PIN counter's flags.
///
/// # Safety
/// `info` writable.
pub unsafe extern "C" fn C_GetTokenInfo(slot: CK_SLOT_ID, info: *mut CK_TOKEN_INFO) -> CK_RV {
    // SAFETY: forwarded from the caller.
    unsafe { slot_info(slot, info, |s| Ok(token_description(s))) }
}

/// What `C_GetTokenInfo` says of the token in slot `s`.
fn token_description(s: usize) -> CK_TOKEN_INFO {
    let left = with_state(|st| st.retries.get(&s).copied().unwrap_or(MAX_RETRIES));
    let mut flags = CKF_RNG | CKF_LOGIN_REQUIRED | CKF_USER_PIN_INITIALIZED | CKF_TOKEN_INITIALIZED;
    if left < MAX_RETRIES {
        flags |= CKF_USER_PIN_COUNT_LOW;
    }
    if left == 1 {
        flags |= CKF_USER_PIN_FINAL_TRY;
    }
    if left == 0 {
        flags |= CKF_USER_PIN_LOCKED;
    }
    let mut i = CK_TOKEN_INFO {
        label: [0; 32],
        manufacturerID: [0; 32],
        model: [0; 16],
        serialNumber: [0; 16],
        flags,
        ulMaxSessionCount: CK_EFFECTIVELY_INFINITE,
        ulSessionCount: CK_UNAVAILABLE_INFORMATION,
        ulMaxRwSessionCount: 0,
        ulRwSessionCount: 0,
        ulMaxPinLen: 64,
        ulMinPinLen: 4,
        ulTotalPublicMemory: CK_UNAVAILABLE_INFORMATION,
        ulFreePublicMemory: CK_UNAVAILABLE_INFORMATION,
        ulTotalPrivateMemory: CK_UNAVAILABLE_INFORMATION,
        ulFreePrivateMemory: CK_UNAVAILABLE_INFORMATION,
        hardwareVersion: CK_VERSION { major: 1, minor: 0 },
        firmwareVersion: CK_VERSION { major: 1, minor: 0 },
        utcTime: [b' '; 16],
    };
    text(&mut i.label, TOKENS[s]);
    text(&mut i.manufacturerID, "shangmi");
    text(&mut i.model, "soft p11");
    text(&mut i.serialNumber, &format!("000{s}"));
    i
}

/// Lists the SM2, SM3 and SM4 mechanisms.
///
/// # Safety
/// `count` valid; `list`, if not null, writable for `*count` entries.
pub unsafe extern "C" fn C_GetMechanismList(
    slot: CK_SLOT_ID,
    list: *mut CK_MECHANISM_TYPE,
    count: *mut CK_ULONG,
) -> CK_RV {
    if let Err(e) = slot_ok(slot) {
        return e;
    }
    // SAFETY: forwarded from the caller.
    unsafe { write_list(&MECHANISMS, list, count) }
}

/// Describes one of the mechanisms.
///
/// # Safety
/// `info` writable.
pub unsafe extern "C" fn C_GetMechanismInfo(
    slot: CK_SLOT_ID,
    mech: CK_MECHANISM_TYPE,
    info: *mut CK_MECHANISM_INFO,
) -> CK_RV {
    // SAFETY: forwarded from the caller.
    unsafe { slot_info(slot, info, |_| mechanism_info(mech)) }
}

/// What `C_GetMechanismInfo` says of `mech` (the same in every slot).
fn mechanism_info(mech: CK_MECHANISM_TYPE) -> Result<CK_MECHANISM_INFO, CK_RV> {
    let flags = match mech {
        CKM_SM2_SIGN | CKM_SM3_SM2 => CKF_SIGN | CKF_HW,
        CKM_SM2_RAW => CKF_DECRYPT | CKF_HW,
        CKM_SM3_HASH => CKF_DIGEST | CKF_HW,
        CKM_SM4_ECB | CKM_SM4_CBC => CKF_ENCRYPT | CKF_DECRYPT | CKF_HW,
        _ => return Err(CKR_MECHANISM_INVALID),
    };
    let bits = match mech {
        CKM_SM4_ECB | CKM_SM4_CBC => 128,
        CKM_SM3_HASH => 0,
        _ => 256,
    };
    Ok(CK_MECHANISM_INFO {
        ulMinKeySize: bits,
        ulMaxKeySize: bits,
        flags,
    })
}

/// Opens a session (serial sessions only).
///
/// # Safety
/// `session` writable.
pub unsafe extern "C" fn C_OpenSession(
    slot: CK_SLOT_ID,
    flags: CK_FLAGS,
    _app: *mut c_void,
    _notify: CK_NOTIFY,
    session: *mut CK_SESSION_HANDLE,
) -> CK_RV {
    if let Err(e) = slot_ok(slot) {
        return e;
    }
    if flags & CKF_SERIAL_SESSION == 0 {
        return CKR_SESSION_PARALLEL_NOT_SUPPORTED;
    }
    if session.is_null() {
        return CKR_ARGUMENTS_BAD;
    }
    let h = with_state(|s| {
        s.next += 1;
        s.sessions.insert(
            s.next,
            Sess {
                slot,
                found: None,
                op: None,
            },
        );
        s.next
    });
    // SAFETY: non-null and writable by the caller's contract.
    unsafe { *session = h };
    CKR_OK
}

/// Closes a session; the token's last session closing logs the user out.
///
/// # Safety
/// None beyond C's.
pub unsafe extern "C" fn C_CloseSession(h: CK_SESSION_HANDLE) -> CK_RV {
    with_state(|s| {
        if !s.initialized {
            return CKR_CRYPTOKI_NOT_INITIALIZED;
        }
        let Some(sess) = s.sessions.remove(&h) else {
            return CKR_SESSION_HANDLE_INVALID;
        };
        if !s.sessions.values().any(|o| o.slot == sess.slot) {
            s.logged_in[sess.slot as usize] = false;
        }
        CKR_OK
    })
}

/// Closes every session of a slot.
///
/// # Safety
/// None beyond C's.
pub unsafe extern "C" fn C_CloseAllSessions(slot: CK_SLOT_ID) -> CK_RV {
    let t = match slot_ok(slot) {
        Ok(t) => t,
        Err(e) => return e,
    };
    with_state(|s| {
        s.sessions.retain(|_, o| o.slot != slot);
        s.logged_in[t] = false;
    });
    CKR_OK
}

/// Describes a session.
///
/// # Safety
/// `info` writable.
pub unsafe extern "C" fn C_GetSessionInfo(
    h: CK_SESSION_HANDLE,
    info: *mut CK_SESSION_INFO,
) -> CK_RV {
    if info.is_null() {
        return CKR_ARGUMENTS_BAD;
    }
    match with_session(h, |s, logged| Ok((s.slot, logged[s.slot as usize]))) {
        Ok((slot, logged)) => {
            // SAFETY: non-null and writable by the caller's contract.
            unsafe {
                info.write(CK_SESSION_INFO {
                    slotID: slot,
                    state: if logged {
                        CKS_RO_USER_FUNCTIONS
                    } else {
                        CKS_RO_PUBLIC_SESSION
                    },
                    flags: CKF_SERIAL_SESSION,
                    ulDeviceError: 0,
                })
            };
            CKR_OK
        }
        Err(e) => e,
    }
}

/// Logs the user in on the session's token; counts wrong PINs down and locks at zero.
///
/// # Safety
/// `pin` readable for `len` bytes.
pub unsafe extern "C" fn C_Login(
    h: CK_SESSION_HANDLE,
    user: CK_USER_TYPE,
    pin: *mut CK_UTF8CHAR,
    len: CK_ULONG,
) -> CK_RV {
    if user != CKU_USER {
        return CKR_USER_TYPE_INVALID;
    }
    // SAFETY: by the caller's contract.
    let given = unsafe { bytes(pin, len) }.to_vec();
    let want = std::env::var("SHANGMI_TESTP11_PIN").unwrap_or_else(|_| "12345678".into());
    with_state(|s| {
        if !s.initialized {
            return CKR_CRYPTOKI_NOT_INITIALIZED;
        }
        let Some(sess) = s.sessions.get(&h) else {
            return CKR_SESSION_HANDLE_INVALID;
        };
        let t = sess.slot as usize;
        let left = s.retries.get(&t).copied().unwrap_or(MAX_RETRIES);
        if left == 0 {
            return CKR_PIN_LOCKED;
        }
        if s.logged_in[t] {
            return CKR_USER_ALREADY_LOGGED_IN;
        }
        if given == want.as_bytes() {
            s.logged_in[t] = true;
            s.retries.insert(t, MAX_RETRIES);
            CKR_OK
        } else {
            s.retries.insert(t, left - 1);
            CKR_PIN_INCORRECT
        }
    })
}

/// Logs the user out of the session's token.
///
/// # Safety
/// None beyond C's.
pub unsafe extern "C" fn C_Logout(h: CK_SESSION_HANDLE) -> CK_RV {
    rv(with_session(h, |s, logged| {
        let l = &mut logged[s.slot as usize];
        if !*l {
            return Err(CKR_USER_NOT_LOGGED_IN);
        }
        *l = false;
        Ok(())
    }))
}

/// Reads attributes, the PKCS#11 way (length queries, `CK_UNAVAILABLE_INFORMATION` for
/// what the object lacks or hides).
///
/// # Safety
/// `template` readable and writable for `count` entries, each `pValue` (if not null)
/// writable for its `ulValueLen` bytes.
pub unsafe extern "C" fn C_GetAttributeValue(
    h: CK_SESSION_HANDLE,
    obj: CK_OBJECT_HANDLE,
    template: *mut CK_ATTRIBUTE,
    count: CK_ULONG,
) -> CK_RV {
    let found = with_session(h, |s, logged| {
        let o = object(s.slot, obj).ok_or(CKR_OBJECT_HANDLE_INVALID)?;
        if o.private() && !logged[s.slot as usize] {
            return Err(CKR_OBJECT_HANDLE_INVALID);
        }
        Ok(o)
    });
    let o = match found {
        Ok(f) => f,
        Err(e) => return e,
    };
    if template.is_null() && count > 0 {
        return CKR_ARGUMENTS_BAD;
    }
    let mut result = CKR_OK;
    for i in 0..count as usize {
        // SAFETY: readable and writable for `count` entries by the caller's contract.
        let a = unsafe { &mut *template.add(i) };
        match attribute(o, a.type_) {
            Ok(Some(v)) => {
                // SAFETY: `pValue`, if not null, is writable for `ulValueLen` bytes.
                if let Err(e) = unsafe { put(&v, a.pValue.cast(), &mut a.ulValueLen, None) } {
                    a.ulValueLen = CK_UNAVAILABLE_INFORMATION;
                    result = e;
                }
            }
            Ok(None) => {
                a.ulValueLen = CK_UNAVAILABLE_INFORMATION;
                result = CKR_ATTRIBUTE_TYPE_INVALID;
            }
            Err(e) => {
                a.ulValueLen = CK_UNAVAILABLE_INFORMATION;
                result = e;
            }
        }
    }
    result
}

/// Starts a search: every template attribute must match byte for byte.
///
/// # Safety
/// `template` readable for `count` entries, each `pValue` for its `ulValueLen` bytes.
pub unsafe extern "C" fn C_FindObjectsInit(
    h: CK_SESSION_HANDLE,
    template: *mut CK_ATTRIBUTE,
    count: CK_ULONG,
) -> CK_RV {
    let mut want = Vec::new();
    for i in 0..count as usize {
        // SAFETY: readable for `count` entries by the caller's contract.
        let a = unsafe { &*template.add(i) };
        // SAFETY: `pValue` readable for `ulValueLen` bytes.
        want.push((
            a.type_,
            unsafe { bytes(a.pValue.cast(), a.ulValueLen) }.to_vec(),
        ));
    }
    rv(with_session(h, |s, logged| {
        if s.found.is_some() {
            return Err(CKR_OPERATION_ACTIVE);
        }
        let mut found = Vec::new();
        for place in 0..PLACES {
            let handle = s.slot * 100 + 1 + place as CK_OBJECT_HANDLE;
            let o = obj_at(place);
            if o.private() && !logged[s.slot as usize] {
                continue;
            }
            let matches = want
                .iter()
                .all(|(t, v)| attribute(o, *t).ok().flatten().as_deref() == Some(v.as_slice()));
            if matches {
                found.push(handle);
            }
        }
        found.reverse(); // handed out from the end, in order
        s.found = Some(found);
        Ok(())
    }))
}

/// Hands out up to `max` handles of the search.
///
/// # Safety
/// `out` writable for `max` handles, `n` writable.
pub unsafe extern "C" fn C_FindObjects(
    h: CK_SESSION_HANDLE,
    out: *mut CK_OBJECT_HANDLE,
    max: CK_ULONG,
    n: *mut CK_ULONG,
) -> CK_RV {
    if n.is_null() || (out.is_null() && max > 0) {
        return CKR_ARGUMENTS_BAD;
    }
    let got = with_session(h, |s, _| {
        let found = s.found.as_mut().ok_or(CKR_OPERATION_NOT_INITIALIZED)?;
        let mut got = Vec::new();
        while got.len() < max as usize {
            match found.pop() {
                Some(o) => got.push(o),
                None => break,
            }
        }
        Ok(got)
    });
    match got {
        Ok(got) => {
            // SAFETY: writable for `max` ≥ `got.len()` handles, `n` writable.
            unsafe {
                core::ptr::copy_nonoverlapping(got.as_ptr(), out, got.len());
                *n = got.len() as CK_ULONG;
            }
            CKR_OK
        }
        Err(e) => e,
    }
}

/// Ends the search.
///
/// # Safety
/// None beyond C's.
pub unsafe extern "C" fn C_FindObjectsFinal(h: CK_SESSION_HANDLE) -> CK_RV {
    rv(with_session(h, |s, _| {
        s.found
            .take()
            .map(|_| ())
            .ok_or(CKR_OPERATION_NOT_INITIALIZED)
    }))
}

/// Starts the operation `op` makes (from the session and who is logged in) on the session,
/// which must have none active.
fn start_op(
    h: CK_SESSION_HANDLE,
    op: impl FnOnce(&Sess, &[bool; 2]) -> Result<Op, CK_RV>,
) -> CK_RV {
    rv(with_session(h, |s, logged| {
        if s.op.is_some() {
            return Err(CKR_OPERATION_ACTIVE);
        }
        s.op = Some(op(s, logged)?);
        Ok(())
    }))
}

/// The session's active operation.
fn current_op(h: CK_SESSION_HANDLE) -> Result<Op, CK_RV> {
    with_session(h, |s, _| s.op.clone().ok_or(CKR_OPERATION_NOT_INITIALIZED))
}

/// Ends the session's operation.
fn end_op(h: CK_SESSION_HANDLE) {
    let _ = with_session(h, |s, _| {
        s.op = None;
        Ok(())
    });
}

/// The private key `key` of the session's token, logged in, with the usage `sign`/not.
fn private_key(
    s: &Sess,
    logged: &[bool; 2],
    key: CK_OBJECT_HANDLE,
    sign: bool,
) -> Result<usize, CK_RV> {
    if !logged[s.slot as usize] {
        return Err(CKR_USER_NOT_LOGGED_IN);
    }
    match object(s.slot, key) {
        Some(Obj::Pair {
            pair,
            private: true,
        }) if (sign && PAIRS[pair].sign) || (!sign && PAIRS[pair].decrypt) => Ok(pair),
        Some(_) => Err(CKR_KEY_FUNCTION_NOT_PERMITTED),
        None => Err(CKR_KEY_HANDLE_INVALID),
    }
}

/// A one-part data function (`C_Sign`, `C_Encrypt`, `C_Decrypt`, `C_Digest`, one signature
/// in PKCS#11): `$body` over the session `$h`, the input `$data` of `$len` bytes and the
/// output buffer `$out` with its length `$out_len`.
macro_rules! one_part_entry {
    ($(#[$doc:meta])* $name:ident($h:ident, $data:ident, $len:ident, $out:ident, $out_len:ident) $body:block) => {
        $(#[$doc])*
        ///
        /// # Safety
        #[doc = concat!(
            "`", stringify!($data), "` readable for `", stringify!($len), "` bytes; `",
            stringify!($out_len), "` valid; `", stringify!($out), "`, if not null, writable for `*",
            stringify!($out_len), "` bytes."
        )]
        pub unsafe extern "C" fn $name(
            $h: CK_SESSION_HANDLE,
            $data: *mut CK_BYTE,
            $len: CK_ULONG,
            $out: *mut CK_BYTE,
            $out_len: *mut CK_ULONG,
        ) -> CK_RV $body
    };
}

/// A `C_<Op>Init(session, mechanism, key)` entry point: `$start(h, m, key, $args…)` with
/// the mechanism `m` read from `mech` (`CKR_ARGUMENTS_BAD` if null).
macro_rules! key_init_entry {
    ($(#[$doc:meta])* $name:ident => $start:ident($($arg:expr),*)) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// `mech` readable; its parameter readable for its length.
        pub unsafe extern "C" fn $name(
            h: CK_SESSION_HANDLE,
            mech: *mut CK_MECHANISM,
            key: CK_OBJECT_HANDLE,
        ) -> CK_RV {
            // SAFETY: readable (if not null) by the caller's contract.
            let Some(m) = (unsafe { mech.as_ref() }) else {
                return CKR_ARGUMENTS_BAD;
            };
            // SAFETY: its parameter readable for its length by the caller's contract.
            unsafe { $start(h, m, key $(, $arg)*) }
        }
    };
}

/// `C_EncryptUpdate`/`C_EncryptFinal` or `C_DecryptUpdate`/`C_DecryptFinal`: the multi-part
/// SM4 operation in direction `$encrypt` (`$what` in the docs).
macro_rules! sm4_multi_part_entries {
    ($update:ident, $final:ident, $encrypt:literal, $what:literal) => {
        #[doc = concat!("Buffers part of an SM4 ", $what, ".")]
        ///
        /// # Safety
        /// `data` readable for `len` bytes; `out_len` valid.
        pub unsafe extern "C" fn $update(
            h: CK_SESSION_HANDLE,
            data: *mut CK_BYTE,
            len: CK_ULONG,
            _out: *mut CK_BYTE,
            out_len: *mut CK_ULONG,
        ) -> CK_RV {
            // SAFETY: forwarded.
            unsafe { sm4_update(h, $encrypt, data, len, out_len) }
        }

        #[doc = concat!("Ends a multi-part SM4 ", $what, ".")]
        ///
        /// # Safety
        /// `out_len` valid; `out`, if not null, writable for `*out_len` bytes.
        pub unsafe extern "C" fn $final(
            h: CK_SESSION_HANDLE,
            out: *mut CK_BYTE,
            out_len: *mut CK_ULONG,
        ) -> CK_RV {
            // SAFETY: forwarded.
            unsafe { sm4_final(h, $encrypt, out, out_len) }
        }
    };
}

key_init_entry! {
    /// Starts a signature: `CKM_SM2_SIGN` (no parameter) or `CKM_SM3_SM2` (the identifier).
    C_SignInit => sign_init()
}

/// What `C_SignInit` starts with the mechanism `m` (the identifier its parameter).
///
/// # Safety
/// The parameter readable for its length.
unsafe fn sign_init(h: CK_SESSION_HANDLE, m: &CK_MECHANISM, key: CK_OBJECT_HANDLE) -> CK_RV {
    let id = match m.mechanism {
        CKM_SM2_SIGN if m.ulParameterLen == 0 => None,
        CKM_SM2_SIGN => return CKR_MECHANISM_PARAM_INVALID,
        // SAFETY: the parameter is readable for its length.
        CKM_SM3_SM2 => Some(unsafe { bytes(m.pParameter.cast(), m.ulParameterLen) }.to_vec()),
        _ => return CKR_MECHANISM_INVALID,
    };
    start_op(h, |s, logged| {
        let pair = private_key(s, logged, key, true)?;
        Ok(Op::Sign { pair, id })
    })
}

one_part_entry! {
    /// Signs: a 32-byte digest, or the message with Z_A from the identifier; `r ‖ s`.
    C_Sign(h, data, len, sig, sig_len) {
        let op = current_op(h);
        let Ok(Op::Sign { pair, id }) = op else {
            return op.err().unwrap_or(CKR_OPERATION_NOT_INITIALIZED);
        };
        let label = PAIRS[pair].label;
        let size = if label == "garbage" { 71 } else { 64 };
        // SAFETY: forwarded.
        let keys = match unsafe { one_shot_output(h, label, size, sig, sig_len, None) } {
            Ok(keys) => keys,
            Err(rv) => return rv,
        };
        // SAFETY: readable for `len` bytes by the caller's contract.
        let msg = unsafe { bytes(data, len) };
        let e: [u8; 32] = match id {
            None => match msg.try_into() {
                Ok(e) => e,
                Err(_) => return CKR_DATA_LEN_RANGE,
            },
            Some(id) => {
                let id = if id.is_empty() {
                    shangmi_sm2::DEFAULT_ID.to_vec()
                } else {
                    id
                };
                match VerifyingKey::new_with_id(keys.sign.verifying_key().public_key(), &id) {
                    Ok(vk) => vk.hash_message(msg),
                    Err(_) => return CKR_MECHANISM_PARAM_INVALID,
                }
            }
        };
        let out = if label == "garbage" {
            vec![0x5A; 71]
        } else {
            keys.sign.sign_e(&e).to_bytes().to_vec()
        };
        // SAFETY: `sig` writable for `*sig_len` ≥ `size` bytes.
        rv(unsafe { put(&out, sig, sig_len, None) }.map(|_| ()))
    }
}

/// What `C_Sign` and `C_Decrypt` do alike before their output of `size` bytes: the size
/// query and a short buffer answer the length (`claim`, if given, instead of `size`) and
/// leave the operation active; otherwise the operation ends, the `fault` pair fails as the
/// device, and the pair's keys are returned. `Err`: the value to return.
///
/// # Safety
/// `out_len`, if not null, valid; `out`, if not null, writable for `*out_len` bytes.
unsafe fn one_shot_output(
    h: CK_SESSION_HANDLE,
    label: &'static str,
    size: usize,
    out: *mut u8,
    out_len: *mut CK_ULONG,
    claim: Option<usize>,
) -> Result<std::sync::Arc<Loaded>, CK_RV> {
    if out.is_null() || out_len.is_null() {
        // SAFETY: forwarded.
        let written = unsafe { put(&vec![0; size], core::ptr::null_mut(), out_len, claim) };
        return Err(rv(written.map(|_| ())));
    }
    // SAFETY: `out_len` is valid.
    if (unsafe { *out_len } as usize) < size {
        // SAFETY: forwarded (a short buffer: only the length is written).
        return Err(rv(
            unsafe { put(&vec![0; size], out, out_len, claim) }.map(|_| ())
        ));
    }
    end_op(h);
    if label == "fault" {
        return Err(CKR_DEVICE_ERROR);
    }
    loaded(label).ok_or(CKR_GENERAL_ERROR)
}

key_init_entry! {
    /// Starts a decryption: SM2 (`CKM_SM2_RAW`, C1C3C2) or SM4.
    C_DecryptInit => decrypt_init()
}

/// `C_DecryptInit` of `m`: an SM2 pair's operation, or else SM4's.
///
/// # Safety
/// `m`'s parameter readable for its length.
unsafe fn decrypt_init(h: CK_SESSION_HANDLE, m: &CK_MECHANISM, key: CK_OBJECT_HANDLE) -> CK_RV {
    if m.mechanism != CKM_SM2_RAW {
        // SAFETY: forwarded.
        return unsafe { sm4_init(h, m, key, false) };
    }
    start_op(h, |s, logged| {
        let pair = private_key(s, logged, key, false)?;
        Ok(Op::Decrypt { pair })
    })
}

/// Starts an SM4 operation: `CKM_SM4_ECB` (no parameter) or `CKM_SM4_CBC` (the 16-byte
/// IV), with an SM4 key object of the session's token, logged in.
///
/// # Safety
/// `m`'s parameter readable for its length.
unsafe fn sm4_init(
    h: CK_SESSION_HANDLE,
    m: &CK_MECHANISM,
    key: CK_OBJECT_HANDLE,
    encrypt: bool,
) -> CK_RV {
    // SAFETY: the parameter is readable for its length.
    let param = unsafe { bytes(m.pParameter.cast(), m.ulParameterLen) };
    let mode = match m.mechanism {
        CKM_SM4_ECB if param.is_empty() => Sm4Mode::Ecb,
        CKM_SM4_CBC => match param.try_into() {
            Ok(iv) => Sm4Mode::Cbc(iv),
            Err(_) => return CKR_MECHANISM_PARAM_INVALID,
        },
        CKM_SM4_ECB => return CKR_MECHANISM_PARAM_INVALID,
        _ => return CKR_MECHANISM_INVALID,
    };
    start_op(h, |s, logged| {
        if !logged[s.slot as usize] {
            return Err(CKR_USER_NOT_LOGGED_IN);
        }
        let key = match object(s.slot, key) {
            Some(Obj::Secret(k)) => k,
            Some(_) => return Err(CKR_KEY_TYPE_INCONSISTENT),
            None => return Err(CKR_KEY_HANDLE_INVALID),
        };
        Ok(Op::Sm4 {
            key,
            mode,
            encrypt,
            parts: Vec::new(),
        })
    })
}

/// SM4-ECB or SM4-CBC over whole blocks, in place.
fn sm4_apply(key: &[u8; 16], mode: Sm4Mode, encrypt: bool, data: &mut [u8]) {
    use shangmi_sm4::cipher::{BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};
    let c = shangmi_sm4::Sm4::new(key.into());
    let mut chain = match mode {
        Sm4Mode::Ecb => None,
        Sm4Mode::Cbc(iv) => Some(iv),
    };
    for block in data.chunks_exact_mut(16) {
        let b: &mut [u8; 16] = block.try_into().unwrap_or_else(|_| unreachable!());
        match (&mut chain, encrypt) {
            (None, true) => c.encrypt_block(b.into()),
            (None, false) => c.decrypt_block(b.into()),
            (Some(prev), true) => {
                b.iter_mut().zip(prev.iter()).for_each(|(x, p)| *x ^= p);
                c.encrypt_block(b.into());
                *prev = *b;
            }
            (Some(prev), false) => {
                let ct = *b;
                c.decrypt_block(b.into());
                b.iter_mut().zip(prev.iter()).for_each(|(x, p)| *x ^= p);
                *prev = ct;
            }
        }
    }
}

/// Runs the session's SM4 operation over `data` (whole blocks; no padding, as
/// `CKM_SM4_ECB`/`CBC` have it) into `out` the PKCS#11 way.
///
/// # Safety
/// `out_len` valid; `out`, if not null, writable for `*out_len` bytes.
unsafe fn sm4_run(
    h: CK_SESSION_HANDLE,
    (key, mode, encrypt): (usize, Sm4Mode, bool),
    mut data: Vec<u8>,
    out: *mut u8,
    out_len: *mut CK_ULONG,
) -> CK_RV {
    if !data.len().is_multiple_of(16) {
        end_op(h);
        return if encrypt {
            CKR_DATA_LEN_RANGE
        } else {
            CKR_ENCRYPTED_DATA_LEN_RANGE
        };
    }
    sm4_apply(&SECRETS[key].value, mode, encrypt, &mut data);
    // SAFETY: forwarded from the caller.
    finish(h, unsafe { put(&data, out, out_len, None) })
}

/// The session's SM4 operation in direction `encrypt`, with its buffered parts.
fn sm4_op(h: CK_SESSION_HANDLE, encrypt: bool) -> Result<(usize, Sm4Mode, Vec<u8>), CK_RV> {
    match current_op(h)? {
        Op::Sm4 {
            key,
            mode,
            encrypt: e,
            parts,
        } if e == encrypt => Ok((key, mode, parts)),
        _ => Err(CKR_OPERATION_NOT_INITIALIZED),
    }
}

/// Adds `data` to the parts of the session's operation (an SM4 one in direction
/// `Some(encrypt)`, or the digest for `None`).
///
/// # Safety
/// `data` readable for `len` bytes.
unsafe fn add_part(
    h: CK_SESSION_HANDLE,
    encrypt: Option<bool>,
    data: *const u8,
    len: CK_ULONG,
) -> Result<(), CK_RV> {
    // SAFETY: by the caller's contract.
    let data = unsafe { bytes(data, len) };
    with_session(h, |s, _| match (&mut s.op, encrypt) {
        (
            Some(Op::Sm4 {
                encrypt: e, parts, ..
            }),
            Some(want),
        ) if *e == want => {
            parts.extend_from_slice(data);
            Ok(())
        }
        (Some(Op::Digest { parts }), None) => {
            parts.extend_from_slice(data);
            Ok(())
        }
        _ => Err(CKR_OPERATION_NOT_INITIALIZED),
    })
}

/// `C_EncryptUpdate`/`C_DecryptUpdate`: buffers `data`, returns no output yet.
///
/// # Safety
/// `data` readable for `len` bytes; `out_len` valid.
unsafe fn sm4_update(
    h: CK_SESSION_HANDLE,
    encrypt: bool,
    data: *const u8,
    len: CK_ULONG,
    out_len: *mut CK_ULONG,
) -> CK_RV {
    if out_len.is_null() {
        return CKR_ARGUMENTS_BAD;
    }
    // SAFETY: forwarded.
    if let Err(e) = unsafe { add_part(h, Some(encrypt), data, len) } {
        return e;
    }
    // SAFETY: valid by the caller's contract.
    unsafe { *out_len = 0 };
    CKR_OK
}

/// `C_EncryptFinal`/`C_DecryptFinal`: the whole buffered input, processed.
///
/// # Safety
/// `out_len` valid; `out`, if not null, writable for `*out_len` bytes.
unsafe fn sm4_final(
    h: CK_SESSION_HANDLE,
    encrypt: bool,
    out: *mut u8,
    out_len: *mut CK_ULONG,
) -> CK_RV {
    match sm4_op(h, encrypt) {
        // SAFETY: forwarded.
        Ok((key, mode, parts)) => unsafe { sm4_run(h, (key, mode, encrypt), parts, out, out_len) },
        Err(e) => e,
    }
}

sm4_multi_part_entries!(C_EncryptUpdate, C_EncryptFinal, true, "encryption");
sm4_multi_part_entries!(C_DecryptUpdate, C_DecryptFinal, false, "decryption");

/// Adds part of the input of an SM3 digest.
///
/// # Safety
/// `data` readable for `len` bytes.
pub unsafe extern "C" fn C_DigestUpdate(
    h: CK_SESSION_HANDLE,
    data: *mut CK_BYTE,
    len: CK_ULONG,
) -> CK_RV {
    // SAFETY: forwarded.
    rv(unsafe { add_part(h, None, data, len) })
}

/// Ends a multi-part SM3 digest.
///
/// # Safety
/// `out_len` valid; `out`, if not null, writable for `*out_len` bytes.
pub unsafe extern "C" fn C_DigestFinal(
    h: CK_SESSION_HANDLE,
    out: *mut CK_BYTE,
    out_len: *mut CK_ULONG,
) -> CK_RV {
    // SAFETY: forwarded from the caller.
    unsafe { digest_out(h, |parts| parts, out, out_len) }
}

/// Ends an SM3 digest (`C_Digest`, `C_DigestFinal`): the digest of `input`, given the
/// parts buffered so far, to `out`.
///
/// # Safety
/// `out_len` valid; `out`, if not null, writable for `*out_len` bytes.
unsafe fn digest_out(
    h: CK_SESSION_HANDLE,
    input: impl FnOnce(Vec<u8>) -> Vec<u8>,
    out: *mut CK_BYTE,
    out_len: *mut CK_ULONG,
) -> CK_RV {
    let parts = match current_op(h) {
        Ok(Op::Digest { parts }) => parts,
        Ok(_) => return CKR_OPERATION_NOT_INITIALIZED,
        Err(e) => return e,
    };
    use shangmi_sm3::Digest;
    let d = shangmi_sm3::Sm3::digest(input(parts));
    // SAFETY: forwarded from the caller.
    finish(h, unsafe { put(&d, out, out_len, None) })
}

/// Ends the operation unless `written` was a size query or a short buffer (which leave it
/// active, as PKCS#11 has it).
fn finish(h: CK_SESSION_HANDLE, written: Result<bool, CK_RV>) -> CK_RV {
    if !matches!(written, Ok(false) | Err(CKR_BUFFER_TOO_SMALL)) {
        end_op(h);
    }
    rv(written.map(|_| ()))
}

key_init_entry! {
    /// Starts an SM4 encryption.
    C_EncryptInit => sm4_init(true)
}

one_part_entry! {
    /// Encrypts whole blocks with SM4.
    C_Encrypt(h, data, len, out, out_len) {
        let op = current_op(h);
        // SAFETY: forwarded from the caller.
        unsafe { sm4_one_shot(h, &op, true, data, len, out, out_len) }
            .unwrap_or_else(|| op.err().unwrap_or(CKR_OPERATION_NOT_INITIALIZED))
    }
}

/// `C_Encrypt` and `C_Decrypt` of an SM4 operation in direction `encrypt`: `None` if the
/// session's operation `op` is not that one.
///
/// # Safety
/// `data` readable for `len` bytes; `out_len` valid; `out`, if not null, writable for
/// `*out_len` bytes.
unsafe fn sm4_one_shot(
    h: CK_SESSION_HANDLE,
    op: &Result<Op, CK_RV>,
    encrypt: bool,
    data: *mut CK_BYTE,
    len: CK_ULONG,
    out: *mut CK_BYTE,
    out_len: *mut CK_ULONG,
) -> Option<CK_RV> {
    let Ok(Op::Sm4 {
        key,
        mode,
        encrypt: e,
        ..
    }) = *op
    else {
        return None;
    };
    if e != encrypt {
        return None;
    }
    // SAFETY: readable for `len` bytes by the caller's contract.
    let data = unsafe { bytes(data, len) }.to_vec();
    // SAFETY: forwarded.
    Some(unsafe { sm4_run(h, (key, mode, encrypt), data, out, out_len) })
}

/// Starts an SM3 digest (`CKM_SM3_HASH`, no parameter; no login needed).
///
/// # Safety
/// `mech` readable.
pub unsafe extern "C" fn C_DigestInit(h: CK_SESSION_HANDLE, mech: *mut CK_MECHANISM) -> CK_RV {
    // SAFETY: readable (if not null) by the caller's contract.
    let Some(m) = (unsafe { mech.as_ref() }) else {
        return CKR_ARGUMENTS_BAD;
    };
    if m.mechanism != CKM_SM3_HASH {
        return CKR_MECHANISM_INVALID;
    }
    if m.ulParameterLen != 0 {
        return CKR_MECHANISM_PARAM_INVALID;
    }
    start_op(h, |_, _| Ok(Op::Digest { parts: Vec::new() }))
}

one_part_entry! {
    /// The SM3 digest of `data`, in one part.
    C_Digest(h, data, len, out, out_len) {
        // SAFETY: readable for `len` bytes by the caller's contract; the rest forwarded.
        unsafe { digest_out(h, |_| bytes(data, len).to_vec(), out, out_len) }
    }
}

one_part_entry! {
    /// Decrypts a C1C3C2 ciphertext.
    C_Decrypt(h, ct, len, out, out_len) {
        let op = current_op(h);
        // SAFETY: forwarded from the caller.
        if let Some(rv) = unsafe { sm4_one_shot(h, &op, false, ct, len, out, out_len) } {
            return rv;
        }
        let Ok(Op::Decrypt { pair }) = op else {
            return op.err().unwrap_or(CKR_OPERATION_NOT_INITIALIZED);
        };
        let label = PAIRS[pair].label;
        // SAFETY: readable for `len` bytes by the caller's contract.
        let ct = unsafe { bytes(ct, len) };
        let Some(size) = ct.len().checked_sub(97).filter(|&n| n > 0) else {
            end_op(h);
            return CKR_ENCRYPTED_DATA_LEN_RANGE;
        };
        let claim = (label == "garbage").then_some(size + 1000);
        // SAFETY: forwarded.
        let keys = match unsafe { one_shot_output(h, label, size, out, out_len, claim) } {
            Ok(keys) => keys,
            Err(rv) => return rv,
        };
        let Ok(plain) = keys.decrypt.decrypt(ct, Layout::C1C3C2) else {
            return CKR_ENCRYPTED_DATA_INVALID;
        };
        // SAFETY: `out` writable for `*out_len` ≥ `size` bytes.
        rv(unsafe { put(&plain, out, out_len, claim) }.map(|_| ()))
    }
}

/// Random bytes from the operating system.
///
/// # Safety
/// `buf` writable for `len` bytes.
pub unsafe extern "C" fn C_GenerateRandom(
    h: CK_SESSION_HANDLE,
    buf: *mut CK_BYTE,
    len: CK_ULONG,
) -> CK_RV {
    if let Err(e) = with_session(h, |_, _| Ok(())) {
        return e;
    }
    if buf.is_null() && len > 0 {
        return CKR_ARGUMENTS_BAD;
    }
    if len == 0 {
        return CKR_OK;
    }
    // SAFETY: non-null and writable for `len` bytes by the caller's contract.
    if unsafe { crate::common::os_random(buf, len as usize) } {
        CKR_OK
    } else {
        CKR_FUNCTION_FAILED
    }
}
