//! TLCP (`shangmi-tlcp`): a blocking client over a TCP socket, with the GIL released while
//! it waits, and a one-thread test server for the package's own tests.

use crate::common::{Buf, PyOut, add_items, bytes};
use crate::pki::PyCertificate;
use crate::sm2::PyPrivateKey;
use crate::test_server::{Failure, TestServer};
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyTimeoutError, PyValueError};
use pyo3::prelude::*;
use shangmi_tlcp::{
    CertificateDer, ClientConfig, ClientConnection, NameCheck, RootCertStore, ServerName,
    Sm2PrivateKey, StreamOwned,
};
use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

create_exception!(
    _shangmi,
    TLCPError,
    PyOSError,
    "A TLCP handshake or record failed (an alert, a certificate the client does not trust, \
     a protocol violation); an OSError, as ssl.SSLError is."
);

fn io_err(e: io::Error) -> PyErr {
    if let Some(t) = e
        .get_ref()
        .and_then(|i| i.downcast_ref::<shangmi_tlcp::Error>())
    {
        return TLCPError::new_err(t.to_string());
    }
    match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => PyTimeoutError::new_err("timed out"),
        _ => PyErr::from(e),
    }
}

fn tlcp_err(e: shangmi_tlcp::Error) -> PyErr {
    TLCPError::new_err(e.to_string())
}

fn cert_der(c: &PyCertificate) -> CertificateDer<'static> {
    CertificateDer::from(c.der().to_vec())
}

fn duration(timeout: Option<f64>) -> PyResult<Option<Duration>> {
    match timeout {
        None => Ok(None),
        Some(t) if t.is_finite() && t > 0.0 => Ok(Some(Duration::from_secs_f64(t))),
        Some(_) => Err(PyValueError::new_err(
            "timeout must be a positive number or None",
        )),
    }
}

type Tls = StreamOwned<ClientConnection, TcpStream>;

/// A TLCP connection (see `shangmi.tlcp.connect`): `send`, `sendall`, `recv`, `close`,
/// `cipher()`, `version()`, `peer_certificates()`, `settimeout`, `fileno`.
#[pyclass(name = "TLCPSocket", module = "shangmi")]
struct PyTlcpSocket {
    s: Option<Tls>,
    timeout: Option<f64>,
}

impl PyTlcpSocket {
    fn tls(&mut self) -> PyResult<&mut Tls> {
        self.s
            .as_mut()
            .ok_or_else(|| PyOSError::new_err("the TLCP socket is closed"))
    }
}

#[pymethods]
impl PyTlcpSocket {
    /// Sends what one record write takes of `data`; returns the byte count.
    fn send(&mut self, py: Python<'_>, data: Buf<'_>) -> PyResult<usize> {
        let (d, s) = (data.as_slice(), self.tls()?);
        py.detach(|| s.write(d)).map_err(io_err)
    }

    /// Sends all of `data`.
    fn sendall(&mut self, py: Python<'_>, data: Buf<'_>) -> PyResult<()> {
        let (d, s) = (data.as_slice(), self.tls()?);
        py.detach(|| s.write_all(d).and_then(|()| s.flush()))
            .map_err(io_err)
    }

