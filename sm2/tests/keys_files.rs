//! Key files as tools write them: OpenSSL 3.0 (`ecparam -genkey`, `ec`, `pkey`, `pkcs8
//! -topk8`), GmSSL 3.3 (`sm2keygen -pass`), Tongsuo's test keys; the typed error of every
//! refusal; encoders in the three algorithm forms; encrypted PKCS#8 both ways.
//!
//! The fixed files below were produced once by the named command and transcribed (test keys,
//! never used elsewhere); the x86-64 tests also run Debian's `openssl` CLI on fresh keys.

#![cfg(all(feature = "encryption", feature = "pem"))] // on through the self dev-dependency
#![allow(clippy::unwrap_used)] // tests unwrap on purpose

use hex_literal::hex;
use shangmi_sm2::dsa::{SigningKey, VerifyingKey};
use shangmi_sm2::keys::{self, AlgorithmForm, EncryptionScheme};
use shangmi_sm2::pkcs8::{DecodePrivateKey, DecodePublicKey, EncodePrivateKey, LineEnding};
use shangmi_sm2::{Error, Generate, PublicKey, SecretKey};

/// `openssl ecparam -genkey -name SM2 -out ec.pem` (OpenSSL 3.0.19): the parameters block
/// OpenSSL 3 labels `SM2 PARAMETERS`, then PKCS#8 (id-ecPublicKey + SM2).
const OPENSSL_ECPARAM: &str = "\
-----BEGIN SM2 PARAMETERS-----
BggqgRzPVQGCLQ==
-----END SM2 PARAMETERS-----
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqBHM9VAYItBG0wawIBAQQg2hxa5xNk5gelIJhj
8Y42g0ZqMog6zAx83XdA/inHiJOhRANCAASUoT83klZuWgAujzl2QYQIYX9kE3Ud
UYLLtOadlVtqR4o6FSoPSaU2xSdb0oB3kBTgBcWs+4spm9/1ij+uEyVA
-----END PRIVATE KEY-----
";
/// Its d (`openssl ec -in ec.pem -text`).
const OPENSSL_D: [u8; 32] =
    hex!("da1c5ae71364e607a5209863f18e3683466a32883acc0c7cdd7740fe29c78893");
