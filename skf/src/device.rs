//! The library, its devices (`SKF_ConnectDev`), applications (`SKF_OpenApplication`, PIN)
//! and containers (`SKF_OpenContainer`): handles that close themselves, in that order.
//!
//! USB keys serve one command at a time, and GM/T 0016 says nothing of threads, so every
//! call into a library holds that library's lock: the handles below are `Send + Sync`.

use crate::error::{SarCode, SkfError, check, check_open};
use crate::ffi::{
    Bool, DevInfoRaw, EccPublicKey, EnumNames, Functions, Handle, Library, OPTIONAL, OpenByName,
    Ulong,
};
use core::ffi::c_char;
use shangmi_device::{bad_output, c_text};
use shangmi_sm2::PublicKey;
use std::ffi::CString;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use zeroize::Zeroizing;

/// The longest name list, certificate or other variable-length output accepted from a
/// device (64 KiB): a larger claimed length is [`SkfError::BadOutput`].
pub const MAX_OUTPUT: usize = 64 * 1024;

pub use shangmi_device::{KeyUsage, Pin};

/// GM/T 0016's `bSignFlag` for the pair `usage`.
pub(crate) fn sign_flag(usage: KeyUsage) -> Bool {
    Bool::from(usage == KeyUsage::Sign)
}

/// What `SKF_GetContainerType` reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ContainerType {
    /// 0: no key yet.
    Empty,
    /// 1: RSA keys.
    Rsa,
    /// 2: ECC (SM2) keys.
    Ecc,
    /// Any other value, as returned.
    Other(u32),
}

/// Which optional functions the library exports ([`SkfLibrary::capabilities`]): known at
/// load time, so a missing one is reported before it is needed (many USB keys lack
/// `SKF_ECCDecrypt`; GmSSL issue 366).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Capabilities {
    missing: Vec<&'static str>,
}

impl Capabilities {
    /// The optional functions the library lacks, by their C names.
    pub fn missing(&self) -> &[&'static str] {
        &self.missing
    }

    /// Whether the library has the function `name` (required functions always are).
    pub fn has(&self, name: &str) -> bool {
        !self.missing.contains(&name)
    }

    /// `Ok` if the library has `name`, [`SkfError::MissingSymbol`] if not.
    pub fn require(&self, name: &'static str) -> Result<(), SkfError> {
        if self.has(name) {
            Ok(())
        } else {
            Err(SkfError::MissingSymbol(name))
        }
    }

    /// Whether keys can sign (`SKF_ECCSignData`).
    pub fn sign(&self) -> bool {
        self.has("SKF_ECCSignData")
    }

    /// Whether keys can decrypt (`SKF_ECCDecrypt`).
    pub fn decrypt(&self) -> bool {
        self.has("SKF_ECCDecrypt")
    }
}

/// What `SKF_GetDevInfo` reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// The interface version (major, minor).
    pub version: (u8, u8),
    /// Maker.
    pub manufacturer: String,
    /// Issuer.
    pub issuer: String,
    /// Label.
    pub label: String,
    /// Serial number.
    pub serial: String,
    /// Hardware version (major, minor).
    pub hw_version: (u8, u8),
    /// Firmware version (major, minor).
    pub firmware_version: (u8, u8),
    /// Symmetric algorithm bits.
    pub sym_algorithms: u32,
    /// Asymmetric algorithm bits.
    pub asym_algorithms: u32,
    /// Hash algorithm bits.
    pub hash_algorithms: u32,
    /// Total storage, bytes.
    pub total_space: u32,
    /// Free storage, bytes.
    pub free_space: u32,
}

pub(crate) struct Shared {
    lock: Mutex<()>,
    pub(crate) lib: Library,
}

impl Shared {
    /// The library's lock: held around every call into it.
    pub(crate) fn lock(&self) -> MutexGuard<'_, ()> {
        self.lock.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The optional functions the library has and lacks.
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            missing: OPTIONAL
                .into_iter()
                .filter(|n| !self.lib.fns.has(n))
                .collect(),
        }
    }
}

