//! CBC encryption/decryption, CFB encryption and CMAC on SM4's own chained paths, on every
//! engine the machine has: published vectors (draft-ribose-cfrg-sm4-10 Appendix A.2,
//! GB/T 15852.1-2020 Appendix B) and differentials against RustCrypto's `cbc`, `cfb-mode`
//! and `cmac` over RustCrypto's independent `sm4` crate, for lengths across the chunk
//! boundaries and for input split over several calls.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use cipher::{
    Block, BlockModeDecrypt, BlockModeEncrypt, InnerIvInit, IvState, KeyIvInit,
    block_padding::NoPadding,
};
use cmac::digest::{Mac, common::InnerInit};
use hex_literal::hex;
use proptest::prelude::*;
use shangmi_sm4::Sm4;
use shangmi_sm4_modes::{Sm4CbcDec, Sm4CbcEnc, Sm4CfbEnc, Sm4Cmac};

type TheirCbcEnc = cbc::Encryptor<rustcrypto_sm4::Sm4>;
type TheirCbcDec = cbc::Decryptor<rustcrypto_sm4::Sm4>;
type TheirCfbEnc = cfb_mode::Encryptor<rustcrypto_sm4::Sm4>;
type TheirCmac = cmac::Cmac<rustcrypto_sm4::Sm4>;

#[path = "support/draft_ribose.rs"]
mod draft_ribose;
#[path = "support/engines.rs"]
mod engines;
use engines::{ciphers, flat, to_blocks as blocks};

/// `data` through `mode` in pieces cut at `cuts` (block counts), as a stream would.
fn in_pieces(mut f: impl FnMut(&mut [Block<Sm4>]), data: &[u8], cuts: &[usize]) -> Vec<u8> {
    let mut b = blocks(data);
    let mut rest = &mut b[..];
    for &cut in cuts {
        let (head, tail) = rest.split_at_mut(cut.min(rest.len()));
        f(head);
        rest = tail;
    }
    f(rest);
    flat(&b)
}

#[test]
fn draft_ribose_a2_vectors_on_every_engine() {
    // draft-ribose-cfrg-sm4-10 Appendix A.2.2.1 (CBC) and A.2.4.1 (CFB), example 1.
    use draft_ribose::{CBC_CT, CFB_CT, IV, KEY, PT};
    for (name, c) in ciphers(&KEY) {
        let mut b = PT;
        Sm4CbcEnc::inner_iv_init(c.clone(), &IV.into())
            .encrypt_padded::<NoPadding>(&mut b, 32)
            .unwrap();
        assert_eq!(b, CBC_CT, "{name}");
        Sm4CbcDec::inner_iv_init(c.clone(), &IV.into())
            .decrypt_padded::<NoPadding>(&mut b)
            .unwrap();
        assert_eq!(b, PT, "{name}");
        let mut b = PT;
        Sm4CfbEnc::inner_iv_init(c.clone(), &IV.into())
            .encrypt_padded::<NoPadding>(&mut b, 32)
            .unwrap();
        assert_eq!(b, CFB_CT, "{name}");
    }
}

#[test]
fn gbt_15852_1_cmac_vectors_on_every_engine() {
    // GB/T 15852.1-2020 Appendix B, MAC algorithm 5 (CMAC) with SM4, as quoted in the
    // test file cbcmac/cbcmac_test.go of emmansun/gmsm: empty (K2 path), 32 bytes (K1),
    // 25 bytes (K2).
    let key = hex!("0123456789abcdeffedcba9876543210");
    let text = b"This is the test message for mac";
    let cases: [(&[u8], [u8; 16]); 3] = [
        (b"", hex!("29e154322e5c7bd8ee6a25ba549b24bc")),
        (text, hex!("692c437100f3b5ee2b8abcef373d990c")),
        (&text[..25], hex!("4738a6c760b280fc0c8a8af3886e9f5d")),
    ];
    for (name, c) in ciphers(&key) {
        for (msg, tag) in cases {
            let mut mac = Sm4Cmac::inner_init(c.clone());
            mac.update(msg);
            assert_eq!(mac.finalize().into_bytes()[..], tag, "{name} {}", msg.len());
        }
    }
    // Through `KeyInit` too.
    let mut mac = <Sm4Cmac as cmac::KeyInit>::new(&key.into());
    mac.update(text);
    assert!(
        mac.verify(&hex!("692c437100f3b5ee2b8abcef373d990c").into())
            .is_ok()
    );
}

