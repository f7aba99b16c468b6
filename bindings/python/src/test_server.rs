//! The one-thread TLCP test server of both packages' tests: plain Rust over `shangmi-tlcp`
//! and std, so that the Python module (here) and the Node addon (`bindings/node`, which
//! includes this file with `#[path]`, as it includes the wasm engine's core) share it;
//! each face only converts its arguments and errors.

use shangmi_tlcp::{
    CertificateDer, ClientAuth, RootCertStore, ServerConfig, ServerConnection, Sm2PrivateKey,
    StreamOwned,
};
use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The server's certificates and keys: the sign chain (leaf first) with its key, the
/// encryption certificate with its key; with `client_ca`, client certificates chaining to
/// it are required.
pub(crate) struct TestServer {
    pub(crate) sign_chain: Vec<CertificateDer<'static>>,
    pub(crate) sign_key: Arc<Sm2PrivateKey>,
    pub(crate) enc_cert: CertificateDer<'static>,
    pub(crate) enc_key: Arc<Sm2PrivateKey>,
    pub(crate) client_ca: Option<CertificateDer<'static>>,
}

/// A failure: of the configuration (TLCP) or of the listening socket.
pub(crate) enum Failure {
    Tlcp(shangmi_tlcp::Error),
    Io(io::Error),
}

impl TestServer {
    /// Serves one request on each of the next `connections` connections on 127.0.0.1
    /// (then the thread ends; it gives up 30 s after it starts): reads up to the end of
    /// the request head and answers `response`. Returns the port.
    pub(crate) fn spawn(self, response: Vec<u8>, connections: usize) -> Result<u16, Failure> {
        let mut b = ServerConfig::builder();
        if let Some(ca) = self.client_ca {
            let mut roots = RootCertStore::empty();
            roots.add(ca).map_err(Failure::Tlcp)?;
            b = b.client_auth(ClientAuth::Required, roots);
        }
        let config = b
            .with_certs(self.sign_chain, self.sign_key, self.enc_cert, self.enc_key)
            .map_err(Failure::Tlcp)?;
        let config = Arc::new(config);
        let listener = TcpListener::bind("127.0.0.1:0").map_err(Failure::Io)?;
        let port = listener.local_addr().map_err(Failure::Io)?.port();
        listener.set_nonblocking(true).map_err(Failure::Io)?;
        std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(30);
            let mut served = 0;
            while served < connections && Instant::now() < deadline {
                match listener.accept() {
                    Ok((sock, _)) => {
                        served += 1;
                        let _ = serve_one(&config, sock, &response);
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    Err(_) => break,
                }
            }
        });
        Ok(port)
    }
}

fn serve_one(config: &Arc<ServerConfig>, sock: TcpStream, response: &[u8]) -> io::Result<()> {
    sock.set_nonblocking(false)?;
    sock.set_read_timeout(Some(Duration::from_secs(10)))?;
    sock.set_write_timeout(Some(Duration::from_secs(10)))?;
    let conn = ServerConnection::new(config.clone()).map_err(io::Error::from)?;
    let mut s = StreamOwned::new(conn, sock);
    let mut head = Vec::new();
    let mut chunk = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 65_536 {
        let n = s.read(&mut chunk)?;
        if n == 0 {
            return Ok(());
        }
        head.extend_from_slice(&chunk[..n]);
    }
    s.write_all(response)?;
    s.flush()?;
    s.close()
}
