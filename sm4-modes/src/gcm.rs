//! SM4-GCM (NIST SP 800-38D with SM4, RFC 8998, GB/T 36624-2018).
//!
//! Counter mode and GHASH are fused chunk by chunk: each 4 KiB of data is encrypted by
//! `Sm4::apply_ctr` (counter blocks built in registers, the engine's full width) and hashed
//! while still in L1, so every byte is loaded from memory once per pass. Decryption hashes
//! and decrypts in the same pass; if the tag does not match, the keystream is applied again
//! so the buffer holds the ciphertext it started with, and [`aead::Error`] is returned.

use core::marker::PhantomData;

use aead::{
    AeadCore, AeadInOut, Error, Nonce, Tag, TagPosition,
    array::{Array, ArraySize},
    consts::{U12, U13, U14, U15, U16},
    inout::InOutBuf,
};
use cipher::{Block, BlockCipherEncrypt, Key, KeyInit, KeySizeUser};
use shangmi_sm4::{Backend, BackendError, CtrFlavor, Sm4};

use crate::ghash::{GhashEngine, GhashKey};

/// Bytes processed per fused CTR+GHASH step (a multiple of 16 and of every engine's width).
const CHUNK: usize = 4096;
/// Messages up to this length are encrypted together with the tag mask in one engine call.
const SMALL: usize = 240;
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
#[derive(Clone)]
pub struct Sm4GcmCustom<N, T> {
    cipher: Sm4,
    ghash: GhashKey,
    sizes: PhantomData<(N, T)>,
}

impl<N, T> Sm4GcmCustom<N, T> {
    /// GCM over a prepared cipher, e.g. one from [`Sm4::with_backend`].
    pub fn from_cipher(cipher: Sm4) -> Self {
        Self::from_parts(cipher, GhashEngine::best())
    }

    /// GCM for `key` on the SM4 engine `backend` (for tests, benchmarks and bug reports).
    ///
    /// # Errors
    /// [`BackendError`] if this CPU cannot run `backend`.
    pub fn with_backend(key: &Key<Sm4>, backend: Backend) -> Result<Self, BackendError> {
        Ok(Self::from_cipher(Sm4::with_backend(key, backend)?))
    }

    /// GCM whose GHASH runs on the portable `ghash` crate instead of our VPCLMULQDQ code.
    #[doc(hidden)]
    pub fn from_cipher_portable_ghash(cipher: Sm4) -> Self {
        Self::from_parts(cipher, GhashEngine::Crate)
    }

    fn from_parts(cipher: Sm4, engine: GhashEngine) -> Self {
        let mut h = Default::default();
        cipher.encrypt_block(&mut h);
        let h: [u8; 16] = h.into();
        Sm4GcmCustom {
            ghash: GhashKey::new(&h, engine),
            cipher,
            sizes: PhantomData,
        }
    }

    /// The SM4 backend in use (its `Display` is the name, e.g. `gfni-avx512`).
    pub fn backend(&self) -> Backend {
        self.cipher.backend()
    }
}

impl<N: ArraySize, T: GcmTagSize> Sm4GcmCustom<N, T> {
    /// The pre-counter block J0 (SP 800-38D §7.1 step 2).
    fn j0(&self, nonce: &Nonce<Self>) -> [u8; 16] {
        if N::USIZE == 12 {
            let mut j = [0u8; 16];
            j[..12].copy_from_slice(nonce);
            j[15] = 1;
            return j;
        }
        let mut g = self.ghash.start();
        g.update_padded(nonce);
        let mut len = [0u8; 16];
        len[8..].copy_from_slice(&((N::USIZE as u64) * 8).to_be_bytes());
        g.update_padded(&len);
        g.finalize()
    }

    fn check(aad: &[u8], text: usize) -> aead::Result<()> {
        if N::USIZE == 0 || text as u64 > MAX_TEXT || aad.len() as u64 > MAX_AAD {
            return Err(Error);
        }
        Ok(())
    }

