//! Everything of the test device but `SKF_ECCDecrypt` (see the crate's documentation).
//! Handles are counters (never 0) passed as `usize`, which has `void *`'s size and ABI.

use crate::ecc::{EccPublicKey, EccSignature};
use der::Encode;
use shangmi_pki::issue::{self, CertParams, Profile};
use shangmi_pki::name::parse_dn;
use shangmi_sm2::SecretKey;
use shangmi_sm2::dsa::SigningKey;
use std::collections::BTreeMap;
use std::ffi::{CStr, c_char};
use std::sync::{Mutex, OnceLock};
use x509_cert::name::Name;

pub(crate) const SAR_OK: u32 = 0;
const SAR_FAIL: u32 = 0x0A00_0001;
const SAR_INVALIDHANDLEERR: u32 = 0x0A00_0005;
pub(crate) const SAR_INVALIDPARAMERR: u32 = 0x0A00_0006;
pub(crate) const SAR_INDATAERR: u32 = 0x0A00_0011;
const SAR_KEYNOTFOUNTERR: u32 = 0x0A00_001B;
const SAR_CERTNOTFOUNTERR: u32 = 0x0A00_001C;
pub(crate) const SAR_BUFFER_TOO_SMALL: u32 = 0x0A00_0020;
const SAR_PIN_INCORRECT: u32 = 0x0A00_0024;
const SAR_PIN_LOCKED: u32 = 0x0A00_0025;
const SAR_USER_TYPE_INVALID: u32 = 0x0A00_002A;
const SAR_USER_NOT_LOGGED_IN: u32 = 0x0A00_002D;
const SAR_APPLICATION_NOT_EXISTS: u32 = 0x0A00_002E;
const SAR_FILE_NOT_EXIST: u32 = 0x0A00_0031;

const DEVICE: &str = "shangmi-skf-0";
const APPS: [&str; 2] = ["SHANGMI", "LOCKOUT"];
const CONTAINERS: [&str; 4] = ["tlcp-client", "garbage", "offcurve", "empty"];
const MAX_RETRIES: u32 = 6;
const USER_TYPE: u32 = 1;

/// `DEVINFO` (packed).
#[repr(C, packed)]
pub struct DevInfo {
    version: [u8; 2],
    manufacturer: [u8; 64],
    issuer: [u8; 64],
    label: [u8; 32],
    serial_number: [u8; 32],
    hw_version: [u8; 2],
    firmware_version: [u8; 2],
    caps: [u32; 8],
    reserved: [u8; 64],
}

struct App {
    name: &'static str,
    logged_in: bool,
}

