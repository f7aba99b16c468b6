//! Many messages at once for the serial modes: CBC encryption and CMAC over independent
//! messages under one key, block i of every message in one engine call.
//!
//! CBC encryption and CMAC are chains: each block waits for the one before it, so one
//! message runs at the cipher's latency, not its throughput. Independent messages have no
//! such order between them. Here every message runs in a lane; each step gathers the next
//! block of every busy lane (XORed with that lane's chain state) and hands them all to the
//! engine's parallel path ([`BlockCipherEncrypt::encrypt_blocks`], the ECB width: 64
//! blocks per pass on `gfni-avx512`, 32 on the AVX2 engines), so the chains' latencies
//! overlap, as [`shangmi_sm3`'s `digest_many`] does for SM3 in SIMD lanes.
//!
//! The scheduler keeps up to [`LANES`] messages in flight; a lane whose message ends takes
//! the next message at once, so messages of any lengths mix. When a single message is left
//! it finishes on SM4's CBC chain ([`Sm4::cbc_chain_into`], the engines' short chain
//! round). Everything lives on the stack (about 3 KiB): no allocation, `no_std`.
//!
//! The schedule depends only on the messages' lengths and count, never on their contents
//! or the key.
//!
//! [`shangmi_sm3`'s `digest_many`]: https://docs.rs/shangmi-sm3

use core::fmt;

use cipher::{Block, BlockCipherEncrypt};
use shangmi_sm4::Sm4;

/// Messages in flight at once (the widest engine's pass).
pub const LANES: usize = 64;

/// Why a batch was refused. Every check runs before any output is written, so a refused
/// batch leaves the outputs as they were.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ManyError {
    /// The slices of messages, IVs and outputs (or tags) differ in count.
    CountMismatch,
    /// Message `index` is not a whole number of 16-byte blocks (CBC has no padding here).
    NotBlockMultiple {
        /// The message's position in the batch.
        index: usize,
    },
    /// Output `index` is not as long as its message.
    OutputLength {
        /// The message's position in the batch.
        index: usize,
    },
}

impl fmt::Display for ManyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ManyError::CountMismatch => {
                f.write_str("the batch's messages, IVs and outputs differ in count")
            }
            ManyError::NotBlockMultiple { index } => {
                write!(f, "message {index} is not a multiple of 16 bytes")
            }
            ManyError::OutputLength { index } => {
                write!(f, "output {index} is not as long as its message")
            }
        }
    }
}

impl core::error::Error for ManyError {}

/// SM4-CBC encryption (NIST SP 800-38A, GB/T 17964; no padding) of `msgs[i]` under
/// `ivs[i]` into `out[i]`, for every i, all under `cipher`'s key — as many messages at a
/// time as there are [`LANES`], block i of each in one engine call.
///
/// Each output equals [`Sm4CbcEnc`](crate::Sm4CbcEnc) over its message alone. Messages may
/// have different lengths (empty ones too), each a multiple of 16 bytes.
///
/// # Errors
/// [`ManyError::CountMismatch`] unless `ivs`, `msgs` and `out` have the same length;
/// [`ManyError::NotBlockMultiple`] for a message that is not whole blocks;
/// [`ManyError::OutputLength`] for an output that is not its message's length. Nothing is
/// written then.
///
/// ```
/// use shangmi_sm4_modes::{Sm4, Sm4CbcEnc, cbc_encrypt_many};
/// use shangmi_sm4_modes::cipher::{BlockModeEncrypt, KeyInit, KeyIvInit, block_padding::NoPadding};
///
/// let key = [7u8; 16];
/// let cipher = Sm4::new(&key.into());
/// let msgs: [&[u8]; 3] = [&[1u8; 64], &[], &[3u8; 1024]];
/// let ivs = [[9u8; 16], [8u8; 16], [7u8; 16]];
/// let (mut a, mut b, mut c) = ([0u8; 64], [0u8; 0], [0u8; 1024]);
/// let mut out: [&mut [u8]; 3] = [&mut a, &mut b, &mut c];
/// cbc_encrypt_many(&cipher, &ivs, &msgs, &mut out)?;
///
/// let mut check = [3u8; 1024];
/// Sm4CbcEnc::new(&key.into(), &ivs[2].into())
///     .encrypt_padded::<NoPadding>(&mut check, 1024)
///     .expect("whole blocks");
/// assert_eq!(out[2], &check[..]);
/// # Ok::<(), shangmi_sm4_modes::ManyError>(())
/// ```
pub fn cbc_encrypt_many(
    cipher: &Sm4,
    ivs: &[[u8; 16]],
    msgs: &[&[u8]],
    out: &mut [&mut [u8]],
) -> Result<(), ManyError> {
    if ivs.len() != msgs.len() || out.len() != msgs.len() {
        return Err(ManyError::CountMismatch);
    }
    for (index, (m, o)) in msgs.iter().zip(out.iter()).enumerate() {
        if !m.len().is_multiple_of(16) {
            return Err(ManyError::NotBlockMultiple { index });
        }
        if o.len() != m.len() {
            return Err(ManyError::OutputLength { index });
        }
    }
    run(cipher, &mut CbcApart { ivs, msgs, out });
    Ok(())
}

