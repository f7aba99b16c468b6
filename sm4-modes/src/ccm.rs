//! SM4-CCM (NIST SP 800-38C / RFC 3610 with SM4, RFC 8998).
//!
//! The CBC-MAC is serial: all whole blocks of a chunk go to `Sm4::cbc_chain` in one call (on
//! GFNI and AES-instruction engines a round shortened for latency, the round keys kept in
//! registers); the counter-mode part runs through `Sm4::apply_ctr` in 2 KiB chunks, each
//! chunk MACed and encrypted while it is in L1 (the counter blocks take about 4% of the
//! time: the MAC chain is the whole cost). Decryption decrypts and MACs chunk by chunk; if the tag
//! does not match, the keystream is applied again so the buffer holds the ciphertext it
//! started with, and [`aead::Error`] is returned.

use aead::{
    Error,
    array::ArraySize,
    consts::{U4, U6, U7, U8, U9, U10, U11, U12, U13, U14, U16},
    inout::InOutBuf,
};
use cipher::{Block, BlockCipherEncrypt};
use shangmi_dispatch::Available;
use shangmi_sm4::{CtrFlavor, Sm4};

use crate::ghash::GhashBackend;
use crate::sm4_aead::{Ccm, Mode, Sm4Aead};

const CHUNK: usize = 2048;

/// Tag lengths CCM allows: 4, 6, 8, 10, 12, 14 or 16 bytes (SP 800-38C §A.1).
pub trait CcmTagSize: ArraySize + sealed::Sealed {}
/// Nonce lengths CCM allows: 7 to 13 bytes (SP 800-38C §A.1).
pub trait CcmNonceSize: ArraySize + sealed::Sealed {}

mod sealed {
    pub trait Sealed {}
}

macro_rules! sizes {
    ($tr:ident: $($n:ident),*) => {
        $(impl sealed::Sealed for $n {} impl $tr for $n {})*
    };
}
sizes!(CcmTagSize: U4, U6, U8, U10, U12, U14, U16);
// U8, U10, U12 are both tag and nonce sizes: `Sealed` is implemented once above.
impl CcmNonceSize for U8 {}
impl CcmNonceSize for U10 {}
impl CcmNonceSize for U12 {}
sizes!(CcmNonceSize: U7, U9, U11, U13);

/// SM4-CCM with a 12-byte nonce and a 16-byte tag, as RFC 8998 (TLS 1.3
/// `TLS_SM4_CCM_SM3`) uses it.
///
/// ```
/// use shangmi_sm4_modes::Sm4Ccm;
/// use shangmi_sm4_modes::aead::{AeadInOut, KeyInit};
///
/// let ccm = Sm4Ccm::new(&[7u8; 16].into());
/// let nonce = [1u8; 12].into();
/// let mut buf = *b"attack at dawn";
/// let tag = ccm.encrypt_inout_detached(&nonce, b"header", (&mut buf[..]).into()).unwrap();
/// ccm.decrypt_inout_detached(&nonce, b"header", (&mut buf[..]).into(), &tag).unwrap();
/// assert_eq!(&buf, b"attack at dawn");
/// ```
pub type Sm4Ccm = Sm4CcmCustom<U12, U16>;

/// SM4-CCM with nonce length `N` (7..=13) and tag length `T` (4..=16, even); the message
/// may be up to 2^(8·(15 − N)) − 1 bytes long.
///
/// ```
/// use shangmi_sm4_modes::Sm4CcmCustom;
/// use shangmi_sm4_modes::aead::{AeadInOut, KeyInit, consts::{U8, U13}};
///
/// // IEEE 802.15.4 / Bluetooth style: 13-byte nonce, 8-byte tag.
/// let ccm = Sm4CcmCustom::<U13, U8>::new(&[7u8; 16].into());
/// let mut buf = [0u8; 20];
/// let tag = ccm.encrypt_inout_detached(&[3u8; 13].into(), b"", (&mut buf[..]).into()).unwrap();
/// assert_eq!(tag.len(), 8);
/// ```
pub type Sm4CcmCustom<N, T> = Sm4Aead<Ccm, N, T>;

/// A CBC-MAC over a stream of bytes, zero-padded at the points the caller chooses.
struct CbcMac<'a> {
    cipher: &'a Sm4,
    state: Block<Sm4>,
    fill: usize,
}

impl CbcMac<'_> {
    fn absorb(&mut self, mut data: &[u8]) {
        if self.fill > 0 {
            let n = data.len().min(16 - self.fill);
            for (s, d) in self.state[self.fill..].iter_mut().zip(&data[..n]) {
                *s ^= d;
            }
            self.fill += n;
            data = &data[n..];
            if self.fill < 16 {
                return;
            }
            self.cipher.encrypt_block(&mut self.state);
            self.fill = 0;
        }
        // Whole blocks: one engine call for the chain (round keys stay in registers).
        let (blocks, rest) = Block::<Sm4>::slice_as_chunks(data);
        self.cipher.cbc_chain(&mut self.state, blocks);
        for (s, d) in self.state.iter_mut().zip(rest) {
            *s ^= d;
        }
        self.fill = rest.len();
    }

    /// Zero-pads to a block boundary.
    fn pad(&mut self) {
        if self.fill > 0 {
            self.cipher.encrypt_block(&mut self.state);
            self.fill = 0;
        }
    }
}

