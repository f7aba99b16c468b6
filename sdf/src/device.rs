//! A device (`SDF_OpenDevice`) and its sessions: short-lived ones for public queries, and a
//! key's pool of sessions holding the private-key access right.

use crate::error::{SdfError, check};
use crate::ffi::{DeviceInfoRaw, EccPublicKey, EccSignature, Handle, Library};
use core::ffi::c_uint;
use shangmi_device::{SessionPool, bad_output, c_text};
use shangmi_sm2::PublicKey;
use std::sync::Arc;
use std::time::Duration;

pub use shangmi_device::{KeyUsage, Pin};

/// What `SDF_GetDeviceInfo` reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Maker.
    pub issuer: String,
    /// Model.
    pub name: String,
    /// Serial number.
    pub serial: String,
    /// Device version.
    pub device_version: u32,
    /// The interface standard's version.
    pub standard_version: u32,
    /// Asymmetric algorithm bits (`SGD_SM2_*` and others).
    pub asym_algorithms: u32,
    /// Symmetric algorithm bits.
    pub sym_algorithms: u32,
    /// Hash algorithm bits.
    pub hash_algorithms: u32,
    /// The largest buffer the device takes.
    pub buffer_size: u32,
}

pub(crate) struct DeviceInner {
    handle: Handle,
    // Declared last: the library stays loaded until the device is closed.
    pub(crate) lib: Library,
}

// SAFETY: the device handle is an opaque token of the library; GM/T 0018 lets any thread
// open sessions on it (this crate only opens and closes sessions with it).
unsafe impl Send for DeviceInner {}
// SAFETY: as for `Send`: shared use only passes the token to `SDF_OpenSession`.
unsafe impl Sync for DeviceInner {}

impl Drop for DeviceInner {
    fn drop(&mut self) {
        // Closed under the registry's lock, so that an `open` of the same library on another
        // thread waits until the device is closed before it opens it again.
        let _open = open_devices();
        // SAFETY: the handle came from SDF_OpenDevice of this library, every session on it
        // is closed (sessions hold an `Arc` of this), and it is closed once.
        let _ = unsafe { (self.lib.fns.close_device)(self.handle) };
    }
}

/// The devices open in this process, by library. A library may allow one open device per
/// process (GmSSL's SoftSDF answers a second `SDF_OpenDevice` with `SDR_OPENDEVICE`), and a
/// TLCP server opens its sign and encryption keys from the same device: every `open` of a
/// library that is already open shares its device.
type OpenDevices = std::sync::Mutex<Vec<(std::ffi::OsString, std::sync::Weak<DeviceInner>)>>;

fn open_devices()
-> std::sync::MutexGuard<'static, Vec<(std::ffi::OsString, std::sync::Weak<DeviceInner>)>> {
    static OPEN: OpenDevices = std::sync::Mutex::new(Vec::new());
    // A panic while the lock was held leaves the list as consistent as before it.
    OPEN.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// An open SDF device (cheap to clone; closed when the last clone and key are dropped).
#[derive(Clone)]
pub struct SdfDevice(pub(crate) Arc<DeviceInner>);

impl core::fmt::Debug for SdfDevice {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SdfDevice").finish_non_exhaustive()
    }
}

/// One session, closed on drop.
pub(crate) struct Session {
    pub(crate) handle: Handle,
    pub(crate) device: Arc<DeviceInner>,
}

// SAFETY: a session handle is an opaque token; GM/T 0018 allows using a session from any
// thread one call at a time, and a `Session` is owned by one thread at a time (the pool
// hands it out exclusively).
unsafe impl Send for Session {}

impl Drop for Session {
    fn drop(&mut self) {
        // SAFETY: the handle came from SDF_OpenSession on this device and is closed once.
        let _ = unsafe { (self.device.lib.fns.close_session)(self.handle) };
    }
}

