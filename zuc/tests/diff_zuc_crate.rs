//! Differential tests against the independent `zuc` crate (crates.io, v0.4.1, Nugine/zuc:
//! table-based, `cipher` 0.4 / `digest` 0.10): random keys, IVs, messages and bit lengths.
//! OpenSSL 3.0 has no ZUC, so it cannot be a peer here.
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use shangmi_zuc::{
    Eia3, Zuc128, Zuc256, Zuc256Mac,
    cipher::{KeyIvInit, StreamCipher, StreamCipherSeek},
    digest::{
        Mac,
        consts::{U4, U8, U16},
    },
    eea3, zuc256_iv_from_packed,
};

fn keystream<C: StreamCipher>(mut c: C, n: usize) -> Vec<u8> {
    let mut out = vec![0u8; n];
    c.apply_keystream(&mut out);
    out
}

fn peer_words(mut next: impl FnMut() -> u32, n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n + 4);
    while out.len() < n {
        out.extend_from_slice(&next().to_be_bytes());
    }
    out.truncate(n);
    out
}

/// The 32-, 64- and 128-bit ZUC-256 tags over the first `bits` bits of `data`: (name, ours,
/// the peer's). Ours takes the first `split` bytes through `Mac::update` and the rest
/// through `finalize_bits`.
fn zuc256_tags(
    key: &[u8; 32],
    packed: &[u8; 23],
    data: &[u8],
    bits: usize,
    split: usize,
) -> [(&'static str, Vec<u8>, Vec<u8>); 3] {
    let iv = zuc256_iv_from_packed(packed);
    macro_rules! tags {
        ($what:literal, $Size:ty, $Word:ty) => {{
            let mut m = Zuc256Mac::<$Size>::new(&(*key).into(), &iv.into());
            Mac::update(&mut m, &data[..split]);
            let ours = m.finalize_bits(&data[split..], bits - 8 * split).unwrap();
            let peer = zuc::zuc256::Zuc256Mac::<$Word>::compute(key, packed, data, bits);
            ($what, ours.to_vec(), peer.to_be_bytes().to_vec())
        }};
    }
    [
        tags!("mac32", U4, u32),
        tags!("mac64", U8, u64),
        tags!("mac128", U16, u128),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn diff_zuc_crate_zuc128_keystream(key in any::<[u8; 16]>(), iv in any::<[u8; 16]>(), n in 0usize..600) {
        let ours = keystream(Zuc128::new(&key.into(), &iv.into()), n);
        let mut peer = zuc::zuc128::Zuc128Keystream::new(&key, &iv);
        prop_assert_eq!(ours, peer_words(|| peer.generate(), n));
    }

    #[test]
    fn diff_zuc_crate_zuc256_keystream(key in any::<[u8; 32]>(), packed in any::<[u8; 23]>(), n in 0usize..600) {
        let iv = zuc256_iv_from_packed(&packed);
        let ours = keystream(Zuc256::new(&key.into(), &iv.into()), n);
        let mut peer = zuc::zuc256::Zuc256Keystream::new(&key, &packed);
        prop_assert_eq!(ours, peer_words(|| peer.generate(), n));
        // The two high bits of IV17..IV24 are ignored.
        let mut high = iv;
        for b in &mut high[17..] {
            *b |= 0xc0;
        }
        prop_assert_eq!(
            keystream(Zuc256::new(&key.into(), &high.into()), 64),
            keystream(Zuc256::new(&key.into(), &iv.into()), 64)
        );
    }

    #[test]
    fn diff_zuc_crate_seek(key in any::<[u8; 16]>(), iv in any::<[u8; 16]>(), a in 0u64..300, b in 0u64..300, n in 1usize..40) {
        let full = keystream(Zuc128::new(&key.into(), &iv.into()), 400);
        let mut c = Zuc128::new(&key.into(), &iv.into());
        c.seek(a);
        let _ = keystream(&mut c, n);
        c.seek(b);
        prop_assert_eq!(c.current_pos::<u64>(), b);
        let got = keystream(&mut c, n);
        prop_assert_eq!(&got[..], &full[b as usize..b as usize + n]);
    }

    #[test]
    fn diff_zuc_crate_eea3(
        key in any::<[u8; 16]>(), count in any::<u32>(), bearer in 0u8..32, direction in 0u8..2,
        data in proptest::collection::vec(any::<u8>(), 1..300), cut in 0usize..8,
    ) {
        let bits = 8 * data.len() - cut;
        let mut ours = data.clone();
        eea3(&key, count, bearer, direction, &mut ours, bits).unwrap();
        let mut peer = data.clone();
        zuc::eea3::eea3_xor_inplace(count, bearer, direction, &key, &mut peer, bits);
        prop_assert_eq!(ours, peer);
    }

    #[test]
    fn diff_zuc_crate_eia3(
        key in any::<[u8; 16]>(), count in any::<u32>(), bearer in 0u8..32, direction in 0u8..2,
        data in proptest::collection::vec(any::<u8>(), 1..300), cut in 0usize..8, split in 0usize..300,
    ) {
        let bits = 8 * data.len() - cut;
        let peer = zuc::eia3::Eia3Mac::compute(count, bearer, direction, &key, &data, bits);
        let split = split.min(bits / 8);
        let mut mac = Eia3::with_params(&key, count, bearer, direction).unwrap();
        Mac::update(&mut mac, &data[..split]);
        let ours = mac.finalize_bits(&data[split..], bits - 8 * split).unwrap();
        prop_assert_eq!(u32::from_be_bytes(ours), peer);
        // Whole bytes through digest::Mac.
        let mac = Eia3::with_params(&key, count, bearer, direction).unwrap();
        let ours = mac.chain_update(&data).finalize().into_bytes();
        let peer = zuc::eia3::Eia3Mac::compute(count, bearer, direction, &key, &data, 8 * data.len());
        prop_assert_eq!(u32::from_be_bytes(ours.into()), peer);
    }

    #[test]
    fn diff_zuc_crate_zuc256_mac(
        key in any::<[u8; 32]>(), packed in any::<[u8; 23]>(),
        data in proptest::collection::vec(any::<u8>(), 1..300), cut in 0usize..8, split in 0usize..300,
    ) {
        let bits = 8 * data.len() - cut;
        let split = split.min(bits / 8);
        for (what, ours, peer) in zuc256_tags(&key, &packed, &data, bits, split) {
            prop_assert_eq!(ours, peer, "{}", what);
        }
    }
}

/// Lengths that are multiples of 32 bits (no published EIA3 vector has one: the final
/// key word is then the window's second word) and lengths around the 16-byte block of the
/// 128-bit ZUC-256 tag, where gmsm v0.44 goes wrong.
#[test]
fn diff_zuc_crate_mac_boundaries() {
    let key = [0x5au8; 32];
    let packed = [0xa5u8; 23];
    let data: Vec<u8> = (0..200u8).map(|i| i.wrapping_mul(37) ^ 0x6c).collect();
    // 428 bits: the length of gmsm v0.44's own (wrong) 64/128-bit tag test values.
    for bits in (0..=1200usize).filter(|b| b % 32 <= 1 || b % 32 == 31 || b % 128 < 40 || *b == 428)
    {
        let msg = &data[..bits.div_ceil(8)];
        let k16: [u8; 16] = key[..16].try_into().unwrap();
        let ours = Eia3::with_params(&k16, 7, 3, 1)
            .unwrap()
            .finalize_bits(msg, bits)
            .unwrap();
        let peer = zuc::eia3::Eia3Mac::compute(7, 3, 1, &k16, msg, bits);
        assert_eq!(u32::from_be_bytes(ours), peer, "eia3 {bits}");
        for (what, ours, peer) in zuc256_tags(&key, &packed, msg, bits, 0) {
            assert_eq!(ours, peer, "zuc256 {what} {bits}");
        }
    }
}
