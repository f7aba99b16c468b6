//! HTTP/1.1 on hyper over the one-port acceptor.

use crate::oneport::{ConnectionInfo, OnePortAcceptor};
use ::tokio::net::TcpListener;
use ::tokio::sync::watch;
use ::tokio::task::JoinSet;
use http::{Request, Response};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::future::{Future, poll_fn};
use std::io;
use std::net::SocketAddr;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

/// The connection a request came on, in the request's extensions (axum:
/// `Extension<ConnectionContext>`).
#[derive(Clone, Debug)]
pub struct ConnectionContext {
    /// The client's address.
    pub remote_addr: SocketAddr,
    /// What the handshake negotiated: protocol, suite, the client's certificates.
    pub info: Arc<ConnectionInfo>,
}

impl ConnectionContext {
    /// The subject of the client's first certificate (TLCP: the sign certificate), as
    /// `CN=…,O=…`, when the client sent one.
    pub fn peer_subject(&self) -> Option<String> {
        self.info.peer_certificates.first().and_then(super::subject)
    }
}

/// The first of two futures to finish.
enum First<A, B> {
    Left(A),
    Right(B),
}

async fn first<A: Future, B: Future>(
    mut a: Pin<&mut A>,
    mut b: Pin<&mut B>,
) -> First<A::Output, B::Output> {
    poll_fn(|cx| {
        if let Poll::Ready(x) = a.as_mut().poll(cx) {
            return Poll::Ready(First::Left(x));
        }
        b.as_mut().poll(cx).map(First::Right)
    })
    .await
}

/// Serves HTTP/1.1 (keep-alive) with `service` on every connection `acceptor` accepts
/// from `listener` (TLCP, TLS 1.3 SM, ordinary TLS: whatever it is configured for), until
/// `shutdown` resolves; then stops accepting, lets each connection finish the request in
/// progress (idle keep-alive connections and handshakes in progress are closed) and
/// returns when every connection is closed.
///
/// Each connection runs in a task of its own: the handshake under the acceptor's deadline
/// and bound, then hyper's HTTP/1.1 with a 30-second bound on reading each request head
/// (an idle keep-alive connection is closed after it). Every request carries a
/// [`ConnectionContext`] extension. `service` is any tower service of `Request<Incoming>`
/// (an axum `Router`), cloned per request. Connections whose handshake fails are closed
/// (the acceptor sent the alert) and not reported; an error of `listener.accept` (no file
/// descriptors left) is retried after 50 ms. Dropping the returned future aborts every
/// connection task.
///
/// ```no_run
/// # async fn run(acceptor: std::sync::Arc<shangmi_tlcp::oneport::OnePortAcceptor>) -> std::io::Result<()> {
/// use axum::{Extension, Router, routing::get};
/// use shangmi_tlcp::https::{ConnectionContext, serve};
/// async fn hello(Extension(conn): Extension<ConnectionContext>) -> String {
///     format!("hello over {} {}\n", conn.info.version, conn.info.suite)
/// }
/// let app = Router::new().route("/", get(hello));
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:4433").await?;
/// serve(listener, acceptor, app, async { let _ = tokio::signal::ctrl_c().await; }).await
/// # }
/// ```
pub async fn serve<S, B, F>(
    listener: TcpListener,
    acceptor: Arc<OnePortAcceptor>,
    service: S,
    shutdown: F,
) -> io::Result<()>
where
    S: tower_service::Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    F: Future<Output = ()>,
{
    let (stop, stopping) = watch::channel(false);
    // One connection: handshake, then HTTP/1.1 until the client closes or the server
    // stops (a closure, so that it runs under this function's bounds on the service).
    let connection = |sock: ::tokio::net::TcpStream,
                      remote_addr: SocketAddr,
                      mut stopping: watch::Receiver<bool>| {
        let (acceptor, service) = (acceptor.clone(), service.clone());
        async move {
            let mut stop = pin!(async move {
                let _ = stopping.wait_for(|s| *s).await;
            });
            let handshake = pin!(acceptor.accept(sock));
            let stream = match first(handshake, stop.as_mut()).await {
                First::Left(Ok(stream)) => stream,
                First::Left(Err(_)) | First::Right(()) => return,
            };
            let context = ConnectionContext {
                remote_addr,
                info: Arc::new(stream.info()),
            };
            let hyper_service =
                hyper::service::service_fn(move |mut request: Request<Incoming>| {
                    request.extensions_mut().insert(context.clone());
                    let mut service = service.clone();
                    async move {
                        poll_fn(|cx| service.poll_ready(cx)).await?;
                        service.call(request).await
                    }
                });
            let mut conn = pin!(
                hyper::server::conn::http1::Builder::new()
                    .timer(TokioTimer::new())
                    .serve_connection(TokioIo::new(stream), hyper_service)
                    .with_upgrades()
            );
            if let First::Right(()) = first(conn.as_mut(), stop.as_mut()).await {
                conn.as_mut().graceful_shutdown();
                let _ = conn.await;
            }
        }
    };
    let mut tasks = JoinSet::new();
    let mut shutdown = pin!(shutdown);
    loop {
        let accepted = poll_fn(|cx| {
            if shutdown.as_mut().poll(cx).is_ready() {
                return Poll::Ready(None);
            }
            // Reap finished connections so the set does not grow.
            while let Poll::Ready(Some(_)) = tasks.poll_join_next(cx) {}
            listener.poll_accept(cx).map(Some)
        })
        .await;
        match accepted {
            None => break,
            Some(Ok((sock, remote_addr))) => {
                let _ = sock.set_nodelay(true);
                tasks.spawn(connection(sock, remote_addr, stopping.clone()));
            }
            Some(Err(_)) => ::tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
    drop(listener);
    let _ = stop.send(true);
    while tasks.join_next().await.is_some() {}
    Ok(())
}