impl SdfDevice {
    /// Loads the vendor library at `path` and opens its device; a library already open in
    /// this process (through any clone or key) shares its open device instead.
    pub fn open(path: impl AsRef<std::ffi::OsStr>) -> Result<Self, SdfError> {
        let path = path.as_ref();
        // The same file under another spelling is the same library to the loader.
        let name = std::fs::canonicalize(path).map_or_else(|_| path.to_owned(), Into::into);
        let mut open = open_devices();
        open.retain(|(_, device)| device.strong_count() > 0);
        if let Some(device) = open
            .iter()
            .filter(|(n, _)| *n == name)
            .find_map(|(_, device)| device.upgrade())
        {
            return Ok(SdfDevice(device));
        }
        let lib = Library::load(path)?;
        let mut handle: Handle = core::ptr::null_mut();
        // SAFETY: `handle` is a valid place for the out-parameter.
        check("SDF_OpenDevice", unsafe {
            (lib.fns.open_device)(&mut handle)
        })?;
        let device = Arc::new(DeviceInner { handle, lib });
        open.push((name, Arc::downgrade(&device)));
        Ok(SdfDevice(device))
    }

    pub(crate) fn session(&self) -> Result<Session, SdfError> {
        let mut handle: Handle = core::ptr::null_mut();
        // SAFETY: the device handle is open (`DeviceInner` closes it only on drop);
        // `handle` is a valid out-parameter.
        check("SDF_OpenSession", unsafe {
            (self.0.lib.fns.open_session)(self.0.handle, &mut handle)
        })?;
        Ok(Session {
            handle,
            device: self.0.clone(),
        })
    }

    /// The device's description (`SDF_GetDeviceInfo`).
    pub fn info(&self) -> Result<DeviceInfo, SdfError> {
        let f = self
            .0
            .lib
            .fns
            .get_device_info
            .ok_or(SdfError::MissingSymbol("SDF_GetDeviceInfo"))?;
        let s = self.session()?;
        let mut raw = DeviceInfoRaw {
            issuer_name: [0; 40],
            device_name: [0; 16],
            device_serial: [0; 16],
            device_version: 0,
            standard_version: 0,
            asym_alg_ability: [0; 2],
            sym_alg_ability: 0,
            hash_alg_ability: 0,
            buffer_size: 0,
        };
        // SAFETY: an open session and a `DEVICEINFO`-sized out-parameter.
        check("SDF_GetDeviceInfo", unsafe { f(s.handle, &mut raw) })?;
        Ok(DeviceInfo {
            issuer: c_text(&raw.issuer_name),
            name: c_text(&raw.device_name),
            serial: c_text(&raw.device_serial),
            device_version: raw.device_version,
            standard_version: raw.standard_version,
            asym_algorithms: raw.asym_alg_ability[0],
            sym_algorithms: raw.sym_alg_ability,
            hash_algorithms: raw.hash_alg_ability,
            buffer_size: raw.buffer_size,
        })
    }

    /// Fills `buf` from the device's generator (`SDF_GenerateRandom`).
    pub fn random(&self, buf: &mut [u8]) -> Result<(), SdfError> {
        let s = self.session()?;
        for chunk in buf.chunks_mut(4096) {
            // SAFETY: an open session; `chunk` is writable for its length (≤ 4096).
            check("SDF_GenerateRandom", unsafe {
                (self.0.lib.fns.generate_random)(
                    s.handle,
                    chunk.len() as c_uint,
                    chunk.as_mut_ptr(),
                )
            })?;
        }
        Ok(())
    }

    /// Verifies a signature of the digest `e` with the sign key at `index` inside the
    /// device (`SDF_InternalVerify_ECC`; no PIN): `Ok` if it holds, `SDR_VERIFYERR` (or the
    /// device's code) if not.
    pub fn verify_digest(
        &self,
        index: u32,
        e: &[u8; 32],
        signature: &shangmi_sm2::dsa::Signature,
    ) -> Result<(), SdfError> {
        const NAME: &str = "SDF_InternalVerify_ECC";
        let f = self
            .0
            .lib
            .fns
            .internal_verify
            .ok_or(SdfError::MissingSymbol(NAME))?;
        let sig = EccSignature::new(signature);
        let s = self.session()?;
        // SAFETY: an open session; `e` is readable for 32 bytes and `sig` is an
        // `ECCSignature`.
        check(NAME, unsafe { f(s.handle, index, e.as_ptr(), 32, &sig) })
    }

    /// The public key of the pair `usage` at `index` (`SDF_Export*PublicKey_ECC`; no PIN).
    pub fn public_key(&self, index: u32, usage: KeyUsage) -> Result<PublicKey, SdfError> {
        export_public(&self.session()?, index, usage)
    }
}

