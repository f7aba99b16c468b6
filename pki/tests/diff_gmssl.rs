//! Outputs of GmSSL 3.3 (guanzhi/GmSSL @ 24ae482, built by hand outside the project; its
//! `gmssl` commands named at each constant), read by ours: a self-signed certificate
//! (`certgen`), a leaf issued from a request (`reqgen` + `reqsign`), a SignedData
//! (`cmssign`, which signs SM3 of the encapsulated content without Z_A and writes no signed
//! attributes: [`SignatureForm::GmSsl3`], taken by `cms::verify` with no option) and an
//! EnvelopedData (`cmsencrypt`, key transport
//! OID 1.2.156.10197.1.301.2). The other direction (GmSSL reading ours) was run by hand:
//! `gmssl cmsverify` takes `shangmi cert cms sign --gmssl-compat`, `gmssl cmsdecrypt` takes
//! `cms encrypt --gmssl-compat`, `gmssl certverify` takes our TLCP pair and TLS server
//! chains, `gmssl reqsign` takes our requests.
#![allow(clippy::unwrap_used)]

use shangmi_pki::cms::{self, CmsVerifyError, SignOptions, SignatureForm, Signer};
use shangmi_pki::pem::certificates;
use shangmi_pki::verify::{Options, Purpose, verify_chain};
use shangmi_pki::{Error, SecretKey};

/// 2026-12-01, inside every validity period here (the leaf ends 2026-12-07).
const T: u64 = 1_796_083_200;

fn gmssl_key() -> SecretKey {
    // `gmssl sm2keygen -pass P`: PBES2, PBKDF2-HMAC-SM3, SM4-CBC (decrypted once: slow
    // in debug builds)
    static KEY_ONCE: std::sync::OnceLock<SecretKey> = std::sync::OnceLock::new();
    KEY_ONCE
        .get_or_init(|| shangmi_sm2::keys::secret_key_from_pem_with_password(KEY, b"P").unwrap())
        .clone()
}

#[test]
fn diff_gmssl_certificates() {
    let root = certificates(CERT.as_bytes()).unwrap();
    let leaf = certificates(LEAF.as_bytes()).unwrap();
    verify_chain(&leaf[0], &[], &root, &Options::at(T, Purpose::TlcpSign)).unwrap();
    verify_chain(&root[0], &[], &root, &Options::at(T, Purpose::Any)).unwrap();
    assert!(
        verify_chain(
            &leaf[0],
            &[],
            &root,
            &Options::at(T + 86_400 * 30, Purpose::Any)
        )
        .is_err()
    );
}

#[test]
fn diff_gmssl_signed_data() {
    let root = certificates(CERT.as_bytes()).unwrap();
    let der = cms::from_der_or_pem(SIGNED.as_bytes()).unwrap();
    let opts = Options::at(T, Purpose::CmsSign);
    let v = cms::verify_with(&der, None, &[], &root, &opts, SignatureForm::GmSsl3).unwrap();
    assert_eq!(v.content, b"hello from GmSSL\n");
    // taken by default, the form found
    let v = cms::verify(&der, None, &[], &root, &opts).unwrap();
    assert_eq!(v.content, b"hello from GmSSL\n");
    assert_eq!(v.forms, vec![SignatureForm::GmSsl3]);
    // not a standard signature
    assert_eq!(
        cms::verify_with(&der, None, &[], &root, &opts, SignatureForm::Standard).unwrap_err(),
        CmsVerifyError::Message(Error::BadSignature)
    );
    // ours in GmSSL's form round-trips, and is not taken as standard either
    let key = gmssl_key();
    let ours = cms::sign(
        b"hello GmSSL",
        &[Signer {
            cert: &root[0],
            key: &key,
            chain: &[],
        }],
        &SignOptions {
            signed_attributes: false,
            form: SignatureForm::GmSsl3,
            ..SignOptions::default()
        },
    )
    .unwrap();
    cms::verify_with(&ours, None, &[], &root, &opts, SignatureForm::GmSsl3).unwrap();
    assert!(cms::verify_with(&ours, None, &[], &root, &opts, SignatureForm::Standard).is_err());
    assert_eq!(
        cms::verify(&ours, None, &[], &root, &opts).unwrap().forms,
        vec![SignatureForm::GmSsl3]
    );
}

