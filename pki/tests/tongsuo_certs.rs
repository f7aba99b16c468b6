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
    let opts = Options::at(T, Purpose::TlsServer).with_host("alipay.com");
    verify_chain(
        &leaf[0],
        std::slice::from_ref(middle),
        std::slice::from_ref(root),
        &opts,
    )
    .unwrap();
    let opts = Options::at(T, Purpose::TlsServer).with_host("a.b.alipay.com");
    assert_eq!(
        verify_chain(
            &leaf[0],
            std::slice::from_ref(middle),
            std::slice::from_ref(root),
            &opts
        ),
        Err(VerifyError::HostMismatch)
    );
    // 2031: the leaf expired in April 2030
    let opts = Options::at(1_924_992_000, Purpose::Any);
    assert_eq!(
        verify_chain(
            &leaf[0],
            std::slice::from_ref(middle),
            std::slice::from_ref(root),
            &opts
        ),
        Err(VerifyError::Expired { depth: 0 })
    );
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
const ROOT: &str = "\
-----BEGIN CERTIFICATE-----
MIICADCCAaegAwIBAgIUXAScOKuIwcndzoWDMe9gSfUMi18wCgYIKoEcz1UBg3Uw
TjEPMA0GA1UECgwGU00yLUNBMSQwIgYDVQQDDBtTTTIgY2VydGlmaWNhdGUgc2ln
bmluZyBrZXkxFTATBgkqhkiG9w0BCQEWBmNhQHNtMjAgFw0yMzA0MjUwNjUxNTZa
GA8yMDUwMDkxMDA2NTE1NlowTjEPMA0GA1UECgwGU00yLUNBMSQwIgYDVQQDDBtT
TTIgY2VydGlmaWNhdGUgc2lnbmluZyBrZXkxFTATBgkqhkiG9w0BCQEWBmNhQHNt
MjBaMBQGCCqBHM9VAYItBggqgRzPVQGCLQNCAARK4B/0TgZCiRUkIIyGRZaCE4a6
pWvY5HTjYX+PoH3kpolGQ/KzjdALQ1ICYBO6LsSxzLwMUg3MvgDibGMZV9t3o2Aw
XjAPBgNVHRMBAf8EBTADAQH/MAsGA1UdDwQEAwIBBjAdBgNVHQ4EFgQUPjscE6pU
GFdHLY1byo1sbfpdspMwHwYDVR0jBBgwFoAUPjscE6pUGFdHLY1byo1sbfpdspMw
CgYIKoEcz1UBg3UDRwAwRAIgJo06j/Ev2IGF8y6b11qiOo5YVO8dL4RrYZBJ9sSr
0+4CIDZnMZrmAnQe190uLWstVsH70yj4Av3CkxQ1sfaGfniQ
-----END CERTIFICATE-----
";

/// Tongsuo test/certs/sm2-first-crt.pem
const FIRST: &str = "\
-----BEGIN CERTIFICATE-----
MIICDDCCAbKgAwIBAgIUQS2PdO0cClxkrCtYJOTk793lboswCgYIKoEcz1UBg3Uw
TjEPMA0GA1UECgwGU00yLUNBMSQwIgYDVQQDDBtTTTIgY2VydGlmaWNhdGUgc2ln
bmluZyBrZXkxFTATBgkqhkiG9w0BCQEWBmNhQHNtMjAgFw0yMzA1MjYxMDMzNTda
GA8yMDUwMTAxMTEwMzM1N1owXTETMBEGA1UECgwKcmZjODk5OC1DQTEoMCYGA1UE
AwwfUkZDODk5OCBjZXJ0aWZpY2F0ZSBzaWduaW5nIGtleTEcMBoGCSqGSIb3DQEJ
ARYNY2FAcmZjODk5OC1jYTBZMBMGByqGSM49AgEGCCqBHM9VAYItA0IABKlVKBRF
iKSmwACrHNpOLSDiEqZLol97Q/EG+O7N9YarJXhGTTRQ8YXux8A5/mrRot3OCmS0
5TcxoNhbYcZ1oAqjXTBbMAwGA1UdEwEB/wQCMAAwCwYDVR0PBAQDAgXgMB0GA1Ud
DgQWBBRk9bu6e4hgv4qdPDGEkz8YKAPoaTAfBgNVHSMEGDAWgBQ+OxwTqlQYV0ct
jVvKjWxt+l2ykzAKBggqgRzPVQGDdQNIADBFAiBnKEyI6/k2zZO7p8TcLx4sGJ7P
L4NlwedK1QQktYYQ1gIhAJV7/kUp0KnlKuCy6FpttvK23NfLY02I0PFJmcNsmSTt
-----END CERTIFICATE-----
";

