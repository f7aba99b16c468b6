//! HTTP/1.1 requests per second over one kept-alive connection: hyper's server
//! (`shangmi_tlcp::https::serve` on the one-port acceptor) over TLCP (ECC_SM4_GCM_SM3 and
//! ECC_SM4_CBC_SM3, server certificates only) against the same hyper server over plain
//! TCP (configured as `serve` configures hyper: a timer bounding each request head,
//! upgrades, one extension inserted per request), with hyper-util's client and
//! `shangmi_tlcp::https::HttpsConnector` for both (so the client side differs only by the
//! record layer). Bodies of 100 B and 16 KiB.
//!
//! Client and server share one current-thread tokio runtime on loopback, so a request's
//! time is all the work both sides do for it (the handshake is in the warm-up). The three
//! transports alternate (TCP, GCM, CBC, TCP, …) for three rounds; at the end the best
//! round of each is printed with the TLCP/TCP ratio of requests per second, by wall clock
//! (the round's best sample) and on Linux by the thread's CPU time over the whole round
//! (`/proc/thread-self/schedstat`), which a machine busy with other work disturbs less:
//! requests per second per core.
//!
//! Then, for the 100 B CBC row, the part of the 0.8x budget (a quarter of TCP's CPU time
//! per request) the record crypto alone takes, measured two independent ways: (a) the
//! record layer's own seal and open of one request's and one response's records (the
//! sizes hyper writes: a 41-byte GET, a 77-byte head with the 100-byte body), both sides,
//! timed in a loop; (b) per-block costs — serial SM4-CBC encryption and SM4-CBC decryption
//! as the record layer runs them (a cipher keyed once), and one SM3 compression —
//! converted to cycles against a dependent 64-bit `imul` chain (3 cycles each on Zen 4 and
//! most x86 cores) and multiplied by the blocks and compressions a request needs. Every
//! figure is the thread's CPU time (for the bound, its fastest sample).
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
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
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
                while let Ok((sock, remote_addr)) = listener.accept().await {
                    sock.set_nodelay(true).expect("nodelay");
                    let service = Fixed(body.clone());
                    // The HTTP side as `serve` runs it: a request-head timer, upgrades, and
                    // a per-request extension (here the peer's address), so that the two
                    // servers differ only by the transport.
                    tokio::spawn(async move {
                        let service = hyper::service::service_fn(move |mut req| {
                            req.extensions_mut().insert(remote_addr);
                            let mut s = service.clone();
                            tower_service::Service::call(&mut s, req)
                        });
                        let _ = hyper::server::conn::http1::Builder::new()
                            .timer(TokioTimer::new())
                            .serve_connection(TokioIo::new(sock), service)
                            .with_upgrades()
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
        if size == 100 {
            *BOUND_TCP.lock().expect("tcp") = Some(tcp_cpu);
            *BOUND_GCM.lock().expect("gcm") =
                Some(best(Transport::Tlcp(CipherSuite::EccSm4GcmSm3)).1);
        }
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

/// The HTTP/1.1 plaintext of one request and one response in the 100 B rows, as hyper
/// writes them (strace of the TCP rows): `GET / HTTP/1.1`, a `host: localhost:PORT`
/// line and the blank line; the response head (status, content-length, date) and the
/// body, sealed together as one record.
const REQUEST_LEN: usize = 41;
const RESPONSE_LEN: usize = 77 + 100;

/// `iters` runs of `f`, timed by the thread's CPU clock on Linux (`clock_gettime` with
/// `CLOCK_THREAD_CPUTIME_ID`: exact, unlike `/proc`'s figure, which is brought up to date
/// only at a scheduler tick or a system call), elsewhere by the wall clock.
fn timed(iters: u64, mut f: impl FnMut()) -> Duration {
    #[cfg(target_os = "linux")]
    let now = || {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
    };
    #[cfg(not(target_os = "linux"))]
    let now = {
        let start = Instant::now();
        move || start.elapsed()
    };
    let start = now();
    for _ in 0..iters {
        f();
    }
    now() - start
}

/// SM3 compressions of HMAC-SM3 over a `len`-byte record (13-byte header and plaintext)
/// with the keyed inner and outer states ready: the inner hash and one outer block.
fn hmac_compressions(len: usize) -> usize {
    (13 + len + 8) / 64 + 1 + 1
}

/// SM3 compressions of the constant-time check of a CBC record of `len` plaintext bytes
/// (`shangmi_tlcp::record`): as many as for the longest plaintext the record could hold.
fn check_compressions(len: usize) -> usize {
    hmac_compressions(cbc_body(len) - 33)
}

/// The encrypted body of a CBC record (after the explicit IV): plaintext, MAC, padding.
fn cbc_body(len: usize) -> usize {
    (len + 32) / 16 * 16 + 16
}

/// Seconds per unit of the bound measurements (fastest sample), by name.
type Units = Mutex<HashMap<&'static str, f64>>;

/// Times `f` (doing `per_call` units a call) under `name` and keeps the fastest sample's
/// seconds per unit.
fn unit_bench(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    units: &Units,
    name: &'static str,
    per_call: usize,
    mut f: impl FnMut(),
) {
    g.bench_function(name, |b| {
        b.iter_custom(|iters| {
            let t = timed(iters, &mut f);
            let each = t.as_secs_f64() / (iters as f64 * per_call as f64);
            let mut u = units.lock().expect("units");
            let best = u.entry(name).or_insert(f64::INFINITY);
            *best = best.min(each);
            t
        });
    });
}

/// The two measurements of the record crypto a 100 B request costs (module docs).
fn bench_bound(c: &mut Criterion) {
    use shangmi_sm4_modes::cipher::{Block, KeyInit};
    use shangmi_sm4_modes::{CbcDecrypt, CbcEncrypt, Direction, Sm4};
    use shangmi_tlcp::record::RecordProtection;
    use std::hint::black_box;

    let units: Units = Mutex::new(HashMap::new());
    let mut g = c.benchmark_group("http/bound/100");
    g.warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(700))
        .sample_size(20);
    // (a) The record layer: client seals the request, server opens it, server seals the
    // response, client opens it (two directions, two key sets, as on the wire).
    let (request, response) = (vec![0x47u8; REQUEST_LEN], vec![0x5au8; RESPONSE_LEN]);
    for suite in [CipherSuite::EccSm4CbcSm3, CipherSuite::EccSm4GcmSm3] {
        let keys = |k: u8| {
            let (mac, iv) = if suite.is_gcm() { (0, 4) } else { (32, 16) };
            RecordProtection::new(suite, &vec![k; mac], &[k ^ 1; 16], &vec![k ^ 2; iv])
                .expect("keys")
        };
        let (c2s, s2c) = (keys(1), keys(2));
        let mut buf = vec![0u8; 1024];
        let mut seq = 0u64;
        let name = if suite.is_gcm() {
            "records-gcm"
        } else {
            "records-cbc"
        };
        unit_bench(&mut g, &units, name, 1, || {
            for (p, text) in [(&c2s, &request), (&s2c, &response)] {
                let n = p
                    .seal_into(seq, 23, text, &[7; 16], &mut buf)
                    .expect("seals");
                let r = p.open_in_place(seq, 23, &mut buf[..n]).expect("opens");
                black_box(r);
            }
            seq += 1;
        });
    }
    // (b) Per block: serial SM4-CBC encryption and CBC decryption of a response body's
    // blocks as the record layer runs them (a cipher keyed once per connection, sm4-modes'
    // `Direction::run` in place), one SM3 compression, one imul of a dependent chain.
    let blocks = cbc_body(RESPONSE_LEN) / 16;
    let mut body = vec![Block::<Sm4>::from([0x33u8; 16]); blocks];
    let cipher = Sm4::new(&[9u8; 16].into());
    unit_bench(&mut g, &units, "sm4-cbc-encrypt-block", blocks, || {
        let mut iv = Block::<Sm4>::from([3u8; 16]);
        CbcEncrypt::run(&cipher, &mut iv, body.as_mut_slice().into());
    });
    unit_bench(&mut g, &units, "sm4-cbc-decrypt-block", blocks, || {
        let mut iv = Block::<Sm4>::from([3u8; 16]);
        CbcDecrypt::run(&cipher, &mut iv, body.as_mut_slice().into());
    });
    let mut state = shangmi_sm3::hazmat::IV;
    let backend = shangmi_sm3::backend();
    unit_bench(&mut g, &units, "sm3-compression", 16, || {
        for _ in 0..16 {
            shangmi_sm3::hazmat::compress(backend, &mut state, &[[0x61; 64]])
                .expect("the best backend");
        }
    });
    const CHAIN: usize = 10_000;
    unit_bench(&mut g, &units, "imul-chain", CHAIN, || {
        // The factor through black_box each time: the compiler cannot fold several
        // multiplications into one (k^8 per unrolled step); its load is off the chain.
        let (mut x, k) = (black_box(3u64), 0x9e37_79b9_7f4a_7c15u64);
        for _ in 0..CHAIN {
            x = x.wrapping_mul(black_box(k));
        }
        black_box(x);
    });
    g.finish();
    let units = units.into_inner().expect("units");
    let tcp = BOUND_TCP.lock().expect("tcp").unwrap_or(f64::NAN);
    let gcm = BOUND_GCM.lock().expect("gcm").unwrap_or(f64::NAN);
    let u = |name| units.get(name).copied().unwrap_or(f64::NAN);
    let us = |s: f64| s * 1e6;
    let budget = tcp * 0.25;
    if !budget.is_finite() {
        println!("\n(the budget needs the http/100 rows: run them in the same filter)");
    }
    println!("\n100 B ECC_SM4_CBC_SM3: the record crypto against the 0.8x budget (CPU time):");
    println!(
        "  TCP {:.2} us/request -> 0.8x leaves {:.2} us for all TLCP adds; GCM adds {:.2} us \
         in all, {:.2} us of it GCM record crypto, so {:.2} us is TLCP's work besides the \
         cipher",
        us(tcp),
        us(budget),
        us(gcm - tcp),
        us(u("records-gcm")),
        us(gcm - tcp - u("records-gcm"))
    );
    let room = budget - (gcm - tcp - u("records-gcm"));
    println!("  room left for CBC record crypto: {:.2} us", us(room));
    println!(
        "  (a) seal + open of a {REQUEST_LEN} B and a {RESPONSE_LEN} B record, both sides: \
         {:.2} us",
        us(u("records-cbc"))
    );
    let secs_per_cycle = u("imul-chain") / 3.0;
    let cycles = |name| u(name) / secs_per_cycle;
    let enc_blocks = cbc_body(REQUEST_LEN) / 16 + cbc_body(RESPONSE_LEN) / 16;
    let sm3 = hmac_compressions(REQUEST_LEN)
        + check_compressions(REQUEST_LEN)
        + hmac_compressions(RESPONSE_LEN)
        + check_compressions(RESPONSE_LEN);
    let total = enc_blocks as f64
        * (cycles("sm4-cbc-encrypt-block") + cycles("sm4-cbc-decrypt-block"))
        + sm3 as f64 * cycles("sm3-compression");
    println!(
        "  (b) clock {:.2} GHz (imul chain); SM4-CBC {:.0} cycles/block encrypting, {:.0} \
         decrypting, SM3 {:.0} cycles/compression; {enc_blocks} blocks each way and {sm3} \
         compressions a request: {:.0} cycles = {:.2} us",
        1e-9 / secs_per_cycle,
        cycles("sm4-cbc-encrypt-block"),
        cycles("sm4-cbc-decrypt-block"),
        cycles("sm3-compression"),
        total,
        us(total * secs_per_cycle)
    );
}

/// The best CPU seconds per request of the 100 B TCP and GCM rows, for [`bench_bound`].
static BOUND_TCP: Mutex<Option<f64>> = Mutex::new(None);
static BOUND_GCM: Mutex<Option<f64>> = Mutex::new(None);

criterion_group!(benches, bench_requests, bench_bound);
criterion_main!(benches);
