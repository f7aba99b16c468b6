//! HTTPS on loopback (features `hyper-client` and `hyper-server`): hyper-util's client
//! with `https::HttpsConnector` against an axum `Router` served by `https::serve` on the
//! one-port acceptor, over TLCP and RFC 8998 TLS 1.3; the TLCP-preferred policy against
//! TLS-only and TLCP-only servers; a TLCP-only host against a TLS-only server; what the
//! connection negotiated, seen by the handler and by the client; keep-alive (one handshake
//! for several requests); plain `http://`; the graceful shutdown.
//! No timings are asserted: the time-outs only bound how long a test can take.
#![cfg(all(feature = "hyper-client", feature = "hyper-server"))]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod oneport_support;

use axum::extract::Extension;
use axum::routing::get;
use common::{client_config, server_config};
use http_body_util::BodyExt;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo};
use oneport_support::{sm_tls_client, sm_tls_server};
use shangmi_tlcp::detect::Protocol;
use shangmi_tlcp::https::{
    ConnectError, ConnectionContext, HttpsConnector, HttpsConnectorBuilder, HttpsStream,
    Negotiated, Policy, serve,
};
use shangmi_tlcp::oneport::OnePortAcceptor;
use shangmi_tlcp::{AlertDescription, CipherSuite, ClientAuth, Error};
use std::collections::HashSet;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// Bounds every exchange of a test (a hang fails instead of blocking the suite).
const BOUND: Duration = Duration::from_secs(20);

/// The router: `/` answers `<protocol>|<suite>|<peer subject>|<client port>`.
fn app() -> axum::Router {
    async fn whoami(Extension(conn): Extension<ConnectionContext>) -> String {
        format!(
            "{}|{}|{}|{}",
            conn.info.served,
            conn.info.suite,
            conn.peer_subject().unwrap_or_else(|| "-".into()),
            conn.remote_addr.port()
        )
    }
    axum::Router::new().route("/", get(whoami))
}

/// A server on loopback: TLCP (when `tlcp`, client certificates optional) and/or RFC 8998
/// TLS 1.3 (when `tls`); the stop sender and the serving task.
async fn server(tlcp: bool, tls: bool) -> (SocketAddr, oneshot::Sender<()>, JoinHandle<()>) {
    let mut builder = OnePortAcceptor::builder().handshake_timeout(Duration::from_secs(10));
    if tlcp {
        builder = builder.tlcp(Arc::new(server_config(
            &CipherSuite::ALL,
            ClientAuth::Optional,
        )));
    }
    if tls {
        builder = builder.tls_sm(sm_tls_server());
    }
    let acceptor = Arc::new(builder.build().unwrap());
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        serve(listener, acceptor, app(), async {
            let _ = stopped.await;
        })
        .await
        .unwrap();
    });
    (addr, stop, task)
}

/// Counts the connections a connector opens (one handshake each).
#[derive(Clone)]
struct Counting {
    inner: HttpsConnector,
    opened: Arc<AtomicUsize>,
}

impl tower_service::Service<http::Uri> for Counting {
    type Response = TokioIo<HttpsStream>;
    type Error = ConnectError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, ConnectError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), ConnectError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, uri: http::Uri) -> Self::Future {
        self.opened.fetch_add(1, Ordering::SeqCst);
        self.inner.call(uri)
    }
}

type TestClient = Client<Counting, String>;

fn client(connector: HttpsConnector) -> (TestClient, Arc<AtomicUsize>) {
    let opened = Arc::new(AtomicUsize::new(0));
    let counting = Counting {
        inner: connector,
        opened: opened.clone(),
    };
    (
        Client::builder(TokioExecutor::new()).build(counting),
        opened,
    )
}