/// `openssl ec -in ec.pem`: SEC1, labelled `SM2 PRIVATE KEY` by OpenSSL 3.
const OPENSSL_SEC1_PEM: &str = "\
-----BEGIN SM2 PRIVATE KEY-----
MHcCAQEEINocWucTZOYHpSCYY/GONoNGajKIOswMfN13QP4px4iToAoGCCqBHM9V
AYItoUQDQgAElKE/N5JWbloALo85dkGECGF/ZBN1HVGCy7TmnZVbakeKOhUqD0ml
NsUnW9KAd5AU4AXFrPuLKZvf9Yo/rhMlQA==
-----END SM2 PRIVATE KEY-----
";
/// `openssl pkey -in ec.pem -outform DER`: SEC1 DER (not PKCS#8) for SM2 keys.
const OPENSSL_SEC1_DER: [u8; 121] = hex!(
    "30770201010420da1c5ae71364e607a5209863f18e3683466a32883acc0c7cdd7740fe29c78893a00a06082a"
    "811ccf5501822da1440342000494a13f3792566e5a002e8f3976418408617f6413751d5182cbb4e69d955b6a"
    "478a3a152a0f49a536c5275bd280779014e005c5acfb8b299bdff58a3fae132540"
);
/// `openssl pkey -in ec.pem -pubout -outform DER`.
const OPENSSL_SPKI_DER: [u8; 91] = hex!(
    "3059301306072a8648ce3d020106082a811ccf5501822d0342000494a13f3792566e5a002e8f3976418408617f"
    "6413751d5182cbb4e69d955b6a478a3a152a0f49a536c5275bd280779014e005c5acfb8b299bdff58a3fae13"
    "2540"
);
/// `openssl pkcs8 -topk8 -in ec.pem -passout pass:test`: OpenSSL's default PBES2,
/// PBKDF2-HMAC-SHA-256 (2048 iterations) + AES-256-CBC.
const OPENSSL_ENCRYPTED: &str = "\
-----BEGIN ENCRYPTED PRIVATE KEY-----
MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAgMIZ86neuc7wICCAAw
DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEEPQ5OwKFhsOqG/6R5l63QGcEgZAZ
UH8xgIDZNfZCDKpNcnm71BWa+FLAQAnRGu2VsdoN4qV4LVr4AqqZLYl+hV7Fm6IH
FTbI3Fq4jhOKIH3ztzHS5CYtgO0oYB7eCeu7ZCSztkhHusY2+VvXWtEBByP4xx5C
KRhlA4MQ6ApB5SqtBgO21CDQeuCJPC90173QIUk6vzFIiCGG6nP3AHhEy9MtHRg=
-----END ENCRYPTED PRIVATE KEY-----
";
/// `openssl pkcs8 -topk8 -in ec.pem -passout pass:test -v2 sm4-cbc -v2prf hmacWithSHA256`.
const OPENSSL_ENCRYPTED_SM4: &str = "\
-----BEGIN ENCRYPTED PRIVATE KEY-----
MIHrMFYGCSqGSIb3DQEFDTBJMCkGCSqGSIb3DQEFDDAcBAi0LT5f9lFGHAICCAAw
DAYIKoZIhvcNAgkFADAcBggqgRzPVQFoAgQQQNTEtBt1JNyZYukWZSLWQASBkH4Y
+vnGEk/42DIOstco+HRvo/5Kuyk+RlUWaaw9dG94/ci0fSSNNItM6mVTL84Lt4y1
QjxN4P4Fogf1SL/P6CHF0dvkCjp7Qe4a9UWPRL/K35IAVUPwTDbPuea2H5krn4KA
LWZPPjbeBTXgst3rsMTFmnsvXzLw6auzhGPj5lNPwSX4XB1KqhgfxGHqY5SQtQ==
-----END ENCRYPTED PRIVATE KEY-----
";
/// `openssl ec -in ec.pem -aes256 -passout pass:test`: the legacy encrypted PEM.
const OPENSSL_LEGACY_ENCRYPTED: &str = "\
-----BEGIN SM2 PRIVATE KEY-----
Proc-Type: 4,ENCRYPTED
DEK-Info: AES-256-CBC,B6354EA375EC02AC03C5D2766268EEE9

