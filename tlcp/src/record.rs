//! Record protection: SM4-CBC with explicit IV and HMAC-SM3 (MAC-then-encrypt, TLS 1.1
//! rules) and SM4-GCM with the 4-byte fixed ‖ 8-byte explicit nonce (TLS 1.2 rules), both
//! with the record version 0x0101 in the MAC/AAD.
//!
//! The CBC check ([`cbc_check`]) is constant time in the padding length (the Lucky13
//! attack): it scans the same bytes and runs the same number of SM3 compressions whatever
//! the padding byte says, and a bad padding and a bad MAC give the same error.
//!
//! The CBC seal of a plaintext of 64 bytes or more is stitched where the backends allow
//! (SM3 `avx512`, SM4 `gfni-avx512`; shorter records seal faster plain, `STITCH_FROM`):
//! the SM4 rounds of the chain that encrypts the plaintext's whole blocks run between the
//! groups of SM3 rounds of its MAC, so the scalar hash and the vector cipher share the
//! core's out-of-order window instead of taking turns (the idea of OpenSSL's stitched
//! AES-CBC-HMAC-SHA1/SHA256 for TLS; our code). SM3's kernel is the loop, the chain its
//! hook (`shangmi_sm3::hazmat::compress_hooked`, `shangmi_sm4::CbcSteps`): its eight words
//! stay in general registers, the chain's in vector registers. Zen 4 (family 25 model 17),
//! sealing one record in a loop against the MAC then the chain: 177 bytes 1.14x, 1 KiB
//! 1.28x, 16 KiB 1.31x (PERFORMANCE.md, session 49).

use crate::error::Error;
use crate::suites::CipherSuite;
use core::hint::black_box;
use shangmi_dispatch::ct::opaque_u32;
use shangmi_sm3::hazmat::{self, KeyedHmac, RoundsHook};
use shangmi_sm4_modes::aead::{AeadInOut, KeyInit};
use shangmi_sm4_modes::cipher::Block as CipherBlock;
use shangmi_sm4_modes::{CbcDecrypt, CbcEncrypt, Direction, Sm4, Sm4Gcm};

/// The TLCP protocol version, in record headers and hellos.
pub const VERSION: u16 = 0x0101;
/// Largest plaintext fragment (2^14).
pub const MAX_FRAGMENT: usize = 16384;
/// Largest protected fragment accepted (2^14 + 2048, RFC 5246 §6.2.3).
pub const MAX_CIPHERTEXT: usize = MAX_FRAGMENT + 2048;

const MAC_LEN: usize = 32;
/// The shortest plaintext sealed with the chain beside the MAC ([`mac_beside_chain`]).
/// Sealing one record in a loop (Zen 4, family 25 model 17, three alternated runs, best
/// of 15; against the MAC then the chain): 41 bytes 680–700 against 626–636 ns, 64 bytes
/// even, 96 bytes 1.06–1.08x, 128 bytes 1.08–1.11x, 177 bytes 1.14–1.15x, 1 KiB 1.28x,
/// 16 KiB 1.31x (PERFORMANCE.md, session 49).
const STITCH_FROM: usize = 64;
const BLOCK: usize = 16;
const GCM_EXPLICIT: usize = 8;
const GCM_TAG: usize = 16;

/// One direction's record protection.
pub struct RecordProtection {
    inner: Inner,
}

enum Inner {
    Cbc {
        /// SM4 with its round keys expanded once per connection (zeroized on drop).
        cipher: Box<Sm4>,
        /// HMAC-SM3 keyed once per connection (SM3's chaining values after the padded key's
        /// blocks): two SM3 compressions fewer per record. Zeroized on drop.
        mac: KeyedHmac,
        /// Whether records are sealed with the MAC's rounds between the chain's
        /// ([`mac_beside_chain`]): where SM3 runs on `avx512` and SM4 on `gfni-avx512`.
        stitch: bool,
    },
    Gcm {
        aead: Box<Sm4Gcm>,
        fixed_iv: [u8; 4],
    },
}

impl core::fmt::Debug for RecordProtection {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self.inner {
            Inner::Cbc { .. } => "RecordProtection(SM4-CBC-HMAC-SM3)",
            Inner::Gcm { .. } => "RecordProtection(SM4-GCM)",
        })
    }
}

fn mac_header(seq: u64, typ: u8, len: usize) -> [u8; 13] {
    let mut h = [0u8; 13];
    h[..8].copy_from_slice(&seq.to_be_bytes());
    h[8] = typ;
    h[9..11].copy_from_slice(&VERSION.to_be_bytes());
    h[11..].copy_from_slice(&(len as u16).to_be_bytes());
    h
}

