//! A bounded soak of the one-port acceptor on loopback (feature `one-port`): 300 mixed
//! connections — TLCP, RFC 8998 TLS 1.3, ordinary TLS 1.3, garbage of three shapes and idle
//! clients — 24 at a time. Every good client is served byte for byte, every bad one ends in
//! an error (no panic), and the process's file descriptors and heap return to their start.
//! Its own test binary, so no other test's sockets or allocations disturb the counts.
//!
//! The heap is counted exactly: this binary's global allocator adds up the bytes allocated
//! and not yet freed. A warm-up round first fills what is meant to stay (the session
//! caches, made small here; tokio's driver pools); after the soak, the live bytes must be
//! back to where they were after the warm-up, within [`SLACK`]: less than any one
//! connection. (Runs end 0 or a few KiB below the start. A connection forgotten by the
//! server — `std::mem::forget` of one accepted stream, tried while writing this test —
//! left 7.8 KiB or 45 KiB, by its kind, and failed it.)
#![cfg(feature = "one-port")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod oneport_support;
#[path = "common/test_bytes.rs"]
mod test_bytes;

use oneport_support::*;
use shangmi_tlcp::oneport::OnePortAcceptor;
use shangmi_tlcp::{CipherSuite, ClientAuth, ServerSessionCache};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinSet;

/// Bytes allocated and not yet freed, all threads.
static LIVE: AtomicIsize = AtomicIsize::new(0);

/// The system allocator, counting.
struct Counting;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn count(bytes: usize, sign: isize) {
    LIVE.fetch_add(sign * bytes as isize, Ordering::Relaxed);
}

// SAFETY: every method forwards its caller's arguments unchanged to `System`, whose
// contract is the same; the count only reads the sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is passed on.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            count(layout.size(), 1);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            count(layout.size(), 1);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator (so from `System`) with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        count(layout.size(), -1);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from `System` with `layout`; the caller's contract is passed on.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            count(layout.size(), -1);
            count(new_size, 1);
        }
        p
    }
}

/// Live heap bytes the soak may leave beyond its start: less than one connection.
const SLACK: isize = 1024;

const CONNECTIONS: u32 = 300;

/// Open file descriptors of this process (Linux), else 0.
fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(0, Iterator::count)
}

/// Seeded junk (xorshift): no randomness, failures reproduce.
fn junk(seed: u32, len: usize) -> Vec<u8> {
    test_bytes::bytes(len, seed)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Tlcp,
    TlsSm,
    Tls,
    Garbage,
    Idle,
}

fn kind(i: u32) -> Kind {
    match i % 10 {
        0..=2 => Kind::Tlcp,
        3..=5 => Kind::TlsSm,
        6 | 7 => Kind::Tls,
        8 => Kind::Garbage,
        _ => Kind::Idle,
    }
}

/// A bad client: plain junk, or a TLS or TLCP record header followed by junk.
async fn garbage(addr: std::net::SocketAddr, i: u32) {
    let mut bytes = junk(i, 20 + (i as usize % 50));
    match i % 3 {
        0 => bytes[0] = 0x47, // not a handshake record
        1 => bytes[..5].copy_from_slice(&[22, 3, 1, 0, 40]),
        _ => bytes[..5].copy_from_slice(&[22, 1, 1, 0, 40]),
    }
    let mut sock = TcpStream::connect(addr).await.unwrap();
    let _ = sock.write_all(&bytes).await;
    let _ = sock.shutdown().await;
    let mut sink = Vec::new();
    let _ = sock.read_to_end(&mut sink).await;
}

/// An idle client: connects, sends nothing, waits for the server to close.
async fn idle(addr: std::net::SocketAddr) {
    let mut sock = TcpStream::connect(addr).await.unwrap();
    let mut sink = Vec::new();
    let _ = sock.read_to_end(&mut sink).await;
}

/// The acceptor of `acceptor()` with small session caches (TLCP and both TLS sides), so
/// the warm-up round fills them.
fn soak_acceptor() -> Arc<OnePortAcceptor> {
    let tlcp = common::server_config_with(
        &common::pki().server,
        &CipherSuite::ALL,
        ClientAuth::None,
        |b| b.session_cache(ServerSessionCache::new(4)),
    );
    let small = |config: Arc<rustls::ServerConfig>| {
        let mut config = (*config).clone();
        config.session_storage = rustls::server::ServerSessionMemoryCache::new(4);
        Arc::new(config)
    };
    Arc::new(
        OnePortAcceptor::builder()
            .tlcp(Arc::new(tlcp))
            .tls_sm(small(sm_tls_server()))
            .tls(small(ordinary_tls_server()))
            .handshake_timeout(Duration::from_millis(800))
            .max_handshakes(32)
            .build()
            .unwrap(),
    )
}