#[test]
fn diff_gmssl_enveloped_data() {
    let root = certificates(CERT.as_bytes()).unwrap();
    let der = cms::from_der_or_pem(ENVELOPED.as_bytes()).unwrap();
    assert_eq!(
        cms::decrypt(&der, &root[0], &gmssl_key()).unwrap(),
        b"hello from GmSSL\n"
    );
}

/// `gmssl certgen -C CN -O GmSSL -CN 'GmSSL signer' -days 30 -key_usage digitalSignature -key_usage keyCertSign -key_usage keyEncipherment -ca`
const CERT: &str = "\
-----BEGIN CERTIFICATE-----
MIIBhjCCASygAwIBAgINANdjUqM+yHdFJpg6TzAKBggqgRzPVQGDdTA0MQswCQYD
VQQGEwJDTjEOMAwGA1UEChMFR21TU0wxFTATBgNVBAMTDEdtU1NMIHNpZ25lcjAe
Fw0yNjExMjcyMzM5MDVaFw0yNjEyMjcyMzM5MDVaMDQxCzAJBgNVBAYTAkNOMQ4w
DAYDVQQKEwVHbVNTTDEVMBMGA1UEAxMMR21TU0wgc2lnbmVyMFkwEwYHKoZIzj0C
AQYIKoEcz1UBgi0DQgAEvpeHtJi7GYzkybp161urnzbvfeyYU2EM5i+3Lp4tkywb
PFDMT87uC3Wbd7x9a9QVKx3efoM/r/tVVen9W3VwC6MjMCEwDgYDVR0PAQH/BAQD
AgKkMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoEcz1UBg3UDSAAwRQIgSXLioh0+iHq/
cEhJ4lKZUecxC9r22RuYlf6QxHac96ACIQDmbuixz/reYDHg+JaXsJ6UvSWc0GKA
gmBm+RhP6hRbBg==
-----END CERTIFICATE-----";

/// `gmssl sm2keygen -pass P`
const KEY: &str = "\
-----BEGIN ENCRYPTED PRIVATE KEY-----
MIH2MGEGCSqGSIb3DQEFDTBUMDQGCSqGSIb3DQEFDDAnBBDp76lJiFMf3UH2avpJ
hxMdAgMBAAACARAwCwYJKoEcz1UBgxECMBwGCCqBHM9VAWgCBBDdpEIJUYVCjmxI
/ftRLnljBIGQcejfU2aW1x82G2xlSYXW7KdWwTtZOF6aSI8fx3h12VImjguCoZQR
lo6GulHVe2mMXE2UgwvcJDQmeh4fkwYfVy2qmUpT7uer1HtZLRO+o310R2YItI55
tcFAe0BUoNiK1QFa7RLZFjEh98G7FBy3T2GQFF37zwMZ/X+AYFc6AwWqez1gTlQd
YYCkVgLhPKR9
-----END ENCRYPTED PRIVATE KEY-----";

/// `gmssl reqgen -C CN -O GmSSL -CN gmssl-leaf.example, then reqsign -days 10 -key_usage digitalSignature under CERT`
const LEAF: &str = "\
-----BEGIN CERTIFICATE-----
MIIBejCCASCgAwIBAgIMHX6gx1uRMttPSuCTMAoGCCqBHM9VAYN1MDQxCzAJBgNV
BAYTAkNOMQ4wDAYDVQQKEwVHbVNTTDEVMBMGA1UEAxMMR21TU0wgc2lnbmVyMB4X
DTI2MTEyNzIzNDIzOVoXDTI2MTIwNzIzNDIzOVowOjELMAkGA1UEBhMCQ04xDjAM
BgNVBAoTBUdtU1NMMRswGQYDVQQDExJnbXNzbC1sZWFmLmV4YW1wbGUwWTATBgcq
hkjOPQIBBggqgRzPVQGCLQNCAAR03nVoPtKhJmfaBqWhpL73Gm7s3040hCS7To6/
gzllHOYE5uDf2NLxMvdkYfe3XCbelShuwVRy3jmiiZJg2RPEoxIwEDAOBgNVHQ8B
Af8EBAMCB4AwCgYIKoEcz1UBg3UDSAAwRQIhANt6n9sb9cHNx7+DfFD6rXQgpSmA
EnOw0tWkLN6U2APpAiAehecN+CK9fWiPwXqNK+8GLIOw5wAgGMBYJiHevjmrwg==
-----END CERTIFICATE-----";

