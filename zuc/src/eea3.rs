//! 128-EEA3 and the IV formats of 128-EEA3 and 128-EIA3 (3GPP "Specification of the 3GPP
//! Confidentiality and Integrity Algorithms 128-EEA3 & 128-EIA3, Document 1" v1.7,
//! sections 3.3 and 4.3).

use cipher::{KeyIvInit, StreamCipher};

use crate::{Error, Zuc128};

fn check(bearer: u8, direction: u8) -> Result<(), Error> {
    if bearer >= 32 {
        return Err(Error::Bearer);
    }
    if direction > 1 {
        return Err(Error::Direction);
    }
    Ok(())
}

/// The ZUC-128 IV of 128-EEA3: COUNT, BEARER (5 bits) and DIRECTION (1 bit), section 3.3.
pub fn eea3_iv(count: u32, bearer: u8, direction: u8) -> Result<[u8; 16], Error> {
    check(bearer, direction)?;
    let mut iv = [0u8; 16];
    iv[..4].copy_from_slice(&count.to_be_bytes());
    iv[4] = (bearer << 3) | (direction << 2);
    let (head, tail) = iv.split_at_mut(8);
    tail.copy_from_slice(head);
    Ok(iv)
}

/// The ZUC-128 IV of 128-EIA3, section 4.3.
pub fn eia3_iv(count: u32, bearer: u8, direction: u8) -> Result<[u8; 16], Error> {
    check(bearer, direction)?;
    let mut iv = [0u8; 16];
    iv[..4].copy_from_slice(&count.to_be_bytes());
    iv[4] = bearer << 3;
    let (head, tail) = iv.split_at_mut(8);
    tail.copy_from_slice(head);
    iv[8] ^= direction << 7;
    iv[14] ^= direction << 7;
    Ok(iv)
}

/// 128-EEA3: encrypts or decrypts `data` in place, a message of `bit_len` bits (most
/// significant bit of each byte first). `data.len()` must be `bit_len` rounded up to bytes;
/// the unused low bits of a final partial byte are set to zero, as the specification's
/// output has only `bit_len` bits.
pub fn eea3(
    ck: &[u8; 16],
    count: u32,
    bearer: u8,
    direction: u8,
    data: &mut [u8],
    bit_len: usize,
) -> Result<(), Error> {
    if data.len() != bit_len.div_ceil(8) {
        return Err(Error::BitLength);
    }
    let iv = eea3_iv(count, bearer, direction)?;
    let mut cipher = Zuc128::new(&(*ck).into(), &iv.into());
    cipher.apply_keystream(data);
    let rem = bit_len % 8;
    if rem != 0
        && let Some(last) = data.last_mut()
    {
        *last &= 0xffu8 << (8 - rem);
    }
    Ok(())
}