/// [`cbc_encrypt_many`] in place: `bufs[i]` (whole blocks) is encrypted under `ivs[i]`.
///
/// # Errors
/// [`ManyError::CountMismatch`] unless `ivs` and `bufs` have the same length;
/// [`ManyError::NotBlockMultiple`] for a buffer that is not whole blocks. Nothing is
/// changed then.
///
/// ```
/// use shangmi_sm4_modes::{Sm4, cbc_encrypt_many, cbc_encrypt_many_in_place};
/// use shangmi_sm4_modes::cipher::KeyInit;
///
/// let cipher = Sm4::new(&[7u8; 16].into());
/// let ivs = [[1u8; 16], [2u8; 16]];
/// let (mut a, mut b) = ([5u8; 48], [6u8; 32]);
/// let mut bufs: [&mut [u8]; 2] = [&mut a, &mut b];
/// cbc_encrypt_many_in_place(&cipher, &ivs, &mut bufs)?;
///
/// let (mut x, mut y) = ([0u8; 48], [0u8; 32]);
/// let mut out: [&mut [u8]; 2] = [&mut x, &mut y];
/// cbc_encrypt_many(&cipher, &ivs, &[&[5u8; 48], &[6u8; 32]], &mut out)?;
/// assert_eq!(bufs, out);
/// # Ok::<(), shangmi_sm4_modes::ManyError>(())
/// ```
pub fn cbc_encrypt_many_in_place(
    cipher: &Sm4,
    ivs: &[[u8; 16]],
    bufs: &mut [&mut [u8]],
) -> Result<(), ManyError> {
    if ivs.len() != bufs.len() {
        return Err(ManyError::CountMismatch);
    }
    if let Some(index) = bufs.iter().position(|b| !b.len().is_multiple_of(16)) {
        return Err(ManyError::NotBlockMultiple { index });
    }
    run(cipher, &mut CbcInPlace { ivs, bufs });
    Ok(())
}

/// SM4-CMAC (NIST SP 800-38B, GB/T 15852.1 MAC algorithm 5) of every message of `msgs`
/// into the same index of `tags`, under `cipher`'s key — as many messages at a time as
/// there are [`LANES`], block i of each in one engine call. Messages may have any lengths.
///
/// Each tag equals [`Sm4Cmac`](crate::Sm4Cmac) over its message alone. To check tags,
/// compare them in constant time (e.g. `subtle`), as `Mac::verify` does.
///
/// # Errors
/// [`ManyError::CountMismatch`] unless `msgs` and `tags` have the same length (nothing is
/// written then).
///
/// ```
/// use shangmi_sm4_modes::{Sm4, Sm4Cmac, cmac_many};
/// use shangmi_sm4_modes::cipher::KeyInit;
/// use shangmi_sm4_modes::cmac::digest::Mac;
///
/// let key = [7u8; 16];
/// let msgs: [&[u8]; 3] = [b"first record", b"", &[3u8; 1000]];
/// let mut tags = [[0u8; 16]; 3];
/// cmac_many(&Sm4::new(&key.into()), &msgs, &mut tags)?;
///
/// for (m, t) in msgs.iter().zip(&tags) {
///     let mut one = <Sm4Cmac as KeyInit>::new(&key.into());
///     one.update(m);
///     assert!(one.verify(t.into()).is_ok());
/// }
/// # Ok::<(), shangmi_sm4_modes::ManyError>(())
/// ```
pub fn cmac_many(cipher: &Sm4, msgs: &[&[u8]], tags: &mut [[u8; 16]]) -> Result<(), ManyError> {
    if msgs.len() != tags.len() {
        return Err(ManyError::CountMismatch);
    }
    // SP 800-38B §6.1: L = E(0), K1 = L·x, K2 = K1·x.
    let mut l = Block::<Sm4>::default();
    cipher.encrypt_block(&mut l);
    let k1 = double(&l);
    let mut job = Cmac {
        msgs,
        tags,
        k2: double(&k1),
        k1,
    };
    run(cipher, &mut job);
    #[cfg(feature = "zeroize")]
    {
        zeroize::Zeroize::zeroize(&mut l.0);
        zeroize::Zeroize::zeroize(&mut job.k1.0);
        zeroize::Zeroize::zeroize(&mut job.k2.0);
    }
    Ok(())
}

