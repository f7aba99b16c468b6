//! Arithmetic specialised to the SM2 curve: 4×64-bit limbs, the Montgomery field and scalar
//! types (the ones the `elliptic-curve` traits see), Jacobian points with a = -3 formulas, and
//! the scalar multiplications.

pub(crate) mod field;
/// The field arithmetic under [`field::FieldElement`], chosen once: x86-64 assembly, or
/// portable Rust on other targets and with `--cfg shangmi_backend="soft"` (`build.rs` always
/// takes the portable one).
#[cfg_attr(
    all(target_arch = "x86_64", not(shangmi_backend = "soft")),
    path = "field_x86.rs"
)]
#[cfg_attr(
    not(all(target_arch = "x86_64", not(shangmi_backend = "soft"))),
    path = "field_portable.rs"
)]
mod field_impl;
/// The portable field arithmetic as the reference the tests compare the assembly with.
#[cfg(all(test, target_arch = "x86_64", not(shangmi_backend = "soft")))]
#[path = "field_portable.rs"]
mod field_portable;
pub(crate) mod inv;
pub(crate) mod limbs;
pub(crate) mod mul;
pub(crate) mod point;
pub(crate) mod scalar;
#[cfg(all(target_arch = "x86_64", not(shangmi_backend = "soft")))]
pub(crate) mod scan_x86;

#[cfg(all(test, target_arch = "x86_64"))]
mod ct_tests;
#[cfg(test)]
mod tests;
