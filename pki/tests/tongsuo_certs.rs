//! Tongsuo's SM2 test certificates (Tongsuo-Project/Tongsuo @ 540603a3, test/certs/,
//! Apache-2.0; test-only keys) verified by this crate's chain verifier: a 2-level chain
//! with the SM2 OID as key algorithm, a 3-level chain with pathlen 0 and a wildcard leaf,
//! and a certificate signed without Z_A that must fail.
#![allow(clippy::unwrap_used)]

use shangmi_pki::pem::certificates;
use shangmi_pki::verify::{Options, Purpose, VerifyError, verify_chain};

/// 2026-01-01: inside every validity period here (the 3-level chain ends in April 2030).
const T: u64 = 1_767_225_600;

#[test]
fn tongsuo_root_and_first() {
    let root = certificates(ROOT.as_bytes()).unwrap();
    let first = certificates(FIRST.as_bytes()).unwrap();
    let opts = Options::at(T, Purpose::Any);
    assert_eq!(verify_chain(&first[0], &[], &root, &opts).unwrap().len(), 2);
    // self-issued (same name as the root), CA:FALSE, signed by the root key
    let selfi = certificates(SELF_ISSUED.as_bytes()).unwrap();
    verify_chain(&selfi[0], &[], &root, &opts).unwrap();
    verify_chain(&root[0], &[], &root, &opts).unwrap();
    // a CA:FALSE certificate cannot issue
    assert!(verify_chain(&first[0], &[], &selfi, &opts).is_err());
}

#[test]
fn tongsuo_three_level_chain() {
    let chain = certificates(CHAIN_CA.as_bytes()).unwrap();
    assert_eq!(chain.len(), 2);
    let (middle, root) = (&chain[0], &chain[1]);
    let leaf = certificates(LEAF.as_bytes()).unwrap();
    let opts = Options::at(T, Purpose::TlsServer).with_host("www.alipay.com");
    let path = verify_chain(
        &leaf[0],
        std::slice::from_ref(middle),
        std::slice::from_ref(root),
        &opts,
    )
    .unwrap();
    assert_eq!(path.len(), 3);
    // The leaf through the middle CA to the root, under `opts`.
    let full = |opts: &Options| {
        verify_chain(
            &leaf[0],
            std::slice::from_ref(middle),
            std::slice::from_ref(root),
            opts,
        )
    };
    full(&Options::at(T, Purpose::TlsServer).with_host("alipay.com")).unwrap();
    let opts = Options::at(T, Purpose::TlsServer).with_host("a.b.alipay.com");
    assert_eq!(full(&opts), Err(VerifyError::HostMismatch));
    // 2031: the leaf expired in April 2030
    let opts = Options::at(1_924_992_000, Purpose::Any);
    assert_eq!(full(&opts), Err(VerifyError::Expired { depth: 0 }));
    // the middle CA alone as trust anchor
    verify_chain(
        &leaf[0],
        &[],
        std::slice::from_ref(middle),
        &Options::at(T, Purpose::Any),
    )
    .unwrap();
}

#[test]
fn tongsuo_no_za_signature_is_refused() {
    let root = certificates(NOZA_ROOT.as_bytes()).unwrap();
    let cert = certificates(NOZA.as_bytes()).unwrap();
    assert_eq!(
        verify_chain(&cert[0], &[], &root, &Options::at(T, Purpose::Any)),
        Err(VerifyError::BadSignature { depth: 0 })
    );
}

/// Tongsuo test/certs/sm2-root-cert.pem
const ROOT: &str = include_str!("data/tongsuo/sm2-root-cert.pem");

/// Tongsuo test/certs/sm2-first-crt.pem
const FIRST: &str = include_str!("data/tongsuo/sm2-first-crt.pem");

/// Tongsuo test/certs/sm2-cert.pem
const SELF_ISSUED: &str = include_str!("data/tongsuo/sm2-cert.pem");

/// Tongsuo test/certs/sm2-chain-ca.crt (its certificates, first one first)
const CHAIN_CA: &str = include_str!("data/tongsuo/sm2-chain-ca.pem");

/// Tongsuo test/certs/sm2-leaf.crt
const LEAF: &str = include_str!("data/tongsuo/sm2-leaf.pem");

/// Tongsuo test/certs/sm2-noza-root-cert.pem
const NOZA_ROOT: &str = include_str!("data/tongsuo/sm2-noza-root-cert.pem");

/// Tongsuo test/certs/sm2-noza-cert.pem
const NOZA: &str = include_str!("data/tongsuo/sm2-noza-cert.pem");
