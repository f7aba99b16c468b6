#![doc = include_str!("../README.md")]
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub use cipher;

#[macro_use]
mod engine;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[macro_use]
mod simd;
#[cfg(target_arch = "aarch64")]
mod aarch64;
mod consts;
mod key;
#[cfg(all(
    any(target_arch = "riscv32", target_arch = "riscv64"),
    target_feature = "zksed"
))]
mod riscv;
#[cfg(any(target_arch = "riscv32", target_arch = "riscv64"))]
mod riscv_zvksed;
mod soft;
#[cfg(target_arch = "x86_64")]
mod x86;

use shangmi_dispatch::Available;
pub use shangmi_dispatch::sm4::{Backend, BackendError};

use cipher::{
    AlgorithmName, Block, BlockCipherDecClosure, BlockCipherDecrypt, BlockCipherEncClosure,
    BlockCipherEncrypt, BlockSizeUser, Key, KeyInit, KeySizeUser, consts::U16,
};
use core::fmt;

use key::RoundKeys;

/// The SM4 block cipher with a 128-bit key; see the crate documentation.
#[derive(Clone)]
pub struct Sm4 {
    enc: RoundKeys,
    dec: RoundKeys,
    backend: Available<Backend>,
}

impl Sm4 {
    /// A cipher for `key` that runs on `backend` instead of the best one.
    ///
    /// For benchmarks, tests and bug reports; [`KeyInit::new`] picks the best backend.
    pub fn with_backend(key: &Key<Self>, backend: Backend) -> Result<Self, BackendError> {
        let backend = Available::require(backend)?;
        let enc = engine::run(backend, engine::ExpandKey(&key.0));
        Ok(Sm4 {
            dec: key::reversed(&enc),
            enc,
            backend,
        })
    }

    /// The backend this cipher runs on (its `Display` is the name, e.g. `gfni-avx512`).
    pub fn backend(&self) -> Backend {
        self.backend.get()
    }
}

/// Work run between the rounds of [`Sm4::apply_ctr_hooked`] (hazmat: for modes that hash
/// what they encrypt, such as GCM).
///
/// The call runs in steps of [`HOOK_BLOCKS`] blocks. For each step, [`CtrHook::step`] runs
/// with `i` = 0, 1, …, 7, in that order, before the step's blocks are written, given the
/// previous step's blocks as written (`prev`, empty for the first step) and this step's
/// blocks as given (`cur`); the last step's output is never shown. That holds on every
/// backend. With the proof of [`CtrHook::clmul`] (the `vpclmulqdq-avx512` GHASH backend;
/// any other is ignored) the `gfni-avx512` backend runs the steps between its rounds,
/// after every four, in an entry that also enables VPCLMULQDQ, so that the steps'
/// instructions share the out-of-order window with the cipher's (the rounds leave the
/// carry-less multiplier idle). There the step should be `#[inline(always)]` and free of
/// calls, or the cipher's state is spilled around it. Otherwise the steps run before each
/// step's engine call.
pub trait CtrHook {
    /// Step `i` of a step of blocks (see [`CtrHook`]); `between_rounds` says whether it
    /// runs inside the entry that enables the features [`CtrHook::clmul`] proved (so their
    /// intrinsics are inlined there).
    fn step(&mut self, i: usize, prev: &[Block<Sm4>], cur: &[Block<Sm4>], between_rounds: bool);

    /// The proof that VPCLMULQDQ on AVX-512 runs here, for steps that use it (`None`: the
    /// steps run before the engine calls).
    fn clmul(&self) -> Option<Available<shangmi_dispatch::ghash::Backend>>;
}

/// Blocks per step of [`Sm4::apply_ctr_hooked`]: the widest engine's pass.
pub const HOOK_BLOCKS: usize = 64;

/// How the counter block advances from one block to the next in [`Sm4::apply_ctr`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CtrFlavor {
    /// The whole block is one 128-bit big-endian counter (NIST SP 800-38A, GB/T 17964;
    /// `ctr::Ctr128BE`).
    Be128,
    /// Only the last 32 bits count, big-endian, wrapping mod 2^32 (GCM's inc32;
    /// `ctr::Ctr32BE`).
    Be32,
}

