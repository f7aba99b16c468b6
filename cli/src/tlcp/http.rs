//! The status page of `shangmi tlcp server --http`: an HTTP/1.1 answer saying what the
//! connection negotiated (as OpenSSL's `s_server -www` does), one request per connection.

use shangmi_tlcp::oneport::ConnectionInfo;
use std::net::SocketAddr;

/// The response to the request head `head` (everything up to the blank line).
pub(super) fn respond(
    head: &[u8],
    info: &ConnectionInfo,
    peer: SocketAddr,
    peer_subject: &str,
) -> Vec<u8> {
    let line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let mut words = line.split_whitespace();
    let (method, target, version) = (words.next(), words.next(), words.next());
    let (status, body) = match (method, target, version) {
        (Some("GET" | "HEAD"), Some(_), Some(v)) if v.starts_with("HTTP/1.") => {
            ("200 OK", page(info, peer, peer_subject))
        }
        (Some(_), Some(_), Some(v)) if v.starts_with("HTTP/1.") => {
            ("405 Method Not Allowed", "only GET and HEAD\n".to_owned())
        }
        _ => ("400 Bad Request", "not an HTTP/1.x request\n".to_owned()),
    };
    let mut out = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    if method != Some("HEAD") {
        out.extend_from_slice(body.as_bytes());
    }
    out
}

fn page(info: &ConnectionInfo, peer: SocketAddr, peer_subject: &str) -> String {
    format!(
        "shangmi tlcp server\n\
         protocol: {} ({})\n\
         suite: {}\n\
         resumed: {}\n\
         server name: {}\n\
         peer address: {peer}\n\
         peer certificate: {peer_subject}\n",
        info.version,
        info.served,
        info.suite,
        if info.resumed { "yes" } else { "no" },
        info.server_name.as_deref().unwrap_or("-"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use shangmi_tlcp::oneport::Served;

    fn info() -> ConnectionInfo {
        ConnectionInfo {
            served: Served::Tlcp,
            version: "TLCP 1.1",
            suite: "ECC_SM4_GCM_SM3".into(),
            peer_certificates: Vec::new(),
            server_name: Some("localhost".into()),
            resumed: false,
        }
    }

    fn answer(head: &[u8]) -> String {
        let peer = SocketAddr::from(([127, 0, 0, 1], 5555));
        String::from_utf8(respond(head, &info(), peer, "-")).expect("UTF-8")
    }

    #[test]
    fn get_gets_the_page() {
        let got = answer(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n");
        assert!(got.starts_with("HTTP/1.1 200 OK\r\n"), "{got}");
        let (head, body) = got.split_once("\r\n\r\n").expect("head and body");
        assert!(
            head.contains(&format!("Content-Length: {}", body.len())),
            "{got}"
        );
        assert!(body.contains("protocol: TLCP 1.1 (TLCP)"), "{got}");
        assert!(body.contains("suite: ECC_SM4_GCM_SM3"), "{got}");
        assert!(body.contains("peer address: 127.0.0.1:5555"), "{got}");
    }

    #[test]
    fn head_has_no_body_and_others_are_refused() {
        let got = answer(b"HEAD / HTTP/1.0\r\n\r\n");
        assert!(
            got.starts_with("HTTP/1.1 200 OK\r\n") && got.ends_with("\r\n\r\n"),
            "{got}"
        );
        assert!(answer(b"POST / HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 405 "));
        assert!(answer(b"hello\n").starts_with("HTTP/1.1 400 "));
        assert!(answer(b"").starts_with("HTTP/1.1 400 "));
    }
}