/// The CCM formatting for nonce length `n` and tag length `t` (SP 800-38C §A.2, §A.3).
struct Format {
    /// Bytes of the nonce.
    n: usize,
    /// Bytes of the tag.
    t: usize,
}

impl Format {
    fn of<N: ArraySize, T: ArraySize>() -> Self {
        Format {
            n: N::USIZE,
            t: T::USIZE,
        }
    }

    /// Bytes of the length field (q in SP 800-38C).
    fn q(&self) -> usize {
        15 - self.n
    }

    fn check(&self, text: usize) -> aead::Result<()> {
        if self.q() < 8 && (text as u64) >> (8 * self.q()) != 0 {
            return Err(Error);
        }
        Ok(())
    }

    /// The counter block A_0 (SP 800-38C §A.3).
    fn a0(&self, nonce: &[u8]) -> [u8; 16] {
        let mut a = [0u8; 16];
        a[0] = (self.q() - 1) as u8;
        a[1..1 + self.n].copy_from_slice(nonce);
        a
    }

    fn first_counter(&self, nonce: &[u8]) -> [u8; 16] {
        let mut c = self.a0(nonce);
        c[15] = 1;
        c
    }

    /// The CBC-MAC state after B_0 and the formatted associated data (SP 800-38C §A.2).
    fn mac_start<'a>(&self, cipher: &'a Sm4, nonce: &[u8], aad: &[u8], text: usize) -> CbcMac<'a> {
        let q = self.q();
        let mut b0 = [0u8; 16];
        b0[0] =
            (u8::from(!aad.is_empty()) << 6) | ((((self.t - 2) / 2) as u8) << 3) | (q - 1) as u8;
        b0[1..1 + self.n].copy_from_slice(nonce);
        let len = (text as u64).to_be_bytes();
        b0[16 - q..].copy_from_slice(&len[8 - q..]);
        let mut mac = CbcMac {
            cipher,
            state: b0.into(),
            fill: 0,
        };
        cipher.encrypt_block(&mut mac.state);
        if !aad.is_empty() {
            let a = aad.len() as u64;
            if a < 0xff00 {
                mac.absorb(&(a as u16).to_be_bytes());
            } else if a <= u64::from(u32::MAX) {
                mac.absorb(&[0xff, 0xfe]);
                mac.absorb(&(a as u32).to_be_bytes());
            } else {
                mac.absorb(&[0xff, 0xff]);
                mac.absorb(&a.to_be_bytes());
            }
            mac.absorb(aad);
            mac.pad();
        }
        mac
    }

    /// The tag from the final MAC state: MAC ⊕ E(A_0) (truncated by the caller).
    fn tag(&self, cipher: &Sm4, mac: CbcMac<'_>, nonce: &[u8]) -> [u8; 16] {
        let mut mac = mac;
        mac.pad();
        let mut ctr = self.a0(nonce);
        let mut s0 = [0u8; 16];
        cipher.apply_ctr(CtrFlavor::Be128, &mut ctr, &mut s0);
        let mut t: [u8; 16] = mac.state.into();
        for (t, s) in t.iter_mut().zip(s0) {
            *t ^= s;
        }
        t
    }

    /// Encrypts (MAC, then counter mode, chunk by chunk) or decrypts (the other order)
    /// `data` in place and returns the untruncated tag.
    fn crypt(
        &self,
        cipher: &Sm4,
        nonce: &[u8],
        aad: &[u8],
        data: &mut [u8],
        encrypt: bool,
    ) -> [u8; 16] {
        let mut mac = self.mac_start(cipher, nonce, aad, data.len());
        let mut ctr = self.first_counter(nonce);
        for chunk in data.chunks_mut(CHUNK) {
            if encrypt {
                mac.absorb(chunk);
            }
            cipher.apply_ctr(CtrFlavor::Be128, &mut ctr, chunk);
            if !encrypt {
                mac.absorb(chunk);
            }
        }
        self.tag(cipher, mac, nonce)
    }
}

impl<N: CcmNonceSize, T: CcmTagSize> Mode<N, T> for Ccm {
    type Key = ();
    const NAME: &'static str = "Sm4Ccm";

    fn key(_: &Sm4, _: Available<GhashBackend>) {}

    fn seal(
        cipher: &Sm4,
        _: &(),
        nonce: &[u8],
        aad: &[u8],
        buf: InOutBuf<'_, '_, u8>,
    ) -> aead::Result<[u8; 16]> {
        let f = Format::of::<N, T>();
        f.check(buf.len())?;
        Ok(f.crypt(cipher, nonce, aad, buf.into_out_with_copied_in(), true))
    }

    fn open(
        cipher: &Sm4,
        _: &(),
        nonce: &[u8],
        aad: &[u8],
        buf: InOutBuf<'_, '_, u8>,
        tag: &[u8],
    ) -> aead::Result<()> {
        let f = Format::of::<N, T>();
        f.check(buf.len())?;
        let data = buf.into_out_with_copied_in();
        let t = f.crypt(cipher, nonce, aad, data, false);
        if crate::ct::eq(&t[..tag.len()], tag) {
            return Ok(());
        }
        // Wrong tag: put the ciphertext back.
        let mut ctr = f.first_counter(nonce);
        cipher.apply_ctr(CtrFlavor::Be128, &mut ctr, data);
        Err(Error)
    }
}