ckAalPYX6oEkrRAHJMewYlPtFxhAOOx1+WiS5EA4YQNf2v4Qh/0UYJXhEGD8G8D/
m+l+BqCg754OLXN522BgUKFtcD3Fp19UANvyzDGSRSt8HgcSEOO6r7QfRGYIrEoV
QnqC20YzwAeL8WbGaDV+WmmB8bOxivVSTih75ca/zRI=
-----END SM2 PRIVATE KEY-----
";
/// `gmssl sm2keygen -pass P -out k.pem -pubout kpub.pem` (GmSSL 3.3.0-dev): PBES2 with
/// PBKDF2-HMAC-SM3 (PRF 1.2.156.10197.1.401.2, 65,536 iterations, key length 16) and
/// SM4-CBC (1.2.156.10197.1.104.2).
const GMSSL_ENCRYPTED: &str = "\
-----BEGIN ENCRYPTED PRIVATE KEY-----
MIH2MGEGCSqGSIb3DQEFDTBUMDQGCSqGSIb3DQEFDDAnBBBULfP188ilEVkLj5tL
G9e4AgMBAAACARAwCwYJKoEcz1UBgxECMBwGCCqBHM9VAWgCBBCAnskmi3V98/o9
m7GfwDdXBIGQa7gGeUCd2kZIookxbsmNbnQy+yo8pFDzvaq0Jf/02w1OmlYWAwVy
SqygulOd9hTBU7O9CFtk3+lkZPUvLwWhhT87A0EL6NvUtxUcEG094Kc2+jN4UyqG
qtNNMP0476WKpcsjiQiXQenmy7XEzvGiKHiQc6LzUhfyngTKKf8NZKHOgfddc3HF
JdyRTONjnzTJ
-----END ENCRYPTED PRIVATE KEY-----
";
const GMSSL_PUBLIC: &str = "\
-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoEcz1UBgi0DQgAEaMNrOrAiVfsX1vsgcQpARopEb2X8
lkyaFYF7Y27u6h14NIRj1e7wtz5hT3npqDj/XD7Y61QliHQ3HNMg591lUg==
-----END PUBLIC KEY-----
";
/// Tongsuo-Project/Tongsuo @ 540603a3, test/certs/sm2-first-key.pem: explanatory text,
/// `EC PARAMETERS`, PKCS#8; its certificate sm2-first-crt.pem has the public key below.
const TONGSUO_FIRST_KEY: &str = "\
ASN1 OID: SM2
-----BEGIN EC PARAMETERS-----
BggqgRzPVQGCLQ==
-----END EC PARAMETERS-----
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqBHM9VAYItBG0wawIBAQQgx2B6dVsFWv6ac1db
QBWHp9WLJAivCue5sixLE+qWTN6hRANCAASpVSgURYikpsAAqxzaTi0g4hKmS6Jf
e0PxBvjuzfWGqyV4Rk00UPGF7sfAOf5q0aLdzgpktOU3MaDYW2HGdaAK
-----END PRIVATE KEY-----
";
const TONGSUO_FIRST_POINT: [u8; 65] = hex!(
    "04a95528144588a4a6c000ab1cda4e2d20e212a64ba25f7b43f106f8eecdf586ab2578464d3450f185eec7c0"
    "39fe6ad1a2ddce0a64b4e53731a0d85b61c675a00a"
);
/// Same origin, test/certs/sm2-leaf.key: `EC PARAMETERS` then SEC1 `EC PRIVATE KEY`; the
/// public key of sm2-leaf.crt below.
const TONGSUO_LEAF_KEY: &str = "\
-----BEGIN EC PARAMETERS-----
BggqgRzPVQGCLQ==
-----END EC PARAMETERS-----
-----BEGIN EC PRIVATE KEY-----
MHcCAQEEIJ0I4yR5ezlVWygUi7+NNipNJSBqUjaCopitIJMU1nlSoAoGCCqBHM9V
AYItoUQDQgAEMbiGjBxkDrC1rwuVlIC/6fbGdnaKxj2/Lkv9EcOLKv3WFuFi1eae
UvQSkNcRMdaAixpM+RKQ+Cp6Z3szJUr0jQ==
-----END EC PRIVATE KEY-----
";
const TONGSUO_LEAF_POINT: [u8; 65] = hex!(
    "0431b8868c1c640eb0b5af0b959480bfe9f6c676768ac63dbf2e4bfd11c38b2afdd616e162d5e69e52f41290"
    "d71131d6808b1a4cf91290f82a7a677b33254af48d"
);
/// Same origin, test/certs/sm2-root.key: PKCS#8 in the sm2 + sm2 OID form.
const TONGSUO_ROOT_KEY: &str = "\
-----BEGIN PRIVATE KEY-----
MIGIAgEAMBQGCCqBHM9VAYItBggqgRzPVQGCLQRtMGsCAQEEIG7dCdlg9Jz11K4K
v0FEu7fiLSYgNuRfJj8ZrGn6YMrpoUQDQgAESuAf9E4GQokVJCCMhkWWghOGuqVr
2OR042F/j6B95KaJRkPys43QC0NSAmATui7Escy8DFINzL4A4mxjGVfbdw==
-----END PRIVATE KEY-----
";
/// `openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256`.
const OPENSSL_P256: &str = "\
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgxSxBtiuAxeSmqVPB
kPmXjhxc53JVePsTiCZMInLQ8TehRANCAARgXrnuB6n2V+S+C0iD2H3aDRa5L0zs
yy4efr7JFdpcvBfZwJ7CpcwLBfZmjCxmKAESlM3gXTpNCUI363kXz6fW
-----END PRIVATE KEY-----
";
/// `openssl pkey -in p256.pem -outform DER`: SEC1 with the P-256 curve parameter.
const OPENSSL_P256_SEC1: [u8; 121] = hex!(
    "30770201010420c52c41b62b80c5e4a6a953c190f9978e1c5ce7725578fb1388264c2272d0f137a00a06082a"
    "8648ce3d030107a14403420004605eb9ee07a9f657e4be0b4883d87dda0d16b92f4ceccb2e1e7ebec915da5c"
    "bc17d9c09ec2a5cc0b05f6668c2c6628011294cde05d3a4d094237eb7917cfa7d6"
);
/// `openssl genpkey -algorithm ed25519`.
const OPENSSL_ED25519: &str = "\
-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEILeRHHwTNwRHq3mBDaSGsQDsKIlw9ymLOIBunetmHSDo
-----END PRIVATE KEY-----
";