/// A kind of object opened by name inside another (an application in a device, a
/// container in an application).
struct Child {
    /// The C function that lists the names of those in a parent, from the table.
    enumerate: fn(&Functions) -> EnumNames,
    /// Its name.
    enumerate_name: &'static str,
    /// The C function that opens one by name, from the table.
    open: fn(&Functions) -> OpenByName,
    /// Its name.
    function: &'static str,
    /// What [`SkfError::NotFound`] calls it.
    kind: &'static str,
    /// What [`SkfError::InteriorNul`] calls its name.
    label: &'static str,
    /// The answers of `function` that mean no such object.
    absent: &'static [SarCode],
}

const APPLICATION: Child = Child {
    enumerate: |f| f.enum_application,
    enumerate_name: "SKF_EnumApplication",
    open: |f| f.open_application,
    function: "SKF_OpenApplication",
    kind: "application",
    label: "application name",
    absent: &[SarCode::ApplicationNotExists],
};

const CONTAINER: Child = Child {
    enumerate: |f| f.enum_container,
    enumerate_name: "SKF_EnumContainer",
    open: |f| f.open_container,
    function: "SKF_OpenContainer",
    kind: "container",
    label: "container name",
    absent: &[SarCode::InvalidParam, SarCode::FileNotExist],
};

// SAFETY: the function table is plain function pointers; every call through it holds
// `lock`, so the library sees one call at a time from whichever thread.
unsafe impl Send for Shared {}
// SAFETY: as for `Send`.
unsafe impl Sync for Shared {}

/// A loaded SKF library (cheap to clone; unloaded when the last clone, device, application,
/// container and key are dropped).
#[derive(Clone)]
pub struct SkfLibrary(pub(crate) Arc<Shared>);

impl core::fmt::Debug for SkfLibrary {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SkfLibrary").finish_non_exhaustive()
    }
}

fn c_name(name: &str, what: &'static str) -> Result<CString, SkfError> {
    CString::new(name).map_err(|_| SkfError::InteriorNul(what))
}

/// Reads a name list (`SKF_EnumDev`, `SKF_EnumApplication`, `SKF_EnumContainer`): `call`
/// is made once with no buffer for the size, then with a buffer of that size; the list is
/// NUL-separated names ending with an empty one.
fn names(
    function: &'static str,
    call: impl Fn(*mut c_char, *mut Ulong) -> u32,
) -> Result<Vec<String>, SkfError> {
    let bad = bad_output::<SkfError>(function);
    let mut size: Ulong = 0;
    check(function, call(core::ptr::null_mut(), &mut size))?;
    let cap = size as usize;
    if cap > MAX_OUTPUT {
        return Err(bad("name list longer than 64 KiB"));
    }
    if cap == 0 {
        return Ok(Vec::new());
    }
    let mut buf = vec![0u8; cap];
    check(function, call(buf.as_mut_ptr().cast(), &mut size))?;
    let len = size as usize;
    if len > cap {
        return Err(bad("name list longer than its buffer"));
    }
    let mut out = Vec::new();
    for name in buf[..len].split(|&b| b == 0) {
        if name.is_empty() {
            break;
        }
        let s = core::str::from_utf8(name).map_err(|_| bad("a name is not UTF-8"))?;
        out.push(s.to_owned());
    }
    Ok(out)
}

/// Reads a variable-length byte string (`SKF_ExportCertificate`) the same way.
fn bytes(
    function: &'static str,
    call: impl Fn(*mut u8, *mut Ulong) -> u32,
) -> Result<Vec<u8>, SkfError> {
    let bad = bad_output::<SkfError>(function);
    let mut size: Ulong = 0;
    check(function, call(core::ptr::null_mut(), &mut size))?;
    let cap = size as usize;
    if cap > MAX_OUTPUT {
        return Err(bad("output longer than 64 KiB"));
    }
    let mut buf = vec![0u8; cap];
    if cap > 0 {
        check(function, call(buf.as_mut_ptr(), &mut size))?;
    }
    let len = size as usize;
    if len > cap {
        return Err(bad("output longer than its buffer"));
    }
    buf.truncate(len);
    Ok(buf)
}

impl SkfLibrary {
    /// Loads the vendor library at `path` and resolves its functions (a missing required
    /// one is [`SkfError::MissingSymbol`]; see [`capabilities`](Self::capabilities) for
    /// the optional ones).
    pub fn load(path: impl AsRef<std::ffi::OsStr>) -> Result<Self, SkfError> {
        let lib = Library::load(path.as_ref())?;
        Ok(SkfLibrary(Arc::new(Shared {
            lock: Mutex::new(()),
            lib,
        })))
    }

