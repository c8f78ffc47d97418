//! Helm's local repository cache (`$HELM_CACHE_HOME/repository`, else
//! `$XDG_CACHE_HOME/helm/repository`, else `~/.cache/helm/repository`): the chart archives
//! `helm dependency update` and `helm pull` leave there, named `NAME-VERSION.tgz`. A chart
//! whose dependency is not vendored in `charts/` renders with the cached archive, when there is
//! one. Read-only, and only archives: kdelta never fetches and never writes here. Engines
//! read an archive through the recording file view (`Files::helm_cache_archive`), so what a
//! render took from here is among its remote sources.

use std::path::{Path, PathBuf};

/// Largest archive read (Helm's own limit on a decompressed chart is 100 MiB; an archive is
/// smaller).
const MAX_ARCHIVE_BYTES: u64 = 100 << 20;

/// The cache directory from the environment, as Helm finds it on Linux.
pub fn repository_dir() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let home = var("HELM_CACHE_HOME")
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("helm")))
        .or_else(|| var("HOME").map(|h| h.join(".cache").join("helm")))?;
    Some(home.join("repository"))
}

/// The cached archives of chart `name`: `(version, path)`, in no particular order.
pub fn archives(dir: &Path, name: &str) -> Vec<(String, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let prefix = format!("{name}-");
    entries
        .flatten()
        .filter_map(|e| {
            let file = e.file_name().into_string().ok()?;
            let version = file.strip_prefix(&prefix)?.strip_suffix(".tgz")?;
            // `redis-ha-4.1.0.tgz` is not a version of `redis`.
            version
                .starts_with(|c: char| c.is_ascii_digit())
                .then(|| (version.to_string(), e.path()))
        })
        .collect()
}

/// An archive's bytes (a regular file under the size limit).
pub fn read(path: &Path) -> std::io::Result<Vec<u8>> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() || meta.len() > MAX_ARCHIVE_BYTES {
        return Err(std::io::Error::other(format!(
            "{} is not a chart archive kdelta reads (a regular file under 100 MiB)",
            path.display()
        )));
    }
    std::fs::read(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archives_are_found_by_name_and_version() {
        let dir = std::env::temp_dir().join(format!("kdelta-helm-cache-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for f in [
            "redis-17.3.0.tgz",
            "redis-ha-4.1.0.tgz",
            "redis-index.yaml",
            "redis-18.0.1.tgz",
        ] {
            std::fs::write(dir.join(f), b"x").unwrap();
        }
        let mut found: Vec<String> = archives(&dir, "redis")
            .into_iter()
            .map(|(v, _)| v)
            .collect();
        found.sort();
        assert_eq!(found, ["17.3.0", "18.0.1"]);
        assert_eq!(read(&dir.join("redis-17.3.0.tgz")).unwrap(), b"x");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
