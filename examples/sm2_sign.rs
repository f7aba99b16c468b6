//! SM2 signatures with a key from a PEM file (PKCS#8 `PRIVATE KEY`, as `openssl genpkey
//! -algorithm SM2` writes it): sign, write the DER signature, verify with the public key
//! read from its own PEM file.
//!
//! `cargo run --example sm2_sign -- [PRIVATE.pem PUBLIC.pem]` (default: the demo key pair in
//! `examples/keys/`, made for these examples only)
//!
//! The signature uses the default ID `1234567812345678`. OpenSSL 3 uses an *empty* ID unless
//! told otherwise, so to check it there pass the ID:
//!
//! ```sh
//! openssl pkeyutl -verify -rawin -digest sm3 -pubin -inkey examples/keys/sm2-public.pem \
//!     -pkeyopt distid:1234567812345678 -in message.txt -sigfile message.sig
//! ```

use shangmi_sm2::dsa::{Signature, SigningKey, VerifyingKey};
use shangmi_sm2::keys::{public_key_from_spki_pem, secret_key_from_pkcs8_pem};
use shangmi_sm2::signature::{Signer, Verifier};

fn main() -> Result<(), Box<dyn core::error::Error>> {
    let keys = concat!(env!("CARGO_MANIFEST_DIR"), "/keys");
    let mut args = std::env::args().skip(1);
    let private = args.next().unwrap_or(format!("{keys}/sm2-private.pem"));
    let public = args.next().unwrap_or(format!("{keys}/sm2-public.pem"));

    let signing_key = SigningKey::new(&secret_key_from_pkcs8_pem(&std::fs::read_to_string(
        &private,
    )?)?)?;
    let message = b"the message to sign\n";
    let signature: Signature = signing_key.sign(message);
    let der = signature.to_der();
    println!("message:   {:?}", String::from_utf8_lossy(message));
    println!("signature: {} (DER)", hex::encode(der.as_ref()));

    let verifying_key = VerifyingKey::new(&public_key_from_spki_pem(&std::fs::read_to_string(
        &public,
    )?)?);
    verifying_key.verify(message, &Signature::from_der(der.as_ref())?)?;
    println!("verified with {public}");
    assert!(
        verifying_key
            .verify(b"another message", &signature)
            .is_err()
    );

    // The same key with OpenSSL 3's default (empty) ID gives a signature that OpenSSL
    // verifies without `distid`.
    let openssl_default = SigningKey::new_with_id(&signing_key.secret_key(), b"")?;
    let signature = openssl_default.sign(message);
    VerifyingKey::new_with_id(
        &public_key_from_spki_pem(&std::fs::read_to_string(&public)?)?,
        b"",
    )?
    .verify(message, &signature)?;
    println!("signed and verified with the empty ID as well");
    Ok(())
}
