//! SM4-CBC with PKCS#7 padding, and the same data under CTR: the classic modes through
//! `shangmi-sm4-modes`' aliases over RustCrypto's `cbc` and `ctr` crates.
//!
//! `cargo run --example sm4_cbc`

use shangmi_sm4_modes::cipher::block_padding::Pkcs7;
use shangmi_sm4_modes::cipher::{BlockModeDecrypt, BlockModeEncrypt, KeyIvInit, StreamCipher};
use shangmi_sm4_modes::{Sm4CbcDec, Sm4CbcEnc, Sm4Ctr};

fn main() -> Result<(), Box<dyn core::error::Error>> {
    let key = hex_literal::hex!("0123456789abcdeffedcba9876543210");
    // A fresh, unpredictable IV per message (CBC); a unique counter block per message (CTR).
    let iv = hex_literal::hex!("000102030405060708090a0b0c0d0e0f");
    let message = b"twenty-one bytes long";

    let ciphertext = Sm4CbcEnc::new(&key.into(), &iv.into()).encrypt_padded_vec::<Pkcs7>(message);
    println!(
        "CBC ciphertext ({} bytes): {}",
        ciphertext.len(),
        hex::encode(&ciphertext)
    );
    let plaintext =
        Sm4CbcDec::new(&key.into(), &iv.into()).decrypt_padded_vec::<Pkcs7>(&ciphertext)?;
    assert_eq!(plaintext, message);

    // A truncated ciphertext is a typed error, not a panic. (A wrong key or a changed byte
    // is not reliably detected: the padding may happen to be valid. CBC has no integrity;
    // use GCM, or a MAC over the ciphertext.)
    let truncated = Sm4CbcDec::new(&key.into(), &iv.into())
        .decrypt_padded_vec::<Pkcs7>(&ciphertext[..ciphertext.len() - 1]);
    assert!(truncated.is_err());
    println!("truncated ciphertext: {truncated:?}");

    // CTR needs no padding: the ciphertext is as long as the message.
    let mut buffer = *message;
    Sm4Ctr::new(&key.into(), &iv.into()).apply_keystream(&mut buffer);
    println!(
        "CTR ciphertext ({} bytes): {}",
        buffer.len(),
        hex::encode(buffer)
    );
    Sm4Ctr::new(&key.into(), &iv.into()).apply_keystream(&mut buffer);
    assert_eq!(&buffer, message);
    Ok(())
}
