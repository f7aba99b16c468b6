//! `shangmi tlcp server --http` and `shangmi tlcp proxy` on loopback: TLCP, RFC 8998 TLS 1.3
//! and ordinary TLS 1.3 (a P-256 certificate made once with OpenSSL, `data/ordinary/`) on
//! one port while an idle client stays connected; a bounded soak of mixed clients through
//! the proxy to an echo service, bytes checked end to end; SIGTERM stops both cleanly.

mod common;

use common::{
    at, bytes, cert_key_flags, finish_server, free_port, make_ca_and_localhost_pair, make_leaf,
    run, scratch, shangmi, spawn_server,
};
use rustls::pki_types::pem::PemObject;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::Child;
use std::sync::Arc;
use std::time::Duration;

const ORDINARY_CA: &[u8] = include_bytes!("data/ordinary/ca.crt");

fn s(dir: &Path, name: &str) -> String {
    at(dir, name).to_str().expect("UTF-8 path").to_owned()
}

/// A scratch directory with a CA, a TLCP server pair and an RFC 8998 TLS 1.3 leaf for
/// `localhost`, made by the CLI;
/// the ordinary P-256 pair copied from the test data.
fn with_pki() -> tempfile::TempDir {
    let tmp = scratch();
    let dir = tmp.path();
    make_ca_and_localhost_pair(dir, "/C=CN/O=shangmi/CN=one-port CA");
    make_leaf(dir, "tls13", "/CN=localhost", "DNS:localhost", "tls-server");
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ordinary");
    for f in ["server.crt", "server.key"] {
        std::fs::copy(data.join(f), at(dir, &format!("ordinary-{f}"))).expect("copy");
    }
    tmp
}

/// The certificate options both commands take.
fn port_args(dir: &Path, port: u16) -> Vec<String> {
    let mut v: Vec<String> = vec!["--listen".into(), format!("127.0.0.1:{port}")];
    v.extend(cert_key_flags(
        dir,
        &[
            ("sign", "server/sign"),
            ("enc", "server/enc"),
            ("tls13", "tls13"),
            ("tls", "ordinary-server"),
        ],
    ));
    v
}

/// Starts `shangmi tlcp <args>` with standard error into `dir/log`.
fn start(dir: &Path, port: u16, args: &[String]) -> Child {
    spawn_server(shangmi().arg("tlcp").args(args), port, Some(dir))
}

/// SIGTERM, then the exit status and the log.
fn stop(child: Child, dir: &Path) -> String {
    let status = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let log = finish_server(child, dir);
    assert!(log.contains("stopping: no new connections"), "{log}");
    log
}

/// A TLS 1.3 client on `provider` trusting the CA certificates in `ca_pem`.
fn tls13_client(
    provider: rustls::crypto::CryptoProvider,
    ca_pem: &[u8],
) -> Arc<rustls::ClientConfig> {
    let mut roots = rustls::RootCertStore::empty();
    for ca in rustls::pki_types::CertificateDer::pem_slice_iter(ca_pem) {
        roots.add(ca.expect("PEM")).expect("root");
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(provider))
        .with_protocol_versions(&[&rustls::version::TLS13])
        .expect("TLS 1.3")
        .with_root_certificates(roots)
        .with_no_client_auth();
    Arc::new(config)
}

fn ordinary_client() -> Arc<rustls::ClientConfig> {
    tls13_client(rustls::crypto::ring::default_provider(), ORDINARY_CA)
}

fn sm_client(dir: &Path) -> Arc<rustls::ClientConfig> {
    let pem = std::fs::read(at(dir, "ca.crt")).expect("CA");
    tls13_client(shangmi_rustls::provider(), &pem)
}

fn tlcp_client(dir: &Path) -> Arc<shangmi_tlcp::ClientConfig> {
    let mut roots = shangmi_tlcp::RootCertStore::empty();
    roots
        .add_pem(&std::fs::read(at(dir, "ca.crt")).expect("CA"))
        .expect("root");
    Arc::new(
        shangmi_tlcp::ClientConfig::builder(roots)
            .build()
            .expect("config"),
    )
}

/// A rustls client connection to `addr` as `localhost`.
fn rustls_stream(
    config: &Arc<rustls::ClientConfig>,
    addr: SocketAddr,
) -> rustls::StreamOwned<rustls::ClientConnection, TcpStream> {
    let name = rustls::pki_types::ServerName::try_from("localhost").expect("name");
    let conn = rustls::ClientConnection::new(config.clone(), name).expect("connection");
    rustls::StreamOwned::new(conn, TcpStream::connect(addr).expect("connect"))
}

