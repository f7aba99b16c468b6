//! Arithmetic specialised to the SM2 curve: 4×64-bit limbs, the Montgomery field and scalar
//! types (the ones the `elliptic-curve` traits see), Jacobian points with a = -3 formulas, and
//! the scalar multiplications.

pub(crate) mod field;
mod field_portable;
#[cfg(target_arch = "x86_64")]
mod field_x86;
#[cfg(not(target_arch = "x86_64"))]
use field_portable as field_impl;
/// The field arithmetic under [`field::FieldElement`], chosen once by target: the x86-64
/// assembly (whose backends, `adx`, `base` or the portable Rust when the build forces it,
/// `shangmi-dispatch` picks), portable Rust elsewhere. `build.rs` takes the portable one.
#[cfg(target_arch = "x86_64")]
use field_x86 as field_impl;
#[cfg(target_arch = "x86_64")]
pub(crate) mod ifma;
pub(crate) mod inv;
pub(crate) mod lanes;
pub(crate) mod limbs;
pub(crate) mod mul;
pub(crate) mod point;
pub(crate) mod scalar;
#[cfg(target_arch = "x86_64")]
pub(crate) mod scan_x86;

#[cfg(all(test, target_arch = "x86_64"))]
mod ct_tests;
#[cfg(test)]
mod tests;
