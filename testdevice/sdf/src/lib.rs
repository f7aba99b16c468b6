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
//!   bytes longer than the plaintext; index 9 holds index 1's keys and answers the key
//!   agreement with `SDR_NOTSUPPORT` (as GmSSL's SoftSDF does); index 10 holds index 1's
//!   keys, completes its first agreement in the process (a key's open-time check) and
//!   fails every later one in `SDF_GenerateKeyWithECC` with `SDR_HARDFAIL`.
//! - The SM2 key agreement (sponsor and responder, GM/T 0018 §6.3) over shangmi-sm2's
//!   GB/T 32918.3 exchange, ending in a key handle, and GM/T 0018-2023's keyed hash
//!   (`SDF_HMACInit/Update/Final`, HMAC-SM3) with such a handle; `SDF_DestroyKey`.
//!
//! Structures as GM/T 0018 defines them (field layout from GmSSL 3.3's `sdf.h`).

use shangmi_sm2::dsa::SigningKey;
use shangmi_sm2::kx::{KeyExchange, Role};
use shangmi_sm2::pke::{DecryptingKey, Layout};
use shangmi_sm2::{Peer, SecretKey};
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{c_int, c_uint, c_void};
use std::sync::{Mutex, PoisonError};

#[allow(dead_code)] // its `with_state`: this device's state is a constant, not made on first use
#[path = "../../common.rs"]
mod common;
#[path = "../../ecc.rs"]
mod ecc;

use ecc::{EccCipherHead, EccPublicKey, EccSignature};

const SDR_OK: c_int = 0;
const SDR_BASE: c_int = 0x0100_0000;
const SDR_NOTSUPPORT: c_int = SDR_BASE + 2;
const SDR_HARDFAIL: c_int = SDR_BASE + 4;
const SDR_STEPERR: c_int = SDR_BASE + 0x10;
const SDR_KEYERR: c_int = SDR_BASE + 0x15;
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
const FAULT_NO_KX: c_uint = 9;
const FAULT_KX: c_uint = 10;

type HmacSm3 = hmac::Hmac<shangmi_sm3::Sm3>;

/// Handles are counters (never 0); a session records the indexes it has the right to.
/// Agreements, key handles and keyed hashes belong to the session that made them.
struct State {
    next: usize,
    devices: BTreeSet<usize>,
    sessions: BTreeMap<usize, BTreeSet<c_uint>>,
    agreements: BTreeMap<usize, (usize, c_uint, c_uint, KeyExchange)>,
    keys: BTreeMap<usize, (usize, Vec<u8>)>,
    hmacs: BTreeMap<usize, HmacSm3>,
    fault_kx_runs: usize,
}

static STATE: Mutex<State> = Mutex::new(State {
    next: 0,
    devices: BTreeSet::new(),
    sessions: BTreeMap::new(),
    agreements: BTreeMap::new(),
    keys: BTreeMap::new(),
    hmacs: BTreeMap::new(),
    fault_kx_runs: 0,
});

fn state() -> std::sync::MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Where the keys' seed comes from, and the seed without it.
const SEED_VAR: &str = "SHANGMI_TESTSDF_SEED";
const SEED_DEFAULT: &str = "shangmi test device";

