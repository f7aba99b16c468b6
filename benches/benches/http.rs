//! HTTP/1.1 requests per second over one kept-alive connection: hyper's server
//! (`shangmi_tlcp::https::serve` on the one-port acceptor) over TLCP (ECC_SM4_GCM_SM3 and
//! ECC_SM4_CBC_SM3, server certificates only) against the same hyper server over plain
//! TCP, with hyper-util's client and `shangmi_tlcp::https::HttpsConnector` for both (so the
//! client side differs only by the record layer). Bodies of 100 B and 16 KiB.
//!
//! Client and server share one current-thread tokio runtime on loopback, so a request's
//! time is all the work both sides do for it (the handshake is in the warm-up). The three
//! transports alternate (TCP, GCM, CBC, TCP, …) for three rounds; at the end the best
//! round of each is printed with the TLCP/TCP ratio of requests per second, by wall clock
//! (the round's best sample) and on Linux by the thread's CPU time over the whole round
//! (`/proc/thread-self/schedstat`), which a machine busy with other work disturbs less:
//! requests per second per core.
//!
//! `cargo bench -p shangmi-benches --bench http`

#[path = "../../tlcp/tests/common/mod.rs"]
mod common;

use bytes::Bytes;
use common::{client_config, server_config};
use criterion::{Criterion, criterion_group, criterion_main};
use http::{Request, Response};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo};
use shangmi_tlcp::https::{HttpsConnector, Policy, serve};
use shangmi_tlcp::oneport::OnePortAcceptor;
use shangmi_tlcp::{CipherSuite, ClientAuth};
use std::collections::HashMap;
use std::convert::Infallible;
use std::future::{Ready, ready};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use tokio::runtime::Runtime;

/// Answers every request with the same body.
#[derive(Clone)]
struct Fixed(Bytes);

impl tower_service::Service<Request<Incoming>> for Fixed {
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = Ready<Result<Self::Response, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _req: Request<Incoming>) -> Self::Future {
        ready(Ok(Response::new(Full::new(self.0.clone()))))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Transport {
    Tcp,
    Tlcp(CipherSuite),
}

impl Transport {
    fn name(self) -> &'static str {
        match self {
            Transport::Tcp => "tcp",
            Transport::Tlcp(CipherSuite::EccSm4CbcSm3) => "tlcp-ecc-cbc",
            Transport::Tlcp(_) => "tlcp-ecc-gcm",
        }
    }
}

/// A server of `body` on loopback over `transport`; its URL.
async fn start(transport: Transport, body: Bytes) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    match transport {
        Transport::Tcp => {
            tokio::spawn(async move {
                while let Ok((sock, _)) = listener.accept().await {
                    sock.set_nodelay(true).expect("nodelay");
                    let service = Fixed(body.clone());
                    tokio::spawn(async move {
                        let service = hyper::service::service_fn(move |req| {
                            let mut s = service.clone();
                            tower_service::Service::call(&mut s, req)
                        });
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(TokioIo::new(sock), service)
                            .await;
                    });
                }
            });
            format!("http://127.0.0.1:{port}/")
        }
        Transport::Tlcp(suite) => {
            let acceptor = OnePortAcceptor::builder()
                .tlcp(Arc::new(server_config(&[suite], ClientAuth::None)))
                .build()
                .expect("acceptor");
            tokio::spawn(serve(
                listener,
                Arc::new(acceptor),
                Fixed(body),
                std::future::pending(),
            ));
            format!("https://localhost:{port}/")
        }
    }
}

/// Per (transport, size, round), per sample: requests, wall seconds, CPU seconds if known.
type Samples = HashMap<(Transport, usize, u32), Vec<(u64, f64, Option<f64>)>>;
type Timings = Mutex<Samples>;

/// This thread's time on a CPU so far, in nanoseconds (Linux).
fn cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