/// GETs `url`: the body and what the connection negotiated.
async fn fetch(client: &TestClient, url: &str) -> (String, Option<Negotiated>) {
    let response = tokio::time::timeout(BOUND, client.get(url.parse().unwrap()))
        .await
        .expect("bounded")
        .expect("response");
    assert_eq!(response.status(), 200);
    let negotiated = response.extensions().get::<Negotiated>().cloned();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (String::from_utf8(body.to_vec()).unwrap(), negotiated)
}

fn tlcp_connector(suite: CipherSuite, with_certs: bool) -> HttpsConnectorBuilder {
    HttpsConnector::builder().tlcp(Arc::new(client_config(&[suite], with_certs)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tlcp_and_tls_sm_on_one_port_with_keep_alive() {
    let (addr, stop, task) = server(true, true).await;
    let url = format!("https://localhost:{}/", addr.port());

    // TLCP with client certificates, through hyper-util's client.
    let (tlcp, opened) = client(
        tlcp_connector(CipherSuite::EccSm4GcmSm3, true)
            .policy(Policy::TlcpOnly)
            .build()
            .unwrap(),
    );
    for _ in 0..3 {
        let (body, negotiated) = fetch(&tlcp, &url).await;
        let fields: Vec<&str> = body.split('|').collect();
        assert_eq!(fields[..2], ["TLCP", "ECC_SM4_GCM_SM3"], "{body}");
        assert!(fields[2].contains("tlcp client"), "handler's peer: {body}");
        let n = negotiated.expect("negotiated in the response");
        assert_eq!(n.protocol, Protocol::Tlcp);
        assert_eq!(n.version, "TLCP 1.1");
        assert_eq!(n.suite, "ECC_SM4_GCM_SM3");
        assert!(!n.fell_back);
        assert_eq!(
            n.peer_certificates.len(),
            2,
            "TLCP sends sign and encryption"
        );
        assert!(n.peer_subject().unwrap().contains("CN="), "{n:?}");
    }
    // hyper-util's pool may start a second connection while the first is on its way back
    // to the pool (it keeps both); so the exact count is below, under hyper's own client.
    assert!((1..=3).contains(&opened.load(Ordering::SeqCst)));

    // Keep-alive counted exactly: one connection (one handshake) of the connector under
    // hyper's HTTP/1.1 client connection, five requests, one client port seen by the server.
    let connector = tlcp_connector(CipherSuite::EccSm4GcmSm3, false)
        .build()
        .unwrap();
    let stream = connector.connect(url.parse().unwrap()).await.unwrap();
    assert_eq!(stream.negotiated().unwrap().suite, "ECC_SM4_GCM_SM3");
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(conn);
    let mut ports = HashSet::new();
    for _ in 0..5 {
        sender.ready().await.unwrap();
        let request = http::Request::get("/")
            .header(http::header::HOST, "localhost")
            .body(String::new())
            .unwrap();
        let response = tokio::time::timeout(BOUND, sender.send_request(request))
            .await
            .unwrap()
            .unwrap();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        let body = String::from_utf8(body.to_vec()).unwrap();
        assert!(body.starts_with("TLCP|ECC_SM4_GCM_SM3|-|"), "{body}");
        ports.insert(body.rsplit('|').next().unwrap().to_owned());
    }
    assert_eq!(ports.len(), 1, "five requests on one connection: {ports:?}");

    // The CBC suite, no client certificates.
    let (cbc, _) = client(
        tlcp_connector(CipherSuite::EccSm4CbcSm3, false)
            .build()
            .unwrap(),
    );
    let (body, _) = fetch(&cbc, &url).await;
    assert!(body.starts_with("TLCP|ECC_SM4_CBC_SM3|-|"), "{body}");

    // RFC 8998 TLS 1.3 on the same port.
    let (tls, opened) = client(
        HttpsConnector::builder()
            .tls(sm_tls_client())
            .build()
            .unwrap(),
    );
    for _ in 0..3 {
        let (body, negotiated) = fetch(&tls, &url).await;
        assert!(body.starts_with("TLS (SM)|TLS_SM4_GCM_SM3|-|"), "{body}");
        let n = negotiated.unwrap();
        assert_eq!((n.protocol, n.version), (Protocol::Tls, "TLS 1.3"));
        assert_eq!(n.suite, "TLS_SM4_GCM_SM3");
    }
    assert!((1..=3).contains(&opened.load(Ordering::SeqCst)));

    stop.send(()).unwrap();
    tokio::time::timeout(BOUND, task).await.unwrap().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prefer_tlcp_falls_back_to_tls_only_when_refused() {
    let both = || {
        HttpsConnector::builder()
            .tlcp(Arc::new(client_config(&CipherSuite::ALL, false)))
            .tls(sm_tls_client())
    };
    // A server of TLS 1.3 SM only (the one-port acceptor without a TLCP configuration
    // answers TLCP with protocol_version): a second connection over TLS.
    let (tls_only, stop_tls, task_tls) = server(false, true).await;
    let (prefer, opened) = client(both().policy(Policy::PreferTlcp).build().unwrap());
    let (body, negotiated) =
        fetch(&prefer, &format!("https://localhost:{}/", tls_only.port())).await;
    assert!(body.starts_with("TLS (SM)|"), "{body}");
    let n = negotiated.unwrap();
    assert_eq!(n.protocol, Protocol::Tls);
    assert!(n.fell_back);
    assert_eq!(
        opened.load(Ordering::SeqCst),
        1,
        "one connection for one request"
    );

    // A server of TLCP only: TLCP, no fall-back.
    let (tlcp_only, stop_tlcp, task_tlcp) = server(true, false).await;
    let (body, negotiated) =
        fetch(&prefer, &format!("https://localhost:{}/", tlcp_only.port())).await;
    assert!(body.starts_with("TLCP|ECC_SM4_GCM_SM3|"), "{body}");
    let n = negotiated.unwrap();
    assert_eq!(n.protocol, Protocol::Tlcp);
    assert!(!n.fell_back);

    // A TLCP-only host against the TLS-only server: a typed error, no fall-back.
    let forced = both()
        .policy(Policy::PreferTlcp)
        .host("localhost", Policy::TlcpOnly)
        .build()
        .unwrap();
    assert_eq!(forced.policy_for("LOCALHOST"), Policy::TlcpOnly);
    assert_eq!(forced.policy_for("127.0.0.1"), Policy::PreferTlcp);
    let (forced, _) = client(forced);
    let err = tokio::time::timeout(
        BOUND,
        forced.get(
            format!("https://localhost:{}/", tls_only.port())
                .parse()
                .unwrap(),
        ),
    )
    .await
    .unwrap()
    .expect_err("TLCP refused");
    let connect = connect_error(&err).expect("a ConnectError under hyper's error");
    assert!(
        matches!(
            connect,
            ConnectError::Tlcp(Error::AlertReceived(AlertDescription::ProtocolVersion))
        ),
        "{connect:?}"
    );

    for (stop, task) in [(stop_tls, task_tls), (stop_tlcp, task_tlcp)] {
        stop.send(()).unwrap();
        tokio::time::timeout(BOUND, task).await.unwrap().unwrap();
    }
}

/// The connector's error under hyper-util's.
fn connect_error<'a>(e: &'a (dyn std::error::Error + 'static)) -> Option<&'a ConnectError> {
    let mut cur = Some(e);
    while let Some(e) = cur {
        if let Some(c) = e.downcast_ref::<ConnectError>() {
            return Some(c);
        }
        cur = e.source();
    }
    None
}

/// A TLS 1.3 SM server that is not the one-port acceptor: tokio-rustls with hyper, as a
/// TLS-only service elsewhere would be (rustls answers the TLCP ClientHello itself).
async fn rustls_only_server() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(sm_tls_server());
    tokio::spawn(async move {
        while let Ok((sock, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(sock).await else {
                    return;
                };
                let service = hyper::service::service_fn(|_req| async {
                    Ok::<_, std::convert::Infallible>(http::Response::new(String::from("rustls")))
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(tls), service)
                    .await;
            });
        }
    });
    addr
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prefer_tlcp_against_a_plain_rustls_server() {
    let addr = rustls_only_server().await;
    let url = format!("https://localhost:{}/", addr.port());
    let builder = || {
        HttpsConnector::builder()
            .tlcp(Arc::new(client_config(&CipherSuite::ALL, false)))
            .tls(sm_tls_client())
    };
    let (prefer, _) = client(builder().build().unwrap());
    let (body, negotiated) = fetch(&prefer, &url).await;
    assert_eq!(body, "rustls");
    assert!(negotiated.unwrap().fell_back);

    let (forced, _) = client(builder().policy(Policy::TlcpOnly).build().unwrap());
    let err = tokio::time::timeout(BOUND, forced.get(url.parse().unwrap()))
        .await
        .unwrap()
        .expect_err("TLCP refused");
    let connect = connect_error(&err).unwrap();
    assert!(matches!(connect, ConnectError::Tlcp(_)), "{connect:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_http_and_configuration_errors() {
    // http:// goes over TCP (to the rustls server's port nothing sensible answers, so use
    // a plain hyper server of the same router).
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(Mutex::new(0usize));
    let seen2 = seen.clone();
    tokio::spawn(async move {
        while let Ok((sock, _)) = listener.accept().await {
            *seen2.lock().unwrap() += 1;
            tokio::spawn(async move {
                let service = hyper::service::service_fn(|_req| async {
                    Ok::<_, std::convert::Infallible>(http::Response::new(String::from("plain")))
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(sock), service)
                    .await;
            });
        }
    });
    let (plain, opened) = client(
        HttpsConnector::builder()
            .tlcp(Arc::new(client_config(&CipherSuite::ALL, false)))
            .build()
            .unwrap(),
    );
    for _ in 0..2 {
        let (body, negotiated) = fetch(&plain, &format!("http://127.0.0.1:{}/", addr.port())).await;
        assert_eq!(body, "plain");
        assert!(negotiated.is_none());
    }
    assert!(opened.load(Ordering::SeqCst) >= 1);
    assert!(*seen.lock().unwrap() >= 1);

    // Policies that need a missing configuration are refused when built.
    assert!(HttpsConnector::builder().build().is_err());
    assert!(
        HttpsConnector::builder()
            .tlcp(Arc::new(client_config(&CipherSuite::ALL, false)))
            .policy(Policy::PreferTlcp)
            .build()
            .is_err()
    );
    assert!(
        HttpsConnector::builder()
            .tls(sm_tls_client())
            .host("gw.example", Policy::TlcpOnly)
            .build()
            .is_err()
    );
    // An unknown scheme is a typed error.
    let connector = HttpsConnector::builder()
        .tls(sm_tls_client())
        .build()
        .unwrap();
    let err = connector
        .connect("ftp://localhost/".parse().unwrap())
        .await
        .unwrap_err();
    assert!(
        matches!(err, ConnectError::Scheme(ref s) if s == "ftp"),
        "{err:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graceful_shutdown_closes_idle_keep_alive_connections() {
    let (addr, stop, task) = server(true, false).await;
    let (tlcp, _) = client(
        tlcp_connector(CipherSuite::EccSm4GcmSm3, false)
            .build()
            .unwrap(),
    );
    let (body, _) = fetch(&tlcp, &format!("https://localhost:{}/", addr.port())).await;
    assert!(body.starts_with("TLCP|"));
    // The client keeps its connection open (idle, in its pool); the server's shutdown must
    // still finish, closing it.
    stop.send(()).unwrap();
    tokio::time::timeout(BOUND, task)
        .await
        .expect("serve returns after the stop")
        .unwrap();
    // And no longer accepts.
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}