/// The secret of the pair (`sign` or not) at `index`, if there is one.
fn secret(index: c_uint, sign: bool) -> Option<SecretKey> {
    let index = match index {
        1 | 2 | FAULT_EXPORT => index,
        FAULT_OUTPUT | FAULT_NO_KX | FAULT_KX => 1,
        _ => return None,
    };
    let usage = if sign { b"sign" } else { b"enc " };
    common::derive(SEED_VAR, SEED_DEFAULT, &[usage, &index.to_be_bytes()])
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
    let seed = common::seed(SEED_VAR, SEED_DEFAULT);
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

/// Whether the session may start or answer an agreement with the key at `index`: it has
/// the access right ([`authorized`]) and the key is not the one that refuses agreements.
fn agreement_allowed(session: *mut c_void, index: c_uint) -> Result<(), c_int> {
    authorized(session, index)?;
    if index == FAULT_NO_KX {
        return Err(SDR_NOTSUPPORT);
    }
    Ok(())
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
    let mut s = state();
    let h = h_session as usize;
    s.agreements.retain(|_, a| a.0 != h);
    s.keys.retain(|_, k| k.0 != h);
    s.hmacs.remove(&h);
    match s.sessions.remove(&h) {
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
    // SAFETY: non-null and writable for `len` bytes by the caller's contract.
    if unsafe { common::os_random(out, len as usize) } {
        SDR_OK
    } else {
        SDR_RANDERR
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

fn export(h_session: *mut c_void, index: c_uint, sign: bool, out: *mut EccPublicKey) -> c_int {
    if !session_open(h_session) {
        return SDR_OPENSESSION;
    }
    if out.is_null() {
        return SDR_OUTARGERR;
    }
    let Some(key) = secret(index, sign) else {
        return SDR_KEYNOTEXIST;
    };
    let bits = if index == FAULT_EXPORT { 1024 } else { 256 };
    let p = EccPublicKey::new(&key.public_key(), bits);
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
    out: *mut EccPublicKey,
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
    out: *mut EccPublicKey,
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
    let mut out = EccSignature::new(&key.sign.sign_e(&e));
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
    cipher: *const EccCipherHead,
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
    let l = unsafe { (*cipher).len } as usize;
    if l == 0 || l > 1 << 16 {
        return SDR_INARGERR;
    }
    // SAFETY: C2's `L` bytes follow the head (caller's contract).
    let ct = unsafe { EccCipherHead::c1c3c2(cipher) };
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

/// The SM2 public key in an `ECCrefPublicKey`, if it is one.
///
/// # Safety
/// `p` readable as an `ECCrefPublicKey` (or null).
unsafe fn read_public(p: *const EccPublicKey) -> Option<shangmi_sm2::PublicKey> {
    if p.is_null() {
        return None;
    }
    // SAFETY: non-null and readable by the caller's contract.
    let p = unsafe { &*p };
    if p.bits != 256 || p.x[..32].iter().chain(&p.y[..32]).any(|&b| b != 0) {
        return None;
    }
    let mut sec1 = [4u8; 65];
    sec1[1..33].copy_from_slice(&p.x[32..]);
    sec1[33..].copy_from_slice(&p.y[32..]);
    shangmi_sm2::keys::public_key_from_sec1(&sec1).ok()
}

fn write_public(key: &shangmi_sm2::PublicKey) -> EccPublicKey {
    EccPublicKey::new(key, 256)
}

/// `len` bytes at `p` (empty for a null `p` with `len` 0).
///
/// # Safety
/// `p` readable for `len` bytes.
unsafe fn bytes<'a>(p: *const u8, len: c_uint) -> Option<&'a [u8]> {
    match (p.is_null(), len) {
        (true, 0) => Some(&[]),
        (true, _) => None,
        // SAFETY: readable for `len` bytes by the caller's contract.
        (false, _) => Some(unsafe { std::slice::from_raw_parts(p, len as usize) }),
    }
}

/// A started exchange for the encryption key at `index` with an ephemeral key from the
/// system's generator.
fn start_kx(role: Role, index: c_uint, id: &[u8]) -> Result<KeyExchange, c_int> {
    let secret = secret(index, false).ok_or(SDR_KEYNOTEXIST)?;
    for _ in 0..16 {
        let mut r = shangmi_sm2::FieldBytes::default();
        getrandom::fill(&mut r).map_err(|_| SDR_RANDERR)?;
        if let Ok(kx) = KeyExchange::new_with_ephemeral(role, &secret, id, &r) {
            return Ok(kx);
        }
    }
    Err(SDR_RANDERR)
}

/// Key lengths the agreement makes: 1 to 1024 bits, whole bytes.
fn key_len(bits: c_uint) -> Option<usize> {
    (bits.is_multiple_of(8) && (8..=1024).contains(&bits)).then_some(bits as usize / 8)
}

/// The sponsor's first step: an ephemeral key for the encryption key at `index`, its
/// public key and the ephemeral point out, and an agreement handle.
///
/// # Safety
/// `id` readable for `id_len` bytes; the two keys and the handle writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SDF_GenerateAgreementDataWithECC(
    h_session: *mut c_void,
    index: c_uint,
    key_bits: c_uint,
    id: *const u8,
    id_len: c_uint,
    own_public: *mut EccPublicKey,
    own_ephemeral: *mut EccPublicKey,
    ph_agreement: *mut *mut c_void,
) -> c_int {
    if let Err(rv) = agreement_allowed(h_session, index) {
        return rv;
    }
    // SAFETY: readable for `id_len` bytes by the caller's contract.
    let Some(id) = (unsafe { bytes(id, id_len) }) else {
        return SDR_INARGERR;
    };
    if key_len(key_bits).is_none() {
        return SDR_INARGERR;
    }
    if own_public.is_null() || own_ephemeral.is_null() || ph_agreement.is_null() {
        return SDR_OUTARGERR;
    }
    let kx = match start_kx(Role::Initiator, index, id) {
        Ok(kx) => kx,
        Err(rv) => return rv,
    };
    let Some(public) = secret(index, false).map(|k| k.public_key()) else {
        return SDR_KEYNOTEXIST;
    };
    // SAFETY: non-null and writable by the caller's contract.
    unsafe {
        own_public.write(write_public(&public));
        own_ephemeral.write(write_public(&kx.ephemeral_public()));
    }
    let mut s = state();
    let h = new_handle(&mut s);
    s.agreements
        .insert(h, (h_session as usize, index, key_bits, kx));
    // SAFETY: non-null and writable by the caller's contract.
    unsafe { *ph_agreement = h as *mut c_void };
    SDR_OK
}

/// Stores `key` as a new key handle of `session` and writes the handle to `ph_key`.
///
/// # Safety
/// `ph_key` non-null and writable.
unsafe fn new_key(session: usize, key: Vec<u8>, ph_key: *mut *mut c_void) -> c_int {
    let mut s = state();
    let h = new_handle(&mut s);
    s.keys.insert(h, (session, key));
    // SAFETY: non-null and writable by the caller's contract.
    unsafe { *ph_key = h as *mut c_void };
    SDR_OK
}

/// The sponsor completes with the responder's key, identifier and ephemeral point: the
/// agreed key as a key handle (the agreement handle is used up).
///
/// # Safety
/// `id` readable for `id_len` bytes, the two keys readable, `ph_key` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SDF_GenerateKeyWithECC(
    h_session: *mut c_void,
    id: *const u8,
    id_len: c_uint,
    peer_public: *const EccPublicKey,
    peer_ephemeral: *const EccPublicKey,
    h_agreement: *mut c_void,
    ph_key: *mut *mut c_void,
) -> c_int {
    if !session_open(h_session) {
        return SDR_OPENSESSION;
    }
    // SAFETY: readable by the caller's contract.
    let (id, pp, pe) = unsafe {
        (
            bytes(id, id_len),
            read_public(peer_public),
            read_public(peer_ephemeral),
        )
    };
    let (Some(id), Some(pp), Some(pe)) = (id, pp, pe) else {
        return SDR_INARGERR;
    };
    if ph_key.is_null() {
        return SDR_OUTARGERR;
    }
    let (session, _, bits, kx) = {
        let mut s = state();
        match s.agreements.get(&(h_agreement as usize)) {
            Some(a) if a.0 == h_session as usize => {}
            _ => return SDR_STEPERR,
        }
        let Some(a) = s.agreements.remove(&(h_agreement as usize)) else {
            return SDR_STEPERR;
        };
        if a.1 == FAULT_KX {
            s.fault_kx_runs += 1;
            if s.fault_kx_runs > 1 {
                return SDR_HARDFAIL;
            }
        }
        a
    };
    let mut key = vec![0u8; key_len(bits).unwrap_or(0)];
    if kx.finish(Peer::new(&pp, id, &pe), &mut key).is_err() {
        return SDR_KEYERR;
    }
    // SAFETY: non-null and writable by the caller's contract.
    unsafe { new_key(session, key, ph_key) }
}

/// The responder in one step: with the sponsor's key, identifier and ephemeral point, an
/// ephemeral key for the encryption key at `index`, its public key and ephemeral point
/// out, and the agreed key as a key handle.
///
/// # Safety
/// Identifiers readable for their lengths, the sponsor's keys readable, the responder's
/// keys and `ph_key` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SDF_GenerateAgreementDataAndKeyWithECC(
    h_session: *mut c_void,
    index: c_uint,
    key_bits: c_uint,
    own_id: *const u8,
    own_id_len: c_uint,
    sponsor_id: *const u8,
    sponsor_id_len: c_uint,
    sponsor_public: *const EccPublicKey,
    sponsor_ephemeral: *const EccPublicKey,
    own_public: *mut EccPublicKey,
    own_ephemeral: *mut EccPublicKey,
    ph_key: *mut *mut c_void,
) -> c_int {
    if let Err(rv) = agreement_allowed(h_session, index) {
        return rv;
    }
    // SAFETY: readable by the caller's contract.
    let (own_id, sponsor_id, sp, se) = unsafe {
        (
            bytes(own_id, own_id_len),
            bytes(sponsor_id, sponsor_id_len),
            read_public(sponsor_public),
            read_public(sponsor_ephemeral),
        )
    };
    let (Some(own_id), Some(sponsor_id), Some(sp), Some(se), Some(len)) =
        (own_id, sponsor_id, sp, se, key_len(key_bits))
    else {
        return SDR_INARGERR;
    };
    if own_public.is_null() || own_ephemeral.is_null() || ph_key.is_null() {
        return SDR_OUTARGERR;
    }
    let kx = match start_kx(Role::Responder, index, own_id) {
        Ok(kx) => kx,
        Err(rv) => return rv,
    };
    let (Some(public), ephemeral) = (
        secret(index, false).map(|k| k.public_key()),
        kx.ephemeral_public(),
    ) else {
        return SDR_KEYNOTEXIST;
    };
    let mut key = vec![0u8; len];
    if kx
        .finish(Peer::new(&sp, sponsor_id, &se), &mut key)
        .is_err()
    {
        return SDR_KEYERR;
    }
    // SAFETY: non-null and writable by the caller's contract.
    unsafe {
        own_public.write(write_public(&public));
        own_ephemeral.write(write_public(&ephemeral));
        new_key(h_session as usize, key, ph_key)
    }
}

/// Destroys a key handle of the session.
///
/// # Safety
/// None beyond C's: any value is accepted.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SDF_DestroyKey(h_session: *mut c_void, h_key: *mut c_void) -> c_int {
    let mut s = state();
    match s.keys.get(&(h_key as usize)) {
        Some(k) if k.0 == h_session as usize => {
            s.keys.remove(&(h_key as usize));
            SDR_OK
        }
        _ => SDR_KEYERR,
    }
}

/// Starts HMAC-SM3 (GM/T 0018-2023's keyed hash) keyed with a key handle of the session.
///
/// # Safety
/// None beyond C's: any value is accepted.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SDF_HMACInit(
    h_session: *mut c_void,
    h_key: *mut c_void,
    alg: c_uint,
) -> c_int {
    use hmac::KeyInit;
    if alg != SGD_SM3 {
        return SDR_ALGNOTSUPPORT;
    }
    let mut s = state();
    let mac = match s.keys.get(&(h_key as usize)) {
        Some((session, key)) if *session == h_session as usize => {
            match HmacSm3::new_from_slice(key) {
                Ok(mac) => mac,
                Err(_) => return SDR_KEYERR,
            }
        }
        _ => return SDR_KEYERR,
    };
    s.hmacs.insert(h_session as usize, mac);
    SDR_OK
}