impl Sm4 {
    /// Counter mode, fused: XORs `data` with E(c), E(c + 1), … where c is `counter`, and
    /// advances `counter` past the blocks used (a final partial block counts as used).
    ///
    /// The counter blocks are built and encrypted in registers and the keystream never
    /// touches memory, so this runs at the backend's full ECB speed. Encryption and
    /// decryption are the same operation.
    ///
    /// ```
    /// use shangmi_sm4::{CtrFlavor, Sm4, cipher::KeyInit};
    ///
    /// // draft-ribose-cfrg-sm4-10 Appendix A.2.5.1 (SM4-CTR).
    /// let cipher = Sm4::new(&[0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10].into());
    /// let mut counter = [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f];
    /// let mut data = *b"secret message";
    /// cipher.apply_ctr(CtrFlavor::Be128, &mut counter, &mut data);
    /// assert_eq!(counter[15], 0x10);
    /// ```
    pub fn apply_ctr(&self, flavor: CtrFlavor, counter: &mut [u8; 16], data: &mut [u8]) {
        self.ctr(flavor, counter, data, None);
    }

    /// [`Sm4::apply_ctr`], and encrypts `block` in place (as
    /// [`BlockCipherEncrypt::encrypt_block`]) in the same engine call.
    ///
    /// On backends with wide steps the block rides along the first step of the counter
    /// stream as a few more registers, so when `data` has at least one step of blocks
    /// (64 on `gfni-avx512`) it costs a fraction of a step instead of a latency-bound
    /// single-block call of its own: GCM's tag mask E(J0) is such a block. Otherwise it is
    /// encrypted on its own. The result is the same on every backend.
    ///
    /// ```
    /// use shangmi_sm4::{CtrFlavor, Sm4, cipher::{Block, BlockCipherEncrypt, KeyInit}};
    ///
    /// let cipher = Sm4::new(&[7u8; 16].into());
    /// let (mut c1, mut c2) = ([1u8; 16], [1u8; 16]);
    /// let (mut d1, mut d2) = ([5u8; 1024], [5u8; 1024]);
    /// let mut block = Block::<Sm4>::from([9u8; 16]);
    /// cipher.apply_ctr_and_encrypt(CtrFlavor::Be32, &mut c1, &mut d1, &mut block);
    ///
    /// cipher.apply_ctr(CtrFlavor::Be32, &mut c2, &mut d2);
    /// let mut check = Block::<Sm4>::from([9u8; 16]);
    /// cipher.encrypt_block(&mut check);
    /// assert_eq!((c1, d1, block), (c2, d2, check));
    /// ```
    pub fn apply_ctr_and_encrypt(
        &self,
        flavor: CtrFlavor,
        counter: &mut [u8; 16],
        data: &mut [u8],
        block: &mut Block<Self>,
    ) {
        self.ctr(flavor, counter, data, Some(block));
    }

    /// Counter mode, with `side` (if any) encrypted in the first engine call. Inlined, so
    /// that [`Sm4::apply_ctr`] keeps no trace of `side`.
    #[inline(always)]
    fn ctr(
        &self,
        flavor: CtrFlavor,
        counter: &mut [u8; 16],
        data: &mut [u8],
        mut side: Option<&mut Block<Self>>,
    ) {
        let mut ctr = [0u32; 4];
        for (w, b) in ctr.iter_mut().zip(counter.chunks_exact(4)) {
            *w = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
        }
        let (mut blocks, tail) = Block::<Self>::slice_as_chunks_mut(data);
        while !blocks.is_empty() {
            // The kernels count in the last word only; for a 128-bit counter, split the
            // run where that word wraps and carry into the upper words by hand.
            let until_wrap = (1u64 << 32) - u64::from(ctr[3]);
            let n = match flavor {
                CtrFlavor::Be32 => blocks.len(),
                CtrFlavor::Be128 => blocks
                    .len()
                    .min(usize::try_from(until_wrap).unwrap_or(usize::MAX)),
            };
            let (head, rest) = blocks.split_at_mut(n);
            self.ctr32(&mut ctr, head, side.take());
            if flavor == CtrFlavor::Be128 && n as u64 == until_wrap {
                carry(&mut ctr);
            }
            blocks = rest;
        }
        if !tail.is_empty() {
            let mut block = [Block::<Self>::from([0u8; 16])];
            self.ctr32(&mut ctr, &mut block, side.take());
            for (d, k) in tail.iter_mut().zip(block[0].iter()) {
                *d ^= k;
            }
            if flavor == CtrFlavor::Be128 && ctr[3] == 0 {
                carry(&mut ctr);
            }
        }
        if side.is_some() {
            self.ctr32(&mut ctr, &mut [], side);
        }
        for (b, w) in counter.chunks_exact_mut(4).zip(ctr) {
            b.copy_from_slice(&w.to_be_bytes());
        }
    }