/// Exports and checks a public key through session `s`.
pub(crate) fn export_public(
    s: &Session,
    index: u32,
    usage: KeyUsage,
) -> Result<PublicKey, SdfError> {
    let fns = &s.device.lib.fns;
    let (f, name) = match usage {
        KeyUsage::Sign => (fns.export_sign_public, "SDF_ExportSignPublicKey_ECC"),
        KeyUsage::Encrypt => (fns.export_enc_public, "SDF_ExportEncPublicKey_ECC"),
    };
    let mut raw = EccPublicKey::ZERO;
    // SAFETY: an open session and an `ECCrefPublicKey`-sized out-parameter.
    check(name, unsafe { f(s.handle, index, &mut raw) })?;
    raw.to_public_key().map_err(bad_output(name))
}

/// A session holding the access right to one index, released before the session closes.
pub(crate) struct KeySession {
    pub(crate) session: Session,
    index: u32,
}

impl Drop for KeySession {
    fn drop(&mut self) {
        let s = &self.session;
        // SAFETY: an open session that holds the right to `index`.
        let _ = unsafe { (s.device.lib.fns.release_access_right)(s.handle, self.index) };
    }
}

/// How many sessions a key keeps and how long a caller waits for a free one.
#[derive(Clone, Copy, Debug)]
pub struct PoolOptions {
    /// Sessions opened (each with the access right) when the key is opened: at least 1.
    pub sessions: usize,
    /// The longest wait for a free session before [`SdfError::SessionsExhausted`].
    pub wait: Duration,
}

impl Default for PoolOptions {
    /// 4 sessions, 5 s.
    fn default() -> Self {
        PoolOptions {
            sessions: 4,
            wait: Duration::from_secs(5),
        }
    }
}

/// A fixed set of sessions with the access right, handed to one caller at a time.
pub(crate) struct Pool(SessionPool<KeySession>);

impl Pool {
    /// Opens `options.sessions` sessions and gets the right to `index` on each with `pin`,
    /// which is zeroized when this returns.
    pub(crate) fn open(
        device: &SdfDevice,
        index: u32,
        pin: Pin,
        options: PoolOptions,
    ) -> Result<Self, SdfError> {
        let pin_len = c_uint::try_from(pin.as_bytes().len())
            .map_err(|_| SdfError::Unsupported("a PIN longer than 4 GiB"))?;
        let mut idle = Vec::with_capacity(options.sessions.max(1));
        for _ in 0..options.sessions.max(1) {
            let session = device.session()?;
            // SAFETY: an open session; the PIN is readable for `pin_len` bytes.
            let rv = unsafe {
                (device.0.lib.fns.get_access_right)(
                    session.handle,
                    index,
                    pin.as_bytes().as_ptr(),
                    pin_len,
                )
            };
            check("SDF_GetPrivateKeyAccessRight", rv)?;
            idle.push(KeySession { session, index });
        }
        drop(pin);
        Ok(Pool(SessionPool::new(idle, options.wait)))
    }

    /// Runs `f` on a free session.
    pub(crate) fn with<T>(
        self: &Arc<Self>,
        f: impl FnOnce(&Session) -> Result<T, SdfError>,
    ) -> Result<T, SdfError> {
        f(&*self.lease()?)
    }

    /// A free session, handed back when the lease is dropped (a key agreement keeps one
    /// from its start to its end: the device ties the agreement to its session).
    pub(crate) fn lease(self: &Arc<Self>) -> Result<Lease, SdfError> {
        let session = self.0.take().ok_or(SdfError::SessionsExhausted)?;
        Ok(Lease {
            pool: self.clone(),
            session: Some(session),
        })
    }
}

/// A session of a [`Pool`] held by one caller.
pub(crate) struct Lease {
    pool: Arc<Pool>,
    session: Option<KeySession>,
}

impl core::ops::Deref for Lease {
    type Target = Session;

    fn deref(&self) -> &Session {
        // Some until the lease is dropped.
        match &self.session {
            Some(s) => &s.session,
            None => unreachable!("a lease holds its session until dropped"),
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if let Some(session) = self.session.take() {
            self.pool.0.give_back(session);
        }
    }
}
