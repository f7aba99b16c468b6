//! Differential fuzzing of ZUC: shangmi-zuc (bit-plane S-box circuits) against the
//! table-based `zuc` crate 0.4.1 for the ZUC-128 and ZUC-256 keystreams, 128-EEA3,
//! 128-EIA3 (one packet, and several at once through `eea3_many`) and the three ZUC-256
//! MACs, with bit-granular lengths and a streaming split.
//!
//! Input: 32 key bytes, 23 packed ZUC-256 IV bytes, 4 COUNT bytes, one byte of BEARER (low
//! 5 bits) and DIRECTION (bit 5), one byte of unused tail bits (low 3 bits) and the split
//! point (high 5 bits), then the message. Short inputs are padded with zeros.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shangmi_zuc::{
    Eia3, Zuc128, Zuc256, Zuc256Mac32, Zuc256Mac64, Zuc256Mac128,
    cipher::{KeyIvInit, StreamCipher},
    digest::Mac,
    eea3, zuc256_iv_from_packed,
};

const HEAD: usize = 32 + 23 + 4 + 1 + 1;

/// `msg` XORed with the peer's keystream, `word` giving its 32-bit words in order (each
/// big-endian; the last one cut to what is left of `msg`).
fn xor_words(msg: &[u8], mut word: impl FnMut() -> u32) -> Vec<u8> {
    let mut out = msg.to_vec();
    for chunk in out.chunks_mut(4) {
        for (b, k) in chunk.iter_mut().zip(word().to_be_bytes()) {
            *b ^= k;
        }
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let mut head = [0u8; HEAD];
    let n = data.len().min(HEAD);
    head[..n].copy_from_slice(&data[..n]);
    let msg = &data[n..];
    let key: [u8; 32] = head[..32].try_into().expect("32");
    let packed: [u8; 23] = head[32..55].try_into().expect("23");
    let count = u32::from_be_bytes(head[55..59].try_into().expect("4"));
    let bearer = head[59] & 0x1f;
    let direction = (head[59] >> 5) & 1;
    let cut = usize::from(head[60] & 7);
    let k16: [u8; 16] = key[..16].try_into().expect("16");
    let iv16: [u8; 16] = packed[..16].try_into().expect("16");
    let iv25 = zuc256_iv_from_packed(&packed);

    // Keystreams.
    let mut ours = msg.to_vec();
    Zuc128::new(&k16.into(), &iv16.into()).apply_keystream(&mut ours);
    let mut z = zuc::zuc128::Zuc128Keystream::new(&k16, &iv16);
    assert_eq!(ours, xor_words(msg, || z.generate()), "ZUC-128");
    let mut ours = msg.to_vec();
    Zuc256::new(&key.into(), &iv25.into()).apply_keystream(&mut ours);
    let mut z = zuc::zuc256::Zuc256Keystream::new(&key, &packed);
    assert_eq!(ours, xor_words(msg, || z.generate()), "ZUC-256");

    if msg.is_empty() {
        return;
    }
    let bits = 8 * msg.len() - cut;
    let split = usize::from(head[60] >> 3).min(bits / 8);

    let mut ours = msg.to_vec();
    eea3(&k16, count, bearer, direction, &mut ours, bits).expect("valid");
    let mut peer = msg.to_vec();
    zuc::eea3::eea3_xor_inplace(count, bearer, direction, &k16, &mut peer, bits);
    assert_eq!(ours, peer, "EEA3");

    // Many packets at once (eea3_many: AVX2 lanes where the CPU has them): pieces of the
    // message of different lengths, each under its own key and BEARER, each against the peer.
    let pieces: Vec<&[u8]> = (0..1 + msg.len() % 9)
        .map(|i| &msg[(i * 7) % msg.len()..])
        .collect();
    let mut ours: Vec<Vec<u8>> = pieces.iter().map(|p| p.to_vec()).collect();
    let mut packets: Vec<shangmi_zuc::Eea3Packet<'_>> = ours
        .iter_mut()
        .enumerate()
        .map(|(i, d)| {
            let mut ck = k16;
            ck[0] ^= i as u8;
            let bit_len = (8 * d.len()).saturating_sub(cut);
            shangmi_zuc::Eea3Packet {
                ck,
                count,
                bearer: (bearer + i as u8) & 0x1f,
                direction,
                data: d,
                bit_len,
            }
        })
        .collect();
    // A packet whose bit length cut below its byte length is refused as a whole batch.
    if packets
        .iter()
        .any(|p| p.data.len() != p.bit_len.div_ceil(8))
    {
        assert!(shangmi_zuc::eea3_many(&mut packets).is_err());
    } else {
        shangmi_zuc::eea3_many(&mut packets).expect("valid");
        for (i, (o, p)) in ours.iter().zip(&pieces).enumerate() {
            let mut ck = k16;
            ck[0] ^= i as u8;
            let mut peer = p.to_vec();
            let bits = (8 * p.len()).saturating_sub(cut);
            zuc::eea3::eea3_xor_inplace(
                count,
                (bearer + i as u8) & 0x1f,
                direction,
                &ck,
                &mut peer,
                bits,
            );
            assert_eq!(o, &peer, "EEA3 many, packet {i}");
        }
    }

    let mut mac = Eia3::with_params(&k16, count, bearer, direction).expect("valid");
    mac.update(&msg[..split]);
    let ours = mac
        .finalize_bits(&msg[split..], bits - 8 * split)
        .expect("valid");
    let peer = zuc::eia3::Eia3Mac::compute(count, bearer, direction, &k16, msg, bits);
    assert_eq!(u32::from_be_bytes(ours), peer, "EIA3");

    // The three ZUC-256 MACs, streamed with the split, against the peer's one-shot MAC.
    macro_rules! zuc256_mac {
        ($ours:ty, $word:ty, $what:literal) => {{
            let mut m = <$ours>::new(&key.into(), &iv25.into());
            m.update(&msg[..split]);
            let ours = m
                .finalize_bits(&msg[split..], bits - 8 * split)
                .expect("valid");
            let peer = zuc::zuc256::Zuc256Mac::<$word>::compute(&key, &packed, msg, bits);
            assert_eq!(ours.as_slice(), &peer.to_be_bytes()[..], $what);
        }};
    }
    zuc256_mac!(Zuc256Mac32, u32, "MAC-32");
    zuc256_mac!(Zuc256Mac64, u64, "MAC-64");
    zuc256_mac!(Zuc256Mac128, u128, "MAC-128");
});
