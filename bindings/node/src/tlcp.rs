//! A TLCP client (`shangmi-tlcp`) for the native engine, without I/O of its own: the
//! JavaScript layer (`bindings/wasm/js/tlcp.js`) moves the record bytes over a
//! `net.Socket` and calls in on the event loop, where each call only parses, decrypts or
//! encrypts what is already in memory (the handshake's SM2 operations included) and never
//! waits; so no thread is held and the event loop never blocks on the network. Plus a
//! one-thread test server for the package's tests, as the Python package has.

use crate::test_server::{Failure, TestServer};
use crate::{core, err};
use napi::bindgen_prelude::{Result, Uint8Array};
use napi_derive::napi;
use shangmi_tlcp::{
    CertificateDer, ClientConfig, ClientConnection, NameCheck, RootCertStore, ServerName,
    Sm2PrivateKey,
};
use std::io::{self, Read, Write};
use std::sync::Arc;

fn tlcp_err(e: shangmi_tlcp::Error) -> napi::Error {
    err(format!("TLCP: {e}"))
}

fn io_err(e: io::Error) -> napi::Error {
    err(format!("TLCP: {e}"))
}

fn key(d: &[u8]) -> Result<Arc<Sm2PrivateKey>> {
    Ok(Arc::new(
        Sm2PrivateKey::new(core::secret(d).map_err(err)?).map_err(tlcp_err)?,
    ))
}

fn der(c: &Uint8Array) -> CertificateDer<'static> {
    CertificateDer::from(c.to_vec())
}

/// The client's settings (checked by the JavaScript layer).
#[napi(object)]
pub struct TlcpClientOptions {
    /// CA certificates (DER) both server certificates must chain to.
    pub roots: Vec<Uint8Array>,
    /// CRLs (DER or PEM) the chains are checked against.
    pub crls: Vec<Uint8Array>,
    /// The name checked against the sign certificate (and sent as SNI).
    pub server_name: String,
    /// "san", "cn-fallback" or "none".
    pub name_check: String,
    /// Suites by name (all when absent).
    pub suites: Option<Vec<String>>,
    /// ALPN protocols to offer.
    pub alpn: Option<Vec<String>>,
    /// Whether SNI is sent.
    pub sni: bool,
    /// The client's sign chain (DER, leaf first), for servers that ask and ECDHE suites.
    pub sign_chain: Option<Vec<Uint8Array>>,
    /// Its 32-byte key.
    pub sign_key: Option<Uint8Array>,
    /// The client's encryption certificate (DER).
    pub enc_cert: Option<Uint8Array>,
    /// Its 32-byte key.
    pub enc_key: Option<Uint8Array>,
}

/// One TLCP client connection's state machine: record bytes in (`feed`), record bytes out
/// (`takeOutgoing`), plaintext in (`write`), plaintext out (what `feed` returns).
#[napi]
pub struct TlcpClient {
    c: ClientConnection,
    peer_closed: bool,
}

#[napi]
impl TlcpClient {
    /// A connection about to send its ClientHello (`takeOutgoing`).
    #[napi(constructor)]
    pub fn new(o: TlcpClientOptions) -> Result<Self> {
        let mut store = RootCertStore::empty();
        for r in &o.roots {
            store.add(der(r)).map_err(tlcp_err)?;
        }
        for c in &o.crls {
            if shangmi_pki::pem::is_pem(c) {
                store.add_crl_pem(c).map_err(tlcp_err)?;
            } else {
                store.add_crl(c).map_err(tlcp_err)?;
            }
        }
        let check = match o.name_check.as_str() {
            "san" => NameCheck::SubjectAltName,
            "cn-fallback" => NameCheck::CommonNameFallback,
            "none" => NameCheck::DangerousNone,
            _ => {
                return Err(err(
                    "nameCheck must be 'san', 'cn-fallback' or 'none'".into()
                ));
            }
        };
        let mut b = ClientConfig::builder(store)
            .name_check(check)
            .enable_sni(o.sni);
        if let Some(names) = &o.suites {
            b = b.suites(&crate::pki_text::suites(names).map_err(err)?);
        }
        if let Some(p) = o.alpn {
            b = b.alpn_protocols(p.into_iter().map(String::into_bytes).collect());
        }
        match (&o.sign_chain, &o.sign_key, &o.enc_cert, &o.enc_key) {
            (Some(chain), Some(sk), Some(ec), Some(ek)) => {
                let chain = chain.iter().map(der).collect();
                b = b.client_certs(chain, key(sk)?, der(ec), key(ek)?);
            }
            (None, None, None, None) => {}
            _ => {
                return Err(err(
                    "client certificates need all of signChain, signKey, encCert and encKey".into(),
                ));
            }
        }
        let config = Arc::new(b.build().map_err(tlcp_err)?);
        let name = ServerName::try_from(o.server_name)
            .map_err(|_| err("servername is not a DNS name or IP address".into()))?;
        Ok(TlcpClient {
            c: ClientConnection::new(config, name).map_err(tlcp_err)?,
            peer_closed: false,
        })
    }