#[derive(Default)]
struct State {
    next: usize,
    devices: BTreeMap<usize, ()>,
    apps: BTreeMap<usize, App>,
    /// container handle → (its application's handle, its name)
    containers: BTreeMap<usize, (usize, &'static str)>,
    /// retries left per application name (absent: MAX_RETRIES)
    retries: BTreeMap<&'static str, u32>,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

fn with_state<T>(f: impl FnOnce(&mut State) -> T) -> T {
    crate::common::with_state(&STATE, f)
}

fn new_handle(s: &mut State) -> usize {
    s.next += 1;
    s.next
}

fn derive(label: &str) -> SecretKey {
    crate::common::derive(
        "SHANGMI_TESTSKF_SEED",
        "shangmi test skf",
        &[label.as_bytes()],
    )
    .unwrap_or_else(|| unreachable!("SM3 outputs are valid scalars but for 2^-128"))
}

/// The secret of the container's pair (`sign` or not), if it has keys.
pub(crate) fn secret(container: &str, sign: bool) -> Option<SecretKey> {
    match container {
        "tlcp-client" | "garbage" => Some(derive(if sign { "sign" } else { "enc" })),
        _ => None,
    }
}

/// Certificate parameters that do not change between loads: serial `serial`, valid from
/// 2020-01-01 to 2049-12-31. With SM2 signatures deterministic in shangmi (RFC 6979 style
/// nonces), every load of the device makes the same certificates, as a real key stores.
fn fixed(subject: Name, profile: Profile, serial: u8) -> CertParams {
    let mut p = CertParams::new(subject, profile, 1);
    p.not_before = 1_577_836_800;
    p.not_after = 2_524_521_600;
    p.serial = Some(vec![serial]);
    p
}

/// The CA's certificate and the container's two, made once per load.
struct Certs {
    ca: Vec<u8>,
    sign: Vec<u8>,
    enc: Vec<u8>,
}

fn certs() -> Option<&'static Certs> {
    static CERTS: OnceLock<Option<Certs>> = OnceLock::new();
    CERTS
        .get_or_init(|| {
            let ca_key = derive("ca");
            let ca = issue::self_signed(
                &ca_key,
                &fixed(
                    parse_dn("/CN=shangmi test SKF CA").ok()?,
                    Profile::Ca { path_len: None },
                    1,
                ),
            )
            .ok()?;
            let leaf = |sign: bool, profile| {
                let public = secret("tlcp-client", sign)?.public_key();
                let serial = if sign { 2 } else { 3 };
                let params = fixed(
                    parse_dn("/O=shangmi test/CN=skf client").ok()?,
                    profile,
                    serial,
                );
                issue::issue(&ca, &ca_key, &public, &params)
                    .ok()?
                    .to_der()
                    .ok()
            };
            Some(Certs {
                sign: leaf(true, Profile::TlcpSign)?,
                enc: leaf(false, Profile::TlcpEnc)?,
                ca: ca.to_der().ok()?,
            })
        })
        .as_ref()
}

/// The open, logged-in container `h` and the secret of its sign (`sign`) or encryption
/// pair; a container without that pair is `missing`.
pub(crate) fn private_key(
    h: usize,
    sign: bool,
    missing: u32,
) -> Result<(&'static str, SecretKey), u32> {
    let (name, _) = container(h, true)?;
    Ok((name, secret(name, sign).ok_or(missing)?))
}

/// The name of the open container `h` and whether its application is logged in, after
/// checking the login if `private`.
pub(crate) fn container(h: usize, private: bool) -> Result<(&'static str, bool), u32> {
    with_state(|s| {
        let &(app, name) = s.containers.get(&h).ok_or(SAR_INVALIDHANDLEERR)?;
        let logged_in = s.apps.get(&app).is_some_and(|a| a.logged_in);
        if private && !logged_in {
            return Err(SAR_USER_NOT_LOGGED_IN);
        }
        Ok((name, logged_in))
    })
}

/// Writes `data` the SKF way: a size query with a null buffer, `SAR_BUFFER_TOO_SMALL`
/// (and the size) if `*len` is short.
///
/// # Safety
/// `len` must be valid; `buf`, if not null, writable for `*len` bytes.
unsafe fn put(data: &[u8], buf: *mut u8, len: *mut u32) -> u32 {
    if len.is_null() {
        return SAR_INVALIDPARAMERR;
    }
    // SAFETY: `len` is valid by the caller's contract.
    let cap = unsafe { *len } as usize;
    // SAFETY: as above.
    unsafe { *len = data.len() as u32 };
    if buf.is_null() {
        return SAR_OK;
    }
    if cap < data.len() {
        return SAR_BUFFER_TOO_SMALL;
    }
    // SAFETY: `buf` is writable for `cap` ≥ `data.len()` bytes.
    unsafe { core::ptr::copy_nonoverlapping(data.as_ptr(), buf, data.len()) };
    SAR_OK
}

/// A name list: each name, NUL, then a final NUL.
fn list(names: &[&str]) -> Vec<u8> {
    let mut out = Vec::new();
    for n in names {
        out.extend_from_slice(n.as_bytes());
        out.push(0);
    }
    out.push(0);
    out
}

/// # Safety
/// `name`, if not null, a NUL-terminated string.
unsafe fn name_of<'a>(name: *const c_char) -> Option<&'a str> {
    // SAFETY: by the caller's contract.
    (!name.is_null()).then(|| unsafe { CStr::from_ptr(name) }.to_str().ok())?
}

/// Lists the device.
///
/// # Safety
/// `size` valid; `names`, if not null, writable for `*size` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SKF_EnumDev(_present: i32, names: *mut c_char, size: *mut u32) -> u32 {
    // SAFETY: forwarded.
    unsafe { put(&list(&[DEVICE]), names.cast(), size) }
}

