//! A software GM/T 0018 (SDF) device for tests: the C functions `shangmi-sdf` calls,
//! implemented over shangmi's own SM2 and SM3. A test fixture, never linked into a library.
//!
//! - Keys: index 1 and 2 each hold a sign pair and an encryption pair, derived from the
//!   seed in `SHANGMI_TESTSDF_SEED` (default `shangmi test device`) as
//!   d = SM3(seed ‖ usage ‖ index ‖ counter), the first valid scalar. Other indexes have no
//!   key (`SDR_KEYNOTEXIST`), except the fault indexes below.
//! - PIN: `SHANGMI_TESTSDF_PIN` (default `123456`), the same for every index; a wrong one
//!   is `SDR_PARDENY`, as is a private-key operation without the access right.
//! - Faults on request: index 7 exports a public key of 1024 bits; index 8 holds index 1's
//!   keys but signs with garbage in the high half of r and reports a decrypted length 1000
//!   bytes longer than the plaintext.
//!
//! Structures as GM/T 0018 defines them (field layout from GmSSL 3.3's `sdf.h`).

use shangmi_sm2::SecretKey;
use shangmi_sm2::dsa::SigningKey;
use shangmi_sm2::elliptic_curve::sec1::ToSec1Point;
use shangmi_sm2::pke::{DecryptingKey, Layout, Parts};
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{c_int, c_uint, c_void};
use std::sync::{Mutex, PoisonError};

const SDR_OK: c_int = 0;
const SDR_BASE: c_int = 0x0100_0000;
const SDR_OPENDEVICE: c_int = SDR_BASE + 5;
const SDR_OPENSESSION: c_int = SDR_BASE + 6;
const SDR_PARDENY: c_int = SDR_BASE + 7;
const SDR_KEYNOTEXIST: c_int = SDR_BASE + 8;
const SDR_ALGNOTSUPPORT: c_int = SDR_BASE + 9;
const SDR_SIGNERR: c_int = SDR_BASE + 0xD;
const SDR_VERIFYERR: c_int = SDR_BASE + 0xE;
const SDR_ENCDATAERR: c_int = SDR_BASE + 0x16;
const SDR_RANDERR: c_int = SDR_BASE + 0x17;
const SDR_INARGERR: c_int = SDR_BASE + 0x1D;
const SDR_OUTARGERR: c_int = SDR_BASE + 0x1E;
const SGD_SM2_1: c_uint = 0x0002_0200;
const SGD_SM2_3: c_uint = 0x0002_0800;
const SGD_SM3: c_uint = 0x0000_0001;

/// `ECCrefPublicKey`.
#[repr(C)]
pub struct EccRefPublicKey {
    bits: c_uint,
    x: [u8; 64],
    y: [u8; 64],
}

/// `ECCSignature`.
#[repr(C)]
pub struct EccSignature {
    r: [u8; 64],
    s: [u8; 64],
}

/// `ECCCipher`'s head; C2 (`L` bytes) follows it.
#[repr(C)]
pub struct EccCipher {
    x: [u8; 64],
    y: [u8; 64],
    m: [u8; 32],
    l: c_uint,
}

/// `DEVICEINFO`.
#[repr(C)]
pub struct DeviceInfo {
    issuer_name: [u8; 40],
    device_name: [u8; 16],
    device_serial: [u8; 16],
    device_version: c_uint,
    standard_version: c_uint,
    asym_alg_ability: [c_uint; 2],
    sym_alg_ability: c_uint,
    hash_alg_ability: c_uint,
    buffer_size: c_uint,
}

const FAULT_EXPORT: c_uint = 7;
const FAULT_OUTPUT: c_uint = 8;

/// Handles are counters (never 0); a session records the indexes it has the right to.
struct State {
    next: usize,
    devices: BTreeSet<usize>,
    sessions: BTreeMap<usize, BTreeSet<c_uint>>,
}

static STATE: Mutex<State> = Mutex::new(State {
    next: 0,
    devices: BTreeSet::new(),
    sessions: BTreeMap::new(),
});

fn state() -> std::sync::MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The secret of the pair (`sign` or not) at `index`, if there is one.
fn secret(index: c_uint, sign: bool) -> Option<SecretKey> {
    let index = match index {
        1 | 2 | FAULT_EXPORT => index,
        FAULT_OUTPUT => 1,
        _ => return None,
    };
    let seed =
        std::env::var("SHANGMI_TESTSDF_SEED").unwrap_or_else(|_| "shangmi test device".into());
    (0u32..).take(16).find_map(|counter| {
        use shangmi_sm3::Digest;
        let mut h = shangmi_sm3::Sm3::new();
        h.update(seed.as_bytes());
        h.update(if sign { b"sign" } else { b"enc " });
        h.update(index.to_be_bytes());
        h.update(counter.to_be_bytes());
        SecretKey::from_bytes(&h.finalize()).ok()
    })
}