/// `shangmi PROTOCOL client` against the server on `port`, with `request` as its input;
/// asserts that it succeeded and returns what it printed.
fn client_page(protocol: &str, dir: &Path, port: u16, request: &[u8]) -> String {
    let mut cmd = shangmi();
    cmd.args([
        protocol,
        "client",
        "--connect",
        &format!("127.0.0.1:{port}"),
    ])
    .args(["--server-name", "localhost", "--ca", &s(dir, "ca.crt")]);
    let out = run(cmd, request);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn server_answers_http_on_one_port_beside_an_idle_client() {
    let dir = with_pki();
    let dir = dir.path();
    let port = free_port();
    let mut args = vec!["server".to_owned(), "--http".into()];
    args.extend(port_args(dir, port));
    args.extend(["--handshake-timeout".into(), "2".into()]);
    let srv = start(dir, port, &args);
    // Held open for the whole test: no later client may wait for it.
    let _idle = TcpStream::connect(("127.0.0.1", port)).expect("idle client");
    let get = b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n";

    let page = client_page("tlcp", dir, port, get);
    assert!(page.starts_with("HTTP/1.1 200 OK\r\n"), "{page}");
    assert!(page.contains("protocol: TLCP 1.1 (TLCP)"), "{page}");

    let page = client_page("tls", dir, port, get);
    assert!(page.contains("protocol: TLS 1.3 (TLS (SM))"), "{page}");
    assert!(page.contains("suite: TLS_SM4_GCM_SM3"), "{page}");

    let mut tls = rustls_stream(&ordinary_client(), SocketAddr::from(([127, 0, 0, 1], port)));
    tls.write_all(get).expect("request");
    let mut page = String::new();
    let _ = tls.read_to_string(&mut page);
    assert!(page.contains("protocol: TLS 1.3 (TLS)"), "{page}");
    assert!(page.contains("suite: TLS13_AES_256_GCM_SHA384"), "{page}");

    // The system curl (OpenSSL), if installed: the ordinary certificate.
    let curl = std::process::Command::new("curl")
        .args(["-sS", "--max-time", "20", "--cacert"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ordinary/ca.crt"))
        .args(["--resolve", &format!("localhost:{port}:127.0.0.1")])
        .arg(format!("https://localhost:{port}/"))
        .output();
    match curl {
        Ok(out) => {
            let page = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success(),
                "curl: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(page.contains("protocol: TLS 1.3 (TLS)"), "{page}");
        }
        Err(_) => eprintln!("note: curl is not installed; skipping it"),
    }
    // `shangmi tlcp get`, the URL's host checked against the sign certificate.
    let mut get = shangmi();
    get.args(["tlcp", "get", &format!("https://localhost:{port}/")])
        .args([
            "--connect",
            &format!("127.0.0.1:{port}"),
            "--ca",
            &s(dir, "ca.crt"),
        ]);
    let out = run(get, b"");
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!page.starts_with("HTTP/"), "the body only: {page}");
    assert!(page.contains("protocol: TLCP 1.1 (TLCP)"), "{page}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("status: HTTP/1.1 200 OK"));

    let log = stop(srv, dir);
    assert_eq!(log.matches(" in=").count(), 5, "{log}");
}

/// Loopback echo service: a thread per connection, until the test process ends.
fn echo_upstream() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        for sock in listener.incoming() {
            let Ok(mut sock) = sock else { continue };
            std::thread::spawn(move || {
                let Ok(mut back) = sock.try_clone() else {
                    return;
                };
                let _ = std::io::copy(&mut sock, &mut back);
                let _ = back.shutdown(std::net::Shutdown::Write);
            });
        }
    });
    addr
}

const CONNECTIONS: usize = 200;

/// Sends `msg` over an established connection, reads exactly as much back, closes.
fn round_trip<S: Read + Write>(mut tls: S, msg: &[u8]) -> Vec<u8> {
    tls.write_all(msg).expect("write");
    tls.flush().expect("flush");
    let mut got = vec![0u8; msg.len()];
    tls.read_exact(&mut got).expect("read back");
    got
}

