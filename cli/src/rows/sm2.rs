//! SM2 rows (key generation, signatures, encryption, ECDH) in operations per second.

use super::OpRow;

/// The SM2 rows.
pub fn rows() -> Vec<OpRow> {
    vec![]
}