#[test]
fn cbc_chain_into_writes_only_what_fits() {
    let key = [3u8; 16];
    let data: Vec<u8> = (0..16 * 5).map(|i| i as u8).collect();
    let input = blocks(&data);
    for (name, c) in ciphers(&key) {
        let mut full = [Block::<Sm4>::default(); 5];
        let mut state = Block::<Sm4>::from([9u8; 16]);
        c.cbc_chain_into(&mut state, &input, &mut full);
        assert_eq!(state, full[4], "{name}");
        let mut short = [Block::<Sm4>::default(); 2];
        let mut state2 = Block::<Sm4>::from([9u8; 16]);
        c.cbc_chain_into(&mut state2, &input, &mut short);
        assert_eq!((state2, &short[..]), (state, &full[..2]), "{name}");
        let mut state3 = Block::<Sm4>::from([9u8; 16]);
        c.cbc_chain(&mut state3, &input);
        assert_eq!(state3, state, "{name}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn diff_rustcrypto_chained_modes(
        key in any::<[u8; 16]>(),
        iv in any::<[u8; 16]>(),
        n in 0usize..600,
        cuts in proptest::collection::vec(0usize..300, 0..4),
    ) {
        let pt: Vec<u8> = (0..16 * n).map(|i| (i as u8).wrapping_mul(7) ^ key[1]).collect();
        let mut want_cbc = pt.clone();
        TheirCbcEnc::new(&key.into(), &iv.into()).encrypt_padded::<NoPadding>(&mut want_cbc, pt.len()).unwrap();
        let mut want_cfb = pt.clone();
        TheirCfbEnc::new(&key.into(), &iv.into()).encrypt_padded::<NoPadding>(&mut want_cfb, pt.len()).unwrap();
        let mut want_dec = want_cbc.clone();
        TheirCbcDec::new(&key.into(), &iv.into()).decrypt_padded::<NoPadding>(&mut want_dec).unwrap();
        prop_assert_eq!(&want_dec, &pt);
        let last = |c: &[u8]| if c.is_empty() { iv } else { c[c.len() - 16..].try_into().unwrap() };

        for (name, c) in ciphers(&key) {
            let mut enc = Sm4CbcEnc::inner_iv_init(c.clone(), &iv.into());
            let got = in_pieces(|b| enc.encrypt_blocks(b), &pt, &cuts);
            prop_assert_eq!(&got, &want_cbc, "cbc enc {} n {}", name, n);
            prop_assert_eq!(&enc.iv_state()[..], &last(&want_cbc)[..]);

            let mut dec = Sm4CbcDec::inner_iv_init(c.clone(), &iv.into());
            let got = in_pieces(|b| dec.decrypt_blocks(b), &want_cbc, &cuts);
            prop_assert_eq!(&got, &pt, "cbc dec {} n {}", name, n);
            prop_assert_eq!(&dec.iv_state()[..], &last(&want_cbc)[..]);

            let mut cfb = Sm4CfbEnc::inner_iv_init(c.clone(), &iv.into());
            let got = in_pieces(|b| cfb.encrypt_blocks(b), &pt, &cuts);
            prop_assert_eq!(&got, &want_cfb, "cfb enc {} n {}", name, n);
            prop_assert_eq!(&cfb.iv_state()[..], &last(&want_cfb)[..]);

            // Buffer to buffer, one block at a time, and padded.
            let (inp, mut out) = (blocks(&pt), vec![Block::<Sm4>::default(); n]);
            Sm4CbcEnc::inner_iv_init(c.clone(), &iv.into()).encrypt_blocks_b2b(&inp, &mut out).unwrap();
            prop_assert_eq!(out.concat(), want_cbc.clone());
            let mut back = vec![Block::<Sm4>::default(); n];
            Sm4CbcDec::inner_iv_init(c.clone(), &iv.into()).decrypt_blocks_b2b(&out, &mut back).unwrap();
            prop_assert_eq!(back.concat(), pt.clone(), "cbc dec b2b {} n {}", name, n);
            let mut one = Sm4CbcDec::inner_iv_init(c.clone(), &iv.into());
            for b in out.iter_mut() {
                one.decrypt_block(b);
            }
            prop_assert_eq!(out.concat(), pt.clone());
            let padded = Sm4CbcEnc::inner_iv_init(c.clone(), &iv.into()).encrypt_padded_vec::<cipher::block_padding::Pkcs7>(&pt[..pt.len().saturating_sub(3)]);
            let theirs = TheirCbcEnc::new(&key.into(), &iv.into()).encrypt_padded_vec::<cipher::block_padding::Pkcs7>(&pt[..pt.len().saturating_sub(3)]);
            prop_assert_eq!(padded, theirs);
        }
    }

    #[test]
    fn diff_rustcrypto_cmac_every_engine(
        key in any::<[u8; 16]>(),
        data in proptest::collection::vec(any::<u8>(), 0..1200),
        cuts in proptest::collection::vec(0usize..300, 0..4),
    ) {
        let mut theirs = <TheirCmac as cmac::KeyInit>::new(&key.into());
        theirs.update(&data);
        let want = theirs.finalize().into_bytes();
        for (name, c) in ciphers(&key) {
            let mut ours = Sm4Cmac::inner_init(c);
            let mut rest = &data[..];
            for &cut in &cuts {
                let (head, tail) = rest.split_at(cut.min(rest.len()));
                ours.update(head);
                rest = tail;
            }
            ours.update(rest);
            let mut again = ours.clone();
            prop_assert_eq!(ours.finalize().into_bytes(), want, "{} len {}", name, data.len());
            // Reset starts over with the same key.
            again.reset();
            again.update(&data);
            prop_assert!(again.verify(&want).is_ok());
        }
    }
}
