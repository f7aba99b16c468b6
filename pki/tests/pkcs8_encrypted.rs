//! Encrypted PKCS#8 in every PBES2 combination (`shangmi_pki::pkcs8`):
//! - live differential with the `openssl` command line (OpenSSL 3.0 in CI; the test fails
//!   when no `openssl` runs): keys made and encrypted by OpenSSL at run time under every
//!   PRF / cipher / KDF it writes, decrypted by ours to the same `PrivateKeyInfo` bytes
//!   OpenSSL prints with `-nocrypt`;
//! - fixed vectors made once by OpenSSL 3.0.19 (commands next to each);
//! - SM4-GCM, AES-GCM and GM/T 0091-2020's OIDs, which OpenSSL 3.0 cannot write ("AEAD
//!   ciphers not supported"): files built here with RustCrypto's `sm4`, `sm3`, `aes-gcm`,
//!   `cbc` and `pbkdf2` (independent of our SM4, SM3 and modes) and read by ours;
//! - malformed files and wrong passwords: typed errors.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use hex_literal::hex;
use shangmi_pki::Error;
use shangmi_pki::pkcs8::{decrypt_der, secret_key_from_der, secret_key_from_pem};
use std::process::Command;

fn openssl(dir: &std::path::Path, args: &[&str]) -> Vec<u8> {
    let o = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the `openssl` command line must be installed (CI has OpenSSL 3.0)");
    assert!(
        o.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o.stdout
}

/// Every PBES2 combination OpenSSL 3.0 writes for a key, against the plain PKCS#8.
#[test]
fn openssl_written_keys_decrypt_to_the_same_private_key_info() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    openssl(d, &["genpkey", "-algorithm", "SM2", "-out", "k.pem"]);
    let plain = openssl(
        d,
        &[
            "pkcs8", "-topk8", "-nocrypt", "-in", "k.pem", "-outform", "DER",
        ],
    );
    let combos: &[&[&str]] = &[
        &["-v2", "aes-128-cbc", "-v2prf", "hmacWithSHA1"],
        &["-v2", "aes-192-cbc", "-v2prf", "hmacWithSHA224"],
        &["-v2", "aes-256-cbc", "-v2prf", "hmacWithSHA256"],
        &["-v2", "aes-256-cbc", "-v2prf", "hmacWithSHA384"],
        &["-v2", "aes-256-cbc", "-v2prf", "hmacWithSHA512"],
        &["-v2", "sm4-cbc", "-v2prf", "hmacWithSHA512"],
        &["-v2", "sm4-cbc"],
        &["-v2", "sm4-ecb", "-v2prf", "hmacWithSHA1"],
        &[
            "-scrypt",
            "-scrypt_N",
            "1024",
            "-scrypt_r",
            "8",
            "-scrypt_p",
            "1",
        ],
        &[
            "-scrypt",
            "-v2",
            "sm4-cbc",
            "-scrypt_N",
            "2048",
            "-scrypt_r",
            "4",
            "-scrypt_p",
            "2",
        ],
    ];
    for combo in combos {
        let mut args = vec![
            "pkcs8",
            "-topk8",
            "-in",
            "k.pem",
            "-passout",
            "pass:pässwörd",
        ];
        args.extend_from_slice(combo);
        let pem = openssl(d, &args);
        assert!(pem.starts_with(b"-----BEGIN ENCRYPTED PRIVATE KEY-----"));
        args.extend_from_slice(&["-outform", "DER"]);
        let der = openssl(d, &args);
        let pt = decrypt_der(&der, "pässwörd".as_bytes()).expect("decrypts");
        assert_eq!(&pt[..], &plain[..], "{combo:?}");
        let key = secret_key_from_pem(&pem, "pässwörd".as_bytes()).expect("PEM");
        assert_eq!(
            shangmi_sm2::keys::secret_key_from_der(&plain)
                .unwrap()
                .to_bytes(),
            key.to_bytes()
        );
        assert_eq!(
            decrypt_der(&der, b"wrong").unwrap_err(),
            Error::WrongPassword,
            "{combo:?}"
        );
    }
}

