//! Exec plugins (kustomize's legacy exec plugin protocol): an executable at
//! `$XDG_CONFIG_HOME/kustomize/plugin/<group>/<version>/<lowercase kind>/<Kind>` gets the
//! plugin config file as its first argument and, for transformers, the resources on stdin; it
//! prints resources on stdout. Run only with `--enable-exec-plugins`, with a timeout.

use super::error::KError;
use super::loader::Loader;
use super::res::{anno, Res};
use super::resmap::ResMap;
use super::transform::patch::{parse_smp, PatchDocsError};
use crate::finding::rules;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// How long one plugin may run.
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// What kustomize's plugin loader reads of the environment to find the plugin root
/// (`konfig.DefaultAbsPluginHome`): `$KUSTOMIZE_PLUGIN_HOME`, `$XDG_CONFIG_HOME` and `$HOME`, as
/// the command line found them (empty: unset, as Go's `os.Getenv` says).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PluginEnv {
    pub kustomize_plugin_home: String,
    pub xdg_config_home: String,
    pub home: String,
}

impl PluginEnv {
    /// The variables of this process.
    pub fn from_process() -> PluginEnv {
        let var = |k: &str| {
            std::env::var_os(k)
                .map(|v| v.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        PluginEnv {
            kustomize_plugin_home: var("KUSTOMIZE_PLUGIN_HOME"),
            xdg_config_home: var("XDG_CONFIG_HOME"),
            home: var("HOME"),
        }
    }

    /// The candidate plugin roots in kustomize's order, each with kustomize's note on where
    /// it comes from (`""`: the variable it comes from is unset).
    fn candidates(&self) -> [(String, &'static str); 4] {
        // konfig.HomeDir: `~` when $HOME is empty.
        let home = if self.home.is_empty() {
            "~"
        } else {
            self.home.as_str()
        };
        let join = |base: &str, rest: &str| {
            if base.is_empty() {
                String::new()
            } else {
                format!("{}/{rest}", base.trim_end_matches('/'))
            }
        };
        [
            (
                self.kustomize_plugin_home.clone(),
                "homed in $KUSTOMIZE_PLUGIN_HOME",
            ),
            (
                join(&self.xdg_config_home, "kustomize/plugin"),
                "homed in $XDG_CONFIG_HOME",
            ),
            (
                join(home, ".config/kustomize/plugin"),
                "homed in default value of $XDG_CONFIG_HOME",
            ),
            (join(home, "kustomize/plugin"), "homed in home directory"),
        ]
    }

    /// The plugin root: the first candidate that exists (kustomize looks for a plugin in that
    /// one only), else kustomize's `unable to find plugin root` error.
    fn root(&self) -> Result<PathBuf, KError> {
        let candidates = self.candidates();
        if let Some((dir, _)) = candidates
            .iter()
            .find(|(dir, _)| !dir.is_empty() && std::path::Path::new(dir).exists())
        {
            return Ok(PathBuf::from(dir));
        }
        let tried: Vec<String> = candidates
            .iter()
            .map(|(dir, note)| {
                let dir = if dir.is_empty() { "<no value>" } else { dir };
                format!("('{dir}'; {note})")
            })
            .collect();
        Err(KError::new(
            rules::KUSTOMIZE_PLUGIN_NOT_FOUND,
            format!("unable to find plugin root - tried: {}", tried.join(", ")),
        )
        .with_cause(
            "no kustomize plugin directory: none of $KUSTOMIZE_PLUGIN_HOME, \
             $XDG_CONFIG_HOME/kustomize/plugin, $HOME/.config/kustomize/plugin and \
             $HOME/kustomize/plugin exists",
            &[],
        )
        .with_help("install exec plugins under one of them, or set KUSTOMIZE_PLUGIN_HOME"))
    }
}

/// Where the exec plugin configured by `cfg` must be: `ROOT/GROUP/VERSION/lowercase
/// kind/KIND` in the plugin root, and that it is an executable file there.
fn plugin_path(env: &PluginEnv, cfg: &Res) -> Result<PathBuf, KError> {
    let (group, version) = crate::resource::split_api_version(cfg.api_version());
    let kind = cfg.kind();
    let path = env
        .root()?
        .join(group)
        .join(version)
        .join(kind.to_lowercase())
        .join(kind);
    let shown = path.display();
    match std::fs::metadata(&path) {
        Ok(meta) => {
            use std::os::unix::fs::PermissionsExt;
            if meta.permissions().mode() & 0o111 == 0 {
                return Err(KError::new(
                    rules::KUSTOMIZE_PLUGIN_NOT_FOUND,
                    format!("unexecutable plugin at: {shown}"),
                )
                .with_cause(format!("exec plugin {shown} is not executable"), &[])
                .with_help(format!("make it executable: chmod +x {shown}")));
            }
            Ok(path)
        }
        // kustomize then looks for a Go plugin (`KIND.so`), which kdelta never loads.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(KError::new(
            rules::KUSTOMIZE_PLUGIN_NOT_FOUND,
            format!("expected file with Go object code at: {shown}.so"),
        )
        .with_cause(
            format!(
                "exec plugin {} not found: no executable {shown}",
                cfg.cur_id()
            ),
            &[],
        )
        .with_help("install the plugin's executable there (kdelta does not load Go plugins)")),
        Err(e) => Err(KError::new(
            rules::KUSTOMIZE_PLUGIN_NOT_FOUND,
            format!("stat {shown}: {e}"),
        )),
    }
}

/// Runs the exec plugin configured by `cfg`; `input` is given for transformers. `env` is
/// `None` unless the user enabled exec plugins. The errors are kustomize v5.5.0's, with the
/// wrapping its plugin loader adds (`loading generator plugins: failed to load generator: …`
/// for a generator; a transformer's are not wrapped).
pub fn run_plugin(
    ldr: &Loader,
    cfg: &Res,
    input: Option<&ResMap>,
    env: Option<&PluginEnv>,
) -> Result<ResMap, KError> {
    let loading = |mut e: KError| {
        if input.is_none() {
            e.message = format!(
                "loading generator plugins: failed to load generator: {}",
                e.message
            );
        }
        e
    };
    let id = cfg.cur_id();
    let Some(env) = env else {
        return Err(loading(
            KError::new(
                rules::KUSTOMIZE_PLUGIN_EXEC_DISABLED,
                format!(
                    "external plugins disabled; unable to load external plugin '{}'",
                    cfg.kind()
                ),
            )
            .with_cause(format!("exec plugin {id} is not run"), &[])
            .with_help(
                "pass --enable-exec-plugins to run exec plugins (they run with your privileges)",
            ),
        ));
    };
    let path = plugin_path(env, cfg).map_err(loading)?;
    let config = yaml_of(cfg);
    let args = plugin_args(ldr, cfg)?;
    let stdin = input.map(stream_of).unwrap_or_default();
    let output = invoke(
        &path,
        cfg,
        &config,
        &args,
        stdin.as_bytes(),
        ldr,
        input.is_some(),
    )?;
    let text = String::from_utf8_lossy(&output);
    let produced = parse_smp(&text, &ldr.schema).map_err(|e| invalid_output(&id, e))?;
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

/// What a plugin printed that is no resources. Output that is no YAML fails as kustomize's
/// resource factory says (`MalformedYAMLError: yaml: …`, the plugin not named); kdelta's
/// cause names the plugin.
fn invalid_output(id: &super::kid::KId, e: PatchDocsError) -> KError {
    match e {
        PatchDocsError::Yaml(y) => KError::new(
            rules::KUSTOMIZE_PLUGIN_OUTPUT,
            format!(
                "MalformedYAMLError: {}",
                y.go_message
                    .clone()
                    .unwrap_or_else(|| format!("yaml: line {}: {}", y.span.line, y.message))
            ),
        )
        .with_cause(
            format!(
                "plugin {id} printed invalid YAML at line {}, column {} of its output: {}",
                y.span.line, y.span.column, y.message
            ),
            &[],
        ),
        e => KError::new(
            rules::KUSTOMIZE_PLUGIN_OUTPUT,
            format!("plugin {id} printed invalid resources: {e}"),
        ),
    }
}

/// The most a plugin's copy of its kustomization directory may hold (files and directories:
/// a link back up the tree ends there, not in a loop).
const MAX_COPIED_FILES: usize = 10_000;
const MAX_COPIED_BYTES: usize = 256 << 20;

/// Writes the kustomization directory's files (the revision's, read through the loader, so
/// they are in the render's read set) below `into`, for a plugin to run in. A plugin reads
/// the files its config names relative to where it runs (ksops reads its encrypted files so);
/// kdelta reads a revision from git, and a plugin must not write into the repository, so the
/// plugin gets a copy. Links are followed within the snapshot; a directory too big to copy
/// is an error, not a partial copy.
fn copy_root(ldr: &Loader, into: &std::path::Path) -> Result<(), KError> {
    use crate::source::EntryKind;
    let fail = |m: String| KError::new(rules::KUSTOMIZE_PLUGIN_FAILED, m);
    let (mut files, mut bytes) = (0usize, 0usize);
    let mut stack = vec![(ldr.root().clone(), into.to_path_buf())];
    while let Some((dir, out)) = stack.pop() {
        std::fs::create_dir_all(&out)
            .map_err(|e| fail(format!("copying {dir} for the plugin: {e}")))?;
        let entries = ldr
            .files
            .list(&dir)
            .map_err(|e| fail(format!("copying {dir} for the plugin: {e}")))?;
        for e in entries {
            let child = dir.child(&e.name);
            let kind = match e.kind {
                EntryKind::Symlink => ldr.files.kind(&child),
                k => k,
            };
            let too_much = |files: usize, bytes: usize| {
                (files > MAX_COPIED_FILES || bytes > MAX_COPIED_BYTES).then(|| {
                    fail(format!(
                        "{} holds more than {MAX_COPIED_FILES} files or {} MB: too much to copy for an exec plugin to run in",
                        ldr.root(),
                        MAX_COPIED_BYTES >> 20
                    ))
                })
            };
            match kind {
                EntryKind::Dir => {
                    files += 1;
                    if let Some(e) = too_much(files, bytes) {
                        return Err(e);
                    }
                    stack.push((child, out.join(&e.name)));
                }
                EntryKind::File => {
                    let content = ldr
                        .files
                        .read(&child)
                        .map_err(|e| fail(format!("copying {child} for the plugin: {e}")))?;
                    files += 1;
                    bytes += content.len();
                    if let Some(e) = too_much(files, bytes) {
                        return Err(e);
                    }
                    std::fs::write(out.join(&e.name), &content)
                        .map_err(|e| fail(format!("copying {child} for the plugin: {e}")))?;
                }
                _ => {}
            }
        }
    }
    Ok(())
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
        let bytes = ldr.load(file)?.bytes;
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

/// Runs the plugin at `path` with its config file as the first argument, as kustomize's
/// `ExecPlugin.invokePlugin` does, and returns what it printed. kustomize runs the plugin in
/// the kustomization's directory, named by `KUSTOMIZE_PLUGIN_CONFIG_ROOT` as well; kdelta
/// runs it in a copy of that directory ([`copy_root`]).
fn invoke(
    path: &PathBuf,
    cfg: &Res,
    config: &str,
    args: &[String],
    stdin: &[u8],
    ldr: &Loader,
    transformer: bool,
) -> Result<Vec<u8>, KError> {
    let fail = |m: String| KError::new(rules::KUSTOMIZE_PLUGIN_FAILED, m);
    let dir = crate::process::TempDir::new("kdelta-plugin")
        .map_err(|e| fail(format!("cannot create a temporary directory: {e}")))?;
    dir.write("kust-plugin-config.yaml", config.as_bytes())
        .map_err(|e| fail(format!("writing plugin config: {e}")))?;
    let root = dir.path().join("root");
    copy_root(ldr, &root)?;
    let done = crate::process::run(
        Command::new(path)
            .arg(dir.path().join("kust-plugin-config.yaml"))
            .args(args)
            .current_dir(&root)
            .env("KUSTOMIZE_PLUGIN_CONFIG_STRING", config)
            .env("KUSTOMIZE_PLUGIN_CONFIG_ROOT", &root),
        stdin,
        TIMEOUT,
    )
    .map_err(|e| fail(format!("plugin {}: {e}", path.display())))?;
    if !done.status.success() {
        let status = crate::process::go_exit_status(&done.status);
        let stderr = String::from_utf8_lossy(&done.stderr);
        // kustomize: `STDERR: failure in plugin configured via CONFIG; exit status N` (the
        // stderr and its `: ` left out when empty; a transformer's message ends with a space
        // and its empty output). CONFIG is the temporary file kustomize wrote the config to,
        // deleted by the time anyone reads the message; kdelta names the repository file the
        // config came from instead, which is what a reader can open.
        let mut message = format!(
            "failure in plugin configured via {}; {status}",
            cfg.origin.file
        );
        if !stderr.is_empty() {
            message = format!("{stderr}: {message}");
        }
        if transformer {
            message.push(' ');
        }
        let trimmed = stderr.trim();
        let cause = if trimmed.is_empty() {
            format!("exec plugin {} failed: {status}", path.display())
        } else {
            format!("exec plugin {} failed: {status}: {trimmed}", path.display())
        };
        return Err(fail(message).with_cause(cause, &[]));
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