/// Connects.
///
/// # Safety
/// `name` a C string, `ph_dev` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SKF_ConnectDev(name: *const c_char, ph_dev: *mut usize) -> u32 {
    // SAFETY: by the caller's contract.
    if ph_dev.is_null() || unsafe { name_of(name) } != Some(DEVICE) {
        return SAR_INVALIDPARAMERR;
    }
    let h = with_state(|s| {
        let h = new_handle(s);
        s.devices.insert(h, ());
        h
    });
    // SAFETY: non-null and writable.
    unsafe { *ph_dev = h };
    SAR_OK
}

/// Disconnects.
///
/// # Safety
/// None beyond C's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SKF_DisConnectDev(h_dev: usize) -> u32 {
    with_state(|s| s.devices.remove(&h_dev)).map_or(SAR_INVALIDHANDLEERR, |()| SAR_OK)
}

/// Describes the device.
///
/// # Safety
/// `info` writable for a `DEVINFO`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SKF_GetDevInfo(h_dev: usize, info: *mut DevInfo) -> u32 {
    if info.is_null() || !with_state(|s| s.devices.contains_key(&h_dev)) {
        return SAR_INVALIDPARAMERR;
    }
    let text = |t: &str, out: &mut [u8]| out[..t.len()].copy_from_slice(t.as_bytes());
    let mut d = DevInfo {
        version: [1, 0],
        manufacturer: [0; 64],
        issuer: [0; 64],
        label: [0; 32],
        serial_number: [0; 32],
        hw_version: [1, 0],
        firmware_version: [1, 0],
        // SM1/SSF33/SM4 caps unset; SM2 (0x00020100) asymmetric; SM3 (1) hash.
        caps: [0, 0x0002_0100, 1, 0, 65536, 32768, 1024, 1024],
        reserved: [0; 64],
    };
    text("shangmi", &mut d.manufacturer);
    text("shangmi tests", &mut d.issuer);
    text("test key", &mut d.label);
    text("0001", &mut d.serial_number);
    // SAFETY: non-null and writable by the caller's contract.
    unsafe { info.write_unaligned(d) };
    SAR_OK
}

/// Fills `buf` with random bytes.
///
/// # Safety
/// `buf` writable for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SKF_GenRandom(h_dev: usize, buf: *mut u8, len: u32) -> u32 {
    if buf.is_null() || !with_state(|s| s.devices.contains_key(&h_dev)) {
        return SAR_INVALIDPARAMERR;
    }
    // SAFETY: non-null and writable for `len` bytes by the caller's contract.
    if unsafe { crate::common::os_random(buf, len as usize) } {
        SAR_OK
    } else {
        SAR_FAIL
    }
}

/// Lists the applications.
///
/// # Safety
/// As `SKF_EnumDev`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SKF_EnumApplication(
    h_dev: usize,
    names: *mut c_char,
    size: *mut u32,
) -> u32 {
    let known = with_state(|s| s.devices.contains_key(&h_dev));
    // SAFETY: forwarded.
    unsafe { put_names(known, &APPS, names, size) }
}

/// `SKF_EnumApplication` and `SKF_EnumContainer`: `items` as a name list, for a `known`
/// handle.
///
/// # Safety
/// As [`put`].
unsafe fn put_names(known: bool, items: &[&str], names: *mut c_char, size: *mut u32) -> u32 {
    if !known {
        return SAR_INVALIDHANDLEERR;
    }
    // SAFETY: forwarded.
    unsafe { put(&list(items), names.cast(), size) }
}

/// Opens an application (not logged in).
///
/// # Safety
/// `name` a C string, `ph_app` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SKF_OpenApplication(
    h_dev: usize,
    name: *const c_char,
    ph_app: *mut usize,
) -> u32 {
    // SAFETY: forwarded.
    unsafe {
        open_named(name, &APPS, SAR_APPLICATION_NOT_EXISTS, ph_app, |s, app| {
            s.devices.contains_key(&h_dev).then(|| {
                let h = new_handle(s);
                let app = App {
                    name: app,
                    logged_in: false,
                };
                s.apps.insert(h, app);
                h
            })
        })
    }
}

