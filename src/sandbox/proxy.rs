//! The filtering HTTP proxy of `network: { allowedDomains, deniedDomains }`: HTTP `CONNECT`
//! (HTTPS and any TLS) and plain HTTP requests in absolute form, let through by host name.
//! No TLS inspection: a `CONNECT` is judged by the name it asks for.
//!
//! Why it is sound on Linux: the sandboxed command lives in a network namespace holding only
//! a loopback interface, and the proxy's listening socket was created *inside* that namespace
//! (by the helper that made it); the proxy accepts there and connects out from the host's
//! namespace. A command has no other way out — no route, no DNS — so a direct connection
//! fails whatever port it tries. On macOS the Seatbelt profile allows network only to the
//! proxy's loopback port.
//!
//! Each connection carries one request (`Connection: close` is forced on plain HTTP), so a
//! second request on a kept-alive connection cannot reach another host unfiltered.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Which host names pass.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    allowed: Vec<String>,
    denied: Vec<String>,
}

fn matches(pattern: &str, host: &str) -> bool {
    match pattern.strip_prefix("*.") {
        Some(base) => {
            host.len() > base.len() + 1 && host.ends_with(base) && {
                host.as_bytes()[host.len() - base.len() - 1] == b'.'
            }
        }
        None => pattern == host,
    }
}

impl Rules {
    /// Rules from the policy's lists (already lower-cased and checked).
    pub fn new(allowed: &[String], denied: &[String]) -> Rules {
        Rules {
            allowed: allowed.to_vec(),
            denied: denied.to_vec(),
        }
    }

    /// Whether `host` may be reached: listed in `allowed` (exactly, or under a `*.` entry)
    /// and not in `denied`.
    pub fn allows(&self, host: &str) -> bool {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        !self.denied.iter().any(|p| matches(p, &host))
            && self.allowed.iter().any(|p| matches(p, &host))
    }
}

/// Where the proxy listens.
#[derive(Debug)]
pub enum Listen {
    /// A listening socket made in the sandbox's network namespace.
    Socket(std::net::TcpListener),
    /// A fresh socket on the host's loopback, any port.
    Loopback,
}

/// What the proxy let through and refused.
#[derive(Debug, Default)]
pub struct Counts {
    /// Requests passed on.
    pub allowed: AtomicU64,
    /// Requests refused.
    pub denied: AtomicU64,
}

/// A running proxy; stopped when dropped.
#[derive(Debug)]
pub struct Proxy {
    port: u16,
    counts: Arc<Counts>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Proxy {
    /// Starts the proxy on its own thread.
    pub fn start(rules: Rules, listen: Listen) -> std::io::Result<Proxy> {
        let std_listener = match listen {
            Listen::Socket(l) => l,
            Listen::Loopback => std::net::TcpListener::bind("127.0.0.1:0")?,
        };
        std_listener.set_nonblocking(true)?;
        let port = std_listener.local_addr()?.port();
        let counts = Arc::new(Counts::default());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()?;
        let c = Arc::clone(&counts);
        let rules = Arc::new(rules);
        std::thread::Builder::new()
            .name("clarvis-sandbox-proxy".into())
            .spawn(move || {
                rt.block_on(async move {
                    let Ok(listener) = TcpListener::from_std(std_listener) else {
                        return;
                    };
                    tokio::pin!(stopped);
                    loop {
                        tokio::select! {
                            _ = &mut stopped => break,
                            conn = listener.accept() => {
                                if let Ok((s, _)) = conn {
                                    tokio::spawn(serve(s, Arc::clone(&rules), Arc::clone(&c)));
                                }
                            }
                        }
                    }
                });
            })?;
        Ok(Proxy {
            port,
            counts,
            stop: Some(stop),
        })
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// What it let through and refused so far.
    pub fn counts(&self) -> (u64, u64) {
        (
            self.counts.allowed.load(Ordering::Relaxed),
            self.counts.denied.load(Ordering::Relaxed),
        )
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
    }
}

/// The request head (up to the blank line) and what came after it.
async fn read_head(s: &mut TcpStream) -> Option<(Vec<u8>, Vec<u8>)> {
    let mut buf = Vec::with_capacity(4096);
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = buf.split_off(end + 4);
            return Some((buf, rest));
        }
        if buf.len() > 64 * 1024 {
            return None;
        }
        let n = s.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// `host[:port]` split, with `default` as the port; IPv6 literals in brackets.
fn host_port(authority: &str, default: u16) -> Option<(String, u16)> {
    let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
        let (h, after) = rest.split_once(']')?;
        let port = match after.strip_prefix(':') {
            Some(p) => p.parse().ok()?,
            None => default,
        };
        (h.to_string(), port)
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h.to_string(), p.parse().ok()?),
            None => (authority.to_string(), default),
        }
    };
    (!host.is_empty()).then_some((host, port))
}

