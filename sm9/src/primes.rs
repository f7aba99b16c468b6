//! The SM9 curve's two primes (GM/T 0044-2016 part 5, A.1), as the hex the const parsers
//! of `shangmi-limbs` read: F_p and F_n are built from them (`field.rs`), and so is the
//! modulus the x86-64 forms read (`field_x86.rs`).

/// The base field's prime p (the standard's q).
pub(crate) const P_HEX: &str = "B640000002A3A6F1D603AB4FF58EC74521F2934B1A7AEEDBE56F9B27E351457D";

/// The group order N.
pub(crate) const N_HEX: &str = "B640000002A3A6F1D603AB4FF58EC74449F2934B18EA8BEEE56EE19CD69ECF25";