    /// The optional functions the library has and lacks.
    pub fn capabilities(&self) -> Capabilities {
        self.0.capabilities()
    }

    /// The names of the devices present (`SKF_EnumDev` with `bPresent` = TRUE).
    pub fn devices(&self) -> Result<Vec<String>, SkfError> {
        let _g = self.0.lock();
        let f = self.0.lib.fns.enum_dev;
        // SAFETY: `buf` is null (a size query) or writable for `*size` bytes, as `names`
        // guarantees; `size` is a valid `ULONG`.
        names("SKF_EnumDev", |buf, size| unsafe { f(1, buf, size) })
    }

    /// Connects to the device `name` (`SKF_ConnectDev`).
    pub fn connect(&self, name: &str) -> Result<SkfDevice, SkfError> {
        let c = c_name(name, "device name")?;
        let mut handle: Handle = core::ptr::null_mut();
        let _g = self.0.lock();
        // SAFETY: `c` is a NUL-terminated string and `handle` a valid out-parameter.
        let rv = unsafe { (self.0.lib.fns.connect_dev)(c.as_ptr(), &mut handle) };
        let absent = [SarCode::InvalidParam, SarCode::DeviceRemoved];
        check_open("SKF_ConnectDev", rv, "device", name, &absent)?;
        Ok(SkfDevice(Arc::new(Opened {
            handle,
            name: name.to_owned(),
            parent: self.0.clone(),
        })))
    }
}

/// An open handle (a device, an application, a container) and what it was opened in (the
/// library, a device, an application), which it keeps open: the handle is closed
/// ([`Parent::close`]) when this is dropped, before its parent can be.
pub(crate) struct Opened<P: Parent> {
    pub(crate) handle: Handle,
    name: String,
    parent: Arc<P>,
}

/// A connected device.
pub(crate) type DevInner = Opened<Shared>;
/// An open application.
pub(crate) type AppInner = Opened<DevInner>;
/// An open container.
pub(crate) type ContInner = Opened<AppInner>;

// SAFETY: the handle is an opaque token used only under the library's lock; the parent is
// `Send + Sync` itself.
unsafe impl<P: Parent + Send + Sync> Send for Opened<P> {}
// SAFETY: as for `Send`.
unsafe impl<P: Parent + Send + Sync> Sync for Opened<P> {}

/// What a handle is opened in: the library (devices), a device (applications), an
/// application (containers).
pub(crate) trait Parent {
    /// The library.
    fn library(&self) -> &Shared;

    /// Closes `child`, a handle opened in this; the caller holds the library's lock.
    ///
    /// # Safety
    /// `child` came from this parent's open function, every object opened in it is closed,
    /// and it is closed once.
    unsafe fn close(&self, child: Handle);
}

impl<P: Parent> Opened<P> {
    /// The library.
    pub(crate) fn shared(&self) -> &Shared {
        self.parent.library()
    }
}

impl<P: Parent> Drop for Opened<P> {
    fn drop(&mut self) {
        let shared = self.shared();
        let _g = shared.lock();
        // SAFETY: the handle came from the parent's open function, everything opened in it
        // is closed (each holds an `Arc` of this), and it is closed once, here.
        unsafe { self.parent.close(self.handle) };
    }
}

impl Parent for Shared {
    fn library(&self) -> &Shared {
        self
    }

    unsafe fn close(&self, device: Handle) {
        // SAFETY: forwarded from the caller (a handle from SKF_ConnectDev).
        let _ = unsafe { (self.lib.fns.disconnect_dev)(device) };
    }
}

impl Parent for DevInner {
    fn library(&self) -> &Shared {
        self.shared()
    }

    unsafe fn close(&self, application: Handle) {
        let fns = &self.shared().lib.fns;
        if let Some(clear) = fns.clear_secure_state {
            // SAFETY: an open application, closed just below (logs the user out).
            let _ = unsafe { clear(application) };
        }
        // SAFETY: forwarded from the caller (a handle from SKF_OpenApplication).
        let _ = unsafe { (fns.close_application)(application) };
    }
}

