//! Arithmetic specialised to the SM2 curve: 4×64-bit limbs, Montgomery field and scalar
//! arithmetic, Jacobian points with a = -3 formulas, and the scalar multiplications.

pub(crate) mod field;
#[cfg(target_arch = "x86_64")]
mod field_x86;
pub(crate) mod inv;
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