/// `count` mixed clients, 24 at a time; checks every answer and every outcome.
async fn round(
    addr: std::net::SocketAddr,
    count: u32,
    rx: &mut mpsc::UnboundedReceiver<Outcome>,
    (sm, ordinary): (Arc<rustls::ClientConfig>, Arc<rustls::ClientConfig>),
) {
    let slots = Arc::new(Semaphore::new(24));
    let mut clients = JoinSet::new();
    for i in 0..count {
        let slot = slots.clone().acquire_owned().await.unwrap();
        let (sm, ordinary) = (sm.clone(), ordinary.clone());
        clients.spawn(async move {
            let _slot = slot;
            let msg = junk(i + 1000, 1 + (i as usize * 37) % 3000);
            let k = kind(i);
            let got = match k {
                Kind::Tlcp => Some((tlcp_client(addr, &msg).await, "TLCP", "ECC_SM4_GCM_SM3")),
                Kind::TlsSm => Some((
                    tls_client(addr, sm, &msg).await,
                    "TLS (SM)",
                    "TLS_SM4_GCM_SM3",
                )),
                Kind::Tls => Some((
                    tls_client(addr, ordinary, &msg).await,
                    "TLS",
                    "TLS13_AES_256_GCM_SHA384",
                )),
                Kind::Garbage => {
                    garbage(addr, i).await;
                    None
                }
                Kind::Idle => {
                    idle(addr).await;
                    None
                }
            };
            if let Some((got, served, suite)) = got {
                assert_eq!(got, expected(served, suite, &msg), "client {i} ({k:?})");
            }
        });
    }
    while let Some(done) = clients.join_next().await {
        done.expect("no client panics");
    }
    let (mut ok, mut refused) = (0, 0);
    for _ in 0..count {
        match rx.recv().await.expect("one outcome per connection") {
            Ok(_) => ok += 1,
            Err(_) => refused += 1,
        }
    }
    let bad = (0..count)
        .filter(|i| matches!(kind(*i), Kind::Garbage | Kind::Idle))
        .count();
    assert_eq!(ok, count as usize - bad, "every good client served");
    assert_eq!(refused, bad, "every bad client refused");
}

/// Waits (bounded) until `done` holds: the server's last connections are dropped just
/// after their outcomes are sent.
async fn settle(done: impl Fn() -> bool) {
    for _ in 0..100 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn soak_mixed_clients_all_good_ones_served() {
    // Configurations (and the test PKI) first, so they do not count as descriptors.
    let acceptor = soak_acceptor();
    let clients = (
        sm_tls_client(),
        ordinary_tls_client(&[&rustls::version::TLS13]),
    );
    let fds_before = open_fds();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, mut rx) = mpsc::unbounded_channel();
    let server = tokio::spawn(serve(listener, acceptor.clone(), tx));
    let run = async {
        round(addr, 100, &mut rx, clients.clone()).await;
        settle(|| open_fds() <= fds_before + 1).await;
        let heap_before = LIVE.load(Ordering::Relaxed);
        round(addr, CONNECTIONS, &mut rx, clients.clone()).await;
        settle(|| LIVE.load(Ordering::Relaxed) <= heap_before + SLACK).await;
        heap_before
    };
    let heap_before = tokio::time::timeout(Duration::from_secs(180), run)
        .await
        .expect("the soak finishes in its bound");
    let heap_after = LIVE.load(Ordering::Relaxed);
    assert!(
        heap_after <= heap_before + SLACK,
        "live heap: {heap_before} bytes after the warm-up, {heap_after} after the soak"
    );
    server.abort();
    let _ = server.await;
    assert_eq!(acceptor.handshakes_in_progress(), 0);
    settle(|| open_fds() <= fds_before).await;
    let fds = open_fds();
    assert!(
        fds <= fds_before,
        "descriptors: {fds_before} before, {fds} after"
    );
}