fn bench_requests(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let transports = [
        Transport::Tcp,
        Transport::Tlcp(CipherSuite::EccSm4GcmSm3),
        Transport::Tlcp(CipherSuite::EccSm4CbcSm3),
    ];
    let timings: Timings = Mutex::new(HashMap::new());
    for size in [100usize, 16 * 1024] {
        let body = Bytes::from(vec![0x5a; size]);
        for round in 1..=3 {
            let mut g = c.benchmark_group(format!("http/{size}/round{round}"));
            g.warm_up_time(Duration::from_millis(300))
                .measurement_time(Duration::from_secs(1))
                .sample_size(20);
            for transport in transports {
                let suite = match transport {
                    Transport::Tlcp(s) => s,
                    Transport::Tcp => CipherSuite::EccSm4GcmSm3,
                };
                let connector = HttpsConnector::builder()
                    .tlcp(Arc::new(client_config(&[suite], false)))
                    .policy(Policy::TlcpOnly)
                    .build()
                    .expect("connector");
                let client: Client<_, String> = Client::builder(TokioExecutor::new())
                    .pool_max_idle_per_host(1)
                    .build(connector);
                let url: http::Uri = rt
                    .block_on(start(transport, body.clone()))
                    .parse()
                    .expect("url");
                // The handshake, outside every measurement.
                request_loop(&rt, &client, &url, 1, size);
                g.bench_function(transport.name(), |b| {
                    b.iter_custom(|iters| {
                        let cpu = cpu_ns();
                        let t = request_loop(&rt, &client, &url, iters, size);
                        let cpu = cpu.zip(cpu_ns()).map(|(a, b)| (b - a) as f64 * 1e-9);
                        timings
                            .lock()
                            .expect("timings")
                            .entry((transport, size, round))
                            .or_default()
                            .push((iters, t.as_secs_f64(), cpu));
                        t
                    });
                });
            }
            g.finish();
        }
    }
    report(&timings.into_inner().expect("timings"), &transports);
}

/// `iters` GETs one after the other over the client's kept-alive connection.
fn request_loop(
    rt: &Runtime,
    client: &Client<HttpsConnector, String>,
    url: &http::Uri,
    iters: u64,
    size: usize,
) -> Duration {
    rt.block_on(async {
        let start = Instant::now();
        for _ in 0..iters {
            let response = client.get(url.clone()).await.expect("response");
            let body = response.into_body().collect().await.expect("body");
            assert_eq!(body.to_bytes().len(), size);
        }
        start.elapsed()
    })
}

/// The best round of each transport and size as requests per second, and TLCP's ratio to
/// TCP: by wall clock (the round's fastest sample) and by CPU time (the round's total).
fn report(timings: &Samples, transports: &[Transport]) {
    println!("\nHTTP/1.1 over one kept-alive connection, best of 3 alternating rounds:");
    println!("  size    transport      wall: requests/s  ratio    CPU: requests/s  ratio");
    for size in [100usize, 16 * 1024] {
        // Seconds per request: (wall, CPU), each the best of the rounds.
        let best = |t: Transport| {
            let rounds = (1..=3).filter_map(|r| timings.get(&(t, size, r)));
            rounds.fold((f64::INFINITY, f64::INFINITY), |(wall, cpu), v| {
                let fastest = v
                    .iter()
                    .map(|&(n, w, _)| w / n as f64)
                    .fold(f64::INFINITY, f64::min);
                let n: u64 = v.iter().map(|s| s.0).sum();
                let total: Option<f64> = v.iter().map(|s| s.2).sum();
                let round_cpu = total.map_or(f64::NAN, |c| c / n as f64);
                (wall.min(fastest), cpu.min(round_cpu))
            })
        };
        let (tcp_wall, tcp_cpu) = best(Transport::Tcp);
        for &t in transports {
            let (wall, cpu) = best(t);
            println!(
                "  {size:>5} B {:<13} {:>10.0} {:>10.2}x {:>14.0} {:>8.2}x",
                t.name(),
                1.0 / wall,
                tcp_wall / wall,
                1.0 / cpu,
                tcp_cpu / cpu
            );
        }
    }
}

criterion_group!(benches, bench_requests);
criterion_main!(benches);
