//! The one way the fetch layer reaches the network: blocking GETs with TLS on, plain HTTP only
//! to loopback or to hosts the configuration names, redirects followed by hand (so each hop is
//! checked and credentials never follow to another host), a size limit, a timeout and a few
//! retries for errors that say a retry may help.

use super::url::{Url, UrlError};
use super::FetchError;
use std::sync::Arc;
use std::time::Duration;

/// Largest body read (a chart archive, an index, a manifest): Helm's limit on a chart.
pub const MAX_BODY: u64 = 100 << 20;
const MAX_REDIRECTS: usize = 10;

/// Credentials for one request.
#[derive(Clone)]
pub enum Auth {
    Basic { user: String, password: String },
    Bearer(String),
}

impl Auth {
    /// A digest of the credentials, to tell requests apart in memory without keeping them
    /// in a key.
    pub fn fingerprint(&self) -> String {
        let text = match self {
            Auth::Basic { user, password } => format!("basic\n{user}\n{password}"),
            Auth::Bearer(token) => format!("bearer\n{token}"),
        };
        super::Digest::of(text.as_bytes()).hex()
    }
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Auth::Basic { user, .. } => write!(f, "Basic({user}, ***)"),
            Auth::Bearer(_) => write!(f, "Bearer(***)"),
        }
    }
}

/// A response: status, headers (names lower-cased) and body.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The URL that answered, after redirects.
    pub url: Url,
}

impl Response {
    /// The first value of header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Settings of the client.
#[derive(Clone, Debug)]
pub struct Policy {
    /// Hosts (`host` or `host:port`) that may be reached over plain HTTP besides loopback.
    pub plain_http_hosts: Vec<String>,
    /// Time for one request, connection to last byte.
    pub timeout: Duration,
    /// Further tries after an error that a retry may cure (connection reset, timeout, 5xx).
    pub retries: u32,
}

impl Default for Policy {
    fn default() -> Policy {
        let seconds = std::env::var("KDELTA_FETCH_TIMEOUT")
            .ok()
            .and_then(|s| s.trim().parse::<f64>().ok())
            .filter(|s| *s > 0.0)
            .unwrap_or(120.0);
        Policy {
            plain_http_hosts: Vec::new(),
            timeout: Duration::from_secs_f64(seconds),
            retries: 2,
        }
    }
}

/// The HTTP client.
pub struct Client {
    agent: ureq::Agent,
    policy: Policy,
    /// Hosts the configuration allows plain HTTP to, beside the policy's.
    plain_http: std::sync::Mutex<Vec<String>>,
}

impl Client {
    /// A client with the environment's proxy (`HTTPS_PROXY`, `NO_PROXY`, …) and CA bundle
    /// (`SSL_CERT_FILE` replaces the bundled web roots, as it does for OpenSSL).
    pub fn new(policy: Policy) -> Result<Client, FetchError> {
        let mut tls = ureq::tls::TlsConfig::builder();
        if let Some(file) = std::env::var_os("SSL_CERT_FILE").filter(|f| !f.is_empty()) {
            let pem = std::fs::read(&file).map_err(|e| FetchError::Setup {
                message: format!("cannot read SSL_CERT_FILE {}: {e}", file.to_string_lossy()),
            })?;
            let certs: Vec<_> = ureq::tls::parse_pem(&pem)
                .filter_map(|item| match item {
                    Ok(ureq::tls::PemItem::Certificate(c)) => Some(c),
                    _ => None,
                })
                .collect();
            if certs.is_empty() {
                return Err(FetchError::Setup {
                    message: format!(
                        "SSL_CERT_FILE {} holds no certificate",
                        file.to_string_lossy()
                    ),
                });
            }
            tls = tls.root_certs(ureq::tls::RootCerts::Specific(Arc::new(certs)));
        }
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .proxy(ureq::Proxy::try_from_env())
            .tls_config(tls.build())
            .timeout_global(Some(policy.timeout))
            .timeout_connect(Some(policy.timeout.min(Duration::from_secs(15))))
            .user_agent(concat!("kdelta/", env!("CARGO_PKG_VERSION")))
            .build()
            .new_agent();
        Ok(Client {
            agent,
            policy,
            plain_http: std::sync::Mutex::default(),
        })
    }

    /// Lets plain HTTP reach `hosts` (`host` or `host:port`) too.
    pub fn allow_plain_http(&self, hosts: Vec<String>) {
        *self.plain_http.lock().unwrap_or_else(|p| p.into_inner()) = hosts;
    }

    /// The time one request may take.
    pub fn timeout(&self) -> Duration {
        self.policy.timeout
    }

    /// Checks that `url` may be fetched: https, or http to loopback or a configured host.
    pub fn allowed(&self, url: &Url) -> Result<(), FetchError> {
        if url.scheme == "https" || url.is_loopback() {
            return Ok(());
        }
        let host_port = match url.port {
            Some(p) => format!("{}:{p}", url.host),
            None => url.host.clone(),
        };
        let configured = self.plain_http.lock().unwrap_or_else(|p| p.into_inner());
        if self
            .policy
            .plain_http_hosts
            .iter()
            .chain(configured.iter())
            .any(|h| h.eq_ignore_ascii_case(&url.host) || h.eq_ignore_ascii_case(&host_port))
        {
            return Ok(());
        }
        Err(FetchError::PlainHttp {
            url: url.to_string(),
        })
    }