impl RecordProtection {
    /// From the key-block parts for `suite`: `mac_key` 32 bytes (CBC) or empty (GCM),
    /// `key` 16 bytes, `iv` 16 bytes (CBC, unused: IVs are explicit) or 4 bytes (GCM).
    pub fn new(suite: CipherSuite, mac_key: &[u8], key: &[u8], iv: &[u8]) -> Result<Self, Error> {
        let key16: [u8; 16] = key.try_into().map_err(|_| Error::Config("key length"))?;
        let inner = if suite.is_gcm() {
            let fixed_iv: [u8; 4] = iv.try_into().map_err(|_| Error::Config("IV length"))?;
            let aead = <Sm4Gcm as KeyInit>::new_from_slice(&key16)
                .map_err(|_| Error::Config("key length"))?;
            Inner::Gcm {
                aead: Box::new(aead),
                fixed_iv,
            }
        } else {
            let mac_key: &[u8; 32] = mac_key
                .try_into()
                .map_err(|_| Error::Config("MAC key length"))?;
            let cipher = Box::new(Sm4::new(&key16.into()));
            let mac = KeyedHmac::new(mac_key);
            Inner::Cbc {
                stitch: cipher.backend() == shangmi_sm4::Backend::GfniAvx512
                    && hazmat::hooks_step_on(mac.backend()),
                cipher,
                mac,
            }
        };
        Ok(RecordProtection { inner })
    }

    /// Whether [`RecordProtection::seal`] needs a random explicit IV (CBC).
    pub fn needs_iv(&self) -> bool {
        matches!(self.inner, Inner::Cbc { .. })
    }

    /// The length of the protected fragment of a `plaintext_len`-byte plaintext (what
    /// [`seal_into`](Self::seal_into) writes).
    pub fn sealed_len(&self, plaintext_len: usize) -> usize {
        match self.inner {
            Inner::Cbc { .. } => {
                let body = plaintext_len + MAC_LEN;
                BLOCK + body + (BLOCK - body % BLOCK)
            }
            Inner::Gcm { .. } => GCM_EXPLICIT + plaintext_len + GCM_TAG,
        }
    }

    /// Protects `plaintext` (at most 2^14 bytes) as record number `seq` of content type
    /// `typ`. `explicit` is the CBC IV (16 random bytes; ignored for GCM, whose explicit
    /// nonce is the sequence number). [`seal_into`](Self::seal_into) does the same into a
    /// buffer of the caller's, refusing plaintexts beyond the record limit.
    pub fn seal(&self, seq: u64, typ: u8, plaintext: &[u8], explicit: &[u8; 16]) -> Vec<u8> {
        let mut out = vec![0u8; self.sealed_len(plaintext.len())];
        // Fails only beyond the record limit (documented: then nothing is returned).
        if self
            .seal_into(seq, typ, plaintext, explicit, &mut out)
            .is_err()
        {
            out.clear();
        }
        out
    }

    /// Protects `plaintext` into `out` (no allocation) and returns the fragment's length,
    /// [`sealed_len`](Self::sealed_len). Refused with [`Error::Config`] when `plaintext` is
    /// longer than [`MAX_FRAGMENT`] or `out` is too short (nothing is written then). The
    /// caller keeps the sequence numbers: each `seq` at most once per key, which
    /// [`crate::ClientConnection`] and [`crate::ServerConnection`] do, refusing to wrap
    /// ([`Error::SequenceExhausted`]).
    pub fn seal_into(
        &self,
        seq: u64,
        typ: u8,
        plaintext: &[u8],
        explicit: &[u8; 16],
        out: &mut [u8],
    ) -> Result<usize, Error> {
        if plaintext.len() > MAX_FRAGMENT {
            return Err(Error::Config("record plaintext longer than 2^14 bytes"));
        }
        let total = self.sealed_len(plaintext.len());
        let out = out
            .get_mut(..total)
            .ok_or(Error::Config("record buffer too short"))?;
        let at = self.plaintext_offset();
        out[at..at + plaintext.len()].copy_from_slice(plaintext);
        self.seal_in_place(seq, typ, out, plaintext.len(), explicit)?;
        Ok(total)
    }

    /// Where the plaintext goes in a protected fragment: after the explicit IV (CBC, 16
    /// bytes) or the explicit nonce (GCM, 8 bytes).
    pub fn plaintext_offset(&self) -> usize {
        match self.inner {
            Inner::Cbc { .. } => BLOCK,
            Inner::Gcm { .. } => GCM_EXPLICIT,
        }
    }