fn d_of(key: &SecretKey) -> [u8; 32] {
    key.to_bytes().into()
}

fn point(key: &SecretKey) -> Vec<u8> {
    use shangmi_sm2::elliptic_curve::sec1::ToSec1Point;
    key.public_key().to_sec1_point(false).as_bytes().to_vec()
}

#[test]
fn openssl_files_load() {
    let with_note = format!("Key for the test server; do not use.\n\n{OPENSSL_ECPARAM}\n-- end\n");
    let crlf = with_note.replace('\n', "\r\n"); // as saved on Windows
    for pem in [OPENSSL_ECPARAM, &with_note, &crlf, OPENSSL_SEC1_PEM] {
        assert_eq!(d_of(&keys::secret_key_from_pem(pem).unwrap()), OPENSSL_D);
    }
    assert_eq!(
        d_of(&keys::secret_key_from_pkcs8_pem(OPENSSL_ECPARAM).unwrap()),
        OPENSSL_D
    );
    for der in [
        keys::secret_key_from_sec1_der(&OPENSSL_SEC1_DER),
        keys::secret_key_from_der(&OPENSSL_SEC1_DER),
    ] {
        assert_eq!(d_of(&der.unwrap()), OPENSSL_D);
    }
    let public = keys::public_key_from_spki_der(&OPENSSL_SPKI_DER).unwrap();
    // The key types' own PEM constructors take the same files.
    let signing = SigningKey::from_pem(OPENSSL_SEC1_PEM).unwrap();
    assert_eq!(signing.to_bytes(), OPENSSL_D);
    let pub_pem =
        keys::public_key_to_spki_pem(&public, AlgorithmForm::Sm2, LineEnding::LF).unwrap();
    assert_eq!(
        VerifyingKey::from_pem(&pub_pem).unwrap(),
        *signing.verifying_key()
    );
    let dk = shangmi_sm2::pke::DecryptingKey::from_pem(OPENSSL_ECPARAM).unwrap();
    let ek = shangmi_sm2::pke::EncryptingKey::from_pem(&pub_pem).unwrap();
    assert_eq!(dk.encrypting_key(), &ek);
    assert_eq!(
        dk.to_pkcs8_der().unwrap().as_bytes(),
        signing.to_pkcs8_der().unwrap().as_bytes()
    );
    assert_eq!(
        keys::secret_key_from_pem(OPENSSL_ECPARAM)
            .unwrap()
            .public_key(),
        public
    );
    // The same through the RustCrypto traits.
    let pkcs8 = keys::secret_key_to_pkcs8_der(
        &SecretKey::from_bytes(&OPENSSL_D.into()).unwrap(),
        AlgorithmForm::EcPublicKey,
    )
    .unwrap();
    let sk = SigningKey::from_pkcs8_der(pkcs8.as_bytes()).unwrap();
    assert_eq!(sk.to_bytes(), OPENSSL_D);
    assert_eq!(
        VerifyingKey::from_public_key_der(&OPENSSL_SPKI_DER).unwrap(),
        *sk.verifying_key()
    );
}

