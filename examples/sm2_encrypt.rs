//! SM2 public-key encryption (GB/T 32918.4): encrypt to a public key from a PEM file,
//! decrypt with the private key, and convert between the ciphertext layouts other
//! libraries use.
//!
//! `cargo run --example sm2_encrypt`

use getrandom::SysRng;
use shangmi_sm2::keys::{public_key_from_spki_pem, secret_key_from_pkcs8_pem};
use shangmi_sm2::pke::{self, DecryptingKey, EncryptingKey, Layout};

const PRIVATE: &str = include_str!("keys/sm2-private.pem");
const PUBLIC: &str = include_str!("keys/sm2-public.pem");

fn main() -> Result<(), Box<dyn core::error::Error>> {
    let encrypting_key = EncryptingKey::new(public_key_from_spki_pem(PUBLIC)?);
    let message = b"meet me at the usual place";

    // C1 ‖ C3 ‖ C2 is GB/T 32918.4-2016's order: 65-byte point, 32-byte SM3 check, then the
    // message XORed with the key stream.
    let ciphertext = encrypting_key.encrypt(&mut SysRng, message, Layout::C1C3C2)?;
    println!(
        "C1C3C2 ({} bytes): {}",
        ciphertext.len(),
        hex::encode(&ciphertext)
    );

    // The ASN.1 form of GM/T 0009 (what OpenSSL's `pkeyutl -encrypt` writes for SM2).
    let der = pke::c1c3c2_to_der(&ciphertext)?;
    println!("DER    ({} bytes): {}", der.len(), hex::encode(&der));

    let decrypting_key = DecryptingKey::new(secret_key_from_pkcs8_pem(PRIVATE)?);
    assert_eq!(
        decrypting_key.decrypt(&ciphertext, Layout::C1C3C2)?,
        message
    );
    assert_eq!(decrypting_key.decrypt_der(&der)?, message);

    // The older C1 ‖ C2 ‖ C3 order (some libraries' default): convert, or decrypt directly.
    let old_order = pke::convert(&ciphertext, Layout::C1C3C2, Layout::C1C2C3)?;
    let plaintext = decrypting_key.decrypt(&old_order, Layout::C1C2C3)?;
    println!("decrypted: {:?}", String::from_utf8_lossy(&plaintext));

    // A changed byte fails the C3 check: a typed error.
    let mut tampered = ciphertext.clone();
    tampered[100] ^= 1;
    println!(
        "tampered: {:?}",
        decrypting_key.decrypt(&tampered, Layout::C1C3C2).err()
    );
    Ok(())
}
