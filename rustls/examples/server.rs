//! A TLS 1.3 server with the SM suites in a few lines:
//! `cargo run -p shangmi-rustls --example server -- 127.0.0.1:4433 chain.pem key.pem`
//! reads one request and answers it with a line of text.

use rustls::pki_types::{CertificateDer, PrivateKeyDer, pem::PemObject};
use std::io::{Read, Write};
use std::sync::Arc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [addr, chain, key] = &args[..] else {
        return Err("usage: server ADDR CHAIN.pem KEY.pem".into());
    };
    let chain = CertificateDer::pem_file_iter(chain)?.collect::<Result<Vec<_>, _>>()?;
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(shangmi_rustls::provider()))
        .with_protocol_versions(&[&rustls::version::TLS13])?
        .with_no_client_auth()
        .with_single_cert(chain, PrivateKeyDer::from_pem_file(key)?)?;
    let (sock, _) = std::net::TcpListener::bind(addr)?.accept()?;
    let conn = rustls::ServerConnection::new(Arc::new(config))?;
    let mut tls = rustls::StreamOwned::new(conn, sock);
    let mut request = [0u8; 4096];
    let n = tls.read(&mut request)?;
    eprintln!("request: {:?}", String::from_utf8_lossy(&request[..n]));
    tls.write_all(b"HTTP/1.0 200 OK\r\n\r\nhello over TLS_SM4_GCM_SM3\n")?;
    tls.conn.send_close_notify();
    tls.flush()?;
    Ok(())
}
