//! SM4-CBC with ciphertext stealing, variant CS3 (NIST SP 800-38A Addendum, 2010): the
//! variant Linux `cts(cbc(sm4))` and fscrypt file names use. The last two ciphertext blocks
//! are always swapped when the message is longer than one block.
//!
//! Encryption is serial (CBC); decryption runs 64 blocks per engine call.

use cipher::{Block, BlockCipherDecrypt, BlockCipherEncrypt, Key, KeyInit, KeySizeUser};
use shangmi_sm4::{Backend, BackendError, Sm4};

const BATCH: usize = 64;

/// The message is shorter than one block (16 bytes); CBC-CS3 needs at least one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CtsTooShort;

impl core::fmt::Display for CtsTooShort {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("CBC-CS3 needs at least 16 bytes")
    }
}

impl core::error::Error for CtsTooShort {}

/// SM4-CBC-CS3: any message of 16 bytes or more, ciphertext as long as the plaintext.
///
/// ```
/// use shangmi_sm4_modes::Sm4CbcCts;
/// use shangmi_sm4_modes::cipher::KeyInit;
///
/// let cts = Sm4CbcCts::new(&[1u8; 16].into());
/// let mut name = *b"a file name of 27 bytes....";
/// cts.encrypt(&[0u8; 16], &mut name).unwrap();
/// cts.decrypt(&[0u8; 16], &mut name).unwrap();
/// assert_eq!(&name, b"a file name of 27 bytes....");
/// ```
#[derive(Clone, Debug)]
pub struct Sm4CbcCts {
    cipher: Sm4,
}

impl Sm4CbcCts {
    /// CBC-CS3 over a prepared cipher.
    pub fn from_cipher(cipher: Sm4) -> Self {
        Sm4CbcCts { cipher }
    }

    /// CBC-CS3 for `key` on the SM4 engine `backend`.
    ///
    /// # Errors
    /// [`BackendError`] if this CPU cannot run `backend`.
    pub fn with_backend(key: &Key<Sm4>, backend: Backend) -> Result<Self, BackendError> {
        Ok(Sm4CbcCts::from_cipher(Sm4::with_backend(key, backend)?))
    }

    /// Encrypts `data` (at least 16 bytes) in place with initial vector `iv`.
    ///
    /// # Errors
    /// [`CtsTooShort`]; `data` is untouched.
    pub fn encrypt(&self, iv: &[u8; 16], data: &mut [u8]) -> Result<(), CtsTooShort> {
        if data.len() < 16 {
            return Err(CtsTooShort);
        }
        let n = data.len().div_ceil(16);
        let r = data.len() - 16 * (n - 1); // bytes in the last block, 1..=16
        let mut prev = *iv;
        // One block: plain CBC. More: CBC up to the last full block, then steal.
        let serial = if n == 1 { 16 } else { 16 * (n - 1) };
        for block in data[..serial].chunks_exact_mut(16) {
            let mut b = Block::<Sm4>::from(xor16(block, &prev));
            self.cipher.encrypt_block(&mut b);
            block.copy_from_slice(&b);
            prev = b.into();
        }
        if n == 1 {
            return Ok(());
        }
        // C_n = E(pad0(P_n) ⊕ C_{n-1}); output …, C_n, MSB_r(C_{n-1}).
        let mut last = prev;
        for (l, p) in last.iter_mut().zip(&data[16 * (n - 1)..]) {
            *l ^= p;
        }
        let mut c_n = Block::<Sm4>::from(last);
        self.cipher.encrypt_block(&mut c_n);
        let tail = &mut data[16 * (n - 2)..];
        tail[16..].copy_from_slice(&prev[..r]);
        tail[..16].copy_from_slice(&c_n);
        Ok(())
    }

    /// Decrypts `data` (at least 16 bytes) in place with initial vector `iv`.
    ///
    /// # Errors
    /// [`CtsTooShort`]; `data` is untouched.
    pub fn decrypt(&self, iv: &[u8; 16], data: &mut [u8]) -> Result<(), CtsTooShort> {
        if data.len() < 16 {
            return Err(CtsTooShort);
        }
        let n = data.len().div_ceil(16);
        if n == 1 {
            self.cbc_decrypt(iv, data);
            return Ok(());
        }
        let r = data.len() - 16 * (n - 1);
        // The chaining value before the last two blocks.
        let prev: [u8; 16] = if n > 2 {
            data[16 * (n - 3)..16 * (n - 2)]
                .try_into()
                .map_err(|_| CtsTooShort)?
        } else {
            *iv
        };
        let (head, tail) = data.split_at_mut(16 * (n - 2));
        self.cbc_decrypt(iv, head);
        // tail = C_n (16 bytes) ‖ MSB_r(C_{n-1}).
        let mut z = Block::<Sm4>::try_from(&tail[..16]).map_err(|_| CtsTooShort)?;
        self.cipher.decrypt_block(&mut z); // Z = pad0(P_n) ⊕ C_{n-1}
        let mut c_prev = [0u8; 16];
        c_prev[..r].copy_from_slice(&tail[16..]);
        c_prev[r..].copy_from_slice(&z[r..]);
        let mut p_n = [0u8; 16];
        for i in 0..r {
            p_n[i] = z[i] ^ c_prev[i];
        }
        let mut b = Block::<Sm4>::from(c_prev);
        self.cipher.decrypt_block(&mut b);
        tail[..16].copy_from_slice(&xor16(&b, &prev));
        tail[16..].copy_from_slice(&p_n[..r]);
        Ok(())
    }

    /// Plain CBC decryption of whole blocks, 64 per engine call.
    fn cbc_decrypt(&self, iv: &[u8; 16], data: &mut [u8]) {
        let (blocks, _) = Block::<Sm4>::slice_as_chunks_mut(data);
        let mut prev = *iv;
        let mut saved = [Block::<Sm4>::default(); BATCH];
        for batch in blocks.chunks_mut(BATCH) {
            saved[..batch.len()].copy_from_slice(batch);
            self.cipher.decrypt_blocks(batch);
            for (i, b) in batch.iter_mut().enumerate() {
                let chain = if i == 0 { prev } else { saved[i - 1].into() };
                *b = xor16(b, &chain).into();
            }
            prev = saved[batch.len() - 1].into();
        }
    }
}

impl KeySizeUser for Sm4CbcCts {
    type KeySize = cipher::consts::U16;
}

impl KeyInit for Sm4CbcCts {
    fn new(key: &Key<Self>) -> Self {
        Sm4CbcCts::from_cipher(Sm4::new(key))
    }
}

fn xor16(a: &[u8], b: &[u8; 16]) -> [u8; 16] {
    let mut out = *b;
    for (o, x) in out.iter_mut().zip(a) {
        *o ^= x;
    }
    out
}
