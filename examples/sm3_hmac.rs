//! SM3 of a file (or of standard input), printed in hex as `sm3sum` would, then HMAC-SM3
//! and HKDF-SM3 over it.
//!
//! `cargo run --example sm3_hmac -- FILE`

use hmac::{Hmac, KeyInit, Mac};
use shangmi_sm3::{Digest, Sm3};
use std::io::Read;

fn main() -> Result<(), Box<dyn core::error::Error>> {
    let mut hasher = Sm3::new();
    let name = std::env::args().nth(1);
    let mut input: Box<dyn Read> = match &name {
        Some(path) => Box::new(std::fs::File::open(path)?),
        None => Box::new(std::io::stdin()),
    };
    // Streaming: the file is hashed 64 KiB at a time.
    let mut buffer = vec![0u8; 1 << 16];
    loop {
        let n = input.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
    }
    let digest = hasher.finalize();
    // `digest` 0.11's output array has no `{:x}`: `hex::encode` prints it.
    println!(
        "{}  {}",
        hex::encode(digest),
        name.as_deref().unwrap_or("-")
    );

    let mut mac = Hmac::<Sm3>::new_from_slice(b"a secret key")?;
    mac.update(&digest);
    println!(
        "HMAC-SM3 of the digest: {}",
        hex::encode(mac.finalize().into_bytes())
    );

    let mut okm = [0u8; 16];
    hkdf::Hkdf::<Sm3>::new(Some(b"salt"), &digest)
        .expand(b"an SM4 key", &mut okm)
        .map_err(|_| "HKDF output too long")?;
    println!("HKDF-SM3 -> SM4 key: {}", hex::encode(okm));
    Ok(())
}
