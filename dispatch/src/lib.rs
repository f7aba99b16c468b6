#![doc = include_str!("../README.md")]
#![no_std]

use core::fmt;
use core::sync::atomic::{AtomicU8, Ordering};

#[macro_use]
mod family;
pub mod bitslice;
mod cell;
mod cpu;
pub mod ct;
#[cfg(any(target_arch = "riscv32", target_arch = "riscv64"))]
mod riscv;
mod tables;

pub use cell::BackendCell;
pub use tables::sm2_lanes;
pub use tables::{ghash, sm2_field, sm2_scan, sm3, sm4, xts};
pub use tables::{sm9_field, zuc, zuc_many};

/// The maker of an x86-64 CPU (CPUID leaf 0), for the few kernels whose best instruction
/// order differs between cores that have the same features.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vendor {
    /// "GenuineIntel".
    Intel,
    /// "AuthenticAMD".
    Amd,
    /// Any other.
    Other,
}

/// The x86-64 CPU's maker and family (CPUID leaves 0 and 1, the extended family added where
/// the base one reads 15: 25 for Zen 3 and Zen 4, 26 for Zen 5, 6 for Intel's cores), read
/// once; `None` on other architectures.
///
/// ```
/// if let Some((vendor, family)) = shangmi_dispatch::x86_vendor_family() {
///     assert!(family > 0, "{vendor:?}");
/// }
/// ```
pub fn x86_vendor_family() -> Option<(Vendor, u32)> {
    #[cfg(target_arch = "x86_64")]
    {
        Some(cpu::vendor_family())
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None
    }
}

/// Whether this x86-64 core runs a three-part `lea` (base + index + displacement) in one
/// cycle: Intel's cores since Ice Lake, told by GFNI (measured on family 6 model 207, the
/// `floors` example's latency row). Skylake-family cores take three cycles and AMD's Zen
/// cores two; `false` there and on other architectures. Read once.
pub fn fast_three_part_lea() -> bool {
    cpu::fast_three_part_lea()
}

/// A family of interchangeable backends of one algorithm: one of the `Backend` enums of
/// this crate's modules ([`sm4::Backend`], [`sm3::Backend`], …). Sealed: only the tables
/// of this crate describe backends, so only its probes decide what is available.
pub trait Family:
    Copy + Eq + core::hash::Hash + fmt::Debug + fmt::Display + 'static + private::Sealed
{
    /// The algorithm's name, for error messages and the speed header (`"SM4"`).
    const ALGORITHM: &'static str;
    /// Every backend, best first; the portable one is last.
    const ALL: &'static [Self];
    /// The portable backend: runs on every CPU.
    const PORTABLE: Self;
    /// The backend that `--cfg shangmi_backend` forces in this build, if any.
    const FORCED: Option<Self>;
    /// The backend's name, as `--cfg shangmi_backend` and the speed command spell it.
    fn name(self) -> &'static str;
}

mod private {
    /// Keeps [`super::Family`] to this crate's tables.
    pub trait Sealed {
        /// Whether the CPU (or, where there is no run-time probe, the compilation target)
        /// has what this backend needs; probed once per process and cached.
        fn cpu_has(self) -> bool;
        /// The family's cache of [`super::Available::best`].
        fn best_cache() -> &'static super::BestCache;
        /// The backend at `position` in `ALL`, by comparisons the optimiser folds into the
        /// caller's own (`at(p) == Some(X)` becomes `p == position of X`, no table load).
        fn at(position: u8) -> Option<Self>
        where
            Self: Sized;
    }
}

/// Proof that backend `B` can run here: its CPU features were found by this crate's probe
/// and the build does not force another backend of its family.
///
/// Only [`Available::check`], [`Available::best`], [`Available::portable`] and
/// [`Available::all`] make one (the field is private), so code that holds an
/// `Available<B>` may run `B`'s `#[target_feature]` kernels: the type carries the
/// soundness argument that each `unsafe` call of such a kernel cites.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Available<B>(B);

impl<B: Family> Available<B> {
    /// `backend`, if it can run here.
    #[inline]
    pub fn check(backend: B) -> Option<Self> {
        is_available(backend).then_some(Available(backend))
    }

    /// `backend`, or why it cannot run here.
    pub fn require(backend: B) -> Result<Self, BackendError<B>> {
        Self::check(backend).ok_or(BackendError::Unavailable(backend))
    }