    /// Takes record bytes from the server; returns the plaintext they carried (perhaps
    /// none). On a failure the alert to send waits in `takeOutgoing`.
    #[napi]
    pub fn feed(&mut self, data: Uint8Array) -> Result<Uint8Array> {
        let mut rd: &[u8] = &data;
        let mut plain = Vec::new();
        loop {
            if !rd.is_empty() {
                self.c.read_tls(&mut rd).map_err(io_err)?;
            }
            self.process(&mut plain)?;
            if rd.is_empty() {
                return Ok(Uint8Array::new(plain));
            }
        }
    }

    /// The transport ended: the plaintext still buffered; an error if the server did not
    /// send close_notify first (a truncation).
    #[napi]
    pub fn feed_eof(&mut self) -> Result<Uint8Array> {
        let mut rd: &[u8] = &[];
        self.c.read_tls(&mut rd).map_err(io_err)?;
        let mut plain = Vec::new();
        self.process(&mut plain)?;
        Ok(Uint8Array::new(plain))
    }

    fn process(&mut self, plain: &mut Vec<u8>) -> Result<()> {
        let st = self.c.process_new_packets().map_err(tlcp_err)?;
        self.peer_closed |= st.peer_has_closed;
        let mut buf = [0u8; 16384];
        loop {
            match self.c.reader().read(&mut buf) {
                Ok(0) => return Ok(()),
                Ok(n) => plain.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(e) => return Err(io_err(e)),
            }
        }
    }

    /// Queues plaintext (sent once the handshake is done).
    #[napi]
    pub fn write(&mut self, data: Uint8Array) -> Result<()> {
        self.c.writer().write_all(&data).map_err(io_err)
    }

    /// The record bytes to send now (perhaps none).
    #[napi]
    pub fn take_outgoing(&mut self) -> Result<Uint8Array> {
        let mut out = Vec::new();
        while self.c.wants_write() {
            if self.c.write_tls(&mut out).map_err(io_err)? == 0 {
                break;
            }
        }
        Ok(Uint8Array::new(out))
    }

    /// Queues close_notify.
    #[napi]
    pub fn close_notify(&mut self) {
        self.c.send_close_notify();
    }

    /// Whether the handshake is still running.
    #[napi]
    pub fn is_handshaking(&self) -> bool {
        self.c.is_handshaking()
    }

    /// Whether the server sent close_notify.
    #[napi]
    pub fn peer_closed(&self) -> bool {
        self.peer_closed
    }

    /// The negotiated suite's name.
    #[napi]
    pub fn cipher_suite(&self) -> Option<String> {
        self.c
            .negotiated_cipher_suite()
            .map(|s| s.name().to_string())
    }

    /// The server's certificates (DER): sign certificate, encryption certificate, chain.
    #[napi]
    pub fn peer_certificates(&self) -> Vec<Uint8Array> {
        self.c
            .peer_certificates()
            .unwrap_or_default()
            .iter()
            .map(|c| Uint8Array::new(c.as_ref().to_vec()))
            .collect()
    }

    /// The ALPN protocol the server chose.
    #[napi]
    pub fn alpn_protocol(&self) -> Option<String> {
        self.c
            .alpn_protocol()
            .map(|p| String::from_utf8_lossy(p).into_owned())
    }

    /// Whether the session was resumed.
    #[napi]
    pub fn is_resumed(&self) -> bool {
        self.c.is_resumed()
    }
}

/// Serves one request on each of the next `connections` connections on 127.0.0.1 (then
/// the thread ends; it gives up 30 s after it starts): reads up to the end of the request
/// head and answers `response`. With `client_ca`, client certificates chaining to it are
/// required. For the package's tests; returns the port.
#[napi(js_name = "_tlcpTestServer")]
#[allow(clippy::too_many_arguments)]
pub fn tlcp_test_server(
    sign_chain: Vec<Uint8Array>,
    sign_key: Uint8Array,
    enc_cert: Uint8Array,
    enc_key: Uint8Array,
    response: Uint8Array,
    connections: u32,
    client_ca: Option<Uint8Array>,
) -> Result<u32> {
    let server = TestServer {
        sign_chain: sign_chain.iter().map(der).collect(),
        sign_key: key(&sign_key)?,
        enc_cert: der(&enc_cert),
        enc_key: key(&enc_key)?,
        client_ca: client_ca.as_ref().map(der),
    };
    let port = server
        .spawn(response.to_vec(), connections as usize)
        .map_err(|e| match e {
            Failure::Tlcp(e) => tlcp_err(e),
            Failure::Io(e) => io_err(e),
        })?;
    Ok(u32::from(port))
}