/// Multiplication by x in GF(2^128) with SP 800-38B's bit order (a left shift of the
/// big-endian block, R = 0x87 folded in without a branch on the secret top bit).
fn double(b: &Block<Sm4>) -> Block<Sm4> {
    let v = u128::from_be_bytes(b.0);
    let r = (v << 1) ^ (0x87 & 0u128.wrapping_sub(v >> 127));
    r.to_be_bytes().into()
}

/// `a ^= b` as one 128-bit XOR.
#[inline(always)]
fn xor(a: &mut Block<Sm4>, b: &Block<Sm4>) {
    a.0 = (u128::from_ne_bytes(a.0) ^ u128::from_ne_bytes(b.0)).to_ne_bytes();
}

/// Block `j` of `data` (the caller checked that it exists).
#[inline(always)]
fn block_at(data: &[u8], j: usize) -> Block<Sm4> {
    let mut b = Block::<Sm4>::default();
    if let Some(src) = data.get(16 * j..16 * j + 16) {
        b.copy_from_slice(src);
    }
    b
}

/// `data`'s whole blocks from block `from` on.
fn blocks_from(data: &[u8], from: usize) -> &[Block<Sm4>] {
    Block::<Sm4>::slice_as_chunks(data.get(16 * from..).unwrap_or_default()).0
}

/// One batch: messages as chains of blocks.
trait Job {
    /// Messages in the batch.
    fn count(&self) -> usize;
    /// Chained blocks of message `m`.
    fn blocks(&self, m: usize) -> usize;
    /// The chain's first state for message `m`.
    fn start(&self, m: usize) -> Block<Sm4>;
    /// Block `j` of message `m` as it enters the chain.
    fn load(&self, m: usize, j: usize) -> Block<Sm4>;
    /// The chain's state after block `j` of message `m`.
    fn store(&mut self, m: usize, j: usize, state: &Block<Sm4>);
    /// The rest of lane `l`'s message (blocks `l.pos..` of message `l.msg`) on the serial
    /// chain from `l.state`, with `scratch` for copies.
    fn finish(&mut self, cipher: &Sm4, l: Lane, scratch: &mut [Block<Sm4>; LANES]);
}

/// A message in flight.
#[derive(Clone, Copy, Default)]
struct Lane {
    /// Index into the batch.
    msg: usize,
    /// The next block to chain.
    pos: usize,
    /// Its block count.
    end: usize,
    /// The chain state.
    state: Block<Sm4>,
}

/// The lane scheduler (see the module documentation).
fn run<J: Job>(cipher: &Sm4, job: &mut J) {
    let count = job.count();
    let mut lanes = [Lane::default(); LANES];
    let mut buf = [Block::<Sm4>::default(); LANES];
    let (mut busy, mut next) = (0, 0);
    loop {
        while busy < LANES && next < count {
            let end = job.blocks(next);
            if end > 0 {
                lanes[busy] = Lane {
                    msg: next,
                    pos: 0,
                    end,
                    state: job.start(next),
                };
                busy += 1;
            }
            next += 1;
        }
        if busy == 0 {
            break;
        }
        if busy == 1 && next == count {
            job.finish(cipher, lanes[0], &mut buf);
            break;
        }
        for (l, b) in lanes[..busy].iter().zip(buf.iter_mut()) {
            *b = job.load(l.msg, l.pos);
            xor(b, &l.state);
        }
        cipher.encrypt_blocks(&mut buf[..busy]);
        let mut kept = 0;
        for k in 0..busy {
            let mut l = lanes[k];
            l.state = buf[k];
            job.store(l.msg, l.pos, &l.state);
            l.pos += 1;
            if l.pos < l.end {
                lanes[kept] = l;
                kept += 1;
            }
        }
        busy = kept;
    }
    #[cfg(feature = "zeroize")]
    {
        for l in lanes.iter_mut() {
            zeroize::Zeroize::zeroize(&mut l.state.0);
        }
        for b in buf.iter_mut() {
            zeroize::Zeroize::zeroize(&mut b.0);
        }
    }
}

/// CBC encryption buffer to buffer.
struct CbcApart<'a, 'b, 'c> {
    ivs: &'a [[u8; 16]],
    msgs: &'a [&'b [u8]],
    out: &'a mut [&'c mut [u8]],
}

