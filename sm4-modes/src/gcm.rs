//! SM4-GCM (NIST SP 800-38D with SM4, RFC 8998, GB/T 36624-2018).
//!
//! One pass over the data: counter mode and GHASH are fused chunk by chunk, each chunk
//! encrypted by `Sm4::apply_ctr` at the engine's full width (counter blocks built in
//! registers) and hashed while it is in L1, so the hash of one chunk overlaps the
//! encryption of the next in the out-of-order window. Every engine call is a whole number
//! of the widest engine's steps: the text is split into 1 KiB pieces, and the last piece
//! (up to 63 blocks) gets its keystream from one engine call together with the tag mask
//! E(J0), rounded up to a width the engines run in one pass. Decryption hashes and decrypts in the same pass; if
//! the tag does not match, the keystream is applied again so the output holds the
//! ciphertext, and [`aead::Error`] is returned.

use aead::{
    Error,
    array::ArraySize,
    consts::{U12, U13, U14, U15, U16},
    inout::InOutBuf,
};
use cipher::{Block, BlockCipherEncrypt};
use shangmi_dispatch::Available;
use shangmi_sm4::{CtrFlavor, Sm4};

use crate::ghash::{GhashBackend, GhashKey};
use crate::sm4_aead::{Gcm, Mode, Sm4Aead};

/// One pass of the widest engine (64 blocks on GFNI/AVX-512; two passes on 32-block ones).
const WIDE: usize = 64 * 16;
/// Bytes per fused CTR+GHASH step: a multiple of [`WIDE`], small enough to stay in L1.
const CHUNK: usize = 8 * WIDE;
/// The tail (with the mask block) is one wide pass: 63 text blocks.
const TAIL_MAX: usize = WIDE - 16;
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
    // The body: whole 1 KiB pieces, so the tail and the mask fit one wide pass (but for
    // lengths 1009 to 1023 mod 1024, whose tail has 64 blocks).
    let body =
        (text_len.saturating_sub(TAIL_MAX).div_ceil(WIDE) * WIDE).min(text_len / WIDE * WIDE);
    let (mut rest, tail) = buf.split_at(body);
    let mut ctr = inc32(j0, 1);
    while !rest.is_empty() {
        let n = CHUNK.min(rest.len());
        let (chunk, more) = rest.split_at(n);
        if !encrypt {
            g.update_blocks(chunk.get_in());
        }
        let out = chunk.into_out_with_copied_in();
        cipher.apply_ctr(CtrFlavor::Be32, &mut ctr, out);
        if encrypt {
            g.update_blocks(out);
        }
        rest = more;
    }

    // The tail and the mask: the keystream of counter blocks J0, ctr, ctr + 1, … from one
    // engine call. Without a body (or without a tail) they are consecutive: counter mode
    // over zeros (counters built in registers); otherwise ECB over the counter blocks
    // written out.
    let tail_blocks = tail.len().div_ceil(16);
    // Zeroed only as far as the pass needs (a 16-byte record needs 4 blocks, not 65).
    let n = pass_blocks(1 + tail_blocks);
    let mut short = [Block::<Sm4>::default(); 16];
    let mut long;
    let ks = if n <= short.len() {
        &mut short[..n]
    } else {
        long = [Block::<Sm4>::default(); WIDE / 16 + 1];
        &mut long[..n]
    };
    if body == 0 || tail_blocks == 0 {
        let mut c = j0;
        cipher.apply_ctr(
            CtrFlavor::Be32,
            &mut c,
            Block::<Sm4>::slice_as_flattened_mut(ks),
        );
    } else {
        ks[0] = j0.into();
        for (i, b) in ks[1..=tail_blocks].iter_mut().enumerate() {
            *b = inc32(ctr, i as u32).into();
        }
        cipher.encrypt_blocks(ks);
    }
    if !encrypt {
        g.update_padded(tail.get_in());
    }
    let out = tail.into_out_with_copied_in();
    xor_keystream(out, &ks[1..]);
    if encrypt {
        g.update_padded(out);
    }

    let mut len = [0u8; 16];
    len[..8].copy_from_slice(&(aad.len() as u64 * 8).to_be_bytes());
    len[8..].copy_from_slice(&(text_len as u64 * 8).to_be_bytes());
    g.update_blocks(&len);
    let mut s = g.finalize();
    for (s, m) in s.iter_mut().zip(ks[0].iter()) {
        *s ^= m;
    }
    s
}
