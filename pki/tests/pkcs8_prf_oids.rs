//! PBKDF2-HMAC-SM3 under both PRF OIDs: written by default as OpenSSL 3.x names it
//! (1.2.156.10197.1.401.3.1, NULL parameters, no key length), as GmSSL names it
//! (1.2.156.10197.1.401.2, key length 16) when asked; both read by both readers
//! (`shangmi_sm2::keys` and `shangmi_pki::pkcs8`).
#![allow(clippy::unwrap_used)]

use shangmi_sm2::keys::{self, EncryptionScheme};
use shangmi_sm2::pkcs8::LineEnding;

const OPENSSL_PRF: [u8; 12] = [
    0x06, 0x0a, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x83, 0x11, 0x03, 0x01,
];
const GMSSL_PRF: [u8; 11] = [
    0x06, 0x09, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x83, 0x11, 0x02,
];

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn both_prf_oids_written_and_read() {
    let sk = shangmi_pki::generate_key().unwrap();
    let mut rng = getrandom::SysRng;
    for (scheme, openssl) in [
        (EncryptionScheme::Pbkdf2Sm3Sm4Cbc { iterations: 17 }, true),
        (
            EncryptionScheme::Pbkdf2Sm3Sm4CbcGmssl { iterations: 17 },
            false,
        ),
    ] {
        let der = keys::secret_key_to_encrypted_pkcs8_der(&sk, "pw", scheme, &mut rng).unwrap();
        let der = der.as_bytes();
        assert_eq!(contains(der, &OPENSSL_PRF), openssl, "{scheme:?}");
        assert_eq!(contains(der, &GMSSL_PRF), !openssl, "{scheme:?}");
        // GmSSL states the key length (INTEGER 16), OpenSSL does not
        assert_eq!(
            contains(der, &[0x02, 0x01, 0x10, 0x30]),
            !openssl,
            "{scheme:?}"
        );
        let a = keys::secret_key_from_encrypted_pkcs8_der(der, "pw").unwrap();
        let b = shangmi_pki::pkcs8::secret_key_from_der(der, b"pw").unwrap();
        assert_eq!(a.to_bytes(), sk.to_bytes());
        assert_eq!(b.to_bytes(), sk.to_bytes());
        assert!(shangmi_pki::pkcs8::secret_key_from_der(der, b"pv").is_err());
        let pem =
            keys::secret_key_to_encrypted_pkcs8_pem(&sk, "pw", scheme, &mut rng, LineEnding::LF)
                .unwrap();
        assert_eq!(
            keys::secret_key_from_pem_with_password(&pem, "pw")
                .unwrap()
                .to_bytes(),
            sk.to_bytes()
        );
    }
}