    /// The best backend available here: the first of [`Family::ALL`] that can run. The CPU
    /// is probed once per process; the answer is cached (a relaxed atomic byte holding the
    /// position in `ALL`: threads that race at the start compute the same answer).
    #[inline]
    pub fn best() -> Self {
        let cache = B::best_cache();
        match B::ALL.get(usize::from(cache.0.load(Ordering::Relaxed))) {
            Some(&b) => Available(b),
            None => {
                let (i, b) = B::ALL
                    .iter()
                    .copied()
                    .enumerate()
                    .find(|&(_, b)| is_available(b))
                    .unwrap_or((B::ALL.len() - 1, B::PORTABLE));
                cache.0.store(i as u8, Ordering::Relaxed);
                Available(b)
            }
        }
    }

    /// The portable backend, which runs everywhere.
    #[inline]
    pub fn portable() -> Self {
        Available(B::PORTABLE)
    }

    /// Every backend available here, best first.
    pub fn all() -> impl Iterator<Item = Self> {
        B::ALL.iter().copied().filter_map(Self::check)
    }

    /// The backend.
    #[inline(always)]
    pub fn get(self) -> B {
        self.0
    }
}

impl<B: Family> fmt::Debug for Available<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Available({})", self.0.name())
    }
}

impl<B: Family> fmt::Display for Available<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.name())
    }
}