/// The key every fixed vector holds: `openssl genpkey -algorithm SM2` (OpenSSL 3.0.19);
/// its scalar.
const SCALAR: [u8; 32] = hex!("35fe01d343f42a25313499a38300e6a4ee79d9ca6f9541b110720cee6dc1e659");

/// Made once by OpenSSL 3.0.19 from that key with password `shangmi`:
/// `openssl pkcs8 -topk8 -in k.pem -outform DER -passout pass:shangmi` and the options given.
const VECTORS: &[(&str, &[u8])] = &[
    (
        "-v2 aes-128-cbc -v2prf hmacWithSHA1",
        &hex!(
            "3081de304906092a864886f70d01050d303c301b06092a864886f70d01050c300e0408b5554b749c69bfe502020800301d06096086480165030401020410784fcee69fb84e4574a702dc606c1d75048190b6d51328d2fa5e2734491258775e7557f185b73fdda7b79d34cbfe12a7dc8fdf357628560d5f03e4e62cb90b01c932d3aabb87385a73a33b0c9dead09da69879ded7b53715f406ecd5b9f70d86c6d08195653757ce36b93e5743484854239c0fc7602895ea289c3740fabffc39570d402d59c2b816b4ee019e87b04542174e8a0d6743f8cb0ad7c65f436271245c3462"
        ),
    ),
    (
        "-v2 aes-256-cbc -v2prf hmacWithSHA512",
        &hex!(
            "3081ec305706092a864886f70d01050d304a302906092a864886f70d01050c301c040833dda067cfa4f31102020800300c06082a864886f70d020b0500301d060960864801650304012a0410650158b9098e6a0e229e787448c775bb048190b8e74a49136088080cdafc1314c145e5ccc70742a3698282d991b091e51a27a74ec4fd15640c40f561be2f63502d4e64138aaa43a14648ec8fda9ce7b85579c96a87e62990f5aebce58d3a31506678cc3641b8fa172023ebf6528a7511e365e5e630ce16902804e7ae65bb8707223c51f6907d86e8f9331cadcc93f395e36f98f0ebdaec2c4575ed783ec55282450fe5"
        ),
    ),
    (
        "-scrypt -scrypt_N 1024 -scrypt_r 8 -scrypt_p 1",
        &hex!(
            "3081e4304f06092a864886f70d01050d3042302106092b06010401da47040b30140408f3b745fbe4196b4f02020400020108020101301d060960864801650304012a0410dcf325e50ab46f4444c09fcdf60279c1048190b73c3b42cfc299da1f643b35bf33050ffab67dc12cdb6353f883622db94e94e5c2dbfe805f0daca094a8e43ea453700549e9aaa18f32ac367e634e663cef280aae6191295834e1d1d8413eac89e078034fcf427e2f5042d57b7b19ab952c19ee866fa9a770fe5d9831e009587187bafcea0302b317f78f1ba8cd28b93ab67828fc48451ae2510c8e9c9ff539191df952"
        ),
    ),
    (
        "-v2 sm4-ecb",
        &hex!(
            "3081db304606092a864886f70d01050d3039302906092a864886f70d01050c301c0408afd859b6b27798de02020800300c06082a864886f70d02090500300c06082a811ccf5501680104000481907f1766441e161d487bc1581371815498b01056872f6742a12b7469fd8c193209c518b587b5ca0f9242be8fd758310562fe521ba3e061cfaff2610f1e0c78430012829497b483bc5d0b07caa4bb1a82d3896ed9bedc7a65592ae4a0af3a5f277351493ed7d256509797434bac6fa4b82d2a3b99459851d03d87c65c406910a0ea01e0c3b33c5066511161b09584b0ad06"
        ),
    ),
    (
        "-v2 sm4-cbc",
        &hex!(
            "3081eb305606092a864886f70d01050d3049302906092a864886f70d01050c301c0408906ab1e55669c8e802020800300c06082a864886f70d02090500301c06082a811ccf5501680204105a13470e2ecd945b8edcbf0eafa62e38048190b22b49a6540bef71252823b83ba74d5120d58f204f469cac4b09a2bf5c60cb40ee2e0c6d0778096bd51e3b5b25e181212bc02f5422e5a6758523893eb94cb6c6143eea76a8c753fd81b9b1bb0676334236242b6ef7097ea71a3115736972f6ed08e06f1ab5a188d51bdf4ddc4094fe904f03a1474552f32161531636adb08ae1aa90928ca5353c09030bb5f53512f54a"
        ),
    ),
];