    /// Protects a record in place: `fragment` is [`sealed_len`](Self::sealed_len)`(len)`
    /// bytes with the `len`-byte plaintext at [`plaintext_offset`](Self::plaintext_offset)
    /// (what lies around it is overwritten). The record layer writes the plaintext straight
    /// into its outgoing buffer and seals it there: no copy of its own. Refused with
    /// [`Error::Config`] when `len` is beyond [`MAX_FRAGMENT`] or `fragment` has another
    /// length; sequence numbers as for [`seal_into`](Self::seal_into).
    pub fn seal_in_place(
        &self,
        seq: u64,
        typ: u8,
        fragment: &mut [u8],
        len: usize,
        explicit: &[u8; 16],
    ) -> Result<(), Error> {
        if len > MAX_FRAGMENT {
            return Err(Error::Config("record plaintext longer than 2^14 bytes"));
        }
        if fragment.len() != self.sealed_len(len) {
            return Err(Error::Config("record buffer length"));
        }
        let aad = mac_header(seq, typ, len);
        match &self.inner {
            Inner::Cbc {
                cipher,
                mac,
                stitch,
            } => {
                let (iv, body) = fragment.split_at_mut(BLOCK);
                iv.copy_from_slice(explicit);
                // The plaintext's whole blocks are encrypted beside the MAC where the
                // backends can (`mac_beside_chain`), the rest (and all of it elsewhere)
                // after it.
                let mut chain = *explicit;
                let (tag, done) = match *stitch && len >= STITCH_FROM {
                    true => (
                        mac_beside_chain(cipher, mac, &aad, body, len, &mut chain),
                        len / BLOCK * BLOCK,
                    ),
                    false => (mac.mac([aad.as_slice(), &body[..len]]), 0),
                };
                let (tag_at, pad) = body[len..].split_at_mut(MAC_LEN);
                tag_at.copy_from_slice(&tag);
                // PKCS-style padding: pad + 1 bytes, each holding pad.
                let pad_byte = (pad.len() - 1) as u8;
                pad.fill(pad_byte);
                cbc_in_place::<CbcEncrypt>(cipher, &chain, &mut body[done..]);
            }
            Inner::Gcm { aead, fixed_iv } => {
                let mut nonce = [0u8; 12];
                nonce[..4].copy_from_slice(fixed_iv);
                nonce[4..].copy_from_slice(&seq.to_be_bytes());
                let (head, rest) = fragment.split_at_mut(GCM_EXPLICIT);
                head.copy_from_slice(&seq.to_be_bytes());
                let (text, tag) = rest.split_at_mut(len);
                let t = aead
                    .encrypt_inout_detached(&nonce.into(), &aad, text.into())
                    .map_err(|_| Error::Crypto("GCM sealing"))?;
                tag.copy_from_slice(&t);
            }
        }
        Ok(())
    }

    /// Opens a protected fragment of record `seq` with content type `typ`, returning the
    /// plaintext. Every failure (length, padding, MAC, tag) is [`Error::DecryptError`].
    /// [`open_in_place`](Self::open_in_place) does the same without the copy.
    pub fn open(&self, seq: u64, typ: u8, fragment: &[u8]) -> Result<Vec<u8>, Error> {
        let mut data = fragment.to_vec();
        let range = self.open_in_place(seq, typ, &mut data)?;
        data.truncate(range.end);
        data.drain(..range.start);
        Ok(data)
    }

    /// Opens a protected fragment in place: decrypts it where it lies and returns where the
    /// plaintext is in it (after the explicit IV or nonce). Every failure is
    /// [`Error::DecryptError`], and the fragment's contents are then unspecified.
    pub fn open_in_place(
        &self,
        seq: u64,
        typ: u8,
        fragment: &mut [u8],
    ) -> Result<core::ops::Range<usize>, Error> {
        match &self.inner {
            Inner::Cbc { cipher, mac, .. } => {
                let n = fragment.len();
                if n < BLOCK + 48 || !n.is_multiple_of(BLOCK) {
                    return Err(Error::DecryptError);
                }
                let (iv, data) = fragment.split_at_mut(BLOCK);
                let iv: &[u8; 16] = (&*iv).try_into().map_err(|_| Error::DecryptError)?;
                cbc_in_place::<CbcDecrypt>(cipher, iv, data);
                let len = cbc_check_keyed(mac, seq, typ, data)?;
                Ok(BLOCK..BLOCK + len)
            }
            Inner::Gcm { aead, fixed_iv } => {
                if fragment.len() < GCM_EXPLICIT + GCM_TAG {
                    return Err(Error::DecryptError);
                }
                let mut nonce = [0u8; 12];
                nonce[..4].copy_from_slice(fixed_iv);
                nonce[4..].copy_from_slice(&fragment[..GCM_EXPLICIT]);
                let text_len = fragment.len() - GCM_EXPLICIT - GCM_TAG;
                let (data, tag) = fragment[GCM_EXPLICIT..].split_at_mut(text_len);
                let tag: [u8; 16] = (&*tag).try_into().map_err(|_| Error::DecryptError)?;
                let aad = mac_header(seq, typ, text_len);
                aead.decrypt_inout_detached(&nonce.into(), &aad, data.into(), &tag.into())
                    .map_err(|_| Error::DecryptError)?;
                Ok(GCM_EXPLICIT..GCM_EXPLICIT + text_len)
            }
        }
    }
}