    /// Up to `bufsize` bytes of plaintext; `b""` when the server has closed.
    fn recv<'py>(&mut self, py: Python<'py>, bufsize: usize) -> PyOut<'py> {
        let s = self.tls()?;
        let mut out = vec![0u8; bufsize.min(1 << 20)];
        let n = py
            .detach(|| match s.read(&mut out) {
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(0),
                r => r,
            })
            .map_err(io_err)?;
        Ok(bytes(py, &out[..n]))
    }

    /// Sends close_notify (best effort) and closes the socket.
    fn close(&mut self, py: Python<'_>) {
        if let Some(mut s) = self.s.take() {
            py.detach(|| {
                let _ = s.close();
                let _ = s.sock.shutdown(std::net::Shutdown::Both);
            });
        }
    }

    /// `(suite name, "TLCPv1.1", 128)`, as `ssl.SSLSocket.cipher()` shapes it.
    fn cipher(&mut self) -> PyResult<Option<(&'static str, &'static str, u32)>> {
        Ok(self
            .tls()?
            .conn
            .negotiated_cipher_suite()
            .map(|s| (s.name(), "TLCPv1.1", 128)))
    }

    /// "TLCPv1.1" (GB/T 38636's version 0x0101).
    fn version(&self) -> &'static str {
        "TLCPv1.1"
    }

    /// The server's certificates: sign certificate, encryption certificate, then its chain.
    fn peer_certificates(&mut self) -> PyResult<Vec<PyCertificate>> {
        let certs = self.tls()?.conn.peer_certificates().unwrap_or_default();
        certs
            .iter()
            .map(|c| PyCertificate::from_der_bytes(c.as_ref()))
            .collect()
    }

    /// Whether the session was resumed.
    fn session_reused(&mut self) -> PyResult<bool> {
        Ok(self.tls()?.conn.is_resumed())
    }

    /// The ALPN protocol the server chose.
    fn selected_alpn_protocol(&mut self) -> PyResult<Option<String>> {
        Ok(self
            .tls()?
            .conn
            .alpn_protocol()
            .map(|p| String::from_utf8_lossy(p).into_owned()))
    }

    #[pyo3(signature = (timeout))]
    fn settimeout(&mut self, timeout: Option<f64>) -> PyResult<()> {
        let d = duration(timeout)?;
        let s = self.tls()?;
        s.sock.set_read_timeout(d).map_err(io_err)?;
        s.sock.set_write_timeout(d).map_err(io_err)?;
        self.timeout = timeout;
        Ok(())
    }

    fn gettimeout(&self) -> Option<f64> {
        self.timeout
    }

    /// The TCP socket's descriptor (for select/poll), -1 once closed.
    fn fileno(&self) -> i64 {
        #[cfg(unix)]
        {
            use std::os::fd::AsRawFd;
            self.s
                .as_ref()
                .map_or(-1, |s| i64::from(s.sock.as_raw_fd()))
        }
        #[cfg(windows)]
        {
            use std::os::windows::io::AsRawSocket;
            self.s
                .as_ref()
                .map_or(-1, |s| s.sock.as_raw_socket() as i64)
        }
    }
}

fn connect_tcp(host: &str, port: u16, timeout: Option<Duration>) -> io::Result<TcpStream> {
    let mut last = io::Error::new(io::ErrorKind::NotFound, "no address for the host");
    for addr in (host, port).to_socket_addrs()? {
        let r = match timeout {
            Some(t) => TcpStream::connect_timeout(&addr, t),
            None => TcpStream::connect(addr),
        };
        match r {
            Ok(s) => return Ok(s),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// Connects to a TLCP server and completes the handshake (the GIL released meanwhile).
/// `roots`: the CA certificates both server certificates must chain to; `crls`: CRLs (DER
/// or PEM) they are checked against; client certificates (`sign_chain`, `sign_key`, `enc_cert`,
/// `enc_key`) for servers that ask and for ECDHE suites; `suites` by name; `server_name`
/// (default `host`) is checked against the sign certificate by `name_check` ("san",
/// "cn-fallback" or "none").
#[pyfunction]
#[pyo3(signature = (host, port, roots, *, sign_chain=None, sign_key=None, enc_cert=None,
    enc_key=None, suites=None, server_name=None, timeout=None, crls=None, name_check="san",
    alpn=None, sni=true, gmssl_compat=false))]