/// The `Job` methods of both CBC encryptions: the chain starts at `self.ivs`, reads
/// message `m` from `self.$src[m]` and writes each state as ciphertext to `self.$dst[m]`.
macro_rules! cbc_job {
    ($src:ident -> $dst:ident) => {
        fn count(&self) -> usize {
            self.$src.len()
        }
        fn blocks(&self, m: usize) -> usize {
            self.$src[m].len() / 16
        }
        fn start(&self, m: usize) -> Block<Sm4> {
            self.ivs[m].into()
        }
        #[inline(always)]
        fn load(&self, m: usize, j: usize) -> Block<Sm4> {
            block_at(self.$src[m], j)
        }
        #[inline(always)]
        fn store(&mut self, m: usize, j: usize, state: &Block<Sm4>) {
            if let Some(dst) = self.$dst[m].get_mut(16 * j..16 * j + 16) {
                dst.copy_from_slice(state);
            }
        }
    };
}

impl Job for CbcApart<'_, '_, '_> {
    cbc_job!(msgs -> out);
    fn finish(&mut self, cipher: &Sm4, l: Lane, _: &mut [Block<Sm4>; LANES]) {
        let (m, from, mut state) = (l.msg, l.pos, l.state);
        let out =
            Block::<Sm4>::slice_as_chunks_mut(self.out[m].get_mut(16 * from..).unwrap_or_default())
                .0;
        cipher.cbc_chain_into(&mut state, blocks_from(self.msgs[m], from), out);
    }
}

/// CBC encryption in place.
struct CbcInPlace<'a, 'b> {
    ivs: &'a [[u8; 16]],
    bufs: &'a mut [&'b mut [u8]],
}

impl Job for CbcInPlace<'_, '_> {
    cbc_job!(bufs -> bufs);
    fn finish(&mut self, cipher: &Sm4, l: Lane, scratch: &mut [Block<Sm4>; LANES]) {
        let (m, from, mut state) = (l.msg, l.pos, l.state);
        // The chain reads and writes separate slices: copy a chunk of input at a time.
        let data = Block::<Sm4>::slice_as_chunks_mut(
            self.bufs[m].get_mut(16 * from..).unwrap_or_default(),
        )
        .0;
        for chunk in data.chunks_mut(LANES) {
            let input = &mut scratch[..chunk.len()];
            input.copy_from_slice(chunk);
            cipher.cbc_chain_into(&mut state, input, chunk);
        }
    }
}

/// CMAC: the chain runs over the message's blocks, the last one padded and masked with
/// its subkey, so the tag is the state after the last block.
struct Cmac<'a, 'b> {
    msgs: &'a [&'b [u8]],
    tags: &'a mut [[u8; 16]],
    k1: Block<Sm4>,
    k2: Block<Sm4>,
}

impl Cmac<'_, '_> {
    /// The last block of `msg`: K1 ⊕ a whole block, or K2 ⊕ the rest padded with 10*.
    fn last(&self, msg: &[u8]) -> Block<Sm4> {
        let whole = !msg.is_empty() && msg.len().is_multiple_of(16);
        let start = if whole {
            msg.len() - 16
        } else {
            msg.len() / 16 * 16
        };
        let rest = msg.get(start..).unwrap_or_default();
        let mut b = Block::<Sm4>::default();
        b[..rest.len()].copy_from_slice(rest);
        if whole {
            xor(&mut b, &self.k1);
        } else {
            b[rest.len()] = 0x80;
            xor(&mut b, &self.k2);
        }
        b
    }
}

impl Job for Cmac<'_, '_> {
    fn count(&self) -> usize {
        self.msgs.len()
    }
    fn blocks(&self, m: usize) -> usize {
        self.msgs[m].len().div_ceil(16).max(1)
    }
    fn start(&self, _: usize) -> Block<Sm4> {
        Block::<Sm4>::default()
    }
    #[inline(always)]
    fn load(&self, m: usize, j: usize) -> Block<Sm4> {
        let msg = self.msgs[m];
        if j + 1 < self.blocks(m) {
            block_at(msg, j)
        } else {
            self.last(msg)
        }
    }
    #[inline(always)]
    fn store(&mut self, m: usize, j: usize, state: &Block<Sm4>) {
        if j + 1 == self.blocks(m) {
            self.tags[m] = state.0;
        }
    }
    fn finish(&mut self, cipher: &Sm4, l: Lane, _: &mut [Block<Sm4>; LANES]) {
        let (m, from, mut state) = (l.msg, l.pos, l.state);
        let msg = self.msgs[m];
        let end = self.blocks(m);
        let body = blocks_from(msg, from);
        cipher.cbc_chain(&mut state, body.get(..end - 1 - from).unwrap_or_default());
        cipher.cbc_chain(&mut state, &[self.last(msg)]);
        self.tags[m] = state.0;
    }
}
