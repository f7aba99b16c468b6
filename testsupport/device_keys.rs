//! What every device key must do alike, for the test-device tests of the device crates
//! (sdf, skf): linked into each as `tests/support/device_keys.rs`, a symlink to this file.

#![allow(clippy::unwrap_used, dead_code)] // test helpers outside #[test] functions; each test file uses a subset

use shangmi_sm2::PrivateKeyOps;
use shangmi_sm2::pke::{EncryptingKey, Layout};
use std::io::{Read, Write};
use std::sync::Arc;

/// `key` (an encryption pair in a device) decrypts what memory encrypts to its public key:
/// C2 of 1, 48, 255 and 1024 bytes (the device crates' limit), C1 uncompressed and
/// compressed. Returns a ciphertext of "premaster" for the caller's own refusals.
pub fn decrypts_like_memory<K: PrivateKeyOps>(key: &K) -> Vec<u8> {
    let ek = EncryptingKey::new(key.public_key());
    let mut rng = getrandom::SysRng;
    for len in [1usize, 48, 255, 1024] {
        let msg: Vec<u8> = (0..len).map(|i| i as u8).collect();
        for layout in [Layout::C1C3C2, Layout::C1C3C2Compressed] {
            let ct = ek.encrypt(&mut rng, &msg, layout).unwrap();
            assert_eq!(key.decrypt(&ct).unwrap(), msg, "{len} bytes, {layout:?}");
        }
    }
    ek.encrypt(&mut rng, b"premaster", Layout::C1C3C2).unwrap()
}

/// A ciphertext of 1025 bytes to `key`'s public key: one more than the device crates take.
pub fn too_long_for_devices<K: PrivateKeyOps>(key: &K) -> Vec<u8> {
    EncryptingKey::new(key.public_key())
        .encrypt(&mut getrandom::SysRng, &[7; 1025], Layout::C1C3C2)
        .unwrap()
}

/// The client side of one TLCP connection to `addr`: sends "hello", reads 5 bytes back.
pub fn tlcp_echo_client(
    config: shangmi_tlcp::ClientConfig,
    addr: std::net::SocketAddr,
) -> Result<Vec<u8>, String> {
    let conn =
        shangmi_tlcp::ClientConnection::new(Arc::new(config), "localhost".try_into().unwrap())
            .map_err(|e| e.to_string())?;
    let sock = std::net::TcpStream::connect(addr).map_err(|e| e.to_string())?;
    let mut tls = shangmi_tlcp::StreamOwned::new(conn, sock);
    tls.write_all(b"hello").map_err(|e| e.to_string())?;
    let mut buf = [0u8; 5];
    tls.read_exact(&mut buf).map_err(|e| e.to_string())?;
    Ok(buf.to_vec())
}