/// Tongsuo test/certs/sm2-cert.pem
const SELF_ISSUED: &str = "\
-----BEGIN CERTIFICATE-----
MIIB/zCCAaSgAwIBAgIUXL0hEsZsfetdIiPFtxDgKFHRfWswCgYIKoEcz1UBg3Uw
TjEPMA0GA1UECgwGU00yLUNBMSQwIgYDVQQDDBtTTTIgY2VydGlmaWNhdGUgc2ln
bmluZyBrZXkxFTATBgkqhkiG9w0BCQEWBmNhQHNtMjAgFw0yMzA0MjUwNjUxNTZa
GA8yMDUwMDkxMDA2NTE1NlowTjEPMA0GA1UECgwGU00yLUNBMSQwIgYDVQQDDBtT
TTIgY2VydGlmaWNhdGUgc2lnbmluZyBrZXkxFTATBgkqhkiG9w0BCQEWBmNhQHNt
MjBaMBQGCCqBHM9VAYItBggqgRzPVQGCLQNCAARmJiuMDZvqstW5mi1yj931E6S5
jxkJdqO4hE0A4n05vGGlc/K0JrCNNDPxYM97jcmbNDogre5Vh6m+9IGLtXvNo10w
WzAMBgNVHRMBAf8EAjAAMAsGA1UdDwQEAwIGwDAdBgNVHQ4EFgQU1Q7WULoMM5g/
AyY0AxfrrvehM9cwHwYDVR0jBBgwFoAUPjscE6pUGFdHLY1byo1sbfpdspMwCgYI
KoEcz1UBg3UDSQAwRgIhALwTlkh4uvDB/S9bP0m/pxrf6D5yBjOqqojCDCyflrVY
AiEA9kzSE4ASlZDZ9HLxg4QZ/+4Wj18yrOpNEIugmGcP52w=
-----END CERTIFICATE-----
";

/// Tongsuo test/certs/sm2-chain-ca.crt (its certificates, first one first)
const CHAIN_CA: &str = "\
-----BEGIN CERTIFICATE-----
MIICQzCCAeqgAwIBAgIQILmubp7njmhGt3wZLFwx6DAKBggqgRzPVQGDdTBzMQsw
CQYDVQQGEwJDTjELMAkGA1UECAwCSFoxDDAKBgNVBAoMA2FsaTEMMAoGA1UECwwD
YW50MRgwFgYDVQQDDA93d3cuZXhhbXBsZS5jb20xITAfBgkqhkiG9w0BCQEWEmNs
aWVudEBleGFtcGxlLmNvbTAeFw0yMDA0MTQwODExMDFaFw0zMDA0MTIwODExMDFa
MG0xCzAJBgNVBAYTAkNOMQswCQYDVQQIDAJIWjEMMAoGA1UECgwDYWxpMQwwCgYD
VQQLDANhbnQxFzAVBgNVBAMMDnd3dy5taWRkbGUuY29tMRwwGgYJKoZIhvcNAQkB
Fg10ZXN0QHRlc3QuY29tMFkwEwYHKoZIzj0CAQYIKoEcz1UBgi0DQgAEtxG+DiyN
N9cJzNj5TLdw11p9QeFuqkSY4ak1IIj1WKZOOCNIitgPJqcX8XB006rkWdFWjlXR
X7zcaOrc+mxZE6NmMGQwHQYDVR0OBBYEFHFQaFdzKiLW5tKSCzoJxVZYAGFeMB8G
A1UdIwQYMBaAFHwhHQcZorHZdhywlUFAa7w2dhtuMBIGA1UdEwEB/wQIMAYBAf8C
AQAwDgYDVR0PAQH/BAQDAgGGMAoGCCqBHM9VAYN1A0cAMEQCIG4u6DcPtkPooX2z
p7lh2loc/8aDAs65Xz49EQSYr4UoAiB4u99d4sciGppB7gfwPzts774gzSSuBjpX
apT8msITgw==
-----END CERTIFICATE-----
-----BEGIN CERTIFICATE-----
MIICRzCCAe2gAwIBAgIQILmubp7njmhGt3wZLFwx5zAKBggqgRzPVQGDdTBzMQsw
CQYDVQQGEwJDTjELMAkGA1UECAwCSFoxDDAKBgNVBAoMA2FsaTEMMAoGA1UECwwD
YW50MRgwFgYDVQQDDA93d3cuZXhhbXBsZS5jb20xITAfBgkqhkiG9w0BCQEWEmNs
aWVudEBleGFtcGxlLmNvbTAeFw0yMDA0MTQwODAyNTJaFw0zMDA0MTIwODAyNTJa
MHMxCzAJBgNVBAYTAkNOMQswCQYDVQQIDAJIWjEMMAoGA1UECgwDYWxpMQwwCgYD
VQQLDANhbnQxGDAWBgNVBAMMD3d3dy5leGFtcGxlLmNvbTEhMB8GCSqGSIb3DQEJ
ARYSY2xpZW50QGV4YW1wbGUuY29tMFkwEwYHKoZIzj0CAQYIKoEcz1UBgi0DQgAE
D2mc0ctYS8z6WNXNsqUGPutEkCwAOXMGXiYUpZMjMuqX3QE27wlqQMJnw6yPPOxW
ivHSrdH04YMShezq3lDyxqNjMGEwHQYDVR0OBBYEFHwhHQcZorHZdhywlUFAa7w2
dhtuMB8GA1UdIwQYMBaAFHwhHQcZorHZdhywlUFAa7w2dhtuMA8GA1UdEwEB/wQF
MAMBAf8wDgYDVR0PAQH/BAQDAgGGMAoGCCqBHM9VAYN1A0gAMEUCIQCeqtmZYECI
qKkHrwvJTwZrwA6+3kDRtP05UkKM+IYstwIgX1ibBxA96y1oR52gzuygkSBfdJH6
y2CCchQP2LJh2Hw=
-----END CERTIFICATE-----
";