/// Defines a zero-sized kernel token: a type whose only constructor, `new`, takes an
/// [`Available`] backend and answers `Some` only for backend `$Family::$Variant`. A crate
/// implements its backend's code on the token, whose field is private to the module that
/// invokes this macro, so holding one proves that the backend runs here.
///
/// ```
/// use shangmi_dispatch::{Available, kernel_token, sm4::Backend};
///
/// kernel_token! {
///     /// The portable SM4 backend's code.
///     pub struct SoftKernel = Backend::Soft;
/// }
/// assert!(SoftKernel::new(Available::portable()).is_some());
/// ```
///
/// Followed by `impl Trait { type ..; fn f(self, args..) -> R; .. }`, it also implements
/// the crate's kernel trait on the token, each method calling the invoking module's `unsafe`
/// function of the same name with the same arguments (an entry with `#[target_feature]`s or
/// `asm!` that needs the backend's CPU features, which the token proves).
#[macro_export]
macro_rules! kernel_token {
    (
        $(#[$doc:meta])* $vis:vis struct $Kernel:ident = $Family:ident :: $Variant:ident;
        impl $Trait:path {
            $(type $Assoc:ident = $AssocTy:ty;)*
            $(fn $f:ident(self $(, $arg:ident: $ArgTy:ty)* $(,)?) $(-> $Ret:ty)?;)+
        }
    ) => {
        $crate::kernel_token! {
            $(#[$doc])* $vis struct $Kernel = $Family::$Variant;
        }

        impl $Trait for $Kernel {
            $(type $Assoc = $AssocTy;)*
            $(
                #[inline(always)]
                fn $f(self $(, $arg: $ArgTy)*) $(-> $Ret)? {
                    // SAFETY: `self` exists only for an `Available` backend of this kernel,
                    // whose probe found the features the module's entry needs.
                    unsafe { $f($($arg),*) }
                }
            )+
        }
    };
    ($(#[$doc:meta])* $vis:vis struct $Kernel:ident = $Family:ident :: $Variant:ident;) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        $vis struct $Kernel(());

        impl $Kernel {
            /// The kernel, if `backend` is its backend.
            #[inline(always)]
            $vis fn new(backend: $crate::Available<$Family>) -> Option<Self> {
                (backend.get() == $Family::$Variant).then_some($Kernel(()))
            }
        }
    };
}

/// Defines, in the invoking module, the one map from an [`Available`] backend to its kernel:
/// a `Call` trait (an operation to run on whichever kernel a backend maps to) and
/// `run(backend, op)`, one `match` with an arm per kernel token and the portable kernel for
/// every other backend. Each kernel token (made by [`kernel_token!`]) is named as its
/// backend and listed under its module, a child of the crate root; each module's list
/// keeps its own `cfg`, so a target compiles only its kernels. `$Kernel` is the invoking
/// crate's kernel trait, `$Portable` its portable kernel (a value of that trait).
///
/// ```
/// use shangmi_dispatch::{Available, kernel_dispatch, sm3::Backend};
///
/// trait Kernel: Copy {
///     fn name(self) -> &'static str;
/// }
/// #[derive(Clone, Copy)]
/// struct Portable;
/// impl Kernel for Portable {
///     fn name(self) -> &'static str { "portable" }
/// }
/// mod x86 {
///     use super::Kernel;
///     use shangmi_dispatch::sm3::Backend;
///     shangmi_dispatch::kernel_token! {
///         /// The AVX2 code.
///         pub struct Avx2 = Backend::Avx2;
///     }
///     impl Kernel for Avx2 {
///         fn name(self) -> &'static str { "avx2" }
///     }
/// }
/// kernel_dispatch! {
///     kernel Kernel, portable Portable, family Backend;
///     #[cfg(target_arch = "x86_64")]
///     x86::{Avx2},
/// }
/// struct Name;
/// impl Call for Name {
///     type Output = &'static str;
///     fn call<K: Kernel>(self, k: K) -> &'static str { k.name() }
/// }
///
/// fn main() {
///     assert_eq!(run(Available::portable(), Name), "portable");
/// }
/// ```
#[macro_export]
#[allow(clippy::crate_in_macro_def)] // the kernels' modules are the invoking crate's
macro_rules! kernel_dispatch {
    (
        kernel $Kernel:path, portable $Portable:expr, family $Family:ident;
        $(#[cfg($cfg:meta)] $module:ident :: { $($Variant:ident),+ $(,)? }),* $(,)?
    ) => {
        /// An operation to run on whichever kernel a backend maps to.
        pub(crate) trait Call {
            /// What the operation returns.
            type Output;
            /// Runs the operation on kernel `k`.
            fn call<K: $Kernel>(self, k: K) -> Self::Output;
        }

        /// Runs `op` on `backend`'s kernel: the one place that maps a backend to its code.
        #[inline(always)]
        pub(crate) fn run<C: Call>(
            backend: $crate::Available<$Family>,
            op: C,
        ) -> C::Output {
            /// `op` on kernel `k` (always `Some`: the arm matched its backend).
            #[allow(dead_code)] // no arm but the portable one on some targets
            #[inline(always)]
            fn with<K: $Kernel, C: Call>(k: Option<K>, op: C) -> C::Output {
                match k {
                    Some(k) => op.call(k),
                    None => op.call($Portable),
                }
            }
            match backend.get() {
                $($(
                    #[cfg($cfg)]
                    $Family::$Variant => with(crate::$module::$Variant::new(backend), op),
                )+)*
                #[allow(unreachable_patterns)] // every backend has its arm on some targets
                _ => op.call($Portable),
            }
        }
    };
}

/// Whether `backend` can run here: the CPU has it and the build does not force another.
fn is_available<B: Family>(backend: B) -> bool {
    match B::FORCED {
        Some(forced) if forced != backend => false,
        _ => backend == B::PORTABLE || backend.cpu_has(),
    }
}

/// The cache behind [`Available::best`]: the best backend's position in [`Family::ALL`],
/// `u8::MAX` before the first probe.
#[doc(hidden)]
pub struct BestCache(AtomicU8);

impl BestCache {
    const fn new() -> Self {
        BestCache(AtomicU8::new(u8::MAX))
    }
}

/// The backend called `name`.
fn parse<B: Family>(name: &str) -> Result<B, BackendError<B>> {
    B::ALL
        .iter()
        .copied()
        .find(|b| b.name() == name)
        .ok_or(BackendError::UnknownName)
}

/// Why a backend cannot be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendError<B> {
    /// The backend exists but this CPU (or this build's `shangmi_backend` cfg) lacks it.
    Unavailable(B),
    /// No backend of the family has this name.
    UnknownName,
}

impl<B: Family> fmt::Display for BackendError<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unavailable(b) => write!(
                f,
                "{} backend `{}` is not available on this CPU or build",
                B::ALGORITHM,
                b.name()
            ),
            Self::UnknownName => write!(f, "unknown {} backend name", B::ALGORITHM),
        }
    }
}

impl<B: Family> core::error::Error for BackendError<B> {}

/// The backend of every family that [`Available::best`] picks here, as `(algorithm,
/// name)` pairs in a fixed order (SM4, SM3, GHASH, XTS, SM2 field, SM2 scan, ZUC, ZUC many,
/// SM9 field): for the speed command's header and bug reports.
pub fn best_of_every_family() -> [(&'static str, &'static str); 10] {
    fn row<B: Family>() -> (&'static str, &'static str) {
        (B::ALGORITHM, Available::<B>::best().get().name())
    }
    [
        row::<sm4::Backend>(),
        row::<sm3::Backend>(),
        row::<ghash::Backend>(),
        row::<xts::Backend>(),
        row::<sm2_field::Backend>(),
        row::<sm2_scan::Backend>(),
        row::<sm2_lanes::Backend>(),
        row::<zuc::Backend>(),
        row::<zuc_many::Backend>(),
        row::<sm9_field::Backend>(),
    ]
}

#[cfg(test)]
mod tests;
