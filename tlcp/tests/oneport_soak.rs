//! A bounded soak of the one-port acceptor on loopback (feature `one-port`): 300 mixed
//! connections — TLCP, RFC 8998 TLS 1.3, ordinary TLS 1.3, garbage of three shapes and idle
//! clients — 24 at a time. Every good client is served byte for byte, every bad one ends in
//! an error (no panic), and the process's file descriptors return to their start. Its own
//! test binary, so no other test's sockets disturb the count.
#![cfg(feature = "one-port")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod oneport_support;

use oneport_support::*;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinSet;

const CONNECTIONS: u32 = 300;

/// Open file descriptors of this process (Linux), else 0.
fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(0, Iterator::count)
}

/// Seeded junk (xorshift): no randomness, failures reproduce.
fn junk(seed: u32, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 24) as u8
        })
        .collect()
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn soak_mixed_clients_all_good_ones_served() {
    // Configurations (and the test PKI) first, so they do not count as descriptors.
    let acceptor = acceptor(Duration::from_millis(800), 32);
    let (sm, ordinary) = (
        sm_tls_client(),
        ordinary_tls_client(&[&rustls::version::TLS13]),
    );
    let fds_before = open_fds();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, mut rx) = mpsc::unbounded_channel();
    let server = tokio::spawn(serve(listener, acceptor.clone(), tx));
    let run = async {
        let slots = Arc::new(Semaphore::new(24));
        let mut clients = JoinSet::new();
        for i in 0..CONNECTIONS {
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
                k
            });
        }
        while let Some(done) = clients.join_next().await {
            done.expect("no client panics");
        }
        let (mut ok, mut refused) = (0, 0);
        for _ in 0..CONNECTIONS {
            match rx.recv().await.expect("one outcome per connection") {
                Ok(_) => ok += 1,
                Err(_) => refused += 1,
            }
        }
        (ok, refused)
    };
    let (ok, refused) = tokio::time::timeout(Duration::from_secs(120), run)
        .await
        .expect("the soak finishes in its bound");
    let bad = (0..CONNECTIONS)
        .filter(|i| matches!(kind(*i), Kind::Garbage | Kind::Idle))
        .count();
    assert_eq!(ok, CONNECTIONS as usize - bad, "every good client served");
    assert_eq!(refused, bad, "every bad client refused");
    server.abort();
    let _ = server.await;
    assert_eq!(acceptor.handshakes_in_progress(), 0);
    // The server's last sockets close just after each outcome is sent: wait (bounded) for
    // the count to come back.
    let mut fds = open_fds();
    for _ in 0..100 {
        if fds <= fds_before {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        fds = open_fds();
    }
    assert!(
        fds <= fds_before,
        "descriptors: {fds_before} before, {fds} after"
    );
}