#[test]
fn openssl_fixed_vectors() {
    for (cmd, der) in VECTORS {
        let key = secret_key_from_der(der, b"shangmi").expect(cmd);
        assert_eq!(key.to_bytes().as_slice(), &SCALAR[..], "{cmd}");
        assert_eq!(
            secret_key_from_der(der, b"shangmI").unwrap_err(),
            Error::WrongPassword,
            "{cmd}"
        );
    }
}

// ---- a small DER writer for the files OpenSSL cannot make ----

/// `file` opens with the password "pw" to `plain`, and a wrong password ("pW") is refused
/// as `WrongPassword`; `what` names the case.
fn assert_opens(file: &[u8], plain: &[u8], what: &str) {
    assert_eq!(&decrypt_der(file, b"pw").unwrap()[..], plain, "{what}");
    assert_eq!(
        decrypt_der(file, b"pW").unwrap_err(),
        Error::WrongPassword,
        "{what}"
    );
}

fn tlv(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let n = body.len();
    if n < 0x80 {
        out.push(n as u8);
    } else if n < 0x100 {
        out.extend_from_slice(&[0x81, n as u8]);
    } else {
        out.extend_from_slice(&[0x82, (n >> 8) as u8, n as u8]);
    }
    out.extend_from_slice(body);
    out
}
fn seq(parts: &[&[u8]]) -> Vec<u8> {
    tlv(0x30, &parts.concat())
}
fn oid(dotted: &str) -> Vec<u8> {
    use der::Encode;
    const_oid::ObjectIdentifier::new(dotted)
        .unwrap()
        .to_der()
        .unwrap()
}
fn octets(b: &[u8]) -> Vec<u8> {
    tlv(0x04, b)
}
fn int(v: u32) -> Vec<u8> {
    use der::Encode;
    v.to_der().unwrap()
}
fn alg(o: &str, params: &[u8]) -> Vec<u8> {
    seq(&[&oid(o), params])
}
fn pbkdf2_alg(kdf_oid: &str, salt: &[u8], iter: u32, prf_oid: &str) -> Vec<u8> {
    alg(
        kdf_oid,
        &seq(&[&octets(salt), &int(iter), &alg(prf_oid, &[0x05, 0x00])]),
    )
}
fn epki(pbes2_oid: &str, kdf: &[u8], enc: &[u8], ct: &[u8]) -> Vec<u8> {
    seq(&[&alg(pbes2_oid, &seq(&[kdf, enc])), &octets(ct)])
}

const PBES2: &str = "1.2.840.113549.1.5.13";
const PBKDF2: &str = "1.2.840.113549.1.5.12";
const SALT: [u8; 16] = hex!("0102030405060708090a0b0c0d0e0f10");
const NONCE: [u8; 12] = hex!("a0a1a2a3a4a5a6a7a8a9aaab");

fn plain_key() -> (Vec<u8>, shangmi_pki::SecretKey) {
    let key = shangmi_sm2::SecretKey::from_slice(&SCALAR).unwrap();
    let der = shangmi_sm2::keys::secret_key_to_pkcs8_der(
        &key,
        shangmi_sm2::keys::AlgorithmForm::default(),
    )
    .unwrap();
    (der.as_bytes().to_vec(), key)
}