async fn refuse(s: &mut TcpStream, status: &str, why: &str) {
    let body = format!("clarvis sandbox: {why}\n");
    let _ = s
        .write_all(
            format!(
                "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        )
        .await;
}

async fn serve(mut client: TcpStream, rules: Arc<Rules>, counts: Arc<Counts>) {
    let Some((head, rest)) = read_head(&mut client).await else {
        return;
    };
    let text = String::from_utf8_lossy(&head).into_owned();
    let mut lines = text.split("\r\n");
    let request = lines.next().unwrap_or("");
    let mut parts = request.split(' ');
    let (method, target, version) = (
        parts.next().unwrap_or(""),
        parts.next().unwrap_or(""),
        parts.next().unwrap_or("HTTP/1.1"),
    );
    let connect = method.eq_ignore_ascii_case("CONNECT");
    let (authority, path) = if connect {
        (target.to_string(), String::new())
    } else if let Some(rest) = target.strip_prefix("http://") {
        match rest.find('/') {
            Some(i) => (rest[..i].to_string(), rest[i..].to_string()),
            None => (rest.to_string(), "/".to_string()),
        }
    } else {
        counts.denied.fetch_add(1, Ordering::Relaxed);
        return refuse(
            &mut client,
            "400 Bad Request",
            "only CONNECT and absolute http:// requests go through this proxy",
        )
        .await;
    };
    let Some((host, port)) = host_port(&authority, if connect { 443 } else { 80 }) else {
        counts.denied.fetch_add(1, Ordering::Relaxed);
        return refuse(&mut client, "400 Bad Request", "no host in the request").await;
    };
    if !rules.allows(&host) {
        counts.denied.fetch_add(1, Ordering::Relaxed);
        return refuse(
            &mut client,
            "403 Forbidden",
            &format!("{host} is not in sandbox.network.allowedDomains"),
        )
        .await;
    }
    let Ok(mut upstream) = TcpStream::connect((host.as_str(), port)).await else {
        return refuse(
            &mut client,
            "502 Bad Gateway",
            &format!("cannot connect to {host}:{port}"),
        )
        .await;
    };
    counts.allowed.fetch_add(1, Ordering::Relaxed);
    if connect {
        if client
            .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            .await
            .is_err()
        {
            return;
        }
    } else {
        let mut out = format!("{method} {path} {version}\r\n");
        for line in lines.filter(|l| !l.is_empty()) {
            let name = line.split(':').next().unwrap_or("").trim();
            if [
                "connection",
                "proxy-connection",
                "proxy-authorization",
                "keep-alive",
            ]
            .iter()
            .any(|h| name.eq_ignore_ascii_case(h))
            {
                continue;
            }
            out.push_str(line);
            out.push_str("\r\n");
        }
        out.push_str("Connection: close\r\n\r\n");
        if upstream.write_all(out.as_bytes()).await.is_err() {
            return;
        }
    }
    if !rest.is_empty() && upstream.write_all(&rest).await.is_err() {
        return;
    }
    let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_exactly_or_under_a_wildcard() {
        let r = Rules::new(
            &["example.com".into(), "*.npmjs.org".into()],
            &["bad.npmjs.org".into()],
        );
        assert!(r.allows("example.com"));
        assert!(r.allows("EXAMPLE.com."));
        assert!(!r.allows("a.example.com"));
        assert!(!r.allows("evilexample.com"));
        assert!(r.allows("registry.npmjs.org"));
        assert!(!r.allows("npmjs.org"));
        assert!(!r.allows("xnpmjs.org"));
        assert!(!r.allows("bad.npmjs.org"));
        assert!(!r.allows("127.0.0.1"));
    }

    #[test]
    fn authorities_split() {
        assert_eq!(host_port("a.b:8080", 80), Some(("a.b".into(), 8080)));
        assert_eq!(host_port("a.b", 443), Some(("a.b".into(), 443)));
        assert_eq!(host_port("[::1]:5", 80), Some(("::1".into(), 5)));
        assert_eq!(host_port(":5", 80), None);
    }

    #[test]
    fn the_proxy_filters_by_host() {
        // An upstream on the loopback, allowed by the name "localhost".
        let upstream = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let up_port = upstream.local_addr().unwrap().port();
        std::thread::spawn(move || {
            use std::io::{Read, Write};
            for s in upstream.incoming().take(1) {
                let mut s = s.unwrap();
                let mut buf = [0u8; 1024];
                let n = s.read(&mut buf).unwrap();
                let req = String::from_utf8_lossy(&buf[..n]).into_owned();
                let body = if req.starts_with("GET /x HTTP/1.1") {
                    "ok"
                } else {
                    "bad"
                };
                let _ = write!(s, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{body}");
            }
        });
        let p = Proxy::start(Rules::new(&["localhost".into()], &[]), Listen::Loopback).unwrap();
        let ask = |req: String| {
            use std::io::{Read, Write};
            let mut s = std::net::TcpStream::connect(("127.0.0.1", p.port())).unwrap();
            s.write_all(req.as_bytes()).unwrap();
            let mut out = String::new();
            let _ = s.read_to_string(&mut out);
            out
        };
        let ok = ask(format!(
            "GET http://localhost:{up_port}/x HTTP/1.1\r\nHost: localhost\r\nProxy-Connection: keep-alive\r\n\r\n"
        ));
        assert!(ok.ends_with("ok"), "{ok}");
        let no = ask("CONNECT example.com:443 HTTP/1.1\r\n\r\n".into());
        assert!(no.starts_with("HTTP/1.1 403"), "{no}");
        assert_eq!(p.counts(), (1, 1));
    }
}