/// Opens the object named by C string `name` among `known` (else `missing`): `insert`
/// makes its handle (`None`: the parent handle is not open), written to `out`.
///
/// # Safety
/// `name` a C string or null, `out` writable or null.
unsafe fn open_named(
    name: *const c_char,
    known: &[&'static str],
    missing: u32,
    out: *mut usize,
    insert: impl FnOnce(&mut State, &'static str) -> Option<usize>,
) -> u32 {
    // SAFETY: by the caller's contract.
    let name = unsafe { name_of(name) };
    let Some(&found) = known.iter().find(|k| Some(**k) == name) else {
        return missing;
    };
    if out.is_null() {
        return SAR_INVALIDPARAMERR;
    }
    let Some(h) = with_state(|s| insert(s, found)) else {
        return SAR_INVALIDHANDLEERR;
    };
    // SAFETY: non-null and writable.
    unsafe { *out = h };
    SAR_OK
}

/// Closes an application.
///
/// # Safety
/// None beyond C's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SKF_CloseApplication(h_app: usize) -> u32 {
    with_state(|s| s.apps.remove(&h_app)).map_or(SAR_INVALIDHANDLEERR, |_| SAR_OK)
}

/// Logs the user out.
///
/// # Safety
/// None beyond C's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SKF_ClearSecureState(h_app: usize) -> u32 {
    with_state(|s| s.apps.get_mut(&h_app).map(|a| a.logged_in = false))
        .map_or(SAR_INVALIDHANDLEERR, |()| SAR_OK)
}

/// Verifies the user PIN; counts wrong ones down and locks at zero.
///
/// # Safety
/// `pin` a C string, `retries` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SKF_VerifyPIN(
    h_app: usize,
    pin_type: u32,
    pin: *const c_char,
    retries: *mut u32,
) -> u32 {
    if pin.is_null() || retries.is_null() {
        return SAR_INVALIDPARAMERR;
    }
    if pin_type != USER_TYPE {
        return SAR_USER_TYPE_INVALID;
    }
    // SAFETY: a C string by the caller's contract.
    let given = unsafe { CStr::from_ptr(pin) }.to_bytes();
    let want = std::env::var("SHANGMI_TESTSKF_PIN").unwrap_or_else(|_| "12345678".into());
    let (rv, left) = with_state(|s| {
        let Some(app) = s.apps.get_mut(&h_app) else {
            return (SAR_INVALIDHANDLEERR, 0);
        };
        let name = app.name;
        let left = s.retries.get(name).copied().unwrap_or(MAX_RETRIES);
        if left == 0 {
            return (SAR_PIN_LOCKED, 0);
        }
        if given == want.as_bytes() {
            app.logged_in = true;
            s.retries.insert(name, MAX_RETRIES);
            (SAR_OK, MAX_RETRIES)
        } else {
            app.logged_in = false;
            s.retries.insert(name, left - 1);
            (SAR_PIN_INCORRECT, left - 1)
        }
    });
    // SAFETY: non-null and writable.
    unsafe { *retries = left };
    rv
}

/// Lists the containers.
///
/// # Safety
/// As `SKF_EnumDev`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SKF_EnumContainer(
    h_app: usize,
    names: *mut c_char,
    size: *mut u32,
) -> u32 {
    let known = with_state(|s| s.apps.contains_key(&h_app));
    // SAFETY: forwarded.
    unsafe { put_names(known, &CONTAINERS, names, size) }
}

/// Opens a container.
///
/// # Safety
/// `name` a C string, `ph_container` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SKF_OpenContainer(
    h_app: usize,
    name: *const c_char,
    ph_container: *mut usize,
) -> u32 {
    // SAFETY: forwarded.
    unsafe {
        open_named(
            name,
            &CONTAINERS,
            SAR_FILE_NOT_EXIST,
            ph_container,
            |s, c| {
                s.apps.contains_key(&h_app).then(|| {
                    let h = new_handle(s);
                    s.containers.insert(h, (h_app, c));
                    h
                })
            },
        )
    }
}

/// Closes a container.
///
/// # Safety
/// None beyond C's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SKF_CloseContainer(h_container: usize) -> u32 {
    with_state(|s| s.containers.remove(&h_container)).map_or(SAR_INVALIDHANDLEERR, |_| SAR_OK)
}

/// 0 for `empty`, 2 (ECC) for the others.
///
/// # Safety
/// `kind` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SKF_GetContainerType(h_container: usize, kind: *mut u32) -> u32 {
    let (name, _) = match container(h_container, false) {
        Ok(c) => c,
        Err(rv) => return rv,
    };
    if kind.is_null() {
        return SAR_INVALIDPARAMERR;
    }
    // SAFETY: non-null and writable.
    unsafe { *kind = if name == "empty" { 0 } else { 2 } };
    SAR_OK
}