/// The two pairs of an index as key objects, made once per (seed, index) and kept, as a
/// card keeps its key store loaded (a benchmark then measures the interface, not the
/// derivation): `Ok(None)` if the index holds no key, `Err` if a key cannot sign.
struct Loaded {
    sign: SigningKey,
    enc: DecryptingKey,
}

fn loaded(index: c_uint) -> Result<Option<std::sync::Arc<Loaded>>, ()> {
    type Cache = BTreeMap<(String, c_uint), std::sync::Arc<Loaded>>;
    static CACHE: Mutex<Cache> = Mutex::new(BTreeMap::new());
    let seed =
        std::env::var("SHANGMI_TESTSDF_SEED").unwrap_or_else(|_| "shangmi test device".into());
    let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(keys) = cache.get(&(seed.clone(), index)) {
        return Ok(Some(keys.clone()));
    }
    let (Some(sign), Some(enc)) = (secret(index, true), secret(index, false)) else {
        return Ok(None);
    };
    let keys = std::sync::Arc::new(Loaded {
        sign: SigningKey::new(&sign).map_err(|_| ())?,
        enc: DecryptingKey::new(enc),
    });
    cache.insert((seed, index), keys.clone());
    Ok(Some(keys))
}

fn pin_ok(pin: &[u8]) -> bool {
    let want = std::env::var("SHANGMI_TESTSDF_PIN").unwrap_or_else(|_| "123456".into());
    want.as_bytes() == pin
}

fn new_handle(s: &mut State) -> usize {
    s.next += 1;
    s.next
}

/// Whether `session` is open and holds the right to `index`.
fn authorized(session: *mut c_void, index: c_uint) -> Result<(), c_int> {
    match state().sessions.get(&(session as usize)) {
        None => Err(SDR_OPENSESSION),
        Some(rights) if rights.contains(&index) => Ok(()),
        Some(_) => Err(SDR_PARDENY),
    }
}

fn session_open(session: *mut c_void) -> bool {
    state().sessions.contains_key(&(session as usize))
}

/// Opens the device.
///
/// # Safety
/// `ph_device` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SDF_OpenDevice(ph_device: *mut *mut c_void) -> c_int {
    if ph_device.is_null() {
        return SDR_OUTARGERR;
    }
    let mut s = state();
    // One open device per process, as GmSSL's SoftSDF allows: a caller that opens the same
    // library twice (a sign key and an encryption key) must share its device.
    if !s.devices.is_empty() {
        return SDR_OPENDEVICE;
    }
    let h = new_handle(&mut s);
    s.devices.insert(h);
    // SAFETY: non-null and writable by the caller's contract.
    unsafe { *ph_device = h as *mut c_void };
    SDR_OK
}

/// Closes the device.
///
/// # Safety
/// None beyond C's: any value is accepted.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SDF_CloseDevice(h_device: *mut c_void) -> c_int {
    if state().devices.remove(&(h_device as usize)) {
        SDR_OK
    } else {
        SDR_INARGERR
    }
}

/// Opens a session.
///
/// # Safety
/// `ph_session` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SDF_OpenSession(
    h_device: *mut c_void,
    ph_session: *mut *mut c_void,
) -> c_int {
    if ph_session.is_null() {
        return SDR_OUTARGERR;
    }
    let mut s = state();
    if !s.devices.contains(&(h_device as usize)) {
        return SDR_INARGERR;
    }
    let h = new_handle(&mut s);
    s.sessions.insert(h, BTreeSet::new());
    // SAFETY: non-null and writable by the caller's contract.
    unsafe { *ph_session = h as *mut c_void };
    SDR_OK
}

/// Closes a session.
///
/// # Safety
/// None beyond C's: any value is accepted.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SDF_CloseSession(h_session: *mut c_void) -> c_int {
    match state().sessions.remove(&(h_session as usize)) {
        Some(_) => SDR_OK,
        None => SDR_INARGERR,
    }
}