/// Client `i` of the soak; returns whether it was a good one.
fn soak_client(i: usize, addr: SocketAddr, configs: &Configs) -> bool {
    let msg = bytes(1 + (i * 97) % 20_000, u32::try_from(i).expect("small"));
    match i % 10 {
        0..=2 => {
            let name = shangmi_tlcp::ServerName::try_from("localhost").expect("name");
            let conn = shangmi_tlcp::ClientConnection::new(configs.tlcp.clone(), name)
                .expect("connection");
            let mut tls =
                shangmi_tlcp::StreamOwned::new(conn, TcpStream::connect(addr).expect("connect"));
            assert_eq!(round_trip(&mut tls, &msg), msg, "TLCP client {i}");
            tls.close().expect("close_notify");
            // Until the proxy closes: its log line then counts every byte.
            let _ = tls.read_to_end(&mut Vec::new());
        }
        3..=5 => {
            let mut tls = rustls_stream(&configs.sm, addr);
            assert_eq!(round_trip(&mut tls, &msg), msg, "TLS SM client {i}");
            tls.conn.send_close_notify();
            let _ = tls.flush();
            let _ = tls.read_to_end(&mut Vec::new());
        }
        6 | 7 => {
            let mut tls = rustls_stream(&configs.ordinary, addr);
            assert_eq!(round_trip(&mut tls, &msg), msg, "TLS client {i}");
            tls.conn.send_close_notify();
            let _ = tls.flush();
            let _ = tls.read_to_end(&mut Vec::new());
        }
        8 => {
            let mut sock = TcpStream::connect(addr).expect("connect");
            let mut junk = bytes(30 + i % 40, 7 + u32::try_from(i).expect("small"));
            if i % 20 == 8 {
                junk[..5].copy_from_slice(&[22, 1, 1, 0, 60]);
            }
            let _ = sock.write_all(&junk);
            let _ = sock.shutdown(std::net::Shutdown::Write);
            let _ = sock.read_to_end(&mut Vec::new());
            return false;
        }
        _ => {
            // Idle: the server closes it at the handshake deadline.
            let mut sock = TcpStream::connect(addr).expect("connect");
            sock.set_read_timeout(Some(Duration::from_secs(30)))
                .expect("timeout");
            let _ = sock.read_to_end(&mut Vec::new());
            return false;
        }
    }
    true
}

struct Configs {
    tlcp: Arc<shangmi_tlcp::ClientConfig>,
    sm: Arc<rustls::ClientConfig>,
    ordinary: Arc<rustls::ClientConfig>,
}

/// `proxy` on a free port in front of a fresh echo upstream, with `extra` arguments: its
/// port and process.
fn echo_proxy(dir: &Path, extra: [&str; 2]) -> (u16, Child) {
    let port = free_port();
    let mut args = vec![
        "proxy".to_owned(),
        "--upstream".into(),
        echo_upstream().to_string(),
    ];
    args.extend(port_args(dir, port));
    args.extend(extra.map(str::to_owned));
    (port, start(dir, port, &args))
}

#[test]
fn proxy_soak_of_mixed_clients_to_an_echo_service() {
    let dir = with_pki();
    let dir = dir.path();
    let (port, proxy) = echo_proxy(dir, ["--handshake-timeout", "1"]);
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let configs = Arc::new(Configs {
        tlcp: tlcp_client(dir),
        sm: sm_client(dir),
        ordinary: ordinary_client(),
    });
    let threads = 8;
    let good: usize = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let configs = configs.clone();
                scope.spawn(move || {
                    (t..CONNECTIONS)
                        .step_by(threads)
                        .filter(|&i| soak_client(i, addr, &configs))
                        .count()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("no client panics"))
            .sum()
    });
    let log = stop(proxy, dir);
    // One line per forwarded connection, as many bytes each way (the echo).
    let lines: Vec<&str> = log.lines().filter(|l| l.contains(" in=")).collect();
    assert_eq!(lines.len(), good, "{log}");
    for line in &lines {
        let field = |name: &str| {
            line.split_whitespace()
                .find_map(|w| w.strip_prefix(name))
                .and_then(|v| v.parse::<u64>().ok())
                .expect("byte count")
        };
        assert!(field("in=") > 0 && field("in=") == field("out="), "{line}");
    }
    // Every bad client (and the readiness probe) refused or timed out.
    let refused = log.lines().filter(|l| l.contains(" refused: ")).count();
    assert_eq!(refused, CONNECTIONS - good + 1, "{log}");
}

#[test]
fn proxy_closes_a_connection_idle_past_its_bound() {
    let dir = with_pki();
    let dir = dir.path();
    let (port, proxy) = echo_proxy(dir, ["--idle-timeout", "1"]);
    let sock = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    // Only bounds the test: without the idle bound the proxy would keep the connection.
    sock.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let name = shangmi_tlcp::ServerName::try_from("localhost").expect("name");
    let conn = shangmi_tlcp::ClientConnection::new(tlcp_client(dir), name).expect("connection");
    let mut tls = shangmi_tlcp::StreamOwned::new(conn, sock);
    assert_eq!(round_trip(&mut tls, b"ping"), b"ping");
    // Then silence: the proxy sends close_notify and closes.
    let mut rest = Vec::new();
    tls.read_to_end(&mut rest)
        .expect("closed by the proxy with close_notify");
    assert!(rest.is_empty());
    let log = stop(proxy, dir);
    let line = log
        .lines()
        .find(|l| l.contains(" in="))
        .expect("the connection's line");
    assert!(line.contains("in=4 out=4"), "{line}");
    assert!(line.contains("error: idle for 1 s"), "{line}");
}
