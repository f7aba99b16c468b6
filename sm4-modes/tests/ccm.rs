//! SM4-CCM: RFC 8998 vector, error behaviour, and differential tests against RustCrypto's
//! generic `ccm::Ccm<sm4::Sm4, M, N>` on every SM4 engine. (OpenSSL: `tests/openssl.rs`.)

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use aead::{Aead, AeadInOut, KeyInit, Payload};
use hex_literal::hex;
use proptest::prelude::*;
use shangmi_sm4::{Backend, Sm4};
use shangmi_sm4_modes::{Sm4Ccm, Sm4CcmCustom};

// RFC 8998 Appendix A.2 (SM4-CCM test vector): the shared inputs, then this mode's output.
#[path = "support/rfc8998.rs"]
mod rfc8998;
use rfc8998::{KEY, NONCE, check_vector};
const CT: [u8; 64] = hex!(
    "48AF93501FA62ADBCD414CCE6034D895DDA1BF8F132F042098661572E7483094"
    "FD12E518CE062C98ACEE28D95DF4416BED31A2F04476C18BB40C84A74B97DC5B"
);
const TAG: [u8; 16] = hex!("16842D4FA186F56AB33256971FA110F4");

fn all_ccms(key: &[u8; 16]) -> Vec<(&'static str, Sm4Ccm)> {
    Backend::available()
        .map(|b| (b.name(), Sm4Ccm::with_backend(&(*key).into(), b).unwrap()))
        .collect()
}

#[test]
fn rfc8998_a2() {
    for (name, ccm) in all_ccms(&KEY) {
        check_vector(name, &ccm, &CT, &TAG);
    }
}

#[test]
fn wrong_tag_restores_ciphertext() {
    let ccm = Sm4Ccm::new(&KEY.into());
    rfc8998::wrong_tag_restores_ciphertext(&ccm, &[0, 1, 16, 64, 2048, 5000]);
    for len in 0..16 {
        assert!(ccm.decrypt(&NONCE.into(), &vec![0u8; len][..]).is_err());
    }
}

#[test]
fn message_too_long_for_the_length_field() {
    // A 13-byte nonce leaves a 2-byte length field: at most 65535 bytes.
    let ccm = Sm4CcmCustom::<aead::consts::U13, aead::consts::U16>::new(&KEY.into());
    let mut big = vec![0u8; 65536];
    assert!(
        ccm.encrypt_inout_detached(&[0u8; 13].into(), b"", (&mut big[..]).into())
            .is_err()
    );
    assert!(
        ccm.encrypt_inout_detached(&[0u8; 13].into(), b"", (&mut big[..65535]).into())
            .is_ok()
    );
}

fn check_sizes<T, N>(key: [u8; 16], msg: &[u8], aad: &[u8]) -> Result<(), TestCaseError>
where
    T: shangmi_sm4_modes::CcmTagSize + ccm::TagSize,
    N: shangmi_sm4_modes::CcmNonceSize + ccm::NonceSize,
{
    let nonce = aead::array::Array::<u8, N>::from_fn(|i| i as u8 ^ 0x5a);
    let theirs = ccm::Ccm::<rustcrypto_sm4::Sm4, T, N>::new(&key.into());
    let want = theirs
        .encrypt(&nonce, ccm::aead::Payload { msg, aad })
        .unwrap();
    for b in Backend::available() {
        let ours = Sm4CcmCustom::<N, T>::from_cipher(Sm4::with_backend(&key.into(), b).unwrap());
        let got = ours.encrypt(&nonce, Payload { msg, aad }).unwrap();
        prop_assert_eq!(&got, &want, "{} T{} N{}", b.name(), T::USIZE, N::USIZE);
        prop_assert_eq!(
            ours.decrypt(&nonce, Payload { msg: &got, aad }).unwrap(),
            msg
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    #[test]
    fn diff_rustcrypto_every_length(key in any::<[u8; 16]>(),
                                       aad in proptest::collection::vec(any::<u8>(), 0..40)) {
        for len in 0..=300usize {
            let msg: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_mul(13)).collect();
            check_sizes::<aead::consts::U16, aead::consts::U12>(key, &msg, &aad)?;
        }
    }

    #[test]
    fn diff_rustcrypto_other_sizes(key in any::<[u8; 16]>(), len in 0usize..3000,
                                    aad in proptest::collection::vec(any::<u8>(), 0..300)) {
        use aead::consts::*;
        let msg = vec![0xa5u8; len];
        check_sizes::<U4, U7>(key, &msg, &aad)?;
        check_sizes::<U6, U8>(key, &msg, &aad)?;
        check_sizes::<U8, U13>(key, &msg, &aad)?;
        check_sizes::<U10, U9>(key, &msg, &aad)?;
        check_sizes::<U14, U11>(key, &msg, &aad)?;
        check_sizes::<U12, U10>(key, &msg, &aad)?;
    }
}