/// Describes the device.
///
/// # Safety
/// `info` must be writable for a `DEVICEINFO`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SDF_GetDeviceInfo(h_session: *mut c_void, info: *mut DeviceInfo) -> c_int {
    if !session_open(h_session) {
        return SDR_OPENSESSION;
    }
    if info.is_null() {
        return SDR_OUTARGERR;
    }
    let mut d = DeviceInfo {
        issuer_name: [0; 40],
        device_name: [0; 16],
        device_serial: [0; 16],
        device_version: 1,
        standard_version: 1,
        asym_alg_ability: [SGD_SM2_1 | SGD_SM2_3, 256],
        sym_alg_ability: 0,
        hash_alg_ability: SGD_SM3,
        buffer_size: 1 << 16,
    };
    d.issuer_name[..7].copy_from_slice(b"shangmi");
    d.device_name[..11].copy_from_slice(b"test device");
    d.device_serial[..4].copy_from_slice(b"0001");
    // SAFETY: non-null and writable by the caller's contract.
    unsafe { info.write(d) };
    SDR_OK
}

/// Random bytes.
///
/// # Safety
/// `out` must be writable for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SDF_GenerateRandom(
    h_session: *mut c_void,
    len: c_uint,
    out: *mut u8,
) -> c_int {
    if !session_open(h_session) {
        return SDR_OPENSESSION;
    }
    if out.is_null() {
        return SDR_OUTARGERR;
    }
    // SAFETY: writable for `len` bytes by the caller's contract.
    let out = unsafe { std::slice::from_raw_parts_mut(out, len as usize) };
    match getrandom::fill(out) {
        Ok(()) => SDR_OK,
        Err(_) => SDR_RANDERR,
    }
}

/// Grants the access right to `index` if `pin` is right.
///
/// # Safety
/// `pin` must be readable for `pin_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SDF_GetPrivateKeyAccessRight(
    h_session: *mut c_void,
    index: c_uint,
    pin: *const u8,
    pin_len: c_uint,
) -> c_int {
    if pin.is_null() {
        return SDR_INARGERR;
    }
    if secret(index, true).is_none() {
        return SDR_KEYNOTEXIST;
    }
    // SAFETY: readable for `pin_len` bytes by the caller's contract.
    let pin = unsafe { std::slice::from_raw_parts(pin, pin_len as usize) };
    let ok = pin_ok(pin);
    match state().sessions.get_mut(&(h_session as usize)) {
        None => SDR_OPENSESSION,
        Some(_) if !ok => SDR_PARDENY,
        Some(rights) => {
            rights.insert(index);
            SDR_OK
        }
    }
}

/// Drops the access right.
///
/// # Safety
/// None beyond C's: any value is accepted.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SDF_ReleasePrivateKeyAccessRight(
    h_session: *mut c_void,
    index: c_uint,
) -> c_int {
    match state().sessions.get_mut(&(h_session as usize)) {
        None => SDR_OPENSESSION,
        Some(rights) => {
            rights.remove(&index);
            SDR_OK
        }
    }
}

fn export(h_session: *mut c_void, index: c_uint, sign: bool, out: *mut EccRefPublicKey) -> c_int {
    if !session_open(h_session) {
        return SDR_OPENSESSION;
    }
    if out.is_null() {
        return SDR_OUTARGERR;
    }
    let Some(key) = secret(index, sign) else {
        return SDR_KEYNOTEXIST;
    };
    let point = key.public_key().to_sec1_point(false);
    let mut p = EccRefPublicKey {
        bits: if index == FAULT_EXPORT { 1024 } else { 256 },
        x: [0; 64],
        y: [0; 64],
    };
    p.x[32..].copy_from_slice(&point.as_bytes()[1..33]);
    p.y[32..].copy_from_slice(&point.as_bytes()[33..65]);
    // SAFETY: non-null; the exported functions' callers promise it is writable.
    unsafe { out.write(p) };
    SDR_OK
}

/// The sign public key at `index`.
///
/// # Safety
/// `out` must be writable for an `ECCrefPublicKey`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SDF_ExportSignPublicKey_ECC(
    h_session: *mut c_void,
    index: c_uint,
    out: *mut EccRefPublicKey,
) -> c_int {
    export(h_session, index, true, out)
}

/// The encryption public key at `index`.
///
/// # Safety
/// `out` must be writable for an `ECCrefPublicKey`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SDF_ExportEncPublicKey_ECC(
    h_session: *mut c_void,
    index: c_uint,
    out: *mut EccRefPublicKey,
) -> c_int {
    export(h_session, index, false, out)
}