fn rc_pbkdf2_sm3(pw: &[u8], out: &mut [u8]) {
    pbkdf2::pbkdf2::<hmac::Hmac<rustcrypto_sm3::Sm3>>(pw, &SALT, 1000, out).unwrap();
}
fn rc_pbkdf2_sha256(pw: &[u8], out: &mut [u8]) {
    pbkdf2::pbkdf2::<hmac::Hmac<sha2::Sha256>>(pw, &SALT, 1000, out).unwrap();
}

fn gcm_seal<C: aead::AeadInOut + aead::KeyInit>(key: &[u8], pt: &[u8]) -> Vec<u8> {
    use aead::Aead;
    let c = C::new_from_slice(key).unwrap();
    c.encrypt(&aead::Nonce::<C>::try_from(&NONCE[..]).unwrap(), pt)
        .unwrap()
}

/// GCMParameters (RFC 5084 §3.2) with the ICV length stated.
fn gcm_params() -> Vec<u8> {
    seq(&[&octets(&NONCE), &int(16)])
}

type RcSm4Gcm = aes_gcm::AesGcm<rustcrypto_sm4::Sm4, aead::consts::U12>;

#[test]
fn sm4_gcm_pbkdf2_sm3_built_with_rustcrypto() {
    let (plain, key) = plain_key();
    let mut k = [0u8; 16];
    rc_pbkdf2_sm3(b"pw", &mut k);
    let ct = gcm_seal::<RcSm4Gcm>(&k, &plain);
    let kdf = pbkdf2_alg(PBKDF2, &SALT, 1000, "1.2.156.10197.1.401.2");
    let file = epki(
        PBES2,
        &kdf,
        &alg("1.2.156.10197.1.104.8", &gcm_params()),
        &ct,
    );
    assert_opens(&file, &plain, "SM4-GCM");
    assert_eq!(
        secret_key_from_der(&file, b"pw").unwrap().to_bytes(),
        key.to_bytes()
    );
    // a flipped ciphertext bit fails the tag
    let mut bad = file.clone();
    let n = bad.len();
    bad[n - 20] ^= 1;
    assert_eq!(decrypt_der(&bad, b"pw").unwrap_err(), Error::WrongPassword);
    // the ICV length left at its DEFAULT (12 bytes, RFC 5084 §3.2): a 12-byte tag
    type RcSm4Gcm12 = aes_gcm::AesGcm<rustcrypto_sm4::Sm4, aead::consts::U12, aead::consts::U12>;
    let ct12 = gcm_seal::<RcSm4Gcm12>(&k, &plain);
    let file12 = epki(
        PBES2,
        &kdf,
        &alg("1.2.156.10197.1.104.8", &seq(&[&octets(&NONCE)])),
        &ct12,
    );
    assert_eq!(&decrypt_der(&file12, b"pw").unwrap()[..], &plain[..]);
    // the 16-byte-tag ciphertext under the default is refused; a 13-byte ICV is malformed
    let wrong = epki(
        PBES2,
        &kdf,
        &alg("1.2.156.10197.1.104.8", &seq(&[&octets(&NONCE)])),
        &ct,
    );
    assert_eq!(
        decrypt_der(&wrong, b"pw").unwrap_err(),
        Error::WrongPassword
    );
    let odd = epki(
        PBES2,
        &kdf,
        &alg("1.2.156.10197.1.104.8", &seq(&[&octets(&NONCE), &int(13)])),
        &ct,
    );
    assert_eq!(
        decrypt_der(&odd, b"pw").unwrap_err(),
        Error::MalformedScheme
    );
}

