//! The TLCP PRF: TLS 1.2's P_hash (RFC 5246 §5) with HMAC-SM3, and the transcript hash.
//! The keyed HMAC-SM3 is `shangmi_sm3::hazmat::KeyedHmac` (the rustls provider's HKDF-SM3
//! starts from the same one).

use shangmi_sm3::hazmat::KeyedHmac;
use zeroize::Zeroize;

/// PRF(secret, label, seed) = P_SM3(secret, label ‖ seed), filling `out`.
pub fn prf(secret: &[u8], label: &[u8], seed: &[u8], out: &mut [u8]) {
    let base = KeyedHmac::new(secret);
    // A(1) = HMAC(secret, label ‖ seed)
    let mut a = base.mac([label, seed]);
    let mut done = 0;
    while done < out.len() {
        let mut block = base.mac([a.as_slice(), label, seed]);
        let n = (out.len() - done).min(block.len());
        out[done..done + n].copy_from_slice(&block[..n]);
        done += n;
        block.zeroize();
        a = base.mac([a.as_slice()]);
    }
    a.zeroize();
}

/// HMAC-SM3 of the parts through the `hmac` crate over SM3 (the tests' independent
/// reference; the records and the PRF key theirs once, `KeyedHmac`).
#[cfg(test)]
pub(crate) fn hmac_sm3(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    use hmac::{KeyInit, Mac};
    let mut m = <hmac::Hmac<shangmi_sm3::Sm3> as KeyInit>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of every length"));
    for p in parts {
        m.update(p);
    }
    m.finalize().into_bytes().into()
}

/// master_secret = PRF(pms, "master secret", client_random ‖ server_random)[..48].
pub(crate) fn master_secret(
    pms: &[u8],
    client_random: &[u8; 32],
    server_random: &[u8; 32],
) -> [u8; 48] {
    let mut seed = [0u8; 64];
    seed[..32].copy_from_slice(client_random);
    seed[32..].copy_from_slice(server_random);
    let mut ms = [0u8; 48];
    prf(pms, b"master secret", &seed, &mut ms);
    ms
}

/// The master secret as [`master_secret`] computes it, with the premaster held elsewhere (a
/// device's key handle): `hmac(parts)` is HMAC-SM3 keyed with the premaster over `parts`
/// concatenated. P_SM3's four HMACs: A(1), the first block, A(2), the second.
pub(crate) fn master_secret_held<E>(
    mut hmac: impl FnMut(&[&[u8]]) -> Result<[u8; 32], E>,
    client_random: &[u8; 32],
    server_random: &[u8; 32],
) -> Result<[u8; 48], E> {
    const LABEL: &[u8] = b"master secret";
    let mut ms = [0u8; 48];
    let mut a1 = hmac(&[LABEL, client_random, server_random])?;
    let mut block = hmac(&[&a1, LABEL, client_random, server_random])?;
    ms[..32].copy_from_slice(&block);
    let mut a2 = hmac(&[&a1])?;
    a1.zeroize();
    block.zeroize();
    block = hmac(&[&a2, LABEL, client_random, server_random])?;
    a2.zeroize();
    ms[32..].copy_from_slice(&block[..16]);
    block.zeroize();
    Ok(ms)
}

/// 12-byte verify_data = PRF(ms, label, SM3(transcript)).
pub(crate) fn verify_data(ms: &[u8; 48], label: &[u8], transcript_hash: &[u8; 32]) -> [u8; 12] {
    let mut out = [0u8; 12];
    prf(ms, label, transcript_hash, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The master secret through an HMAC oracle (a device's held premaster) equals the one
    /// from the premaster's bytes.
    #[test]
    fn held_premaster_gives_the_same_master_secret() {
        let pms: [u8; 48] = core::array::from_fn(|i| i as u8 ^ 0x5a);
        let (cr, sr) = ([1u8; 32], [2u8; 32]);
        let held = master_secret_held(|parts| Ok::<_, ()>(hmac_sm3(&pms, parts)), &cr, &sr);
        assert_eq!(held, Ok(master_secret(&pms, &cr, &sr)));
        assert_eq!(
            master_secret_held(|_| Err::<[u8; 32], _>("device"), &cr, &sr),
            Err("device")
        );
    }
}