/// Signs the digest `data` (32 bytes) with the sign key at `index`.
///
/// # Safety
/// `data` readable for `len` bytes, `sig` writable for an `ECCSignature`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SDF_InternalSign_ECC(
    h_session: *mut c_void,
    index: c_uint,
    data: *const u8,
    len: c_uint,
    sig: *mut EccSignature,
) -> c_int {
    if let Err(rv) = authorized(h_session, index) {
        return rv;
    }
    if data.is_null() || len != 32 {
        return SDR_INARGERR;
    }
    if sig.is_null() {
        return SDR_OUTARGERR;
    }
    let key = match loaded(index) {
        Ok(Some(key)) => key,
        Ok(None) => return SDR_KEYNOTEXIST,
        Err(()) => return SDR_SIGNERR,
    };
    let mut e = [0u8; 32];
    // SAFETY: readable for `len` = 32 bytes by the caller's contract.
    e.copy_from_slice(unsafe { std::slice::from_raw_parts(data, 32) });
    let signature = key.sign.sign_e(&e);
    let mut out = EccSignature {
        r: [0; 64],
        s: [0; 64],
    };
    out.r[32..].copy_from_slice(signature.r());
    out.s[32..].copy_from_slice(signature.s());
    if index == FAULT_OUTPUT {
        out.r[0] = 0xFF;
    }
    // SAFETY: non-null and writable by the caller's contract.
    unsafe { sig.write(out) };
    SDR_OK
}

/// Verifies a signature of the digest `data` with the sign public key at `index`.
///
/// # Safety
/// `data` readable for `len` bytes, `sig` readable as an `ECCSignature`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SDF_InternalVerify_ECC(
    h_session: *mut c_void,
    index: c_uint,
    data: *const u8,
    len: c_uint,
    sig: *const EccSignature,
) -> c_int {
    if !session_open(h_session) {
        return SDR_OPENSESSION;
    }
    if data.is_null() || len != 32 || sig.is_null() {
        return SDR_INARGERR;
    }
    let Some(key) = secret(index, true) else {
        return SDR_KEYNOTEXIST;
    };
    let mut e = [0u8; 32];
    // SAFETY: readable for 32 bytes by the caller's contract.
    e.copy_from_slice(unsafe { std::slice::from_raw_parts(data, 32) });
    // SAFETY: readable as an `ECCSignature` by the caller's contract.
    let sig = unsafe { &*sig };
    let (mut r, mut s) = ([0u8; 32], [0u8; 32]);
    r.copy_from_slice(&sig.r[32..]);
    s.copy_from_slice(&sig.s[32..]);
    let vk = shangmi_sm2::dsa::VerifyingKey::new(&key.public_key());
    match shangmi_sm2::dsa::Signature::from_scalars(r, s) {
        Ok(sig) if vk.verify_e(&e, &sig).is_ok() => SDR_OK,
        _ => SDR_VERIFYERR,
    }
}

/// Decrypts an `ECCCipher` with the encryption key at `index`.
///
/// # Safety
/// `cipher` readable as an `ECCCipher` with `L` bytes of C2 after its head, `out` writable
/// for `L` bytes, `out_len` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SDF_InternalDecrypt_ECC(
    h_session: *mut c_void,
    index: c_uint,
    alg: c_uint,
    cipher: *const EccCipher,
    out: *mut u8,
    out_len: *mut c_uint,
) -> c_int {
    if let Err(rv) = authorized(h_session, index) {
        return rv;
    }
    if alg != SGD_SM2_3 {
        return SDR_ALGNOTSUPPORT;
    }
    if cipher.is_null() || out.is_null() || out_len.is_null() {
        return SDR_INARGERR;
    }
    let key = match loaded(index) {
        Ok(Some(key)) => key,
        Ok(None) => return SDR_KEYNOTEXIST,
        Err(()) => return SDR_ENCDATAERR,
    };
    // SAFETY: readable as an `ECCCipher` head by the caller's contract.
    let head = unsafe { &*cipher };
    let l = head.l as usize;
    if l == 0 || l > 1 << 16 {
        return SDR_INARGERR;
    }
    // SAFETY: C2's `L` bytes follow the head (caller's contract).
    let c2 =
        unsafe { std::slice::from_raw_parts(cipher.cast::<u8>().add(size_of::<EccCipher>()), l) };
    let (mut x, mut y) = ([0u8; 32], [0u8; 32]);
    x.copy_from_slice(&head.x[32..]);
    y.copy_from_slice(&head.y[32..]);
    let ct = Parts {
        x,
        y,
        c3: &head.m,
        c2,
    }
    .join(Layout::C1C3C2);
    let Ok(plain) = key.enc.decrypt(&ct, Layout::C1C3C2) else {
        return SDR_ENCDATAERR;
    };
    // SAFETY: writable for `L` bytes (the plaintext's length) by the caller's contract.
    unsafe { std::ptr::copy_nonoverlapping(plain.as_ptr(), out, plain.len()) };
    let reported = if index == FAULT_OUTPUT { l + 1000 } else { l };
    // SAFETY: non-null and writable by the caller's contract.
    unsafe { *out_len = reported as c_uint };
    SDR_OK
}
