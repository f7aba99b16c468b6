//! HTTPS over TLCP and TLS 1.3 (RFC 8998) with hyper: an axum `Router` served by
//! `shangmi_tlcp::https::serve` on the one-port acceptor, and hyper-util's client with
//! `shangmi_tlcp::https::HttpsConnector`: TLCP preferred (the default with both
//! configurations), then TLS 1.3 SM only. Each client sends three requests over one
//! kept-alive connection; the handler answers with what the connection negotiated.
//! `shangmi-tlcp`'s `hyper-client` and `hyper-server` features.
//!
//! `cargo run -p shangmi-examples --example tlcp_https`

mod tlcp_pki;
mod tls13_pki;

use axum::{Extension, Router, routing::get};
use http_body_util::BodyExt;
use hyper_util::{client::legacy::Client, rt::TokioExecutor};
use shangmi_tlcp::https::{ConnectionContext, HttpsConnector, Negotiated, Policy, serve};
use shangmi_tlcp::oneport::OnePortAcceptor;
use shangmi_tlcp::{ClientConfig, ServerConfig};
use std::sync::Arc;
use tlcp_pki::Error;

async fn hello(Extension(conn): Extension<ConnectionContext>) -> String {
    format!(
        "hello over {} {} from port {}",
        conn.info.version,
        conn.info.suite,
        conn.remote_addr.port()
    )
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    let (tlcp_roots, (sign_cert, sign_key), (enc_cert, enc_key)) = tlcp_pki::server_pki()?;
    let tlcp = ServerConfig::builder().with_certs(vec![sign_cert], sign_key, enc_cert, enc_key)?;
    let (tls_server, tls_client) = tls13_pki::tls13_configs()?;
    let acceptor = OnePortAcceptor::builder()
        .tlcp(Arc::new(tlcp))
        .tls_sm(Arc::new(tls_server))
        .build()?;

    let app = Router::new().route("/", get(hello));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("https://localhost:{}/", listener.local_addr()?.port());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(serve(listener, Arc::new(acceptor), app, async {
        stopped.await.ok();
    }));

    let tlcp = Arc::new(ClientConfig::builder(tlcp_roots).build()?);
    let tls = Arc::new(tls_client);
    for policy in [Policy::PreferTlcp, Policy::TlsOnly] {
        let connector = HttpsConnector::builder()
            .tlcp(tlcp.clone())
            .tls(tls.clone())
            .policy(policy)
            .build()?;
        let client = Client::builder(TokioExecutor::new()).build::<_, String>(connector);
        let mut bodies = Vec::new();
        for _ in 0..3 {
            let response = client.get(url.parse()?).await?;
            let negotiated = response.extensions().get::<Negotiated>().cloned();
            let body = response.into_body().collect().await?.to_bytes();
            let body = String::from_utf8(body.to_vec())?;
            let negotiated = negotiated.ok_or("no connection information")?;
            println!("{policy:?}: {body} (client saw {})", negotiated.suite);
            bodies.push(body);
        }
        let expected = match policy {
            Policy::TlsOnly => "hello over TLS 1.3 TLS_SM4_GCM_SM3",
            _ => "hello over TLCP 1.1 ECC_SM4_GCM_SM3",
        };
        assert!(bodies.iter().all(|b| b.starts_with(expected)), "{bodies:?}");
        // One kept-alive connection: the same client port each time.
        assert!(bodies.windows(2).all(|w| w[0] == w[1]), "{bodies:?}");
    }

    stop.send(()).ok();
    server.await??;
    Ok(())
}
