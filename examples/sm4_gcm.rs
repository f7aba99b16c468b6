//! SM4-GCM (RFC 8998): seal and open a message with associated data, into a `Vec`.
//!
//! `cargo run --example sm4_gcm`

use shangmi_sm4_modes::Sm4Gcm;
use shangmi_sm4_modes::aead::{Aead, KeyInit, Payload};

fn main() -> Result<(), shangmi_sm4_modes::aead::Error> {
    // RFC 8998 Appendix A.1's key and nonce; use a key from your key store and a nonce that
    // never repeats under it (a counter, or `Nonce::<Sm4Gcm>::generate()` with the
    // `getrandom` feature).
    let key = hex_literal::hex!("0123456789abcdeffedcba9876543210");
    let nonce = hex_literal::hex!("00001234567800000000abcd");
    let cipher = Sm4Gcm::new(&key.into());

    let message = b"a message that nobody else may read or change";
    let sealed = cipher.encrypt(
        &nonce.into(),
        Payload {
            msg: message,
            aad: b"header: not secret, but authenticated",
        },
    )?;
    println!("backend:    {}", cipher_backend(&key));
    println!("ciphertext: {}", hex::encode(&sealed[..message.len()]));
    println!("tag:        {}", hex::encode(&sealed[message.len()..]));

    let opened = cipher.decrypt(
        &nonce.into(),
        Payload {
            msg: &sealed,
            aad: b"header: not secret, but authenticated",
        },
    )?;
    assert_eq!(opened, message);

    // A changed header (or ciphertext, or tag) is refused.
    let forged = cipher.decrypt(
        &nonce.into(),
        Payload {
            msg: &sealed,
            aad: b"header: changed",
        },
    );
    assert!(forged.is_err());
    println!("opened the message; refused the changed header");
    Ok(())
}

/// The SM4 backend this CPU runs (`gfni-avx512`, `aesni-avx2`, `soft`, …).
fn cipher_backend(key: &[u8; 16]) -> shangmi_sm4::Backend {
    use shangmi_sm4_modes::{Sm4, cipher::KeyInit};
    Sm4::new(&(*key).into()).backend()
}
