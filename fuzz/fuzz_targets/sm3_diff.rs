//! Differential fuzzing of SM3: every engine of ours (streamed through random split
//! points), the multi-buffer path, RustCrypto `sm3` 0.5 and OpenSSL must agree.
//!
//! Input: byte 0 = number of split points (mod 8), then that many 2-byte split offsets,
//! then the message.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shangmi_sm3::{Backend, Digest, Sm3, hazmat};

fuzz_target!(|data: &[u8]| {
    let (splits, msg) = match data.split_first() {
        Some((&n, rest)) => {
            let n = usize::from(n % 8).min(rest.len() / 2);
            let (cuts, msg) = rest.split_at(2 * n);
            let mut points: Vec<usize> = cuts
                .chunks_exact(2)
                .map(|c| usize::from(u16::from_le_bytes([c[0], c[1]])) % (msg.len() + 1))
                .collect();
            points.sort_unstable();
            (points, msg)
        }
        None => (Vec::new(), data),
    };

    let expected: [u8; 32] = openssl::hash::hash(openssl::hash::MessageDigest::sm3(), msg)
        .expect("OpenSSL SM3")[..]
        .try_into()
        .expect("32 bytes");
    assert_eq!(
        rustcrypto_sm3::Sm3::digest(msg)[..],
        expected[..],
        "RustCrypto"
    );

    for backend in Backend::available() {
        let mut h = Sm3::with_backend(backend).expect("listed as available");
        let mut start = 0;
        for &p in &splits {
            h.update(&msg[start..p]);
            start = p;
        }
        h.update(&msg[start..]);
        assert_eq!(
            <[u8; 32]>::from(h.finalize()),
            expected,
            "engine {backend}, streamed"
        );

        // Multi-buffer: the message and its prefixes at the split points, mixed lengths.
        let mut msgs: Vec<&[u8]> = splits.iter().map(|&p| &msg[..p]).collect();
        msgs.push(msg);
        let mut out = vec![[0u8; 32]; msgs.len()];
        hazmat::digest_many_with(backend, &msgs, &mut out).expect("listed as available");
        for (m, d) in msgs.iter().zip(&out) {
            assert_eq!(
                d[..],
                rustcrypto_sm3::Sm3::digest(m)[..],
                "engine {backend}, many"
            );
        }
    }
});
