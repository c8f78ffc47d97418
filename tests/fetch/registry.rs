//! A real OCI registry for the fetch tests: Debian's `docker-registry` (the CNCF distribution
//! registry 2.8) on a free 127.0.0.1 port with its storage in a temporary directory, and a
//! `push` that uploads a Helm chart as `helm push` does (config and layer blobs, then the
//! manifest with Helm's media types). `.ci/run` installs the package; without it the tests
//! skip on a laptop and fail under CI=true.

use std::io::Read;
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const HELM_CONFIG: &str = "application/vnd.cncf.helm.config.v1+json";
pub const HELM_LAYER: &str = "application/vnd.cncf.helm.chart.content.v1.tar+gzip";

pub struct Registry {
    pub port: u16,
    child: Child,
    _dir: tempfile::TempDir,
}

const BINARY: &str = "/usr/bin/docker-registry";

impl Registry {
    /// The registry, or `None` (outside CI) when Debian's package is not installed.
    pub fn start() -> Option<Registry> {
        if !std::path::Path::new(BINARY).exists() {
            assert!(
                std::env::var("CI").is_err(),
                "{BINARY} is missing: .ci/run installs Debian's docker-registry"
            );
            eprintln!("skipped: {BINARY} is not installed (apt-get install docker-registry)");
            return None;
        }
        let dir = tempfile::tempdir().expect("a temporary directory");
        let port = free_port();
        let config: PathBuf = dir.path().join("config.yml");
        std::fs::write(
            &config,
            format!(
                "version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: {}\nhttp:\n  addr: 127.0.0.1:{port}\n",
                dir.path().join("data").display()
            ),
        )
        .expect("write the registry's configuration");
        let child = Command::new(BINARY)
            .arg("serve")
            .arg(&config)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start docker-registry");
        let registry = Registry {
            port,
            child,
            _dir: dir,
        };
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "docker-registry did not listen on 127.0.0.1:{port}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(registry)
    }

    /// Pushes a chart archive as `helm push` does: `NAME:TAG` under the registry's root.
    pub fn push(&self, name: &str, tag: &str, chart_yaml_json: &str, tgz: &[u8]) {
        self.push_artifact(
            name,
            tag,
            (HELM_CONFIG, chart_yaml_json.as_bytes()),
            (HELM_LAYER, tgz),
        );
    }

    /// Pushes an artifact of one layer: `(media type, bytes)` of its config and its layer.
    /// Returns the manifest's digest.
    pub fn push_artifact(
        &self,
        name: &str,
        tag: &str,
        config: (&str, &[u8]),
        layer: (&str, &[u8]),
    ) -> String {
        let (config_type, config_bytes) = config;
        let (layer_type, layer_bytes) = layer;
        let config = self.upload(name, config_bytes);
        let layer = self.upload(name, layer_bytes);
        let manifest = format!(
            r#"{{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{{"mediaType":"{config_type}","digest":"{config}","size":{}}},"layers":[{{"mediaType":"{layer_type}","digest":"{layer}","size":{}}}]}}"#,
            config_bytes.len(),
            layer_bytes.len()
        );
        let url = format!("{}/v2/{name}/manifests/{tag}", self.url());
        let r = ureq::put(&url)
            .header("Content-Type", "application/vnd.oci.image.manifest.v1+json")
            .send(manifest.as_bytes())
            .expect("push the manifest");
        assert_eq!(r.status().as_u16(), 201, "PUT {url}");
        digest_of(manifest.as_bytes())
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Uploads a blob (POST, then a monolithic PUT); returns its digest.
    fn upload(&self, name: &str, bytes: &[u8]) -> String {
        let digest = digest_of(bytes);
        let start = ureq::post(&format!("{}/v2/{name}/blobs/uploads/", self.url()))
            .send_empty()
            .expect("start an upload");
        let location = start
            .headers()
            .get("location")
            .and_then(|l| l.to_str().ok())
            .expect("an upload location")
            .to_string();
        let location = if location.starts_with("http") {
            location
        } else {
            format!("{}{location}", self.url())
        };
        let sep = if location.contains('?') { '&' } else { '?' };
        let r = ureq::put(&format!("{location}{sep}digest={digest}"))
            .header("Content-Type", "application/octet-stream")
            .send(bytes)
            .expect("upload a blob");
        assert_eq!(r.status().as_u16(), 201);
        digest
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let mut rest = String::new();
        if let Some(mut out) = self.child.stdout.take() {
            let _ = out.read_to_string(&mut rest);
        }
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// `sha256:HEX` of `bytes`.
fn digest_of(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    let hex: String = sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("sha256:{hex}")
}