#[allow(clippy::too_many_arguments)]
fn tlcp_connect(
    py: Python<'_>,
    host: &str,
    port: u16,
    roots: Vec<PyRef<'_, PyCertificate>>,
    sign_chain: Option<Vec<PyRef<'_, PyCertificate>>>,
    sign_key: Option<&PyPrivateKey>,
    enc_cert: Option<&PyCertificate>,
    enc_key: Option<&PyPrivateKey>,
    suites: Option<Vec<String>>,
    server_name: Option<&str>,
    timeout: Option<f64>,
    crls: Option<Vec<Buf<'_>>>,
    name_check: &str,
    alpn: Option<Vec<String>>,
    sni: bool,
    gmssl_compat: bool,
) -> PyResult<PyTlcpSocket> {
    let mut store = RootCertStore::empty();
    for r in &roots {
        store.add(cert_der(r)).map_err(tlcp_err)?;
    }
    for c in crls.unwrap_or_default() {
        let c = c.as_slice();
        if shangmi_pki::pem::is_pem(c) {
            store.add_crl_pem(c).map_err(tlcp_err)?;
        } else {
            store.add_crl(c).map_err(tlcp_err)?;
        }
    }
    let check = match name_check {
        "san" => NameCheck::SubjectAltName,
        "cn-fallback" => NameCheck::CommonNameFallback,
        "none" => NameCheck::DangerousNone,
        _ => {
            return Err(PyValueError::new_err(
                "name_check must be 'san', 'cn-fallback' or 'none'",
            ));
        }
    };
    let mut b = ClientConfig::builder(store)
        .name_check(check)
        .enable_sni(sni)
        .gmssl_compat(gmssl_compat);
    if let Some(names) = suites {
        b = b.suites(&crate::pki_text::suites(&names).map_err(PyValueError::new_err)?);
    }
    if let Some(p) = alpn {
        b = b.alpn_protocols(p.into_iter().map(String::into_bytes).collect());
    }
    match (sign_chain, sign_key, enc_cert, enc_key) {
        (Some(chain), Some(sk), Some(ec), Some(ek)) => {
            let chain = chain.iter().map(|c| cert_der(c)).collect();
            let sk = Sm2PrivateKey::new(sk.secret()).map_err(tlcp_err)?;
            let ek = Sm2PrivateKey::new(ek.secret()).map_err(tlcp_err)?;
            b = b.client_certs(chain, Arc::new(sk), cert_der(ec), Arc::new(ek));
        }
        (None, None, None, None) => {}
        _ => {
            return Err(PyValueError::new_err(
                "client certificates need all of sign_chain, sign_key, enc_cert and enc_key",
            ));
        }
    }
    let config = Arc::new(b.build().map_err(tlcp_err)?);
    let name = ServerName::try_from(server_name.unwrap_or(host).to_string())
        .map_err(|_| PyValueError::new_err("server_name is not a DNS name or IP address"))?;
    let conn = ClientConnection::new(config, name).map_err(tlcp_err)?;
    let t = duration(timeout)?;
    let s = py
        .detach(|| -> io::Result<Tls> {
            let sock = connect_tcp(host, port, t)?;
            sock.set_read_timeout(t)?;
            sock.set_write_timeout(t)?;
            sock.set_nodelay(true)?;
            let mut s = StreamOwned::new(conn, sock);
            s.handshake()?;
            Ok(s)
        })
        .map_err(io_err)?;
    Ok(PyTlcpSocket {
        s: Some(s),
        timeout,
    })
}

/// Serves one request on each of the next `connections` connections (then the thread
/// ends; it also gives up 30 s after it starts): reads up to the end of the request head
/// and answers `response`. With `client_ca`, client certificates chaining to it are
/// required (and the ECDHE suites offered). For the package's tests; returns the port on
/// 127.0.0.1.
#[pyfunction]
#[pyo3(signature = (sign_chain, sign_key, enc_cert, enc_key, response, connections=1,
    client_ca=None))]
#[allow(clippy::too_many_arguments)]
fn _tlcp_test_server(
    sign_chain: Vec<PyRef<'_, PyCertificate>>,
    sign_key: &PyPrivateKey,
    enc_cert: &PyCertificate,
    enc_key: &PyPrivateKey,
    response: Buf<'_>,
    connections: usize,
    client_ca: Option<&PyCertificate>,
) -> PyResult<u16> {
    let server = TestServer {
        sign_chain: sign_chain.iter().map(|c| cert_der(c)).collect(),
        sign_key: Arc::new(Sm2PrivateKey::new(sign_key.secret()).map_err(tlcp_err)?),
        enc_cert: cert_der(enc_cert),
        enc_key: Arc::new(Sm2PrivateKey::new(enc_key.secret()).map_err(tlcp_err)?),
        client_ca: client_ca.map(cert_der),
    };
    let response = response.as_slice().to_vec();
    server.spawn(response, connections).map_err(|e| match e {
        Failure::Tlcp(e) => tlcp_err(e),
        Failure::Io(e) => e.into(),
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_items!(m;
        exceptions: TLCPError; classes: PyTlcpSocket; functions: tlcp_connect, _tlcp_test_server;
    )
}