#[test]
fn aes_gcm_pbkdf2_sha256_built_with_rustcrypto() {
    let (plain, _) = plain_key();
    for (oid_s, len) in [
        ("2.16.840.1.101.3.4.1.6", 16),
        ("2.16.840.1.101.3.4.1.46", 32),
    ] {
        let mut k = [0u8; 32];
        rc_pbkdf2_sha256(b"pw", &mut k[..len]);
        let ct = if len == 16 {
            gcm_seal::<aes_gcm::Aes128Gcm>(&k[..16], &plain)
        } else {
            gcm_seal::<aes_gcm::Aes256Gcm>(&k, &plain)
        };
        let kdf = pbkdf2_alg(PBKDF2, &SALT, 1000, "1.2.840.113549.2.9");
        let file = epki(PBES2, &kdf, &alg(oid_s, &gcm_params()), &ct);
        assert_opens(&file, &plain, oid_s);
    }
}

/// GM/T 0091-2020's OIDs (PBKDF2 1.2.156.10197.6.1.4.1.5.1, HMAC-SM3 1.2.156.10197.1.401.3.1,
/// SM4-CBC 1.2.156.10197.6.1.4.1.12.1.1, as Tencent Kona's PBES2Parameters names them), under
/// both PBES2 OIDs.
#[test]
fn gmt_0091_oids_built_with_rustcrypto() {
    use cbc::cipher::{BlockModeEncrypt, KeyIvInit, block_padding::Pkcs7};
    let (plain, _) = plain_key();
    let mut k = [0u8; 16];
    rc_pbkdf2_sm3(b"pw", &mut k);
    let iv = hex!("00112233445566778899aabbccddeeff");
    let mut ct = plain.clone();
    ct.resize(plain.len() / 16 * 16 + 16, 0);
    let n = cbc::Encryptor::<rustcrypto_sm4::Sm4>::new_from_slices(&k, &iv)
        .unwrap()
        .encrypt_padded::<Pkcs7>(&mut ct, plain.len())
        .unwrap()
        .len();
    ct.truncate(n);
    let gmt_kdf = pbkdf2_alg(
        "1.2.156.10197.6.1.4.1.5.1",
        &SALT,
        1000,
        "1.2.156.10197.1.401.3.1",
    );
    // GmSSL's spelling: PBKDF2 of RFC 8018 with HMAC-SM3 1.2.156.10197.1.401.2, SM4-CBC .104.2
    let gmssl_kdf = pbkdf2_alg(PBKDF2, &SALT, 1000, "1.2.156.10197.1.401.2");
    for (pbes2, kdf, cipher) in [
        (PBES2, &gmt_kdf, "1.2.156.10197.6.1.4.1.12.1.1"),
        (
            "1.2.156.10197.6.1.4.1.5.2",
            &gmt_kdf,
            "1.2.156.10197.6.1.4.1.12.1.1",
        ),
        (PBES2, &gmssl_kdf, "1.2.156.10197.1.104.2"),
    ] {
        let file = epki(pbes2, kdf, &alg(cipher, &octets(&iv)), &ct);
        assert_opens(&file, &plain, &format!("{pbes2} {cipher}"));
    }
}