    /// GETs `url`, following redirects; any status is returned as a response.
    pub fn get(
        &self,
        url: &Url,
        accept: &str,
        auth: Option<&Auth>,
        limit: u64,
    ) -> Result<Response, FetchError> {
        let mut tries = 0;
        loop {
            match self.get_once(url, accept, auth, limit) {
                Ok(r) if r.status >= 500 && tries < self.policy.retries => {}
                Err(e) if e.is_spurious() && tries < self.policy.retries => {}
                other => return other,
            }
            tries += 1;
            std::thread::sleep(Duration::from_millis(200 << tries));
        }
    }

    /// GETs `url` and fails on any status but 2xx.
    pub fn get_ok(
        &self,
        url: &Url,
        accept: &str,
        auth: Option<&Auth>,
        limit: u64,
    ) -> Result<Response, FetchError> {
        let r = self.get(url, accept, auth, limit)?;
        if !(200..300).contains(&r.status) {
            return Err(FetchError::Status {
                url: url.to_string(),
                status: r.status,
            });
        }
        Ok(r)
    }

    fn get_once(
        &self,
        url: &Url,
        accept: &str,
        auth: Option<&Auth>,
        limit: u64,
    ) -> Result<Response, FetchError> {
        let origin = url.origin();
        let mut current = url.without_credentials();
        for _ in 0..=MAX_REDIRECTS {
            self.allowed(&current)?;
            let mut request = self.agent.get(current.to_string()).header("Accept", accept);
            // Credentials go only to the origin they were given for.
            if current.origin() == origin {
                match auth {
                    Some(Auth::Basic { user, password }) => {
                        request = request.header(
                            "Authorization",
                            format!("Basic {}", basic_token(user, password)),
                        );
                    }
                    Some(Auth::Bearer(token)) => {
                        request = request.header("Authorization", format!("Bearer {token}"));
                    }
                    None => {}
                }
            }
            let mut response = request.call().map_err(|e| network_error(&current, e))?;
            let status = response.status().as_u16();
            let headers: Vec<(String, String)> = response
                .headers()
                .iter()
                .map(|(n, v)| {
                    (
                        n.as_str().to_ascii_lowercase(),
                        String::from_utf8_lossy(v.as_bytes()).into_owned(),
                    )
                })
                .collect();
            if (300..400).contains(&status) && status != 304 {
                let location = headers
                    .iter()
                    .find(|(n, _)| n == "location")
                    .map(|(_, v)| v.clone())
                    .ok_or_else(|| FetchError::Network {
                        url: current.to_string(),
                        message: format!("HTTP {status} without a Location header"),
                        spurious: false,
                    })?;
                current = current.join(&location).map_err(FetchError::Url)?;
                continue;
            }
            let body = response
                .body_mut()
                .with_config()
                .limit(limit)
                .read_to_vec()
                .map_err(|e| match e {
                    ureq::Error::BodyExceedsLimit(_) => FetchError::TooLarge {
                        url: current.to_string(),
                        limit,
                    },
                    e => network_error(&current, e),
                })?;
            return Ok(Response {
                status,
                headers,
                body,
                url: current,
            });
        }
        Err(FetchError::Network {
            url: url.to_string(),
            message: format!("more than {MAX_REDIRECTS} redirects"),
            spurious: false,
        })
    }
}

fn basic_token(user: &str, password: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
}

/// A transport error in words, with whether a retry may help.
fn network_error(url: &Url, e: ureq::Error) -> FetchError {
    let url = url.to_string();
    let (message, spurious) = match e {
        ureq::Error::Timeout(_) => return FetchError::Timeout { url },
        ureq::Error::HostNotFound => ("the host name does not resolve".to_string(), false),
        ureq::Error::ConnectionFailed => ("the connection failed".to_string(), true),
        ureq::Error::Tls(m) => (format!("TLS: {m}"), false),
        ureq::Error::Io(io) => {
            let spurious = matches!(
                io.kind(),
                std::io::ErrorKind::ConnectionReset
                    | std::io::ErrorKind::ConnectionAborted
                    | std::io::ErrorKind::UnexpectedEof
                    | std::io::ErrorKind::Interrupted
                    | std::io::ErrorKind::TimedOut
            );
            let text = io.to_string();
            let message = match io.kind() {
                _ if text.contains("failed to lookup address") => {
                    "the host name does not resolve".to_string()
                }
                std::io::ErrorKind::ConnectionRefused => "connection refused".to_string(),
                std::io::ErrorKind::UnexpectedEof => {
                    "the connection closed before the whole body arrived".to_string()
                }
                _ => io.to_string(),
            };
            (message, spurious)
        }
        other => (other.to_string(), false),
    };
    FetchError::Network {
        url,
        message,
        spurious,
    }
}

impl From<UrlError> for FetchError {
    fn from(e: UrlError) -> FetchError {
        FetchError::Url(e)
    }
}
