//! SM4-GCM (NIST SP 800-38D with SM4, RFC 8998, GB/T 36624-2018).
//!
//! One pass over the data. With the `gfni-avx512` cipher and the `vpclmulqdq-avx512` GHASH
//! engine, GHASH runs between the cipher's rounds (`Sm4::apply_ctr_hooked`): the rounds
//! leave the carry-less multiplier idle, so the hash of each 64-block pass costs little
//! beyond its loads, shuffles and XORs. Otherwise counter mode and GHASH are fused chunk by
//! chunk, each chunk encrypted by `Sm4::apply_ctr` at the engine's full width (counter
//! blocks built in registers) and hashed while it is in L1. Every engine call is a whole
//! number of the widest engine's steps: the text is split into 1 KiB pieces, and the last
//! piece (up to 63 blocks) gets its keystream from one engine call rounded up to a width
//! the engines run in one pass. The tag mask E(J0) never takes an engine call of its own:
//! it rides along the first wide pass of the body (`Sm4::apply_ctr_and_encrypt`), or, for
//! texts shorter than 1 KiB, leads the tail's keystream. Decryption hashes and decrypts in
//! the same pass; if the tag does not match, the keystream is applied again so the output
//! holds the ciphertext, and [`aead::Error`] is returned.

use aead::{
    Error,
    array::ArraySize,
    consts::{U12, U13, U14, U15, U16},
    inout::InOutBuf,
};
use cipher::{Block, BlockCipherEncrypt};
use shangmi_dispatch::Available;
use shangmi_sm4::{CtrFlavor, Sm4};

use crate::ghash::{GhashBackend, GhashKey, Hasher};
use crate::sm4_aead::{Gcm, Mode, Sm4Aead};

/// One pass of the widest engine (64 blocks on GFNI/AVX-512; two passes on 32-block ones).
const WIDE: usize = 64 * 16;
/// Bytes per fused CTR+GHASH step: a multiple of [`WIDE`], small enough to stay in L1.
const CHUNK: usize = 8 * WIDE;
// The body is whole steps of `Sm4::apply_ctr_hooked`.
const _: () = assert!(WIDE == shangmi_sm4::HOOK_BLOCKS * 16);
/// SP 800-38D §5.2.1.1: at most 2^39 - 256 bits of plaintext.
const MAX_TEXT: u64 = (1 << 36) - 32;
/// SP 800-38D §5.2.1.1: at most 2^64 - 1 bits of associated data.
const MAX_AAD: u64 = (1 << 61) - 1;

/// Tag lengths GCM allows here: 12 to 16 bytes (SP 800-38D §5.2.1.2).
pub trait GcmTagSize: ArraySize + sealed::Sealed {}
impl GcmTagSize for U12 {}
impl GcmTagSize for U13 {}
impl GcmTagSize for U14 {}
impl GcmTagSize for U15 {}
impl GcmTagSize for U16 {}

mod sealed {
    pub trait Sealed {}
    impl Sealed for aead::consts::U12 {}
    impl Sealed for aead::consts::U13 {}
    impl Sealed for aead::consts::U14 {}
    impl Sealed for aead::consts::U15 {}
    impl Sealed for aead::consts::U16 {}
}

/// SM4-GCM with a 12-byte nonce and a 16-byte tag, as RFC 8998 (TLS 1.3
/// `TLS_SM4_GCM_SM3`) and GB/T 36624 use it.
///
/// ```
/// use shangmi_sm4_modes::Sm4Gcm;
/// use shangmi_sm4_modes::aead::{AeadInOut, KeyInit};
///
/// let gcm = Sm4Gcm::new(&[7u8; 16].into());
/// let nonce = [1u8; 12].into();
/// let mut buf = *b"attack at dawn";
/// let tag = gcm.encrypt_inout_detached(&nonce, b"header", (&mut buf[..]).into()).unwrap();
/// assert_ne!(&buf, b"attack at dawn");
/// gcm.decrypt_inout_detached(&nonce, b"header", (&mut buf[..]).into(), &tag).unwrap();
/// assert_eq!(&buf, b"attack at dawn");
/// ```
pub type Sm4Gcm = Sm4GcmCustom<U12, U16>;