/// Tongsuo test/certs/sm2-leaf.crt
const LEAF: &str = "\
-----BEGIN CERTIFICATE-----
MIIDKjCCAs+gAwIBAgIQILmubp7njmhGt3wZLFwx6jAKBggqgRzPVQGDdTBtMQsw
CQYDVQQGEwJDTjELMAkGA1UECAwCSFoxDDAKBgNVBAoMA2FsaTEMMAoGA1UECwwD
YW50MRcwFQYDVQQDDA53d3cubWlkZGxlLmNvbTEcMBoGCSqGSIb3DQEJARYNdGVz
dEB0ZXN0LmNvbTAeFw0yMDA0MTQwOTA3MzlaFw0zMDA0MTIwOTA3MzlaME0xCzAJ
BgNVBAYTAkNOMQswCQYDVQQIDAJIWjEMMAoGA1UECgwDYWxpMQwwCgYDVQQLDANh
bnQxFTATBgNVBAMMDCouYWxpcGF5LmNvbTBZMBMGByqGSM49AgEGCCqBHM9VAYIt
A0IABDG4howcZA6wta8LlZSAv+n2xnZ2isY9vy5L/RHDiyr91hbhYtXmnlL0EpDX
ETHWgIsaTPkSkPgqemd7MyVK9I2jggFvMIIBazAJBgNVHRMEAjAAMBEGCWCGSAGG
+EIBAQQEAwIGQDAzBglghkgBhvhCAQ0EJhYkT3BlblNTTCBHZW5lcmF0ZWQgU2Vy
dmVyIENlcnRpZmljYXRlMB0GA1UdDgQWBBQpsBvv0pBVShGKj2Ib3MLqCr7Y8DCB
rAYDVR0jBIGkMIGhgBRxUGhXcyoi1ubSkgs6CcVWWABhXqF3pHUwczELMAkGA1UE
BhMCQ04xCzAJBgNVBAgMAkhaMQwwCgYDVQQKDANhbGkxDDAKBgNVBAsMA2FudDEY
MBYGA1UEAwwPd3d3LmV4YW1wbGUuY29tMSEwHwYJKoZIhvcNAQkBFhJjbGllbnRA
ZXhhbXBsZS5jb22CECC5rm6e545oRrd8GSxcMegwDgYDVR0PAQH/BAQDAgWgMBMG
A1UdJQQMMAoGCCsGAQUFBwMBMCMGA1UdEQQcMBqCCmFsaXBheS5jb22CDCouYWxp
cGF5LmNvbTAKBggqgRzPVQGDdQNJADBGAiEAmuMCuZKaF3zVYc1T6DGGi0+hmMuZ
jpH7uznwqix7GJsCIQCOjB/iG+WxOvUz//t//Ru1QnVivDaCEQXkW2dXyX+fWg==
-----END CERTIFICATE-----
";