#[test]
fn unknown_oids_and_malformed_parameters_are_typed_errors() {
    let (plain, _) = plain_key();
    let iv = [0u8; 16];
    let ct = vec![0u8; 32];
    let good_kdf = pbkdf2_alg(PBKDF2, &SALT, 1000, "1.2.840.113549.2.9");
    let aes = alg("2.16.840.1.101.3.4.1.42", &octets(&iv));
    let unsupported = |e: Error, o: &str| {
        assert_eq!(
            e,
            Error::UnsupportedScheme(const_oid::ObjectIdentifier::new(o).unwrap())
        );
    };
    // PBES1 (pbeWithSHAAnd3-KeyTripleDES-CBC) as the outer scheme
    unsupported(
        decrypt_der(&epki("1.2.840.113549.1.12.1.3", &good_kdf, &aes, &ct), b"x").unwrap_err(),
        "1.2.840.113549.1.12.1.3",
    );
    // an unknown KDF, PRF (hmacWithMD5) and cipher (des-ede3-cbc)
    let kdf = alg("1.2.3.4", &seq(&[&octets(&SALT), &int(1)]));
    unsupported(
        decrypt_der(&epki(PBES2, &kdf, &aes, &ct), b"x").unwrap_err(),
        "1.2.3.4",
    );
    let kdf = pbkdf2_alg(PBKDF2, &SALT, 1000, "1.2.840.113549.2.5");
    unsupported(
        decrypt_der(&epki(PBES2, &kdf, &aes, &ct), b"x").unwrap_err(),
        "1.2.840.113549.2.5",
    );
    let des = alg("1.2.840.113549.3.7", &octets(&[0; 8]));
    unsupported(
        decrypt_der(&epki(PBES2, &good_kdf, &des, &ct), b"x").unwrap_err(),
        "1.2.840.113549.3.7",
    );
    // iteration count 0 and above the bound; a short IV; a stated key length that is wrong
    for iter in [0, shangmi_pki::pkcs8::MAX_ITERATIONS + 1] {
        let kdf = pbkdf2_alg(PBKDF2, &SALT, iter, "1.2.840.113549.2.9");
        assert_eq!(
            decrypt_der(&epki(PBES2, &kdf, &aes, &ct), b"x").unwrap_err(),
            Error::MalformedScheme
        );
    }
    let short = alg("2.16.840.1.101.3.4.1.42", &octets(&[0; 8]));
    assert_eq!(
        decrypt_der(&epki(PBES2, &good_kdf, &short, &ct), b"x").unwrap_err(),
        Error::MalformedScheme
    );
    let kdf = alg(
        PBKDF2,
        &seq(&[
            &octets(&SALT),
            &int(1000),
            &int(16),
            &alg("1.2.840.113549.2.9", &[5, 0]),
        ]),
    );
    assert_eq!(
        decrypt_der(&epki(PBES2, &kdf, &aes, &ct), b"x").unwrap_err(),
        Error::MalformedScheme
    );
    // scrypt asking for 2^40 blocks, N not a power of two, r = 0
    for (n, r) in [(1u64 << 40, 8u32), (1000, 8), (1024, 0)] {
        use der::Encode;
        let kdf = alg(
            "1.3.6.1.4.1.11591.4.11",
            &seq(&[&octets(&SALT), &n.to_der().unwrap(), &int(r), &int(1)]),
        );
        assert_eq!(
            decrypt_der(&epki(PBES2, &kdf, &aes, &ct), b"x").unwrap_err(),
            Error::MalformedScheme,
            "N={n} r={r}"
        );
    }
    // ciphertext not a whole number of blocks, and a GCM ciphertext shorter than its tag
    assert_eq!(
        decrypt_der(&epki(PBES2, &good_kdf, &aes, &[0; 15]), b"x").unwrap_err(),
        Error::WrongPassword
    );
    let gcm = alg("2.16.840.1.101.3.4.1.46", &gcm_params());
    assert_eq!(
        decrypt_der(&epki(PBES2, &good_kdf, &gcm, &[0; 15]), b"x").unwrap_err(),
        Error::MalformedScheme
    );
    // truncations and trailing bytes of a good file: never a panic, never success
    let good = VECTORS[0].1;
    for n in 0..good.len() {
        assert!(decrypt_der(&good[..n], b"shangmi").is_err(), "prefix {n}");
    }
    let mut trailing = good.to_vec();
    trailing.push(0);
    assert!(matches!(
        decrypt_der(&trailing, b"shangmi"),
        Err(Error::Der(_))
    ));
    // a plaintext that is not a DER SEQUENCE: the wrong-password check
    let mut k = [0u8; 32];
    rc_pbkdf2_sha256(b"pw", &mut k);
    let ct = gcm_seal::<aes_gcm::Aes256Gcm>(&k, &[0x04, 0x01, 0x00]);
    let file = epki(
        PBES2,
        &pbkdf2_alg(PBKDF2, &SALT, 1000, "1.2.840.113549.2.9"),
        &alg("2.16.840.1.101.3.4.1.46", &gcm_params()),
        &ct,
    );
    assert_eq!(decrypt_der(&file, b"pw").unwrap_err(), Error::WrongPassword);
    let _ = plain;
}