    /// Counter mode ([`CtrFlavor::Be32`]) on whole steps of [`HOOK_BLOCKS`] blocks, running
    /// `hook`'s steps between the rounds (see [`CtrHook`]), and encrypting `block` (if
    /// given) in place along the first step as [`Sm4::apply_ctr_and_encrypt`] does; returns
    /// the hook (taken by value so that its state can stay in registers). Blocks past the
    /// last whole step are left alone.
    ///
    /// ```
    /// use shangmi_sm4::{CtrFlavor, CtrHook, HOOK_BLOCKS, Sm4, cipher::{Block, KeyInit}};
    /// use shangmi_dispatch::{Available, ghash::Backend as Ghash};
    ///
    /// /// XORs together every block the call writes, one step late.
    /// struct Sum(Block<Sm4>);
    /// impl CtrHook for Sum {
    ///     fn step(&mut self, i: usize, prev: &[Block<Sm4>], _: &[Block<Sm4>], _: bool) {
    ///         for b in prev.iter().skip(8 * i).take(8) {
    ///             for (s, x) in self.0.iter_mut().zip(b.iter()) { *s ^= x; }
    ///         }
    ///     }
    ///     fn clmul(&self) -> Option<Available<Ghash>> { None }
    /// }
    ///
    /// let cipher = Sm4::new(&[7u8; 16].into());
    /// let mut blocks = [Block::<Sm4>::default(); 3 * HOOK_BLOCKS];
    /// let mut counter = [0u8; 16];
    /// let sum = cipher.apply_ctr_hooked(&mut counter, &mut blocks, Sum(Default::default()), None);
    ///
    /// let mut check = [0u8; 3 * HOOK_BLOCKS * 16];
    /// cipher.apply_ctr(CtrFlavor::Be32, &mut [0u8; 16], &mut check);
    /// assert_eq!(Block::<Sm4>::slice_as_flattened(&blocks), &check[..]);
    /// let mut want = Block::<Sm4>::default();
    /// for b in &blocks[..2 * HOOK_BLOCKS] {
    ///     for (s, x) in want.iter_mut().zip(b.iter()) { *s ^= x; }
    /// }
    /// assert_eq!(sum.0, want);
    /// ```
    pub fn apply_ctr_hooked<H: CtrHook>(
        &self,
        counter: &mut [u8; 16],
        blocks: &mut [Block<Self>],
        mut hook: H,
        mut block: Option<&mut Block<Self>>,
    ) -> H {
        let mut ctr = [0u32; 4];
        for (w, b) in ctr.iter_mut().zip(counter.chunks_exact(4)) {
            *w = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
        }
        let whole = blocks.len() / HOOK_BLOCKS * HOOK_BLOCKS;
        let blocks = &mut blocks[..whole];
        #[allow(unused_mut)] // assigned on x86-64 only
        let mut at = 0;
        #[cfg(target_arch = "x86_64")]
        if let (Some(k), Some(clmul), true) =
            (x86::GfniAvx512::new(self.backend), hook.clmul(), whole > 0)
        {
            let side = match block.take() {
                Some(b) => core::slice::from_mut(b),
                None => &mut [],
            };
            (at, hook) = k.ctr32_hooked(clmul, &self.enc, &mut ctr, blocks, hook, side);
        }
        while at < whole {
            let (done, rest) = blocks.split_at_mut(at);
            let prev = &done[at.saturating_sub(HOOK_BLOCKS)..];
            let cur = &mut rest[..HOOK_BLOCKS];
            for i in 0..8 {
                hook.step(i, prev, cur, false);
            }
            self.ctr32(&mut ctr, cur, block.take());
            at += HOOK_BLOCKS;
        }
        if block.is_some() {
            self.ctr32(&mut ctr, &mut [], block);
        }
        for (b, w) in counter.chunks_exact_mut(4).zip(ctr) {
            b.copy_from_slice(&w.to_be_bytes());
        }
        hook
    }