impl Parent for AppInner {
    fn library(&self) -> &Shared {
        self.shared()
    }

    unsafe fn close(&self, container: Handle) {
        // SAFETY: forwarded from the caller (a handle from SKF_OpenContainer).
        let _ = unsafe { (self.shared().lib.fns.close_container)(container) };
    }
}

impl<P: Parent> Opened<P>
where
    Self: Parent,
{
    /// The names of the objects of kind `child` in this.
    fn child_names(&self, child: &Child) -> Result<Vec<String>, SkfError> {
        let shared = self.shared();
        let enumerate = (child.enumerate)(&shared.lib.fns);
        let _g = shared.lock();
        // SAFETY: this handle is open (this holds it); `buf`/`size` as `names` guarantees.
        names(child.enumerate_name, |buf, size| unsafe {
            enumerate(self.handle, buf, size)
        })
    }

    /// Opens the object of kind `child` named `name` in `parent`.
    fn open_child(parent: &Arc<Self>, child: &Child, name: &str) -> Result<Opened<Self>, SkfError> {
        let c = c_name(name, child.label)?;
        let shared = parent.shared();
        let open = (child.open)(&shared.lib.fns);
        let mut handle: Handle = core::ptr::null_mut();
        let _g = shared.lock();
        // SAFETY: an open parent, a NUL-terminated name, a valid out-parameter.
        let rv = unsafe { open(parent.handle, c.as_ptr(), &mut handle) };
        check_open(child.function, rv, child.kind, name, child.absent)?;
        Ok(Opened {
            handle,
            name: name.to_owned(),
            parent: parent.clone(),
        })
    }
}

/// `Debug` (the name only) and `name()` for a handle type over an `Arc` of its state, whose
/// `name` field it shows; `$what` names the object in the method's documentation.
macro_rules! named_handle {
    ($handle:ident, $what:literal) => {
        impl core::fmt::Debug for $handle {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct(stringify!($handle))
                    .field("name", &self.0.name)
                    .finish_non_exhaustive()
            }
        }

        impl $handle {
            #[doc = concat!("The ", $what, "'s name.")]
            pub fn name(&self) -> &str {
                &self.0.name
            }
        }
    };
}

/// A connected device (cheap to clone; disconnected when the last clone is dropped).
#[derive(Clone)]
pub struct SkfDevice(Arc<DevInner>);

named_handle!(SkfDevice, "device");

impl SkfDevice {
    /// The device's description (`SKF_GetDevInfo`).
    pub fn info(&self) -> Result<DeviceInfo, SkfError> {
        let shared = self.0.shared();
        let f = shared
            .lib
            .fns
            .get_dev_info
            .ok_or(SkfError::MissingSymbol("SKF_GetDevInfo"))?;
        // SAFETY: `DEVINFO` is bytes and integers, all-zero valid.
        let mut raw: DevInfoRaw = unsafe { core::mem::zeroed() };
        let _g = shared.lock();
        // SAFETY: a connected device and a `DEVINFO`-sized out-parameter.
        check("SKF_GetDevInfo", unsafe { f(self.0.handle, &mut raw) })?;
        let v = |v: crate::ffi::Version| (v.major, v.minor);
        Ok(DeviceInfo {
            version: v(raw.version),
            manufacturer: c_text(&{ raw.manufacturer }),
            issuer: c_text(&{ raw.issuer }),
            label: c_text(&{ raw.label }),
            serial: c_text(&{ raw.serial_number }),
            hw_version: v(raw.hw_version),
            firmware_version: v(raw.firmware_version),
            sym_algorithms: raw.alg_sym_cap,
            asym_algorithms: raw.alg_asym_cap,
            hash_algorithms: raw.alg_hash_cap,
            total_space: raw.total_space,
            free_space: raw.free_space,
        })
    }

    /// Fills `buf` from the device's generator (`SKF_GenRandom`).
    pub fn random(&self, buf: &mut [u8]) -> Result<(), SkfError> {
        let shared = self.0.shared();
        let f = shared
            .lib
            .fns
            .gen_random
            .ok_or(SkfError::MissingSymbol("SKF_GenRandom"))?;
        let _g = shared.lock();
        for chunk in buf.chunks_mut(1024) {
            // SAFETY: a connected device; `chunk` is writable for its length (≤ 1024).
            check("SKF_GenRandom", unsafe {
                f(self.0.handle, chunk.as_mut_ptr(), chunk.len() as Ulong)
            })?;
        }
        Ok(())
    }