/// SM4-GCM with nonce length `N` (any length from 1 byte; 12 is the fast, standard one)
/// and tag length `T` (12 to 16 bytes).
///
/// ```
/// use shangmi_sm4_modes::Sm4GcmCustom;
/// use shangmi_sm4_modes::aead::{AeadInOut, KeyInit, consts::{U12, U16}};
///
/// let gcm = Sm4GcmCustom::<U16, U12>::new(&[7u8; 16].into());
/// let mut buf = [0u8; 40];
/// let tag = gcm.encrypt_inout_detached(&[3u8; 16].into(), b"", (&mut buf[..]).into()).unwrap();
/// assert_eq!(tag.len(), 12);
/// ```
pub type Sm4GcmCustom<N, T> = Sm4Aead<Gcm, N, T>;

impl<N: ArraySize, T: GcmTagSize> Sm4Aead<Gcm, N, T> {
    /// The GHASH backend in use (its `Display` is the name, e.g. `vpclmulqdq-avx512`).
    pub fn ghash_backend(&self) -> GhashBackend {
        self.hash_key().engine()
    }
}

impl<N: ArraySize, T: GcmTagSize> Mode<N, T> for Gcm {
    type Key = GhashKey;
    const NAME: &'static str = "Sm4Gcm";

    fn key(cipher: &Sm4, ghash: Available<GhashBackend>) -> GhashKey {
        let mut h = Block::<Sm4>::default();
        cipher.encrypt_block(&mut h);
        GhashKey::new(&h.into(), ghash)
    }

    fn seal(
        cipher: &Sm4,
        key: &GhashKey,
        nonce: &[u8],
        aad: &[u8],
        buf: InOutBuf<'_, '_, u8>,
    ) -> aead::Result<[u8; 16]> {
        check(nonce, aad, buf.len())?;
        Ok(crypt(cipher, key, j0(key, nonce), aad, buf, true))
    }

    fn open(
        cipher: &Sm4,
        key: &GhashKey,
        nonce: &[u8],
        aad: &[u8],
        buf: InOutBuf<'_, '_, u8>,
        tag: &[u8],
    ) -> aead::Result<()> {
        check(nonce, aad, buf.len())?;
        let j0 = j0(key, nonce);
        let mut buf = buf;
        let s = crypt(cipher, key, j0, aad, buf.reborrow(), false);
        if crate::ct::eq(&s[..tag.len()], tag) {
            return Ok(());
        }
        // Wrong tag: the output holds the plaintext; the keystream again makes it the
        // ciphertext (counter mode is an involution).
        let mut ctr = inc32(j0, 1);
        cipher.apply_ctr(CtrFlavor::Be32, &mut ctr, buf.get_out());
        Err(Error)
    }
}

fn check(nonce: &[u8], aad: &[u8], text: usize) -> aead::Result<()> {
    if nonce.is_empty() || text as u64 > MAX_TEXT || aad.len() as u64 > MAX_AAD {
        return Err(Error);
    }
    Ok(())
}

/// `block` with its last 32 bits (big-endian) increased by `n`, mod 2^32 (SP 800-38D inc32).
fn inc32(mut block: [u8; 16], n: u32) -> [u8; 16] {
    let c = u32::from_be_bytes([block[12], block[13], block[14], block[15]]).wrapping_add(n);
    block[12..].copy_from_slice(&c.to_be_bytes());
    block
}

/// The pre-counter block J0 (SP 800-38D §7.1 step 2).
fn j0(key: &GhashKey, nonce: &[u8]) -> [u8; 16] {
    if nonce.len() == 12 {
        let mut j = [0u8; 16];
        j[..12].copy_from_slice(nonce);
        j[15] = 1;
        return j;
    }
    let mut g = key.start();
    g.update_padded(nonce);
    let mut len = [0u8; 16];
    len[8..].copy_from_slice(&((nonce.len() as u64) * 8).to_be_bytes());
    g.update_blocks(&len);
    g.finalize()
}