    /// One engine call of counter mode (last word only), with `side` if given.
    #[inline(always)]
    fn ctr32(
        &self,
        ctr: &mut [u32; 4],
        blocks: &mut [Block<Self>],
        side: Option<&mut Block<Self>>,
    ) {
        let rk = &self.enc;
        match side {
            None => engine::run(self.backend, engine::Ctr32 { rk, ctr, blocks }),
            Some(side) => engine::run(
                self.backend,
                engine::Ctr32Side {
                    rk,
                    ctr,
                    blocks,
                    side,
                },
            ),
        }
    }
}

impl Sm4 {
    /// The CBC chain: for each block b of `blocks`, `state = E(state ⊕ b)` — the core of
    /// CBC-MAC, CCM and CMAC, and of CBC encryption — in one kernel call, keeping the round
    /// keys in registers (the GFNI and AES-instruction backends use a shorter round for this
    /// latency-bound chain).
    ///
    /// ```
    /// use shangmi_sm4::{Sm4, cipher::{Block, BlockCipherEncrypt, KeyInit}};
    ///
    /// let cipher = Sm4::new(&[7u8; 16].into());
    /// let blocks = [Block::<Sm4>::from([1u8; 16]), Block::<Sm4>::from([2u8; 16])];
    /// let mut state = Block::<Sm4>::from([0u8; 16]);
    /// cipher.cbc_chain(&mut state, &blocks);
    ///
    /// let mut check = blocks[0];
    /// cipher.encrypt_block(&mut check);
    /// for (c, b) in check.iter_mut().zip(blocks[1].iter()) { *c ^= b; }
    /// cipher.encrypt_block(&mut check);
    /// assert_eq!(state, check);
    /// ```
    pub fn cbc_chain(&self, state: &mut Block<Self>, blocks: &[Block<Self>]) {
        self.cbc_chain_into(state, blocks, &mut []);
    }

    /// [`Sm4::cbc_chain`], also writing the state after block i to `out[i]` for each
    /// i < `out.len()` — CBC encryption (`out` the ciphertext, `state` the IV) and, with the
    /// blocks shifted by one, CFB encryption; one kernel call, so the GFNI and
    /// AES-instruction backends run their shorter chain round. `out` and `blocks` are separate slices: for in-place work copy a
    /// chunk of input first.
    ///
    /// ```
    /// use shangmi_sm4::{Sm4, cipher::{Block, BlockCipherEncrypt, KeyInit}};
    ///
    /// let cipher = Sm4::new(&[7u8; 16].into());
    /// let blocks = [Block::<Sm4>::from([1u8; 16]), Block::<Sm4>::from([2u8; 16])];
    /// let mut iv = Block::<Sm4>::from([9u8; 16]);
    /// let mut ciphertext = [Block::<Sm4>::default(); 2];
    /// cipher.cbc_chain_into(&mut iv, &blocks, &mut ciphertext);
    ///
    /// let mut check = Block::<Sm4>::from([9u8 ^ 1; 16]);
    /// cipher.encrypt_block(&mut check);
    /// assert_eq!(ciphertext[0], check);
    /// assert_eq!(iv, ciphertext[1]);
    /// ```
    pub fn cbc_chain_into(
        &self,
        state: &mut Block<Self>,
        blocks: &[Block<Self>],
        out: &mut [Block<Self>],
    ) {
        // Nothing to chain: skip the kernel's key preparation (the GFNI chain derives its
        // round's keys from the round keys on entry).
        if blocks.is_empty() {
            return;
        }
        engine::run(
            self.backend,
            engine::Chain {
                rk: &self.enc,
                state,
                blocks,
                out,
            },
        );
    }

