//! Exec plugins (kustomize's legacy exec plugin protocol): an executable at
//! `$XDG_CONFIG_HOME/kustomize/plugin/<group>/<version>/<lowercase kind>/<Kind>` gets the
//! plugin config file as its first argument and, for transformers, the resources on stdin; it
//! prints resources on stdout. Run only with `--enable-exec-plugins`, with a timeout.

use super::error::KError;
use super::loader::Loader;
use super::res::{anno, Res};
use super::resmap::ResMap;
use super::transform::patch::parse_smp;
use crate::finding::rules;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// How long one plugin may run.
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// Where kustomize looks for plugins, in its order.
fn plugin_homes() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(h) = std::env::var_os("KUSTOMIZE_PLUGIN_HOME") {
        out.push(PathBuf::from(h));
    }
    if let Some(x) = std::env::var_os("XDG_CONFIG_HOME") {
        out.push(PathBuf::from(x).join("kustomize/plugin"));
    }
    if let Some(h) = std::env::var_os("HOME") {
        out.push(PathBuf::from(&h).join(".config/kustomize/plugin"));
        out.push(PathBuf::from(h).join("kustomize/plugin"));
    }
    out
}

fn plugin_path(cfg: &Res) -> Option<PathBuf> {
    let (group, version) = crate::resource::split_api_version(cfg.api_version());
    let kind = cfg.kind();
    plugin_homes().into_iter().find_map(|home| {
        let p = home
            .join(group)
            .join(version)
            .join(kind.to_lowercase())
            .join(kind);
        p.is_file().then_some(p)
    })
}

