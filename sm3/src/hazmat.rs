//! Low-level entry points for tests, fuzzing and benches: the compression function and the
//! multi-buffer path on a chosen backend. Not needed for ordinary hashing.

use crate::{Backend, BackendError, engine, multi};

/// The SM3 initial chaining value (GB/T 32905-2016, 4.1).
pub const IV: [u32; 8] = crate::consts::IV;

/// Runs the compression function CF over `blocks` on `backend`, updating `state`.
///
/// ```
/// use shangmi_sm3::{Backend, hazmat};
/// let mut s = hazmat::IV;
/// hazmat::compress(Backend::Soft, &mut s, &[[0u8; 64]; 2]).expect("soft is always available");
/// ```
pub fn compress(
    backend: Backend,
    state: &mut [u32; 8],
    blocks: &[[u8; 64]],
) -> Result<(), BackendError> {
    let backend = shangmi_dispatch::Available::require(backend)?;
    engine::compress(backend, state, blocks);
    Ok(())
}

/// [`crate::Sm3::digest_many_into`] on a chosen backend.
///
/// ```
/// use shangmi_sm3::{Backend, Digest, Sm3, hazmat};
/// let mut out = [[0u8; 32]; 2];
/// hazmat::digest_many_with(Backend::Soft, &[b"abc", b"de"], &mut out).unwrap();
/// assert_eq!(out[0], <[u8; 32]>::from(Sm3::digest(b"abc")));
/// ```
pub fn digest_many_with(
    backend: Backend,
    msgs: &[&[u8]],
    out: &mut [[u8; 32]],
) -> Result<(), BackendError> {
    let backend = shangmi_dispatch::Available::require(backend)?;
    multi::digest_many(backend, msgs, out);
    Ok(())
}