    /// The CBC chain of [`Sm4::cbc_chain_into`] in steps of four rounds (hazmat: for a
    /// record layer that runs another kernel's loop over the same data, such as HMAC-SM3
    /// in TLCP's MAC-then-encrypt CBC suites): see [`CbcSteps`]. Returns the steps and
    /// where they start.
    ///
    /// ```
    /// use shangmi_sm4::{Sm4, cipher::{Block, KeyInit}};
    ///
    /// let cipher = Sm4::new(&[7u8; 16].into());
    /// let blocks = [Block::<Sm4>::from([1u8; 16]); 3];
    /// let (mut out, mut check) = ([Block::<Sm4>::default(); 3], [Block::<Sm4>::default(); 3]);
    /// let (mut steps, mut at) = cipher.cbc_steps([9u8; 16].into(), &blocks, &mut out);
    /// for _ in 0..10 {
    ///     steps.step(&mut at);
    /// }
    /// let state = steps.finish(at);
    /// let mut check_iv = [9u8; 16].into();
    /// cipher.cbc_chain_into(&mut check_iv, &blocks, &mut check);
    /// assert_eq!((out, state), (check, check_iv));
    /// ```
    pub fn cbc_steps<'a>(
        &'a self,
        state: Block<Self>,
        blocks: &'a [Block<Self>],
        out: &'a mut [Block<Self>],
    ) -> (CbcSteps<'a>, CbcAt) {
        #[cfg(target_arch = "x86_64")]
        if let Some(k) = x86::GfniAvx512::new(self.backend) {
            let (stepper, at) = k.stepper(&self.enc, &state, blocks, out);
            let steps = CbcSteps {
                inner: StepsInner::Gfni(self, k, stepper),
            };
            return (steps, CbcAt { state, at });
        }
        let steps = CbcSteps {
            inner: StepsInner::Plain {
                cipher: self,
                blocks,
                out,
            },
        };
        let at = CbcAt {
            state,
            #[cfg(target_arch = "x86_64")]
            at: x86::StepAt::default(),
        };
        (steps, at)
    }
}

/// The CBC chain (`state = E(state ⊕ block)` block after block, each written to `out` as
/// far as it reaches, as [`Sm4::cbc_chain_into`]) in steps of four rounds, made by
/// [`Sm4::cbc_steps`] with where it starts, a [`CbcAt`].
///
/// On the `gfni-avx512` backend [`CbcSteps::step`] runs the next four of the chain's
/// rounds (a block's first step also takes its input in, its eighth writes its output),
/// and is `#[inline(always)]` with no call and no GFNI target feature (its GFNI
/// instructions are `asm!`): inlined into another kernel's loop whose entry enables
/// AVX-512F/VL (SM3's, `shangmi_sm3::hazmat::compress_hooked`), its instructions share the
/// out-of-order window with that loop's, the serial chain on the vector units beside
/// SM3's scalar rounds; the [`CbcAt`] it changes is `Copy`, for that loop to hold in
/// registers. On every other backend a step does nothing. [`CbcSteps::finish`] runs
/// whatever is left (everything, where nothing steps) and returns the chaining value: the
/// number of steps is a matter of speed, never of the result. The P-domain round keys it
/// holds are zeroized on drop with the `zeroize` feature.
pub struct CbcSteps<'a> {
    inner: StepsInner<'a>,
}

/// Where [`CbcSteps`] stand: the chain's state and, where it steps, the block in hand.
#[derive(Clone, Copy)]
pub struct CbcAt {
    state: Block<Sm4>,
    #[cfg(target_arch = "x86_64")]
    at: x86::StepAt,
}

