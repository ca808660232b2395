//! A real S3-compatible server for the push and pull tests: moto's `moto_server` (installed
//! by `scripts/setup.sh`), started on a free port of 127.0.0.1 and stopped when dropped. It
//! implements conditional writes (`If-None-Match: *` answers 412 on an existing key).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};

/// The secret key every S3 test uses: a marker that must never appear in any output.
pub const SECRET: &str = "SeCrEt-MaRkEr-4711-never-print-me";

/// A running server.
pub struct S3Server {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub endpoint: String,
}

impl S3Server {
    /// Start a server with one bucket, `bucket`.
    pub fn start(bucket: &str) -> S3Server {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("moto_server")
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("moto_server is not installed: run `bash scripts/setup.sh`");
        let server = S3Server {
            child,
            endpoint: format!("http://127.0.0.1:{port}"),
        };
        // Ready when it answers (a condition, not a delay); five minutes at most.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
        while server.http("GET", "/", b"").is_none() {
            assert!(
                std::time::Instant::now() < deadline,
                "moto_server never answered"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let status = server.http("PUT", &format!("/{bucket}"), b"").unwrap();
        assert!(status.starts_with("HTTP/1.1 200"), "{status}");
        server
    }

    /// One plain HTTP request; the response's status line and body, or `None` when the
    /// server is not up yet.
    fn http(&self, method: &str, path: &str, body: &[u8]) -> Option<String> {
        let host = self.endpoint.trim_start_matches("http://");
        let mut s = TcpStream::connect(host).ok()?;
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        s.write_all(head.as_bytes()).ok()?;
        s.write_all(body).ok()?;
        let mut out = Vec::new();
        s.read_to_end(&mut out).ok()?;
        Some(String::from_utf8_lossy(&out).into_owned())
    }

    /// The environment a `git-codesearch` process needs to reach it.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ACCESS_KEY_ID", "testing".into()),
            ("AWS_SECRET_ACCESS_KEY", SECRET.into()),
            ("AWS_ENDPOINT", self.endpoint.clone()),
            ("AWS_ALLOW_HTTP", "true".into()),
            ("AWS_REGION", "us-east-1".into()),
        ]
    }

    /// The same, as object_store options for the tests' own reads and writes.
    pub fn options(&self) -> Vec<(&'static str, String)> {
        self.env()
            .into_iter()
            .map(|(k, v)| match k {
                "AWS_ENDPOINT" => ("aws_endpoint", v),
                "AWS_ALLOW_HTTP" => ("aws_allow_http", v),
                "AWS_REGION" => ("aws_region", v),
                "AWS_ACCESS_KEY_ID" => ("aws_access_key_id", v),
                _ => ("aws_secret_access_key", v),
            })
            .collect()
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