/// Tongsuo test/certs/sm2-noza-root-cert.pem
const NOZA_ROOT: &str = "\
-----BEGIN CERTIFICATE-----
MIICLDCCAdGgAwIBAgIUJ/e/tkz4TV0O4rK/D9wMihtN044wCgYIKoEcz1UBg3Uw
YzEUMBIGA1UECgwLU00yLW5vemEtQ0ExLzAtBgNVBAMMJlNNMiBjZXJ0aWZpY2F0
ZSBzaWduaW5nIGtleSB3aXRob3V0IFphMRowGAYJKoZIhvcNAQkBFgtjYUBzbTIt
bm96YTAgFw0yMzA0MjUwNjUyMDFaGA8yMDUwMDkxMDA2NTIwMVowYzEUMBIGA1UE
CgwLU00yLW5vemEtQ0ExLzAtBgNVBAMMJlNNMiBjZXJ0aWZpY2F0ZSBzaWduaW5n
IGtleSB3aXRob3V0IFphMRowGAYJKoZIhvcNAQkBFgtjYUBzbTItbm96YTBaMBQG
CCqBHM9VAYItBggqgRzPVQGCLQNCAARK4B/0TgZCiRUkIIyGRZaCE4a6pWvY5HTj
YX+PoH3kpolGQ/KzjdALQ1ICYBO6LsSxzLwMUg3MvgDibGMZV9t3o2AwXjAPBgNV
HRMBAf8EBTADAQH/MAsGA1UdDwQEAwIBBjAdBgNVHQ4EFgQUPjscE6pUGFdHLY1b
yo1sbfpdspMwHwYDVR0jBBgwFoAUPjscE6pUGFdHLY1byo1sbfpdspMwCgYIKoEc
z1UBg3UDSQAwRgIhAOuqSwsKZtGALlGnQPAuG/fS9p2OvLO+irJjaUodrsImAiEA
rMuKs+grOOChvsdJF123lJuiuFcn7tah0vkdTUVrbPo=
-----END CERTIFICATE-----
";

/// Tongsuo test/certs/sm2-noza-cert.pem
const NOZA: &str = "\
-----BEGIN CERTIFICATE-----
MIICJzCCAc6gAwIBAgIUFVGj8KLUk0VlKeIx7NdUDYB+fXAwCgYIKoEcz1UBg3Uw
YzEUMBIGA1UECgwLU00yLW5vemEtQ0ExLzAtBgNVBAMMJlNNMiBjZXJ0aWZpY2F0
ZSBzaWduaW5nIGtleSB3aXRob3V0IFphMRowGAYJKoZIhvcNAQkBFgtjYUBzbTIt
bm96YTAgFw0yMzA0MjUwNjUyMDFaGA8yMDUwMDkxMDA2NTIwMVowYzEUMBIGA1UE
CgwLU00yLW5vemEtQ0ExLzAtBgNVBAMMJlNNMiBjZXJ0aWZpY2F0ZSBzaWduaW5n
IGtleSB3aXRob3V0IFphMRowGAYJKoZIhvcNAQkBFgtjYUBzbTItbm96YTBaMBQG
CCqBHM9VAYItBggqgRzPVQGCLQNCAARmJiuMDZvqstW5mi1yj931E6S5jxkJdqO4
hE0A4n05vGGlc/K0JrCNNDPxYM97jcmbNDogre5Vh6m+9IGLtXvNo10wWzAMBgNV
HRMBAf8EAjAAMAsGA1UdDwQEAwIGwDAdBgNVHQ4EFgQU1Q7WULoMM5g/AyY0Axfr
rvehM9cwHwYDVR0jBBgwFoAUPjscE6pUGFdHLY1byo1sbfpdspMwCgYIKoEcz1UB
g3UDRwAwRAIgPt4nmxBI9OyLRCP6CxM1tUX6fbqPs/mwdFsURbMBxX4CIEo8hJwF
c+4XXfq7cvzBYLVQOvPIFyZ5VgFBC7VnD/pv
-----END CERTIFICATE-----
";