impl core::fmt::Debug for CbcAt {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CbcAt").finish_non_exhaustive()
    }
}

/// A chain that steps, or one left for [`CbcSteps::finish`]. The stepping one holds its
/// P-domain keys inline (no allocation in a `no_std` crate): the size is the point.
#[allow(clippy::large_enum_variant)]
enum StepsInner<'a> {
    #[cfg(target_arch = "x86_64")]
    Gfni(&'a Sm4, x86::GfniAvx512, x86::Stepper<'a>),
    Plain {
        cipher: &'a Sm4,
        blocks: &'a [Block<Sm4>],
        out: &'a mut [Block<Sm4>],
    },
}

impl CbcSteps<'_> {
    /// Whether [`CbcSteps::step`] runs rounds here (the `gfni-avx512` backend).
    pub fn stepping(&self) -> bool {
        !matches!(self.inner, StepsInner::Plain { .. })
    }

    /// The next four rounds of the chain from `at` (nothing once every block is done, or
    /// where the backend does not step).
    #[inline(always)]
    pub fn step(&mut self, at: &mut CbcAt) {
        #[cfg(target_arch = "x86_64")]
        if let StepsInner::Gfni(_, _, stepper) = &mut self.inner {
            stepper.step(&mut at.at);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = at;
    }

    /// Runs the rest of the chain from `at` and returns the chaining value.
    pub fn finish(self, at: CbcAt) -> Block<Sm4> {
        match self.inner {
            #[cfg(target_arch = "x86_64")]
            StepsInner::Gfni(cipher, k, stepper) => {
                let (mut state, blocks, out) = k.stepper_rest(stepper, at.at);
                cipher.cbc_chain_into(&mut state, blocks, out);
                state
            }
            StepsInner::Plain {
                cipher,
                blocks,
                out,
            } => {
                let mut state = at.state;
                cipher.cbc_chain_into(&mut state, blocks, out);
                state
            }
        }
    }
}

impl core::fmt::Debug for CbcSteps<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CbcSteps")
            .field("stepping", &self.stepping())
            .finish_non_exhaustive()
    }
}

/// Carries a wrap of the last counter word into the upper three (128-bit counter).
fn carry(ctr: &mut [u32; 4]) {
    for w in ctr[..3].iter_mut().rev() {
        *w = w.wrapping_add(1);
        if *w != 0 {
            break;
        }
    }
}

impl KeySizeUser for Sm4 {
    type KeySize = U16;
}

impl KeyInit for Sm4 {
    fn new(key: &Key<Self>) -> Self {
        let backend = Available::best();
        let enc = engine::run(backend, engine::ExpandKey(&key.0));
        Sm4 {
            dec: key::reversed(&enc),
            enc,
            backend,
        }
    }
}

impl BlockSizeUser for Sm4 {
    type BlockSize = U16;
}

impl BlockCipherEncrypt for Sm4 {
    #[inline]
    fn encrypt_with_backend(&self, f: impl BlockCipherEncClosure<BlockSize = U16>) {
        engine::run(self.backend, engine::Encrypt(&self.enc, f));
    }
}

impl BlockCipherDecrypt for Sm4 {
    #[inline]
    fn decrypt_with_backend(&self, f: impl BlockCipherDecClosure<BlockSize = U16>) {
        engine::run(self.backend, engine::Decrypt(&self.dec, f));
    }
}

impl fmt::Debug for Sm4 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sm4")
            .field("backend", &self.backend.get().name())
            .finish_non_exhaustive()
    }
}

impl AlgorithmName for Sm4 {
    fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SM4")
    }
}

impl Drop for Sm4 {
    fn drop(&mut self) {
        #[cfg(feature = "zeroize")]
        {
            use zeroize::Zeroize;
            self.enc.zeroize();
            self.dec.zeroize();
        }
    }
}

#[cfg(feature = "zeroize")]
impl zeroize::ZeroizeOnDrop for Sm4 {}