#[test]
fn encrypted_pkcs8_from_openssl_and_gmssl() {
    for pem in [OPENSSL_ENCRYPTED, OPENSSL_ENCRYPTED_SM4] {
        let key = keys::secret_key_from_pem_with_password(pem, "test").unwrap();
        assert_eq!(d_of(&key), OPENSSL_D);
        assert_eq!(
            keys::secret_key_from_pem_with_password(pem, "tesT").unwrap_err(),
            Error::WrongPassword
        );
        assert_eq!(
            keys::secret_key_from_pem(pem).unwrap_err(),
            Error::EncryptedKey
        );
    }
    let key = keys::secret_key_from_pem_with_password(GMSSL_ENCRYPTED, "P").unwrap();
    assert_eq!(
        key.public_key(),
        keys::public_key_from_pem(GMSSL_PUBLIC).unwrap()
    );
    assert_eq!(
        keys::secret_key_from_pem_with_password(GMSSL_ENCRYPTED, "p").unwrap_err(),
        Error::WrongPassword
    );
    assert_eq!(
        keys::secret_key_from_pem_with_password(OPENSSL_LEGACY_ENCRYPTED, "test").unwrap_err(),
        Error::UnsupportedEncryption
    );
    // An unencrypted file loads with a password too.
    assert_eq!(
        d_of(&keys::secret_key_from_pem_with_password(OPENSSL_SEC1_PEM, "x").unwrap()),
        OPENSSL_D
    );
}

#[test]
fn tongsuo_keys_load_and_match_their_certificates() {
    let first = keys::secret_key_from_pem(TONGSUO_FIRST_KEY).unwrap();
    assert_eq!(point(&first), TONGSUO_FIRST_POINT);
    let leaf = keys::secret_key_from_pem(TONGSUO_LEAF_KEY).unwrap();
    assert_eq!(point(&leaf), TONGSUO_LEAF_POINT);
    // sm2 + sm2 form: ours and the trait take it, elliptic-curve's own decoder does not.
    assert!(keys::secret_key_from_pem(TONGSUO_ROOT_KEY).is_ok());
    assert!(SigningKey::from_pkcs8_pem(TONGSUO_ROOT_KEY).is_ok());
    assert!(SecretKey::from_pkcs8_pem(TONGSUO_ROOT_KEY).is_err());
}