/// Feeds the session's keyed hash.
///
/// # Safety
/// `data` readable for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SDF_HMACUpdate(
    h_session: *mut c_void,
    data: *const u8,
    len: c_uint,
) -> c_int {
    use hmac::Mac;
    // SAFETY: readable for `len` bytes by the caller's contract.
    let Some(data) = (unsafe { bytes(data, len) }) else {
        return SDR_INARGERR;
    };
    match state().hmacs.get_mut(&(h_session as usize)) {
        Some(mac) => {
            mac.update(data);
            SDR_OK
        }
        None => SDR_STEPERR,
    }
}

/// Ends the session's keyed hash: the 32-byte HMAC-SM3 out.
///
/// # Safety
/// `out` writable for `*out_len` bytes, `out_len` readable and writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SDF_HMACFinal(
    h_session: *mut c_void,
    out: *mut u8,
    out_len: *mut c_uint,
) -> c_int {
    use hmac::Mac;
    if out.is_null() || out_len.is_null() {
        return SDR_OUTARGERR;
    }
    // SAFETY: readable by the caller's contract.
    if unsafe { *out_len } < 32 {
        return SDR_OUTARGERR;
    }
    let Some(mac) = state().hmacs.remove(&(h_session as usize)) else {
        return SDR_STEPERR;
    };
    let tag = mac.finalize().into_bytes();
    // SAFETY: writable for at least 32 bytes (checked above) by the caller's contract.
    unsafe {
        std::ptr::copy_nonoverlapping(tag.as_ptr(), out, 32);
        *out_len = 32;
    }
    SDR_OK
}