/// The MAC of the record with header `aad` and the `len`-byte plaintext at the start of
/// `body`, with the plaintext's whole blocks encrypted (CBC from `chain`, which moves on)
/// in place meanwhile: the chain's steps of four rounds run between SM3's groups of four
/// rounds, spread evenly over them ([`Pace`]), inner hash and outer block alike. SM3's
/// rounds are scalar and keep the general-purpose ALUs busy while the serial chain waits
/// on the vector units, so the two overlap in one out-of-order window instead of taking
/// turns; with SM3's kernel as the loop, its eight words stay in their registers and the
/// chain's in vector registers. The backends must step (`stitch`: SM3 `avx512`, SM4
/// `gfni-avx512`); elsewhere the result is the same, the chain running after the MAC.
/// `len` is public (it is the record's), so the spread is too.
fn mac_beside_chain(
    cipher: &Sm4,
    mac: &KeyedHmac,
    aad: &[u8; 13],
    body: &mut [u8],
    len: usize,
    chain: &mut [u8; 16],
) -> [u8; MAC_LEN] {
    // The inner hash's input after the key's block, SM3-padded to whole blocks: the
    // header, the plaintext (a copy, which the chain reads too, as it writes over the
    // plaintext in `body`), 0x80, zeros, the length in bits of key block and message. On
    // the stack for short records, whose seal an allocation would cost a tenth of.
    let m = 13 + len;
    let n = (m + 8) / 64 + 1;
    let mut small = [0u8; SMALL_MSG];
    let mut large = Vec::new();
    let msg = match small.get_mut(..64 * n) {
        Some(msg) => msg,
        None => {
            large.resize(64 * n, 0);
            &mut large[..]
        }
    };
    msg[..13].copy_from_slice(aad);
    msg[13..m].copy_from_slice(&body[..len]);
    msg[m] = 0x80;
    msg[64 * n - 8..].copy_from_slice(&(8 * (64 + m) as u64).to_be_bytes());
    let whole = len / BLOCK;
    let (blocks, _) = msg.as_chunks::<64>();
    let (input, _) = CipherBlock::<Sm4>::slice_as_chunks(&msg[13..13 + BLOCK * whole]);
    let (out, _) = CipherBlock::<Sm4>::slice_as_chunks_mut(&mut body[..BLOCK * whole]);
    let (steps, at) = cipher.cbc_steps((*chain).into(), input, out);
    // Eight chain steps a block over sixteen SM3 groups a block, the outer one's too.
    let mut pace = Pace {
        steps,
        chain_steps: 8 * whole,
        groups: 16 * (n + 1),
    };
    let mut at = (at, 0);
    let tag = mac.tag_hooked(blocks, &mut pace, &mut at);
    *chain = pace.steps.finish(at.0).into();
    tag
}

/// Plaintexts up to this many bytes of SM3 input (header, plaintext, padding) are copied
/// for the MAC into a stack buffer, longer ones into an allocation.
const SMALL_MSG: usize = 1024;

/// The chain's steps as SM3's hook: `chain_steps` spread over `groups` SM3 groups, floor or
/// ceiling of their ratio at each (an accumulator in the state, beside where the chain
/// stands, so they end together); what is left when the MAC is done runs in
/// `CbcSteps::finish`.
struct Pace<'a> {
    steps: shangmi_sm4::CbcSteps<'a>,
    chain_steps: usize,
    groups: usize,
}

impl RoundsHook for Pace<'_> {
    type State = (shangmi_sm4::CbcAt, usize);
    #[inline(always)]
    fn step(&mut self, (at, acc): &mut Self::State) {
        *acc += self.chain_steps;
        while *acc >= self.groups {
            *acc -= self.groups;
            self.steps.step(at);
        }
    }
}

/// SM4-CBC (NIST SP 800-38A §6.2) over the whole blocks of `data` in place from `iv`,
/// with the connection's cipher borrowed: sm4-modes' own CBC ([`Direction::run`] of
/// [`CbcEncrypt`] or [`CbcDecrypt`]), not the `cipher`-trait mode objects (`Sm4CbcEnc`,
/// `Sm4CbcDec`), which own their cipher and so cost every record a copy of both round-key
/// sets and its zeroization. A trailing partial block is left as it is.
fn cbc_in_place<D: Direction>(cipher: &Sm4, iv: &[u8; 16], data: &mut [u8]) {
    let (blocks, _) = CipherBlock::<Sm4>::slice_as_chunks_mut(data);
    D::run(cipher, &mut (*iv).into(), blocks.into());
}

/// All ones when `a < b` (both below 2^31), else zero; through an optimisation barrier.
#[inline(always)]
fn ct_lt(a: u32, b: u32) -> u32 {
    opaque_u32(0u32.wrapping_sub(a.wrapping_sub(b) >> 31))
}

#[inline(always)]
fn ct_eq(a: u32, b: u32) -> u32 {
    !(ct_lt(a, b) | ct_lt(b, a))
}

/// SM3 compression calls to hash `m` bytes (one 0x80 byte and the 8-byte length appended).
#[inline(always)]
fn compressions(m: u32) -> u32 {
    (m + 8) / 64 + 1
}

/// SM3 blocks of zeros for the check's dummy compressions (at most 4 run).
static ZERO_BLOCKS: [[u8; 64]; 5] = [[0; 64]; 5];

