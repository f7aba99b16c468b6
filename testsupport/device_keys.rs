//! What every device key must do alike, for the test-device tests of the device crates
//! (sdf, skf, pkcs11): linked into each as `tests/support/device_keys.rs`, a symlink to
//! this file. Also the TLCP driver their `tests/tlcp.rs` share: a CA issuing the
//! certificates, the ECC-suite server, and one echo over loopback.

#![allow(clippy::unwrap_used, dead_code)] // test helpers outside #[test] functions; each test file uses a subset

use der::Encode;
use shangmi_pki::issue::{self, CertParams, Profile, San};
use shangmi_pki::name::parse_dn;
use shangmi_sm2::pke::{EncryptingKey, Layout};
use shangmi_sm2::{PrivateKeyOps, PublicKey};
use shangmi_tlcp::{
    CertificateDer, ClientAuth, ClientConfig, RootCertStore, ServerConfig, ServerConnection,
    Sm2EncKey, Sm2SignKey, StreamOwned,
};
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

/// A test CA: its key (in a device or in memory) and its self-signed certificate.
pub struct TlcpCa<'k, K: ?Sized> {
    key: &'k K,
    cert: shangmi_pki::Certificate,
}

impl<'k, K: PrivateKeyOps + ?Sized> TlcpCa<'k, K> {
    /// A CA named `dn` (e.g. "/CN=Test CA") whose key is `key`.
    pub fn new(key: &'k K, dn: &str) -> Self {
        let params = CertParams::new(parse_dn(dn).unwrap(), Profile::Ca { path_len: None }, 1);
        let cert = issue::self_signed(key, &params).unwrap();
        Self { key, cert }
    }

    /// A certificate for `public` named `dn`, for the DNS name localhost, in `profile`.
    pub fn leaf(&self, public: PublicKey, profile: Profile, dn: &str) -> CertificateDer<'static> {
        let mut params = CertParams::new(parse_dn(dn).unwrap(), profile, 1);
        params.sans.push(San::Dns("localhost".into()));
        let cert = issue::issue(&self.cert, self.key, &public, &params).unwrap();
        CertificateDer::from(cert.to_der().unwrap())
    }

    /// A root store holding this CA alone.
    pub fn roots(&self) -> RootCertStore {
        let mut roots = RootCertStore::empty();
        roots
            .add(CertificateDer::from(self.cert.to_der().unwrap()))
            .unwrap();
        roots
    }
}

/// An ECC-suite server for localhost with the pair `sign`/`enc` (certificates from `ca`),
/// requiring client certificates under `client_roots` if given; and the clients' roots.
pub fn tlcp_server<S, E, K>(
    sign: Arc<S>,
    enc: Arc<E>,
    ca: &TlcpCa<K>,
    client_roots: Option<RootCertStore>,
) -> (Arc<ServerConfig>, RootCertStore)
where
    S: PrivateKeyOps + Sm2SignKey + 'static,
    E: PrivateKeyOps + Sm2EncKey + 'static,
    K: PrivateKeyOps + ?Sized,
{
    let sign_cert = ca.leaf(sign.public_key(), Profile::TlcpSign, "/CN=localhost");
    let enc_cert = ca.leaf(enc.public_key(), Profile::TlcpEnc, "/CN=localhost");
    let mut builder = ServerConfig::builder();
    if let Some(roots) = client_roots {
        builder = builder.client_auth(ClientAuth::Required, roots);
    }
    let config = builder
        .with_certs(vec![sign_cert], sign, enc_cert, enc)
        .unwrap();
    (Arc::new(config), ca.roots())
}

/// The two sides' results of [`tlcp_echo`]: the server's (the client's sign certificate, if
/// it authenticated) and the client's (the 5 bytes echoed).
pub type Echo = (Result<Option<Vec<u8>>, String>, Result<Vec<u8>, String>);

/// One connection over loopback: the client sends 5 bytes, the server echoes them. The
/// server's result (the client's sign certificate, if it authenticated) and the client's.
pub fn tlcp_echo(server: Arc<ServerConfig>, client: ClientConfig) -> Echo {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let handle = std::thread::spawn(move || -> Result<Option<Vec<u8>>, String> {
        let (sock, _) = listener.accept().map_err(|e| e.to_string())?;
        let conn = ServerConnection::new(server).map_err(|e| e.to_string())?;
        let mut tls = StreamOwned::new(conn, sock);
        let mut buf = [0u8; 5];
        tls.read_exact(&mut buf).map_err(|e| e.to_string())?;
        tls.write_all(&buf).map_err(|e| e.to_string())?;
        let peer = tls.conn.peer_certificates().map(|c| c[0].to_vec());
        tls.close().map_err(|e| e.to_string())?;
        Ok(peer)
    });
    let client = tlcp_echo_client(client, addr);
    (handle.join().unwrap(), client)
}

/// [`tlcp_echo`] from a default client trusting `roots`.
pub fn tlcp_echo_trusting(server: Arc<ServerConfig>, roots: RootCertStore) -> Echo {
    tlcp_echo(server, ClientConfig::builder(roots).build().unwrap())
}
