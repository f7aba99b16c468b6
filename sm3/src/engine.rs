//! The map from a [`Backend`] to its code: the [`Kernel`] trait that every backend's code
//! implements and the one `match` ([`run`]) from an [`Available`] backend to its kernel,
//! for the single-stream compression and the multi-buffer hashing (`multi`) alike.
//!
//! A kernel is a zero-sized token: `Soft` is free to make, every other kernel only from an
//! `Available` backend of its own kind (`shangmi_dispatch::kernel_token!`), so holding one
//! proves that its CPU features are present. Its methods are safe; inside, each calls its
//! `#[target_feature]` entry on the strength of `self`, and the x86 register types take the
//! kernel as their proof too.

use shangmi_dispatch::Available;

use crate::{Backend, consts::IV, soft};

/// One backend's code. Implementations are zero-sized tokens that prove the backend runs
/// here (see the module documentation), so the methods are safe.
pub(crate) trait Kernel: Copy {
    /// Compresses `blocks` into `state`.
    fn compress(self, state: &mut [u32; 8], blocks: &[[u8; 64]]);

    /// Hashes `msgs[i]` into `out[i]` (as many as both hold); kernels with SIMD lanes
    /// override it with the multi-buffer scheduler.
    #[inline]
    fn digest_many(self, msgs: &[&[u8]], out: &mut [[u8; 32]]) {
        for (m, o) in msgs.iter().zip(out.iter_mut()) {
            *o = one(self, m);
        }
    }
}

/// The portable kernel: runs everywhere, needs no proof.
#[derive(Clone, Copy)]
pub(crate) struct Soft;

impl Kernel for Soft {
    #[inline(always)]
    fn compress(self, state: &mut [u32; 8], blocks: &[[u8; 64]]) {
        soft::compress(state, blocks);
    }
}

// `Call` and `run`: the one match from an `Available` backend to its kernel.
shangmi_dispatch::kernel_dispatch! {
    kernel Kernel, portable Soft, family Backend;
    #[cfg(target_arch = "x86_64")]
    x86::{Avx512, Avx2},
    #[cfg(target_arch = "aarch64")]
    aarch64::{Aarch64Sm3},
    #[cfg(all(any(target_arch = "riscv32", target_arch = "riscv64"), target_feature = "zksh"))]
    riscv::{RiscvZksh},
    #[cfg(any(target_arch = "riscv32", target_arch = "riscv64"))]
    riscv_zvksh::{RiscvZvksh},
}

/// [`Kernel::compress`].
pub(crate) struct Compress<'a>(pub(crate) &'a mut [u32; 8], pub(crate) &'a [[u8; 64]]);
impl Call for Compress<'_> {
    type Output = ();
    #[inline(always)]
    fn call<K: Kernel>(self, k: K) {
        k.compress(self.0, self.1);
    }
}

/// Compresses `blocks` into `state` with `backend`'s code.
#[inline(always)]
pub(crate) fn compress(backend: Available<Backend>, state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    run(backend, Compress(state, blocks));
}

/// [`Kernel::digest_many`].
pub(crate) struct DigestMany<'a, 'm>(pub(crate) &'a [&'m [u8]], pub(crate) &'a mut [[u8; 32]]);
impl Call for DigestMany<'_, '_> {
    type Output = ();
    #[inline(always)]
    fn call<K: Kernel>(self, k: K) {
        k.digest_many(self.0, self.1);
    }
}

/// One message on kernel `k`'s single-stream code.
pub(crate) fn one<K: Kernel>(k: K, msg: &[u8]) -> [u8; 32] {
    let full = msg.len() - msg.len() % 64;
    let (tail, tail_end) = pad_tail(&msg[full..], msg.len());
    let mut h = IV;
    k.compress(&mut h, as_blocks(&msg[..full]));
    k.compress(&mut h, as_blocks(&tail[..tail_end]));
    to_bytes(&h)
}

/// The padded final block(s) of a message of `len` bytes whose last partial block is
/// `rest`: `rest`, 0x80, zeros, the bit length (GB/T 32905-2016, 5.2); with the length
/// used, 64 or 128.
pub(crate) fn pad_tail(rest: &[u8], len: usize) -> ([u8; 128], usize) {
    let mut tail = [0u8; 128];
    tail[..rest.len()].copy_from_slice(rest);
    tail[rest.len()] = 0x80;
    let tail_end = if rest.len() + 9 <= 64 { 64 } else { 128 };
    let bits = (len as u64).wrapping_mul(8);
    tail[tail_end - 8..tail_end].copy_from_slice(&bits.to_be_bytes());
    (tail, tail_end)
}

/// `data` (a multiple of 64 bytes long) as blocks.
pub(crate) fn as_blocks(data: &[u8]) -> &[[u8; 64]] {
    let (blocks, rest) = data.as_chunks::<64>();
    debug_assert!(rest.is_empty());
    blocks
}

/// The digest bytes of a final chaining value.
pub(crate) fn to_bytes(h: &[u32; 8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (chunk, v) in out.chunks_exact_mut(4).zip(h) {
        chunk.copy_from_slice(&v.to_be_bytes());
    }
    out
}