#[test]
fn every_refusal_names_its_cause() {
    let cases: &[(&str, Error)] = &[
        ("", Error::MalformedPem),
        ("no PEM here", Error::MalformedPem),
        (GMSSL_PUBLIC, Error::UnexpectedPemLabel),
        (OPENSSL_P256, Error::WrongCurve),
        (OPENSSL_ED25519, Error::UnsupportedAlgorithm),
        (OPENSSL_ENCRYPTED, Error::EncryptedKey),
        (OPENSSL_LEGACY_ENCRYPTED, Error::UnsupportedEncryption),
        (
            "-----BEGIN PRIVATE KEY-----\nMC4CAQAw\n-----END EC PRIVATE KEY-----\n",
            Error::MalformedPem,
        ),
        (
            "-----BEGIN PRIVATE KEY-----\n!!!!\n-----END PRIVATE KEY-----\n",
            Error::MalformedPem,
        ),
        (
            // base64 of 30 03 02 01 00: a SEQUENCE, not a PrivateKeyInfo.
            "-----BEGIN PRIVATE KEY-----\nMAMCAQA=\n-----END PRIVATE KEY-----\n",
            Error::MalformedKey,
        ),
    ];
    for (pem, want) in cases {
        assert_eq!(keys::secret_key_from_pem(pem).unwrap_err(), *want, "{pem}");
    }
    assert_eq!(
        keys::secret_key_from_pkcs8_pem(OPENSSL_SEC1_PEM).unwrap_err(),
        Error::UnexpectedPemLabel
    );
    assert_eq!(
        keys::public_key_from_pem(OPENSSL_ECPARAM).unwrap_err(),
        Error::UnexpectedPemLabel
    );
    assert_eq!(
        keys::public_key_from_spki_pem(GMSSL_ENCRYPTED).unwrap_err(),
        Error::UnexpectedPemLabel
    );
    assert_eq!(
        keys::secret_key_from_sec1_der(&OPENSSL_P256_SEC1).unwrap_err(),
        Error::WrongCurve
    );
    // SEC1 whose public key is not d·G (one byte of the point changed; still on the curve?
    // No: then it is an invalid point. Swap in another valid key's point instead).
    let other = point(&SecretKey::from_bytes(&[7u8; 32].into()).unwrap());
    // (what the edit does, the edit of OpenSSL's SEC1 key, the error)
    type Edit<'a> = &'a dyn Fn(&mut [u8]);
    let edits: [(&str, Edit, Error); 3] = [
        (
            "another key's point",
            &|d| d[121 - 65..].copy_from_slice(&other),
            Error::PublicKeyMismatch,
        ),
        ("off the curve", &|d| d[120] ^= 1, Error::InvalidPoint),
        (
            "zero secret",
            &|d| d[7..39].fill(0),
            Error::InvalidSecretKey,
        ),
    ];
    for (what, edit, err) in edits {
        let mut der = OPENSSL_SEC1_DER;
        edit(&mut der);
        assert_eq!(
            keys::secret_key_from_sec1_der(&der).unwrap_err(),
            err,
            "{what}"
        );
    }
    let mut spki = OPENSSL_SPKI_DER;
    spki[90] ^= 1;
    assert_eq!(
        keys::public_key_from_spki_der(&spki).unwrap_err(),
        Error::InvalidPoint
    );
    assert_eq!(
        keys::secret_key_from_der(&OPENSSL_SEC1_DER[..100]).unwrap_err(),
        Error::MalformedKey
    );
    // The trait path reports through pkcs8::Error but refuses the same inputs.
    assert!(SigningKey::from_pkcs8_pem(OPENSSL_P256).is_err());
    assert!(SigningKey::from_pkcs8_pem(OPENSSL_ED25519).is_err());
}