/// Where a MAC starting at `plen` begins relative to a chunk at `base` (plen − base),
/// clamped to [−32, 32] as a byte (two's complement), without a branch on `plen`: a byte
/// t ∈ [0, 32) of the chunk is the MAC's exactly when t − d ∈ [0, 32), before and after
/// the clamp. Both arguments are below 2^15.
#[inline(always)]
fn mac_start_in_chunk(plen: u32, base: u32) -> u8 {
    // plen − base + 2^16, in (2^15, 3 · 2^15): compared unsigned below 2^31.
    let x = (plen + (1 << 16)).wrapping_sub(base);
    let below = ct_lt(x, (1 << 16) - MAC_LEN as u32);
    let above = ct_lt((1 << 16) + MAC_LEN as u32, x);
    let d = x.wrapping_sub(1 << 16);
    let d = (below & (MAC_LEN as u32).wrapping_neg())
        | (above & MAC_LEN as u32)
        | (!(below | above) & d);
    d as u8
}

/// 32 bytes as four little-endian words (byte t in word t / 8).
#[inline(always)]
fn le_words(bytes: &[u8; MAC_LEN]) -> [u64; 4] {
    core::array::from_fn(|i| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&bytes[8 * i..8 * i + 8]);
        u64::from_le_bytes(w)
    })
}

/// The 32 bytes of `w` (as [`le_words`] lays them out) rotated down by `by` bytes (a
/// constant of the caller's): byte t of the result is byte (t + by) mod 32 of `w`.
#[inline(always)]
fn rotate_down(w: &[u64; 4], by: usize) -> [u64; 4] {
    let (q, s) = (by / 8, 8 * (by % 8));
    core::array::from_fn(|i| {
        let low = w[(i + q) % 4];
        if s == 0 {
            low
        } else {
            (low >> s) | (w[(i + q + 1) % 4] << (64 - s))
        }
    })
}

/// Checks a decrypted CBC record body `data` (fragment without the explicit IV:
/// plaintext ‖ MAC(32) ‖ padding ‖ padding length) of record `seq` and type `typ`, returning
/// the plaintext length.
///
/// Constant time in the padding length and the plaintext length (the Lucky13
/// countermeasure): the padding scan always reads the last 256 bytes (or all of them), the
/// MAC is extracted by scanning every position it could start at, and after the HMAC of
/// the real plaintext dummy SM3 compressions run so that their number is the same as for
/// the longest possible plaintext. Bad padding and a bad MAC give the same
/// [`Error::DecryptError`] (bad_record_mac). Only the public length of `data` may change
/// the running time.
pub fn cbc_check(mac_key: &[u8; 32], seq: u64, typ: u8, data: &[u8]) -> Result<usize, Error> {
    cbc_check_keyed(&KeyedHmac::new(mac_key), seq, typ, data)
}

