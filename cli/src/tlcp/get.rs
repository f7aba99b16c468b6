//! `shangmi tlcp get URL`: one HTTP/1.1 GET over TLCP, the response body on standard output
//! (the status line and headers too with `--include`), what was negotiated on standard
//! error: a curl for TLCP gateways.

use super::{ClientOptions, client_config, client_once, failure};
use crate::failure::Failure;
use shangmi_tlcp::ServerName;
use std::io::Write;
use std::process::ExitCode;

/// Options of `tlcp get`.
#[derive(clap::Args)]
#[command(after_help = "\
Example: shangmi tlcp get https://gateway.example/status --ca ca.crt
The host of the URL is the name checked on the server's sign certificate and sent as SNI; \
--connect sends the connection elsewhere (as curl's --resolve does). The exit status is 0 \
for a 2xx or 3xx answer and 1 otherwise.")]
pub struct GetArgs {
    /// The URL: https://HOST[:PORT][/PATH] (port 443 by default)
    #[allow(rustdoc::broken_intra_doc_links)] // `--help` text: its brackets are not links
    url: String,
    /// Connect to this address instead of the URL's host and port
    #[arg(long, value_name = "ADDR")]
    connect: Option<String>,
    /// Print the status line and the headers before the body
    #[arg(long, short = 'i')]
    include: bool,
    #[command(flatten)]
    options: ClientOptions,
}

/// Runs `shangmi tlcp get`.
pub fn get(args: &GetArgs) -> Result<ExitCode, Failure> {
    let url = Url::parse(&args.url)?;
    let config = client_config(&args.options)?;
    let name = ServerName::try_from(url.host.clone())
        .map_err(|e| Failure::usage(format!("{}: {e}", args.url)))?;
    let connect = args
        .connect
        .clone()
        .unwrap_or_else(|| format!("{}:{}", url.host_for_connect(), url.port));
    let request = format!(
        "GET {} HTTP/1.1\r\nHost: {}\r\nUser-Agent: shangmi/{}\r\nAccept: */*\r\n\
         Connection: close\r\n\r\n",
        url.path,
        url.host_header(),
        env!("CARGO_PKG_VERSION")
    );
    let reply = client_once(&connect, &config, &name, request.as_bytes())?;
    let response = Response::parse(&reply).map_err(|e| failure(&args.url, e))?;
    eprintln!("status: {}", response.status_line);
    let mut out = std::io::stdout().lock();
    if args.include {
        out.write_all(response.head)
            .map_err(|e| failure("standard output", e))?;
    }
    out.write_all(&response.body)
        .and_then(|()| out.flush())
        .map_err(|e| failure("standard output", e))?;
    Ok(if (200..400).contains(&response.status) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The parts of an https:// URL a GET needs.
#[derive(Debug, PartialEq, Eq)]
struct Url {
    host: String,
    port: u16,
    path: String,
}

impl Url {
    fn parse(url: &str) -> Result<Url, Failure> {
        let bad = |why: &str| Failure::usage(format!("{url}: {why}"));
        let rest = url
            .strip_prefix("https://")
            .ok_or_else(|| bad("not an https:// URL"))?;
        let (authority, path) = match rest.find(['/', '?']) {
            Some(at) => (&rest[..at], &rest[at..]),
            None => (rest, "/"),
        };
        let path = if path.starts_with('?') {
            format!("/{path}")
        } else {
            path.to_owned()
        };
        if authority.contains('@') {
            return Err(bad("user information in the URL is not supported"));
        }
        let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
            let (host, after) = v6
                .split_once(']')
                .ok_or_else(|| bad("unclosed [ in the host"))?;
            (host, after.strip_prefix(':'))
        } else {
            match authority.rsplit_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (authority, None),
            }
        };
        if host.is_empty() {
            return Err(bad("no host"));
        }
        let port = match port {
            None => 443,
            Some(p) => p.parse().map_err(|_| bad("the port is not a number"))?,
        };
        Ok(Url {
            host: host.to_owned(),
            port,
            path,
        })
    }

    /// The host as `connect` takes it (an IPv6 address in brackets).
    fn host_for_connect(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        }
    }

    /// The Host header: the host, and the port unless it is 443.
    fn host_header(&self) -> String {
        match self.port {
            443 => self.host_for_connect(),
            port => format!("{}:{port}", self.host_for_connect()),
        }
    }
}