/// `gmssl cmssign -key KEY -cert CERT -in (hello from GmSSL)`
const SIGNED: &str = "\
-----BEGIN CMS-----
MIIChwYKKoEcz1UGAQQCAqCCAncwggJzAgEBMQwwCgYIKoEcz1UBgxEwIQYKKoEc
z1UGAQQCAaATBBFoZWxsbyBmcm9tIEdtU1NMCqCCAYowggGGMIIBLKADAgECAg0A
12NSoz7Id0UmmDpPMAoGCCqBHM9VAYN1MDQxCzAJBgNVBAYTAkNOMQ4wDAYDVQQK
EwVHbVNTTDEVMBMGA1UEAxMMR21TU0wgc2lnbmVyMB4XDTI2MTEyNzIzMzkwNVoX
DTI2MTIyNzIzMzkwNVowNDELMAkGA1UEBhMCQ04xDjAMBgNVBAoTBUdtU1NMMRUw
EwYDVQQDEwxHbVNTTCBzaWduZXIwWTATBgcqhkjOPQIBBggqgRzPVQGCLQNCAAS+
l4e0mLsZjOTJunXrW6ufNu997JhTYQzmL7cuni2TLBs8UMxPzu4LdZt3vH1r1BUr
Hd5+gz+v+1VV6f1bdXALoyMwITAOBgNVHQ8BAf8EBAMCAqQwDwYDVR0TAQH/BAUw
AwEB/zAKBggqgRzPVQGDdQNIADBFAiBJcuKiHT6Ier9wSEniUplR5zEL2vbZG5iV
/pDEdpz3oAIhAOZu6LHP+t5gMeD4lpewnpS9JZzQYoCCYGb5GE/qFFsGMYGuMIGr
AgEBMEUwNDELMAkGA1UEBhMCQ04xDjAMBgNVBAoTBUdtU1NMMRUwEwYDVQQDEwxH
bVNTTCBzaWduZXICDQDXY1KjPsh3RSaYOk8wCgYIKoEcz1UBgxEwCgYIKoEcz1UB
g3UERzBFAiEAiA7Wi33/qzRqKdQLahY6Xuhp92iPoGzBO+RoxMkhVTQCIGAWDoKC
lYBXn3IHJXKFn7wO1AVJas/4CCpLONrTltQO
-----END CMS-----";

/// `gmssl cmsencrypt -rcptcert CERT -in (hello from GmSSL)`
const ENVELOPED: &str = "\
-----BEGIN CMS-----
MIIBPwYKKoEcz1UGAQQCA6CCAS8wggErAgEBMYHXMIHUAgEBMEUwNDELMAkGA1UE
BhMCQ04xDjAMBgNVBAoTBUdtU1NMMRUwEwYDVQQDEwxHbVNTTCBzaWduZXICDQDX
Y1KjPsh3RSaYOk8wCwYJKoEcz1UBgi0CBHsweQIgUbNrJGuxWX6/zRZVt4FPH6yx
NthXLdbgRMTmiyg4TVsCIQCxeJkKmrecK7N40GLWI8AnF3jIb4r09vLyv7htx9Q9
lgQgV+FHskq3IHNIRXY6NQiSDce6MzyP9ygll1tm+Z1kvLQEEAQ1LIHi9hhh2j3t
C18gnsYwTAYKKoEcz1UGAQQCATAcBggqgRzPVQFoAgQQoFUUDB2NVE3uKuIeP7qj
j4AgqrSPagfjXEQZt0VVYeW/3oIjSMF7HFk5LxHNUgY+Q5U=
-----END CMS-----";