/// Runs the exec plugin configured by `cfg`; `input` is given for transformers.
pub fn run_plugin(
    ldr: &Loader,
    cfg: &Res,
    input: Option<&ResMap>,
    enabled: bool,
) -> Result<ResMap, KError> {
    let id = cfg.cur_id();
    let Some(path) = plugin_path(cfg) else {
        return Err(KError::new(
            rules::KUSTOMIZE_PLUGIN_NOT_FOUND,
            format!(
                "external plugin {id} not found: looked for {}/{}/{} under {}",
                cfg.api_version(),
                cfg.kind().to_lowercase(),
                cfg.kind(),
                plugin_homes()
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    };
    if !enabled {
        return Err(KError::new(
            rules::KUSTOMIZE_PLUGIN_EXEC_DISABLED,
            format!("exec plugin {id} ({}) is not run", path.display()),
        )
        .with_help(
            "pass --enable-exec-plugins to run exec plugins (they run with your privileges)",
        ));
    }
    let config = yaml_of(cfg);
    let args = plugin_args(ldr, cfg)?;
    let stdin = input.map(stream_of).unwrap_or_default();
    let output = invoke(&path, &config, &args, stdin.as_bytes(), ldr.root().as_str())?;
    let text = String::from_utf8_lossy(&output);
    let produced = parse_smp(&text, &ldr.schema).map_err(|e| {
        KError::new(
            rules::KUSTOMIZE_PLUGIN_OUTPUT,
            format!("plugin {id} printed invalid resources: {e}"),
        )
    })?;
    match input {
        None => {
            let mut rm = ResMap::new();
            let mut ids = rm.ids();
            for mut r in produced {
                update_generator_options(&mut r)?;
                rm.append_to(r, &mut ids)?;
            }
            Ok(rm)
        }
        Some(before) => merge_transformed(before, produced, &id.to_string()),
    }
}

fn yaml_of(r: &Res) -> String {
    crate::yaml::to_value(&r.node, crate::yaml::Dialect::Yaml12)
        .map(|v| crate::yaml::emit::to_string(&v))
        .unwrap_or_default()
}

fn stream_of(rm: &ResMap) -> String {
    let values: Vec<serde_json::Value> = rm
        .list
        .iter()
        .filter_map(|r| crate::yaml::to_value(&r.node, crate::yaml::Dialect::Yaml12).ok())
        .collect();
    crate::yaml::emit::to_stream(values.iter())
}

/// `argsOneLiner` (shell-like words) and `argsFromFile` (one argument per line).
fn plugin_args(ldr: &Loader, cfg: &Res) -> Result<Vec<String>, KError> {
    let mut args = Vec::new();
    if let Some(line) = cfg.node.str_at(&["argsOneLiner"]) {
        args.extend(shell_words(line));
    }
    if let Some(file) = cfg.node.str_at(&["argsFromFile"]) {
        let (_, bytes) = ldr.load(file)?;
        for l in String::from_utf8_lossy(&bytes).split('\n') {
            let l = l.trim_start_matches(' ');
            if !l.is_empty() {
                args.push(l.to_string());
            }
        }
    }
    Ok(args)
}

/// Splits like a POSIX shell: whitespace separates, quotes group, backslash escapes.
fn shell_words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    cur.push(c);
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => {
                            if let Some(n) = chars.next() {
                                cur.push(n);
                            }
                        }
                        c => cur.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    out
}

fn invoke(
    path: &PathBuf,
    config: &str,
    args: &[String],
    stdin: &[u8],
    root: &str,
) -> Result<Vec<u8>, KError> {
    let fail = |m: String| KError::new(rules::KUSTOMIZE_PLUGIN_FAILED, m);
    let dir = crate::process::TempDir::new("kdelta-plugin")
        .map_err(|e| fail(format!("cannot create a temporary directory: {e}")))?;
    dir.write("kust-plugin-config.yaml", config.as_bytes())
        .map_err(|e| fail(format!("writing plugin config: {e}")))?;
    let done = crate::process::run(
        Command::new(path)
            .arg(dir.path().join("kust-plugin-config.yaml"))
            .args(args)
            .current_dir(dir.path())
            .env("KUSTOMIZE_PLUGIN_CONFIG_STRING", config)
            .env("KUSTOMIZE_PLUGIN_CONFIG_ROOT", root),
        stdin,
        TIMEOUT,
    )
    .map_err(|e| fail(format!("plugin {}: {e}", path.display())))?;
    if !done.status.success() {
        return Err(fail(format!(
            "failure in plugin {}: {}: {}",
            path.display(),
            done.status,
            String::from_utf8_lossy(&done.stderr).trim()
        )));
    }
    Ok(done.stdout)
}

/// kustomize `UpdateResourceOptions`: the needs-hash and behavior annotations a generator plugin
/// sets become build annotations.
fn update_generator_options(r: &mut Res) -> Result<(), KError> {
    const HASH: &str = "kustomize.config.k8s.io/needs-hash";
    const BEHAVIOR: &str = "kustomize.config.k8s.io/behavior";
    let mut a = r.annotations();
    let behavior = a.remove(BEHAVIOR).unwrap_or_default();
    let needs_hash = match a.remove(HASH) {
        None => false,
        Some(v) => match v.as_str() {
            "1" | "t" | "T" | "true" | "TRUE" | "True" => true,
            "0" | "f" | "F" | "false" | "FALSE" | "False" => false,
            _ => {
                return Err(KError::new(
                    rules::KUSTOMIZE_PLUGIN_OUTPUT,
                    format!("the annotation \"{HASH}\" contains an invalid value (\"{v}\")"),
                ))
            }
        },
    };
    r.set_annotations(&a);
    if needs_hash {
        r.set_annotation(anno::NEEDS_HASH, "enabled");
    }
    let behavior = if behavior.is_empty() {
        "create".to_string()
    } else {
        behavior
    };
    r.set_annotation(anno::GEN_BEHAVIOR, &behavior);
    Ok(())
}

/// kustomize `UpdateResMapValues`: output objects replace the inputs with the same id, new ones
/// are appended, inputs missing from the output are removed.
fn merge_transformed(before: &ResMap, produced: Vec<Res>, plugin: &str) -> Result<ResMap, KError> {
    let mut out = before.clone();
    let mut seen = Vec::new();
    for r in produced {
        let id = r.cur_id();
        if seen.iter().any(|s: &super::kid::KId| s.equals(&id)) {
            return Err(KError::new(
                rules::KUSTOMIZE_PLUGIN_OUTPUT,
                format!("plugin {plugin} generated duplicate resource: {id}"),
            ));
        }
        seen.push(id.clone());
        match out.list.iter().position(|x| x.cur_id().equals(&id)) {
            Some(i) => out.list[i].node = r.node,
            None => out.list.push(r),
        }
    }
    out.list
        .retain(|r| seen.iter().any(|s| s.equals(&r.cur_id())));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words() {
        assert_eq!(
            shell_words(r#"a "b c" 'd e' f\ g"#),
            vec!["a", "b c", "d e", "f g"]
        );
    }
}