#[test]
fn encoders_write_each_form_and_read_back() {
    let sk = SecretKey::from_bytes(&OPENSSL_D.into()).unwrap();
    let pk = sk.public_key();
    // Algorithm identifiers as bytes: id-ecPublicKey + SM2, SM2 + SM2, SM2 alone.
    let forms: [(AlgorithmForm, &[u8]); 3] = [
        (
            AlgorithmForm::EcPublicKey,
            &hex!("301306072a8648ce3d020106082a811ccf5501822d"),
        ),
        (
            AlgorithmForm::Sm2,
            &hex!("301406082a811ccf5501822d06082a811ccf5501822d"),
        ),
        (AlgorithmForm::Sm2Bare, &hex!("300a06082a811ccf5501822d")),
    ];
    for (form, alg) in forms {
        let der = keys::secret_key_to_pkcs8_der(&sk, form).unwrap();
        assert!(contains(der.as_bytes(), alg), "{form:?}");
        assert_eq!(
            d_of(&keys::secret_key_from_pkcs8_der(der.as_bytes()).unwrap()),
            OPENSSL_D
        );
        let spki = keys::public_key_to_spki_der(&pk, form).unwrap();
        assert_eq!(&spki.as_bytes()[2..2 + alg.len()], alg, "{form:?}");
        assert_eq!(keys::public_key_from_spki_der(spki.as_bytes()).unwrap(), pk);
        let pem = keys::secret_key_to_pkcs8_pem(&sk, form, LineEnding::LF).unwrap();
        assert_eq!(d_of(&keys::secret_key_from_pem(&pem).unwrap()), OPENSSL_D);
        let pem = keys::public_key_to_spki_pem(&pk, form, LineEnding::LF).unwrap();
        assert_eq!(keys::public_key_from_pem(&pem).unwrap(), pk);
    }
    // The default form is OpenSSL's SPKI byte for byte, and the trait encoder agrees.
    assert_eq!(
        keys::public_key_to_spki_der(&pk, AlgorithmForm::default())
            .unwrap()
            .as_bytes(),
        OPENSSL_SPKI_DER
    );
    let signing = SigningKey::new(&sk).unwrap();
    assert_eq!(
        signing.to_pkcs8_der().unwrap().as_bytes(),
        keys::secret_key_to_pkcs8_der(&sk, AlgorithmForm::EcPublicKey)
            .unwrap()
            .as_bytes()
    );
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn encrypted_round_trip_both_schemes() {
    let sk = SecretKey::from_bytes(&[0x42; 32].into()).unwrap();
    let mut rng = getrandom::SysRng;
    for scheme in [
        EncryptionScheme::Pbkdf2Sm3Sm4Cbc { iterations: 1000 },
        EncryptionScheme::Pbkdf2Sha256Aes256Cbc { iterations: 1000 },
    ] {
        let pem =
            keys::secret_key_to_encrypted_pkcs8_pem(&sk, "pw", scheme, &mut rng, LineEnding::LF)
                .unwrap();
        assert_eq!(
            d_of(&keys::secret_key_from_pem_with_password(&pem, "pw").unwrap()),
            [0x42; 32]
        );
        assert_eq!(
            keys::secret_key_from_pem_with_password(&pem, "wp").unwrap_err(),
            Error::WrongPassword
        );
        assert_eq!(
            keys::secret_key_from_pem(&pem).unwrap_err(),
            Error::EncryptedKey
        );
    }
    let too_many = EncryptionScheme::Pbkdf2Sm3Sm4Cbc {
        iterations: keys::MAX_ITERATIONS + 1,
    };
    assert_eq!(
        keys::secret_key_to_encrypted_pkcs8_der(&sk, "pw", too_many, &mut rng).unwrap_err(),
        Error::UnsupportedEncryption
    );
}

#[test]
fn random_keys_from_the_generators_people_pass() {
    let a = SigningKey::random(&mut getrandom::SysRng).unwrap();
    let b = SigningKey::random(&mut rand::rng()).unwrap();
    let c = SigningKey::generate_from_rng(&mut rand::rng());
    let d = SigningKey::try_generate_from_rng(&mut getrandom::SysRng).unwrap();
    let e = SigningKey::generate();
    let keys = [a, b, c, d, e];
    for (i, x) in keys.iter().enumerate() {
        for y in &keys[i + 1..] {
            assert_ne!(x.to_bytes(), y.to_bytes());
        }
        // The default ID: a signature verifies under a key built from the public point.
        use shangmi_sm2::signature::{Signer, Verifier};
        let sig: shangmi_sm2::dsa::Signature = x.sign(b"m");
        assert!(
            VerifyingKey::new(x.verifying_key().public_key())
                .verify(b"m", &sig)
                .is_ok()
        );
    }
    let dk = shangmi_sm2::pke::DecryptingKey::random(&mut getrandom::SysRng).unwrap();
    let dk2 = shangmi_sm2::pke::DecryptingKey::generate_from_rng(&mut rand::rng());
    assert_ne!(dk.encrypting_key(), dk2.encrypting_key());
    let _: PublicKey = SecretKey::generate().public_key();
}

#[test]
#[cfg(target_arch = "x86_64")] // the OpenSSL CLI exists on the development host only
fn diff_openssl_cli_fresh_keys_both_ways() {
    use std::process::Command;
    let dir = std::env::temp_dir().join(format!("shangmi-sm2-keys-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let run = |args: &[&str]| {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(&dir)
            .output()
            .expect("the openssl CLI runs");
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
    let text = |name: &str| String::from_utf8(read(name)).unwrap();
    run(&["ecparam", "-genkey", "-name", "SM2", "-out", "ec.pem"]);
    run(&["ec", "-in", "ec.pem", "-out", "sec1.pem"]);
    run(&[
        "pkey", "-in", "ec.pem", "-outform", "DER", "-out", "sec1.der",
    ]);
    run(&["pkey", "-in", "ec.pem", "-pubout", "-out", "pub.pem"]);
    run(&[
        "pkcs8", "-topk8", "-in", "ec.pem", "-passout", "pass:pw", "-out", "enc.pem",
    ]);
    let want = keys::secret_key_from_pem(&text("ec.pem")).unwrap();
    assert_eq!(keys::secret_key_from_pem(&text("sec1.pem")).unwrap(), want);
    assert_eq!(keys::secret_key_from_der(&read("sec1.der")).unwrap(), want);
    assert_eq!(
        keys::public_key_from_pem(&text("pub.pem")).unwrap(),
        want.public_key()
    );
    assert_eq!(
        keys::secret_key_from_pem_with_password(&text("enc.pem"), "pw").unwrap(),
        want
    );
    // OpenSSL decrypts what we encrypt (its default scheme) and reads each of our forms.
    let ours = keys::secret_key_to_encrypted_pkcs8_pem(
        &want,
        "pw2",
        EncryptionScheme::Pbkdf2Sha256Aes256Cbc { iterations: 2048 },
        &mut getrandom::SysRng,
        LineEnding::LF,
    )
    .unwrap();
    std::fs::write(dir.join("ours.pem"), ours.as_bytes()).unwrap();
    let plain = run(&[
        "pkcs8", "-in", "ours.pem", "-passin", "pass:pw2", "-outform", "DER",
    ]);
    assert_eq!(keys::secret_key_from_der(&plain).unwrap(), want);
    let pem =
        keys::secret_key_to_pkcs8_pem(&want, AlgorithmForm::EcPublicKey, LineEnding::LF).unwrap();
    std::fs::write(dir.join("plain.pem"), pem.as_bytes()).unwrap();
    let again = run(&["pkey", "-in", "plain.pem"]);
    assert_eq!(
        keys::secret_key_from_pem(&String::from_utf8(again).unwrap()).unwrap(),
        want
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

mod never_panic {
    use super::*;
    use proptest::prelude::*;

    fn all_loaders(der: &[u8]) {
        let _ = keys::secret_key_from_der(der);
        let _ = keys::secret_key_from_pkcs8_der(der);
        let _ = keys::secret_key_from_sec1_der(der);
        let _ = keys::public_key_from_spki_der(der);
        let _ = SigningKey::from_pkcs8_der(der);
        let _ = VerifyingKey::from_public_key_der(der);
        if let Ok(text) = core::str::from_utf8(der) {
            let _ = keys::secret_key_from_pem(text);
            let _ = keys::public_key_from_pem(text);
            let _ = keys::secret_key_from_pem_with_password(text, "pw");
        }
    }

    proptest! {
        #[test]
        fn arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            all_loaders(&bytes);
        }

        #[test]
        fn mutated_files(which in 0usize..4, pos in any::<usize>(), byte in any::<u8>()) {
            let files: [&[u8]; 4] = [
                &OPENSSL_SEC1_DER,
                &OPENSSL_SPKI_DER,
                OPENSSL_ECPARAM.as_bytes(),
                TONGSUO_ROOT_KEY.as_bytes(),
            ];
            let mut f = files[which].to_vec();
            let at = pos % f.len();
            f[at] = byte;
            all_loaders(&f);
            all_loaders(&f[..at]);
        }
    }
}