/// An HTTP/1.x response read to the end of the connection.
struct Response<'a> {
    status: u16,
    status_line: String,
    /// The status line and headers with the blank line after them.
    head: &'a [u8],
    body: Vec<u8>,
}

impl<'a> Response<'a> {
    fn parse(reply: &'a [u8]) -> Result<Response<'a>, String> {
        let end = reply
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .ok_or("the server closed the connection before the end of an HTTP response head")?;
        let head = &reply[..end + 4];
        let text = String::from_utf8_lossy(&head[..end]);
        let mut lines = text.split("\r\n");
        let status_line = lines.next().unwrap_or_default().to_owned();
        let mut words = status_line.split_whitespace();
        let status = match (words.next(), words.next()) {
            (Some(v), Some(code)) if v.starts_with("HTTP/1.") => code
                .parse::<u16>()
                .map_err(|_| format!("not an HTTP status: {status_line}"))?,
            _ => return Err(format!("not an HTTP/1.x response: {status_line}")),
        };
        let chunked = lines.any(|line| {
            line.split_once(':').is_some_and(|(name, value)| {
                name.trim().eq_ignore_ascii_case("transfer-encoding")
                    && value.to_ascii_lowercase().contains("chunked")
            })
        });
        let rest = &reply[end + 4..];
        let body = if chunked {
            dechunk(rest)?
        } else {
            rest.to_vec()
        };
        Ok(Response {
            status,
            status_line,
            head,
            body,
        })
    }
}

/// A chunked body (RFC 9112 §7.1) without its framing; trailers are dropped.
fn dechunk(mut data: &[u8]) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    loop {
        let line_end = data
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or("a chunk size line without its end")?;
        let line =
            std::str::from_utf8(&data[..line_end]).map_err(|_| "a chunk size that is not text")?;
        let size = line.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size, 16).map_err(|_| format!("chunk size {size:?}"))?;
        data = &data[line_end + 2..];
        if size == 0 {
            return Ok(body);
        }
        let chunk = data
            .get(..size)
            .ok_or("the connection ended inside a chunk")?;
        body.extend_from_slice(chunk);
        data = data
            .get(size..)
            .and_then(|d| d.strip_prefix(b"\r\n"))
            .ok_or("a chunk without its CRLF")?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_their_refusals() {
        let url = |s: &str| Url::parse(s).ok();
        assert_eq!(
            url("https://gw.example"),
            Some(Url {
                host: "gw.example".into(),
                port: 443,
                path: "/".into()
            })
        );
        let u = url("https://gw.example:8443/a/b?c=d").expect("parses");
        assert_eq!((u.port, u.path.as_str()), (8443, "/a/b?c=d"));
        assert_eq!(u.host_header(), "gw.example:8443");
        let u = url("https://[::1]:4433?x").expect("parses");
        assert_eq!(
            (u.host.as_str(), u.port, u.path.as_str()),
            ("::1", 4433, "/?x")
        );
        assert_eq!(u.host_for_connect(), "[::1]");
        for bad in [
            "http://gw.example/",
            "gw.example",
            "https://",
            "https://:443/",
            "https://gw.example:x/",
            "https://gw.example:70000/",
            "https://user@gw.example/",
            "https://[::1/",
        ] {
            assert!(Url::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn responses_plain_and_chunked() {
        let plain = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
        let r = Response::parse(plain).expect("parses");
        assert_eq!((r.status, r.body.as_slice()), (200, &b"hello"[..]));
        assert_eq!(r.head, &plain[..plain.len() - 5]);
        let chunked =
            b"HTTP/1.1 404 Not Found\r\ntransfer-encoding: Chunked\r\n\r\n5;x=y\r\nhello\r\n6\r\n, TLCP\r\n0\r\nTrailer: t\r\n\r\n";
        let r = Response::parse(chunked).expect("parses");
        assert_eq!((r.status, r.body.as_slice()), (404, &b"hello, TLCP"[..]));
        for bad in [
            &b"HTTP/1.1 200 OK\r\n"[..],
            b"SSH-2.0-x\r\n\r\n",
            b"HTTP/1.1 abc OK\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nz\r\n",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloX",
        ] {
            assert!(
                Response::parse(bad).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
