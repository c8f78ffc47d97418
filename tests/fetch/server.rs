//! A small HTTP/1.1 server on 127.0.0.1 for the fetch tests: fixed routes, each with a status,
//! a body and ways to misbehave (ask for credentials, answer slowly, cut the body short,
//! redirect), and a log of the paths asked for. It stops when dropped.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How the server answers one path.
#[derive(Clone, Default)]
pub struct Route {
    pub status: u16,
    pub body: Vec<u8>,
    /// `Authorization` header value required (else 401).
    pub auth: Option<String>,
    /// Wait this long before answering.
    pub delay: Option<Duration>,
    /// Announce the whole length but send only half of the body, then close.
    pub truncate: bool,
    /// `Location` of a redirect (with status 302).
    pub location: Option<String>,
    /// The `WWW-Authenticate` challenge of the 401 (default: Basic).
    pub challenge: Option<String>,
    /// Extra response headers.
    pub headers: Vec<(String, String)>,
}

impl Route {
    pub fn ok(body: impl Into<Vec<u8>>) -> Route {
        Route {
            status: 200,
            body: body.into(),
            ..Route::default()
        }
    }
}

type Routes = Arc<Mutex<HashMap<String, Route>>>;

pub struct Server {
    pub port: u16,
    routes: Routes,
    log: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    pub fn start() -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let port = listener.local_addr().expect("local address").port();
        let routes: Routes = Arc::default();
        let log: Arc<Mutex<Vec<String>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (routes, log, stop) = (routes.clone(), log.clone(), stop.clone());
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let (routes, log) = (routes.clone(), log.clone());
                    std::thread::spawn(move || serve(stream, &routes, &log));
                }
            })
        };
        Server {
            port,
            routes,
            log,
            stop,
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn route(&self, path: &str, route: Route) -> &Server {
        self.routes.lock().unwrap().insert(path.to_string(), route);
        self
    }

    /// The paths asked for so far, in order.
    pub fn requests(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }

    /// How many times `path` was asked for.
    pub fn count(&self, path: &str) -> usize {
        self.requests().iter().filter(|p| *p == path).count()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve(mut stream: TcpStream, routes: &Routes, log: &Mutex<Vec<String>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
        if head.len() > 64 * 1024 {
            return;
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let mut lines = head.lines();
    let path = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .unwrap_or("/")
        .to_string();
    let authorization = lines
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.eq_ignore_ascii_case("authorization"))
        .map(|(_, v)| v.trim().to_string());
    log.lock().unwrap().push(path.clone());
    let route = routes.lock().unwrap().get(&path).cloned();
    let Some(route) = route else {
        let _ = respond(&mut stream, 404, b"not found", &[]);
        return;
    };
    if let Some(d) = route.delay {
        std::thread::sleep(d);
    }
    if route.auth.is_some() && route.auth != authorization {
        let challenge = route
            .challenge
            .clone()
            .unwrap_or_else(|| "Basic realm=\"charts\"".to_string());
        let _ = respond(
            &mut stream,
            401,
            b"unauthorized",
            &[("WWW-Authenticate", challenge.as_str())],
        );
        return;
    }
    if let Some(location) = &route.location {
        let _ = respond(&mut stream, 302, b"", &[("Location", location)]);
        return;
    }
    if route.truncate {
        let half = &route.body[..route.body.len() / 2];
        let _ = write!(
            stream,
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            route.body.len()
        )
        .and_then(|()| stream.write_all(half));
        return;
    }
    let headers: Vec<(&str, &str)> = route
        .headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let _ = respond(&mut stream, route.status, &route.body, &headers);
}

fn respond(
    stream: &mut TcpStream,
    status: u16,
    body: &[u8],
    headers: &[(&str, &str)],
) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    stream.flush()
}
