//! The unauthenticated modes: CBC with PKCS#7 padding and CTR (as `openssl enc`), and XTS
//! by data units.

use shangmi_sm4::{CtrFlavor, Sm4};
use shangmi_sm4_modes::cipher::block_padding::{Padding, Pkcs7};
use shangmi_sm4_modes::cipher::{Block, BlockModeDecrypt, BlockModeEncrypt, KeyInit, KeyIvInit};
use shangmi_sm4_modes::{Sm4CbcDec, Sm4CbcEnc, Sm4Xts, Sm4XtsGb, Sm4XtsIeee, XtsStandard};

use crate::Failure;
use crate::files::{Input, Output, pipeline};
use crate::progress::Progress;

/// Bytes per pipeline buffer (a multiple of the block and of every power-of-two sector
/// size up to it).
const BUFFER: usize = 1 << 20;

/// One command's data: read from `input`, written to `output`, counted in `progress`.
pub struct Flow<'a> {
    /// What is read.
    pub input: Input,
    /// Where the result goes.
    pub output: &'a mut Output,
    /// The progress shown.
    pub progress: &'a Progress,
}

impl Flow<'_> {
    /// Runs [`pipeline`] over the flow in buffers of `buffer` bytes.
    fn run<F>(self, buffer: usize, transform: F) -> Result<(), Failure>
    where
        F: FnMut(&mut Vec<u8>, bool, &mut Vec<u8>) -> Result<(), Failure>,
    {
        pipeline(self.input, self.output, buffer, self.progress, transform)
    }
}

/// CBC with PKCS#7 padding, the format of `openssl enc -sm4-cbc`.
pub fn cbc(key: &[u8; 16], iv: &[u8; 16], encrypt: bool, flow: Flow<'_>) -> Result<(), Failure> {
    let name = flow.input.name.clone();
    if encrypt {
        let mut cbc = Sm4CbcEnc::new(key.into(), iv.into());
        flow.run(BUFFER, |data, last, out| {
            if last {
                let pos = data.len() % 16;
                data.resize(data.len() - pos + 16, 0);
                let tail = data.len() - 16;
                Pkcs7::raw_pad(&mut data[tail..], pos);
            }
            let (blocks, _) = Block::<Sm4>::slice_as_chunks_mut(data);
            cbc.encrypt_blocks(blocks);
            std::mem::swap(data, out);
            Ok(())
        })
    } else {
        let mut cbc = Sm4CbcDec::new(key.into(), iv.into());
        flow.run(BUFFER, |data, last, out| {
            if !data.len().is_multiple_of(16) || data.is_empty() {
                return Err(Failure::new(format!(
                    "{name}: bad decrypt: the ciphertext is not a whole, non-zero number of \
                     16-byte blocks"
                )));
            }
            let (blocks, _) = Block::<Sm4>::slice_as_chunks_mut(data);
            cbc.decrypt_blocks(blocks);
            if last {
                // (No secret to protect from timing here: the key holder decrypts.)
                let len = Pkcs7::unpad_blocks(blocks).map(<[u8]>::len).map_err(|_| {
                    Failure::new(format!(
                        "{name}: bad decrypt: the padding is not PKCS#7 (wrong key or IV, or \
                         not SM4-CBC data)"
                    ))
                })?;
                data.truncate(len);
            }
            std::mem::swap(data, out);
            Ok(())
        })
    }
}

/// CTR with a 128-bit big-endian counter starting at `iv`, as `openssl enc -sm4-ctr`.
pub fn ctr(key: &[u8; 16], iv: &[u8; 16], flow: Flow<'_>) -> Result<(), Failure> {
    let sm4 = Sm4::new(key.into());
    let mut counter = *iv;
    flow.run(BUFFER, |data, _, out| {
        sm4.apply_ctr(CtrFlavor::Be128, &mut counter, data);
        std::mem::swap(data, out);
        Ok(())
    })
}

/// XTS over data units of `unit` bytes, the first under tweak `iv`, the next ones under
/// `iv` + 1, + 2, … (as 128-bit little-endian integers, as sector numbers are).
pub fn xts(
    key: &[u8; 32],
    iv: &[u8; 16],
    gb: bool,
    unit: usize,
    encrypt: bool,
    flow: Flow<'_>,
) -> Result<(), Failure> {
    if gb {
        let xts = Sm4XtsGb::new(key).map_err(|e| Failure::usage(format!("xts key: {e}")))?;
        xts_with(&xts, iv, unit, encrypt, flow)
    } else {
        let xts = Sm4XtsIeee::new(key).map_err(|e| Failure::usage(format!("xts key: {e}")))?;
        xts_with(&xts, iv, unit, encrypt, flow)
    }
}

fn xts_with<S: XtsStandard>(
    xts: &Sm4Xts<S>,
    iv: &[u8; 16],
    unit: usize,
    encrypt: bool,
    flow: Flow<'_>,
) -> Result<(), Failure> {
    let name = flow.input.name.clone();
    let mut tweak = u128::from_le_bytes(*iv);
    let buffer = BUFFER.max(unit).next_multiple_of(unit);
    flow.run(buffer, |data, _, out| {
        for chunk in data.chunks_mut(unit) {
            let t = tweak.to_le_bytes();
            let done = if encrypt {
                xts.encrypt(&t, chunk)
            } else {
                xts.decrypt(&t, chunk)
            };
            done.map_err(|e| {
                Failure::new(format!(
                    "{name}: data unit {} ({} bytes): {e} (XTS needs at least 16 bytes in the \
                     last unit)",
                    tweak.wrapping_sub(u128::from_le_bytes(*iv)),
                    chunk.len()
                ))
            })?;
            tweak = tweak.wrapping_add(1);
        }
        std::mem::swap(data, out);
        Ok(())
    })
}