    /// The names of the device's applications (`SKF_EnumApplication`).
    pub fn applications(&self) -> Result<Vec<String>, SkfError> {
        self.0.child_names(&APPLICATION)
    }

    /// Opens the application `name` (`SKF_OpenApplication`); nothing private is usable
    /// before [`Application::verify_pin`].
    pub fn open_application(&self, name: &str) -> Result<Application, SkfError> {
        Opened::open_child(&self.0, &APPLICATION, name).map(|a| Application(Arc::new(a)))
    }
}

/// An open application (cheap to clone; closed, and the user logged out, when the last
/// clone, container and key are dropped).
#[derive(Clone)]
pub struct Application(Arc<AppInner>);

named_handle!(Application, "application");

/// `USER_TYPE` (GM/T 0016: `ADMIN_TYPE` 0, `USER_TYPE` 1).
const USER_TYPE: Ulong = 1;

impl Application {
    /// Verifies the user PIN (`SKF_VerifyPIN`; the PIN is zeroized when this returns). A
    /// wrong PIN is [`SkfError::WrongPin`] with the attempts the device says are left,
    /// or [`SkfError::PinLocked`].
    pub fn verify_pin(&self, pin: Pin) -> Result<(), SkfError> {
        if pin.as_bytes().contains(&0) {
            return Err(SkfError::InteriorNul("PIN"));
        }
        let mut c = Zeroizing::new(Vec::with_capacity(pin.as_bytes().len() + 1));
        c.extend_from_slice(pin.as_bytes());
        c.push(0);
        drop(pin);
        let shared = self.0.shared();
        let mut retries: Ulong = 0;
        let _g = shared.lock();
        // SAFETY: an open application, a NUL-terminated PIN, a valid out-parameter.
        let rv = unsafe {
            (shared.lib.fns.verify_pin)(self.0.handle, USER_TYPE, c.as_ptr().cast(), &mut retries)
        };
        match check("SKF_VerifyPIN", rv) {
            Err(SkfError::Device {
                code: crate::SarCode::PinIncorrect,
                ..
            }) if retries > 0 => Err(SkfError::WrongPin {
                retries_left: retries,
            }),
            Err(SkfError::Device {
                code: crate::SarCode::PinIncorrect | crate::SarCode::PinLocked,
                ..
            }) => Err(SkfError::PinLocked),
            other => other,
        }
    }

    /// The names of the application's containers (`SKF_EnumContainer`).
    pub fn containers(&self) -> Result<Vec<String>, SkfError> {
        self.0.child_names(&CONTAINER)
    }

    /// Opens the container `name` (`SKF_OpenContainer`).
    pub fn open_container(&self, name: &str) -> Result<Container, SkfError> {
        Opened::open_child(&self.0, &CONTAINER, name).map(|c| Container(Arc::new(c)))
    }
}

/// An open container: a sign pair, an encryption pair and their certificates (cheap to
/// clone; closed when the last clone and key are dropped).
#[derive(Clone)]
pub struct Container(pub(crate) Arc<ContInner>);

named_handle!(Container, "container");

impl Container {
    /// The library's capabilities (what its keys can do).
    pub fn capabilities(&self) -> Capabilities {
        self.0.shared().capabilities()
    }

    /// The kind of keys it holds (`SKF_GetContainerType`).
    pub fn container_type(&self) -> Result<ContainerType, SkfError> {
        let shared = self.0.shared();
        let f = shared
            .lib
            .fns
            .get_container_type
            .ok_or(SkfError::MissingSymbol("SKF_GetContainerType"))?;
        let mut t: Ulong = 0;
        let _g = shared.lock();
        // SAFETY: an open container and a valid out-parameter.
        check("SKF_GetContainerType", unsafe { f(self.0.handle, &mut t) })?;
        Ok(match t {
            0 => ContainerType::Empty,
            1 => ContainerType::Rsa,
            2 => ContainerType::Ecc,
            t => ContainerType::Other(t),
        })
    }