/// Blocks of the one ECB call for `n` blocks: the next size every engine runs in one pass
/// (4, 8 or 16 blocks, or the widest engine's 64); more than 64 as they are.
pub(crate) fn pass_blocks(n: usize) -> usize {
    match n {
        0..=4 => 4,
        5..=8 => 8,
        9..=16 => 16,
        17..=64 => 64,
        _ => n,
    }
}

/// XORs `data` with the keystream blocks `ks` (at least as long), 16 bytes at a time.
pub(crate) fn xor_keystream(data: &mut [u8], ks: &[Block<Sm4>]) {
    let ks = Block::<Sm4>::slice_as_flattened(ks);
    let (blocks, tail) = data.as_chunks_mut::<16>();
    let (ks_blocks, ks_tail) = ks.as_chunks::<16>();
    for (d, k) in blocks.iter_mut().zip(ks_blocks) {
        *d = (u128::from_ne_bytes(*d) ^ u128::from_ne_bytes(*k)).to_ne_bytes();
    }
    let ks_rest = ks_blocks.get(blocks.len()).map_or(ks_tail, |b| &b[..]);
    for (d, k) in tail.iter_mut().zip(ks_rest) {
        *d ^= k;
    }
}

/// Encrypts or decrypts `buf` (input to output) and returns GHASH(aad, ciphertext) ⊕ E(J0).
fn crypt(
    cipher: &Sm4,
    key: &GhashKey,
    j0: [u8; 16],
    aad: &[u8],
    buf: InOutBuf<'_, '_, u8>,
    encrypt: bool,
) -> [u8; 16] {
    let mut g = key.start();
    g.update_padded(aad);
    let text_len = buf.len();
    // The body: whole 1 KiB pieces (whole wide passes); the tail has at most 63 blocks.
    let (body, tail) = buf.split_at(text_len / WIDE * WIDE);
    if body.is_empty() {
        let blocks = tail.len().div_ceil(16);
        if blocks == 16 {
            // Sixteen blocks and the mask would round up to a 64-block pass: the mask rides
            // along the sixteen-block one as a side lane instead.
            let mut ks = [Block::<Sm4>::default(); 16];
            let mut mask = Block::<Sm4>::from(j0);
            let mut c = inc32(j0, 1);
            cipher.apply_ctr_and_encrypt(
                CtrFlavor::Be32,
                &mut c,
                Block::<Sm4>::slice_as_flattened_mut(&mut ks),
                &mut mask,
            );
            crypt_tail(&mut g, tail, &ks, encrypt);
            return finish(g, aad.len(), text_len, &mask);
        }
        // The tail's keystream and the mask E(J0) from one engine call: counter mode over
        // zeros from J0 (counter blocks built in registers), rounded up to a width the
        // engines run in one pass, zeroed only as far as that pass needs (a 16-byte record
        // needs 4 blocks, not 65).
        let n = pass_blocks(1 + blocks);
        let mut short = [Block::<Sm4>::default(); 16];
        let mut long;
        let ks = if n <= short.len() {
            &mut short[..n]
        } else {
            long = [Block::<Sm4>::default(); WIDE / 16 + 1];
            &mut long[..n]
        };
        let mut c = j0;
        cipher.apply_ctr(
            CtrFlavor::Be32,
            &mut c,
            Block::<Sm4>::slice_as_flattened_mut(ks),
        );
        crypt_tail(&mut g, tail, &ks[1..], encrypt);
        // ks[0] read only now: a load right after the engine's wide stores would wait.
        finish(g, aad.len(), text_len, &ks[0])
    } else {
        let (mask, g) = crypt_body(cipher, g, j0, body, tail, encrypt);
        finish(g, aad.len(), text_len, &mask)
    }
}

/// GHASH's length block, and the tag: the hash ⊕ `mask` (E(J0)).
#[inline(always)]
fn finish(mut g: Hasher<'_, true>, aad_len: usize, text_len: usize, mask: &Block<Sm4>) -> [u8; 16] {
    let mut len = [0u8; 16];
    len[..8].copy_from_slice(&(aad_len as u64 * 8).to_be_bytes());
    len[8..].copy_from_slice(&(text_len as u64 * 8).to_be_bytes());
    g.update_blocks(&len);
    let mut s = g.finalize();
    for (s, m) in s.iter_mut().zip(mask.iter()) {
        *s ^= m;
    }
    s
}

