//! Published known answers, run on every engine this CPU has.

use hex_literal::hex;
use shangmi_sm4::{
    Backend, CtrFlavor, Sm4,
    cipher::{Array, BlockCipherDecrypt, BlockCipherEncrypt, KeyInit},
};

fn ciphers(key: &[u8; 16]) -> impl Iterator<Item = Sm4> + '_ {
    Backend::available().map(move |b| Sm4::with_backend(&(*key).into(), b).expect("available"))
}

/// GB/T 32907-2016 Appendix A, example 1 (also draft-ribose-cfrg-sm4-10 A.1.1).
#[test]
fn gbt32907_example_1() {
    let key = hex!("0123456789abcdeffedcba9876543210");
    for c in ciphers(&key) {
        let mut b = Array::from(key);
        c.encrypt_block(&mut b);
        assert_eq!(
            b,
            hex!("681edf34d206965e86b3e94f536e4246"),
            "{}",
            c.backend()
        );
        c.decrypt_block(&mut b);
        assert_eq!(b, key, "{}", c.backend());
    }
}

/// GB/T 32907-2016 Appendix A, example 2: example 1's plaintext encrypted 1,000,000 times
/// with the same key. Too slow unoptimised, so it runs in release builds (as CI does).
#[test]
#[cfg_attr(debug_assertions, ignore = "run with --release")]
fn gbt32907_example_2_million_iterations() {
    let key = hex!("0123456789abcdeffedcba9876543210");
    for c in ciphers(&key) {
        let mut b = Array::from(key);
        for _ in 0..1_000_000 {
            c.encrypt_block(&mut b);
        }
        assert_eq!(
            b,
            hex!("595298c7c6fd271f0402f804c33d3f66"),
            "{}",
            c.backend()
        );
        for _ in 0..1_000_000 {
            c.decrypt_block(&mut b);
        }
        assert_eq!(b, key, "{} (decrypting back)", c.backend());
    }
}

/// draft-ribose-cfrg-sm4-10 Appendix A.1, the second single-block example.
#[test]
fn ribose_single_block_example_2() {
    let key = hex!("fedcba98765432100123456789abcdef");
    for c in ciphers(&key) {
        let mut b = Array::from(hex!("000102030405060708090a0b0c0d0e0f"));
        c.encrypt_block(&mut b);
        assert_eq!(
            b,
            hex!("f766678f13f01adeac1b3ea955adb594"),
            "{}",
            c.backend()
        );
    }
}

/// draft-ribose-cfrg-sm4-10 Appendix A.2.1.1 and A.2.1.2 (SM4-ECB, two blocks).
#[test]
fn ribose_ecb_examples() {
    let pt = hex!("aaaaaaaabbbbbbbbccccccccddddddddeeeeeeeeffffffffaaaaaaaabbbbbbbb");
    let cases = [
        (
            hex!("0123456789abcdeffedcba9876543210"),
            hex!("5ec8143de509cff7b5179f8f474b86192f1d305a7fb17df985f81c8482192304"),
        ),
        (
            hex!("fedcba98765432100123456789abcdef"),
            hex!("c5876897e4a59bbba72a10c83872245b12dd90bc2d200692b529a4155ac9e600"),
        ),
    ];
    for (key, ct) in cases {
        for c in ciphers(&key) {
            let mut blocks = [
                Array::try_from(&pt[..16]).unwrap(),
                Array::try_from(&pt[16..]).unwrap(),
            ];
            c.encrypt_blocks(&mut blocks);
            assert_eq!(blocks.concat(), ct, "{}", c.backend());
            c.decrypt_blocks(&mut blocks);
            assert_eq!(blocks.concat(), pt, "{}", c.backend());
        }
    }
}

/// The default constructor picks the best engine.
/// draft-ribose-cfrg-sm4-10 Appendix A.2.5.1 and A.2.5.2 (SM4-CTR, 128-bit counter).
#[test]
fn ribose_ctr_examples() {
    let iv = hex!("000102030405060708090a0b0c0d0e0f");
    let pt = hex!(
        "aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbccccccccccccccccdddddddddddddddd"
        "eeeeeeeeeeeeeeeeffffffffffffffffaaaaaaaaaaaaaaaabbbbbbbbbbbbbbbb"
    );
    let cases = [
        (
            hex!("0123456789abcdeffedcba9876543210"),
            hex!(
                "ac3236cb970cc20791364c395a1342d1a3cbc1878c6f30cd074cce385cdd70c7"
                "f234bc0e24c11980fd1286310ce37b926e02fcd0faa0baf38b2933851d824514"
            ),
        ),
        (
            hex!("fedcba98765432100123456789abcdef"),
            hex!(
                "5dcccd25b95ab07417a08512ee160e2f8f661521cbbab44cc87138445bc29e5c"
                "0ae0297205d62704173b21239b887f6c8cb5b800917a2488284bde9e16ea2906"
            ),
        ),
    ];
    for (key, ct) in cases {
        for backend in Backend::available() {
            let c = Sm4::with_backend(&key.into(), backend).expect("available");
            let mut counter = iv;
            let mut data = pt;
            c.apply_ctr(CtrFlavor::Be128, &mut counter, &mut data);
            assert_eq!(data, ct, "{backend}");
            assert_eq!(
                counter,
                hex!("000102030405060708090a0b0c0d0e13"),
                "{backend}"
            );
        }
    }
}

#[test]
fn new_uses_the_best_engine() {
    let c = Sm4::new(&[0u8; 16].into());
    assert_eq!(c.backend(), Backend::best());
    println!("best SM4 engine here: {}", c.backend());
}

/// Debug output names the engine and never the key material.
#[test]
fn debug_is_redacted() {
    let c = Sm4::new(&hex!("0123456789abcdeffedcba9876543210").into());
    let s = format!("{c:?}");
    assert!(s.starts_with("Sm4 { backend: "), "{s}");
    // rk_0 of this key is f12186f9 (GB/T 32907-2016 Appendix A): it must not leak.
    assert!(
        !s.contains("4045506297") && !s.to_lowercase().contains("f12186f9"),
        "{s}"
    );
    assert!(!s.contains("0, 1") && !s.contains("35"), "{s}");
}

#[test]
fn backend_names_round_trip_and_unavailable_is_an_error() {
    for b in Backend::ALL {
        assert_eq!(b.name().parse::<Backend>(), Ok(b));
    }
    assert!("sm4-magic".parse::<Backend>().is_err());
    for b in Backend::ALL.into_iter().filter(|b| !b.is_available()) {
        assert!(Sm4::with_backend(&[0u8; 16].into(), b).is_err());
    }
    assert!(Backend::Soft.is_available() || Backend::available().count() == 1);
}