    /// The SM2 public key of the pair `usage` (`SKF_ExportPublicKey`), checked: 256 bits,
    /// coordinates right-aligned, the point on the curve.
    pub fn public_key(&self, usage: KeyUsage) -> Result<PublicKey, SkfError> {
        const NAME: &str = "SKF_ExportPublicKey";
        let bad = bad_output::<SkfError>(NAME);
        const BLOB: usize = core::mem::size_of::<EccPublicKey>();
        let mut raw = EccPublicKey::ZERO;
        let mut len = BLOB as Ulong;
        let shared = self.0.shared();
        {
            let _g = shared.lock();
            // SAFETY: an open container; `raw` is writable for `len` = 132 bytes (an
            // `ECCPUBLICKEYBLOB`).
            check(NAME, unsafe {
                (shared.lib.fns.export_public_key)(
                    self.0.handle,
                    sign_flag(usage),
                    (&raw mut raw).cast::<u8>(),
                    &mut len,
                )
            })?;
        }
        if len as usize != BLOB {
            return Err(bad("not an ECCPUBLICKEYBLOB (132 bytes)"));
        }
        raw.to_public_key().map_err(bad)
    }

    /// The DER certificate of the pair `usage` (`SKF_ExportCertificate`), or `None` if the
    /// container holds none (`SAR_CERTNOTFOUNTERR` or an empty answer). The bytes are as
    /// the device stored them: parse and check them before trusting them.
    pub fn certificate(&self, usage: KeyUsage) -> Result<Option<Vec<u8>>, SkfError> {
        const NAME: &str = "SKF_ExportCertificate";
        let shared = self.0.shared();
        let f = shared
            .lib
            .fns
            .export_certificate
            .ok_or(SkfError::MissingSymbol(NAME))?;
        let _g = shared.lock();
        // SAFETY: an open container; `buf`/`len` as `bytes` guarantees.
        match bytes(NAME, |buf, len| unsafe {
            f(self.0.handle, sign_flag(usage), buf, len)
        }) {
            Ok(der) if der.is_empty() => Ok(None),
            Ok(der) => Ok(Some(der)),
            Err(SkfError::Device {
                code: crate::SarCode::CertNotFound,
                ..
            }) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake enumeration function answering with `list` (claiming `claim` bytes on the
    /// second call, if given).
    fn fake(list: &[u8], claim: Option<u32>) -> impl Fn(*mut c_char, *mut Ulong) -> u32 + '_ {
        move |buf, size| {
            // SAFETY: `names` passes a valid size and a buffer of that size.
            unsafe {
                if !buf.is_null() {
                    let n = list.len().min(*size as usize);
                    core::ptr::copy_nonoverlapping(list.as_ptr(), buf.cast(), n);
                    *size = claim.unwrap_or(list.len() as u32);
                } else {
                    *size = list.len() as u32;
                }
            }
            0
        }
    }

    #[test]
    fn name_lists_are_parsed_and_checked() {
        assert_eq!(names("f", fake(b"a\0bc\0\0", None)).unwrap(), ["a", "bc"]);
        assert_eq!(names("f", fake(b"", None)).unwrap(), Vec::<String>::new());
        assert_eq!(
            names("f", fake(b"\0\0", None)).unwrap(),
            Vec::<String>::new()
        );
        // No final NUL: the last name still ends at the length.
        assert_eq!(names("f", fake(b"a\0b", None)).unwrap(), ["a", "b"]);
        let bad = |e: SkfError| {
            matches!(
                e,
                SkfError::BadOutput(crate::BadOutput { function: "f", .. })
            )
        };
        assert!(bad(names("f", fake(b"\xff\0\0", None)).unwrap_err()));
        assert!(bad(names("f", fake(b"a\0\0", Some(4))).unwrap_err()));
        let huge = |_: *mut c_char, size: *mut Ulong| {
            // SAFETY: a valid size.
            unsafe { *size = 1 << 20 };
            0
        };
        assert!(bad(names("f", huge).unwrap_err()));
        let fails = |_: *mut c_char, _: *mut Ulong| 0x0A00_0005;
        assert_eq!(
            names("f", fails).unwrap_err(),
            SkfError::Device {
                function: "f",
                code: crate::SarCode::InvalidHandle
            }
        );
    }
}