/// [`cbc_check`] with the HMAC already keyed (cloned, not changed).
fn cbc_check_keyed(mac: &KeyedHmac, seq: u64, typ: u8, data: &[u8]) -> Result<usize, Error> {
    let n = data.len();
    if n < 48 || !n.is_multiple_of(BLOCK) || n > MAX_CIPHERTEXT {
        return Err(Error::DecryptError);
    }
    let n32 = n as u32;
    let pad = data[n - 1] as u32;
    // The padding, its length byte and the MAC must fit.
    let mut good = ct_lt(pad + MAC_LEN as u32, n32);
    // The padding scan over the last min(255, n − 1) bytes before the length byte: every
    // byte at distance i ≤ pad from it must equal pad. Masks in plain arithmetic on 16-bit
    // lanes (i and pad are below 256, so pad − i has its sign in bit 15), ORed into one
    // accumulator (the compiler vectorises it eight bytes to a register: no branch, no
    // per-byte barrier).
    let scan = core::cmp::min(255, n - 1);
    let pad16 = pad as u16;
    let mut bad = 0u16;
    for (k, &b) in data[n - 1 - scan..n - 1].iter().enumerate() {
        let i = (scan - k) as u16;
        // pad − i wraps (top bit set) exactly when i > pad: then the mask is zero.
        let in_pad = (pad16.wrapping_sub(i) >> 15).wrapping_sub(1);
        bad |= (u16::from(b) ^ pad16) & in_pad;
    }
    good &= ct_eq(opaque_u32(u32::from(bad)), 0);
    // Plaintext length: as if there were no padding when the padding is bad.
    let max_len = n32 - MAC_LEN as u32 - 1;
    let plen = (good & max_len.wrapping_sub(pad)) | (!good & max_len);

    // HMAC over the real length, then dummy compressions so that the total is
    // compressions(64 + 13 + max) whatever plen is. The keyed state has the ipad and opad
    // blocks done already, so the HMAC itself runs compressions(64 + 13 + plen) − 1 for
    // the inner hash and 1 for the outer: c_real. The dummy runs exactly k = c_max − c_real
    // more, on the block-level state (no padding block of its own).
    let expected = mac.mac([
        mac_header(seq, typ, plen as usize).as_slice(),
        &data[..plen as usize],
    ]);
    let c_max = compressions(64 + 13 + max_len);
    let c_real = compressions(64 + 13 + plen);
    let k = c_max - c_real;
    // At most 4 (plen ≥ max_len − 255); the bound only keeps the slice in range.
    let mut dummy = hazmat::IV;
    let dummies = &ZERO_BLOCKS[..(k as usize).min(ZERO_BLOCKS.len())];
    // The keyed MAC's backend is available (it ran the MAC above).
    let _ = hazmat::compress(mac.backend(), &mut dummy, dummies);
    black_box(dummy);

    // Extract the received MAC at offset plen without a secret index: every byte it
    // could lie on (from the lowest possible start to the padding's end) is ORed, masked
    // to [plen, plen + 32), into lane (position − lo) mod 32, so lane t holds MAC byte
    // (t − r) mod 32 with r = (plen − lo) mod 32; five masked rotations by 1, 2, 4, 8, 16
    // bytes then rotate the lanes by r. Per 32-byte chunk the MAC's start relative to the
    // chunk, d, is clamped to [−32, 32] (which keeps every byte's verdict), so a byte's
    // test t − d ∈ [0, 32) runs on 8-bit lanes, vectorised 16 bytes to a register.
    let lo = (max_len as usize).saturating_sub(255);
    let plen_o = opaque_u32(plen);
    let mut lanes = [0u8; MAC_LEN];
    for (c, chunk) in data[lo..n - 1].chunks(MAC_LEN).enumerate() {
        let d = mac_start_in_chunk(plen_o, (lo + c * MAC_LEN) as u32);
        for (t, (l, &b)) in lanes.iter_mut().zip(chunk).enumerate() {
            // x = t − d as a byte: below 32 exactly when the byte is the MAC's (t − d
            // in [−32, 63]: negative ones wrap to 224 and above).
            let x = (t as u8).wrapping_sub(d) & 0xe0;
            // All ones when x is zero: x | −x has its top bit set exactly when x ≠ 0.
            let inside = !((((x | x.wrapping_neg()) as i8) >> 7) as u8);
            *l |= b & inside;
        }
    }
    // The lanes as four little-endian words (byte t in word t / 8), rotated down by r
    // bytes in five masked steps, then compared with the expected MAC word by word.
    let mut words = le_words(&lanes);
    let r = plen_o.wrapping_sub(lo as u32) % MAC_LEN as u32;
    for bit in 0..5 {
        let m = u64::from(opaque_u32(((r >> bit) & 1).wrapping_neg()));
        let m = m | (m << 32);
        let rotated = rotate_down(&words, 1 << bit);
        for (w, rot) in words.iter_mut().zip(rotated) {
            *w = (rot & m) | (*w & !m);
        }
    }
    let expected = le_words(&expected);
    let diff = words
        .iter()
        .zip(expected)
        .fold(0u64, |acc, (a, b)| acc | (a ^ b));
    // Folded to 16 bits (every set bit lands in the low half): zero exactly when diff is.
    let diff = diff | (diff >> 32);
    let diff = (diff as u32 | (diff as u32 >> 16)) & 0xffff;
    good &= ct_eq(diff, 0);
    if opaque_u32(good) == u32::MAX {
        Ok(plen as usize)
    } else {
        Err(Error::DecryptError)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cbc_pair(suite: CipherSuite) -> RecordProtection {
        RecordProtection::new(suite, &[7u8; 32], &[9u8; 16], &[1u8; 16]).expect("keys")
    }

    #[test]
    fn cbc_round_trip_every_length() {
        let p = cbc_pair(CipherSuite::EccSm4CbcSm3);
        for len in [0usize, 1, 15, 16, 17, 31, 32, 33, 100, 1000, MAX_FRAGMENT] {
            let msg: Vec<u8> = (0..len).map(|i| i as u8).collect();
            let rec = p.seal(5, 23, &msg, &[3u8; 16]);
            assert_eq!(rec.len() % 16, 0);
            assert_eq!(p.open(5, 23, &rec).expect("opens"), msg);
            // wrong sequence number, wrong type
            assert_eq!(p.open(6, 23, &rec), Err(Error::DecryptError));
            assert_eq!(p.open(5, 22, &rec), Err(Error::DecryptError));
            // a flipped bit anywhere
            for pos in [0, rec.len() / 2, rec.len() - 1] {
                let mut bad = rec.clone();
                bad[pos] ^= 1;
                assert_eq!(p.open(5, 23, &bad), Err(Error::DecryptError));
            }
        }
    }

    /// The seal that runs the chain beside the MAC (`mac_beside_chain`, where the backends
    /// step, from [`STITCH_FROM`] bytes) writes the same fragment as the MAC-then-chain
    /// seal, for every length around the threshold and the block and SM3-block boundaries
    /// below 200 bytes and up to the record limit, and its tag is the textbook HMAC-SM3
    /// (RFC 2104) of header and plaintext; `mac_beside_chain` itself gives the same tag and
    /// whole blocks as the plain seal at every length, and on a machine with both backends
    /// the stitched path is the one taken.
    #[test]
    fn stitched_seal_equals_plain_seal() {
        let key = [7u8; 32];
        let stitched = cbc_pair(CipherSuite::EccSm4CbcSm3);
        let mut plain = cbc_pair(CipherSuite::EccSm4CbcSm3);
        let Inner::Cbc { cipher, stitch, .. } = &mut plain.inner else {
            panic!("a CBC suite");
        };
        let both = cipher.backend() == shangmi_sm4::Backend::GfniAvx512
            && shangmi_sm3::backend() == shangmi_sm3::Backend::Avx512;
        assert_eq!(*stitch, both, "stitched exactly where both backends run");
        *stitch = false;
        let lens = (0..200).chain([1000, 4096 + 7, MAX_FRAGMENT - 1, MAX_FRAGMENT]);
        for len in lens {
            let msg: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
            let rec = stitched.seal(9, 23, &msg, &[5u8; 16]);
            let want = plain.seal(9, 23, &msg, &[5u8; 16]);
            assert_eq!(rec, want, "length {len}");
            // The body decrypted with the cipher alone: plaintext, then the textbook MAC.
            let mut body = rec[BLOCK..].to_vec();
            let Inner::Cbc { cipher, mac, .. } = &stitched.inner else {
                panic!("a CBC suite");
            };
            cbc_in_place::<CbcDecrypt>(cipher, &[5u8; 16], &mut body);
            assert_eq!(&body[..len], &msg[..]);
            let textbook = crate::prf::hmac_sm3(&key, &[&mac_header(9, 23, len), &msg]);
            assert_eq!(&body[len..len + MAC_LEN], &textbook[..], "length {len}");
            // The stitched MAC and whole blocks alone, at every length and on every
            // machine (where the backends do not step, the chain runs after the MAC).
            let mut body = msg.clone();
            let mut chain = [5u8; 16];
            let aad = mac_header(9, 23, len);
            let tag = mac_beside_chain(cipher, mac, &aad, &mut body, len, &mut chain);
            assert_eq!(tag[..], textbook[..], "stitched tag, length {len}");
            let whole = len / BLOCK * BLOCK;
            assert_eq!(body[..whole], want[BLOCK..BLOCK + whole], "length {len}");
            let next = match whole {
                0 => [5u8; 16],
                _ => want[whole..BLOCK + whole].try_into().expect("16 bytes"),
            };
            assert_eq!(chain, next, "the chain's state, length {len}");
        }
    }

    /// Builds a decrypted record body with a chosen padding and checks cbc_check accepts the
    /// right one and refuses a wrong padding byte with the same error as a wrong MAC.
    #[test]
    fn cbc_check_padding_and_mac() {
        let key = [7u8; 32];
        let msg = b"attack at dawn";
        for pad in [0usize, 1, 2, 17, 255] {
            let mac = crate::prf::hmac_sm3(&key, &[&mac_header(1, 23, msg.len()), msg]);
            let mut body = msg.to_vec();
            body.extend_from_slice(&mac);
            // pad so that the total is a block multiple
            let mut p = pad;
            while !(body.len() + p + 1).is_multiple_of(16) {
                p += 1;
            }
            if p > 255 {
                continue;
            }
            body.resize(body.len() + p + 1, p as u8);
            assert_eq!(cbc_check(&key, 1, 23, &body), Ok(msg.len()), "pad {p}");
            if p > 0 {
                let mut bad = body.clone();
                let at = bad.len() - 2;
                bad[at] ^= 0x40;
                assert_eq!(cbc_check(&key, 1, 23, &bad), Err(Error::DecryptError));
            }
            let mut bad_mac = body.clone();
            bad_mac[msg.len()] ^= 1;
            assert_eq!(cbc_check(&key, 1, 23, &bad_mac), Err(Error::DecryptError));
        }
    }

    /// The vectorised check against the textbook one (read the padding byte, check the
    /// padding, compare the MAC where it says) on every padding length 0..=255 of bodies
    /// from 48 to 336 bytes (past 288 the MAC scan starts after byte 0): well formed, one
    /// padding byte or one MAC byte changed (each MAC byte in turn), and a padding byte too
    /// long for the body. Every offset of the MAC modulo 32 occurs, so every rotation.
    #[test]
    fn cbc_check_agrees_with_textbook_check() {
        let key = [0x3cu8; 32];
        let textbook = |body: &[u8]| -> Result<usize, Error> {
            let n = body.len();
            let pad = usize::from(body[n - 1]);
            if pad + 1 + MAC_LEN > n || body[n - 1 - pad..].iter().any(|&b| usize::from(b) != pad) {
                return Err(Error::DecryptError);
            }
            let plen = n - 1 - pad - MAC_LEN;
            let mac = crate::prf::hmac_sm3(&key, &[&mac_header(4, 23, plen), &body[..plen]]);
            if body[plen..plen + MAC_LEN] == mac[..] {
                Ok(plen)
            } else {
                Err(Error::DecryptError)
            }
        };
        for n in (48..=336).step_by(16) {
            for pad in 0..=255usize {
                let mut body: Vec<u8> = (0..n).map(|i| (i * 31 + pad) as u8).collect();
                body[n - 1] = pad as u8;
                if pad + 1 + MAC_LEN <= n {
                    let plen = n - 1 - pad - MAC_LEN;
                    body[plen + MAC_LEN..].fill(pad as u8);
                    let mac =
                        crate::prf::hmac_sm3(&key, &[&mac_header(4, 23, plen), &body[..plen]]);
                    body[plen..plen + MAC_LEN].copy_from_slice(&mac);
                    assert_eq!(cbc_check(&key, 4, 23, &body), Ok(plen), "n {n} pad {pad}");
                    let mut bad = body.clone();
                    bad[plen + (pad % MAC_LEN)] ^= 0x80;
                    assert_eq!(cbc_check(&key, 4, 23, &bad), Err(Error::DecryptError));
                    if pad > 0 {
                        let mut bad = body.clone();
                        bad[n - 1 - pad] ^= 1;
                        assert_eq!(cbc_check(&key, 4, 23, &bad), Err(Error::DecryptError));
                    }
                }
                assert_eq!(
                    cbc_check(&key, 4, 23, &body),
                    textbook(&body),
                    "n {n} pad {pad}"
                );
            }
        }
    }

    /// `seal_into` writes exactly what `seal` returns, refuses a short buffer or an
    /// oversized plaintext without writing, and `sealed_len` is the length it writes.
    #[test]
    fn seal_into_matches_seal() {
        let gcm = RecordProtection::new(CipherSuite::EccSm4GcmSm3, &[], &[9u8; 16], &[1u8; 4])
            .expect("keys");
        let cbc = cbc_pair(CipherSuite::EccSm4CbcSm3);
        let mut buf = vec![0xEEu8; MAX_CIPHERTEXT];
        for p in [&gcm, &cbc] {
            for len in [0usize, 1, 15, 16, 47, 48, 1000, MAX_FRAGMENT] {
                let msg: Vec<u8> = (0..len).map(|i| (i * 7) as u8).collect();
                let n = p
                    .seal_into(3, 23, &msg, &[5u8; 16], &mut buf)
                    .expect("fits");
                assert_eq!(n, p.sealed_len(len));
                assert_eq!(&buf[..n], &p.seal(3, 23, &msg, &[5u8; 16])[..]);
                let mut short = vec![0u8; n - 1];
                assert_eq!(
                    p.seal_into(3, 23, &msg, &[5u8; 16], &mut short),
                    Err(Error::Config("record buffer too short"))
                );
                assert!(short.iter().all(|&b| b == 0));
                // And it opens in place.
                let range = p.open_in_place(3, 23, &mut buf[..n]).expect("opens");
                assert_eq!(&buf[range], &msg[..]);
            }
            let big = vec![0u8; MAX_FRAGMENT + 1];
            assert!(p.seal_into(0, 23, &big, &[0; 16], &mut buf).is_err());
        }
    }

    #[test]
    fn gcm_round_trip_and_tamper() {
        let p = RecordProtection::new(CipherSuite::EccSm4GcmSm3, &[], &[9u8; 16], &[1u8; 4])
            .expect("keys");
        for len in [0usize, 1, 16, 1000, MAX_FRAGMENT] {
            let msg = vec![0xA5u8; len];
            let rec = p.seal(9, 23, &msg, &[0; 16]);
            assert_eq!(rec.len(), len + 24);
            assert_eq!(&rec[..8], &9u64.to_be_bytes());
            assert_eq!(p.open(9, 23, &rec).expect("opens"), msg);
            assert_eq!(p.open(10, 23, &rec), Err(Error::DecryptError));
            let mut bad = rec.clone();
            bad[rec.len() - 1] ^= 1;
            assert_eq!(p.open(9, 23, &bad), Err(Error::DecryptError));
        }
    }

    /// The GCM record equals SM4-GCM of the plaintext under nonce fixed ‖ seq with the TLS 1.2
    /// AAD, computed independently with the sm4-modes AEAD API.
    #[test]
    fn gcm_layout_matches_direct_aead() {
        let p = RecordProtection::new(CipherSuite::EccSm4GcmSm3, &[], &[9u8; 16], &[1, 2, 3, 4])
            .expect("keys");
        let rec = p.seal(0x0102, 22, b"hello", &[0; 16]);
        let aead = <Sm4Gcm as KeyInit>::new_from_slice(&[9u8; 16]).expect("key");
        let nonce = [1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 1, 2];
        let aad = [0, 0, 0, 0, 0, 0, 1, 2, 22, 1, 1, 0, 5];
        let mut ct = b"hello".to_vec();
        let tag = aead
            .encrypt_inout_detached(&nonce.into(), &aad, (&mut ct[..]).into())
            .expect("seal");
        ct.extend_from_slice(&tag);
        assert_eq!(&rec[8..], &ct[..]);
    }
}
