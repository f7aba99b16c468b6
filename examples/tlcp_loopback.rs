//! TLCP (GB/T 38636) end to end on this machine: `shangmi-pki` issues a CA and the server's
//! sign and encryption certificates, a `shangmi-tlcp` server on a loopback port echoes one
//! line, and a client with the CA as its root sends it over ECC_SM4_GCM_SM3.
//!
//! `cargo run -p shangmi-examples --example tlcp_loopback`

mod tlcp_pki;

use shangmi_tlcp::{ClientConfig, ClientConnection, ServerConfig, ServerConnection, StreamOwned};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use tlcp_pki::Error;

fn main() -> Result<(), Error> {
    // The PKI: a CA, then the server's sign and encryption certificates.
    let (roots, (sign_cert, sign_key), (enc_cert, enc_key)) = tlcp_pki::server_pki()?;

    // The server: both certificates and keys; it echoes one line.
    let server = Arc::new(ServerConfig::builder().with_certs(
        vec![sign_cert],
        sign_key,
        enc_cert,
        enc_key,
    )?);
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    let echo = std::thread::spawn(move || -> Result<(), String> {
        let (sock, _) = listener.accept().map_err(|e| e.to_string())?;
        let conn = ServerConnection::new(server).map_err(|e| e.to_string())?;
        let mut tlcp = BufReader::new(StreamOwned::new(conn, sock));
        let mut line = String::new();
        tlcp.read_line(&mut line).map_err(|e| e.to_string())?;
        let tlcp = tlcp.get_mut();
        tlcp.write_all(line.as_bytes()).map_err(|e| e.to_string())?;
        tlcp.close().map_err(|e| e.to_string())
    });

    // The client: the CA as its root, checking "localhost" on the sign certificate.
    let config = Arc::new(ClientConfig::builder(roots).build()?);
    let conn = ClientConnection::new(config, "localhost".try_into()?)?;
    let mut tlcp = StreamOwned::new(conn, TcpStream::connect(addr)?);
    tlcp.write_all(b"hello over TLCP\n")?;
    let mut reply = String::new();
    BufReader::new(&mut tlcp).read_line(&mut reply)?;
    let suite = tlcp.conn.negotiated_cipher_suite().map(|s| s.name());
    println!("{suite:?}: {}", reply.trim_end());
    assert_eq!(reply, "hello over TLCP\n");
    echo.join().map_err(|_| "server thread panicked")??;
    Ok(())
}