/// XORs `tail` (input to output) with the keystream `ks` and hashes the ciphertext.
#[inline(always)]
fn crypt_tail(
    g: &mut Hasher<'_, true>,
    tail: InOutBuf<'_, '_, u8>,
    ks: &[Block<Sm4>],
    encrypt: bool,
) {
    if !encrypt {
        g.update_padded(tail.get_in());
    }
    let out = tail.into_out_with_copied_in();
    xor_keystream(out, ks);
    if encrypt {
        g.update_padded(out);
    }
}

/// [`crypt`] for texts of at least one wide pass: the body (whole wide passes), with the
/// mask E(J0) riding along its first pass, then the tail (fewer than 64 blocks) from one
/// engine call; returns the mask and the hash so far. Out of line (the hash by value, so
/// that it stays in registers in [`crypt`]): short records skip it.
#[inline(never)]
fn crypt_body<'k>(
    cipher: &Sm4,
    mut g: Hasher<'k, true>,
    j0: [u8; 16],
    body: InOutBuf<'_, '_, u8>,
    tail: InOutBuf<'_, '_, u8>,
    encrypt: bool,
) -> (Block<Sm4>, Hasher<'k, true>) {
    let mut ctr = inc32(j0, 1);
    let mut mask = Block::<Sm4>::from(j0);
    #[cfg(target_arch = "x86_64")]
    let body = match g.ctr_hook(encrypt) {
        Some(hook) => {
            // GHASH between the cipher's rounds, the whole body in one call (the hook's
            // steps are the wide passes).
            let out = body.into_out_with_copied_in();
            let (blocks, _) = Block::<Sm4>::slice_as_chunks_mut(out);
            let hook = cipher.apply_ctr_hooked(&mut ctr, blocks, hook, Some(&mut mask));
            g.resume(&hook);
            if encrypt {
                // The last step's output: no step after it hashes it.
                let last = &blocks[blocks.len() - shangmi_sm4::HOOK_BLOCKS..];
                g.update_blocks(Block::<Sm4>::slice_as_flattened(last));
            }
            None
        }
        None => Some(body),
    };
    #[cfg(not(target_arch = "x86_64"))]
    let body = Some(body);
    if let Some(body) = body {
        crypt_chunks(cipher, &mut g, &mut ctr, &mut mask, body, encrypt);
    }
    if !tail.is_empty() {
        let mut ks = [Block::<Sm4>::default(); WIDE / 16];
        let ks = &mut ks[..pass_blocks(tail.len().div_ceil(16))];
        cipher.apply_ctr(
            CtrFlavor::Be32,
            &mut ctr,
            Block::<Sm4>::slice_as_flattened_mut(ks),
        );
        crypt_tail(&mut g, tail, ks, encrypt);
    }
    (mask, g)
}

/// The body chunk by chunk: counter mode on each, hashed while it is in L1, the mask riding
/// along the first engine call.
#[inline(always)]
fn crypt_chunks(
    cipher: &Sm4,
    g: &mut Hasher<'_, true>,
    ctr: &mut [u8; 16],
    mask: &mut Block<Sm4>,
    mut body: InOutBuf<'_, '_, u8>,
    encrypt: bool,
) {
    let mut first = true;
    while !body.is_empty() {
        let n = CHUNK.min(body.len());
        let (chunk, more) = body.split_at(n);
        if !encrypt {
            g.update_blocks(chunk.get_in());
        }
        let out = chunk.into_out_with_copied_in();
        if first {
            cipher.apply_ctr_and_encrypt(CtrFlavor::Be32, ctr, out, mask);
            first = false;
        } else {
            cipher.apply_ctr(CtrFlavor::Be32, ctr, out);
        }
        if encrypt {
            g.update_blocks(out);
        }
        body = more;
    }
}