/// Exports a public key as an `ECCPUBLICKEYBLOB`.
///
/// # Safety
/// `len` valid; `blob`, if not null, writable for `*len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SKF_ExportPublicKey(
    h_container: usize,
    sign: i32,
    blob: *mut u8,
    len: *mut u32,
) -> u32 {
    let (name, _) = match container(h_container, false) {
        Ok(c) => c,
        Err(rv) => return rv,
    };
    let out = if name == "offcurve" {
        let mut out = EccPublicKey {
            bits: 256,
            x: [0; 64],
            y: [0; 64],
        };
        out.x[63] = 1;
        out.y[63] = 1;
        out
    } else {
        let Some(key) = secret(name, sign != 0) else {
            return SAR_KEYNOTFOUNTERR;
        };
        EccPublicKey::new(&key.public_key(), 256)
    };
    let mut bytes = Vec::with_capacity(132);
    bytes.extend_from_slice(&out.bits.to_ne_bytes());
    bytes.extend_from_slice(&out.x);
    bytes.extend_from_slice(&out.y);
    // SAFETY: forwarded.
    unsafe { put(&bytes, blob, len) }
}

/// Exports a certificate (DER).
///
/// # Safety
/// `len` valid; `cert`, if not null, writable for `*len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SKF_ExportCertificate(
    h_container: usize,
    sign: i32,
    cert: *mut u8,
    len: *mut u32,
) -> u32 {
    let (name, _) = match container(h_container, false) {
        Ok(c) => c,
        Err(rv) => return rv,
    };
    let Some(certs) = certs() else {
        return SAR_FAIL;
    };
    match (name, sign != 0) {
        ("tlcp-client", sign) => {
            let der = if sign { &certs.sign } else { &certs.enc };
            // SAFETY: forwarded.
            unsafe { put(der, cert, len) }
        }
        ("garbage", true) => {
            // SAFETY: forwarded.
            let rv = unsafe { put(&certs.sign, cert, len) };
            if !cert.is_null() && !len.is_null() {
                // SAFETY: valid by the caller's contract: a length past the buffer.
                unsafe { *len += 100 };
            }
            rv
        }
        _ => SAR_CERTNOTFOUNTERR,
    }
}

/// Signs a prepared digest.
///
/// # Safety
/// `digest` readable for `len` bytes, `sig` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SKF_ECCSignData(
    h_container: usize,
    digest: *const u8,
    len: u32,
    sig: *mut EccSignature,
) -> u32 {
    if digest.is_null() || sig.is_null() || len != 32 {
        return SAR_INVALIDPARAMERR;
    }
    let (name, key) = match private_key(h_container, true, SAR_KEYNOTFOUNTERR) {
        Ok(k) => k,
        Err(rv) => return rv,
    };
    let Ok(sk) = SigningKey::new(&key) else {
        return SAR_FAIL;
    };
    let mut e = [0u8; 32];
    // SAFETY: readable for 32 bytes by the caller's contract.
    e.copy_from_slice(unsafe { core::slice::from_raw_parts(digest, 32) });
    let mut out = EccSignature::new(&sk.sign_e(&e));
    if name == "garbage" {
        // r = n, the group order: out of range.
        out.r[32..].copy_from_slice(&[
            0xFF, 0xFF, 0xFF, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
            0xFF, 0xFF, 0x72, 0x03, 0xDF, 0x6B, 0x21, 0xC6, 0x05, 0x2B, 0x53, 0xBB, 0xF4, 0x09,
            0x39, 0xD5, 0x41, 0x23,
        ]);
    }
    // SAFETY: non-null and writable.
    unsafe { sig.write(out) };
    SAR_OK
}

/// The test CA's certificate (DER), the SKF way (size query, then copy): not an SKF
/// function, for tests to trust the container's certificates.
///
/// # Safety
/// As `SKF_ExportCertificate`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ShangmiTestSkf_CaCertificate(cert: *mut u8, len: *mut u32) -> u32 {
    match certs() {
        // SAFETY: forwarded.
        Some(c) => unsafe { put(&c.ca, cert, len) },
        None => SAR_FAIL,
    }
}
