//! A TLS 1.3 client with the SM suites in a few lines:
//! `cargo run -p shangmi-rustls --example client -- 127.0.0.1:4433 localhost ca.pem`
//! sends an HTTP/1.0 request and prints the reply.

use rustls::pki_types::{CertificateDer, pem::PemObject};
use std::io::{Read, Write};
use std::sync::Arc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [addr, name, ca] = &args[..] else {
        return Err("usage: client ADDR SERVER_NAME CA.pem".into());
    };
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(ca)? {
        roots.add(cert?)?;
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(shangmi_rustls::provider()))
        .with_protocol_versions(&[&rustls::version::TLS13])?
        .with_root_certificates(roots)
        .with_no_client_auth();
    let conn = rustls::ClientConnection::new(Arc::new(config), name.clone().try_into()?)?;
    let mut tls = rustls::StreamOwned::new(conn, std::net::TcpStream::connect(addr)?);
    tls.write_all(b"GET / HTTP/1.0\r\n\r\n")?;
    let mut reply = Vec::new();
    if let Err(e) = tls.read_to_end(&mut reply) {
        // Servers that close without close_notify end here, after their reply.
        if e.kind() != std::io::ErrorKind::UnexpectedEof {
            return Err(e.into());
        }
    }
    print!("{}", String::from_utf8_lossy(&reply));
    Ok(())
}