    /// Encrypts or decrypts `buf` (input to output, chunk by chunk so each chunk is hashed
    /// and copied while in L1) and returns GHASH(aad, ciphertext) ⊕ E(J0).
    fn crypt(
        &self,
        j0: [u8; 16],
        aad: &[u8],
        buf: InOutBuf<'_, '_, u8>,
        encrypt: bool,
    ) -> [u8; 16] {
        let mut g = self.ghash.start();
        g.update_padded(aad);
        let text_len = buf.len();
        let mut mask = [0u8; 16];
        if text_len <= SMALL {
            // One engine call for the tag mask E(J0) and the keystream.
            let mut tmp = [0u8; 16 + SMALL];
            let tmp = &mut tmp[..16 + text_len];
            tmp[16..].copy_from_slice(buf.get_in());
            if !encrypt {
                g.update_padded(&tmp[16..]);
            }
            let mut ctr = j0;
            self.cipher.apply_ctr(CtrFlavor::Be32, &mut ctr, tmp);
            mask.copy_from_slice(&tmp[..16]);
            let out = buf.into_out();
            out.copy_from_slice(&tmp[16..]);
            if encrypt {
                g.update_padded(out);
            }
        } else {
            // Whole blocks but the last through the fused chunks; the last block's
            // keystream and the tag mask E(J0) then come from one two-block engine call.
            let (mut rest, last) = buf.split_at((text_len - 1) / 16 * 16);
            let mut ctr = j0;
            let c = u32::from_be_bytes([j0[12], j0[13], j0[14], j0[15]]).wrapping_add(1);
            ctr[12..].copy_from_slice(&c.to_be_bytes());
            while !rest.is_empty() {
                let n = CHUNK.min(rest.len());
                let (chunk, tail) = rest.split_at(n);
                if !encrypt {
                    g.update_padded(chunk.get_in());
                }
                let out = chunk.into_out_with_copied_in();
                self.cipher.apply_ctr(CtrFlavor::Be32, &mut ctr, out);
                if encrypt {
                    g.update_padded(out);
                }
                rest = tail;
            }
            let mut blocks = [Block::<Sm4>::from(j0), Block::<Sm4>::from(ctr)];
            self.cipher.encrypt_blocks(&mut blocks);
            mask = blocks[0].into();
            if !encrypt {
                g.update_padded(last.get_in());
            }
            let out = last.into_out_with_copied_in();
            for (d, k) in out.iter_mut().zip(blocks[1].iter()) {
                *d ^= k;
            }
            if encrypt {
                g.update_padded(out);
            }
        }
        let mut len = [0u8; 16];
        len[..8].copy_from_slice(&(aad.len() as u64 * 8).to_be_bytes());
        len[8..].copy_from_slice(&(text_len as u64 * 8).to_be_bytes());
        g.update_padded(&len);
        let mut s = g.finalize();
        for (s, m) in s.iter_mut().zip(mask) {
            *s ^= m;
        }
        s
    }
}

impl<N, T> KeySizeUser for Sm4GcmCustom<N, T> {
    type KeySize = aead::consts::U16;
}

impl<N, T> KeyInit for Sm4GcmCustom<N, T> {
    fn new(key: &Key<Self>) -> Self {
        Self::from_cipher(Sm4::new(key))
    }
}

impl<N: ArraySize, T: GcmTagSize> AeadCore for Sm4GcmCustom<N, T> {
    type NonceSize = N;
    type TagSize = T;
    const TAG_POSITION: TagPosition = TagPosition::Postfix;
}

impl<N: ArraySize, T: GcmTagSize> AeadInOut for Sm4GcmCustom<N, T> {
    fn encrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> aead::Result<Tag<Self>> {
        Self::check(associated_data, buffer.len())?;
        let j0 = self.j0(nonce);
        let s = self.crypt(j0, associated_data, buffer, true);
        Array::try_from(&s[..T::USIZE]).map_err(|_| Error)
    }

    fn decrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &Tag<Self>,
    ) -> aead::Result<()> {
        Self::check(associated_data, buffer.len())?;
        let j0 = self.j0(nonce);
        let mut buffer = buffer;
        let s = self.crypt(j0, associated_data, buffer.reborrow(), false);
        if crate::ct::eq(&s[..T::USIZE], tag) {
            return Ok(());
        }
        // Wrong tag: the output must hold the ciphertext again. Separate buffers: copy the
        // input back; in place: apply the keystream again (counter mode is an involution).
        let (inp, out) = buffer.reborrow().into_raw();
        let in_place = core::ptr::eq(inp, out);
        let data = buffer.into_out_with_copied_in();
        if in_place {
            let mut ctr = j0;
            let mut mask = [0u8; 16];
            self.cipher.apply_ctr(CtrFlavor::Be32, &mut ctr, &mut mask);
            self.cipher.apply_ctr(CtrFlavor::Be32, &mut ctr, data);
        }
        Err(Error)
    }
}

impl<N, T> core::fmt::Debug for Sm4GcmCustom<N, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sm4Gcm")
            .field("backend", &self.cipher.backend())
            .finish_non_exhaustive()
    }
}
